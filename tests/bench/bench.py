#!/usr/bin/env python3
"""The opmfu benchmark (docs/performance.md). Python standard library only.

bench.py --opmfu OPMFU --gen GEN_SYNTH --schema SCHEMA_IN_DIR [options]

Generates synthetic inputs with gen_synth (once; they are kept under --work
and reused while the generator and its options are unchanged), runs
`opmfu analyze` on each and prints one table: kernels, wall seconds,
kernels per second, peak RSS, RSS bytes per kernel, and the floor: how long
the sqlite3 shell takes to run the reader's own queries (schema/in/ascend/
*.sql: every row opmfu reads, printed to /dev/null) on the same databases.
Then -j 1 against -j 2 on the cluster, the xlsx export, and the targets of
issue 7 and issue 5 with PASS or MISS. --check makes a MISS the exit status.
"""
import argparse
import hashlib
import os
import re
import shutil
import statistics
import sqlite3
import subprocess
import sys
import time


def parse_count(s):
    """'1e6', '250000', '2.5e5' -> int"""
    return int(float(s))


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def dataset(args, ranks, kernels):
    """The tree for ranks x kernels, generated unless a matching one is kept."""
    d = os.path.join(args.work, "data_%dx%d_s%d" % (ranks, kernels, args.seed))
    stamp = "gen_synth %s -r %d -n %d -s %d\n" % (file_hash(args.gen), ranks, kernels, args.seed)
    sp = os.path.join(d, "stamp")
    if os.path.exists(sp) and open(sp).read() == stamp:
        return d
    shutil.rmtree(d, ignore_errors=True)
    t = time.perf_counter()
    print("generating %d x %d kernels in %s ..." % (ranks, kernels, d), file=sys.stderr, flush=True)
    subprocess.run([args.gen, "-o", d, "-r", str(ranks), "-n", str(kernels), "-s", str(args.seed), "-q"],
                   check=True)
    with open(sp, "w") as f:
        f.write(stamp)
    print("  %.1f s" % (time.perf_counter() - t), file=sys.stderr, flush=True)
    return d


def run_measured(cmd, **kw):
    """(wall seconds, peak RSS bytes, exit status) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss * 1024, p.returncode


def warm(path):
    """Reads the databases once, so that every run finds them in the page cache."""
    for db in databases(path):
        with open(db, "rb") as f:
            while f.read(1 << 24):
                pass


TIME_LINE = re.compile(r"^  time: read ([\d.]+) s, kernel MFU ([\d.]+) s, module MFU ([\d.]+) s, "
                       r"writing ([\d.]+) s$", re.M)


def analyze_many(args, cases):
    """Per case (path, jobs or None, export): best and median wall time over
    --repeat runs, the largest peak RSS, and the per-rank stage times (opmfu
    --timings) of the best run. The cases' runs are interleaved, one of each
    per round: this host's speed drifts from minute to minute, and the
    linearity and -j targets compare two cases, so both must meet the same
    minutes."""
    out = os.path.join(args.work, "out")
    walls = {c: [] for c in cases}
    rss = {c: 0 for c in cases}
    stages = {c: None for c in cases}
    log = os.path.join(args.work, "summary.txt")
    for _ in range(args.repeat):
        for case in cases:
            path, jobs, export = case
            warm(path)
            cmd = [args.opmfu, "analyze", path, "-o", out, "--timings", "--export", export]
            if jobs:
                cmd += ["-j", str(jobs)]
            shutil.rmtree(out, ignore_errors=True)
            with open(log, "w") as f:
                wall, r, rc = run_measured(cmd, stdout=f, stderr=subprocess.DEVNULL)
            if rc != 0:
                sys.exit("opmfu failed (exit %d): %s" % (rc, " ".join(cmd)))
            if not walls[case] or wall < min(walls[case]):
                with open(log) as f:
                    stages[case] = [tuple(float(x) for x in m) for m in TIME_LINE.findall(f.read())]
            walls[case].append(wall)
            rss[case] = max(rss[case], r)
    return {c: (min(walls[c]), rss[c], statistics.median(walls[c]), stages[c]) for c in cases}


def analyze(args, path, jobs=None, export="db"):
    case = (path, jobs, export)
    return analyze_many(args, [case])[case]


def databases(path):
    res = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            if re.match(r"^ascend_pytorch_profiler(_\d+)?\.db$", name):
                res.append(os.path.join(root, name))
    return res


def floor_script(args, db):
    """The reader's queries, for the tables this database has."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    con.close()
    lines = [".output /dev/null"]
    for name in sorted(os.listdir(args.schema)):
        # NAME_noX.sql is NAME.sql for an export without some column: the
        # reader runs one of the two, so the floor reads the table once
        if not name.endswith(".sql") or "_no" in name:
            continue
        with open(os.path.join(args.schema, name)) as f:
            sql = "\n".join(l for l in f.read().splitlines() if not l.startswith("--")).strip()
        m = re.search(r"\bFROM\s+(\w+)", sql)
        if m and m.group(1) in tables:
            lines.append(sql + ";")
    return "\n".join(lines) + "\n"


