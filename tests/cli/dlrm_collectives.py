#!/usr/bin/env python3
"""SPEC 19 on the 8-rank DLRM job (../shared/real/kineto/kineto_v100_dlrm_8ranks), against
the independent oracle tests/oracles/kineto_coll_oracle.py (kineto_coll_NOTES.md), run here
as a subprocess on the same unpacked traces.

Checked:
  * every NCCL kernel of the traces is a row of OpmfuCollectives: per rank, the count of
    rows equals the oracle's count of communication kernels (8 per rank), and each rank's
    rows, in start order, are the oracle's kernels in start order;
  * each row's start_ns, end_ns, wait_ns and last_rank equal those of the oracle's matched
    call (its (kind, k) call's rank line), ranks_matched is 8, transfer_ns = time_ns - wait_ns;
  * the allreduce kernels (ncclKernel_AllReduce_*) are rows named 'allreduce';
  * the culprit follows from the oracle's arrival times: OpmfuStragglers' comm_wait_caused_ns
    row names rank 7, its value is the oracle's others_waited_for_it for rank 7 (35,552,000
    ns), its median the oracle's sum for the run's median rank, its culprit_of text says
    the ms, the calls it arrived last at and the ranks that waited (from the oracle's call
    lines); the share_comm row's culprit_of names rank 7 with the same ms.
Not checked: kind and bytes of the SendRecv rows (opmfu has no sizes for DLRM, whose kernels
carry no args, and may leave a SendRecv kernel's kind NULL); the oracle's are its own.
usage: dlrm_collectives.py OPMFU ROOT"""
import glob
import os
import re
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def kv(line):
    return dict(m.groups() for m in re.finditer(r"(\w+)=(\S+)", line))


def parse_oracle(text):
    """kernels per rank (start order), per (rank, start) the matched call's line, summaries."""
    kernels, calls, summary, call = {}, {}, {}, None
    for line in text.splitlines():
        if line.startswith("kernel "):
            d = kv(line)
            kernels.setdefault(int(d["rank"]), []).append(d)
        elif line.startswith("call "):
            call = kv(line)
        elif line.startswith("  rank=") and call is not None:
            d = kv(line)
            d["last_rank"] = call["last_rank"]
            d["kind"] = call["kind"]
            d["k"] = call["k"]
            calls[(int(d["rank"]), int(d["start"]))] = d
        elif line.startswith("summary "):
            d = kv(line)
            summary[int(d["rank"])] = d
    return kernels, calls, summary


