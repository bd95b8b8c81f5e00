#!/usr/bin/env python3
"""Inputs are never written to (issue 23): a WAL-mode database opens on a
read-only folder, a read-only mount and a writable folder alike, and no file
ever appears beside it (SQLite's plain read-only open would create -wal and
-shm there). usage: readonly_inputs.py OPMFU SOURCE_ROOT

Each case copies a rank directory, runs opmfu on it and checks: the exit
status and exact messages; the listing of the copied tree before and after
(every file's name, size and SHA-256: nothing appears, nothing changes); and
that the result (stdout and every table, paths written as {tree}) equals the
reference run on the same database converted to the rollback journal (the
"normal" case). Two inputs: the real level-1 export of ../shared/real (a
WAL database, with an empty -wal and a -shm, 187 kernel-op links) and
fixtures/module_tree (rows in every table), made WAL here.

Root ignores permissions, so as root the read-only folder is read as user
nobody (setpriv); the read-only mount needs an unprivileged user and mount
namespace (unshare -r -m) and is skipped, saying so, where that is not
allowed.
"""
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
REAL = os.path.join(SHARED, "real", "level1", "rank0_ascend_pt")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from build_fixture import build_tree  # noqa: E402

TABLES = ("OperatorMFU", "ModuleMFU", "OpmfuRankSummary")
NOBODY = 65534
fails = []


def listing(top):
    """Every file under top: relative name -> (size, sha256)."""
    res = {}
    for root, dirs, files in os.walk(top):
        for n in files:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                res[os.path.relpath(p, top)] = (os.path.getsize(p), hashlib.sha256(f.read()).hexdigest())
    return res


def the_db(tree):
    for root, dirs, files in os.walk(tree):
        for n in files:
            if n.startswith("ascend_pytorch_profiler") and n.endswith(".db"):
                return os.path.join(root, n)
    raise AssertionError("no database under " + tree)


def journal_mode(db, mode):
    con = sqlite3.connect(db)
    got = con.execute("PRAGMA journal_mode=%s" % mode).fetchone()[0]
    con.close()
    assert got == mode.lower(), got


def result(out, tree, stdout):
    """stdout and every table, the tree's path written {tree}."""
    text = re.sub(r"in \d+\.\d+ s\b", "in X s", stdout.replace(out, "{out}").replace(tree, "{tree}"))
    db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    for t in TABLES:
        for row in con.execute('SELECT * FROM "%s" ORDER BY rowid' % t):
            text += t + " " + repr(tuple(v.replace(tree, "{tree}") if isinstance(v, str) else v for v in row)) + "\n"
    con.close()
    shutil.rmtree(out)
    return text


def run(tree, out, prefix=(), user=None):
    args = list(prefix) + [OPMFU, "analyze", tree, "-o", out, "--peak", "fp16=353.9,int8=707.8", "--verbose"]
    if user is not None:
        args = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + args
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def check(name, cond, detail=""):
    if not cond:
        fails.append(name)
        print("%s: FAILED %s" % (name, detail))


def case(name, tree, out, want_result=None, want_exit=0, want_stderr="", prefix=(), user=None):
    before = listing(tree)
    p = run(tree, out, prefix, user)
    after = listing(tree)
    check(name, p.returncode == want_exit, "exit %d, expected %d\n%s" % (p.returncode, want_exit, p.stderr))
    err = p.stderr.replace(out, "{out}").replace(tree, "{tree}")
    check(name, err == want_stderr, "stderr:\n%s--- expected:\n%s" % (err, want_stderr))
    check(name, before == after, "the input tree changed: %s" % sorted(set(after.items()) ^ set(before.items())))
    if want_result is not None and p.returncode == 0:
        got = result(out, tree, p.stdout)
        check(name, got == want_result, "result:\n%s--- expected:\n%s" % (got, want_result))
    if name not in fails:
        print("%s: ok" % name)
    return p


def seal(top):
    """Read-only for everyone: files 0444, folders 0555."""
    for root, dirs, files in os.walk(top):
        for n in files:
            os.chmod(os.path.join(root, n), 0o444)
        os.chmod(root, 0o555)


def unseal(top):
    for root, dirs, files in os.walk(top):
        os.chmod(root, 0o755)


def copy(src, dst):
    shutil.copytree(src, dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o755)
        for n in files:
            os.chmod(os.path.join(root, n), 0o644)
    return dst


def read_only_dir(name, tree, out, want):
    seal(tree)
    try:
        if os.geteuid() == 0:
            os.makedirs(out, exist_ok=True)
            os.chown(out, NOBODY, NOBODY)
            case(name, tree, out, want, user=NOBODY)
        else:
            case(name, tree, out, want)
    finally:
        unseal(tree)


