#!/usr/bin/env python3
"""-j 1, -j 2 and -j 4 on fixtures/cluster_faults give byte-identical tables, the
same exit status (3) and the same cluster view (hand-derived in that README).
usage: jobs_identical.py OPMFU SOURCE_ROOT"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

root = sys.argv[2]
sys.path.insert(0, os.path.join(root, "tools"))
sys.path.insert(0, os.path.join(root, "tests", "bench"))
from table_md5 import result_tables  # noqa: E402
from build_fixture import build_fixture  # noqa: E402

# each good rank has one 1000 ns kernel: its window is 1000 ns, so its trace MFU is its kernel's
# MFU (10, 50, 30, 40 %), all of it compute with FLOPs, the rest "below" peak; rank 3 has no peak
CLUSTER_VIEW = [
    "6 ranks, 5 analysed, 1 failed. Per rank, its median step: step time; trace MFU = FLOPs / (step time x peak);",
    "0               1    1.00 us     10.0%    10.0%   100.0%   0.0%   0.0%    0.0%   90.0%",
    "1               1    1.00 us     50.0%    50.0%   100.0%   0.0%   0.0%    0.0%   50.0%",
    "3               1    1.00 us         -        -   100.0%   0.0%   0.0%    0.0%       -",
    "4               1    1.00 us     30.0%    30.0%   100.0%   0.0%   0.0%    0.0%   70.0%",
    "5               1    1.00 us     40.0%    40.0%   100.0%   0.0%   0.0%    0.0%   60.0%",
]


def dump(db):
    con = sqlite3.connect(db)
    out = []
    views = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    for t in result_tables(con):
        out.append(t)
        out.extend(repr(r) for r in con.execute('SELECT * FROM "%s"%s' % (t, "" if t in views else " ORDER BY rowid")))
    con.close()
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="opmfu-jobs-")
    fails = 0
    try:
        tree = os.path.join(tmp, "tree")
        build_fixture(root, "cluster_faults", tree)
        dumps = {}
        for j in (1, 2, 4):
            out = os.path.join(tmp, "out%d" % j)
            p = subprocess.run([sys.argv[1], "analyze", tree, "-o", out, "-j", str(j)],
                               capture_output=True, text=True, timeout=120)
            if p.returncode != 3:
                print("-j %d: exit %d, expected 3\n%s" % (j, p.returncode, p.stderr))
                fails += 1
            lines = p.stdout.splitlines()
            for want in CLUSTER_VIEW:
                if want not in lines:
                    print("-j %d: missing line %r in stdout:\n%s" % (j, want, p.stdout))
                    fails += 1
            dumps[j] = dump(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
        for j in (2, 4):
            if dumps[j] != dumps[1]:
                print("-j %d tables differ from -j 1" % j)
                fails += 1
        if not any(l.startswith("OperatorMFU") for l in dumps[1]) or len(dumps[1]) < 8:
            print("tables look empty: %r" % dumps[1][:5])
            fails += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("jobs_identical: %s" % ("ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


sys.exit(main())
