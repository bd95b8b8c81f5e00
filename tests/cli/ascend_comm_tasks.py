#!/usr/bin/env python3
"""Communication on the Ascend device timeline against torch_npu's own
analysis.db (SPEC 17), on the real exports in ../shared/real.

For every export level0..2 x rank0..1 with COMMUNICATION_TASK_INFO, the union
of its communication tasks' TASK spans per STEP_TIME step is computed here
with sqlite3 and compared with StepTraceTime.communication (us). Then opmfu
analyzes level1 and OpmfuSteps' communication is checked against the same
sources and StepTraceTime.communication_not_overlapped.

What the exports show (torch_npu's analysis.db, one step, 50, each):

  export   tasks' union   collectives' union   StepTraceTime.communication
  l0 r0     89785053 ns       89880576 ns         89880.576 us
  l0 r1     93910617          93993858            93993.858
  l1 r0    102012460         102108100           102108.100
  l1 r1     98509369          98590190            98590.190
  l2 r0     94027921          94107521            94107.521
  l2 r1    100289184         100357525           100357.525

They do not agree: on these exports (torch_npu with and without
COMMUNICATION_OP.waitNs) StepTraceTime.communication is the union of the
collectives' COMMUNICATION_OP spans to the nanosecond, each span being the
hull of its tasks; the tasks' union is 68-96 us smaller (the gaps between a
collective's tasks). So this script asserts what holds: the collectives'
union equals the oracle, the tasks lie within it.

opmfu's waterfall (analyze/steps.c) unions the communication links too (the
collectives' spans, which OperatorMFU and ModuleMFU need unchanged), so on
level1 its communication is the union of tasks and linked collectives, which
here is the collectives' union: exposed = communication_not_overlapped to
the nanosecond (98071947 ns on rank 0). Were the waterfall to count the task
ranges alone, exposed would be 97994527 ns on rank 0, 77 us below the oracle.

usage: ascend_comm_tasks.py OPMFU SOURCE_ROOT; exit 77 (skip) without ../shared/real.
"""
import glob
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
REAL = os.path.join(SHARED, "real")


def merge(spans):
    """Sorted disjoint intervals covering spans (empty ones dropped)."""
    out = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(ivs, lo=None, hi=None):
    """Their total length, clipped to [lo, hi) when given."""
    tot = 0
    for s, e in ivs:
        if lo is not None:
            s, e = max(s, lo), min(e, hi)
        tot += max(0, e - s)
    return tot


def export(level, rank):
    d = os.path.join(REAL, "level%d" % level, "rank%d_ascend_pt" % rank, "ASCEND_PROFILER_OUTPUT")
    dbs = glob.glob(os.path.join(d, "ascend_pytorch_profiler*.db"))
    oracle = os.path.join(d, "analysis.db")
    return (dbs[0], oracle) if dbs and os.path.isfile(oracle) else (None, None)


def ro(path):
    return sqlite3.connect("file:%s?mode=ro" % path, uri=True)


def sources(db):
    """(steps, task spans, collective spans) of one export; None without communication tasks."""
    con = ro(db)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'COMMUNICATION_TASK_INFO'").fetchone():
            return None
        steps = con.execute("SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs").fetchall()
        tasks = con.execute("SELECT startNs, endNs FROM TASK WHERE globalTaskId IN "
                            "(SELECT globalTaskId FROM COMMUNICATION_TASK_INFO)").fetchall()
        ops = con.execute("SELECT startNs, endNs FROM COMMUNICATION_OP").fetchall()
        return steps, tasks, ops
    finally:
        con.close()


def oracle_rows(path):
    con = ro(path)
    try:
        return {str(r[0]): r[1:] for r in con.execute(
            "SELECT step, communication, communication_not_overlapped, overlapped FROM StepTraceTime")}
    finally:
        con.close()


