#!/usr/bin/env python3
"""opmfu_summary.xlsx against the database of the same run (SPEC 14).
usage: summary_workbook.py OPMFU SOURCE_ROOT

For several fixture trees (and the real Ascend level1 export and a real
Kineto trace when ../shared/real is there) opmfu runs once with --export db,xlsx; then what each
sheet of OperatorMfu/opmfu_summary.xlsx must hold is derived here, in Python,
from the tables of cluster_analysis.db (docs/output-schema.md, "The summary
workbook"), and compared with the workbook's cells (read with
tests/tools/xlsx_cells.py) one by one:

- Overview: OpmfuRun's row, cell for cell (and, by name, that its median
  step, step time and trace MFU are OpmfuRun's: the numbers issue 26 found
  disagreeing with the terminal), then OpmfuStragglers' rows, then the
  roofline's roof corners (derived here from OpmfuRun.peak_tflops, the median
  rank's peak_bw_tbps and the first 20 shape rows) when it has a chart;
- Ranks: one row per OpmfuRankSummary row, in order: its median step, step
  time, trace MFU and waterfall shares, busy and recorded MFU, coverage, peak
  and reason as the database has them, and the MFU chart's split of its
  trace MFU at OpmfuRun's (the median rank's);
- Steps (when the run has OpmfuSteps): its rows, times in ms;
- Module classes, Modules, Op types, Shapes, Kernels, Collectives: OpmfuHotspots' rows of
  each kind in the table's order (ms = ns / 1e6), a sheet per kind that has
  rows;
- fixtures/coll_skew (SPEC 19) also against its README's hand derivation: the
  Overview's waiting share (27/102), the culprit's row (rank 2, 0.033 ms, its
  culprit_of text) and the exposed-communication row naming it, the Steps
  sheet's waiting (10, 27, 6 us) and the Collectives sheet's two rows;
- the charts the data calls for, and no others: recoverable time by module
  class (not by module path, which a root path dominates) and by op type,
  and the roofline (Shapes' Achieved TFLOPS and FLOPs per byte checked too).

Numbers are compared as the workbook stores them (printf %.16G). Then a run in
which every rank fails leaves an earlier summary workbook as it was, and no
run leaves a temporary file.

`opmfu diff BASE NEW -o OUT --export xlsx` (fixtures/diff_inputs, both sides
inputs): its workbook is the Diff sheet followed by exactly the sheets of
NEW's own summary workbook (`analyze NEW --export db,xlsx`), dump for dump;
the Diff sheet's rows are OpmfuDiff's of the same diff's database, in order
(times in ms, MFU and shares rounded to 12 decimals); with xlsx alone no
database is written. With -o at NEW's own result folder (NEW given as that
result) the workbook is the Diff sheet and NEW's sheets as they were, and the
database keeps NEW's tables. NEW a result older than OpmfuRun: its
Overview says so instead of computing anything. A diff that fails, or one
without -o, changes nothing.
"""
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
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from build_fixture import build_tree  # noqa: E402
from xlsx_cells import dump  # noqa: E402
from kname_oracle import kernel_short  # noqa: E402

CASES = [("module_tree", []), ("cluster", []), ("cluster_faults", []), ("module_deep", []),
         ("xlsx_module", ["--peak", "fp16=100"]), ("kernel_mapping", []), ("steps_waterfall", []), ("coll_skew", [])]
REAL = [("real/level1", ["--peak", "fp16=353.9"]), ("real/kineto/kineto_h100_bert_small_infer", [])]
problems = []
compared = [0]


def problem(case, msg):
    problems.append("%s: %s" % (case, msg))


def col_index(ref):
    letters = "".join(ch for ch in ref if ch.isalpha())
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1, int(ref[len(letters):]) - 1


def sheets_of(path):
    """{sheet: ({(row, col): (value, type)}, [chart lines])} from the dump."""
    res, cur = {}, None
    for line in dump(path).splitlines():
        if line.startswith("sheet "):
            cur = res.setdefault(line[6:], ({}, []))
        elif line.startswith("chart "):
            cur[1].append(line)
        elif "=" in line and line[0].isupper() and line.split("=", 1)[0].isalnum():
            ref, rest = line.split("=", 1)
            val, typ = rest.rsplit(" (", 1)
            col, row = col_index(ref)
            cur[0][(row, col)] = (val, typ.split(")")[0])
    return res


