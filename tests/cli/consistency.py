#!/usr/bin/env python3
"""One account, shown the same everywhere (issue 26, SPEC 16).

For every fixture whose command is `opmfu analyze`, and for the real traces
in ../shared/real, runs the analysis with --export db,xlsx and reads the run's
account from the database (OpmfuRun, OpmfuRankSummary, OpmfuHotspots,
OpmfuStragglers). Then it finds the same values in the terminal report and in
the summary workbook's cells:
  - the median rank, its median step and step time, trace MFU and the four
    shares (the waterfall's header and bars, and the median rank's row);
  - every rank row's step time, trace MFU, busy MFU and coverage;
  - the first hotspot of each kind, and every straggler line;
  - in opmfu_summary.xlsx, the OpmfuRun values wherever the workbook shows
    the run's median rank, step, step time, trace MFU or shares.
It fails if a view shows a number that differs from the tables, which is what
a view that computes its own would do.

usage: consistency.py OPMFU SOURCE_ROOT
"""
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from build_fixture import build_tree  # noqa: E402
import run_golden  # noqa: E402
from kname_oracle import kernel_short  # noqa: E402
from xlsx_cells import dump as dump_xlsx  # noqa: E402

SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))


# ---- the terminal's formats (src/cli/report.c) ----

def pct(v, decimals=1):
    if v is None or (isinstance(v, float) and math.isnan(v)) or v < 0:
        return "-"
    p = v * 100
    if 0 < p < 10 ** -decimals / 2:
        return "%s%%" % c_g2(p)
    return "%.*f%%" % (decimals, p)


def c_g2(x):
    """C's %.2g."""
    s = "%.2g" % x
    return s


def ns(v):
    if v is None or v < 0:
        return "-"
    if v < 1e3:
        return "%.0f ns" % v
    if v < 1e6:
        return "%.2f us" % (v / 1e3)
    if v < 1e9:
        return "%.2f ms" % (v / 1e6)
    return "%.2f s" % (v / 1e9)


def terminal(text):
    """text as the terminal shows it (src/cli/term.c): control characters but
    LF as \\xNN, the C1 controls U+0080-U+009F as \\u00NN, a stray byte
    0x80-0x9F as \\xNN."""
    b, out, i, cont = text.encode("utf-8", "surrogateescape"), [], 0, 0
    while i < len(b):
        c = b[i]
        if cont and 0x80 <= c <= 0xBF:
            cont -= 1
            out.append(chr(c).encode("latin-1"))
        elif c == 0xC2 and i + 1 < len(b) and 0x80 <= b[i + 1] <= 0x9F:
            out.append(b"\\u00%02x" % b[i + 1])
            i += 1
            cont = 0
        elif (c < 0x20 and c != 0x0A) or 0x7F <= c <= 0x9F:
            out.append(b"\\x%02x" % c)
            cont = 0
        else:
            cont = 1 if 0xC2 <= c < 0xE0 else 2 if 0xE0 <= c < 0xF0 else 3 if 0xF0 <= c <= 0xF4 else 0
            out.append(bytes([c]))
        i += 1
    return b"".join(out).decode("utf-8", "surrogateescape")


def rows(db, table):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    # names are data: any bytes, decoded as the terminal's output is
    con.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    try:
        return [dict(r) for r in con.execute('SELECT * FROM "%s"' % table)]
    finally:
        con.close()


class Check:
    def __init__(self, name):
        self.name = name
        self.fails = []

    def eq(self, what, want, got):
        if want != got:
            self.fails.append("%s: %s: tables say %r, the view shows %r" % (self.name, what, want, got))

    def true(self, what, cond):
        if not cond:
            self.fails.append("%s: %s" % (self.name, what))


