#!/usr/bin/env python3
"""The device timeline (SPEC 17, issue 28) on the real traces in ../shared/real,
against what the traces say (read here, independently of opmfu) and against
the oracles beside them.

Every Kineto trace (the four single files and the 8-rank DLRM job): a rank's
OpmfuSteps windows (steps and the backlog) never overlap, each row's
categories add up to its window, and the windows add up to no more than the
device's span (first to last kernel, copy, memset or device-side annotation,
read from the JSON here).

TraceLens's gpu_timeline.csv (bert, qwen: the whole trace's breakdown over the
GPU events TraceLens keeps, which start at the ProfilerStep annotation):
its total is the step's window, and computation, exposed communication,
exposed memcpy and idle are opmfu's within 1 % of that total, with two
documented differences of definition (docs/output-schema.md): TraceLens counts
memsets as computation where opmfu counts them with the copies, so
computation + exposed memcpy is compared as one; and on the MI300X trace,
whose report splits kernels by is_recompute, the not-recompute group's
exposed communication, exposed memcpy and idle hold the time of the
recompute group's computation (its kernels are not in that group's compute),
so opmfu's sum of those three plus the recompute computation is compared.

torch_npu's analysis.db beside each Ascend export (an oracle, never an
input): StepTraceTime's stage is opmfu's window, communication_not_overlapped
its exposed communication, overlapped its overlapped communication, preparing
its preparing_ns, and free its idle plus exposed copies (torch_npu leaves
copies out of computing: opmfu names them), to the microsecond.
usage: timeline_oracles.py OPMFU ROOT"""
import csv
import decimal
import glob
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

CATS = ("flops_ns", "matmul_noflops_ns", "memory_bound_ns", "other_compute_ns", "comm_exposed_ns", "memcpy_ns",
        "idle_host_ns", "idle_ns")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def run(opmfu, path, out, *more):
    p = subprocess.run([opmfu, "analyze", path, "-o", out, "--export", "db"] + list(more), capture_output=True,
                       text=True, timeout=300)
    if p.returncode:
        fail("%s: exit %d: %s" % (path, p.returncode, p.stderr))
        return None
    db = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute("SELECT * FROM OpmfuSteps ORDER BY rank_id, start_ns")]
    db.close()
    return rows