def shown(v, ms=False):
    """What the workbook holds for the database value v."""
    if v is None:
        return ("", "blank")
    if isinstance(v, str):
        return (v, "s")
    if ms:
        v = v / 1e6
    return ("%.16G" % v, "n")


def db_rows(con, table):
    try:
        cur = con.execute('SELECT * FROM "%s" ORDER BY rowid' % table)
    except sqlite3.OperationalError:
        return None
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


class Sheet:
    def __init__(self, case, name, cells, head=0):
        self.case, self.name, self.cells = case, name, cells
        self.cols = {}
        c = 0
        while (head, c) in cells:
            self.cols[cells[(head, c)][0]] = c
            c += 1

    def rows(self):
        return max([r for r, _ in self.cells] + [0])

    def check(self, row, title, want):
        compared[0] += 1
        got = self.cells.get((row, self.cols.get(title, -1)), ("", "missing"))
        if got[1] == "inlineStr":
            got = (got[0], "s")
        if got != want:
            problem(self.case, "%s row %d %s: %r, expected %r" % (self.name, row + 1, title, got, want))


# OpmfuRun's row on the Overview (A4:B33), in order: label, column, shown in ms
RUN_KEYS = [("Run ID", "run_id", 0), ("Source", "source", 0), ("Ranks", "ranks", 0),
            ("Ranks analysed", "ranks_analysed", 0), ("Ranks failed", "ranks_failed", 0), ("Chip", "chip", 0),
            ("Peak (TFLOPS)", "peak_tflops", 0), ("Peak source", "peak_source", 0),
            ("Median rank", "median_rank", 0), ("Median step", "median_step", 0), ("Step time (ms)", "step_ns", 1),
            ("Trace MFU", "trace_mfu", 0), ("FLOP kernels below peak", "share_inefficiency", 0),
            ("Busy without FLOPs", "share_other_compute", 0),
            ("  GEMM/conv/attention, FLOPs unknown", "share_matmul_noflops", 0),
            ("  Memory-bound, bytes known", "share_memory_bound", 0),
            ("    at this share of the bandwidth", "memory_bound_eff", 0),
            ("  Other kernels", "share_other_kernels", 0), ("  Copies and memsets", "share_memcpy", 0),
            ("Exposed communication", "share_comm", 0),
            ("  Waiting for other ranks", "share_comm_wait", 0), ("Idle", "share_idle", 0),
            ("  Host late", "share_idle_host", 0), ("  Other idle", "share_idle_device", 0),
            ("Step windows", "step_windows", 0), ("Profiler step (ms)", "profiler_step_ns", 1),
            ("Backlog (ms)", "backlog_ns", 1), ("Busy MFU", "mfu_busy", 0), ("Recorded MFU", "mfu_recorded", 0),
            ("FLOPs coverage", "flops_coverage", 0)]
# the first row after OpmfuRun's block
AFTER_RUN = 3 + len(RUN_KEYS) + 1
STRAGGLERS = {"step_ns_median": "Slowest step time (ms)", "trace_mfu": "Lowest trace MFU",
              "share_inefficiency": "Most FLOP kernels below peak",
              "share_other_compute": "Most busy without FLOPs", "share_comm": "Most exposed communication",
              "share_idle": "Most idle", "comm_wait_caused_ns": "Others waited for this rank (ms)"}
HOT = [("module_class", "Module classes", "Module class"), ("module", "Modules", "Module"), ("op_type", "Op types", "Op"),
       ("shape", "Shapes", "Op and shapes"), ("kernel", "Kernels", "Kernel"), ("collective", "Collectives", "Collective")]


