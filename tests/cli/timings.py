#!/usr/bin/env python3
"""--timings adds one "time:" line to each rank's block of the --verbose
summary and changes nothing else; --quiet still prints nothing.
usage: timings.py OPMFU SOURCE_ROOT"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[2]
sys.path.insert(0, os.path.join(root, "tools"))
from build_fixture import build_fixture  # noqa: E402

TIME = re.compile(r"^  time: read (\d+\.\d\d) s, kernel MFU (\d+\.\d\d) s, "
                  r"module MFU (\d+\.\d\d) s, writing (\d+\.\d\d) s$")
SECONDS = re.compile(r" in \d+\.\d\d s$")


def run(opmfu, args):
    p = subprocess.run([opmfu, "analyze"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr


def main():
    opmfu = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="opmfu-timings-")
    fails = 0

    def fail(msg):
        nonlocal fails
        print(msg)
        fails += 1

    try:
        tree = os.path.join(tmp, "tree")
        build_fixture(root, "cluster", tree)
        # --timings adds its lines to the per-rank blocks of --verbose
        rc0, plain, _ = run(opmfu, [tree, "-o", os.path.join(tmp, "o1"), "--verbose"])
        rc1, timed, _ = run(opmfu, [tree, "-o", os.path.join(tmp, "o2"), "--verbose", "--timings"])
        if rc0 != 0 or rc1 != 0:
            fail("exit %d / %d" % (rc0, rc1))
        ranks = [i for i, line in enumerate(timed) if re.match(r"^rank -?\d+: ", line)]
        times = [i for i, line in enumerate(timed) if line.startswith("  time:")]
        if len(ranks) != 3 or len(times) != 3:
            fail("%d rank blocks, %d time lines:\n%s" % (len(ranks), len(times), "\n".join(timed)))
        # each time line closes its rank's block
        for k, i in enumerate(times):
            # the last block ends at the blank line before the report
            end = ranks[k + 1] if k + 1 < len(ranks) else next(
                j for j, line in enumerate(timed) if re.match(r"^\d+ ranks?, \d+ analysed", line)) - 1
            if i != end - 1:
                fail("time line %d is not the last of rank block %d" % (i, k))
            m = TIME.match(timed[i])
            if not m:
                fail("malformed: %r" % timed[i])
        rest = [SECONDS.sub("", line.replace("o2", "o1")) for line in timed if not line.startswith("  time:")]
        if rest != [SECONDS.sub("", line) for line in plain]:
            fail("--timings changed the summary:\n%s\n---\n%s" % ("\n".join(plain), "\n".join(timed)))
        rc, out, err = run(opmfu, [tree, "-o", os.path.join(tmp, "o3"), "--timings", "-q"])
        if rc != 0 or out:
            fail("--quiet --timings printed %r" % out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("timings: %s" % ("ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


sys.exit(main())
