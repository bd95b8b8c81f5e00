#!/usr/bin/env python3
"""Bounded work and output on hostile inputs (issue 27 items 1 and 2, SPEC 26).

Synthetic Kineto traces, small enough for CI, with the shapes that once grew
quadratically; linear growth is asserted by running two sizes and comparing
ratios (output bytes, peak RSS from os.wait4, wall time):

- N nn.Module events with one identical span (a chain N deep), at N and 4N:
  output and peak RSS must stay flat (the depth cap holds OpmfuModules at 20
  paths), not grow 16x as before;
- modules strictly nested 100 deep: one warning with the exact counts, 20
  OpmfuModules paths, depth at most 20;
- 1 MB names on the kernel, the op and the module and a 1 MB shape string:
  cut at 16 KiB with the marker in db, csv and json, one warning, output
  bounded;
- one JSON string token of 8 and 32 MiB (gzip'd): time grows ~4x, not ~16x;
  a 65 MiB token fails the rank naming the byte where it starts;
- N Ascend Module ranges with one span (gen_synth's database and N MSTX
  ranges), at N and 4N: output and peak RSS flat, OpmfuModules 20 deep;
- a long name repeated in many rows (an Ascend database from gen_synth): the
  results outgrow the input more than 16 times, and one warning says so.

usage: bounds.py OPMFU SOURCE_ROOT
"""
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

OPMFU = os.path.abspath(sys.argv[1])
MARK = "\u2026[cut, "
failures = []


def check(cond, what):
    print(("ok      " if cond else "FAILED  ") + what)
    if not cond:
        failures.append(what)


def kineto(path, n_mods, nested=False, name="Block", n_ops=4, opname="aten::mm", kname="gemm_kernel", dims=None):
    """Modules (one span, or each inside the previous) around n_ops ops with one kernel each."""
    ev = []
    t0 = 1419247332000.0
    span = 10.0 * (n_ops + 2)
    for i in range(n_mods):
        ts, dur = (t0 + i * 0.001, span + (n_mods - i) * 0.002) if nested else (t0, span)
        ev.append({"ph": "X", "cat": "python_function", "name": "nn.Module: %s_%d" % (name, i) if nested
                   else "nn.Module: " + name, "pid": 100, "tid": 100, "ts": ts, "dur": dur, "args": {"Python id": i + 1}})
    base = t0 + n_mods * 0.001 + 1
    for k in range(n_ops):
        ts = base + k * 5
        ev.append({"ph": "X", "cat": "cpu_op", "name": opname, "pid": 100, "tid": 100, "ts": ts, "dur": 2.0,
                   "args": {"External id": k + 1, "Input Dims": dims or [[64, 64], [64, 64]],
                            "Input type": ["float", "float"]}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                   "ts": ts + 0.5, "dur": 1.0, "args": {"External id": k + 1, "correlation": 1000 + k}})
        ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": ts + 1, "dur": 3.0,
                   "args": {"External id": k + 1, "correlation": 1000 + k, "device": 0, "stream": 7}})
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(doc, f)


def run(inp, out, *extra):
    """opmfu analyze: (exit code, stderr, peak RSS in KB, seconds)."""
    t = time.monotonic()
    p = subprocess.Popen([OPMFU, "analyze", inp, "-o", out, "-q", "-j", "1"] + list(extra),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode("utf-8", "replace")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, ru.ru_maxrss, time.monotonic() - t


def tree_bytes(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


def db(out):
    return sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))


def identical_spans(tmp):
    sizes, rss = [], []
    for n in (2000, 8000):
        d = os.path.join(tmp, "same%d" % n)
        os.makedirs(d)
        kineto(os.path.join(d, "r.pt.trace.json"), n)
        rc, err, kb, _ = run(d, d + ".out")
        check(rc == 0, "identical spans N=%d: exit 0 (%s)" % (n, err.strip()[:200]))
        sizes.append(tree_bytes(d + ".out"))
        rss.append(kb)
        with db(d + ".out") as c:
            check(c.execute("select count(*), max(depth) from OpmfuModules").fetchone() == (20, 20),
                  "identical spans N=%d: 20 OpmfuModules paths, depth 20" % n)
    r_out, r_rss = sizes[1] / sizes[0], rss[1] / rss[0]
    print("        output %d -> %d bytes (x%.2f), peak RSS %d -> %d KB (x%.2f)" % (sizes[0], sizes[1], r_out, rss[0],
                                                                              rss[1], r_rss))
    check(r_out < 2.0, "identical spans 4N: output grows x%.2f (< 2; was ~14)" % r_out)
    check(r_rss < 4.0, "identical spans 4N: peak RSS grows x%.2f (< 4)" % r_rss)