def roof_of(run, ranks, hot):
    """The roofline chart's roof corners [(x, y)] x 3 and its points, or None (no chart): the run's peak,
    the median rank's bandwidth, the first 20 shape rows (most recoverable first) with both values."""
    if not run:
        return None
    r = run[0]
    peak, bw = r.get("peak_tflops"), r.get("peak_bw_tbps")
    if bw is None:
        bw = next((k.get("peak_bw_tbps") for k in ranks if k["rank_id"] == r["median_rank"]), None)
    pts = [(h["intensity"], h["achieved_tflops"]) for h in [h for h in hot if h["kind"] == "shape"][:20]
           if (h["intensity"] or 0) > 0 and (h["achieved_tflops"] or 0) > 0]
    if not peak or not bw or peak <= 0 or bw <= 0 or not pts:
        return None
    ridge = peak / bw
    lo, hi = min([ridge] + [x for x, _ in pts]), max([ridge] + [x for x, _ in pts])
    x0, x2 = math.pow(10, math.floor(math.log10(lo))), math.pow(10, math.ceil(math.log10(hi)))
    if x2 <= x0:
        x2 = x0 * 10
    return [(x0, x0 * bw), (ridge, peak), (x2, peak)], pts


def check_overview(case, cells, run, stragglers, roof=None):
    """The Overview's blocks against OpmfuRun's row and OpmfuStragglers' rows, and the roof's corners."""
    sh = Sheet(case, "Overview", cells, head=2)
    if not run:
        return problem(case, "OpmfuRun has no row")
    r = run[0]
    for i, (label, col, ms) in enumerate(RUN_KEYS, 3):
        sh.check(i, "Run", shown(label))
        want = shown(r[col], ms)
        if col == "median_step" and r[col] is None and r["median_rank"] is not None:
            want = ("the whole trace", "s")  # no step marks
        sh.check(i, "Value", want)
    # the numbers: the Overview's median step, step time and trace MFU are OpmfuRun's, or fail here
    got = {label: sh.cells.get((i, 1), ("", "missing")) for i, (label, _, _) in enumerate(RUN_KEYS, 3)}
    for label, col, ms in (("Median step", "median_step", 0), ("Step time (ms)", "step_ns", 1),
                           ("Trace MFU", "trace_mfu", 0)):
        want = shown(r[col], ms)
        if col == "median_step" and r[col] is None:
            want = ("the whole trace", "s")
        if got[label] != want:
            problem(case, "Overview %s %r is not OpmfuRun.%s %r" % (label, got[label], col, want))
    at = AFTER_RUN + (len(stragglers) + 2 if stragglers else 0)
    if roof:
        rs = Sheet(case, "Overview", cells, head=at)
        for i, (label, (x, y)) in enumerate(zip(("Memory roof from", "Ridge point", "Compute roof to"), roof[0]),
                                            at + 1):
            rs.check(i, "Roof", shown(label))
            rs.check(i, "FLOPs per byte", shown(x))
            rs.check(i, "TFLOPS", shown(y))
    elif (at, 0) in cells:
        problem(case, "Overview: a block at row %d without stragglers or a roof" % (at + 1))
    if not stragglers:
        return
    st = Sheet(case, "Overview", cells, head=AFTER_RUN)
    for i, g in enumerate(stragglers, AFTER_RUN + 1):
        ms = "_ns" in g["measure"]
        st.check(i, "Straggler", shown(STRAGGLERS.get(g["measure"], g["measure"])))
        st.check(i, "Rank", shown(g["rank_id"]))
        for title, col in (("Value", "value"), ("Median rank's value", "median"), ("Difference", "delta")):
            st.check(i, title, shown(g[col], ms))
        # who waited for whom: a column only when a row names a culprit
        if any(x["culprit_of"] is not None for x in stragglers):
            st.check(i, "Waiting for", shown(g["culprit_of"]) if g["culprit_of"] is not None else ("", "missing"))
        elif (AFTER_RUN, 5) in cells:
            problem(case, "Overview: a culprit column without a culprit")