def device_span(path):
    """First start and last end of the kernels, copies and memsets, in ns (ts + dur, microseconds, and
    baseTimeNanoseconds as opmfu reads them)."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f, parse_float=decimal.Decimal)  # ns since the epoch are past a double's 53 bits
    base = int(d.get("baseTimeNanoseconds", 0)) if isinstance(d, dict) else 0
    ev = d["traceEvents"] if isinstance(d, dict) else d
    # the device's own step annotations are on its timeline too (a window may be one)
    dev = [e for e in ev if e.get("cat") in ("kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset",
                                              "gpu_user_annotation") and "ts" in e and "dur" in e]
    lo = min(round(e["ts"] * 1000) for e in dev) + base
    hi = max(round(e["ts"] * 1000) + round(e["dur"] * 1000) for e in dev) + base
    return lo, hi


def check_windows(name, rows, spans):
    by_rank = {}
    for r in rows:
        by_rank.setdefault(r["rank_id"], []).append(r)
    for rank, rs in by_rank.items():
        total = 0
        for a, b in zip(rs, rs[1:]):
            if b["start_ns"] < a["end_ns"] and b["window_ns"] > 0 and a["window_ns"] > 0:
                fail("%s rank %s: windows overlap: %s %s..%s and %s %s..%s" % (
                    name, rank, a["step"], a["start_ns"], a["end_ns"], b["step"], b["start_ns"], b["end_ns"]))
        for r in rs:
            total += r["window_ns"]
            if sum(r[c] for c in CATS) != r["window_ns"]:
                fail("%s rank %s step %s: categories add up to %d, window %d" % (
                    name, rank, r["step"], sum(r[c] for c in CATS), r["window_ns"]))
        span = spans.get(rank)
        if span and total > span[1] - span[0]:
            fail("%s rank %s: windows add up to %d ns, over the device span %d" % (name, rank, total,
                                                                                  span[1] - span[0]))


def tracelens(path):
    """gpu_timeline.csv: {(type, is_recompute): ns}"""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            out[(r["type"], r.get("is_recompute", "False"))] = float(r["time ms"]) * 1e6
    return out


def near(name, what, want, got, total):
    if abs(want - got) > 0.01 * total:
        fail("%s: %s %.0f ns, TraceLens %.0f ns (more than 1 %% of %.0f apart)" % (name, what, got, want, total))
    else:
        print("%s: %s %.3f ms, TraceLens %.3f ms" % (name, what, got / 1e6, want / 1e6))


def check_tracelens(name, rows, tl):
    steps = [r for r in rows if r["kind"] == "step"]
    s = {c: sum(r[c] for r in steps) for c in CATS + ("window_ns",)}
    total = tl[("total_time", "False")]
    near(name, "total (the steps' windows)", total, s["window_ns"], total)
    comp = s["flops_ns"] + s["matmul_noflops_ns"] + s["memory_bound_ns"] + s["other_compute_ns"]
    rec = tl.get(("computation_time", "True"), 0)
    near(name, "computation + exposed memcpy", tl[("computation_time", "False")] + rec +
         tl[("exposed_memcpy_time", "False")], comp + s["memcpy_ns"], total)
    if rec:
        near(name, "exposed comm + memcpy + idle + recompute computation",
             tl[("exposed_comm_time", "False")] + tl[("exposed_memcpy_time", "False")] + tl[("idle_time", "False")],
             s["comm_exposed_ns"] + s["memcpy_ns"] + s["idle_host_ns"] + s["idle_ns"] + rec, total)
    else:
        near(name, "exposed communication", tl[("exposed_comm_time", "False")], s["comm_exposed_ns"], total)
        near(name, "idle", tl[("idle_time", "False")], s["idle_host_ns"] + s["idle_ns"], total)


def main():
    opmfu, root = sys.argv[1], sys.argv[2]
    shared = os.path.normpath(os.path.join(root, "..", "shared", "real"))
    if not os.path.isdir(shared):
        print("SKIP: ../shared/real is absent (the real traces)")
        return 77
    tmp = tempfile.mkdtemp(prefix="opmfu-timeline-")
    kin = os.path.join(shared, "kineto")
    for d in sorted(glob.glob(os.path.join(kin, "kineto_*"))):
        name = os.path.basename(d)
        traces = sorted(glob.glob(os.path.join(d, "*.json.gz")))
        if not traces:
            with tarfile.open(glob.glob(os.path.join(d, "*.tar.gz"))[0]) as t:
                t.extractall(os.path.join(tmp, name))
            traces = sorted(glob.glob(os.path.join(tmp, name, "**", "*.json"), recursive=True))
            src = os.path.join(tmp, name)
        else:
            src = traces[0]
        rows = run(opmfu, src, os.path.join(tmp, "o_" + name))
        if rows is None:
            continue
        spans = {}
        for tr in traces:
            op = gzip.open if tr.endswith(".gz") else open
            with op(tr, "rt") as f:
                head = json.load(f)
            info = head.get("distributedInfo") if isinstance(head, dict) else None
            spans[info["rank"] if info else -1] = device_span(tr)
        check_windows(name, rows, spans)
        print("%s: %d rows, windows apart" % (name, len(rows)))
        csvs = glob.glob(os.path.join(d, "*csvs", "gpu_timeline.csv"))
        if csvs:
            check_tracelens(name, rows, tracelens(csvs[0]))
    for level in ("level0", "level1", "level2"):
        for rank_dir in sorted(glob.glob(os.path.join(shared, level, "rank*_ascend_pt"))):
            name = "%s/%s" % (level, os.path.basename(rank_dir))
            rows = run(opmfu, rank_dir, os.path.join(tmp, "o_" + name.replace("/", "_")), "--chip", "Ascend910B")
            oracle = glob.glob(os.path.join(rank_dir, "**", "analysis.db"), recursive=True)
            if rows is None or not oracle:
                continue
            db = sqlite3.connect(oracle[0])
            db.row_factory = sqlite3.Row
            stt = [dict(r) for r in db.execute("SELECT * FROM StepTraceTime")]
            db.close()
            steps = {str(r["step"]): r for r in rows if r["kind"] == "step"}
            for o in stt:
                r = steps.get(str(o["step"]))
                if not r:
                    fail("%s: no OpmfuSteps row for StepTraceTime step %s" % (name, o["step"]))
                    continue
                pairs = (("stage", r["window_ns"]), ("communication_not_overlapped", r["comm_exposed_ns"]),
                         ("overlapped", r["comm_overlapped_ns"]), ("preparing", r["preparing_ns"]),
                         ("free", r["idle_host_ns"] + r["idle_ns"] + r["memcpy_ns"]))
                for col, got in pairs:
                    want = round(float(o[col]) * 1000)
                    if got is None or abs(got - want) > 1000:
                        fail("%s step %s: %s %s ns, StepTraceTime %d" % (name, o["step"], col, got, want))
                print("%s step %s: stage, exposed and overlapped communication, preparing and free agree" %
                      (name, o["step"]))
    print("timeline_oracles: %s" % ("ok" if not fails else "%d failures" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
