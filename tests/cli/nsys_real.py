"""The five real Nsight Systems exports of ../shared/real/nsys (SPEC 21).

nsys_real.py OPMFU REPO

Each is analysed (exit 0) and its OpmfuRankSummary rows checked against the
export itself, counted here with SQL of its own (an independent count).
Each (device, process) that ran kernels is a rank (docs/nsys.md): one pair,
rank -1 (no file name here has a rank number); several (the 2026.2
two-H100 slice), rank k for the k-th in (device, process) order. For each:
its kernels, their total time (end - start), the launches (runtime calls
of that process whose correlationId is one of its kernels'), those in no
op range (at least those whose launch is not in the file), the copies and
memsets of that device and process, the GPU from TARGET_INFO_GPU, or for
2026.2 (no such table) the reason that says so and names --chip; the empty
capture is one rank with no MFU that says it holds no GPU kernels. Exit 77
(skipped) without ../shared.
"""
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

NSYS = "real/nsys"


def ro(path):
    return sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)


def tables(con):
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def pairs(path):
    """The file's (device, pid) pairs in order: its ranks."""
    con = ro(path)
    got = []
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables(con):
        got = con.execute("SELECT DISTINCT deviceId, (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL "
                          "ORDER BY 1, 2").fetchall()
    con.close()
    return got


def expected(path, device, pid):
    """What the export holds for one (device, pid), by its own SQL."""
    con = ro(path)
    have = tables(con)
    exp = {"device": device, "pid": pid, "kernels": 0, "copies": 0, "gpu": None, "no_launch": 0, "launches": 0,
           "kernel_ns": 0}
    if device is not None:
        exp["kernels"], exp["kernel_ns"] = con.execute(
            "SELECT count(*), sum(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?1 AND "
            "((globalPid >> 24) & 16777215) = ?2", (device, pid)).fetchone()
        # the launches: runtime calls of that process whose correlationId is
        # one of those kernels' (2022.2 records two a launch, cudaLaunchKernel
        # and its _v7000 entry)
        if "CUPTI_ACTIVITY_KIND_RUNTIME" in have:
            exp["launches"] = con.execute(
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE ((r.globalTid >> 24) & 16777215) = ?2 "
                "AND r.correlationId IN (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?1 "
                "AND ((globalPid >> 24) & 16777215) = ?2)", (device, pid)).fetchone()[0]
        # kernels whose launch is not in the file (queued before the capture):
        # in no op range whatever the ranges are
        exp["no_launch"] = con.execute(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE k.deviceId = ?1 AND "
            "((k.globalPid >> 24) & 16777215) = ?2 AND NOT EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
            "WHERE r.correlationId = k.correlationId AND ((r.globalTid >> 24) & 16777215) = ?2)",
            (device, pid)).fetchone()[0] if "CUPTI_ACTIVITY_KIND_RUNTIME" in have else exp["kernels"]
        for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
            if t in have:
                exp["copies"] += con.execute("SELECT count(*) FROM %s WHERE deviceId = ? AND "
                                             "((globalPid >> 24) & 16777215) = ?" % t, (device, pid)).fetchone()[0]
    # PyTorch op texts of the process in the default domain (other domains,
    # CCCL's "cub::DeviceReduce::Sum", are libraries' ranges, not ops)
    exp["op_texts"] = 0
    if "NVTX_EVENTS" in have:
        exp["op_texts"] = con.execute(
            "SELECT count(*) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (59, 60) "
            "AND IFNULL(n.domainId, 0) = 0 AND (?1 IS NULL OR ((n.globalTid >> 24) & 16777215) = ?1) "
            "AND (COALESCE(n.text, s.value) LIKE '%::%' OR COALESCE(n.text, s.value) LIKE '%, op_id = %' "
            "OR COALESCE(n.text, s.value) LIKE '%, seq = %')", (pid,)).fetchone()[0]
    if "TARGET_INFO_GPU" in have:
        row = con.execute("SELECT name FROM TARGET_INFO_GPU WHERE id = ?", (device if device is not None else 0,)
                          ).fetchone()
        exp["gpu"] = row[0] if row else None
    con.close()
    return exp


def summary(out):
    con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
    con.row_factory = sqlite3.Row
    rows = {r["rank_id"]: dict(r) for r in con.execute("SELECT * FROM OpmfuRankSummary")}
    con.close()
    return rows


