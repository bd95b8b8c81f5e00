#!/usr/bin/env python3
"""RDMA transfers of Ascend collectives (SPEC 19): a one-rank export made here
with two HCCL ops whose tasks use RDMA, checked against this derivation by
hand and against tests/oracles/ascend_comm_oracle.py (msprof's rules,
written independently in Python).

msprof's rule (docs/collectives.md): on each plane, in start order, a run of
n tasks with rdmaType RDMA_SEND_PAYLOAD (1) and the jump - 1 tasks after it
are one transfer, from the first payload's start to the end of the run's
task n + jump - 2, of the payloads' sizes; jump is 3 for send/receive ops,
else 5. Its tasks count as nothing else. An unclosed run counts nothing.

Op A, hcom_allReduce__1_0_1 (opId 1), 1000-3100 ns, planes 0 and 1; plane 0
carries RDMA, so it is the main plane:
  plane 0: a0 Notify_Wait 1000-1400, a1 payload 1 MB 1400-1500, a2 payload
           0.5 MB 1500-1600, a3 RDMASend (notify) 1600-1650, a4 Notify_Wait
           1650-2600, a5 RDMASend 2600-2650, a6 Notify_Wait 2650-2700,
           a7 Notify_Wait 2700-3000.
    The run a1..a2 (n 2, jump 5) closes at a(1 + 2 + 5 - 2) = a6:
    transfer 2700 - 1400 = 1300 ns of 1500000 bytes; a4 and a6 are in it.
    wait = a0 + a7 = 400 + 300 = 700 ns. idle = 2100 - 1300 - 700 = 100 ns.
  plane 1: b0 Memcpy SDMA HCCS 4000 bytes 2000-2100 (transit: link bytes
           only, not the main plane), b1 Notify_Wait 2100-2900, b2 payload
           2000 bytes 2900-2950, b3 RDMASend 2950-2960: the run b2 needs
           b(2 + 1 + 5 - 2) = b6, absent: nothing.
    link bytes = 4000 (HCCS, 100 ns) + 1500000 (RDMA, 1300 ns) = 1504000
    in 1400 ns: 1074.285714 GB/s; transport RDMA (most bytes).
Op B, hcom_send__2_0_1 (opId 2), 4000-4600 ns, one plane (0: main):
  c0 payload 8192 bytes 4000-4100, c1 RDMASend 4100-4120, c2 Notify_Wait
  4120-4500, c3 Notify_Wait 4500-4600. Send: jump 3, the run closes at
  c(0 + 1 + 3 - 2) = c2: transfer 4500 - 4000 = 500 ns; wait = c3 = 100;
  idle = 600 - 500 - 100 = 0; link 8192 bytes in 500 ns: 16.384 GB/s, RDMA.

usage: ascend_rdma.py OPMFU SOURCE_ROOT
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
import sample_rank  # noqa: E402

COMM = """
INSERT INTO STRING_IDS VALUES (20,'hcom_allReduce__1_0_1'),(21,'hcom_send__2_0_1'),(22,'group0'),
 (23,'Notify_Wait'),(24,'RDMASend'),(25,'Memcpy'),(26,'HcomAllReduce'),(27,'HcomSend');
INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, connectionId, groupName, opId, dataType, count, opType)
 VALUES (20,1000,3100,NULL,22,1,4,375000,26),(21,4000,4600,NULL,22,2,4,2048,27);
