#!/usr/bin/env python3
"""Bad input (issue 6): each fault gives one clear line naming the file and the
fault, the exit status says what happened, the input is never modified and the
output stays intact. usage: faults.py OPMFU SOURCE_ROOT [SCENARIO...]

Every scenario builds a small tree, runs opmfu and compares the exact stderr
(paths written as {tree}, {out}) and exit status; some check more."""
import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile

import sample_rank

OPMFU = sys.argv[1]
ROOT = sys.argv[2]
SCHEMA = sample_rank.schema(ROOT)
INFO, DATA, RANK = sample_rank.INFO, sample_rank.DATA, sample_rank.RANK
DB_REL = RANK + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"
INFO_REL = RANK + "/PROF_1/device_0/info.json.0"
FAILED_ONE = "opmfu: error: 1 of 1 rank failed; {out}/cluster_analysis_output/cluster_analysis.db left unchanged"


def make_rank(tree, sql=SCHEMA + DATA, info=INFO):
    return sample_rank.make_rank(tree, sql, info=info)


def hashes(top):
    res = {}
    for root, dirs, files in os.walk(top):
        for n in files:
            p = os.path.join(root, n)
            if os.path.islink(p):
                continue
            with open(p, "rb") as f:
                res[p] = hashlib.sha256(f.read()).hexdigest()
    return res


def operator_rows(out):
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    con = sqlite3.connect(db)
    rows = con.execute('SELECT op_name, kernel_name, mfu FROM "OperatorMFU" ORDER BY rowid').fetchall()
    con.close()
    return rows


class Scenario:
    def __init__(self, name, exit_code, stderr, setup=None, args=None, check=None, preexec=None):
        self.name, self.exit_code, self.stderr = name, exit_code, stderr
        self.setup, self.args, self.check, self.preexec = setup, args, check, preexec


def sc_not_sqlite(tree, out):
    db = make_rank(tree, sql=None)
    with open(db, "w") as f:
        f.write("SQLite format 2? no: this is a text file\n" * 20)


def sc_empty_file(tree, out):
    db = make_rank(tree, sql=None)
    open(db, "w").close()


def big_db(tree):
    """A valid database of several pages, so cutting it leaves a broken one."""
    extra = "".join("INSERT INTO STRING_IDS VALUES (%d, '%s');\n" % (100 + i, "x" * 200) for i in range(400))
    return make_rank(tree, sql=SCHEMA + DATA + extra)