def check_rank(name, exp, row, n_pairs):
    fails = []
    note = row["input_note"] or ""
    reason = row["reason"] or ""
    if exp["kernels"] == 0:
        if row["status"] != "no_mfu" or "holds no GPU kernels" not in reason:
            fails.append("%s: empty capture: status %s, reason %r" % (name, row["status"], reason))
    else:
        m = re.search(r"(\d+) GPU kernels? on device (-?\d+)", note)
        if not m or int(m.group(1)) != exp["kernels"] or int(m.group(2)) != exp["device"]:
            fails.append("%s: kernels: note %r, export has %d on device %s" % (name, note, exp["kernels"], exp["device"]))
        m = re.search(r"on device -?\d+ \((\d+) ns\), (\d+) launch(?:es)?:", note)
        if not m or int(m.group(1)) != exp["kernel_ns"] or int(m.group(2)) != exp["launches"]:
            fails.append("%s: kernel time and launches: note %r, export has %d ns and %d launches"
                         % (name, note, exp["kernel_ns"], exp["launches"]))
        m = re.search(r"(\d+) cop(?:y|ies) and memsets", note)
        if not m or int(m.group(1)) != exp["copies"]:
            fails.append("%s: copies: note %r, export has %d" % (name, note, exp["copies"]))
        m = re.search(r"(\d+) in an NVTX op range, (\d+) in none", note)
        if not m or int(m.group(2)) < exp["no_launch"] or int(m.group(1)) + int(m.group(2)) != exp["kernels"]:
            fails.append("%s: %d kernels have no launch in the file, but the note says %r" % (name, exp["no_launch"], note))
        if exp["op_texts"] == 0 and ": 0 in an NVTX op range" not in note:
            fails.append("%s: no PyTorch op texts, but the note says %r" % (name, note))
        part = "process %d, one of %d (device, process) pairs in the file" % (exp["pid"], n_pairs)
        if (n_pairs > 1) != (part in note):
            fails.append("%s: %d (device, process) pairs, the note says %r" % (name, n_pairs, note))
    if exp["gpu"] is not None:
        if row["chip_seen"] != exp["gpu"]:
            fails.append("%s: GPU %r, TARGET_INFO_GPU says %r" % (name, row["chip_seen"], exp["gpu"]))
    else:
        if "no TARGET_INFO_GPU table" not in reason or "--chip" not in reason:
            fails.append("%s: no TARGET_INFO_GPU, but the reason is %r" % (name, reason))
    return fails


def check(opmfu, path, tmp):
    name = os.path.basename(os.path.dirname(path))
    out = os.path.join(tmp, name)
    p = subprocess.run([opmfu, "analyze", path, "-o", out, "-q"], capture_output=True, text=True)
    if p.returncode != 0:
        return ["%s: exit %d: %s" % (name, p.returncode, p.stderr.strip())]
    ps = pairs(path)
    rows = summary(out)
    want = {-1: (None, None)} if not ps else {-1: ps[0]} if len(ps) == 1 else dict(enumerate(ps))
    fails = []
    if sorted(rows) != sorted(want):
        fails.append("%s: ranks %s, the export's (device, process) pairs %s give ranks %s"
                     % (name, sorted(rows), ps, sorted(want)))
    for rank in sorted(set(want) & set(rows)):
        dev, pid = want[rank]
        fails += check_rank("%s rank %d" % (name, rank), expected(path, dev, pid), rows[rank], len(ps))
    print("%-45s %d rank%s %s" % (name, len(rows), "" if len(rows) == 1 else "s", "FAILED" if fails else "ok"))
    return fails


def main():
    opmfu, repo = sys.argv[1:3]
    base = os.path.join(repo, "..", "shared", NSYS)
    if not os.path.isdir(base):
        print("skipped: %s is absent" % base)
        return 77
    files = []
    for d in sorted(os.listdir(base)):
        full = os.path.join(base, d)
        if os.path.isdir(full):
            files += [os.path.join(full, f) for f in sorted(os.listdir(full)) if f.endswith(".sqlite")]
    if len(files) != 5:
        print("expected 5 exports under %s, found %d" % (base, len(files)))
        return 1
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            fails += check(opmfu, f, tmp)
    for f in fails:
        print(f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
