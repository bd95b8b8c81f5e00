#!/usr/bin/env python3
"""The cross-rank matching of collectives at 100 and 1,000 ranks (SPEC 19; docs/performance.md,
"Collectives at 100 and 1,000 ranks"). Python standard library only.

coll_scale.py --opmfu OPMFU --gen GEN_KINETO --match COLL_MATCH [--ranks 100,1000] [--kernels 2000]
              [--skew 100] [--repeat 3] [--jobs N] [--work DIR] [--no-analyze] [--no-callgrind] [--check]

1. Whole runs: R ranks of gen_kineto (--kernels each, every 16th an all-reduce of group "0",
   --world R --skew S), gzip'd under --work and reused while the generator and options are
   unchanged; `opmfu analyze DIR -o OUT -q --export db -j N`, --repeat rounds, the rank counts
   alternating within a round (this host's speed drifts): wall time and peak RSS (wait4).
2. The matching alone: coll_match (the per-run analysis fed the same calls as the pipeline feeds
   it, its finish timed): --repeat x 5 timings per rank count, alternating, and, unless
   --no-callgrind, valgrind's callgrind instruction count of its finish (deterministic).
Per call: time or instructions / the run's calls. The target (near-linear): the per-call
instructions at the largest rank count are at most 1.25x those at the smallest (--check makes a
miss the exit status).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import file_hash  # noqa: E402  (the same input cache key as bench.py)

TARGET = 1.25


def cluster(args, ranks):
    """The directory of `ranks` gzip'd ranks, generated unless kept."""
    d = os.path.join(args.work, "r%d" % ranks)
    stamp = os.path.join(args.work, "r%d.stamp" % ranks)
    want = "gen_kineto %s %d %d %d\n" % (file_hash(args.gen), ranks, args.kernels, args.skew)
    if os.path.exists(stamp) and os.path.isdir(d):
        with open(stamp) as f:
            if f.read() == want:
                return d
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    print("generating %d ranks of %d kernels in %s ..." % (ranks, args.kernels, d), file=sys.stderr, flush=True)
    t = time.perf_counter()
    for r in range(ranks):
        subprocess.run([args.gen, os.path.join(d, "rank%d.pt.trace.json.gz" % r), str(args.kernels), "--rank",
                        str(r), "--world", str(ranks), "--skew", str(args.skew)], check=True,
                       stdout=subprocess.DEVNULL)
    with open(stamp, "w") as f:
        f.write(want)
    print("  %.1f s" % (time.perf_counter() - t), file=sys.stderr, flush=True)
    return d


def run_rss(cmd):
    """(wall seconds, peak RSS KiB) of cmd, its stdout discarded."""
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        try:
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit("failed (status %d): %s" % (status, " ".join(cmd)))
    return wall, ru.ru_maxrss


def spread(v, fmt="%.3f"):
    return "%s / %s / %s" % (fmt % min(v), fmt % statistics.median(v), fmt % max(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--gen", required=True, help="tests/gen_kineto")
    ap.add_argument("--match", required=True, help="tests/coll_match")
    ap.add_argument("--ranks", default="100,1000")
    ap.add_argument("--kernels", type=int, default=2000)
    ap.add_argument("--skew", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "opmfu-coll-scale"))
    ap.add_argument("--no-analyze", action="store_true", help="only the matching alone")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    counts = [int(x) for x in args.ranks.split(",")]
    calls_per_rank = args.kernels // 16
    os.makedirs(args.work, exist_ok=True)

    if not args.no_analyze:
        dirs = {r: cluster(args, r) for r in counts}
        walls, rss = {r: [] for r in counts}, {r: [] for r in counts}
        for _ in range(args.repeat):
            for r in counts:
                out = os.path.join(args.work, "out%d" % r)
                shutil.rmtree(out, ignore_errors=True)
                w, m = run_rss([os.path.abspath(args.opmfu), "analyze", dirs[r], "-o", out, "-q", "--export", "db",
                                "-j", str(args.jobs)])
                walls[r].append(w)
                rss[r].append(m)
        print("opmfu analyze, %d rounds, -j %d: wall s min / median / max; peak RSS MiB (median)"
              % (args.repeat, args.jobs))
        for r in counts:
            print("  %5d ranks, %7d calls: %s s; %.1f MiB" % (r, r * calls_per_rank, spread(walls[r]),
                                                              statistics.median(rss[r]) / 1024))

    ns = {r: [] for r in counts}
    mrss, held = {}, {}
    for _ in range(args.repeat):
        for r in counts:
            out = subprocess.run([args.match, str(r), str(calls_per_rank), "5", str(args.skew)], check=True,
                                 capture_output=True, text=True).stdout
            got = [int(t) for t, _ in re.findall(r"^finish_ns (\d+) calls (\d+) ", out, re.M)]
            held[r] = int(re.search(r"held_bytes (\d+)$", out, re.M).group(1))
            ns[r] += got
            mrss[r] = int(re.search(r"^maxrss_kib (\d+)$", out, re.M).group(1))
    print("the matching alone (coll_match, %d calls per rank): ns per call min / median / max; peak RSS" %
          calls_per_rank)
    for r in counts:
        n = r * calls_per_rank
        print("  %5d ranks, %7d calls: %s ns; peak RSS %.1f MiB; arrays held %.0f bytes per call"
              % (r, n, spread([x / n for x in ns[r]], "%.1f"), mrss[r] / 1024, held[r] / n))
    lo, hi = counts[0], counts[-1]
    print("  median per call %d : %d ranks: %.2f" % (hi, lo, (statistics.median(ns[hi]) / (hi * calls_per_rank)) /
                                                   (statistics.median(ns[lo]) / (lo * calls_per_rank))))
    if len(counts) > 1:
        per = (mrss[hi] - mrss[lo]) * 1024 / ((hi - lo) * calls_per_rank)
        print("  peak RSS growth: %.0f bytes per call" % per)

    ok = True
    if not args.no_callgrind:
        ir = {}
        for r in counts:
            f = os.path.join(args.work, "callgrind.%d" % r)
            p = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=bench_finish",
                                "--callgrind-out-file=" + f, args.match, str(r), str(calls_per_rank), "1",
                                str(args.skew)], capture_output=True, text=True)
            m = re.search(r"Collected : (\d+)", p.stderr)
            if p.returncode != 0 or not m:
                sys.exit("callgrind failed:\n" + p.stderr)
            ir[r] = int(m.group(1))
        print("callgrind, the matching's instructions (its finish):")
        for r in counts:
            n = r * calls_per_rank
            print("  %5d ranks, %7d calls: %d Ir, %.0f per call" % (r, n, ir[r], ir[r] / n))
        ratio = (ir[hi] / (hi * calls_per_rank)) / (ir[lo] / (lo * calls_per_rank))
        ok = ratio <= TARGET
        print("  per call %d : %d ranks: %.3f (target <= %.2f): %s" % (hi, lo, ratio, TARGET,
                                                                    "PASS" if ok else "MISS"))
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
