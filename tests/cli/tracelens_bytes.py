#!/usr/bin/env python3
"""Bytes per op instance of the real Kineto traces against TraceLens's own
reports of the same traces (issue 29, SPEC 18, docs/roofline.md): opmfu
analyses each trace that comes with `*_perf_report_csvs/`, and every row of
GEMM, SDPA_fwd, BinaryElementwise, UnaryElementwise, Reduce_fwd, Reduce_bwd,
Normalization, CONV_fwd and CONV_bwd must be the `bytes` of at least as many
OpmfuOps rows (of that op) as TraceLens counted calls (`name_count`), within
1 %; and where opmfu has FLOPs (GEMM, SDPA, CONV) its flops / bytes must be
TraceLens's FLOPS/Byte within 1 %. TraceLens's "Data Moved (MB)" is MiB:
bytes / 2^20 (TraceLens's perf model divides by 1024 * 1024).

The differences, each a rule of docs/roofline.md that TraceLens's model does
not follow, are taken out of TraceLens's number before comparing (DIFFS
below, with the reason); the test fails on any other disagreement.
usage: tracelens_bytes.py OPMFU SOURCE_ROOT"""
import ast
import collections
import csv
import glob
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from math import prod

root = sys.argv[2]
KINETO = os.path.normpath(os.path.join(root, "..", "shared", "real", "kineto"))
REPORTS = ("GEMM", "SDPA_fwd", "BinaryElementwise", "UnaryElementwise", "Reduce_fwd", "Reduce_bwd",
           "Normalization", "CONV_fwd", "CONV_bwd")
BPE = {"float": 4, "double": 8, "c10::BFloat16": 2, "c10::Half": 2, "long int": 8, "int": 4,
       "unsigned char": 1, "bool": 1}
# the op instance that launches the kernels, when TraceLens names the op that calls it
INNER = {"aten::layer_norm": "aten::native_layer_norm", "aten::batch_norm": "aten::native_batch_norm",
         "aten::_scaled_dot_product_flash_attention": "aten::_flash_attention_forward",
         "aten::convolution": "aten::miopen_convolution", "aten::_convolution": "aten::miopen_convolution"}

# Each documented difference: (report, predicate, reason). The predicate
# returns opmfu's bytes for the row (derived from TraceLens's own columns by
# docs/roofline.md's rule) or None when the difference does not apply.


def args(r):
    return (ast.literal_eval(r["Input Dims_first"]), ast.literal_eval(r["Input type_first"]),
            ast.literal_eval(r["Concrete Inputs_first"]))


def reduce_out(r):
    """TraceLens writes one output element for every reduction; opmfu writes
    the reduced shape (the dims of Concrete Inputs; none or []: all)."""
    dims, types, conc = args(r)
    x = dims[0]
    red = conc[1].strip() if len(conc) > 1 else ""
    axes = [int(a) for a in red.strip("[]").split(",") if a.strip()] if red.startswith("[") else []
    out = list(x)
    for a in axes or range(len(x)):
        out[a % len(x)] = 1
    return prod(x) * BPE[types[0]] + prod(out) * BPE[types[0]]


def conv_bwd(r):
    """TraceLens counts both passes of convolution_backward in full (dy, w, dx
    for the input grad; dy, x, dw for the weight grad) whatever output_mask
    says; opmfu reads dy once and counts the passes output_mask asks for."""
    dims, types, conc = args(r)
    mask = [m.strip() == "True" for m in conc[10].strip("[]").split(",")] if conc[10] else [True, True, False]
    dy, x, w = (prod(d) for d in dims[:3])
    b = dy + (x + w if mask[1] else 0) + (w + x if mask[0] else 0)
    return b * BPE[types[0]]


