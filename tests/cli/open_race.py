#!/usr/bin/env python3
"""A database swapped for a FIFO after opmfu checked it (issue 27, item 3;
SPEC 26). usage: open_race.py OPMFU OPMFU_OPEN_RACE SOURCE_ROOT

opmfu checks that an input database is a regular file, then SQLite opens it
by name; a FIFO put in place in between blocked SQLite's open() forever.
OPMFU_OPEN_RACE is opmfu with sqlite3_open_v2 wrapped (tests/cli/open_race.c):
given OPMFU_RACE_PATH and OPMFU_RACE_FIFO it renames the FIFO over the path
just before SQLite opens it, so the swap lands in the window every time. The
run must then end at once with a message naming the file; a run that hangs
is killed after TIMEOUT seconds and fails the test.

- the Ascend reader's database (analyze);
- the base result database of diff (the results reader);
- a FIFO named as the rollback journal beside an input database, which SQLite
  opens by name on its own, after any check opmfu could make;
- the same program without the variables analyses normally (the wrapper is
  inert, so the cases above test opmfu's code).
"""
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import sample_rank

OPMFU = os.path.abspath(sys.argv[1])
RACE = os.path.abspath(sys.argv[2])
ROOT = sys.argv[3]
SCHEMA = sample_rank.schema(ROOT)
RANK, NOT_REG = sample_rank.RANK, sample_rank.NOT_REG
TIMEOUT = 8  # seconds; a run here takes well under one (ASan included)
fails = []


def make_rank(top):
    """A one-kernel Ascend rank directory under top; returns its database."""
    return sample_rank.make_rank(top, SCHEMA + sample_rank.DATA)


def run(prog, args, tmp, race=None):
    """(exit status, stderr lines with tmp written {tmp}); race: the path the
    wrapper swaps a FIFO in for. A run that does not end in TIMEOUT seconds
    is killed, with its process group, and reported as hung."""
    env = dict(os.environ)
    if race:
        fifo = os.path.join(tmp, "swap.fifo")
        os.mkfifo(fifo)
        env["OPMFU_RACE_PATH"] = race
        env["OPMFU_RACE_FIFO"] = fifo
    p = subprocess.Popen([prog] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, ["hung: killed after %d s" % TIMEOUT]
    if race and not stat.S_ISFIFO(os.stat(race).st_mode):
        return p.returncode, ["the wrapper did not swap %s: the window was not reached" % race]
    return p.returncode, err.replace(tmp, "{tmp}").splitlines()


def check(name, got, want):
    if got != want:
        fails.append("%s:\n  got  %r\n  want %r" % (name, got, want))


def case(name, fn):
    tmp = tempfile.mkdtemp(prefix="opmfu-race-")
    t0 = time.monotonic()
    try:
        fn(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%s: %.2f s" % (name, time.monotonic() - t0))


def inert(tmp):
    tree = os.path.join(tmp, "tree")
    make_rank(tree)
    rc, err = run(RACE, ["analyze", "-q", tree, "-o", os.path.join(tmp, "out")], tmp)
    check("the wrapped program without the variables", (rc, err), (0, []))


def race_rank_db(tmp):
    tree = os.path.join(tmp, "tree")
    db = make_rank(tree)
    out = os.path.join(tmp, "out")
    rc, err = run(RACE, ["analyze", "-q", tree, "-o", out], tmp, race=db)
    rel = "{tmp}/tree/%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db" % RANK
    check("Ascend database swapped for a FIFO", (rc, err), (1, [
        "opmfu: error: rank 0: %s: %s" % (rel, NOT_REG),
        "opmfu: error: 1 of 1 rank failed; {tmp}/out/cluster_analysis_output/cluster_analysis.db left unchanged"]))


def race_result_db(tmp):
    tree = os.path.join(tmp, "tree")
    make_rank(tree)
    dbs = []
    for side in ("base", "new"):
        out = os.path.join(tmp, side)
        rc, err = run(OPMFU, ["analyze", "-q", tree, "-o", out], tmp)
        check("results for diff: " + side, (rc, err), (0, []))
        dbs.append(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
    rc, err = run(RACE, ["diff", "-q", dbs[0], dbs[1]], tmp, race=dbs[0])
    check("diff's base results swapped for a FIFO", (rc, err),
          (1, ["opmfu: error: {tmp}/base/cluster_analysis_output/cluster_analysis.db: %s" % NOT_REG]))


def fifo_journal(tmp):
    tree = os.path.join(tmp, "tree")
    db = make_rank(tree)
    os.mkfifo(db + "-journal")
    rc, err = run(OPMFU, ["analyze", "-q", tree, "-o", os.path.join(tmp, "out")], tmp)
    rel = "{tmp}/tree/%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db" % RANK
    check("a FIFO as the input's -journal", (rc, err), (1, [
        "opmfu: error: rank 0: %s: reading the schema: attempt to write a readonly database (its -journal file "
        "is not a regular file (a FIFO): opmfu reads only regular files)" % rel,
        "opmfu: error: 1 of 1 rank failed; {tmp}/out/cluster_analysis_output/cluster_analysis.db left unchanged"]))


def main():
    case("inert", inert)
    case("race_rank_db", race_rank_db)
    case("race_result_db", race_result_db)
    case("fifo_journal", fifo_journal)
    if fails:
        print("\n".join(fails))
        sys.exit(1)
    print("ok")


main()