def check_ranks(case, sh, ranks, run):
    if sh.rows() != len(ranks):
        problem(case, "Ranks: %d rows, OpmfuRankSummary has %d" % (sh.rows(), len(ranks)))
    median = run[0]["trace_mfu"] if run else None
    for i, r in enumerate(ranks, 1):
        for title, col, ms in (("Rank", "rank_id", 0), ("Status", "status", 0), ("Chip", "chip_seen", 0),
                               ("Peak (TFLOPS)", "peak_tflops", 0), ("Steps", "steps", 0),
                               ("Median step", "median_step", 0), ("Step time (ms)", "step_ns_median", 1),
                               ("Trace MFU", "trace_mfu", 0), ("FLOP kernels below peak", "share_inefficiency", 0),
                               ("Busy without FLOPs", "share_other_compute", 0),
                               ("Exposed communication", "share_comm", 0), ("Idle", "share_idle", 0),
                               ("Busy MFU", "mfu_busy", 0), ("Recorded MFU", "mfu_recorded", 0),
                               ("FLOPs coverage", "flops_coverage", 0),
                               ("GEMM/conv/attention without FLOPs", "share_matmul_noflops", 0),
                               ("Memory-bound, bytes known", "share_memory_bound", 0),
                               ("Memory-bound bandwidth efficiency", "memory_bound_eff", 0),
                               ("Other kernels without FLOPs", "share_other_kernels", 0),
                               ("Copies and memsets", "share_memcpy", 0), ("Idle, host late", "share_idle_host", 0),
                               ("Idle, other", "share_idle_device", 0), ("Step windows", "step_windows", 0),
                               ("Profiler step (ms)", "profiler_step_ns", 1), ("Backlog (ms)", "backlog_ns", 1),
                               ("Peak source", "peak_source", 0), ("Reason", "reason", 0)):
            sh.check(i, title, shown(r.get(col), ms))
        # the MFU chart's split of the rank's trace MFU at the median rank's
        m = r.get("trace_mfu")
        known = m is not None and median is not None
        sh.check(i, "Up to the median rank", shown(min(m, median) if known else None))
        sh.check(i, "Above the median rank", shown(max(m - median, 0) if known else None))
        sh.check(i, "Short of the median rank", shown(max(median - m, 0) if known else None))


def check_steps(case, sh, steps):
    if sh.rows() != len(steps):
        problem(case, "Steps: %d rows, OpmfuSteps has %d" % (sh.rows(), len(steps)))
    for i, s in enumerate(steps, 1):
        for title, col, ms in (("Rank", "rank_id", 0), ("Step", "step", 0), ("Kind", "kind", 0),
                               ("Step time (ms)", "window_ns", 1), ("Profiler step (ms)", "profiler_step_ns", 1),
                               ("Preparing (ms)", "preparing_ns", 1), ("FLOP kernels (ms)", "flops_ns", 1),
                               ("GEMM/conv/attention without FLOPs (ms)", "matmul_noflops_ns", 1),
                               ("Memory-bound, bytes known (ms)", "memory_bound_ns", 1),
                               ("Memory-bound bandwidth efficiency", "memory_bound_eff", 0),
                               ("Other compute (ms)", "other_compute_ns", 1),
                               ("Exposed communication (ms)", "comm_exposed_ns", 1),
                               ("Waiting for other ranks (ms)", "comm_wait_ns", 1),
                               ("Copies and memsets (ms)", "memcpy_ns", 1),
                               ("Idle, host late (ms)", "idle_host_ns", 1), ("Idle, other (ms)", "idle_ns", 1),
                               ("FLOPs", "flops", 0), ("Trace MFU", "trace_mfu", 0),
                               ("FLOP kernels below peak", "share_inefficiency", 0),
                               ("Exposed communication", "share_comm", 0),
                               ("Waiting for other ranks", "share_comm_wait", 0)):
            sh.check(i, title, shown(s[col], ms))


