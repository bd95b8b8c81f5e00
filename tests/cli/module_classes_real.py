#!/usr/bin/env python3
"""Module classes on the real H100 Qwen trace (SPEC 18, issue 29), derived
from the raw Kineto JSON by this script, not by the code under test.

The script reads the trace's nn.Module events ("nn.Module: Qwen2Attention_13")
and its GPU kernels; a kernel belongs to every module whose host span holds
the cuda_runtime call that launched it (the same correlation id) on the same
thread. A class is the module name without its instance suffix "_N" (every
instance and layer together); its inclusive time is the sum of its kernels'
durations, each kernel once per class. Its GEMM/attention time is that of
kernels whose names say gemm, flash or attention.

Then `opmfu analyze --export db` on the same trace must give:
  - OpmfuModuleClasses.kernel_ns within 1 % of the script's inclusive time,
    for every class holding at least 1 % of the kernel time;
  - Qwen2RMSNorm among the first five module_class rows of OpmfuHotspots
    (ordered by recoverable time);
  - and the script agrees on its own: Qwen2RMSNorm runs no GEMM or attention
    kernel (so none of its time is FLOP time: all of it is recoverable until
    bytes are known), and it is among the five classes with the most kernel
    time outside GEMM and attention kernels.

Exit 77 (skipped) when ../shared/real is absent.
usage: module_classes_real.py OPMFU SOURCE_ROOT"""
import bisect
import collections
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from real_traces import kineto_trace  # noqa: E402

MATMUL = re.compile(r"gemm|flash|attention|fmha", re.I)


def classes_from_json(path):
    with gzip.open(path, "rt") as f:
        ev = json.load(f)["traceEvents"]
    mods = collections.defaultdict(list)  # (pid, tid) -> [(start, end, class)]
    launch = {}                            # correlation -> (pid, tid, ts)
    kernels = []                           # (correlation, dur_ns, name)
    for e in ev:
        cat, name = e.get("cat"), e.get("name", "")
        if cat == "python_function" and name.startswith("nn.Module: "):
            inst = name[len("nn.Module: "):]
            cls = re.sub(r"(?<=.)_[0-9]+$", "", inst)
            mods[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e.get("dur", 0), cls))
        elif cat == "cuda_runtime" and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = (e["pid"], e["tid"], e["ts"])
        elif cat == "kernel":
            kernels.append((e.get("args", {}).get("correlation"), e.get("dur", 0) * 1000.0, name))
    for v in mods.values():
        v.sort()
    incl, mm, total = collections.Counter(), collections.Counter(), 0.0
    for corr, dur, name in kernels:
        total += dur
        if corr not in launch:
            continue
        pid, tid, ts = launch[corr]
        v = mods.get((pid, tid), [])
        starts = [m[0] for m in v]
        seen = set()
        for s, e, cls in v[:bisect.bisect_right(starts, ts)]:
            if s <= ts <= e and cls not in seen:
                seen.add(cls)
                incl[cls] += dur
                if MATMUL.search(name):
                    mm[cls] += dur
    return incl, mm, total


def main():
    opmfu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    trace = kineto_trace(root, "kineto_h100_qwen05b_infer")
    incl, mm, total = classes_from_json(trace)
    fails = []
    with tempfile.TemporaryDirectory(prefix="opmfu-classes-") as tmp:
        tree = os.path.join(tmp, "in")
        os.mkdir(tree)
        os.symlink(trace, os.path.join(tree, os.path.basename(trace)))
        p = subprocess.run([opmfu, "analyze", tree, "-o", os.path.join(tmp, "out"), "-q", "--export", "db"],
                           capture_output=True, text=True, timeout=300)
        if p.returncode:
            print("opmfu exit %d: %s" % (p.returncode, p.stderr))
            return 1
        con = sqlite3.connect(os.path.join(tmp, "out", "cluster_analysis_output", "cluster_analysis.db"))
        got = dict(con.execute('SELECT module_class, kernel_ns FROM "OpmfuModuleClasses"'))
        hot = [r[0] for r in con.execute('SELECT name FROM "OpmfuHotspots" WHERE kind = \'module_class\' '
                                         'ORDER BY rowid')]
        con.close()
    for cls, ns in sorted(incl.items(), key=lambda kv: -kv[1]):
        if ns < 0.01 * total:
            continue
        g = got.get(cls)
        ok = g is not None and abs(g - ns) <= 0.01 * ns
        print("%-22s script %12.0f ns  opmfu %12s  %s" % (cls, ns, g, "ok" if ok else "DIFFERS"))
        if not ok:
            fails.append("%s: OpmfuModuleClasses.kernel_ns %s, the script %.0f" % (cls, g, ns))
    print("opmfu's first five module classes by recoverable time: %s" % ", ".join(hot[:5]))
    if "Qwen2RMSNorm" not in hot[:5]:
        fails.append("Qwen2RMSNorm not in opmfu's first five module classes: %r" % hot[:5])
    if mm["Qwen2RMSNorm"]:
        fails.append("Qwen2RMSNorm runs %.0f ns of GEMM/attention kernels" % mm["Qwen2RMSNorm"])
    outside = sorted(incl, key=lambda c: -(incl[c] - mm[c]))[:5]
    print("the script's first five by kernel time outside GEMM/attention: %s" % ", ".join(outside))
    if "Qwen2RMSNorm" not in outside:
        fails.append("the script does not put Qwen2RMSNorm in its first five: %r" % outside)
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
