#!/usr/bin/env python3
"""NVIDIA's NVTX projection, done here, against opmfu's OpmfuOps (issue 32).

nsys_projection.py OPMFU REPO

The real 2026.2 PyTorch slice (../shared/real/nsys/
nsys_h100x2_wan_t5enc_sp2_infer_2026.2: emit_nvtx texts such as
"aten::view, op_id = 314290", push/pop ranges of domain 0) is projected by
an implementation of its own, sharing no code with opmfu: for each (device,
process) of the file (each a rank, the k-th in (device, process) order rank
k, docs/nsys.md) each kernel goes to its runtime call by correlationId, then to the innermost
PyTorch op range on the calling thread (globalTid) whose [start, end] holds
the call's start. Per op name (the text before ", seq = ", ", op_id = ",
", sizes = ", ", input_op_ids = "): how many kernels and how much kernel
time (end - start) link to it. OpmfuOps of that rank summed per op_name must
be the same, exactly, and so must the kernels in no range (all kernels less the linked
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


def pairs(path):
    """[(device, pid, kernels)] in (device, pid) order: the ranks."""
    con = sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)
    got = con.execute("SELECT deviceId, (globalPid >> 24) & 16777215, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                      "GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    con.close()
    return got


def project(path, dev, pid, n):
    """{op name: [kernels, kernel ns]}, kernels in no op range, of one (device, pid)."""
    con = sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)
    pid_of = "((%s >> 24) & 16777215)"
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
    return per_op, none


def main():
    opmfu, repo = sys.argv[1:3]
    path = os.path.join(repo, "..", "shared", CASE)
    if not os.path.isfile(path):
        print("skipped: %s is absent" % path)
        return 77
    ranks = pairs(path)
    fails = []
    if len(ranks) != 2:
        fails.append("the slice has %d (device, process) pairs, its README says two H100s" % len(ranks))
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([opmfu, "analyze", path, "-o", tmp, "-q", "--chip", "H100-SXM"], capture_output=True,
                           text=True)
        if p.returncode != 0:
            print("exit %d: %s" % (p.returncode, p.stderr.strip()))
            return 1
        con = sqlite3.connect(os.path.join(tmp, "cluster_analysis_output", "cluster_analysis.db"))
        got = {}
        for rank, name, k, ns in con.execute("SELECT rank_id, op_name, sum(kernels), sum(kernel_ns) FROM OpmfuOps "
                                             "GROUP BY rank_id, op_name"):
            got.setdefault(rank, {})[name] = [k, ns]
        notes = dict(con.execute("SELECT rank_id, input_note FROM OpmfuRankSummary"))
        con.close()
    if sorted(notes) != list(range(len(ranks))):
        fails.append("ranks %s, the file has %d (device, process) pairs" % (sorted(notes), len(ranks)))
    for rank, (dev, pid, total) in enumerate(ranks):
        exp, none = project(path, dev, pid, total)
        mine = got.get(rank, {})
        before = len(fails)
        for name in sorted(set(exp) | set(mine)):
            if exp.get(name) != mine.get(name):
                fails.append("rank %d: %s: projection gives %s (kernels, ns), OpmfuOps %s"
                             % (rank, name, exp.get(name), mine.get(name)))
        linked = sum(e[0] for e in exp.values())
        note = notes.get(rank, "")
        want = "%d GPU kernels on device %d" % (total, dev)
        if want not in note or ("%d in an NVTX op range, %d in none" % (linked, none)) not in note:
            fails.append("rank %d: note %r: projection gives %s, %d in an op range, %d in none"
                         % (rank, note, want, linked, none))
        if linked == 0 or len(exp) < 10:
            fails.append("rank %d: the slice projects only %d kernels onto %d op names" % (rank, linked, len(exp)))
        print("rank %d, device %d process %d: %d kernels, %d onto %d op names, %d in none: %s"
              % (rank, dev, pid, total, linked, len(exp), none, "FAILED" if len(fails) > before else "ok"))
    for f in fails:
        print(f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