def check_hot(case, book, hot):
    """Each hotspot sheet: OpmfuHotspots' rows of its kind, in the table's order."""
    for kind, sheet, first in HOT:
        rows = [h for h in hot if h["kind"] == kind]
        if not rows:
            continue
        sh = Sheet(case, sheet, book[sheet][0])
        if sh.rows() != len(rows):
            problem(case, "%s: %d rows, OpmfuHotspots has %d of kind %s" % (sheet, sh.rows(), len(rows), kind))
        for i, h in enumerate(rows, 1):
            if kind == "kernel":
                # SPEC 20: the short name first, the whole name last
                sh.check(i, first, shown(kernel_short(h["name"], 80)))
                sh.check(i, "Full name", shown(h["name"]))
            else:
                sh.check(i, first, shown(h["name"]))
            if kind == "collective":
                # no FLOPs: no MFU or roofline; recoverable time is the exposed time
                for title, col, ms in (("Ranks", "ranks", 0), ("Calls", "calls", 0), ("Time (ms)", "kernel_ns", 1),
                                       ("Exposed time (ms)", "recoverable_ns", 1), ("% of step", "pct_of_step", 0)):
                    sh.check(i, title, shown(h[col], ms))
                if set(sh.cols) != {"Collective", "Ranks", "Calls", "Time (ms)", "Exposed time (ms)", "% of step"}:
                    problem(case, "Collectives: columns %r" % sorted(sh.cols))
                continue
            for title, col, ms in (("Ranks", "ranks", 0), ("Calls", "calls", 0), ("Kernel time (ms)", "kernel_ns", 1),
                                   ("Recoverable time (ms)", "recoverable_ns", 1), ("Lost time (ms)", "lost_ns", 1),
                                   ("% of step", "pct_of_step", 0), ("MFU", "mfu", 0),
                                   ("Roofline efficiency", "roofline_eff", 0)):
                sh.check(i, title, shown(h[col], ms))
            if kind == "shape":
                sh.check(i, "Achieved TFLOPS", shown(h["achieved_tflops"]))
                sh.check(i, "FLOPs per byte", shown(h["intensity"]))
            if kind == "module":
                sh.check(i, "Short name", shown("/".join(h["name"].split("/")[-2:])))


def run_case(case, tree, extra, tmp):
    out = os.path.join(tmp, case.replace("/", "_") + "_out")
    p = subprocess.run([OPMFU, "analyze", tree, "-o", out, "-q", "--export", "db,xlsx"] + extra,
                       capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 3):
        return problem(case, "exit %d: %s" % (p.returncode, p.stderr))
    d = os.path.join(out, "cluster_analysis_output")
    xdir = os.path.join(d, "OperatorMfu")
    if any(n.endswith(".tmp") for n in os.listdir(xdir)):
        problem(case, "a temporary file was left in %s" % xdir)
    con = sqlite3.connect("file:%s?mode=ro" % os.path.join(d, "cluster_analysis.db"), uri=True)
    ranks, steps = db_rows(con, "OpmfuRankSummary"), db_rows(con, "OpmfuSteps")
    run, hot, strag = db_rows(con, "OpmfuRun"), db_rows(con, "OpmfuHotspots"), db_rows(con, "OpmfuStragglers")
    con.close()
    book = sheets_of(os.path.join(xdir, "opmfu_summary.xlsx"))
    want = ["Overview", "Ranks"] + (["Steps"] if steps is not None else []) + \
        [sheet for kind, sheet, _ in HOT if any(h["kind"] == kind for h in hot)]
    if list(book) != want:
        return problem(case, "sheets %r, expected %r" % (list(book), want))
    roof = roof_of(run, ranks, hot)
    check_overview(case, book["Overview"][0], run, strag, roof)
    check_ranks(case, Sheet(case, "Ranks", book["Ranks"][0]), ranks, run)
    if steps is not None:
        check_steps(case, Sheet(case, "Steps", book["Steps"][0]), steps)
    check_hot(case, book, hot)
    charts = " ".join(book["Overview"][1])
    for what, there in (("Where the median step went", bool(ranks)),
                        ("Trace MFU per rank", run[0]["trace_mfu"] is not None),
                        ("Recoverable time by module class", any(h["kind"] == "module_class" for h in hot)),
                        ("Recoverable time by module,", False),
                        ("by shape", False),
                        ("Recoverable time by op type", any(h["kind"] == "op_type" for h in hot)),
                        ("by kernel", False),
                        ("Roofline: achieved TFLOPS", roof is not None)):
        if (what in charts) != there:
            problem(case, "chart %r %s" % (what, "missing" if there else "unexpected"))
    if case == "coll_skew":
        check_coll_skew(book)
    print("%-18s %d ranks, %d hotspots: %s" % (case, len(ranks), len(hot),
                                                "ok" if not any(p.startswith(case + ":") for p in problems)
                                                else "FAILED"))