def sc_truncated(tree, out):
    db = big_db(tree)
    size = os.path.getsize(db)
    with open(db, "r+b") as f:
        f.truncate(size // 2)


def sc_corrupt(tree, out):
    db = big_db(tree)
    with open(db, "r+b") as f:
        for page in range(1, os.path.getsize(db) // 4096):
            f.seek(page * 4096)
            f.write(b"\xff" * 64)  # b-tree page headers destroyed


def sc_missing_table(tree, out):
    make_rank(tree, sql=SCHEMA + DATA + "DROP TABLE TASK;")


def sc_missing_column(tree, out):
    sql = SCHEMA.replace("CREATE TABLE PYTORCH_API (startNs TEXT,", "CREATE TABLE PYTORCH_API (beginNs TEXT,")
    make_rank(tree, sql=sql + DATA.replace("(startNs, endNs, globalTid", "(beginNs, endNs, globalTid"))


def sc_locked(tree, out):
    make_rank(tree)


def sc_junk_times(tree, out):
    make_rank(tree, sql=SCHEMA + DATA + """
INSERT INTO PYTORCH_API (startNs, endNs, globalTid, connectionId, name) VALUES ('12abc', '2000', 1, 2, 1);
INSERT INTO CONNECTION_IDS VALUES (2, 2);
INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId) VALUES (13000, 'soon', 2, 2);
INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, opType, inputShapes, inputDataTypes, outputShapes)
 VALUES (2,2,2,3,4,5);
INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, domainId) VALUES ('x', 1600, 2, 7, 6);
""")


def sc_nulls(tree, out):
    """NULL in every column of every table the reader uses, one row each."""
    make_rank(tree, sql=SCHEMA + DATA + """
INSERT INTO STRING_IDS VALUES (NULL, 'orphan'), (50, NULL);
INSERT INTO PYTORCH_API (startNs, endNs, globalTid, connectionId, name) VALUES
 (NULL, 1500, 1, 3, 1), (1000, NULL, 1, 3, 1), (1000, 1500, 1, NULL, 1), (1000, 1500, 1, 4, NULL);
INSERT INTO CONNECTION_IDS VALUES (NULL, 3), (3, NULL), (4, 4);
INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId) VALUES
 (NULL, 12000, 4, 3), (11000, NULL, 4, 4), (11000, 12000, NULL, 5), (11000, 12000, 4, NULL), (11500, 11900, 4, 6);
INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, opType, inputShapes, inputDataTypes, outputShapes) VALUES
 (NULL, 3, 2, 3, 4, 5), (2, 4, NULL, NULL, NULL, NULL), (NULL, 6, NULL, NULL, NULL, NULL);
INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, domainId) VALUES
 (NULL, 1600, 2, 7, 6), (900, 1600, NULL, 7, 6), (900, 1600, 2, NULL, 6), (900, 1600, 2, 7, NULL);
""")


def sc_huge_strings(tree, out):
    huge = '"' + ";".join(["4096,4096"] * 100000) + '"'
    dt = ";".join(["INT64"] * 50000) + ";FLOAT16"
    make_rank(tree, sql=SCHEMA + DATA.replace("(4,'BF16')", "(4,'%s')" % dt).replace(
        "(3,'\"16,16;16,16\"')", "(3,'%s')" % huge) + "INSERT INTO STRING_IDS VALUES (99, '%s');" % ("\x01" * 1000))


def sc_info_not_json(tree, out):
    make_rank(tree, info="<xml>no</xml>")


def sc_info_wrong_types(tree, out):
    make_rank(tree, info='{"DeviceInfo":[{"ai_core_num":"twenty","aic_frequency":"1800"}]}')


def sc_symlink_loop(tree, out):
    make_rank(tree)
    os.makedirs(os.path.join(tree, "a"))
    os.symlink("..", os.path.join(tree, "a", "up"))


def sc_unreadable_dir(tree, out):
    make_rank(tree)
    os.makedirs(os.path.join(tree, "sealed", "inner"))
    os.chmod(os.path.join(tree, "sealed"), 0)


def sc_output_is_file(tree, out):
    make_rank(tree)
    os.rmdir(out)
    with open(out, "w") as f:
        f.write("a file where the output folder should be\n")


def previous_results(out):
    """An earlier result plus another tool's table in cluster_analysis.db."""
    d = os.path.join(out, "cluster_analysis_output")
    os.makedirs(d, exist_ok=True)
    con = sqlite3.connect(os.path.join(d, "cluster_analysis.db"))
    con.executescript("""
CREATE TABLE "OperatorMFU" (rank_id INTEGER, op_name TEXT, kernel_name TEXT, mfu REAL);
INSERT INTO "OperatorMFU" VALUES (9, 'previous', 'run', 0.25);
CREATE TABLE "ModuleMFU" (stale TEXT);
INSERT INTO "ModuleMFU" VALUES ('stale');
CREATE TABLE "CommunicationTime" (rank_id INTEGER, ms REAL);
INSERT INTO "CommunicationTime" VALUES (0, 1.5);
""")
    con.commit()
    con.close()


def table(out, sql):
    con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
    rows = con.execute(sql).fetchall()
    con.close()
    return rows


def sc_disk_full(tree, out):
    make_rank(tree, sql=SCHEMA + DATA + "".join(
        "INSERT INTO PYTORCH_API (startNs, endNs, globalTid, connectionId, name) VALUES (%d, %d, 1, 1, 1);\n"
        % (1000 + i, 1400 + i) for i in range(1, 3000)))
    previous_results(out)


def limit_file_size():
    # 64 KiB files at most; SIGXFSZ ignored so write() fails with EFBIG instead of killing us
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def check_previous_intact(out):
    assert table(out, 'SELECT * FROM "OperatorMFU"') == [(9, "previous", "run", 0.25)], "OperatorMFU changed"
    assert table(out, 'SELECT * FROM "ModuleMFU"') == [("stale",)], "ModuleMFU changed"
    assert table(out, 'SELECT * FROM "CommunicationTime"') == [(0, 1.5)], "other tool's table changed"


TEXT_FILES = ["csv/OperatorMFU.csv", "csv/ModuleMFU.csv", "csv/OpmfuRankSummary.csv",
              "json/OperatorMFU.jsonl", "json/ModuleMFU.jsonl", "json/OpmfuRankSummary.jsonl"]


def previous_texts(out):
    """An earlier run's CSV and JSON files."""
    for rel in TEXT_FILES:
        p = os.path.join(out, "cluster_analysis_output", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("earlier " + rel + "\n")


def check_previous_texts(out):
    d = os.path.join(out, "cluster_analysis_output")
    for rel in TEXT_FILES:
        with open(os.path.join(d, rel)) as f:
            assert f.read() == "earlier " + rel + "\n", rel + " changed"
    for sub in ("csv", "json"):
        assert sorted(os.listdir(os.path.join(d, sub))) == sorted(
            os.path.basename(r) for r in TEXT_FILES if r.startswith(sub + "/")), "a file left in " + sub


def sc_disk_full_text(tree, out):
    sc_disk_full(tree, out)
    previous_texts(out)


def sc_text_dir_is_file(tree, out):
    make_rank(tree)
    d = os.path.join(out, "cluster_analysis_output")
    os.makedirs(d)
    with open(os.path.join(d, "json"), "w") as f:
        f.write("a file where the json folder should be\n")


def sc_replace_keeps_others(tree, out):
    make_rank(tree)
    previous_results(out)


def check_replaced(out):
    assert operator_rows(out) == [("aten::mm", "MatMulV3", 0.5)], operator_rows(out)
    assert table(out, 'SELECT count(*) FROM "ModuleMFU"') == [(0,)], "stale ModuleMFU left behind"
    assert table(out, 'SELECT * FROM "CommunicationTime"') == [(0, 1.5)], "other tool's table lost"
    # an existing file keeps its page size
    assert table(out, "PRAGMA page_size") == [(4096,)], table(out, "PRAGMA page_size")


def check_one_row(out):
    assert operator_rows(out) == [("aten::mm", "MatMulV3", 0.5)], operator_rows(out)
    # a file opmfu creates gets 64 KiB pages (faster appends)
    assert table(out, "PRAGMA page_size") == [(65536,)], table(out, "PRAGMA page_size")


def check_no_mfu(out):
    # the op is written with its FLOPs and kernel time, without an MFU; no OperatorMFU row
    assert operator_rows(out) == [], operator_rows(out)
    rows = table(out, "SELECT op_name, flops, kernel_ns, mfu FROM OpmfuOps")
    assert len(rows) == 1 and rows[0][1] and rows[0][2] and rows[0][3] is None, rows
    assert table(out, "SELECT status FROM OpmfuRankSummary") == [("no_mfu",)]


SCENARIOS = [
    Scenario("not_sqlite", 1, [
        "opmfu: error: rank 0: {tree}/%s: reading the schema: file is not a database" % DB_REL, FAILED_ONE],
        sc_not_sqlite),
    Scenario("empty_file", 1, [
        "opmfu: error: rank 0: {tree}/%s: required table STRING_IDS is missing" % DB_REL, FAILED_ONE],
        sc_empty_file),
    Scenario("truncated", 1, [
        "opmfu: error: rank 0: {tree}/%s: reading the schema: database disk image is malformed "
        "(the database is corrupt or truncated)" % DB_REL, FAILED_ONE], sc_truncated),
    Scenario("corrupt", 1, [
        "opmfu: error: rank 0: {tree}/%s: reading STRING_IDS: database disk image is malformed "
        "(the database is corrupt or truncated)" % DB_REL, FAILED_ONE], sc_corrupt),
    Scenario("missing_table", 1, [
        "opmfu: error: rank 0: {tree}/%s: required table TASK is missing" % DB_REL, FAILED_ONE],
        sc_missing_table),
    Scenario("missing_column", 1, [
        "opmfu: error: rank 0: {tree}/%s: table PYTORCH_API has no column startNs" % DB_REL, FAILED_ONE],
        sc_missing_column),
    Scenario("locked", 1, [
        "opmfu: error: rank 0: {tree}/%s: reading the schema: database is locked "
        "(the database is locked by another process)" % DB_REL, FAILED_ONE], sc_locked),
    Scenario("junk_times", 0, [], sc_junk_times, check=check_one_row),
    Scenario("nulls", 0, [], sc_nulls),
    # a 1 MB shape string and a 350 KB dtype list are cut at 16 KiB with a marker (SPEC 26): one warning
    Scenario("huge_strings", 0, [
        "opmfu: warning: rank 0: 2 names or shape strings longer than 16384 bytes cut to that length, marked "
        "\"\u2026[cut, N bytes]\" in every output"], sc_huge_strings),
    # a bad chip info file leaves the rank without a peak: written, MFU empty, one warning (SPEC 8)
    Scenario("info_not_json", 0, [
        "opmfu: warning: rank 0: MFU left empty (no peak FLOPS: {tree}/%s: invalid JSON at byte 0: unexpected "
        "character; give --chip NAME or --peak fp16=TFLOPS,... (or OPMFU_PEAK))" % INFO_REL],
        sc_info_not_json, check=check_no_mfu),
    Scenario("info_wrong_types", 0, [
        "opmfu: warning: rank 0: MFU left empty (no peak FLOPS: {tree}/%s: DeviceInfo[0].ai_core_num is not an "
        "integer; give --chip NAME or --peak fp16=TFLOPS,... (or OPMFU_PEAK))" % INFO_REL],
        sc_info_wrong_types, check=check_no_mfu),
    Scenario("symlink_loop", 0, [
        "opmfu: warning: {tree}/a/up: directory loop (symbolic link back to an ancestor), skipped"],
        sc_symlink_loop, check=check_one_row),
    Scenario("output_is_file", 1, [
        "opmfu: error: {out}: exists but is not a directory"], sc_output_is_file),
    Scenario("disk_full", 1, [
        "opmfu: error: {out}/cluster_analysis_output/cluster_analysis.db: cannot commit the results: "
        "disk I/O error"], sc_disk_full, check=check_previous_intact, preexec=limit_file_size),
    Scenario("replace_keeps_others", 0, [], sc_replace_keeps_others, check=check_replaced),
    # 2999 links of one kernel: OperatorMFU.csv outgrows the 64 KiB limit; the
    # earlier CSV and JSON files and the database stay, no temporary file is left
    Scenario("disk_full_text", 1, [
        "opmfu: error: {out}/cluster_analysis_output/csv/OperatorMFU.csv: cannot write: File too large"],
        sc_disk_full_text, args=["--export", "db,csv,json"],
        check=lambda out: (check_previous_intact(out), check_previous_texts(out)), preexec=limit_file_size),
    Scenario("text_dir_is_file", 1, [
        "opmfu: error: {out}/cluster_analysis_output/json: exists but is not a directory"],
        sc_text_dir_is_file, args=["--export", "csv,json"]),
]
if os.geteuid() == 0:
    # root reads every directory; run as nobody to see a permission error
    SCENARIOS.append(Scenario("unreadable_dir", 0, [
        "opmfu: warning: {tree}/sealed: cannot read directory: Permission denied; skipped"],
        sc_unreadable_dir, check=check_one_row))


def run(sc):
    tmp = tempfile.mkdtemp(prefix="opmfu-fault-")
    os.chmod(tmp, 0o755)
    tree, out = os.path.join(tmp, "tree"), os.path.join(tmp, "out")
    os.makedirs(tree)
    os.makedirs(out)
    lock = None
    try:
        sc.setup(tree, out)
        before = hashes(tree)
        args = [OPMFU, "analyze", tree, "-o", out, "-q"] + (sc.args or [])
        if sc.name == "locked":
            lock = sqlite3.connect(os.path.join(tree, DB_REL))
            lock.execute("BEGIN EXCLUSIVE")
        if sc.name == "unreadable_dir":
            for root, dirs, files in os.walk(tmp):
                for n in dirs + files:
                    p = os.path.join(root, n)
                    if not os.path.islink(p) and n != "sealed":
                        os.chown(p, 65534, 65534)
            os.chown(out, 65534, 65534)
            args = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + args
        p = subprocess.run(args, capture_output=True, text=True, timeout=120, preexec_fn=sc.preexec)
        if lock:
            lock.rollback()
            lock.close()
            lock = None
        err = p.stderr.replace(tree, "{tree}").replace(out, "{out}")
        want = "".join(l + "\n" for l in sc.stderr)
        problems = []
        if p.returncode != sc.exit_code:
            problems.append("exit %d, expected %d" % (p.returncode, sc.exit_code))
        if err != want:
            problems.append("stderr:\n%s--- expected:\n%s" % (err, want))
        if sc.name != "unreadable_dir" and hashes(tree) != before:
            problems.append("the input was modified")
        if sc.check and not problems:
            try:
                sc.check(out)
            except AssertionError as e:
                problems.append("check: %s" % e)
        return problems
    finally:
        if lock:
            lock.close()
        for root, dirs, files in os.walk(tmp):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    only = set(sys.argv[3:])
    fails = 0
    for sc in SCENARIOS:
        if only and sc.name not in only:
            continue
        problems = run(sc)
        print("%-22s %s" % (sc.name, "ok" if not problems else "FAILED"))
        for pr in problems:
            print("    " + pr.replace("\n", "\n    "))
        fails += bool(problems)
    print("faults: %d scenarios failed" % fails if fails else "faults: ok")
    return 1 if fails else 0


sys.exit(main())
