#!/usr/bin/env python3
"""The Kineto reader's benchmark (docs/performance.md). Python standard library only.

kineto_bench.py --opmfu OPMFU --gen GEN_KINETO [--work DIR] [--bytes 2e8] [--pairs 5] [--check]

Writes a synthetic Kineto trace of about --bytes of JSON text with gen_kineto, gzip'd (once:
it is kept under --work and reused while the generator and the size are unchanged), then runs
`gzip -dc FILE > /dev/null` and `opmfu analyze FILE -o OUT -q` in alternating pairs (the order
swapped every pair, so a drifting host favours neither) and prints, per pair and as min, median
and max, the wall times and their ratio, and opmfu's peak RSS (/usr/bin/time -f %M, the largest
of the runs) per kernel event of the trace. The targets (SPEC 24): the median ratio is at most
1.5 and the RSS at most 400 bytes per kernel event. --check makes a miss the exit status.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import file_hash  # noqa: E402  (the same input cache key as bench.py)

TARGET = 1.5          # opmfu analyze / gzip -dc, median of the pairs
TARGET_RSS = 400      # bytes of peak RSS per kernel event


def kernels_in(line):
    """The GPU kernels (compute + communication) of gen_kineto's summary line."""
    m = re.match(r"(\d+) GPU kernels?: .*?; (\d+) communication kernel", line)
    if not m:
        sys.exit("gen_kineto said: %r" % line)
    return int(m.group(1)) + int(m.group(2))


def trace(args):
    """(path, kernel events, text bytes) of the trace, generated unless kept."""
    os.makedirs(args.work, exist_ok=True)
    # bytes of text per kernel, from a small sample of the same generator
    sample = os.path.join(args.work, "sample.json")
    subprocess.run([args.gen, sample, "10000"], check=True, stdout=subprocess.DEVNULL)
    per_kernel = os.path.getsize(sample) / 10000
    os.remove(sample)
    n = int(args.bytes / per_kernel)
    path = os.path.join(args.work, "bench_%d.pt.trace.json.gz" % n)
    stamp = path + ".stamp"
    want = "gen_kineto %s %d\n" % (file_hash(args.gen), n)
    if os.path.exists(stamp) and os.path.exists(path):
        with open(stamp) as f:
            got = f.read()
        if got.startswith(want):
            return path, kernels_in(got[len(want):]), int(n * per_kernel)
    print("generating %d kernels (about %.2f GB of text) in %s ..." % (n, n * per_kernel / 1e9, path),
          file=sys.stderr, flush=True)
    t = time.perf_counter()
    out = subprocess.run([args.gen, path, str(n)], check=True, capture_output=True, text=True).stdout
    with open(stamp, "w") as f:
        f.write(want + out)
    print("  %.1f s" % (time.perf_counter() - t), file=sys.stderr, flush=True)
    return path, kernels_in(out), int(n * per_kernel)


def timed(cmd, stdout):
    """(wall seconds, peak RSS KiB) of cmd, through /usr/bin/time -f %M."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-o", rss.name, "-f", "%M"] + cmd, stdout=stdout,
                           stderr=subprocess.PIPE)
        wall = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit("failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr.decode()))
        return wall, int(rss.read().split()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--gen", required=True, help="tests/gen_kineto")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "opmfu-kineto-bench"))
    ap.add_argument("--bytes", type=float, default=2e8, help="JSON text of the trace (default 2e8)")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("/usr/bin/time is needed for the peak RSS")

    path, kernels, text = trace(args)
    out = os.path.join(args.work, "out")
    gz_times, op_times, ratios, rss = [], [], [], 0
    with open(path, "rb") as f:  # into the page cache
        while f.read(1 << 24):
            pass
    print("trace: %s: %d kernel events, %.2f GB of text, %.1f MB gzip'd" %
          (path, kernels, text / 1e9, os.path.getsize(path) / 1e6))
    print("pair  gzip -dc (s)  opmfu analyze (s)  ratio  peak RSS (MiB)")
    for i in range(args.pairs):
        runs = {}
        order = ["gzip", "opmfu"] if i % 2 == 0 else ["opmfu", "gzip"]
        for which in order:
            if which == "gzip":
                with open(os.devnull, "wb") as null:
                    runs[which] = timed(["gzip", "-dc", path], null)
            else:
                shutil.rmtree(out, ignore_errors=True)
                runs[which] = timed([args.opmfu, "analyze", path, "-o", out, "-q"], subprocess.DEVNULL)
        g, (o, r) = runs["gzip"][0], runs["opmfu"]
        gz_times.append(g)
        op_times.append(o)
        ratios.append(o / g)
        rss = max(rss, r)
        print("%4d  %12.2f  %17.2f  %5.2f  %14.1f" % (i + 1, g, o, o / g, r / 1024))
    ratio = statistics.median(ratios)
    per_event = rss * 1024 / kernels
    for name, v in (("gzip -dc (s)", gz_times), ("opmfu analyze (s)", op_times), ("ratio", ratios)):
        print("%-18s min %.2f  median %.2f  max %.2f" % (name, min(v), statistics.median(v), max(v)))
    print("time: median ratio %.2f (%.2f-%.2f), target <= %.1f: %s" %
          (ratio, min(ratios), max(ratios), TARGET, "PASS" if ratio <= TARGET else "MISS"))
    print("memory: peak RSS %.1f MiB = %.0f bytes per kernel event, target <= %d: %s" %
          (rss / 1024, per_event, TARGET_RSS, "PASS" if per_event <= TARGET_RSS else "MISS"))
    shutil.rmtree(out, ignore_errors=True)
    return 1 if args.check and (ratio > TARGET or per_event > TARGET_RSS) else 0


if __name__ == "__main__":
    sys.exit(main())
