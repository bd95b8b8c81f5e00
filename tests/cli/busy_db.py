#!/usr/bin/env python3
"""Readers do not stall the writer (issue 27, item 4). Another process holding a
transaction on cluster_analysis.db:
- a reader, the file opmfu's alone: the staged result is renamed over it at
  once, no wait;
- a reader, the file also holding another tool's table: opmfu waits at most
  10 s, then exits 1 naming the file and why, and keeps the finished analysis
  in cluster_analysis.db.new (whole); the file is left as it was;
- the same reader letting go after 1 s: the run succeeds, the other tool's
  table intact;
- a writer holding the write lock on an opmfu-only file: exit 1 after the
  wait, the message says to mv the .new file into place, which then works.
usage: busy_db.py OPMFU SOURCE_ROOT"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

OPMFU = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "bench"))
from table_md5 import result_tables  # noqa: E402
GEN = os.path.join(os.path.dirname(OPMFU), "tests", "gen_synth")
WAIT = 10.0  # OPMFU_DB_BUSY_WAIT_MS
problems = []

HOLDER = r"""
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
if sys.argv[2] == "read":
    con.execute("BEGIN")
    con.execute("SELECT count(*) FROM OperatorMFU").fetchone()
else:
    con.execute("BEGIN IMMEDIATE")
print("ready", flush=True)
time.sleep(float(sys.argv[3]))
con.execute("COMMIT")
print("done", flush=True)
"""


def check(ok, what):
    if not ok:
        problems.append(what)
        print("  FAILED: " + what)


def state(path):
    con = sqlite3.connect(path)
    try:
        ic = con.execute("PRAGMA integrity_check").fetchone()[0]
        names = result_tables(con)
        return ic, {n: con.execute('SELECT count(*) FROM "%s"' % n).fetchone()[0] for n in names}
    finally:
        con.close()


def run(data, out):
    t = time.monotonic()
    r = subprocess.run([OPMFU, "analyze", data, "-o", out, "-q"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return r, time.monotonic() - t


def hold(db, mode, seconds):
    p = subprocess.Popen([sys.executable, "-c", HOLDER, db, mode, str(seconds)], stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "ready", "the %s did not start" % mode)
    return p


def main():
    work = tempfile.mkdtemp(prefix="opmfu-busy-")
    data_a = os.path.join(work, "a")
    data_b = os.path.join(work, "b")
    subprocess.run([GEN, "-o", data_a, "-r", "2", "-n", "3000", "-s", "1", "-q"], check=True)
    subprocess.run([GEN, "-o", data_b, "-r", "3", "-n", "2000", "-s", "2", "-q"], check=True)
    out = os.path.join(work, "out")
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    new = db + ".new"

    r, _ = run(data_a, out)
    check(r.returncode == 0, "first run: exit %d: %s" % (r.returncode, r.stderr))
    _, counts_a = state(db)
    r, _ = run(data_b, out)
    _, counts_b = state(db)
    check(counts_a != counts_b, "the two inputs give the same tables")

    # a reader on an opmfu-only file: no wait at all
    rd = hold(db, "read", 30)
    r, t = run(data_a, out)
    check(r.returncode == 0, "reader, opmfu's file: exit %d: %s" % (r.returncode, r.stderr))
    check(t < WAIT / 2, "reader, opmfu's file: took %.1f s" % t)
    check(state(db) == ("ok", counts_a), "reader, opmfu's file: result %s" % (state(db),))
    check(not os.path.exists(new), "reader, opmfu's file: a .new file")
    rd.kill()
    rd.wait()
    print("%-40s ok (%.1f s)" % ("reader, opmfu-only file", t))

    # another tool's table: opmfu's tables are copied in, which a reader blocks
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE OtherTool (x INTEGER)")
    con.execute("INSERT INTO OtherTool VALUES (1), (2)")
    con.commit()
    con.close()
    before = dict(counts_a, OtherTool=2)
    check(state(db) == ("ok", before), "setup: %s" % (state(db),))
    rd = hold(db, "read", 60)
    r, t = run(data_b, out)
    rd.kill()
    rd.wait()
    check(r.returncode == 1, "reader holds on: exit %d, expected 1" % r.returncode)
    check(WAIT - 0.5 <= t < WAIT + 10, "reader holds on: took %.1f s, expected about %.0f" % (t, WAIT))
    check(db in r.stderr and "busy" in r.stderr and new in r.stderr and "transaction" in r.stderr,
          "reader holds on: message %r" % r.stderr)
    check(state(db) == ("ok", before), "reader holds on: the file changed: %s" % (state(db),))
    check(os.path.exists(new) and state(new) == ("ok", counts_b),
          "reader holds on: the analysis is not kept whole in .new: %s" % (state(new) if os.path.exists(new) else None,))
    print("%-40s ok (%.1f s): %s" % ("reader holds on, other tool's table", t, r.stderr.strip()))
    os.unlink(new)

    # the reader lets go after 1 s: the run waits and succeeds
    rd = hold(db, "read", 1)
    r, t = run(data_b, out)
    rd.wait()
    check(r.returncode == 0, "reader lets go: exit %d: %s" % (r.returncode, r.stderr))
    check(state(db) == ("ok", dict(counts_b, OtherTool=2)), "reader lets go: result %s" % (state(db),))
    check(not os.path.exists(new), "reader lets go: a .new file")
    print("%-40s ok (%.1f s)" % ("reader lets go after 1 s", t))

    # a writer on an opmfu-only file: wait, keep, and the .new file moves into place
    con = sqlite3.connect(db)
    con.execute("DROP TABLE OtherTool")
    con.commit()
    con.close()
    wr = hold(db, "write", 60)
    r, t = run(data_a, out)
    wr.kill()
    wr.wait()
    check(r.returncode == 1, "writer holds on: exit %d, expected 1" % r.returncode)
    check("mv '%s' '%s'" % (new, db) in r.stderr, "writer holds on: message %r" % r.stderr)
    check(state(db) == ("ok", counts_b), "writer holds on: the file changed")
    os.replace(new, db)
    check(state(db) == ("ok", counts_a), "writer holds on: the moved .new file: %s" % (state(db),))
    print("%-40s ok (%.1f s)" % ("writer holds on, opmfu-only file", t))

    if problems:
        print("busy_db: %d problems; kept %s" % (len(problems), work))
        return 1
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