def check_coll_skew(book):
    """fixtures/coll_skew's collectives as its README derives them by hand (not from the database): the
    Overview's waiting share, the culprit's row and text, the Steps sheet's waiting, the Collectives sheet."""
    case = "coll_skew"
    ov = book["Overview"][0]
    run = Sheet(case, "Overview", ov, head=2)
    at = {label: i for i, (label, _, _) in enumerate(RUN_KEYS, 3)}
    # the median rank 1's step 1: exposed 51 of 102 us, waiting 27 of them
    run.check(at["Exposed communication"], "Value", shown(51 / 102))
    run.check(at["  Waiting for other ranks"], "Value", shown(27 / 102))
    st = Sheet(case, "Overview", ov, head=AFTER_RUN)
    rows = {ov[(r, 0)][0]: r for r in range(AFTER_RUN + 1, AFTER_RUN + 10) if (r, 0) in ov}
    r = rows.get("Others waited for this rank (ms)", -1)
    # rank 2 was last at AR1 (ranks 0, 1 waited 10 + 5 us) and AG (6 + 12 us): 33 us; the median rank 1: 0
    for title, want in (("Rank", shown(2)), ("Value", shown(33000, True)), ("Median rank's value", shown(0, True)),
                        ("Difference", shown(33000, True)),
                        ("Waiting for", shown("ranks waited 0.033 ms for it over 2 calls (2 ranks)"))):
        st.check(r, title, want)
    # the most exposed communication: rank 1 (0.5), the median rank's own; it names the culprit
    r = rows.get("Most exposed communication", -1)
    for title, want in (("Rank", shown(1)), ("Value", shown(0.5)), ("Median rank's value", shown(0.5)),
                        ("Difference", shown(0.0)), ("Waiting for", shown("rank 2: the others waited 0.033 ms for it"))):
        st.check(r, title, want)
    # Steps: one step per rank, ranks 0, 1, 2: exposed 40, 51, 36 us; waiting 10, 27, 6 us of 100, 102, 104
    sp = Sheet(case, "Steps", book["Steps"][0])
    if sp.rows() != 3:
        problem(case, "Steps: %d rows, expected 3" % sp.rows())
    for i, (rank, exp, wait, win) in enumerate(((0, 40000, 10000, 100000), (1, 51000, 27000, 102000),
                                                (2, 36000, 6000, 104000)), 1):
        sp.check(i, "Rank", shown(rank))
        sp.check(i, "Exposed communication (ms)", shown(exp, True))
        sp.check(i, "Waiting for other ranks (ms)", shown(wait, True))
        sp.check(i, "Waiting for other ranks", shown(wait / win))
    # Collectives, most exposed first: allreduce 6 calls, 91 us, 79 exposed; allgather 3 calls, 48 us, all exposed
    co = Sheet(case, "Collectives", book.get("Collectives", ({}, []))[0])
    if co.rows() != 2:
        problem(case, "Collectives: %d rows, expected 2" % co.rows())
    for i, (name, calls, time, exposed) in enumerate((("allreduce [group 0]", 6, 91000, 79000),
                                                      ("allgather [group 0]", 3, 48000, 48000)), 1):
        co.check(i, "Collective", shown(name))
        co.check(i, "Ranks", shown(3))
        co.check(i, "Calls", shown(calls))
        co.check(i, "Time (ms)", shown(time, True))
        co.check(i, "Exposed time (ms)", shown(exposed, True))