def layer_norm(r):
    """TraceLens counts x, y and six per-channel vectors; opmfu counts x read,
    weight and bias read, y written and native_layer_norm's fp32 mean and rstd
    per row written."""
    dims, types, _ = args(r)
    e = BPE[types[0]]
    n, c = prod(dims[0]), prod(dims[2]) if dims[2] else 1
    return 2 * n * e + sum(prod(d) * e for d in dims[2:4] if d) + 2 * (n // c) * 4


DIFFS = [
    (("Reduce_fwd", "Reduce_bwd"), reduce_out, reduce_out.__doc__),
    (("CONV_bwd",), conv_bwd, conv_bwd.__doc__),
    (("Normalization",), lambda r: layer_norm(r) if r["name"].endswith("layer_norm") else None, layer_norm.__doc__),
]
# TraceLens rows whose op runs no compute kernel in the trace: the parameter
# copies of the ResNet run are hipMemcpy DtoD (memcpy time, SPEC 17), so
# OpmfuOps has no row to give them bytes.
NO_KERNEL = {("kineto_mi300x_resnet_ckpt_train", "aten::copy_")}
# FLOPS/Byte: opmfu has FLOPs only for matmul, attention and convolution
# (SPEC 9), so intensity is compared on GEMM, SDPA_fwd, CONV rows only;
# TraceLens adds the bias term M*N to addmm's FLOPs (docs/flops.md).
FB_REPORTS = ("GEMM", "SDPA_fwd", "CONV_fwd", "CONV_bwd")


def expected(path):
    kind = os.path.basename(path)[:-4]
    for r in csv.DictReader(open(path, encoding="utf-8")):
        tl = float(r["Data Moved (MB)_first"]) * 2 ** 20
        want, why = tl, None
        for kinds, fn, doc in DIFFS:
            if kind in kinds:
                v = fn(r)
                if v is not None:
                    want, why = v, " ".join(doc.split())
        fb = None
        if kind in FB_REPORTS and r.get("FLOPS/Byte_first"):
            flops = float(r["GFLOPS_first"]) * 1e9
            if kind == "GEMM" and r["name"] == "aten::addmm":
                dims = args(r)[0]
                flops -= dims[1][0] * dims[2][1]
            if kind == "CONV_bwd":
                conc = args(r)[2]
                mask = conc[10].strip("[]").split(",")[:2] if conc[10] else ["True", "True"]
                flops = flops * [m.strip() for m in mask].count("True") / 2
            fb = flops / want
        yield kind, r, int(r.get("name_count") or 1), tl, want, fb, why


def main():
    opmfu = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="opmfu-tracelens-bytes-")
    fails = checked = fb_checked = 0
    worst = worst_fb = 0.0
    diffs_used = collections.Counter()
    try:
        for reports in sorted(glob.glob(os.path.join(KINETO, "*", "*_perf_report_csvs"))):
            name = os.path.basename(os.path.dirname(reports))
            trace = glob.glob(os.path.join(os.path.dirname(reports), "*.json.gz"))[0]
            out = os.path.join(tmp, name)
            p = subprocess.run([opmfu, "analyze", trace, "-o", out, "-q"], capture_output=True, text=True)
            if p.returncode:
                print("%s: exit %d: %s" % (trace, p.returncode, p.stderr))
                fails += 1
                continue
            con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
            cols = [c[1] for c in con.execute("PRAGMA table_info(OpmfuOps)")]
            if "bytes" not in cols:
                print("OpmfuOps has no bytes column yet (it comes with the roofline columns): skipped")
                return 77
            have = collections.defaultdict(list)
            for op, b, f in con.execute("SELECT op_name, bytes, flops FROM OpmfuOps WHERE bytes IS NOT NULL"):
                have[op].append((b, f))
            con.close()
            # TraceLens lists an op and the op it calls (layer_norm, native_layer_norm) as two rows of
            # the same calls: they are one op instance in opmfu, so such pairs count once
            want = collections.OrderedDict()
            seen = set()
            for path in sorted(glob.glob(os.path.join(reports, "*.csv"))):
                if os.path.basename(path)[:-4] not in REPORTS:
                    continue
                for kind, r, calls, tl, b, fb, why in expected(path):
                    # the same calls listed in two reports (Reduce_fwd and Reduce_bwd: a recomputed
                    # forward op): one UID
                    if r.get("UID_first") in seen:
                        continue
                    seen.add(r.get("UID_first"))
                    if (name, r["name"]) in NO_KERNEL:
                        diffs_used["no compute kernel (memcpy): " + r["name"]] += calls
                        continue
                    op = INNER.get(r["name"], r["name"])
                    if why:
                        diffs_used[why] += calls
                    w = want.setdefault((op, round(b)), [kind, r["Input Dims_first"], r["Input type_first"],
                                                         [0, 0], tl, b, fb])
                    w[3][op != r["name"]] += calls
            for (op, _), (kind, dims, types, calls2, tl, b, fb) in want.items():
                calls = max(calls2)
                checked += 1
                near = [(hb, hf) for hb, hf in have.get(op, []) if abs(hb - b) <= 0.01 * b]
                if len(near) < calls:
                    print("%s: %s %s %s %s: TraceLens %.0f bytes (opmfu's rule: %.0f), %d calls; opmfu has %d "
                          "rows within 1 %% (its %s: %s)" % (
                              name, kind, op, dims, types, tl, b, calls, len(near), op,
                              sorted(collections.Counter(h for h, _ in have.get(op, [])).items())[:8]))
                    fails += 1
                    continue
                worst = max(worst, sorted(abs(hb - b) / b for hb, _ in near)[calls - 1])
                if fb is not None:
                    fb_checked += 1
                    errs = sorted(abs(hf / hb - fb) / fb for hb, hf in near if hf)
                    if len(errs) >= calls:
                        worst_fb = max(worst_fb, errs[calls - 1])
                    bad = [(hb, hf) for hb, hf in near if not hf or abs(hf / hb - fb) > 0.01 * fb]
                    if len(near) - len(bad) < calls:
                        print("%s: %s %s %s: FLOPS/Byte %.4g (TraceLens's, differences out), opmfu %s" % (
                            name, kind, op, dims, fb, sorted(set(hf / hb if hf else None for hb, hf in bad))[:4]))
                        fails += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not checked:
        print("no TraceLens report found under %s" % KINETO)
        fails += 1
    for why, n in sorted(diffs_used.items()):
        print("documented difference (%d calls): %s" % (n, why))
    print("tracelens_bytes: %d rows checked (%d of them for FLOPS/Byte too; worst relative difference: bytes "
          "%.3g %%, FLOPS/Byte %.3g %%), %s" % (checked, fb_checked, 100 * worst, 100 * worst_fb,
                                             "ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


sys.exit(main())