CREATE TABLE ENUM_HCCL_TRANSPORT_TYPE (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_HCCL_TRANSPORT_TYPE VALUES (0,'SDMA'),(1,'RDMA'),(2,'LOCAL'),(65534,'N/A');
CREATE TABLE ENUM_HCCL_LINK_TYPE (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_HCCL_LINK_TYPE VALUES (0,'ON_CHIP'),(1,'HCCS'),(2,'PCIE'),(3,'ROCE'),(4,'SIO'),(5,'HCCS_SW'),
 (65534,'N/A');
CREATE TABLE ENUM_HCCL_RDMA_TYPE (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_HCCL_RDMA_TYPE VALUES (0,'RDMA_SEND_NOTIFY'),(1,'RDMA_SEND_PAYLOAD'),(65534,'N/A');
"""

# (gid, opId, type sid, plane, transport, link, rdma, size, start, end)
TASKS = [
    (101, 1, 23, 0, 2, 0, 65534, 0, 1000, 1400),
    (102, 1, 24, 0, 1, 3, 1, 1000000, 1400, 1500),
    (103, 1, 24, 0, 1, 3, 1, 500000, 1500, 1600),
    (104, 1, 24, 0, 1, 3, 0, 4, 1600, 1650),
    (105, 1, 23, 0, 2, 0, 65534, 0, 1650, 2600),
    (106, 1, 24, 0, 1, 3, 0, 4, 2600, 2650),
    (107, 1, 23, 0, 2, 0, 65534, 0, 2650, 2700),
    (108, 1, 23, 0, 2, 0, 65534, 0, 2700, 3000),
    (111, 1, 25, 1, 0, 1, 65534, 4000, 2000, 2100),
    (112, 1, 23, 1, 2, 0, 65534, 0, 2100, 2900),
    (113, 1, 24, 1, 1, 3, 1, 2000, 2900, 2950),
    (114, 1, 24, 1, 1, 3, 0, 4, 2950, 2960),
    (201, 2, 24, 0, 1, 3, 1, 8192, 4000, 4100),
    (202, 2, 24, 0, 1, 3, 0, 4, 4100, 4120),
    (203, 2, 23, 0, 2, 0, 65534, 0, 4120, 4500),
    (204, 2, 23, 0, 2, 0, 65534, 0, 4500, 4600),
]

# op_name: time, transfer, wait, idle, link_bytes, link_ns, transport, bytes (count x FP32)
WANT = {
    "hcom_allReduce__1_0_1": (2100, 1300, 700, 100, 1504000, 1400, "RDMA", 1500000),
    "hcom_send__2_0_1": (600, 500, 100, 0, 8192, 500, "RDMA", 8192),
}

fails = []


def check(what, ok):
    if not ok:
        fails.append(what)


def sql():
    rows = []
    for gid, op, ty, plane, tr, lk, rd, size, s, e in TASKS:
        rows.append("INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId) VALUES (%d,%d,NULL,%d);" % (s, e, gid))
        rows.append("INSERT INTO COMMUNICATION_TASK_INFO (name, globalTaskId, taskType, planeId, groupName, rdmaType, "
                    "srcRank, dstRank, transportType, size, dataType, linkType, opId) VALUES "
                    "(%d,%d,%d,%d,22,%d,0,1,%d,%d,4,%d,%d);" % (ty, gid, ty, plane, rd, tr, size, lk, op))
    return "\n".join(rows)


def main():
    opmfu, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    sys.path.insert(0, os.path.join(root, "tests", "oracles"))
    import ascend_comm_oracle as oracle
    tmp = tempfile.mkdtemp()
    try:
        db = sample_rank.make_rank(tmp, sample_rank.schema(root) + sample_rank.DATA + COMM + sql())
        # the independent oracle first: it must agree with the derivation above
        got = {r["op"]["name"]: r for r in oracle.analyse(db)[0]}
        for name, (t, tr, w, idle, lb, ln, transport, _) in WANT.items():
            tm, bw = got[name]["time"], got[name]["bw"]
            check("oracle %s: time %s" % (name, tm), (tm["elapse"], tm["transit"], tm["wait"], tm["idle"]) ==
                  (t, tr, w, idle))
            links = sum(bw[k][0] for k in ("RDMA", "HCCS", "PCIE", "SIO"))
            check("oracle %s: link bytes %d" % (name, links), links == lb)
        out = os.path.join(tmp, "out")
        p = subprocess.run([opmfu, "analyze", os.path.join(tmp, sample_rank.RANK), "-o", out, "-q"],
                           capture_output=True, text=True)
        check("exit %d: %s" % (p.returncode, p.stderr), p.returncode == 0)
        con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
        for name, want in WANT.items():
            rows = con.execute("SELECT time_ns, transfer_ns, wait_ns, idle_ns, link_bytes, link_ns, transport, bytes, "
                               "link_gbps FROM OpmfuCollectives WHERE op_name = ?", (name,)).fetchall()
            check("%s: one row, not %d" % (name, len(rows)), len(rows) == 1)
            if len(rows) == 1:
                check("%s: %s, derived %s" % (name, rows[0][:8], want), tuple(rows[0][:8]) == want)
                check("%s: link_gbps %s" % (name, rows[0][8]), abs(rows[0][8] - want[4] / want[5]) < 1e-9)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL " + f)
    print("ascend_rdma: %d failures" % len(fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