def floor(args, path):
    """Seconds the sqlite3 shell needs to read what opmfu reads, rank after rank."""
    if not args.sqlite3:
        return None
    best = None
    warm(path)
    for _ in range(args.repeat):
        total = 0.0
        for db in databases(path):
            script = floor_script(args, db)
            t = time.perf_counter()
            subprocess.run([args.sqlite3, "-readonly", db], input=script, text=True, check=True,
                           stdout=subprocess.DEVNULL)
            total += time.perf_counter() - t
        best = total if best is None else min(best, total)
    return best


def fmt_row(cols, widths):
    return "  ".join(str(c).rjust(w) for c, w in zip(cols, widths))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--gen", required=True, help="the gen_synth executable")
    ap.add_argument("--schema", required=True, help="schema/in/ascend (the reader's queries)")
    ap.add_argument("--work", default="/tmp/opmfu-bench", help="inputs and outputs (default %(default)s)")
    ap.add_argument("--sizes", default="1e4,1e5,1e6,5e6", help="kernels of the one-rank inputs")
    ap.add_argument("--cluster", default="8x250000", help="RANKSxKERNELS of the cluster input, or 'none'")
    ap.add_argument("--xlsx", default="1e6", help="kernels of the input for the xlsx export, or 'none'")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement; the best wall time counts")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    args.sqlite3 = shutil.which("sqlite3")
    os.makedirs(args.work, exist_ok=True)

    sizes = [parse_count(s) for s in args.sizes.split(",") if s]
    cols = ["input", "kernels", "wall s", "median s", "kernels/s", "peak RSS MB", "RSS B/kernel", "floor s",
            "opmfu/floor"]
    widths = [14, 9, 7, 8, 10, 11, 12, 7, 11]
    rows, result, stage_rows = [], [], []

    def measure(label, path, ranks, kernels, measured=None):
        wall, rss, med, stages = measured or analyze(args, path)
        fl = floor(args, path)
        total = ranks * kernels
        row = [label, total, "%.2f" % wall, "%.2f" % med, "%.0f" % (total / wall), "%.0f" % (rss / 2**20),
               "%.0f" % (rss / kernels), "%.2f" % fl if fl else "-", "%.2f" % (wall / fl) if fl else "-"]
        rows.append(row)
        print(fmt_row(row, widths), file=sys.stderr, flush=True)
        if ranks == 1 and stages:
            stage_rows.append([total] + ["%.2f" % x for x in stages[0]])
        result.append((wall, rss, fl, kernels, med))
        return result[-1]

    by_size = {}
    cases = {n: (dataset(args, 1, n), None, "db") for n in sizes}
    runs = analyze_many(args, list(cases.values()))
    for n in sizes:
        by_size[n] = measure("1 rank", cases[n][0], 1, n, runs[cases[n]])
    cluster = None
    if args.cluster != "none":
        r, n = (parse_count(x) for x in args.cluster.split("x"))
        cluster = dataset(args, r, n)
        measure("%d ranks" % r, cluster, r, n)

    print()
    print("opmfu analyze (db export, default -j) and the sqlite3 floor; %d core(s)" % os.cpu_count())
    print(fmt_row(cols, widths))
    for row in rows:
        print(fmt_row(row, widths))
    if stage_rows:
        print()
        print("where the best run of one rank spent its time (opmfu --timings; module MFU runs while")
        print("OperatorMFU is written)")
        sw = [9, 7, 12, 12, 9]
        print(fmt_row(["kernels", "read s", "kernel MFU s", "module MFU s", "writing s"], sw))
        for row in stage_rows:
            print(fmt_row(row, sw))

    checks = []
    if 10**6 in sizes:
        wall, rss, fl, _, med = by_size[10**6]
        checks.append(("10^6 kernels at >= 700000 kernels/s", 10**6 / wall >= 700000,
                       "%.0f/s best, %.0f/s median" % (10**6 / wall, 10**6 / med)))
        if fl:
            checks.append(("10^6 kernels within 2x of the sqlite3 floor", wall <= 2 * fl, "%.2fx" % (wall / fl)))
    if 10**6 in sizes and 5 * 10**6 in sizes:
        # the best runs, as for every target: noise on this kind of host only
        # adds time, so each best is the closest to its input's own cost (the
        # runs of the two inputs alternate, so both meet the same minutes);
        # the ratio of the medians is printed beside it
        ratio = by_size[5 * 10**6][0] / by_size[10**6][0]
        med = by_size[5 * 10**6][4] / by_size[10**6][4]
        checks.append(("5x10^6 kernels take <= 5.5x the time of 10^6", ratio <= 5.5,
                       "%.2fx of the best (%.2fx of the medians)" % (ratio, med)))
    if sizes:
        _, rss, _, k, _ = by_size[max(sizes)]
        checks.append(("peak RSS <= 300 bytes per kernel of the largest rank", rss / k <= 300,
                       "%.0f B (%d kernels)" % (rss / k, k)))

    if cluster:
        # interleaved, like the one-rank inputs: the ratio compares the same minutes
        j1, j2 = (cluster, 1, "db"), (cluster, 2, "db")
        runs = analyze_many(args, [j1, j2])
        t1, t2 = runs[j1][0], runs[j2][0]
        print()
        print("cluster %s: -j 1 %.2f s, -j 2 %.2f s, speed-up %.2fx" % (args.cluster, t1, t2, t1 / t2))
        checks.append(("-j 2 >= 1.6x faster than -j 1 on the cluster", t1 / t2 >= 1.6, "%.2fx" % (t1 / t2)))

    if args.xlsx != "none":
        n = parse_count(args.xlsx)
        path = dataset(args, 1, n)
        probe = subprocess.run([args.opmfu, "analyze", "--help"], capture_output=True, text=True).stdout
        if "xlsx" not in probe:
            print("\nxlsx export: not available in this build")
        else:
            wall, rss, med, stages = analyze(args, path, export="xlsx")
            print("\nxlsx export of %d kernels: %.2f s (median %.2f s), peak RSS %.0f MB (%.0f B/kernel)"
                  % (n, wall, med, rss / 2**20, rss / n))
            if stages:
                print("  read %.2f s, kernel MFU %.2f s, module MFU %.2f s, writing the workbooks %.2f s"
                      % stages[0])
            checks.append(("xlsx export of 10^6 kernels in < 10 s", wall < 10,
                           "%.2f s best, %.2f s median" % (wall, med)))

    print()
    print("targets:")
    missed = 0
    for name, ok, value in checks:
        print("  %-4s %-55s %s" % ("PASS" if ok else "MISS", name, value))
        missed += not ok
    return 1 if (args.check and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
