#!/usr/bin/env python3
"""The merge against the analysis (SPEC 24, issue 33; docs/scale.md).

merge_bench.py --opmfu OPMFU --run RUN --work WORK [--shards 4] [--rounds 3] [--old OLD] [--check]

Each round runs, one after the other:
  analyze RUN -j 1                    the whole run in one process;
  analyze RUN --shard I/N -j 1        each of the N shards (I = 1..N), the work a job array does;
  merge S1..SN                        the shards of this round into one result;
  with --old, the same with another build: its shards (the format of a shard may differ between
  builds: OpmfuShardPack), and its merge of them.
and prints, per round and as min / median / max over the rounds, the merge's wall and CPU time
(user + sys, of the child) divided by those of the whole analysis and by the shards' sum: the
budget's "under 10 % of the time of analysing them" measured against both ways of analysing; with
--old also the old merge's times, the old shards' sum and the two builds' shard sizes.
Before each command the page cache's dirty pages are written out (sync). Last it checks that the merge's tables and the single analysis's have the same md5
(table_md5.py). --check exits 1 when the median wall ratio to the single analysis is 10 % or more.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd):
    """(wall s, CPU s) of one child, which must succeed. The dirty pages the runs
    before left are written out first: else the kernel writes them back while this
    one runs, and charges it for the work (a merge's system time triples)."""
    os.sync()
    t0 = os.times()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = os.times().elapsed - t0.elapsed
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s" % " ".join(cmd))
    return wall, ru.ru_utime + ru.ru_stime


def db(out):
    return os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")


def md5(path):
    p = subprocess.run([sys.executable, os.path.join(HERE, "table_md5.py"), path], check=True,
                       capture_output=True, text=True)
    return p.stdout


def spread(v):
    return "%5.1f / %5.1f / %5.1f %%" % (min(v), statistics.median(v), max(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--run", required=True, help="the run's input folder")
    ap.add_argument("--work", required=True, help="a folder for the outputs (emptied)")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--old", help="another build's opmfu: its shards and its merge of them, in the same rounds")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()

    os.makedirs(a.work, exist_ok=True)
    whole, merged, old = (os.path.join(a.work, d) for d in ("whole", "merged", "merged_old"))
    shards = [os.path.join(a.work, "s%d" % i) for i in range(1, a.shards + 1)]
    old_shards = [os.path.join(a.work, "old_s%d" % i) for i in range(1, a.shards + 1)]
    rows = {k: [] for k in ("wall_a", "cpu_a", "wall_s", "cpu_s", "wall_m", "cpu_m", "wall_o", "cpu_o", "wall_os",
                            "cpu_os")}
    print("round  analyse wall/CPU s  shards wall/CPU s  merge wall/CPU s  merge/analyse wall, CPU  "
          "merge/shards wall, CPU" + ("  old shards wall/CPU s  old merge wall/CPU s" if a.old else ""))
    for r in range(1, a.rounds + 1):
        for d in [whole, merged, old] + shards + old_shards:
            shutil.rmtree(d, ignore_errors=True)
        wa, ca = timed([a.opmfu, "analyze", a.run, "-o", whole, "-q", "-j", "1"])
        ws = cs = 0.0
        for i, d in enumerate(shards, 1):
            w, c = timed([a.opmfu, "analyze", a.run, "--shard", "%d/%d" % (i, a.shards), "-o", d, "-q", "-j", "1"])
            ws, cs = ws + w, cs + c
        wm, cm = timed([a.opmfu, "merge"] + [db(d) for d in shards] + ["-o", merged, "-q"])
        wo = co = wos = cos = 0.0
        if a.old:
            for i, d in enumerate(old_shards, 1):
                w, c = timed([a.old, "analyze", a.run, "--shard", "%d/%d" % (i, a.shards), "-o", d, "-q", "-j",
                              "1"])
                wos, cos = wos + w, cos + c
            wo, co = timed([a.old, "merge"] + [db(d) for d in old_shards] + ["-o", old, "-q"])
        for k, v in (("wall_a", wa), ("cpu_a", ca), ("wall_s", ws), ("cpu_s", cs), ("wall_m", wm),
                     ("cpu_m", cm), ("wall_o", wo), ("cpu_o", co), ("wall_os", wos), ("cpu_os", cos)):
            rows[k].append(v)
        print("%5d  %6.2f / %6.2f    %6.2f / %6.2f    %5.2f / %5.2f     %5.1f %%, %5.1f %%          "
              "%5.1f %%, %5.1f %%%s" % (r, wa, ca, ws, cs, wm, cm, 100 * wm / wa, 100 * cm / ca,
                                      100 * wm / ws, 100 * cm / cs,
                                      "          %6.2f / %6.2f    %5.2f / %5.2f" % (wos, cos, wo, co)
                                      if a.old else ""))
    ratio = lambda m, d: [100 * x / y for x, y in zip(rows[m], rows[d])]
    print("merge / analyse -j 1:       wall %s   CPU %s" % (spread(ratio("wall_m", "wall_a")),
                                                           spread(ratio("cpu_m", "cpu_a"))))
    print("merge / the shards' sum:    wall %s   CPU %s" % (spread(ratio("wall_m", "wall_s")),
                                                           spread(ratio("cpu_m", "cpu_s"))))
    if a.old:
        print("old merge / analyse -j 1:   wall %s   CPU %s" % (spread(ratio("wall_o", "wall_a")),
                                                               spread(ratio("cpu_o", "cpu_a"))))
        print("merge / old merge:          wall %s   CPU %s" % (spread(ratio("wall_m", "wall_o")),
                                                               spread(ratio("cpu_m", "cpu_o"))))
        print("shards / old shards:        wall %s   CPU %s" % (spread(ratio("wall_s", "wall_os")),
                                                               spread(ratio("cpu_s", "cpu_os"))))
        for what, ds in (("shards' databases", shards), ("old shards' databases", old_shards)):
            print("%-27s %.1f MB" % (what + ":", sum(os.path.getsize(db(d)) for d in ds) / 1e6))
        print("merge, old merge (s, min / median / max): wall %s, %s; CPU %s, %s" % tuple(
            "%.2f / %.2f / %.2f" % (min(rows[k]), statistics.median(rows[k]), max(rows[k]))
            for k in ("wall_m", "wall_o", "cpu_m", "cpu_o")))
    same = md5(db(whole)) == md5(db(merged))
    print("tables' md5, merge against analyse: %s" % ("same" if same else "DIFFERENT"))
    if a.old:
        same_old = md5(db(old)) == md5(db(merged))
        print("tables' md5, merge against the old merge: %s" % ("same" if same_old else "DIFFERENT"))
        same = same and same_old
    if not same:
        return 1
    return 1 if a.check and statistics.median(ratio("wall_m", "wall_a")) >= 10 else 0


if __name__ == "__main__":
    sys.exit(main())