def failed_run(tmp):
    """Every rank fails: the earlier summary workbook stays."""
    tree = os.path.join(tmp, "bad", "r_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(tree)
    with open(os.path.join(tree, "ascend_pytorch_profiler_0.db"), "w") as f:
        f.write("not a database")
    out = os.path.join(tmp, "bad_out")
    xdir = os.path.join(out, "cluster_analysis_output", "OperatorMfu")
    os.makedirs(xdir)
    with open(os.path.join(xdir, "opmfu_summary.xlsx"), "w") as f:
        f.write("earlier")
    p = subprocess.run([OPMFU, "analyze", os.path.join(tmp, "bad"), "-o", out, "-q", "--export", "xlsx"],
                       capture_output=True, text=True, timeout=60)
    with open(os.path.join(xdir, "opmfu_summary.xlsx")) as f:
        kept = f.read() == "earlier"
    if p.returncode == 0 or not kept or any(n.endswith(".tmp") for n in os.listdir(xdir)):
        problem("failed run", "exit %d, earlier workbook %s, files %r" % (p.returncode, "kept" if kept else "replaced",
                                                                          os.listdir(xdir)))
    print("%-18s %s" % ("failed run", "ok" if not any(p.startswith("failed run") for p in problems) else "FAILED"))


def tree_listing(top):
    return sorted((os.path.relpath(os.path.join(r, n), top), os.path.getsize(os.path.join(r, n)))
                  for r, _, files in os.walk(top) for n in files)


def check_diff_rows(case, sheet, rows):
    """The Diff sheet's rows against OpmfuDiff's, in order."""
    sh = Sheet(case, "Diff", sheet)
    cols = [("Kind", "kind", 0), ("Name", "name", 0), ("BASE time (ms)", "base_kernel_ns", 1),
            ("NEW time (ms)", "new_kernel_ns", 1), ("BASE FLOPs", "base_flops", 0), ("NEW FLOPs", "new_flops", 0),
            ("BASE MFU or share", "base_mfu", 2), ("NEW MFU or share", "new_mfu", 2),
            ("BASE lost (ms)", "base_lost_ns", 1), ("NEW lost (ms)", "new_lost_ns", 1),
            ("Change in lost (ms)", "delta_lost_ns", 1)]
    for i, r in enumerate(rows):
        for title, name, how in cols:
            v = r[name]
            if how == 2 and v is not None:
                v = round(v * 1e12) / 1e12
            sh.check(i + 1, title, shown(v, ms=how == 1))
    # the row after the table is empty: the charts' data starts below it
    if (len(rows) + 1, 0) in sheet:
        problem(case, "Diff: row %d is not empty" % (len(rows) + 2))


def diff_workbook(schema, tmp):
    case = "diff"
    base, new = os.path.join(tmp, "diff_base"), os.path.join(tmp, "diff_new")
    build_tree(os.path.join(ROOT, "fixtures", "diff_inputs", "tree"), base, schema)
    build_tree(os.path.join(ROOT, "fixtures", "diff_inputs", "tree_new"), new, schema)
    own, d1, d2 = (os.path.join(tmp, n) for n in ("diff_own", "diff_xlsx", "diff_both"))

    def run(*args):
        return subprocess.run([OPMFU] + list(args) + ["-q"], capture_output=True, text=True, timeout=120)

    def book(out):
        return os.path.join(out, "cluster_analysis_output", "OperatorMfu", "opmfu_summary.xlsx")

    for args in (("analyze", new, "-o", own, "--export", "db,xlsx"),
                 ("diff", base, new, "-o", d1, "--export", "xlsx"),
                 ("diff", base, new, "-o", d2, "--export", "db,xlsx")):
        p = run(*args)
        if p.returncode != 0:
            return problem(case, "%s: exit %d: %s" % (" ".join(args[:1]), p.returncode, p.stderr))
    new_book = dump(book(own))
    if dump(book(d1)) != dump(book(d1), "Diff") + new_book:
        problem(case, "the workbook is not the Diff sheet and NEW's own summary")
    if not dump(book(d1), "Diff").startswith("sheet Diff\n") or dump(book(d1)) != dump(book(d2)):
        problem(case, "no Diff sheet, or --export xlsx and db,xlsx give different workbooks")
    if os.path.exists(os.path.join(d1, "cluster_analysis_output", "cluster_analysis.db")):
        problem(case, "--export xlsx wrote a database")
    con = sqlite3.connect("file:%s?mode=ro" % os.path.join(d2, "cluster_analysis_output", "cluster_analysis.db"),
                          uri=True)
    rows = db_rows(con, "OpmfuDiff")
    con.close()
    check_diff_rows(case, sheets_of(book(d2))["Diff"][0], rows)

    # -o at NEW's own result: NEW's sheets and tables stay
    p = run("diff", base, own, "-o", own, "--export", "db,xlsx")
    if p.returncode != 0 or dump(book(own)) != dump(book(d2), "Diff") + new_book:
        problem(case, "diff into NEW's own folder: exit %d, workbook %s" % (
            p.returncode, "not the Diff sheet and NEW's sheets"))
    con = sqlite3.connect("file:%s?mode=ro" % os.path.join(own, "cluster_analysis_output", "cluster_analysis.db"),
                          uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    con.close()
    if not {"OpmfuRankSummary", "OpmfuSteps", "OpmfuModules", "OpmfuOpTypes", "OpmfuDiff"} <= tables:
        problem(case, "NEW's database lost tables: %r" % sorted(tables))

    # NEW a result older than the run account (no OpmfuRun, OpmfuHotspots, OpmfuStragglers): the
    # Overview says so and shows no number of its own; no hotspot sheet, no MFU chart
    old = os.path.join(tmp, "diff_old")
    shutil.copytree(own, old)
    con = sqlite3.connect(os.path.join(old, "cluster_analysis_output", "cluster_analysis.db"))
    for t in ("OpmfuRun", "OpmfuHotspots", "OpmfuStragglers", "OpmfuDiff"):
        con.execute('DROP TABLE IF EXISTS "%s"' % t)
    con.commit()
    con.close()
    d3 = os.path.join(tmp, "diff_old_out")
    p = run("diff", base, old, "-o", d3, "--export", "xlsx")
    got = sheets_of(book(d3)) if p.returncode == 0 else {}
    ov = got.get("Overview", ({}, []))
    note = ov[0].get((2, 0), ("", ""))[0]
    if p.returncode != 0 or not note.startswith("No OpmfuRun table") or set(ov[0]) != {(0, 0), (2, 0)} or \
            list(got) != ["Diff", "Overview", "Ranks", "Steps"] or any("Trace MFU per rank" in c for c in ov[1]):
        problem(case, "NEW without OpmfuRun: exit %d, sheets %r, Overview %r" % (p.returncode, list(got), ov))

    # a diff that fails (no rank of --rank-list on both sides) changes nothing; nor does one without -o
    before = tree_listing(own)
    with open(book(own), "rb") as f:
        kept = f.read()
    p = run("diff", base, new, "-o", own, "--export", "db,xlsx", "--rank-list", "1")
    with open(book(own), "rb") as f:
        same = f.read() == kept
    if p.returncode == 0 or not same or tree_listing(own) != before:
        problem(case, "a failed diff: exit %d, workbook %s" % (p.returncode, "kept" if same else "replaced"))
    cwd = os.path.join(tmp, "diff_cwd")
    os.makedirs(cwd)
    p = subprocess.run([OPMFU, "diff", base, new], cwd=cwd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or os.listdir(cwd):
        problem(case, "diff without -o: exit %d, wrote %r" % (p.returncode, os.listdir(cwd)))
    print("%-18s %d OpmfuDiff rows: %s" % (case, len(rows), "ok" if not any(p.startswith(case + ":") for p in problems)
                                           else "FAILED"))


def main():
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    tmp = tempfile.mkdtemp(prefix="opmfu-summary-")
    try:
        for case, extra in CASES:
            tree = os.path.join(tmp, case)
            build_tree(os.path.join(ROOT, "fixtures", case, "tree"), tree, schema)
            run_case(case, tree, extra, tmp)
        for case, extra in REAL:
            if os.path.isdir(os.path.join(SHARED, case)):
                run_case(case, os.path.join(SHARED, case), extra, tmp)
            else:
                print("%-18s skipped: %s is not there" % (case, os.path.join(SHARED, case)))
        failed_run(tmp)
        diff_workbook(schema, tmp)
        # a test that compares nothing cannot fail
        if compared[0] < 300:
            problem("all", "only %d cells compared" % compared[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print(p)
    print("summary_workbook: %s (%d cells compared)" % ("ok" if not problems else "%d problems" % len(problems),
                                                       compared[0]))
    return 1 if problems else 0


sys.exit(main())