def main():
    opmfu, root = sys.argv[1], sys.argv[2]
    shared = os.path.normpath(os.path.join(root, "..", "shared", "real"))
    tgz = os.path.join(shared, "kineto", "kineto_v100_dlrm_8ranks", "dlrm_kineto.tar.gz")
    if not os.path.isfile(tgz):
        print("SKIP: ../shared/real/kineto/kineto_v100_dlrm_8ranks/dlrm_kineto.tar.gz is absent")
        return 77
    oracle = os.path.join(root, "tests", "oracles", "kineto_coll_oracle.py")
    with tempfile.TemporaryDirectory(prefix="opmfu-dlrm-coll-") as tmp:
        src = os.path.join(tmp, "in")
        with tarfile.open(tgz) as t:
            for m in t.getmembers():
                if m.name.startswith("/") or ".." in m.name.split("/"):
                    fail("archive member leaves the folder: %s" % m.name)
                    return 1
            t.extractall(src)
        files = sorted(glob.glob(os.path.join(src, "**", "*.json"), recursive=True))
        o = subprocess.run([sys.executable, oracle] + files, capture_output=True, text=True, timeout=300)
        if o.returncode:
            fail("oracle exit %d: %s" % (o.returncode, o.stderr))
            return 1
        kernels, calls, summary = parse_oracle(o.stdout)
        out = os.path.join(tmp, "out")
        p = subprocess.run([opmfu, "analyze", src, "-o", out], capture_output=True, text=True, timeout=300)
        if p.returncode:
            fail("opmfu exit %d: %s" % (p.returncode, p.stderr))
            return 1
        db = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute("SELECT * FROM OpmfuCollectives ORDER BY rank_id, start_ns, end_ns")]
        strag = {r["measure"]: dict(r) for r in db.execute("SELECT * FROM OpmfuStragglers")}
        run = dict(db.execute("SELECT * FROM OpmfuRun").fetchone())
        db.close()

    if sorted(kernels) != list(range(8)) or any(len(v) != 8 for v in kernels.values()):
        fail("the oracle did not find 8 ranks of 8 NCCL kernels: %s" % {r: len(v) for r, v in kernels.items()})
        return 1
    by_rank = {}
    for r in rows:
        by_rank.setdefault(r["rank_id"], []).append(r)
    # every NCCL kernel is a row: the count per rank
    for rank in range(8):
        got = len(by_rank.get(rank, []))
        if got != len(kernels[rank]):
            fail("rank %d: %d OpmfuCollectives rows, the trace has %d NCCL kernels" % (rank, got, len(kernels[rank])))
    if set(by_rank) - set(range(8)):
        fail("rows of ranks the job does not have: %s" % sorted(set(by_rank) - set(range(8))))
    # each row against the oracle's kernel (same rank, same place in start order) and its call
    for rank in range(8):
        for i, (row, k) in enumerate(zip(by_rank.get(rank, []), kernels[rank])):
            where = "rank %d call %d (%s k=%s)" % (rank, i, k["kind"], k["k"])
            c = calls.get((rank, int(k["start"])))
            if c is None:
                fail("%s: the oracle has no matched call for it" % where)
                continue
            want = {"start_ns": int(c["start"]), "end_ns": int(c["end"]), "time_ns": int(c["time"]),
                    "wait_ns": int(c["wait"]), "transfer_ns": int(c["transfer"]), "last_rank": int(c["last_rank"]),
                    "ranks_matched": 8, "op_name": k["name"]}
            for col, v in want.items():
                if col == "op_name":
                    if not (row[col] or "").startswith(v):
                        fail("%s: op_name %r, the kernel is %r" % (where, row[col], v))
                elif row[col] != v:
                    fail("%s: %s %r, the oracle says %r" % (where, col, row[col], v))
            if k["name"].startswith("ncclKernel_AllReduce") and row["name"] != "allreduce":
                fail("%s: an AllReduce kernel named %r, not 'allreduce'" % (where, row["name"]))
            if row["wait_source"] != "ranks":
                fail("%s: wait_source %r, not 'ranks'" % (where, row["wait_source"]))
    # the culprit, from the oracle's arrival times
    ranked = sorted(summary.values(), key=lambda s: (-int(s["others_waited_for_it"]), int(s["rank"])))
    top = ranked[0]
    if int(top["rank"]) != 7:
        fail("the oracle's culprit is rank %s, the NOTES say 7" % top["rank"])
    caused = int(top["others_waited_for_it"])
    waiters = set()
    n_calls = 0
    for (rank, _), c in calls.items():
        if int(c["last_rank"]) == 7 and rank != 7 and int(c["wait"]) > 0:
            waiters.add(rank)
    n_calls = int(top["arrived_last"])
    row = strag.get("comm_wait_caused_ns")
    if row is None:
        fail("no comm_wait_caused_ns row in OpmfuStragglers")
    else:
        if row["rank_id"] != 7:
            fail("comm_wait_caused_ns names rank %r, the oracle rank 7" % row["rank_id"])
        if row["value"] != caused:
            fail("comm_wait_caused_ns value %r, the oracle %d" % (row["value"], caused))
        med = run["median_rank"]
        want_med = int(summary[med]["others_waited_for_it"]) if med in summary else None
        if row["median"] != want_med:
            fail("comm_wait_caused_ns median %r, the oracle's sum for the median rank %r is %r"
                 % (row["median"], med, want_med))
        text = row["culprit_of"] or ""
        want_ms = "ranks waited %.3f ms for it" % (caused * 1e-6)
        if not text.startswith(want_ms):
            fail("comm_wait_caused_ns culprit_of %r does not start %r" % (text, want_ms))
        want_tail = "over %d calls (%d ranks)" % (n_calls, len(waiters))
        if not text.endswith(want_tail):
            fail("comm_wait_caused_ns culprit_of %r: the oracle has rank 7 last at %d calls, %d ranks waiting (%r)"
                 % (text, n_calls, len(waiters), want_tail))
    sc = strag.get("share_comm")
    want_named = "rank 7: the others waited %.3f ms for it" % (caused * 1e-6)
    if sc is None or sc["culprit_of"] != want_named:
        fail("share_comm culprit_of %r, want %r" % (sc and sc["culprit_of"], want_named))
    if fails:
        print("%d failures" % len(fails))
        return 1
    print("ok: %d rows of 8 ranks match the oracle; culprit rank 7, %d ns" % (len(rows), caused))
    return 0


if __name__ == "__main__":
    sys.exit(main())
