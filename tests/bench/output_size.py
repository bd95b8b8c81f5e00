#!/usr/bin/env python3
"""The size of the result database per 10^6 kernels (SPEC 24: at most 100 MB), and what each
table takes. Python standard library only; the per-table sizes need the sqlite3 shell (its
dbstat table).

output_size.py --opmfu OPMFU --gen GEN_SYNTH [--kernels 1e6] [--work DIR] [--check]

Generates one Ascend rank of --kernels compute kernels with gen_synth (kept under --work and
reused), runs `opmfu analyze DIR -o OUT -q` once (the size does not depend on the host's speed),
and prints the database's size, its size per 10^6 kernels, and each table's pages. --check makes
a size over the target the exit status.
"""
import argparse
import os
import shutil
import subprocess
import sys

TARGET_MB = 100.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opmfu", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--kernels", default="1e6")
    ap.add_argument("--work", default="/tmp/opmfu-output-size")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    n = int(float(args.kernels))
    data = os.path.join(args.work, "rank%d" % n)
    if not os.path.isdir(data):
        subprocess.run([args.gen, "-o", data, "-r", "1", "-n", str(n), "-q"], check=True)
    out = os.path.join(args.work, "out")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([args.opmfu, "analyze", data, "-o", out, "-q"], check=True)
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    size = os.path.getsize(db)
    per = size / 1e6 * 1e6 / n
    print("%d kernels: result database %.1f MB, %.1f MB per 10^6 kernels (target %.0f)"
          % (n, size / 1e6, per, TARGET_MB))
    shell = shutil.which("sqlite3")
    if shell:
        p = subprocess.run([shell, "-readonly", db, "SELECT name, sum(pgsize) FROM dbstat GROUP BY name "
                            "ORDER BY 2 DESC"], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            name, b = line.rsplit("|", 1)
            if int(b) >= 1e6:
                print("  %-20s %7.1f MB" % (name, int(b) / 1e6))
    ok = per <= TARGET_MB
    print("%s result database per 10^6 kernels %.1f MB (target %.0f)" % ("PASS" if ok else "MISS", per, TARGET_MB))
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