def main():
    if len(sys.argv) < 2:
        print("usage: ascend_comm_tasks.py OPMFU [SOURCE_ROOT]", file=sys.stderr)
        return 2
    if not os.path.isdir(REAL):
        print("skipped: %s is absent (the real Ascend exports)" % REAL)
        return 77
    fails, checked = [], 0
    level1 = {}
    for level in (0, 1, 2):
        for rank in (0, 1):
            db, oracle = export(level, rank)
            src = db and sources(db)
            if not src:
                continue
            steps, tasks, ops = src
            want = oracle_rows(oracle)
            t_u, o_u = merge(tasks), merge(ops)
            for sid, lo, hi in steps:
                row = want.get(str(sid))
                if row is None:
                    fails.append("level%d rank%d: step %s not in StepTraceTime" % (level, rank, sid))
                    continue
                comm_ns = round(float(row[0]) * 1000)
                tu, ou = length(t_u, lo, hi), length(o_u, lo, hi)
                checked += 1
                print("level%d rank%d step %s: tasks' union %d ns, collectives' union %d ns, "
                      "StepTraceTime.communication %d ns (tasks %+d ns)" % (level, rank, sid, tu, ou, comm_ns,
                                                                             tu - comm_ns))
                if abs(ou - comm_ns) > 1000:
                    fails.append("level%d rank%d step %s: collectives' union %d ns, oracle %d ns"
                                 % (level, rank, sid, ou, comm_ns))
                if tu > ou:
                    fails.append("level%d rank%d step %s: tasks' union %d ns beyond the collectives' %d ns"
                                 % (level, rank, sid, tu, ou))
            if level == 1:
                level1[rank] = (t_u, merge(tasks + ops), want)
    if not checked:
        print("skipped: no real export with COMMUNICATION_TASK_INFO under %s" % REAL)
        return 77

    if level1:
        out = tempfile.mkdtemp(prefix="opmfu-comm-tasks-")
        try:
            run = subprocess.run([sys.argv[1], "analyze", os.path.join(REAL, "level1"), "--chip", "Ascend910B",
                                  "-o", out], capture_output=True, text=True)
            if run.returncode != 0:
                fails.append("opmfu analyze level1 exited %d: %s" % (run.returncode, run.stderr.strip()))
            else:
                con = ro(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
                rows = con.execute("SELECT rank_id, step, start_ns, end_ns, comm_exposed_ns, comm_overlapped_ns "
                                   "FROM OpmfuSteps ORDER BY rank_id, step").fetchall()
                con.close()
                for rank_id, step, lo, hi, exposed, overlapped in rows:
                    if rank_id not in level1:
                        continue
                    t_u, all_u, want = level1[rank_id]
                    row = want.get(str(step))
                    comm = exposed + overlapped
                    both = length(all_u, lo, hi)
                    print("opmfu level1 rank %d step %s: comm %d ns (tasks' union %d, tasks and collectives %d), "
                          "exposed %d ns" % (rank_id, step, comm, length(t_u, lo, hi), both, exposed))
                    if comm != both:
                        fails.append("level1 rank %d step %s: exposed + overlapped %d ns, union %d ns"
                                     % (rank_id, step, comm, both))
                    if row is None:
                        fails.append("level1 rank %d: step %s not in StepTraceTime" % (rank_id, step))
                    elif abs(exposed - float(row[1]) * 1000) > 1000:
                        fails.append("level1 rank %d step %s: comm_exposed_ns %d, communication_not_overlapped "
                                     "%s us" % (rank_id, step, exposed, row[1]))
                if sorted({r[0] for r in rows} & set(level1)) != sorted(level1):
                    fails.append("level1: OpmfuSteps lacks a rank: %s" % sorted({r[0] for r in rows}))
        finally:
            shutil.rmtree(out, ignore_errors=True)
    for f in fails:
        print("FAIL " + f)
    print("ascend_comm_tasks: %d steps, %s" % (checked, "ok" if not fails else "%d failures" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