def read_only_mount(name, tree, out, want):
    probe = subprocess.run(["unshare", "-r", "-m", "sh", "-c", 'mount --bind "$0" "$0" && '
                            'mount -o remount,bind,ro "$0" "$0" && ! touch "$0/.probe" 2>/dev/null', tree],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print("%s: skipped: no unprivileged read-only bind mount here (unshare -r -m: %s)"
              % (name, (probe.stderr.strip().splitlines() or ["refused"])[-1]))
        return
    prefix = ["unshare", "-r", "-m", "sh", "-c",
              'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"', tree]
    case(name, tree, out, want, prefix=prefix)


def wal_cases(label, src, tmp):
    """Every case on one rank directory src."""
    ref_tree = copy(src, os.path.join(tmp, label, "ref"))
    for n in ("-wal", "-shm"):
        if os.path.exists(the_db(ref_tree) + n):
            os.remove(the_db(ref_tree) + n)
    journal_mode(the_db(ref_tree), "DELETE")
    p = run(ref_tree, os.path.join(tmp, label, "out"))
    check(label + "_reference", p.returncode == 0, p.stderr)
    want = result(os.path.join(tmp, label, "out"), ref_tree, p.stdout)

    def fresh(case_name, wal_files=True, parent=None):
        tree = copy(src, os.path.join(parent or os.path.join(tmp, label), case_name))
        db = the_db(tree)
        if not wal_files:
            for n in ("-wal", "-shm"):
                if os.path.exists(db + n):
                    os.remove(db + n)
        return tree, os.path.join(tmp, label, case_name + "_out")

    # WAL with its -wal (empty) and -shm, on a writable disk: neither is touched
    case(label + "_wal_writable", *fresh("wal"), want)
    # WAL closed cleanly (no -wal, no -shm): none appears
    case(label + "_wal_clean", *fresh("clean", wal_files=False), want)
    tree, out = fresh("rodir")
    read_only_dir(label + "_read_only_dir", tree, out, want)
    tree, out = fresh("rodir_clean", wal_files=False)
    read_only_dir(label + "_read_only_dir_clean", tree, out, want)
    read_only_mount(label + "_read_only_mount", *fresh("romount", wal_files=False), want)
    # '%', '?', '#', a space and UTF-8 in the path: SQLite's URI must not read them as syntax
    odd = os.path.join(tmp, label, "odd %41 ?#\u00e9")
    os.makedirs(odd)
    case(label + "_odd_path", *fresh("tree", parent=odd), want)
    return want


def pending_wal(tmp):
    """A WAL whose changes are not in the database yet: refused, clearly."""
    tree = os.path.join(tmp, "pending")
    build_tree(os.path.join(ROOT, "fixtures", "module_tree", "tree"), tree, SCHEMA)
    db = the_db(tree)
    journal_mode(db, "WAL")
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("INSERT INTO STRING_IDS VALUES (99999, 'pending')")
    con.commit()
    wal = os.path.getsize(db + "-wal")
    # a copy while the writer is still connected: the change is only in -wal
    copy(tree, tree + "_copy")
    con.close()
    tree += "_copy"
    rel = os.path.relpath(the_db(tree), tree)
    case("pending_wal", tree, os.path.join(tmp, "pending_out"), want_exit=1, want_stderr=(
        "opmfu: error: rank 0: {tree}/%s: cannot be read without writing beside it: {tree}/%s-wal holds %d bytes "
        "of changes not yet in the database (is the profiler still writing it? once it has finished, sqlite3 "
        "{tree}/%s 'PRAGMA wal_checkpoint(TRUNCATE)' moves them in)\n"
        "opmfu: error: 1 of 1 rank failed; {out}/cluster_analysis_output/cluster_analysis.db left unchanged\n")
        % (rel, rel, wal, rel))


def hot_journal(tmp):
    """A rollback journal left by an interrupted write: only a writer can undo it."""
    tree = os.path.join(tmp, "hot")
    build_tree(os.path.join(ROOT, "fixtures", "module_tree", "tree"), tree, SCHEMA)
    db = the_db(tree)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("CREATE TABLE filler (x TEXT)")
    con.executemany("INSERT INTO filler VALUES (?)", [("x" * 100,)] * 2000)
    # a cache of one page spills the change into the database file, which
    # syncs the journal's header first: only then is the journal hot
    con.execute("PRAGMA cache_size=1")
    con.execute("BEGIN")
    con.execute("UPDATE filler SET x = x || 'y'")
    copy(tree, tree + "_copy")  # the database and its hot -journal, mid-write
    con.execute("ROLLBACK")
    con.close()
    tree += "_copy"
    rel = os.path.relpath(the_db(tree), tree)
    check("hot_journal_setup", os.path.getsize(the_db(tree) + "-journal") > 0)
    case("hot_journal", tree, os.path.join(tmp, "hot_out"), want_exit=1, want_stderr=(
        "opmfu: error: rank 0: {tree}/%s: reading the schema: attempt to write a readonly database (a rollback "
        "journal beside it holds an interrupted write, which only a writable connection can undo: open a copy of "
        "the database and its -journal file once with sqlite3)\n"
        "opmfu: error: 1 of 1 rank failed; {out}/cluster_analysis_output/cluster_analysis.db left unchanged\n")
        % rel)


with open(os.path.join(ROOT, "schema", "in", "ascend.sql")) as f:
    SCHEMA = f.read()


def main():
    tmp = tempfile.mkdtemp(prefix="opmfu-ro-")
    os.chmod(tmp, 0o755)
    try:
        fixture = os.path.join(tmp, "fixture_src")
        build_tree(os.path.join(ROOT, "fixtures", "module_tree", "tree"), fixture, SCHEMA)
        journal_mode(the_db(fixture), "WAL")  # the last close removes -wal and -shm
        want = wal_cases("fixture", fixture, tmp)
        check("fixture_has_rows", "OperatorMFU (0," in want and "ModuleMFU (0," in want, want)
        if os.path.isdir(REAL):
            check("real_is_wal", open(the_db(REAL), "rb").read(20)[18:20] == b"\2\2")
            want = wal_cases("real", REAL, tmp)
            check("real_was_read", "187 kernel-op links" in want, want)
        else:
            print("real: skipped: %s is not there" % REAL)
        pending_wal(tmp)
        hot_journal(tmp)
    finally:
        for root, dirs, files in os.walk(tmp):
            os.chmod(root, 0o755)
        shutil.rmtree(tmp, ignore_errors=True)
    print("readonly_inputs: %s" % ("ok" if not fails else "%d failed: %s" % (len(fails), ", ".join(fails))))
    return 1 if fails else 0


sys.exit(main())