def check_terminal(c, out, db):
    run = rows(db, "OpmfuRun")
    c.true("OpmfuRun has one row", len(run) == 1)
    if len(run) != 1:
        return
    r = run[0]
    ranks = {x["rank_id"]: x for x in rows(db, "OpmfuRankSummary")}
    lines = out.splitlines()
    if not r["ranks_analysed"]:
        return
    # the waterfall's head names the median rank, its step and its time
    head = [l for l in lines if l.startswith("where the ")]
    c.true("one waterfall", len(head) == 1)
    if head:
        if r["median_step"] is not None:
            want = "where the median step went: rank %d, step %d, %s on the device (%s)" % (
                r["median_rank"], r["median_step"], ns(r["step_ns"]), r["step_windows"])
        else:
            want = "where the time went: rank %d, the whole trace (no step marks), %s" % (r["median_rank"],
                                                                                      ns(r["step_ns"]))
        if r["profiler_step_ns"] is not None:
            want += "; profiler step %s on the host" % ns(r["profiler_step_ns"])
        c.eq("waterfall head", want, head[0])
        i = lines.index(head[0])
        # the five shares that sum to 1 (lines indented by two), each followed by its parts (by four)
        shown = {}
        for l in lines[i + 1:]:
            m = re.match(r"^(  |    )(\S.*?)\s+(\S+)  #*( at \S+ of the memory bandwidth)?$", l)
            if not m:
                break
            shown[m.group(2)] = m.group(3)
            if m.group(4):
                c.eq("waterfall memory_bound_eff", " at %s of the memory bandwidth" % pct(r["memory_bound_eff"]),
                     m.group(4))
        labels = (("trace_mfu", "useful math: trace MFU (FLOPs / (step time x peak))"),
                  ("share_inefficiency", "FLOP kernels below peak (their time minus trace MFU)"),
                  ("share_other_compute", "busy without FLOPs"),
                  ("share_matmul_noflops", "GEMM/conv/attention kernels, FLOPs unknown"),
                  ("share_memory_bound", "memory-bound kernels, bytes known"),
                  ("share_other_kernels", "other kernels (no FLOPs by convention)"),
                  ("share_memcpy", "copies and memsets"),
                  ("share_comm", "communication not hidden under compute"),
                  ("share_idle", "idle device (nothing ran)"),
                  ("share_idle_host", "host late (launched after the gap began)"),
                  ("share_idle_device", "other idle"))
        for col, label in labels:
            c.eq("waterfall " + col, pct(r[col]), shown.get(label))
    # the rank rows: step time, trace MFU, busy MFU, coverage and the shares of each rank shown
    table = False
    shown = 0
    for l in lines:
        if l.startswith("rank        steps"):
            table = True
            continue
        if table:
            if not l.strip():
                break
            f = re.split(r"\s{2,}|(?<=\d) (?=\d)", l.strip())
            m = re.match(r"^(?:(median|best|worst|slow) )?(-?\d+)\s", l)
            if not m:
                continue
            rid = int(m.group(2))
            x = ranks.get(rid)
            c.true("rank %d in the report is in OpmfuRankSummary" % rid, x is not None)
            if not x:
                continue
            shown += 1
            want = "%5.0f %10s %9s %8s %8s %6s %6s %7s %7s" % (
                x["steps"] or 0, ns(x["step_ns_median"]), pct(x["trace_mfu"]), pct(x["mfu_busy"]),
                pct(x["flops_coverage"]), pct(x["share_idle"]), pct(x["share_comm"]),
                pct(x["share_other_compute"]), pct(x["share_inefficiency"]))
            c.eq("rank %d row" % rid, want, l[12:])
            if m.group(1) == "median":
                c.eq("median rank", r["median_rank"], rid)
    c.true("rank rows shown", shown > 0)
    # the first hotspot of each kind is the table's first row of that kind
    hot = rows(db, "OpmfuHotspots")
    # (every kind the report shows; a long name keeps its end, a shape's its start; a kernel's or
    # op's name is its short form, SPEC 20)
    for kind, label, keep_start in (("module_class", "class", False), ("module", "module", False),
                                    ("op_type", "op", None), ("shape", "shape", True), ("kernel", "kernel", None)):
        first = next((h for h in hot if h["kind"] == kind), None)
        got = next((l for l in lines if l.startswith("  %-6s " % label) and re.match(r"^  \S+\s+\d", l)), None)
        if first is None:
            c.true("no %s hotspot line without rows" % kind, got is None)
            continue
        name = first["name"]
        if keep_start is None:
            name = kernel_short(name, 50)
        elif len(name) > 50:
            name = name[:47] + "..." if keep_start else "..." + name[-47:]
        name = terminal(name)
        want = "  %-6s %11s %10s %10s %7s %8d %7s  %s" % (label, ns(first["recoverable_ns"]), ns(first["lost_ns"]),
                                                       ns(first["kernel_ns"]), pct(first["pct_of_step"]),
                                                       first["calls"], pct(first["mfu"]), name)
        c.eq("first %s hotspot" % kind, want, got)
        c.true("%s hotspots in recoverable order" % kind,
               all(a["recoverable_ns"] >= b["recoverable_ns"] for a, b in zip(hot, hot[1:])))
    # stragglers: each line's rank and delta
    for s in rows(db, "OpmfuStragglers"):
        if s["measure"] == "step_ns_median":
            if s["median"] and s["median"] > 0:
                want = "rank %d, %+.1f%% step time" % (s["rank_id"], s["delta"] / s["median"] * 100)
            else:
                continue
        elif s["measure"] == "comm_wait_caused_ns":
            # the culprit (SPEC 19): its rank and the table's own words
            want = "rank %d: %s" % (s["rank_id"], s["culprit_of"])
        else:
            want = "rank %d, %+.1f points" % (s["rank_id"], s["delta"] * 100)
            if s["culprit_of"]:
                want += "; waiting for " + s["culprit_of"]
        c.true("straggler %s (%s) in the report" % (s["measure"], want), any(l.endswith(want) for l in lines))


