#!/usr/bin/env python3
"""Time `opmfu analyze` on a large synthetic Nsight Systems export against
the sqlite3 shell reading the same rows (docs/performance.md).

nsys_bench.py --opmfu BUILD-REL/opmfu [--old OLD/opmfu] [--export X.sqlite] [--kernels N] [--pairs 5] [--check]

Without --export, tests/bench/gen_nsys_big.py writes one of N kernels (10^6)
into a temporary folder. Each pair runs `opmfu analyze X -o OUT -q`, then
`sqlite3 X "<the reader's SELECTs>" > /dev/null`: the statements of
src/read/nsys/read_nsys.c (same columns, joins and filters) for the device
and process the export holds. The ratio is of the same pair, so a busy host
slows both. --check exits 1 when the median ratio is above 1.5.

With --old, each pair also runs that build of opmfu, the two in turn first
(new, old, sqlite3; then old, new, sqlite3; ...), and reports its ratio to
the same floor and new/old (this host's speed drifts: only the same pair's
runs compare).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# nsys_probe.c's and read_nsys.c's statements, device 0 and process 100 bound
# (the probe's pairs are counted too, as opmfu runs them; find_nccl_domain's
# scan is not: the reader makes it only once a range of a domain other than
# the default one asks, and the bench's are all in the default). The reader
# reads a kernel's name id and looks each distinct id up once in StringIds:
# the shell reads the id column, as the reader does.
QUERIES = [
    "SELECT DISTINCT deviceId, (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL "
    "WHERE deviceId IS NOT NULL AND globalPid IS NOT NULL",
    "SELECT start, end, correlationId, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL "
    "WHERE deviceId = 0 AND ((globalPid >> 24) & 16777215) = 100",
    "SELECT start, correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL "
    "AND (100 < 0 OR ((globalTid >> 24) & 16777215) = 100)",
    "SELECT start, end, correlationId, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE deviceId = 0 "
    "AND ((globalPid >> 24) & 16777215) = 100",
    "SELECT start, end, correlationId, 0 FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE deviceId = 0 "
    "AND ((globalPid >> 24) & 16777215) = 100",
    "SELECT max(rowid) FROM NVTX_EVENTS",
    "SELECT n.start, n.end, n.globalTid, COALESCE(n.text, s.value), n.domainId FROM NVTX_EVENTS n "
    "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (59, 60, 70, 71) "
    "AND (100 < 0 OR ((n.globalTid >> 24) & 16777215) = 100)",
    "SELECT id, name FROM TARGET_INFO_GPU ORDER BY id",
]


def timed(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, **kw)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--old", help="an earlier build of opmfu, run in the same pairs")
    ap.add_argument("--export")
    ap.add_argument("--kernels", type=int, default=1000000)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--sqlite3", default="sqlite3")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="opmfu-nsys-bench-")
    try:
        export = a.export
        if not export:
            export = os.path.join(tmp, "rank0.sqlite")
            t = timed([sys.executable, os.path.join(HERE, "gen_nsys_big.py"), export, "--kernels", str(a.kernels)])
            print("generated %s (%d kernels, %.0f MB) in %.1f s" % (export, a.kernels, os.path.getsize(export) / 1e6, t))
        sql = "; ".join(QUERIES) + ";"
        out = os.path.join(tmp, "out")

        def analyze(opmfu):
            shutil.rmtree(out, ignore_errors=True)
            return timed([opmfu, "analyze", export, "-o", out, "-q"], stderr=subprocess.DEVNULL)

        ratios, old_ratios, speedups = [], [], []
        for i in range(a.pairs):
            if a.old and i % 2:
                t_old = analyze(a.old)
            t_opmfu = analyze(a.opmfu)
            if a.old and not i % 2:
                t_old = analyze(a.old)
            with open(os.devnull, "w") as null:
                t_sql = timed([a.sqlite3, export, sql], stdout=null)
            ratios.append(t_opmfu / t_sql)
            line = "pair %d: opmfu %.3f s, sqlite3 %.3f s, ratio %.3f" % (i + 1, t_opmfu, t_sql, ratios[-1])
            if a.old:
                old_ratios.append(t_old / t_sql)
                speedups.append(t_opmfu / t_old)
                line += "; old %.3f s, ratio %.3f, new/old %.3f" % (t_old, old_ratios[-1], speedups[-1])
            print(line, flush=True)

        def mmm(v):
            return "min %.3f median %.3f max %.3f" % (min(v), statistics.median(v), max(v))

        print("ratio %s (%d pairs)" % (mmm(ratios), len(ratios)))
        if a.old:
            print("old ratio %s; new/old %s" % (mmm(old_ratios), mmm(speedups)))
        if a.check and statistics.median(ratios) > 1.5:
            print("median ratio above 1.5", file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
