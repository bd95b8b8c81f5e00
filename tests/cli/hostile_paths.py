#!/usr/bin/env python3
"""Inputs that used to hang opmfu or walk the whole machine (issue 27, items 3
and 8; SPEC 26). usage: hostile_paths.py OPMFU SOURCE_ROOT

- A FIFO named as an input (a walked *.pt.trace.json, an
  ascend_pytorch_profiler_0.db, a path on the command line, a rank's
  info.json.0) blocked open() forever. Each run here must end within a few
  seconds (a hung one is killed, with its process group, and fails) with the
  exact messages and exit status.
- A directory link to / under the input made discovery walk the file
  system, /proc included. Links leaving the input are not followed (one
  warning); a link to a folder inside it is; --follow-symlinks follows the
  one outside.
"""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import sample_rank

OPMFU = os.path.abspath(sys.argv[1])
ROOT = sys.argv[2]
SCHEMA = sample_rank.schema(ROOT)
RANK, NOT_REG = sample_rank.RANK, sample_rank.NOT_REG
TIMEOUT = 20  # seconds; a run here takes well under one (ASan included)
fails = []


def make_rank(top, rank=0, info=True):
    """A one-kernel Ascend rank directory under top; returns its database."""
    return sample_rank.make_rank(top, SCHEMA + sample_rank.DATA, rank, sample_rank.INFO if info else None)


