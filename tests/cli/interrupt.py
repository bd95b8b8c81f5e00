#!/usr/bin/env python3
"""Interrupted runs leave nothing behind (issue 27, item 6): SIGINT or SIGTERM at
several moments of a run (while the first rank is read, after it, while the
workbooks are written, late in the run) ends it with that signal, leaves no
staged file (".NAME.PID.N.tmp") and the previous results whole; a clean re-run
then succeeds and leaves none either. A stale staged file of a dead process is
removed by the next run, one of a live process (or not opmfu's) is not.
usage: interrupt.py OPMFU SOURCE_ROOT"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile

OPMFU = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "bench"))
from table_md5 import result_tables  # noqa: E402
GEN = os.path.join(os.path.dirname(OPMFU), "tests", "gen_synth")
STAGED = re.compile(r"^\..+\.[0-9]+\.[0-9]+\.tmp$")
EXPORTS = ["--export", "db,xlsx,csv,json"]
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)
        print("  FAILED: " + what)


def staged_files(top):
    return sorted(os.path.join(r, n) for r, _, fs in os.walk(top) for n in fs if STAGED.match(n))


def result_dir(out):
    return os.path.join(out, "cluster_analysis_output")


def db_state(out):
    """(integrity_check, {table: rows}) of the result database."""
    con = sqlite3.connect(os.path.join(result_dir(out), "cluster_analysis.db"))
    try:
        ic = con.execute("PRAGMA integrity_check").fetchone()[0]
        names = result_tables(con)
        return ic, {n: con.execute('SELECT count(*) FROM "%s"' % n).fetchone()[0] for n in names}
    finally:
        con.close()


def whole(out, expected, label):
    """The result is a complete one: the database whole with every table's
    rows, every workbook a readable zip, every text file there."""
    ic, counts = db_state(out)
    check(ic == "ok", "%s: integrity_check %s" % (label, ic))
    check(counts == expected, "%s: tables %s, expected %s" % (label, counts, expected))
    xdir = os.path.join(result_dir(out), "OperatorMfu")
    for n in sorted(os.listdir(xdir)):
        f = os.path.join(xdir, n)
        if os.path.isdir(f):
            # libxlsxwriter's scratch files live in a hidden folder of the run's: the
            # handler removes it when empty; a scratch file a signal caught between its
            # creation and its unlinking keeps it, and the next run sweeps it
            check(re.match(r"^\.scratch\.xlsx\.\d+\.\d+\.tmp$", n) is not None and label != "clean re-run",
                  "%s: folder %s left beside the workbooks" % (label, n))
            inside = os.listdir(f)
            check(all(os.path.getsize(os.path.join(f, m)) == 0 for m in inside),
                  "%s: %s holds %s" % (label, n, inside))
            print("  note: %s: scratch folder %s left with %d empty file(s), for the next run to sweep"
                  % (label, n, len(inside)))
            continue
        try:
            with zipfile.ZipFile(os.path.join(xdir, n)) as z:
                check(z.testzip() is None, "%s: %s has a bad member" % (label, n))
        except zipfile.BadZipFile:
            check(False, "%s: %s is not a workbook" % (label, n))
    for sub, ext in (("csv", ".csv"), ("json", ".jsonl")):
        names = sorted(os.listdir(os.path.join(result_dir(out), sub)))
        check(len(names) == len(expected) and all(n.endswith(ext) for n in names),
              "%s: %s holds %s" % (label, sub, names))


def run(data, out, extra=()):
    return subprocess.run([OPMFU, "analyze", data, "-o", out, "-q"] + EXPORTS + list(extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(pred, p, limit=60.0):
    """Polls pred() until true or p ends; True when pred held while p ran."""
    end = time.monotonic() + limit
    while time.monotonic() < end and p.poll() is None:
        if pred():
            return True
        time.sleep(0.002)
    return False


def interrupted(data, out, expected, sig, label, moment):
    """Starts a run, sends sig once moment(p) says so, and checks the aftermath."""
    p = subprocess.Popen([OPMFU, "analyze", data, "-o", out, "-q", "-j", "1"] + EXPORTS,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reached = moment(p)
    if p.poll() is None:
        p.send_signal(sig)
    _, err = p.communicate()
    if not reached or p.returncode == 0:
        # the run ended before the moment: nothing to check but the result
        print("%-34s run ended first (exit %d)" % (label, p.returncode))
    else:
        check(p.returncode == -sig, "%s: exit %d, expected %d (%s)" % (label, p.returncode, -sig, err.strip()))
        print("%-34s ended by signal %d" % (label, -p.returncode))
    left = staged_files(out)
    check(not left, "%s: staged files left: %s" % (label, left))
    whole(out, expected, label)


def main():
    work = tempfile.mkdtemp(prefix="opmfu-interrupt-")
    data = os.path.join(work, "data")
    small = os.path.join(work, "small")
    subprocess.run([GEN, "-o", data, "-r", "4", "-n", "25000", "-s", "1", "-q"], check=True)
    subprocess.run([GEN, "-o", small, "-r", "2", "-n", "500", "-s", "1", "-q"], check=True)
    out = os.path.join(work, "out")

    # the previous result every interrupted run must leave whole
    r = run(data, out)
    check(r.returncode == 0, "first run: exit %d: %s" % (r.returncode, r.stderr))
    ic, expected = db_state(out)
    t0 = time.monotonic()
    r = run(data, out, ["-j", "1"])
    wall = time.monotonic() - t0
    check(r.returncode == 0, "second run: exit %d: %s" % (r.returncode, r.stderr))
    xdir = os.path.join(result_dir(out), "OperatorMfu")

    def staged_in(d, prefix):
        return lambda: any(n.startswith(prefix) and STAGED.match(n) for n in os.listdir(d))

    def after(pred, delay=0.0):
        def moment(p):
            ok = wait_for(pred, p)
            time.sleep(delay)
            return ok
        return moment

    def at(fraction):
        return lambda p: (time.sleep(wall * fraction), p.poll() is None)[1]

    cases = [
        ("SIGINT at the start", signal.SIGINT, after(staged_in(result_dir(out), ".cluster_analysis.db."))),
        ("SIGINT while rank 0 is written", signal.SIGINT, after(staged_in(xdir, ".operator_mfu_kernel_0.xlsx."))),
        ("SIGINT after the first rank", signal.SIGINT, after(staged_in(xdir, ".operator_mfu_kernel_1.xlsx."))),
        ("SIGTERM after the first rank", signal.SIGTERM, after(staged_in(xdir, ".operator_mfu_kernel_1.xlsx."))),
        ("SIGINT while the last rank is written", signal.SIGINT,
         after(staged_in(xdir, ".operator_mfu_kernel_3.xlsx."))),
        ("SIGINT at 50 % of a run", signal.SIGINT, at(0.5)),
        ("SIGTERM at 85 % of a run", signal.SIGTERM, at(0.85)),
    ]
    for label, sig, moment in cases:
        interrupted(data, out, expected, sig, label, moment)

    # a clean re-run: complete, nothing left over
    r = run(data, out)
    check(r.returncode == 0, "clean re-run: exit %d: %s" % (r.returncode, r.stderr))
    check(not staged_files(out), "clean re-run: staged files left: %s" % staged_files(out))
    whole(out, expected, "clean re-run")
    print("%-34s ok" % "clean re-run")

    # stale staged files: a dead process's go, a live one's and other names stay
    sout = os.path.join(work, "stale")
    r = run(small, sout)
    check(r.returncode == 0, "stale: first run: exit %d: %s" % (r.returncode, r.stderr))
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = os.getpid()
    rd = result_dir(sout)
    gone = [os.path.join(rd, ".cluster_analysis.db.%d.0.tmp" % dead.pid),
            os.path.join(rd, "csv", ".OperatorMFU.csv.%d.3.tmp" % dead.pid),
            os.path.join(rd, "json", ".OpmfuOps.jsonl.%d.12.tmp" % dead.pid),
            os.path.join(rd, "OperatorMfu", ".operator_mfu_kernel_0.xlsx.%d.7.tmp" % dead.pid)]
    kept = [os.path.join(rd, ".cluster_analysis.db.%d.0.tmp" % live),
            os.path.join(rd, "csv", ".OperatorMFU.csv.%d.5.tmp" % live),
            os.path.join(rd, "OperatorMfu", ".operator_mfu_kernel_0.xlsx.%d.1.tmp" % live),
            os.path.join(rd, "csv", ".notes.txt.%d.0.tmp" % dead.pid),
            os.path.join(rd, "csv", "OperatorMFU.csv.%d.0.tmp" % dead.pid)]
    for f in gone + kept:
        with open(f, "w") as fh:
            fh.write("x")
    # a scratch folder of libxlsxwriter's that a signal left with a file in it
    scratch = os.path.join(rd, "OperatorMfu", ".scratch.xlsx.%d.2.tmp" % dead.pid)
    live_scratch = os.path.join(rd, "OperatorMfu", ".scratch.xlsx.%d.4.tmp" % live)
    for d in (scratch, live_scratch):
        os.mkdir(d)
        open(os.path.join(d, "tmp.AbC123"), "w").close()
    gone.append(scratch)
    kept.append(live_scratch)
    r = run(small, sout)
    check(r.returncode == 0, "stale: run: exit %d: %s" % (r.returncode, r.stderr))
    for f in gone:
        check(not os.path.exists(f), "stale: %s of a dead process not removed" % os.path.relpath(f, work))
    for f in kept:
        check(os.path.exists(f), "stale: %s removed" % os.path.relpath(f, work))
    shutil.rmtree(live_scratch, ignore_errors=True)
    print("%-34s ok" % "stale staged files")

    if problems:
        print("interrupt: %d problems; kept %s" % (len(problems), work))
        return 1
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
