#!/usr/bin/env python3
"""gen_kineto's --world and --skew through `opmfu analyze`: three ranks of 64 kernels, every 16th
an all-reduce (kernels 15, 31, 47, 63: calls c = 0..3), the c-th delayed on rank R by
100 * ((37 R + 11 c) mod 101) ns. By hand:

  c = 0: delays 0, 3700, 7400 -> rank 2 last; waits 7400, 3700, 0
  c = 1: 1100, 4800, 8500     -> rank 2; the same waits
  c = 2: 2200, 5900, 9600     -> rank 2; the same waits
  c = 3: 3300, 7000, 600      -> rank 1; waits 3700, 0, 6400

(no wait is clipped: a call lasts 20000 + (k mod 13) * 1517 ns for kernel k: 23034, 27585, 32136,
36687). Group "0" of 3 ranks, 2873320 BFloat16 elements = 5746640 bytes. The culprit
(OpmfuStragglers comm_wait_caused_ns): rank 2, 3 * (7400 + 3700) = 33300 ns over 3 calls; the
median rank's is rank 1's 3700 + 6400 = 10100. Without the options the trace is unchanged (the
kineto_gen test): the world is 8 and the kernels carry no group.

coll_gen.py OPMFU GEN_KINETO"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

WAITS = [(7400, 3700, 0, 2)] * 3 + [(3700, 0, 6400, 1)]
TIMES = [23034, 27585, 32136, 36687]


def main():
    opmfu, gen = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="opmfu-coll-gen-")
    fails = []
    try:
        tree = os.path.join(work, "tree")
        os.makedirs(tree)
        for r in range(3):
            subprocess.run([gen, os.path.join(tree, "rank%d.pt.trace.json" % r), "64", "--rank", str(r),
                            "--world", "3", "--skew", "100"], check=True, stdout=subprocess.DEVNULL)
        out = os.path.join(work, "out")
        p = subprocess.run([opmfu, "analyze", tree, "-o", out, "-q"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("opmfu analyze: exit %d\n%s" % (p.returncode, p.stderr))
        db = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
        rows = db.execute('SELECT call, rank_id, wait_ns, last_rank, ranks_matched, wait_source, "group", '
                          "ranks_in_group, bytes, time_ns, dtype FROM OpmfuCollectives ORDER BY call, rank_id").fetchall()
        want = [(c + 1, r, WAITS[c][r], WAITS[c][3], 3, "ranks", "0", 3, 5746640, TIMES[c], "BFloat16")
                for c in range(4) for r in range(3)]
        if rows != want:
            fails.append("OpmfuCollectives:\n got  %r\n want %r" % (rows, want))
        got = db.execute("SELECT rank_id, value, median FROM OpmfuStragglers "
                         "WHERE measure = 'comm_wait_caused_ns'").fetchall()
        if got != [(2, 33300.0, 10100.0)]:
            fails.append("culprit: got %r, want [(2, 33300.0, 10100.0)]" % (got,))
        db.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in fails:
        print(f)
    print("coll_gen: %s" % ("ok" if not fails else "%d failures" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
