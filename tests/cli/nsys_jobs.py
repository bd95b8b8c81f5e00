#!/usr/bin/env python3
"""An Nsight Systems rank read on one thread (-j 1) and with its NVTX_EVENTS on a
second connection and thread (-j 2, -j 4: read/nsys/read_nsys.c) gives the same
tables, row for row (each table's md5), and the same report.

Inputs: a generated export (tests/bench/gen_nsys_big.py, 20,000 kernels: ops,
modules and steps, the steps' names through textId), the nsys_ranges fixture
(ranges of the NCCL domain and of CCCL's, user ranges, a second thread) and the
two ranks of the nsys_pytorch fixture, each rank given alone. For the generated
export the rank's input note is also checked against the generator, by hand:
kernel i runs 2000 ns, has correlationId i + 1 as runtime call i does, and is
launched at 3000 i + 500, inside op range i [3000 i + 100, 3000 i + 2000] on the
same thread; its name is NAMES[i % 4], the third an NCCL kernel: 15,000 compute
kernels, all in an op range, 5,000 communication kernels, all in one, 40,000,000
ns of kernel time, 20,000 launches; a copy every 100 kernels and a module range
every 100 ops: 200 of each.

usage: nsys_jobs.py OPMFU SOURCE_ROOT
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

root = sys.argv[2]
sys.path.insert(0, os.path.join(root, "tools"))
sys.path.insert(0, os.path.join(root, "tests", "bench"))
from table_md5 import table_md5s  # noqa: E402
from build_fixture import build_fixture  # noqa: E402

NOTE = ("nsys 2025.3.1.90; 15000 GPU kernels on device 0 (40000000 ns), 20000 launches: 15000 in an NVTX op "
        "range, 0 in none; 5000 communication kernels (5000 in a range); 200 copies and memsets; 200 module ranges; ")


def run(opmfu, inp, out, j):
    p = subprocess.run([opmfu, "analyze", inp, "-o", out, "-j", str(j)], capture_output=True, text=True, timeout=120)
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    # the report's last line says how long the run took: the only line that may differ
    lines = [l for l in p.stdout.splitlines() if not l.startswith("wrote ")]
    # every table's rows in order, by md5 (tests/bench/table_md5.py)
    return p.returncode, lines, p.stderr, table_md5s(db) if os.path.exists(db) else None


def main():
    opmfu = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="opmfu-nsys-jobs-")
    fails = []
    try:
        gen = os.path.join(tmp, "gen.sqlite")
        subprocess.run([sys.executable, os.path.join(root, "tests", "bench", "gen_nsys_big.py"), gen,
                        "--kernels", "20000"], check=True)
        inputs = [gen]
        for case in ("nsys_ranges", "nsys_pytorch"):
            build_fixture(root, case, os.path.join(tmp, case))
        inputs.append(os.path.join(tmp, "nsys_ranges", "trace.sqlite"))
        inputs += [os.path.join(tmp, "nsys_pytorch", "job", "rank%d.sqlite" % k) for k in (0, 1)]
        for inp in inputs:
            name = os.path.relpath(inp, tmp)
            first = None
            for j in (1, 2, 4):
                got = run(opmfu, inp, os.path.join(tmp, "out-%s-%d" % (name.replace("/", "_"), j)), j)
                if got[0] != 0:
                    fails.append("%s -j %d: exit %d: %s" % (name, j, got[0], got[2]))
                if not got[3] or got[3].get("OperatorMFU", (0,))[0] == 0:
                    fails.append("%s -j %d: no rows written" % (name, j))
                if first is None:
                    first = got
                elif got != first:
                    what = [w for w, a, b in zip(("exit", "report", "stderr", "tables"), got, first) if a != b]
                    fails.append("%s: -j %d differs from -j 1 in %s" % (name, j, ", ".join(what)))
            if inp == gen:
                con = sqlite3.connect(os.path.join(tmp, "out-gen.sqlite-2", "cluster_analysis_output",
                                                   "cluster_analysis.db"))
                note = con.execute("SELECT input_note FROM OpmfuRankSummary").fetchone()[0]
                con.close()
                if not note.startswith(NOTE):
                    fails.append("generated export: note %r, expected it to start with %r" % (note, NOTE))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print(f)
    print("nsys_jobs: %s" % ("ok" if not fails else "%d failures" % len(fails)))
    return 1 if fails else 0


sys.exit(main())
