#!/usr/bin/env python3
"""OpmfuCollectives on the real Ascend exports against torch_npu's own
communication analysis beside each export (SPEC 19): per HCCL op, elapsed
time, transit, wait and idle time equal CommAnalyzerTime's (within 1 us:
analysis.db stores ms with fractions of a ns), and the bytes and bandwidth
over the links equal CommAnalyzerBandwidth's HCCS row (MB = 10^6 bytes,
bandwidth rounded to 4 decimals there). Also: every op is an allreduce of
FP32 in a group of 8 whose bytes are count x 4, and the OpmfuSteps waiting
is within the step's exposed communication.

usage: ascend_collectives.py OPMFU SOURCE_ROOT; exit 77 (skip) without ../shared/real.
"""
import glob
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..")
REAL = os.path.join(os.path.normpath(os.path.join(ROOT, "..", "shared")), "real")
fails = []


def check(what, ok):
    if not ok:
        fails.append(what)


def ro(path):
    return sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)


def main():
    opmfu = os.path.abspath(sys.argv[1])
    if not os.path.isdir(REAL):
        print("skip: ../shared/real is absent (the real Ascend exports)")
        sys.exit(77)
    compared = 0
    for level in (1, 2):
        src = os.path.join(REAL, "level%d" % level)
        tmp = tempfile.mkdtemp()
        try:
            p = subprocess.run([opmfu, "analyze", src, "-o", tmp, "-q"], capture_output=True, text=True)
            check("level%d: exit %d %s" % (level, p.returncode, p.stderr), p.returncode == 0)
            db = ro(os.path.join(tmp, "cluster_analysis_output", "cluster_analysis.db"))
            for rank in (0, 1):
                d = os.path.join(src, "rank%d_ascend_pt" % rank, "ASCEND_PROFILER_OUTPUT")
                oracle = ro(os.path.join(d, "analysis.db"))
                times = oracle.execute("SELECT hccl_op_name, elapse_time, transit_time, wait_time, idle_time "
                                       "FROM CommAnalyzerTime").fetchall()
                bw = {r[0]: r[1:] for r in oracle.execute(
                    "SELECT hccl_op_name, transit_size, transit_time, bandwidth FROM CommAnalyzerBandwidth "
                    "WHERE transport_type = 'HCCS'")}
                check("level%d rank %d: CommAnalyzerTime has rows" % (level, rank), len(times) > 0)
                for name, elapse, transit, wait, idle in times:
                    rows = db.execute('SELECT time_ns, transfer_ns, wait_ns, idle_ns, link_bytes, link_ns, link_gbps, '
                                      'name, dtype, ranks_in_group, bytes, wait_source FROM OpmfuCollectives '
                                      'WHERE rank_id = ? AND op_name = ?', (rank, name)).fetchall()
                    tag = "level%d rank %d %s" % (level, rank, name)
                    check(tag + ": one OpmfuCollectives row, not %d" % len(rows), len(rows) == 1)
                    if len(rows) != 1:
                        continue
                    t, tr, w, i, lb, ln, lg, kind, dt, nr, by, ws = rows[0]
                    for what, got, want in (("elapse", t, elapse), ("transit", tr, transit), ("wait", w, wait),
                                            ("idle", i, idle)):
                        check("%s: %s %s ns, analysis.db %.3f ns" % (tag, what, got, want * 1e6),
                              got is not None and abs(got - want * 1e6) <= 1000)
                    check(tag + ": allreduce FP32 of 8 ranks from the trace (%s %s %s %s)" % (kind, dt, nr, ws),
                          (kind, dt, nr, ws) == ("allreduce", "FP32", 8, "trace"))
                    cnt = sqlite3.connect(ro_copy(d)).execute(
                        "SELECT o.count FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = o.opName WHERE s.value = ?",
                        (name,)).fetchone()
                    check(tag + ": bytes %s = count x 4" % by, cnt is not None and by == cnt[0] * 4)
                    if name in bw:
                        size_mb, tt, band = bw[name]
                        check("%s: link bytes %s, analysis.db %.6f MB" % (tag, lb, size_mb),
                              lb is not None and abs(lb / 1e6 - size_mb) < 1e-6)
                        check("%s: link time %s, analysis.db %.6f ms" % (tag, ln, tt),
                              ln is not None and abs(ln - tt * 1e6) <= 1000)
                        check("%s: link bandwidth %s, analysis.db %s" % (tag, lg, band),
                              lg is not None and abs(round(lg, 4) - band) <= 1.5e-4)
                    compared += 1
            for rank, exp, wt in db.execute("SELECT rank_id, comm_exposed_ns, comm_wait_ns FROM OpmfuSteps "
                                            "WHERE step IS NOT NULL"):
                check("level%d rank %d: waiting %s within exposed %s" % (level, rank, wt, exp),
                      wt is not None and 0 <= wt <= exp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    check("compared %d HCCL ops, want 16" % compared, compared == 16)
    for f in fails:
        print("FAIL " + f)
    print("ascend_collectives: %d ops compared, %d failures" % (compared, len(fails)))
    sys.exit(1 if fails else 0)


_copies = {}


def ro_copy(d):
    """A private copy of the export (its WAL must not be touched), made once."""
    if d not in _copies:
        tmp = tempfile.mkdtemp()
        for f in glob.glob(os.path.join(d, "ascend_pytorch_profiler*.db*")):
            shutil.copy(f, tmp)
        _copies[d] = glob.glob(os.path.join(tmp, "ascend_pytorch_profiler*.db"))[0]
    return _copies[d]


if __name__ == "__main__":
    main()
