#!/usr/bin/env python3
"""The CSV and JSON Lines exports hold every table of the database, cell by
cell (issue 23). usage: export_roundtrip.py OPMFU SOURCE_ROOT

For several fixture trees (and the real exports of ../shared/real when they
are there) opmfu runs once with --export db,csv,json (and `opmfu diff` once,
on fixtures/diff_inputs' pair, for OpmfuDiff); then every table of
cluster_analysis.db is read back from csv/<Table>.csv with Python's csv
module and from json/<Table>.jsonl with its json module, and compared with
the database row by row and cell by cell:

- the files are exactly the database's tables, each with its columns in
  order (CSV header row; JSON keys in order), rows in rowid order;
- INTEGER: the same integer; REAL: the same double, bit for bit (-0.0
  included; NULL, which is also what the database makes of NaN, is an empty
  field and null; an infinity is inf/-inf in CSV and null in JSON);
- TEXT: in CSV the database's bytes exactly (read back through
  surrogateescape, so bytes that are not UTF-8 compare too), but a text that
  starts with =, +, -, @, tab or CR has a ' in front (issue 27: a
  spreadsheet would read it as a formula), unless --csv-verbatim; the run
  warns once with the number of such cells, and only then; in JSON the
  bytes decoded as UTF-8 with U+FFFD for what is not (Python's
  errors="replace"); NULL is an empty field and null;
- every CSV line ends in CRLF, every JSON line in LF.
"""
import csv
import io
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from build_fixture import build_tree  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
from table_md5 import result_tables  # noqa: E402

FORMULA_START = tuple(b"=+-@\t\r"[i:i + 1] for i in range(6))

# fixture tree -> extra arguments (a case "TREE verbatim" runs TREE with them)
CASES = [
    ("module_tree", []), ("cluster", []), ("cluster_faults", []), ("export_text", []),
    ("xlsx_text", ["--peak", "fp16=100"]), ("kernel_mapping", []), ("dtypes", []), ("flops_messages", []),
    ("module_deep", []), ("module_no_flops", []), ("single_card", []), ("peak_override", ["--peak", "fp16=100"]),
    ("xlsx_text verbatim", ["--peak", "fp16=100", "--csv-verbatim"]),
]
# ../shared/real holds several runs (SPEC 17): each is a result of its own
REAL = [("real/level1", ["--peak", "fp16=353.9"]), ("real", ["--peak", "fp16=353.9", "--run", "ascend"]),
        ("real", ["--run", "kineto-w8"])]
problems = []


def problem(case, msg):
    problems.append("%s: %s" % (case, msg))


