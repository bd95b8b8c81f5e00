"""The one-rank Ascend sample several CLI tests build (faults, hostile_paths,
open_race): one aten::mm op, one 1000 ns kernel, one 176947200-FLOPs record
(mfu 0.5 at the 24-core, 1800 MHz chip of INFO). Imported from the test's own
directory (Python puts a script's directory first on sys.path)."""
import os
import sqlite3

INFO = '{"DeviceInfo":[{"id":0,"ai_core_num":24,"aic_frequency":"1800"}]}'
DATA = """
INSERT INTO STRING_IDS VALUES (1,'aten::mm'),(2,'MatMulV3'),(3,'"16,16;16,16"'),(4,'BF16'),(5,'"16,16"'),
 (6,'mfu_flops'),(7,'176947200-mm');
INSERT INTO PYTORCH_API (startNs, endNs, globalTid, connectionId, name) VALUES (1000,1500,1,1,1);
INSERT INTO CONNECTION_IDS VALUES (1,1);
INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId) VALUES (11000,12000,1,1);
INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, opType, inputShapes, inputDataTypes, outputShapes)
 VALUES (2,1,2,3,4,5);
INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, domainId) VALUES (900,1600,2,7,6);
"""
RANK = "host_1_20260101000000000_ascend_pt"
NOT_REG = "not a regular file (a FIFO): opmfu reads only regular files"


def schema(root):
    """The Ascend export's schema (schema/in/ascend.sql under the source root)."""
    with open(os.path.join(root, "schema", "in", "ascend.sql")) as f:
        return f.read()


def make_rank(top, sql, rank=0, info=INFO):
    """The rank directory RANK under top with its database made by sql (None: the folders
    only) and, unless info is None, PROF_1/device_0/info.json.0 holding info; returns the
    database's path."""
    d = os.path.join(top, RANK)
    db = os.path.join(d, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_%d.db" % rank)
    os.makedirs(os.path.dirname(db), exist_ok=True)
    if sql is not None:
        con = sqlite3.connect(db)
        con.executescript(sql)
        con.commit()
        con.close()
    if info is not None:
        p = os.path.join(d, "PROF_1", "device_0", "info.json.0")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(info)
    return db
