#!/usr/bin/env python3
"""A generated 1,000-rank Ascend cluster (gen_synth, 20 kernels per rank) cut into 4 shards, each
analysed by its own process (two at a time, as two array tasks on one node would), merged, and
compared with one `opmfu analyze` of the cluster: every table's md5 (tests/bench/table_md5.py).
Also checked: the shards hold 250 ranks each in rank order (ranks 0-249, 250-499, ...), and the
merge's OpmfuRun says 1,000 ranks. Times are printed (docs/scale.md has the measured ones), not
asserted: the machine is shared.
usage: shard_merge_1000.py OPMFU GEN_SYNTH ROOT"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shard_merge as sm  # noqa: E402


def main():
    opmfu, gen, root = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="shard-1000-") as work:
        base = os.path.join(work, "c")
        sm.run([gen, "-o", base, "-r", "1000", "-n", "20", "-l", "1", "-q"])
        t = time.time()
        single = os.path.join(work, "single")
        sm.run([opmfu, "analyze", base, "-o", single, "-q", "-j", "2"])
        t_single = time.time() - t
        t = time.time()
        procs = []
        for i in range(1, 5):
            d = os.path.join(work, "s%d" % i)
            procs.append((i, d, subprocess.Popen([opmfu, "analyze", base, "--shard", "%d/4" % i, "-o", d, "-q",
                                                  "-j", "1"], stderr=subprocess.PIPE, stdout=subprocess.PIPE)))
            if len(procs) % 2 == 0:
                for _, _, p in procs[-2:]:
                    p.communicate()
        for i, d, p in procs:
            if p.returncode != 0:
                sm.fail("shard %d exited %d" % (i, p.returncode))
            got = [r[5] for r in sm.shard_rows(d)]
            if got != list(range((i - 1) * 250, i * 250)):
                sm.fail("shard %d holds ranks %d-%d (%d)" % (i, got[0], got[-1], len(got)))
        t_shards = time.time() - t
        t = time.time()
        merged = os.path.join(work, "merged")
        sm.run([opmfu, "merge"] + [d for _, d, _ in procs] + ["-o", merged, "-q"])
        t_merge = time.time() - t
        if sm.md5s(root, single) != sm.md5s(root, merged):
            sm.fail("the merge differs from the single run")
        con = sqlite3.connect(sm.dbs(merged))
        if con.execute("SELECT ranks FROM OpmfuRun").fetchone()[0] != 1000:
            sm.fail("OpmfuRun.ranks is not 1000")
        con.close()
        print("single run (-j 2) %.2f s, 4 shards (2 at a time) %.2f s, merge %.2f s" % (t_single, t_shards,
                                                                                      t_merge))
    return sm.verdict()


if __name__ == "__main__":
    sys.exit(main())
