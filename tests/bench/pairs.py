#!/usr/bin/env python3
"""Alternating pairs of runs of two opmfu binaries on one input (docs/performance.md).

pairs.py OLD NEW DATA N [analyze options...]: N pairs, old and new in turn (the order
swapped every pair, so a drifting host favours neither); prints each pair and the median of
the new/old wall-time ratios. Each run writes a fresh output folder."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(binary, data, out, extra):
    """(wall seconds, peak RSS KiB) of one `opmfu analyze` into a fresh out."""
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    p = subprocess.Popen([binary, "analyze", data, "-o", out, "-q"] + extra)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed on %s" % (binary, data))
    return wall, ru.ru_maxrss


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    old, new, data, n, extra = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
    work = tempfile.mkdtemp(prefix="opmfu-pairs-")
    ratios, olds, news = [], [], []
    try:
        for i in range(n):
            if i % 2 == 0:
                a = run(old, data, os.path.join(work, "old"), extra)
                b = run(new, data, os.path.join(work, "new"), extra)
            else:
                b = run(new, data, os.path.join(work, "new"), extra)
                a = run(old, data, os.path.join(work, "old"), extra)
            ratios.append(b[0] / a[0])
            olds.append(a[0])
            news.append(b[0])
            print("pair %d: old %.3f s new %.3f s ratio %.3f  (peak RSS old %d MB new %d MB)" %
                  (i, a[0], b[0], b[0] / a[0], a[1] // 1024, b[1] // 1024), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("median ratio new/old %.3f over %d pairs (old median %.3f s, new median %.3f s)" %
          (statistics.median(ratios), n, statistics.median(olds), statistics.median(news)))


if __name__ == "__main__":
    main()