def nested(tmp):
    d = os.path.join(tmp, "nested")
    os.makedirs(d)
    kineto(os.path.join(d, "r.pt.trace.json"), 100, nested=True)
    rc, err, _, _ = run(d, d + ".out")
    want = ("opmfu: warning: rank -1: 80 Module ranges nested more than 20 deep have no OpmfuModules row of their "
            "own: their 4 ops count in their ancestor at depth 20 (ModuleMFU leaves them out, as the reference does)")
    check(rc == 0 and err.splitlines() == [want], "nested 100 deep: one warning with the counts (%r)" % err[:300])
    with db(d + ".out") as c:
        rows = c.execute("select count(*), max(depth), max(calls) from OpmfuModules").fetchone()
        check(rows == (20, 20, 1), "nested 100 deep: 20 paths, depth <= 20, one call each (%r)" % (rows,))
        deep = c.execute("select kernel_ns, self_kernel_ns from OpmfuModules where depth = 20").fetchone()
        check(deep == (12000, 12000), "nested 100 deep: the 4 ops count at depth 20 (%r)" % (deep,))


def long_names(tmp):
    d = os.path.join(tmp, "names")
    os.makedirs(d)
    big = 1 << 20
    kineto(os.path.join(d, "r.pt.trace.json"), 3, name="M" * big, opname="aten::mm" + "x" * big, kname="k" * big,
           dims=[[64] * (big // 4), [64, 64]])
    out = d + ".out"
    rc, err, _, _ = run(d, out, "--export", "db,csv,json")
    lines = [l for l in err.splitlines() if "cut to that length" in l]
    check(rc == 0 and len(lines) == 1 and "4 names or shape strings longer than 16384 bytes" in lines[0],
          "1 MB names: one warning counting 4 strings (%r)" % err[:300])
    base = os.path.join(out, "cluster_analysis_output")
    with db(out) as c:
        for table, col in (("OpmfuOps", "op_name"), ("OpmfuKernels", "kernel_name"), ("OpmfuModules", "module")):
            v = c.execute("select %s from %s limit 1" % (col, table)).fetchone()
            ok = v is not None and MARK in v[0] and len(v[0].encode()) <= 16384 * 3 + 2
            check(ok, "1 MB names: %s.%s cut with the marker in the db" % (table, col))
    for sub, ext in (("csv", ".csv"), ("json", ".jsonl")):
        p = os.path.join(base, sub, "OpmfuOps" + ext)
        text = open(p, encoding="utf-8").read() if os.path.exists(p) else ""
        check(MARK + "%d bytes]" % (len("aten::mm") + big) in text, "1 MB names: marker in %s" % p[len(base) + 1:])
    total = tree_bytes(out)
    check(total < 4 << 20, "1 MB names: output %d bytes, bounded (< 4 MB for a 4 MB input)" % total)


def token(path, size):
    with gzip.open(path, "wb", 1) as f:
        f.write(b'{"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "kernel", "name": "')
        chunk = b"a" * (1 << 20)
        for _ in range(size >> 20):
            f.write(chunk)
        f.write(b'", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 0}}]}')


def json_token(tmp):
    secs = []
    for mib in (8, 32):
        p = os.path.join(tmp, "tok%d.pt.trace.json.gz" % mib)
        token(p, mib << 20)
        best = None
        for _ in range(2):
            rc, err, _, s = run(p, p + ".out")
            best = s if best is None else min(best, s)
        check(rc == 0, "%d MiB token: read (%s)" % (mib, err.strip()[:200]))
        secs.append(best)
    r = secs[1] / secs[0]
    print("        %.3f s -> %.3f s (x%.2f)" % (secs[0], secs[1], r))
    check(r < 8, "JSON token 4x longer: time x%.2f (< 8; quadratic was ~14)" % r)
    p = os.path.join(tmp, "tok65.pt.trace.json.gz")
    token(p, 65 << 20)
    rc, err, _, _ = run(p, p + ".out")
    want = "%s: JSON token longer than 67108864 bytes at byte 74" % p
    check(rc == 1 and want in err, "65 MiB token: the rank fails naming the byte (%r)" % err[:300])


def output_ratio(tmp):
    """A repeated long name: stored once in the input's STRING_IDS, written in
    every row that has it. The results outgrow the input many times over and
    one warning says so (docs/cli.md, Limits)."""
    gen = os.path.join(os.path.dirname(OPMFU), "tests", "gen_synth")
    src = os.path.join(tmp, "repeated")
    subprocess.run([gen, "-o", src, "-r", "1", "-n", "3000", "-s", "1", "-q"], check=True)
    path = next(os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs if f.endswith(".db"))
    con = sqlite3.connect(path)
    # every kernel name and output shape list (OperatorMFU's text columns; OpmfuOps keeps a
    # rank's names once, docs/output-schema.md)
    ids = [r[0] for r in con.execute("SELECT name FROM COMPUTE_TASK_INFO UNION SELECT outputShapes "
                                     "FROM COMPUTE_TASK_INFO")]
    for i in ids:  # 16,000 more bytes: under the 16 KiB cut, so written whole in every row
        con.execute("UPDATE STRING_IDS SET value = value || ? WHERE id = ?", ("x" * 16000, i))
    con.commit()
    con.close()
    out = os.path.join(tmp, "repeated.out")
    rc, err, _, _ = run(src, out)
    ratio = tree_bytes(os.path.join(out, "cluster_analysis_output")) / os.path.getsize(path)
    print("        output %.0f times the input" % ratio)
    check(rc == 0 and ratio > 16, "repeated long names: the run succeeds, output %.0f times the input" % ratio)
    check(err.count("warning: the results take") == 1 and "times the inputs'" in err and
          "(more than 16 times): names or shapes of up to 16384 bytes repeated in many rows?" in err,
          "repeated long names: one warning about the output's size (%r)" % err[:300])
    # an ordinary input: no such warning
    subprocess.run([gen, "-o", os.path.join(tmp, "plain"), "-r", "1", "-n", "3000", "-s", "1", "-q"], check=True)
    rc, err, _, _ = run(os.path.join(tmp, "plain"), os.path.join(tmp, "plain.out"))
    check(rc == 0 and "the results take" not in err, "an ordinary input: no warning about the output's size")


def ascend_identical_spans(tmp):
    """N Ascend Module ranges with one span around every op (a chain N deep),
    added to a gen_synth database, at N and 4N: OpmfuModules stays at 20 paths
    and the output flat (the issue's 20,000 ranges took 13.5 GB and wrote 17 GB)."""
    gen = os.path.join(os.path.dirname(OPMFU), "tests", "gen_synth")
    sizes = {}
    for n in (500, 2000):
        src = os.path.join(tmp, "asc%d" % n)
        subprocess.run([gen, "-o", src, "-r", "1", "-n", "3000", "-s", "1", "-q"], check=True)
        path = next(os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs if f.endswith(".db"))
        con = sqlite3.connect(path)
        dom = con.execute("SELECT id FROM STRING_IDS WHERE value = 'Module'").fetchone()[0]
        tid = con.execute("SELECT globalTid FROM MSTX_EVENTS WHERE domainId = ? LIMIT 1", (dom,)).fetchone()[0]
        lo, hi = con.execute("SELECT min(CAST(startNs AS INTEGER)), max(CAST(endNs AS INTEGER)) FROM PYTORCH_API").fetchone()
        msg = con.execute("SELECT max(id) + 1 FROM STRING_IDS").fetchone()[0]
        con.execute("INSERT INTO STRING_IDS (id, value) VALUES (?, 'Block')", (msg,))
        con.executemany("INSERT INTO MSTX_EVENTS (startNs, endNs, eventType, message, globalTid, domainId) "
                        "VALUES (?, ?, 2, ?, ?, ?)", [(lo - 1, hi + 1, msg, tid, dom)] * n)
        con.commit()
        con.close()
        out = os.path.join(tmp, "asc%d.out" % n)
        rc, err, rss, secs = run(src, out)
        check(rc == 0 and "nested more than 20 deep have no OpmfuModules row" in err,
              "Ascend identical spans N=%d: exit 0 and the depth warning (%s)" % (n, err.strip()[:160]))
        depth = db(out).execute("SELECT max(depth) FROM OpmfuModules").fetchone()[0]
        check(depth == 20, "Ascend identical spans N=%d: OpmfuModules at most 20 deep (%s)" % (n, depth))
        sizes[n] = (tree_bytes(os.path.join(out, "cluster_analysis_output")), rss, secs)
    r_out = sizes[2000][0] / sizes[500][0]
    r_rss = sizes[2000][1] / sizes[500][1]
    print("        output x%.2f, peak RSS x%.2f for 4x the ranges" % (r_out, r_rss))
    check(r_out < 1.5 and r_rss < 2, "Ascend identical spans 4x: output x%.2f, RSS x%.2f (flat; quadratic is ~16)"
          % (r_out, r_rss))


with tempfile.TemporaryDirectory() as tmp:
    ascend_identical_spans(tmp)
    output_ratio(tmp)
    identical_spans(tmp)
    nested(tmp)
    long_names(tmp)
    json_token(tmp)
if failures:
    print("bounds: %d checks failed" % len(failures))
    sys.exit(1)
