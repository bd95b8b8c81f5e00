#!/usr/bin/env python3
"""OpmfuOps stored narrow behind a view (docs/output-schema.md, "How OpmfuOps is stored";
SPEC 24's output budget).

usage: stored_view.py OPMFU GEN_SYNTH SOURCE_ROOT

- The view's columns are the documented ones, in order, and each row's kind and module ids lead
  to a row of the rank's OpmfuOps_kinds and OpmfuOps_modules; a rank's ids are 1..n, each used.
- Over an earlier result whose OpmfuOps is a table (an older opmfu), alone in its file (the staged
  file takes its place) or beside another tool's table (opmfu's tables are replaced in the file):
  OpmfuOps becomes the view, with the rows of a fresh result, and the other table stays.
- --summary-only over a full result drops the view and its three tables; a full run over that
  brings them back.
- Size: from a generated rank of 100,000 kernels to one of 200,000, the result database grows by
  at most 100 bytes per kernel (SPEC 24: 100 MB per 10^6 kernels; the growth leaves out the
  64 KiB pages of the small tables; tests/bench/output_size.py measures 10^6).
"""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

OPMFU, GEN, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
from table_md5 import result_tables, table_md5s  # noqa: E402

COLUMNS = ["rank_id", "step", "op_name", "module", "start_ns", "end_ns", "kernels", "main_kernel", "kernel_ns",
           "flops", "flops_source", "dtype_class", "peak_tflops", "achieved_tflops", "mfu", "lost_ns",
           "flops_name", "bytes", "intensity", "achieved_tbps", "bound", "roofline_ns", "roofline_eff",
           "recoverable_ns"]
STORED = ["OpmfuOps_kinds", "OpmfuOps_modules", "OpmfuOps_rows"]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, code=0):
    p = subprocess.run([OPMFU] + args, capture_output=True, text=True)
    if p.returncode != code:
        fail("%s: exit %d, want %d: %s" % (" ".join(args), p.returncode, code, p.stderr.strip()))
    return p


def db(out):
    return os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")


def kinds(path):
    con = sqlite3.connect(path)
    got = dict(con.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')"))
    con.close()
    return got


def check_view(path, label):
    con = sqlite3.connect(path)
    cols = [r[1] for r in con.execute("PRAGMA table_info(OpmfuOps)")]
    if cols != COLUMNS:
        fail("%s: OpmfuOps has the columns %r" % (label, cols))
    for dim, col in (("OpmfuOps_kinds", "kind"), ("OpmfuOps_modules", "module")):
        orphans = con.execute('SELECT count(*) FROM OpmfuOps_rows r LEFT JOIN %s d ON d.rank_id = r.rank_id AND '
                              'd.id = r."%s" WHERE d.id IS NULL' % (dim, col)).fetchone()[0]
        if orphans:
            fail("%s: %d OpmfuOps_rows rows have no %s row" % (label, orphans, dim))
        # per rank: ids 1..n, each used by a row
        for rank, n, top, used in con.execute(
                'SELECT d.rank_id, count(*), max(d.id), (SELECT count(DISTINCT "%s") FROM OpmfuOps_rows r '
                'WHERE r.rank_id = d.rank_id) FROM %s d GROUP BY d.rank_id' % (col, dim)):
            if not n == top == used:
                fail("%s: rank %s of %s: %d ids up to %d, %d used" % (label, rank, dim, n, top, used))
    n_view = con.execute("SELECT count(*) FROM OpmfuOps").fetchone()[0]
    n_rows = con.execute("SELECT count(*) FROM OpmfuOps_rows").fetchone()[0]
    if n_view != n_rows or n_view == 0:
        fail("%s: the view has %d rows, OpmfuOps_rows %d" % (label, n_view, n_rows))
    con.close()


def main():
    tmp = tempfile.mkdtemp(prefix="opmfu-stored-")
    try:
        data = os.path.join(tmp, "cluster")
        subprocess.run([GEN, "-o", data, "-r", "3", "-n", "3000", "-l", "2", "-S", "-q"], check=True)
        fresh = os.path.join(tmp, "fresh")
        run(["analyze", data, "-o", fresh, "-q"])
        check_view(db(fresh), "fresh")
        if kinds(db(fresh)).get("OpmfuOps") != "view" or any(kinds(db(fresh)).get(t) != "table" for t in STORED):
            fail("fresh: %r" % kinds(db(fresh)))
        want = table_md5s(db(fresh))

        # an older opmfu's result: OpmfuOps a table of the view's columns, with a row
        for other in (False, True):
            label = "over an OpmfuOps table%s" % (" beside another tool's table" if other else "")
            old = os.path.join(tmp, "old%d" % other)
            os.makedirs(os.path.dirname(db(old)))
            con = sqlite3.connect(db(old))
            con.execute("CREATE TABLE OpmfuOps (%s)" % ", ".join('"%s"' % c for c in COLUMNS))
            con.execute("INSERT INTO OpmfuOps (rank_id, op_name) VALUES (7, 'stale')")
            if other:
                con.execute("CREATE TABLE OtherTool (x)")
                con.execute("INSERT INTO OtherTool VALUES (42)")
            con.commit()
            con.close()
            run(["analyze", data, "-o", old, "-q"])
            check_view(db(old), label)
            got = table_md5s(db(old))
            if other:
                # table_md5's line for its one row (42,)
                if got.pop("OtherTool", None) != (1, hashlib.md5(repr((42,)).encode()).hexdigest()):
                    fail("%s: OtherTool is not kept as it was" % label)
            if got != want:
                fail("%s: the tables differ from a fresh result's:\n%r\n%r" % (label, got, want))

        # --summary-only over the full result drops the view and its tables; a full run restores them
        over = os.path.join(tmp, "over")
        shutil.copytree(fresh, over)
        run(["analyze", data, "-o", over, "-q", "--summary-only"])
        left = kinds(db(over))
        if "OpmfuOps" in left or any(t in left for t in STORED):
            fail("--summary-only over a full result left %r" % sorted(left))
        run(["analyze", data, "-o", over, "-q"])
        if table_md5s(db(over)) != want:
            fail("a full run over a --summary-only result is not a fresh result")
        check_view(db(over), "full over summary-only")

        # the size budget, scaled: 100 bytes of result per kernel more
        size = {}
        for n in (100000, 200000):
            big = os.path.join(tmp, "big%d" % n)
            subprocess.run([GEN, "-o", big, "-r", "1", "-n", str(n), "-q"], check=True)
            out = big + "_out"
            run(["analyze", big, "-o", out, "-q"])
            size[n] = os.path.getsize(db(out))
            check_view(db(out), "%d kernels" % n)
            if sorted(result_tables(sqlite3.connect(db(out)))) != sorted(want):
                fail("%d kernels: other tables than the cluster's" % n)
        per = (size[200000] - size[100000]) / 1e5
        print("results of %d and %d bytes: %.1f bytes per kernel more" % (size[100000], size[200000], per))
        if per > 100:
            fail("100,000 kernels more take %.1f bytes each in the result, over 100" % per)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