def check_workbook(c, book, db):
    """The Overview's run block holds OpmfuRun's values, label by label."""
    if not os.path.exists(book):
        c.fails.append("%s: no summary workbook" % c.name)
        return
    r = rows(db, "OpmfuRun")[0]
    try:
        text = dump_xlsx(book, "Overview")
    except Exception as e:  # a workbook a spreadsheet cannot open is a failure too
        c.fails.append("%s: the summary workbook does not parse: %s" % (c.name, e))
        return
    # the dump's cells: "B15=0.0133 (n) s6"
    cells = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Z]+)(\d+)=(.*) \((\w+)\)(?: s\d+)?$", line)
        if m:
            cells[(m.group(1), int(m.group(2)))] = (m.group(3), m.group(4))
    numbers = {"Median rank": ("median_rank", 1), "Step time (ms)": ("step_ns", 1e-6), "Trace MFU": ("trace_mfu", 1),
               "FLOP kernels below peak": ("share_inefficiency", 1),
               "Compute without FLOPs": ("share_other_compute", 1), "Exposed communication": ("share_comm", 1),
               "Idle": ("share_idle", 1), "Busy MFU": ("mfu_busy", 1), "Recorded MFU": ("mfu_recorded", 1),
               "FLOPs coverage": ("flops_coverage", 1), "Peak (TFLOPS)": ("peak_tflops", 1),
               "Ranks": ("ranks", 1), "Ranks failed": ("ranks_failed", 1), "Ranks analysed": ("ranks_analysed", 1)}
    texts = {"Run ID": "run_id", "Source": "source", "Chip": "chip"}
    seen = set()
    for (col, row), (label, _) in cells.items():
        if col != "A":
            continue
        val, kind = cells.get(("B", row), (None, None))
        if label in numbers:
            name, scale = numbers[label]
            want = r[name]
            seen.add(label)
            if want is None:
                c.eq("workbook %s" % label, "blank", kind)
            else:
                ok = kind == "n" and math.isclose(float(val), want * scale, rel_tol=1e-9, abs_tol=1e-12)
                c.true("workbook %s = %s, OpmfuRun.%s = %r" % (label, val, name, want), ok)
        elif label in texts:
            seen.add(label)
            want = r[texts[label]]
            c.eq("workbook %s" % label, "" if want is None else want, val if kind == "s" else "")
        elif label == "Median step":
            seen.add(label)
            want = r["median_step"]
            c.true("workbook median step %s, OpmfuRun.median_step %r" % (val, want),
                   (want is None and kind == "s") or (want is not None and kind == "n" and float(val) == want))
    c.true("the workbook's Overview shows the run's median rank, step, step time and trace MFU",
           {"Median rank", "Median step", "Step time (ms)", "Trace MFU"} <= seen or not r["ranks_analysed"])


