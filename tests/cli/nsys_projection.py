#!/usr/bin/env python3
"""NVIDIA's NVTX projection, done here, against opmfu's OpmfuOps (issue 32).

nsys_projection.py OPMFU REPO

The real 2026.2 PyTorch slice (../shared/real/nsys/
nsys_h100x2_wan_t5enc_sp2_infer_2026.2: emit_nvtx texts such as
"aten::view, op_id = 314290", push/pop ranges of domain 0) is projected by
an implementation of its own, sharing no code with opmfu: for the (device,
process) opmfu reads (the pair with the most kernels, docs/nsys.md) each
kernel goes to its runtime call by correlationId, then to the innermost
PyTorch op range on the calling thread (globalTid) whose [start, end] holds
the call's start. Per op name (the text before ", seq = ", ", op_id = ",
", sizes = ", ", input_op_ids = "): how many kernels and how much kernel
time (end - start) link to it. OpmfuOps summed per op_name must be the same,
exactly, and so must the kernels in no range (all kernels less the linked
ones). No documented difference applies to this export, and the script
asserts why: no communication kernel (OpmfuOps counts compute kernels only),
no two kernels of one op call with the same span (OpmfuOps counts a span
once), no launch on a range's boundary, no two ranges on a thread with the
same span, no range that is not an op. Exit 77 (skipped) without ../shared.
"""
import bisect
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

CASE = "real/nsys/nsys_h100x2_wan_t5enc_sp2_infer_2026.2/h100_2gpu_1s.sqlite"
MARKERS = (", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = ")
COMM = re.compile(r"^(nccl|rccl)", re.I)


def op_name(text):
    cut = len(text)
    for m in MARKERS:
        i = text.find(m)
        if i >= 0:
            cut = min(cut, i)
    return text[:cut]


def is_op(text):
    return any(m in text for m in MARKERS) or "::" in op_name(text)


def project(path):
    """{op name: [kernels, kernel ns]}, kernels in no op range, (device, pid)."""
    con = sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)
    pid_of = "((%s >> 24) & 16777215)"
    dev, pid, n = con.execute("SELECT deviceId, %s, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1, 2 "
                              "ORDER BY 3 DESC, 1, 2" % (pid_of % "globalPid")).fetchone()
    kernels = con.execute("SELECT k.correlationId, k.start, k.\"end\", s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                          "JOIN StringIds s ON s.id = k.demangledName WHERE k.deviceId = ? AND %s = ?"
                          % (pid_of % "k.globalPid"), (dev, pid)).fetchall()
    assert len(kernels) == n
    calls = {}
    for corr, start, gtid in con.execute("SELECT correlationId, start, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                         "WHERE correlationId IS NOT NULL AND %s = ?" % (pid_of % "globalTid"),
                                         (pid,)):
        assert corr not in calls, "correlationId %d has two runtime calls" % corr
        calls[corr] = (start, gtid)
    ranges = {}  # globalTid -> [(start, end, name)]
    rows = con.execute("SELECT n.start, n.\"end\", n.globalTid, COALESCE(n.text, s.value), n.eventType, n.domainId "
                       "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId WHERE %s = ?"
                       % (pid_of % "n.globalTid"), (pid,)).fetchall()
    con.close()
    for start, end, gtid, text, ev, dom in rows:
        assert ev == 59 and dom == 0 and end is not None and text and is_op(text), (start, text, ev, dom)
        ranges.setdefault(gtid, []).append((start, end, op_name(text)))
    starts = {}
    for g, rs in ranges.items():
        rs.sort()
        assert len(set((a, b) for a, b, _ in rs)) == len(rs), "two ranges with one span on thread %d" % g
        starts[g] = [a for a, _, _ in rs]
    per_op, none, spans = {}, 0, set()
    for corr, kstart, kend, kname in kernels:
        assert not COMM.match(kname), "a communication kernel: %s" % kname
        best = None
        if corr in calls:
            t, g = calls[corr]
            rs = ranges.get(g, [])
            # ranges starting at or before t, the innermost (latest start,
            # then shortest) of those whose end is at or after t
            for i in range(bisect.bisect_right(starts.get(g, []), t) - 1, -1, -1):
                a, b, nm = rs[i]
                assert t != a and t != b, "launch at %d on a range boundary" % t
                if b >= t and (best is None or (a, -b) > (best[0], -best[1])):
                    best = (a, b, nm)
        if best is None:
            none += 1
            continue
        key = (calls[corr][1], best[0], best[1], kstart, kend)  # (thread, op call, kernel span)
        assert key not in spans, "two kernels of one op call share a span"
        spans.add(key)
        e = per_op.setdefault(best[2], [0, 0])
        e[0] += 1
        e[1] += kend - kstart
    return per_op, none, (dev, pid), len(kernels)


def main():
    opmfu, repo = sys.argv[1:3]
    path = os.path.join(repo, "..", "shared", CASE)
    if not os.path.isfile(path):
        print("skipped: %s is absent" % path)
        return 77
    exp, none, (dev, pid), total = project(path)
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([opmfu, "analyze", path, "-o", tmp, "-q", "--chip", "H100-SXM"], capture_output=True,
                           text=True)
        if p.returncode != 0:
            print("exit %d: %s" % (p.returncode, p.stderr.strip()))
            return 1
        con = sqlite3.connect(os.path.join(tmp, "cluster_analysis_output", "cluster_analysis.db"))
        got = {r[0]: [r[1], r[2]] for r in con.execute("SELECT op_name, sum(kernels), sum(kernel_ns) FROM OpmfuOps "
                                                        "GROUP BY op_name")}
        note = con.execute("SELECT input_note FROM OpmfuRankSummary").fetchone()[0]
        con.close()
    fails = []
    for name in sorted(set(exp) | set(got)):
        if exp.get(name) != got.get(name):
            fails.append("%s: projection gives %s (kernels, ns), OpmfuOps %s" % (name, exp.get(name), got.get(name)))
    linked = sum(e[0] for e in exp.values())
    want = "%d GPU kernels on device %d" % (total, dev)
    if want not in note or ("%d in an NVTX op range, %d in none" % (linked, none)) not in note:
        fails.append("note %r: projection gives %s, %d in an op range, %d in none" % (note, want, linked, none))
    if linked == 0 or len(exp) < 10:
        fails.append("the slice projects only %d kernels onto %d op names" % (linked, len(exp)))
    for f in fails:
        print(f)
    print("device %d process %d: %d kernels, %d onto %d op names, %d in none: %s"
          % (dev, pid, total, linked, len(exp), none, "FAILED" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
