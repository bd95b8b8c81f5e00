#!/usr/bin/env python3
"""--steps on a real trace (SPEC 22, docs/cli.md "Filters"): the H100 Qwen inference trace has one
ProfilerStep (#6) and, before it, work queued before profiling began (the backlog row).

`opmfu analyze --steps 6` must describe step 6 exactly as the full run does, less what the
filter drops:
  - OpmfuOps: the same rows as the full run's rows of step 6, every column (the filter keeps an op
    that starts in the step's host span with all its kernels; every op of step 6 does);
  - the backlog's device work (kernels launched before profiling, no op in the trace) is dropped:
    the full run has a backlog row with device time, the filtered run none;
  - OpmfuSteps: one row, step 6, no backlog row; every column equal to the full run's step row
    except the idle split: the full run knows when the device went idle before the step (the
    backlog's last kernel), the filtered run does not, so the first gap of the step can only be
    "host late" in the full run (docs/cli.md). idle_host_ns + idle_ns is the same, and the
    difference is at most the step's first gap, under 1 us here;
  - an op or kernel count that is not the full run's step-6 count fails.

Exit 77 (skipped) when ../shared/real is absent.
usage: filters_real.py OPMFU SOURCE_ROOT"""
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from real_traces import kineto_trace  # noqa: E402

SHARES = ("share_idle_host", "share_idle_device")


def rows(db, sql):
    con = sqlite3.connect(db)
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    out = [dict(zip(names, r)) for r in cur.fetchall()]
    con.close()
    return out


def main():
    opmfu, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    trace = kineto_trace(root, "kineto_h100_qwen05b_infer")
    fails = []
    with tempfile.TemporaryDirectory(prefix="opmfu-filters-") as tmp:
        dbs = {}
        for name, extra in (("full", []), ("step6", ["--steps", "6"])):
            out = os.path.join(tmp, name)
            p = subprocess.run([opmfu, "analyze", trace, "-o", out, "-q"] + extra, capture_output=True, text=True,
                               timeout=300)
            if p.returncode:
                print("opmfu %s exit %d: %s" % (name, p.returncode, p.stderr))
                return 1
            dbs[name] = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
        # OpmfuOps is a view: its rows come in its row table's order (it has no rowid)
        full_ops = rows(dbs["full"], "SELECT * FROM OpmfuOps WHERE step = 6")
        got_ops = rows(dbs["step6"], "SELECT * FROM OpmfuOps")
        if not full_ops:
            fails.append("the full run has no op of step 6: the check would prove little")
        if got_ops != full_ops:
            fails.append("--steps 6: %d OpmfuOps rows, not the full run's %d rows of step 6" %
                         (len(got_ops), len(full_ops)))
        full_steps = rows(dbs["full"], "SELECT * FROM OpmfuSteps ORDER BY rowid")
        got_steps = rows(dbs["step6"], "SELECT * FROM OpmfuSteps ORDER BY rowid")
        if [r["kind"] for r in full_steps] != ["step", "backlog"]:
            fails.append("the full run's steps are %r, want a step and the backlog" % [r["kind"] for r in full_steps])
        elif not full_steps[1]["matmul_noflops_ns"] + full_steps[1]["other_compute_ns"] > 0:
            fails.append("the full run's backlog has no device work: --steps would drop nothing")
        if len(got_steps) != 1 or got_steps[0]["kind"] != "step" or got_steps[0]["step"] != 6:
            fails.append("--steps 6 wrote the steps %r" % [(r["kind"], r["step"]) for r in got_steps])
        else:
            want, got = full_steps[0], got_steps[0]
            for col in want:
                if col in ("idle_host_ns", "idle_ns") + SHARES:
                    continue
                if want[col] != got[col]:
                    fails.append("OpmfuSteps.%s: %r, the full run's %r" % (col, got[col], want[col]))
            moved = want["idle_host_ns"] - got["idle_host_ns"]
            if want["idle_host_ns"] + want["idle_ns"] != got["idle_host_ns"] + got["idle_ns"]:
                fails.append("idle_host_ns + idle_ns: %d, the full run's %d" % (
                    got["idle_host_ns"] + got["idle_ns"], want["idle_host_ns"] + want["idle_ns"]))
            if not 0 <= moved < 1000 or got["idle_ns"] - want["idle_ns"] != moved:
                fails.append("idle moved from host late to idle: %d ns (want 0 to 999, the step's first gap)" % moved)
    for f in fails:
        print("FAIL: " + f)
    print("%d failed" % len(fails) if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
