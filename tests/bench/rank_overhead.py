#!/usr/bin/env python3
"""Per-rank overhead (SPEC 24, issue 35; docs/performance.md "Per-rank overhead").

The overhead of a rank is what R ranks of N kernels cost beyond one rank of R*N kernels:
    overhead = (wall(R x N) - wall(1 x R*N)) / R
the same kernels in all, the same -j, the two runs alternated (the order swapped every
round so that a drifting host favours neither). CPU time (user + sys) is reported the same
way: -j 1 runs one thread, so its CPU time is its wall time less the waiting for a CPU that
other processes hold (the budget is checked on it: on a shared host the wall time measures
the neighbours); at -j 2 the one big rank cannot keep two CPUs busy as R ranks do, so its
wall overhead is the smaller.

With --old OLD, each round runs both binaries on both inputs (old and new alternated) and
prints both overheads. Inputs are generated once under --work with gen_synth and reused.

usage: rank_overhead.py --opmfu BIN --gen GEN_SYNTH [--old BIN] [--ranks 1000]
           [--kernels 1000] [-j 1,2] [--rounds 5] [--work DIR] [--budget-ms 1.0] [--check]
           [--instructions]

--instructions counts instructions under callgrind instead (one run each, -j 1; use
--ranks 100: a 1,000-rank run takes minutes under valgrind).
"""
import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time


def generate(gen, work, ranks, kernels):
    """The input directory of ranks x kernels (made once; a stamp records the options)."""
    d = os.path.join(work, "r%dx%d" % (ranks, kernels))
    stamp = os.path.join(d, ".stamp")
    with open(gen, "rb") as f:  # the generator's bytes: a relink of the same code reuses the input
        want = "%s %d %d\n" % (hashlib.sha1(f.read()).hexdigest(), ranks, kernels)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return d
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([gen, "-o", d, "-r", str(ranks), "-n", str(kernels), "-q"], check=True)
    with open(stamp, "w") as f:
        f.write(want)
    return d


def warm(d):
    """Reads every file once: the runs measure a warm page cache."""
    for root, _, files in os.walk(d):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                while f.read(1 << 20):
                    pass


def run(binary, data, out, jobs):
    """(wall s, user+sys s, peak RSS KiB) of `opmfu analyze` into a fresh out."""
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    p = subprocess.Popen([binary, "analyze", data, "-o", out, "-q", "-j", str(jobs)], stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed on %s" % (binary, data))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def instructions(binary, data, out):
    """Instructions of `opmfu analyze -j 1` under callgrind (deterministic, unlike time here)."""
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, "analyze", data,
                        "-o", out, "-q", "-j", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit("callgrind of %s on %s failed" % (binary, data))
    return int(m.group(1))


def mmm(xs):
    return "%.3f / %.3f / %.3f" % (min(xs), statistics.median(xs), max(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--old")
    ap.add_argument("--gen", required=True)
    ap.add_argument("--ranks", type=int, default=1000)
    ap.add_argument("--kernels", type=int, default=1000)
    ap.add_argument("-j", default="1,2", help="comma-separated -j values")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--work", default="/tmp/opmfu-overhead")
    ap.add_argument("--budget-ms", type=float, default=1.0)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when the median CPU overhead at -j 1 (one thread: its wall on an idle host) is over budget")
    ap.add_argument("--instructions", action="store_true",
                    help="instead of timing, count each run's instructions once under callgrind (-j 1)")
    a = ap.parse_args()

    os.makedirs(a.work, exist_ok=True)
    many = generate(a.gen, a.work, a.ranks, a.kernels)
    one = generate(a.gen, a.work, 1, a.ranks * a.kernels)
    warm(many)
    warm(one)
    bins = [("old", a.old), ("new", a.opmfu)] if a.old else [("opmfu", a.opmfu)]
    out = os.path.join(a.work, "out")
    r = a.ranks
    if a.instructions:
        print("instructions per rank of overhead: (run of %d x %d - run of 1 x %d) / %d, -j 1, callgrind" %
              (r, a.kernels, r * a.kernels, r))
        for name, b in bins:
            m, o = instructions(b, many, out), instructions(b, one, out)
            print("%s: %d x %d %d, 1 x %d %d: %.0f per rank" % (name, r, a.kernels, m, r * a.kernels, o, (m - o) / r),
                  flush=True)
        shutil.rmtree(out, ignore_errors=True)
        return 0
    miss = False
    print("overhead per rank, ms: (run of %d x %d - run of 1 x %d) / %d; min / median / max of %d rounds" %
          (r, a.kernels, r * a.kernels, r, a.rounds))
    for jobs in [int(x) for x in a.j.split(",")]:
        res = {name: {"wall": [], "cpu": [], "rss": []} for name, _ in bins}
        for i in range(a.rounds):
            runs = [(name, b, data) for name, b in bins for data in (many, one)]
            if i % 2:
                runs.reverse()
            got = {}
            for name, b, data in runs:
                got[(name, data)] = run(b, data, out, jobs)
            for name, _ in bins:
                m, o = got[(name, many)], got[(name, one)]
                res[name]["wall"].append((m[0] - o[0]) / r * 1e3)
                res[name]["cpu"].append((m[1] - o[1]) / r * 1e3)
                res[name]["rss"].append(m[2] // 1024)
                print("  -j %d round %d %s: %dx%d %.2f s (cpu %.2f), 1x%d %.2f s (cpu %.2f): %.3f ms/rank wall, "
                      "%.3f cpu" % (jobs, i, name, r, a.kernels, m[0], m[1], r * a.kernels, o[0], o[1],
                                    res[name]["wall"][-1], res[name]["cpu"][-1]), flush=True)
        for name, _ in bins:
            w = res[name]
            print("-j %d %s: wall %s ms/rank, cpu %s ms/rank, peak RSS %d-%d MB (%d ranks)" %
                  (jobs, name, mmm(w["wall"]), mmm(w["cpu"]), min(w["rss"]), max(w["rss"]), r))
            if jobs == 1 and name != "old" and statistics.median(w["cpu"]) > a.budget_ms:
                miss = True
    shutil.rmtree(out, ignore_errors=True)
    if a.check:
        print("%s: median CPU overhead at -j 1 %s %.1f ms per rank" % ("MISS" if miss else "PASS",
                                                                      "over" if miss else "within", a.budget_ms))
        return 1 if miss else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