def run_case(opmfu, name, args, tmp, chk_book=True):
    out = os.path.join(tmp, "out-" + re.sub(r"\W", "_", name))
    shutil.rmtree(out, ignore_errors=True)
    cmd = [opmfu, "analyze"] + args + ["-o", out, "--export", "db,xlsx"]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape", timeout=600)
    c = Check(name)
    if p.returncode not in (0, 3):
        c.fails.append("%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()[-300:]))
        return c
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    check_terminal(c, p.stdout, db)
    if chk_book:
        check_workbook(c, os.path.join(out, "cluster_analysis_output", "OperatorMfu", "opmfu_summary.xlsx"), db)
    return c


def fixture_cases(tmp, schema):
    """(name, args) of each fixture whose one run is `analyze {tree} ...`."""
    fx = os.path.join(ROOT, "fixtures")
    for case in sorted(os.listdir(fx)):
        d = os.path.join(fx, case)
        cmdf = os.path.join(d, "cmd")
        args = ["analyze", "{tree}"]
        if os.path.exists(cmdf):
            with open(cmdf, encoding="utf-8") as f:
                args = [l.rstrip("\n") for l in f if l.strip()]
        if not args or args[0] != "analyze" or "---" in args or any("{tree_new}" in a for a in args):
            continue
        exitf = os.path.join(run_golden.case_part(d, "expected"), "exit")
        if os.path.exists(exitf) and open(exitf, encoding="utf-8").read().strip() not in ("0", "3"):
            continue  # a case about a refusal has no account to show
        if any(a.startswith("{shared}") for a in args) and not os.path.isdir(SHARED):
            continue
        tree = os.path.join(tmp, "tree-" + case)
        src = run_golden.case_part(d, "tree")
        if os.path.isdir(src):
            build_tree(src, tree, schema)
        prep = os.path.join(d, "prepare")
        if os.path.exists(prep):
            if not os.path.isdir(SHARED) and "{shared}" in open(prep, encoding="utf-8").read():
                continue
            os.makedirs(tree, exist_ok=True)
            run_golden.prepare(prep, tree, SHARED)
        rest, skip = [], False
        for a in args[1:]:
            if skip:
                skip = False
                continue
            if a in ("-o", "--export", "--out"):
                skip = True
                continue
            if a in ("-q", "--quiet") or a.startswith("--export="):
                continue
            rest.append(a.replace("{tree}", tree).replace("{shared}", SHARED))
        yield case, rest


def real_cases(tmp):
    if not os.path.isdir(SHARED):
        return
    real = os.path.join(SHARED, "real")
    import tarfile
    yield "real/level0", [os.path.join(real, "level0")]
    for lv in ("level1", "level2"):
        yield "real/%s --chip" % lv, [os.path.join(real, lv), "--chip", "Ascend910B"]
    kin = os.path.join(real, "kineto")
    for d in sorted(os.listdir(kin)):
        p = os.path.join(kin, d)
        if not os.path.isdir(p):
            continue
        tars = [f for f in os.listdir(p) if f.endswith((".tar.gz", ".tar"))]
        if tars:  # a cluster kept as an archive: unpacked beside the outputs
            p = os.path.join(tmp, "untar-" + d)
            for t in tars:
                with tarfile.open(os.path.join(kin, d, t)) as tf:
                    tf.extractall(p, filter="data")
        yield "real/kineto/" + d, [p]


def main():
    opmfu = os.path.abspath(sys.argv[1])
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    tmp = tempfile.mkdtemp(prefix="opmfu-consistency-")
    fails, n = [], 0
    try:
        for name, args in list(fixture_cases(tmp, schema)) + list(real_cases(tmp) or []):
            c = run_case(opmfu, name, args, tmp)
            n += 1
            fails += c.fails
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print(f)
    if not os.path.isdir(SHARED):
        print("consistency: ../shared is absent: the real traces were not checked")
    print("consistency: %d runs, %s" % (n, "ok" if not fails else "%d failures" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