def run(args, tmp):
    """(exit status, stderr lines with tmp written {tmp}, seconds); a run that
    does not end in TIMEOUT seconds is killed and fails the test."""
    t0 = time.monotonic()
    p = subprocess.Popen([OPMFU] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, ["hung: killed after %d s" % TIMEOUT], TIMEOUT
    return p.returncode, err.replace(tmp, "{tmp}").splitlines(), time.monotonic() - t0


def ranks_found(out):
    con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
    rows = con.execute("SELECT rank_id, db_path FROM OpmfuRankSummary ORDER BY rank_id").fetchall()
    con.close()
    return rows


def check(name, got, want):
    if got != want:
        fails.append("%s:\n  got  %r\n  want %r" % (name, got, want))


def case(name, fn):
    tmp = tempfile.mkdtemp(prefix="opmfu-hostile-")
    try:
        fn(tmp)
    except Exception as e:  # noqa: BLE001 - report and go on
        fails.append("%s: %s: %s" % (name, type(e).__name__, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fifo_walked_trace(tmp):
    tree = os.path.join(tmp, "tree")
    make_rank(tree)
    os.mkfifo(os.path.join(tree, "worker0.pt.trace.json"))
    rc, err, _ = run(["analyze", "-q", tree, "-o", os.path.join(tmp, "out")], tmp)
    check("walked FIFO trace", (rc, err),
          (0, ["opmfu: warning: {tmp}/tree/worker0.pt.trace.json: %s; skipped" % NOT_REG]))


def fifo_walked_db(tmp):
    tree = os.path.join(tmp, "tree")
    db = make_rank(tree)
    os.remove(db)
    os.mkfifo(db)
    rc, err, _ = run(["analyze", "-q", tree], tmp)
    check("walked FIFO database", (rc, err), (1, [
        "opmfu: warning: {tmp}/tree/%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db: %s; skipped"
        % (RANK, NOT_REG),
        "opmfu: error: {tmp}/tree: no rank found (looked for PyTorch profiler traces (*.json, *.json.gz) or Nsight Systems SQLite exports (*.sqlite) or "
        "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db up to 5 levels below)"]))


def fifo_named(tmp):
    for name in ("rank0.pt.trace.json", "ascend_pytorch_profiler_0.db", "anything"):
        p = os.path.join(tmp, name)
        os.mkfifo(p)
        rc, err, _ = run(["analyze", p], tmp)
        check("FIFO on the command line: " + name, (rc, err), (1, ["opmfu: error: {tmp}/%s: %s" % (name, NOT_REG)]))
        rc, err, _ = run(["diff", p, p], tmp)
        check("FIFO given to diff: " + name, (rc, err), (1, ["opmfu: error: {tmp}/%s: %s" % (name, NOT_REG)]))
    cfg = os.path.join(tmp, "config.json")
    os.mkfifo(cfg)
    rc, err, _ = run(["model", cfg, "--seq-len", "8", "--global-batch", "1", "--step-time", "1"], tmp)
    check("FIFO as --model's config", (rc, err), (1, ["opmfu: error: {tmp}/config.json: %s" % NOT_REG]))


def fifo_info_json(tmp):
    tree = os.path.join(tmp, "tree")
    make_rank(tree)
    info = os.path.join(tree, RANK, "PROF_1", "device_0", "info.json.0")
    os.remove(info)
    os.mkfifo(info)
    rc, err, _ = run(["analyze", "-q", tree], tmp)
    # the rank is analysed without a peak, as with a malformed info.json
    check("FIFO info.json.0", (rc, err), (0, [
        "opmfu: warning: rank 0: MFU left empty (no peak FLOPS: {tmp}/tree/%s/PROF_1/device_0/info.json.0: %s; "
        "give --chip NAME or --peak fp16=TFLOPS,... (or OPMFU_PEAK))" % (RANK, NOT_REG)]))


def symlinks(tmp):
    tree = os.path.join(tmp, "tree")
    outside = os.path.join(tmp, "outside")
    make_rank(tree)
    make_rank(outside, rank=1)
    os.symlink("/", os.path.join(tree, "root"))
    os.symlink(outside, os.path.join(tree, "elsewhere"))
    # a rank too deep to be found but through a link inside the tree
    deep = os.path.join(tree, "deep", "1", "2", "3", "4", "5")
    make_rank(deep, rank=2)
    os.symlink(os.path.join("deep", "1", "2", "3", "4", "5"), os.path.join(tree, "shortcut"))
    out = os.path.join(tmp, "out")
    rc, err, secs = run(["analyze", "-q", tree, "-o", out], tmp)
    check("links leaving the tree", (rc, err), (0, [
        "opmfu: warning: 2 symbolic links to a directory outside the input not followed "
        "(the first: {tmp}/tree/elsewhere -> {tmp}/outside); --follow-symlinks follows them"]))
    if secs > 10:
        fails.append("links leaving the tree: %.1f s (the link to / was walked?)" % secs)
    if rc == 0:
        check("ranks inside the tree only", ranks_found(out), [
            (0, "%s/%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db" % (tree, RANK)),
            (2, "%s/shortcut/%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_2.db" % (tree, RANK))])
    # asked to follow: the folder outside is walked (not the link to /: that would walk the machine)
    os.remove(os.path.join(tree, "root"))
    out2 = os.path.join(tmp, "out2")
    rc, err, _ = run(["analyze", "-q", "--follow-symlinks", tree, "-o", out2], tmp)
    check("--follow-symlinks", (rc, err), (0, []))
    if rc == 0:
        check("--follow-symlinks ranks", [r for r, _ in ranks_found(out2)], [0, 1, 2])
    # a link given on the command line is followed, whatever it points to
    named = os.path.join(tmp, "named")
    os.symlink(outside, named)
    rc, err, _ = run(["analyze", "-q", named, "-o", os.path.join(tmp, "out3")], tmp)
    check("a link on the command line", (rc, err), (0, []))
    # /proc is never walked, even when given
    rc, err, secs = run(["analyze", "-q", "--follow-symlinks", "/proc"], tmp)
    check("/proc given", (rc, err[:1]), (1, ["opmfu: warning: 1 directory under /proc or /sys not walked (/proc)"]))


for name, fn in [("fifo_walked_trace", fifo_walked_trace), ("fifo_walked_db", fifo_walked_db),
                 ("fifo_named", fifo_named), ("fifo_info_json", fifo_info_json), ("symlinks", symlinks)]:
    case(name, fn)

if fails:
    print("\n".join(fails))
    sys.exit(1)
print("ok")