def db_tables(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.text_factory = bytes
    tables = {}
    views = {n.decode() for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    for name in result_tables(con):
        cols = [(c[1].decode(), c[2].decode()) for c in con.execute('PRAGMA table_info("%s")' % name)]
        # a view (OpmfuOps) gives its rows in its row table's order
        rows = con.execute('SELECT * FROM "%s"%s' % (name, "" if name in views else " ORDER BY rowid")).fetchall()
        tables[name] = (cols, rows)
    con.close()
    return tables


def type_of(v):
    """The type of a view's computed column (it declares none): its value's."""
    return "INTEGER" if isinstance(v, int) else "REAL" if isinstance(v, float) else "TEXT"


def same_real(a, b):
    return a == b and math.copysign(1, a) == math.copysign(1, b) if not math.isnan(a) else False


def csv_expected(v, verbatim):
    """What the CSV holds for the text v (bytes)."""
    return v if verbatim or not v.startswith(FORMULA_START) else b"'" + v


def check_csv(case, name, cols, rows, path, verbatim):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", "surrogateescape")
    recs = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    if not recs or recs[0] != [c for c, _ in cols]:
        return problem(case, "%s: header %r, expected %r" % (path, recs[:1], [c for c, _ in cols]))
    # every record ends in CRLF: the file's CRLFs are one per record plus those
    # inside texts, and its other LFs are those inside texts
    texts = [v for row in rows for v in row if isinstance(v, bytes)]
    if raw.count(b"\r\n") != len(rows) + 1 + sum(v.count(b"\r\n") for v in texts) or \
            raw.count(b"\n") - raw.count(b"\r\n") != sum(v.count(b"\n") - v.count(b"\r\n") for v in texts):
        problem(case, "%s: a line does not end in CRLF" % path)
    if len(recs) - 1 != len(rows):
        return problem(case, "%s: %d rows, the database has %d" % (path, len(recs) - 1, len(rows)))
    for i, (rec, row) in enumerate(zip(recs[1:], rows)):
        for (col, typ), cell, v in zip(cols, rec, row):
            typ = typ or type_of(v)
            ok = True
            if v is None:
                ok = cell == ""
            elif typ == "INTEGER":
                ok = cell == str(v) and int(cell) == v
            elif typ == "REAL":
                ok = cell != "" and same_real(float(cell), v)
            else:
                ok = cell.encode("utf-8", "surrogateescape") == csv_expected(v, verbatim)
            if not ok:
                problem(case, "%s row %d %s: %r, the database has %r" % (path, i + 1, col, cell, v))


def check_json(case, name, cols, rows, path, verbatim):
    with open(path, "rb") as f:
        raw = f.read()
    lines = raw.split(b"\n")
    if lines[-1] != b"":
        problem(case, "%s: the last line does not end in LF" % path)
    lines = lines[:-1]
    if len(lines) != len(rows):
        return problem(case, "%s: %d rows, the database has %d" % (path, len(lines), len(rows)))
    for i, (line, row) in enumerate(zip(lines, rows)):
        pairs = json.loads(line.decode("utf-8"), object_pairs_hook=list)
        if [k for k, _ in pairs] != [c for c, _ in cols]:
            problem(case, "%s row %d: keys %r" % (path, i + 1, [k for k, _ in pairs]))
            continue
        for (col, typ), (_, val), v in zip(cols, pairs, row):
            typ = typ or type_of(v)
            if v is None:
                ok = val is None
            elif typ == "INTEGER":
                ok = type(val) is int and val == v
            elif typ == "REAL":
                ok = val is None if math.isinf(v) else (type(val) is float and same_real(val, v))
            else:
                ok = val == v.decode("utf-8", "replace")
            if not ok:
                problem(case, "%s row %d %s: %r, the database has %r" % (path, i + 1, col, val, v))


def run_case(case, tree, extra, tmp, cmd=None):
    """cmd: the opmfu arguments before -o (default: analyze TREE)."""
    out = os.path.join(tmp, case.replace("/", "_").replace(" ", "_") + "_out")
    p = subprocess.run([OPMFU] + (cmd or ["analyze", tree]) + ["-o", out, "-q", "--export", "db,csv,json"] + extra,
                       capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 3):
        return problem(case, "exit %d: %s" % (p.returncode, p.stderr))
    d = os.path.join(out, "cluster_analysis_output")
    tables = db_tables(os.path.join(d, "cluster_analysis.db"))
    for sub, ext, check in (("csv", ".csv", check_csv), ("json", ".jsonl", check_json)):
        files = sorted(os.listdir(os.path.join(d, sub)))
        if files != sorted(t + ext for t in tables):
            problem(case, "%s/ holds %r, the database %r" % (sub, files, sorted(tables)))
            continue
        for name, (cols, rows) in sorted(tables.items()):
            check(case, name, cols, rows, os.path.join(d, sub, name + ext), "--csv-verbatim" in extra)
    # the one warning about prefixed cells: their number, and only when there are some
    formulas = sum(1 for _, rows in tables.values() for row in rows for v in row
                   if isinstance(v, bytes) and v.startswith(FORMULA_START))
    said = [ln for ln in p.stderr.splitlines() if "a spreadsheet would read as formula" in ln]
    want = [] if "--csv-verbatim" in extra or not formulas else \
        ["opmfu: warning: %d CSV cell%s that a spreadsheet would read as formula%s start%s with ' "
         "(--csv-verbatim writes them as they are)" % (formulas, "" if formulas == 1 else "s",
                                                       "" if formulas == 1 else "s", "s" if formulas == 1 else "")]
    if said != want:
        problem(case, "warnings %r, expected %r" % (said, want))
    if case.startswith("xlsx_text") and not formulas:
        problem(case, "no text starts like a formula: the fixture no longer tests the CSV prefix")
    n = sum(len(rows) for _, rows in tables.values())
    print("%-18s %d tables, %d rows: %s" % (case, len(tables), n,
                                           "ok" if not any(p.startswith(case + ":") for p in problems) else "FAILED"))
    return n


def main():
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    tmp = tempfile.mkdtemp(prefix="opmfu-roundtrip-")
    try:
        total = 0
        for case, extra in CASES:
            tree = os.path.join(tmp, case.split()[0])
            if not os.path.isdir(tree):
                build_tree(os.path.join(ROOT, "fixtures", case.split()[0], "tree"), tree, schema)
            total += run_case(case, tree, extra, tmp) or 0
        # OpmfuDiff, the table of `opmfu diff`, through the same writers
        pair = os.path.join(ROOT, "fixtures", "diff_inputs")
        base, new = os.path.join(tmp, "diff_base"), os.path.join(tmp, "diff_new")
        build_tree(os.path.join(pair, "tree"), base, schema)
        build_tree(os.path.join(pair, "tree_new"), new, schema)
        n = run_case("diff", None, [], tmp, ["diff", base, new]) or 0
        if n != 17:
            problem("diff", "%d rows, fixtures/diff_inputs derives 17" % n)
        total += n
        for case, extra in REAL:
            if os.path.isdir(os.path.join(SHARED, case)):
                total += run_case(case, os.path.join(SHARED, case), extra, tmp) or 0
            else:
                print("%-18s skipped: %s is not there" % (case, os.path.join(SHARED, case)))
        # a test that compares nothing cannot fail
        if total < 80:
            problem("all", "only %d rows compared" % total)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print(p)
    print("export_roundtrip: %s" % ("ok" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


sys.exit(main())
