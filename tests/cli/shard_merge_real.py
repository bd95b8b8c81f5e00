#!/usr/bin/env python3
"""`opmfu analyze --shard I/N` then `opmfu merge` on the real traces of ../shared/real (SPEC 22):
the Ascend export level2 (2 ranks with collectives, run 'ascend') and the 8-rank Kineto DLRM job (unpacked from
its tar.gz, run kineto-w8-...), for N = 1, 2, 3, 7 (with 2 ranks, N = 3 and 7 have shards of no
rank). Each shard is its own process, in a shuffled order; the merge, its shards given in another
shuffled order, equals one `opmfu analyze` of the same input with the same exports (db, xlsx,
csv, json): every table's md5, the same files, text exports byte for byte, workbooks cell for
cell (shard_merge.py's same_result). DLRM's collectives match calls across ranks of different
shards (OpmfuCollectives, OpmfuStragglers' culprits), which the equality covers.
Skipped (exit 77) without ../shared/real.
usage: shard_merge_real.py OPMFU ROOT"""
import os
import random
import sqlite3
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shard_merge as sm  # noqa: E402


def check(opmfu, root, src, name, work, rng, ranks, colls):
    single = os.path.join(work, name + "_single")
    sm.run([opmfu, "analyze", src, "-o", single, "-q", "-j", "2", "--export", "db,xlsx,csv,json,html"])
    con = sqlite3.connect(sm.dbs(single))
    got = (con.execute("SELECT count(*) FROM OpmfuRankSummary").fetchone()[0],
           con.execute("SELECT count(*) > 0 FROM OpmfuCollectives").fetchone()[0])
    con.close()
    if got != (ranks, colls):
        sm.fail("%s: %d ranks, collectives %d; want %d and %d" % (name, got[0], got[1], ranks, colls))
    for n in (1, 2, 3, 7):
        order = list(range(1, n + 1))
        rng.shuffle(order)
        given = []
        for i in order:
            d = os.path.join(work, "%s_n%d_s%d" % (name, n, i))
            sm.run([opmfu, "analyze", src, "--shard", "%d/%d" % (i, n), "-o", d, "-q", "-j", "1"])
            given.append(d)
        rng.shuffle(given)
        merged = os.path.join(work, "%s_merged%d" % (name, n))
        sm.run([opmfu, "merge"] + given + ["-o", merged, "-q", "--export", "db,xlsx,csv,json,html"])
        sm.same_result(root, single, merged, "%s N=%d" % (name, n))


def main():
    opmfu, root = sys.argv[1:3]
    shared = os.path.normpath(os.path.join(root, "..", "shared", "real"))
    ascend = os.path.join(shared, "level2")
    tgz = os.path.join(shared, "kineto", "kineto_v100_dlrm_8ranks", "dlrm_kineto.tar.gz")
    if not os.path.isdir(ascend) or not os.path.exists(tgz):
        print("SKIP: ../shared/real/level2 or ../shared/real/kineto/kineto_v100_dlrm_8ranks is absent")
        return 77
    rng = random.Random(8)
    with tempfile.TemporaryDirectory(prefix="shard-real-") as work:
        dlrm = os.path.join(work, "dlrm")
        with tarfile.open(tgz) as t:
            for m in t.getmembers():
                if m.name.startswith("/") or ".." in m.name.split("/"):
                    sm.fail("unsafe member %s" % m.name)
                    return 1
            t.extractall(dlrm)
        check(opmfu, root, ascend, "ascend", work, rng, 2, 1)
        check(opmfu, root, dlrm, "dlrm", work, rng, 8, 1)
    return sm.verdict()


if __name__ == "__main__":
    sys.exit(main())
