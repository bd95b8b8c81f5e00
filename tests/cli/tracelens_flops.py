#!/usr/bin/env python3
"""FLOPs per op of the real Kineto traces against TraceLens's own reports of the
same traces (issue 22, SPEC 9): opmfu analyses each trace that comes with
`*_perf_report_csvs/`, and every row of GEMM.csv, SDPA_fwd.csv, CONV_fwd.csv and
CONV_bwd.csv must be the FLOPs of at least as many OpmfuOps rows as TraceLens
counted calls (`name_count`), after the two documented differences
(docs/flops.md): TraceLens adds the bias term M*N to addmm (opmfu does not), and
counts both passes of a convolution_backward whose output_mask computes only one
(the weight gradient of the first convolution: opmfu counts the passes that run).
GFLOPS_first is printed exactly in these files (FLOPs / 1e9).
usage: tracelens_flops.py OPMFU SOURCE_ROOT"""
import collections
import csv
import glob
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

root = sys.argv[2]
KINETO = os.path.normpath(os.path.join(root, "..", "shared", "real", "kineto"))


def expected(path):
    """(FLOPs, calls, what) per row of one report, with the documented differences taken out."""
    kind = os.path.basename(path)[:-4]
    for r in csv.DictReader(open(path, encoding="utf-8")):
        flops = round(float(r["GFLOPS_first"]) * 1e9)
        if kind == "GEMM" and r["name"] == "aten::addmm" and r.get("param: bias") == "True":
            flops -= int(r["param: M"]) * int(r["param: N"])
        if kind == "CONV_bwd":
            mask = r["Concrete Inputs_first"].rsplit("'", 2)[-2] if "'[" in r["Concrete Inputs_first"] else ""
            passes = mask.replace(" ", "").strip("[]").split(",")[:2].count("True") if mask else 2
            flops = flops * passes // 2
        yield flops, int(r.get("name_count") or 1), "%s %s" % (kind, r["name"])


def main():
    opmfu = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="opmfu-tracelens-")
    fails = checked = 0
    try:
        for reports in sorted(glob.glob(os.path.join(KINETO, "*", "*_perf_report_csvs"))):
            trace = glob.glob(os.path.join(os.path.dirname(reports), "*.json.gz"))[0]
            out = os.path.join(tmp, os.path.basename(os.path.dirname(reports)))
            p = subprocess.run([opmfu, "analyze", trace, "-o", out, "-q"], capture_output=True, text=True)
            if p.returncode:
                print("%s: exit %d: %s" % (trace, p.returncode, p.stderr))
                fails += 1
                continue
            con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
            have = collections.Counter(f for (f,) in con.execute(
                "SELECT flops FROM OpmfuOps WHERE flops_source = 'shape'"))
            con.close()
            want = collections.Counter()
            what = {}
            for name in ("GEMM", "SDPA_fwd", "CONV_fwd", "CONV_bwd"):
                path = os.path.join(reports, name + ".csv")
                if os.path.exists(path):
                    for flops, calls, w in expected(path):
                        want[flops] += calls
                        what[flops] = w
            for flops, calls in sorted(want.items()):
                checked += 1
                if have[flops] < calls:
                    print("%s: %s %d FLOPs: %d ops, TraceLens counts %d" % (
                        os.path.basename(reports), what[flops], flops, have[flops], calls))
                    fails += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not checked:
        print("no TraceLens report found under %s" % KINETO)
        fails += 1
    print("tracelens_flops: %d FLOPs values checked, %s" % (checked, "ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


sys.exit(main())
