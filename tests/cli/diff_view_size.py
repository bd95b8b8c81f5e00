#!/usr/bin/env python3
"""`opmfu diff`'s view fits one screen whatever the runs (issue 23): at most 40
lines of at most 120 columns. usage: diff_view_size.py OPMFU SOURCE_ROOT

Two opmfu result databases are written here with Python's sqlite3 (only the
columns diff reads: fixtures/diff_model/result_tables.sql), large where the view could grow: 1,000 ranks on each side
(800 compared, a scattered 200 on each side only, 150 failed), 300 module paths of
up to 400 characters and 300 op names that all changed, every model
convention, and result paths of 300 characters; and since SPEC 19 the steps'
waiting (comm_wait_ns, with the columns before it) and 300 collectives that all
changed (OpmfuCollectives). The view must keep its shape: the step part with the
waiting line, exactly ten changes of which three collectives, four conventions,
the one-side and failed ranks; and the same run with few rows must be no longer
than the large one.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])


def result_db(path, side, n_ranks, n_names):
    con = sqlite3.connect(path)
    with open(os.path.join(ROOT, "fixtures", "diff_model", "result_tables.sql"), encoding="utf-8") as f:
        con.executescript(f.read())
    # SPEC 17-19's step columns (read as a prefix: kind first, comm_wait_ns last) and the collectives
    for col in ("kind TEXT", "matmul_noflops_ns INTEGER", "memcpy_ns INTEGER", "idle_host_ns INTEGER",
                "memory_bound_ns INTEGER", "comm_wait_ns INTEGER"):
        con.execute("ALTER TABLE OpmfuSteps ADD COLUMN " + col)
    con.execute('CREATE TABLE OpmfuCollectives (rank_id INTEGER, name TEXT, op_name TEXT, "group" TEXT, '
                'time_ns INTEGER, exposed_ns INTEGER)')
    # ranks 0..n-1 shifted by side for every fifth one, so both sides have ranks the other lacks
    ranks = [r if r % 5 else r + 100000 * side for r in range(n_ranks)]
    for i, r in enumerate(ranks):
        status = "failed" if i % 7 == 3 else "ok"
        con.execute("INSERT INTO OpmfuRankSummary VALUES (?, ?, 1000, 10, 0, 0.5)", (r, status))
        for k in range(n_names):
            path = "/".join(["Layer%d" % k] * (1 + k % 40))[:400]
            lost = 100 + k * (side + 1)
            con.execute("INSERT INTO OpmfuModules VALUES (?, ?, 1000, 10, 0.5, ?)", (r, path, lost))
            con.execute("INSERT INTO OpmfuOpTypes VALUES (?, ?, 1000, 10, 0.5, ?)", (r, "aten::op_%d" % k, lost))
        con.execute("INSERT INTO OpmfuSteps VALUES (?, 1, 1000, 500, 100, 100, 300, 10, 0.25, 'step', 0, 0, 0, 0, "
                    "?)", (r, 40 + side))
        for k in range(n_names):
            con.execute("INSERT INTO OpmfuCollectives VALUES (?, 'allreduce', NULL, ?, 100, ?)",
                        (r, "group_%d" % k, 10 + k * (side + 1)))
    for c in ("palm", "kempnerforge", "maxtext", "verl-omni"):
        con.execute("INSERT INTO OpmfuModel VALUES (NULL, NULL, ?, 1e14, 1000000, 0.4)", (c,))
    con.commit()
    con.close()


def run_view(tmp, name, n_ranks, n_names):
    sides = []
    for side in (0, 1):
        d = os.path.join(tmp, name, *(["d" * 60] * 4 + [str(side)]))
        os.makedirs(d)
        result_db(os.path.join(d, "cluster_analysis.db"), side, n_ranks, n_names)
        sides.append(d)
    p = subprocess.run([OPMFU, "diff"] + sides, capture_output=True, text=True, timeout=300)
    return p


def main():
    tmp = tempfile.mkdtemp(prefix="opmfu-diffview-")
    fails = []
    try:
        big = run_view(tmp, "big", 1000, 300)
        small = run_view(tmp, "small", 4, 2)
        for name, p in (("big", big), ("small", small)):
            lines = p.stdout.splitlines()
            if p.returncode != 0:
                fails.append("%s: exit %d: %s" % (name, p.returncode, p.stderr))
            if len(lines) > 40:
                fails.append("%s: %d lines" % (name, len(lines)))
            for ln in lines:
                if len(ln) > 120:
                    fails.append("%s: a line of %d columns: %s" % (name, len(ln), ln))
        out = big.stdout
        # the shape: ten changes, four conventions, ranks on one side and failed ones
        changes = [ln for ln in out.splitlines() if ln.startswith("  module ") or ln.startswith("  op ") or
                   ln.startswith("  coll ")]
        if len(changes) != 10 or sum(ln.startswith("  coll ") for ln in changes) != 3:
            fails.append("big: %d lines of changes, expected 10 of which 3 collectives" % len(changes))
        for want in ("where the step time went", "    of which waiting for other ranks ", "  palm ", "  kempnerforge ", "  maxtext ", "  verl-omni ",
                     "ranks in BASE only", "ranks in NEW only", "failed in BASE", "failed in NEW", ", ..."):
            if want not in out:
                fails.append("big: no %r in the view" % want)
        if len(small.stdout.splitlines()) > len(big.stdout.splitlines()):
            fails.append("the small run's view is longer than the large one's")
        sys.stdout.write(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print(f)
    print("diff_view_size: %s" % ("ok" if not fails else "%d problems" % len(fails)))
    return 1 if fails else 0


sys.exit(main())
