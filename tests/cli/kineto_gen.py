#!/usr/bin/env python3
"""gen_kineto's traces through `opmfu analyze`: the summary's `input:` line of each rank is
what the generator counted while writing (it knows, by construction, which kernels it linked by
External id, which by correlation only, whose launch it left out, which are NCCL kernels, the
nn.Module calls and the steps). New- and old-style links, plain and gzip'd, small and of 12,000
kernels (the reader's records past its 256 KiB line), one rank and a cluster of three ranks named
by distributedInfo.

kineto_gen.py OPMFU GEN_KINETO"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    opmfu, gen = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="opmfu-kineto-gen-")
    fails = 0
    try:
        cases = [("new.json", ["500"]), ("new_orphans.json.gz", ["300", "--orphans", "5"]),
                 ("old.pt.trace.json", ["500", "--old", "--orphans", "7"]),
                 # past the reader's line (256 KiB an array) where its records move to pages of their own
                 ("large.json.gz", ["12000", "--orphans", "9"]), ("old_large.json", ["12000", "--old"])]
        for name, opts in cases:
            path = os.path.join(work, name)
            want = subprocess.run([gen, path] + opts, check=True, capture_output=True, text=True).stdout
            got = subprocess.run([opmfu, "analyze", path, "-o", os.path.join(work, "out"), "--verbose"],
                                 capture_output=True, text=True)
            lines = re.findall(r"^  input: (.*)$", got.stdout, re.M)
            if got.returncode != 0 or lines != [want.rstrip("\n")]:
                print("%s: expected input line %r, got exit %d and %r" % (name, want, got.returncode, lines))
                fails += 1
        # a cluster: rank i in distributedInfo, ranks in rank order whatever the names
        cluster = os.path.join(work, "cluster")
        os.makedirs(cluster)
        wants = {}
        for rank, name in [(2, "a.json.gz"), (0, "b.json"), (1, "c.json")]:
            wants[rank] = subprocess.run([gen, os.path.join(cluster, name), str(100 + rank), "--rank", str(rank)],
                                         check=True, capture_output=True, text=True).stdout.rstrip("\n")
        got = subprocess.run([opmfu, "analyze", cluster, "-o", os.path.join(work, "out"), "--verbose"],
                             capture_output=True, text=True)
        ranks = re.findall(r"^rank (-?\d+): .*\n  input: (.*)$", got.stdout, re.M)
        if got.returncode != 0 or ranks != [(str(r), wants[r]) for r in (0, 1, 2)]:
            print("cluster: got exit %d and %r\nexpected %r" % (got.returncode, ranks, wants))
            fails += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("kineto_gen: %s" % ("ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
