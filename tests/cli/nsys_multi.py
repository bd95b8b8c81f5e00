#!/usr/bin/env python3
"""One Nsight Systems export holding several (device, process) pairs: one rank each (issue 32).

nsys_multi.py OPMFU REPO

tests/tools/gen_nsys_cases.py's multi_export(): nsys around a launcher, two
processes (pids 100, 200) each on two GPUs (devices 0, 1), in one file.
docs/nsys.md's rule: the k-th (device, process) in (device, pid) order is
rank k (the file name has no rank number); with the number N in the name
and P pairs, N * P + k. Counts derived by hand from the generator's rows
(times in ns; NCCL = an allreduce kernel, FILL/MM/ADDMM compute kernels):

  rank 0 = (device 0, pid 100): MM 100,000-110,000 (launch c1 at 20,000, in
    aten::mm 10,000-30,000), FILL 110,000-112,000 (c2), NCCL 120,000-130,000
    (c3); kernel time 10,000 + 2,000 + 10,000 = 22,000; launches c1-c3 = 3
    (c4, c5 are device 1's, c9 has no kernel); 2 compute kernels, 1 in the op
    range (c1), 1 in none (FILL); 1 communication kernel; 1 memcpy.
  rank 1 = (device 0, pid 200): FILL 140,000-141,000 (c1 at 5,000: pid 200's
    c1, outside its range), NCCL 141,000-151,000 (c2); 11,000 ns; 2
    launches; 1 compute kernel, 0 in a range, 1 in none; 1 memset. No op:
    no_mfu.
  rank 2 = (device 1, pid 100): MM 100,000-104,000 (c4 at 25,000, in
    aten::mm), NCCL 125,000-135,000 (c5); 14,000 ns; 2 launches; 1 compute,
    1 in the range, 0 in none; no copy.
  rank 3 = (device 1, pid 200): ADDMM 140,000-143,000 (c3 at 20,000, in
    aten::addmm), FILL x2 143,000-145,000 (c4, c5), NCCL 145,000-155,000
    (c6); 3,000 + 1,000 + 1,000 + 10,000 = 15,000 ns; 4 launches; 3
    compute, 1 in the range, 2 in none; 2 memcpys.

Were launches matched across processes (both number their correlationIds
from 1), rank 1's FILL would link to pid 100's aten::mm; were pid 200's
memcpy with correlationId 9 given pid 100's call c9, the copies would move.

OpmfuOps: rank 0 aten::mm 1 kernel 10,000 ns; rank 2 aten::mm 1, 4,000;
rank 3 aten::addmm 1, 3,000. The run is a cluster of 4 ranks: OpmfuRun
ranks 4, ranks_analysed 4; the allreduce is call 1 of all four
(OpmfuCollectives ranks_matched 4), the last to arrive rank 3 at 145,000, so
each rank waits 145,000 - its start, clipped to its 10,000 ns call: rank 0
min(25,000, 10,000) = 10,000 (transfer 0), rank 1 4,000 (6,000), rank 2
min(20,000, 10,000) = 10,000 (0), rank 3 0 (10,000).

Then the same export as node_rank0.sqlite and node_rank1.sqlite in one
folder: one run of 8 ranks, 0-3 and 4-7 (N * 4 + k); and node_rank0.sqlite
beside rank1.sqlite (one pair: rank 1 from its name) clash on rank 1: the
duplicate rule keeps the first found and says so.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

NOTE = ("nsys 2025.3.1.90; %d GPU kernel%s on device %d (%d ns), %d launches: %d in an NVTX op range, %d in none; "
        "1 communication kernel (0 in a range); %s; 0 module ranges; 0 steps; GPU \"NVIDIA H100 80GB HBM3\"; "
        "process %d, one of 4 (device, process) pairs in the file")
# rank: (compute kernels, device, kernel ns, launches, in a range, in none, copies, pid)
RANKS = {
    0: (2, 0, 22000, 3, 1, 1, "1 copy and memsets", 100),
    1: (1, 0, 11000, 2, 0, 1, "1 copy and memsets", 200),
    2: (1, 1, 14000, 2, 1, 0, "0 copies and memsets", 100),
    3: (3, 1, 15000, 4, 1, 2, "2 copies and memsets", 200),
}
STATUS = {0: "ok", 1: "no_mfu", 2: "ok", 3: "ok"}
OPS = [(0, "aten::mm", 1, 10000), (2, "aten::mm", 1, 4000), (3, "aten::addmm", 1, 3000)]
# rank: (start, wait, transfer)
COLLS = {0: (120000, 10000, 0), 1: (141000, 4000, 6000), 2: (125000, 10000, 0), 3: (145000, 0, 10000)}


def note(rank):
    k, dev, ns, launches, inr, none, copies, pid = RANKS[rank]
    return NOTE % (k, "" if k == 1 else "s", dev, ns, launches, inr, none, copies, pid)


def export(repo, path, which="multi_export"):
    sys.path.insert(0, os.path.join(repo, "tests", "tools"))
    import gen_nsys_cases
    con = sqlite3.connect(path)
    e = gen_nsys_cases.multi_export() if which == "multi_export" else gen_nsys_cases.pytorch_rank(1000000)
    con.executescript(e.sql())
    con.commit()
    con.close()


def analyze(opmfu, path, out):
    p = subprocess.run([opmfu, "analyze", path, "-o", out, "--peak", "fp16=200"], capture_output=True, text=True)
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    return p, (sqlite3.connect(db) if p.returncode == 0 else None)


def check_one_file(opmfu, tmp, fails):
    path = os.path.join(tmp, "multi.sqlite")
    p, con = analyze(opmfu, path, os.path.join(tmp, "out1"))
    if con is None:
        fails.append("multi.sqlite: exit %d: %s" % (p.returncode, p.stderr.strip()))
        return
    got = {r[0]: r[1:] for r in con.execute("SELECT rank_id, status, input_note FROM OpmfuRankSummary")}
    want = {r: (STATUS[r], note(r)) for r in RANKS}
    for r in sorted(set(got) | set(want)):
        if got.get(r) != want.get(r):
            fails.append("rank %s: OpmfuRankSummary (status, input_note)\n  got  %r\n  want %r" % (r, got.get(r),
                                                                                               want.get(r)))
    ops = con.execute("SELECT rank_id, op_name, kernels, kernel_ns FROM OpmfuOps ORDER BY rank_id, op_name").fetchall()
    if ops != OPS:
        fails.append("OpmfuOps %r, want %r" % (ops, OPS))
    run = con.execute("SELECT ranks, ranks_failed, ranks_analysed FROM OpmfuRun").fetchall()
    if run != [(4, 0, 4)]:
        fails.append("OpmfuRun (ranks, ranks_failed, ranks_analysed) %r, want [(4, 0, 4)]" % run)
    colls = {r[0]: r[1:] for r in con.execute("SELECT rank_id, start_ns, wait_ns, transfer_ns, call, ranks_matched, "
                                              "last_rank FROM OpmfuCollectives WHERE name = 'allreduce'")}
    want = {r: v + (1, 4, 3) for r, v in COLLS.items()}
    if colls != want:
        fails.append("OpmfuCollectives %r, want %r" % (colls, want))
    con.close()
    if "4 ranks" not in p.stdout:
        fails.append("the summary does not say 4 ranks: %r" % p.stdout[-300:])


def check_two_files(opmfu, tmp, fails):
    job = os.path.join(tmp, "job")
    os.makedirs(job)
    for n in (0, 1):
        shutil.copy(os.path.join(tmp, "multi.sqlite"), os.path.join(job, "node_rank%d.sqlite" % n))
    p, con = analyze(opmfu, job, os.path.join(tmp, "out2"))
    if con is None:
        fails.append("job/: exit %d: %s" % (p.returncode, p.stderr.strip()))
        return
    got = con.execute("SELECT rank_id, db_path FROM OpmfuRankSummary ORDER BY rank_id").fetchall()
    want = [(r, os.path.join(job, "node_rank%d.sqlite" % (r // 4))) for r in range(8)]
    if got != want:
        fails.append("job/: ranks %r, want %r" % (got, want))
    notes = [r[0] for r in con.execute("SELECT input_note FROM OpmfuRankSummary ORDER BY rank_id")]
    if notes != [note(r % 4) for r in range(8)]:
        fails.append("job/: the second file's ranks are not its pairs in order: %r" % notes)
    run = con.execute("SELECT run_id, ranks FROM OpmfuRun").fetchall()
    if run != [("nsys-job", 8)]:
        fails.append("job/: OpmfuRun (run_id, ranks) %r, want one run of 8" % run)
    con.close()


def check_clash(opmfu, tmp, fails):
    job = os.path.join(tmp, "clash")
    os.makedirs(job)
    shutil.copy(os.path.join(tmp, "multi.sqlite"), os.path.join(job, "node_rank0.sqlite"))
    export(REPO, os.path.join(job, "rank1.sqlite"), "pytorch_rank")
    p, con = analyze(opmfu, job, os.path.join(tmp, "out3"))
    if con is None:
        fails.append("clash/: exit %d: %s" % (p.returncode, p.stderr.strip()))
        return
    # names in order: node_rank0.sqlite (ranks 0-3) is found first, rank1.sqlite's rank 1 is the duplicate
    warn = "warning: rank 1 found twice: using %s (same or no timestamp: the first found), ignoring %s" % (
        os.path.join(job, "node_rank0.sqlite"), os.path.join(job, "rank1.sqlite"))
    if warn not in p.stderr:
        fails.append("clash/: stderr %r lacks %r" % (p.stderr, warn))
    got = con.execute("SELECT rank_id, db_path FROM OpmfuRankSummary ORDER BY rank_id").fetchall()
    if got != [(r, os.path.join(job, "node_rank0.sqlite")) for r in range(4)]:
        fails.append("clash/: ranks %r" % got)
    con.close()


REPO = None


def main():
    global REPO
    opmfu, REPO = sys.argv[1:3]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        export(REPO, os.path.join(tmp, "multi.sqlite"))
        check_one_file(opmfu, tmp, fails)
        check_two_files(opmfu, tmp, fails)
        check_clash(opmfu, tmp, fails)
    for f in fails:
        print(f)
    print("FAILED" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
