#!/usr/bin/env python3
"""SPEC 24's budget for one Ascend rank (issue 35), in one command.

rank_budget.py --opmfu OPMFU --schema schema/in/ascend (DATA | --gen GEN_SYNTH)
               [--old OLD_OPMFU] [--kernels 1e6] [--rounds N] [--work DIR] [--check]

DATA is an Ascend rank folder; without it gen_synth makes the budget's rank
(-r 1 -n 1000000, kept under --work as bench.py keeps its inputs). Each
round runs, in an order that rotates every round so a drifting host favours
none: the sqlite3 shell reading the rows opmfu reads (bench.py's floor, the
reader's own queries printed to /dev/null), `opmfu analyze DATA -o OUT
--export db` (every analysis on), and with --old the same for another
binary. Prints per binary the wall time, its same-round ratio to the floor
and (with --old) to the old binary, each as min/median/max, the CPU time,
and the peak RSS with its bytes per kernel (COMPUTE_TASK_INFO rows); the
budget lines say PASS or MISS (<= 1.3x the floor, <= 250 bytes per kernel);
--check makes a MISS the exit status.
Python standard library only; needs the sqlite3 shell.
"""
import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (floor_script, databases, warm)

RATIO_BUDGET = 1.3
BYTES_BUDGET = 250


def timed(cmd, **kw):
    """(wall s, CPU s, peak RSS bytes) of one child, which must succeed."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s" % " ".join(cmd))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def kernels(dbs):
    n = 0
    for db in dbs:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        n += con.execute("SELECT count(*) FROM COMPUTE_TASK_INFO").fetchone()[0]
        con.close()
    return n


def mmm(xs, fmt):
    return "/".join(fmt % x for x in (min(xs), statistics.median(xs), max(xs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="?")
    ap.add_argument("--gen", help="the gen_synth executable, to make the rank when DATA is not given")
    ap.add_argument("--kernels", default="1e6", help="kernels of the generated rank (default %(default)s)")
    ap.add_argument("--work", default="/tmp/opmfu-bench", help="where the generated rank is kept")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="exit 1 when a budget is missed")
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--old", help="another opmfu binary, run in the same rounds")
    ap.add_argument("--schema", required=True, help="schema/in/ascend (the reader's queries)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    args.sqlite3 = shutil.which("sqlite3")
    if not args.sqlite3:
        sys.exit("the sqlite3 shell is needed for the floor (Debian package sqlite3)")
    if not args.data:
        if not args.gen:
            sys.exit("give DATA or --gen")
        os.makedirs(args.work, exist_ok=True)
        args.data = bench.dataset(args, 1, bench.parse_count(args.kernels))
    dbs = bench.databases(args.data)
    if not dbs:
        sys.exit("no Ascend rank database under %s" % args.data)
    n_kernels = kernels(dbs)
    scripts = [(db, bench.floor_script(args, db)) for db in dbs]
    work = tempfile.mkdtemp(prefix="opmfu-budget-")
    runs = {"floor": []}
    bins = [("new", args.opmfu)] + ([("old", args.old)] if args.old else [])
    for name, _ in bins:
        runs[name] = []

    def floor():
        wall = cpu = rss = 0
        for db, script in scripts:
            w, c, r = run_floor(db, script)
            wall, cpu, rss = wall + w, cpu + c, max(rss, r)
        return wall, cpu, rss

    def run_floor(db, script):
        t = time.perf_counter()
        p = subprocess.Popen([args.sqlite3, "-readonly", db], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             text=True)
        p.stdin.write(script)
        p.stdin.close()
        _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("the sqlite3 floor failed on %s" % db)
        return time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024

    jobs = [("floor", floor)] + [(name, (lambda b: lambda: opmfu(b))(b)) for name, b in bins]

    def opmfu(binary):
        out = os.path.join(work, "out")
        shutil.rmtree(out, ignore_errors=True)
        return timed([binary, "analyze", args.data, "-o", out, "-q", "--export", "db"], stderr=subprocess.DEVNULL)

    try:
        bench.warm(args.data)
        for r in range(args.rounds):
            k = r % len(jobs)
            for name, fn in jobs[k:] + jobs[:k]:
                runs[name].append(fn())
            print("round %d: " % (r + 1) + ", ".join("%s %.2f s" % (n, runs[n][-1][0]) for n, _ in jobs),
                  file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("%s: %d kernels, %d rounds (floor and opmfu alternating)" % (args.data, n_kernels, args.rounds))
    fl = [w for w, _, _ in runs["floor"]]
    print("  floor (sqlite3 shell)  wall min/median/max %s s" % mmm(fl, "%.2f"))
    ok = True
    for name, _ in bins:
        walls = [w for w, _, _ in runs[name]]
        cpus = [c for _, c, _ in runs[name]]
        rss = max(r for _, _, r in runs[name])
        ratio = [w / f for w, f in zip(walls, fl)]
        line = "  %-4s wall %s s, CPU %s s, /floor %s, peak RSS %.0f MB = %.0f B/kernel" % (
            name, mmm(walls, "%.2f"), mmm(cpus, "%.2f"), mmm(ratio, "%.2f"), rss / 1e6, rss / n_kernels)
        if name == "new" and args.old:
            line += ", new/old %s" % mmm([n / o for n, o in zip(walls, [w for w, _, _ in runs["old"]])], "%.3f")
        print(line)
        if name == "new":
            med = statistics.median(ratio)
            for good, text in ((med <= RATIO_BUDGET, "%.2fx the floor (median; budget %.1fx)" % (med, RATIO_BUDGET)),
                               (rss / n_kernels <= BYTES_BUDGET, "%.0f bytes of peak RSS per kernel (budget %d)" %
                                (rss / n_kernels, BYTES_BUDGET))):
                print("  %s %s" % ("PASS" if good else "MISS", text))
                ok = ok and good
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
