#!/usr/bin/env python3
"""Run one golden case of fixtures/: build its input tree, run opmfu, compare.

A case directory holds:
  tree/         the input tree, built by tools/build_fixture.py (FILE.db.sql
                becomes the SQLite database FILE.db)
  tree_from     instead of tree/: the case folder (relative) whose tree/ to use
  tree_new/     a second input tree, built the same way, as {tree_new} (opmfu diff's NEW);
                tree_new_from names another case's
  expected_from instead of expected/: the case folder (relative) whose expected/ to use
  dbpath        where the output database is (default {out}/cluster_analysis_output/...)
  prepare       instead of (or besides) tree/: how to put input under {tree}, one
                action per line ({shared} is replaced): "copy SRC [DEST]" copies a
                file or folder to {tree}/DEST (default: SRC's name), "untar ARCHIVE
                [DEST]" unpacks a tar archive (gzip'd or not) into {tree}/DEST (default:
                {tree}); members may not leave it. The "inputs unchanged" check covers
                what was put there.
  cmd           the opmfu arguments, one per line; {tree}, {tree_new}, {out} and {shared}
                (the project's shared folder, ../shared) are replaced
                (default: analyze {tree} -o {out}); a line '---' starts another run of
                opmfu: each but the last must exit 0, and the last is the one whose
                output and exit status are compared
  stdout_keep   regular expressions, one per line: only the lines of stdout that match
                one of them are compared with expected/stdout (for runs whose other
                lines are not this case's subject and will change with other work)
  expected/     exit (default 0), <Table>.tsv for each table of
                {out}/cluster_analysis_output/cluster_analysis.db to compare,
                NAME.sql beside NAME.tsv: compare the result of that query instead of a table,
                stdout / stderr (optional, exact after replacing paths and timings),
                stdout.head (optional: what stdout starts with, e.g. the rank blocks of --verbose),
                absent (optional: output paths that must not exist),
                xlsx/PATH.cells (optional: the dump by tests/tools/xlsx_cells.py of the
                workbook {out}/PATH, e.g. xlsx/cluster_analysis_output/OperatorMfu/
                operator_mfu_kernel_0.xlsx.cells; no temporary file may be left beside it;
                xlsx/PATH#SHEET.cells: the dump of its sheet SHEET alone),
                files/PATH (optional: the exact bytes of the exported file {out}/PATH, e.g.
                files/cluster_analysis_output/csv/OperatorMFU.csv, after writing the
                tree's and the output's paths as {tree} and {out}; no temporary file
                may be left beside it)
Input files must be byte-identical after the run (opmfu never writes its input),
and no file may appear beside them (SQLite's -wal, -shm, -journal): every path
given to opmfu other than {out} is listed before and after the run.
Expected files are written by hand from SPEC.md; this script never writes them.
"""
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from build_fixture import build_tree  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from xlsx_cells import dump as dump_xlsx  # noqa: E402


def tree_hashes(tops):
    """Hashes of the input files under each of tops; opmfu's own output folder is not input."""
    res = {}
    for top in tops:
        for root, dirs, files in os.walk(top):
            if "cluster_analysis_output" in dirs:
                dirs.remove("cluster_analysis_output")
            for name in files:
                p = os.path.join(root, name)
                with open(p, "rb") as f:
                    res[p] = hashlib.sha256(f.read()).hexdigest()
    return res


def input_roots(args, tree, out):
    """The folders the inputs are in: the tree, and every existing path among
    the arguments that is not under {out} (a file stands for its folder)."""
    roots = set([tree] if os.path.isdir(tree) else [])
    for a in args:
        if "/" not in a or not os.path.exists(a) or os.path.abspath(a).startswith(os.path.abspath(out)):
            continue
        roots.add(os.path.abspath(a if os.path.isdir(a) else os.path.dirname(a)))
    return sorted(roots)


def input_changes(before, after):
    """One line per input file that appeared, went or changed during the run."""
    lines = []
    for p in sorted(set(before) | set(after)):
        if p not in before:
            lines.append("a file appeared beside the input: %s" % p)
        elif p not in after:
            lines.append("an input file went away: %s" % p)
        elif before[p] != after[p]:
            lines.append("an input file changed: %s" % p)
    return lines


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, bytes):
        return "x'" + v.hex() + "'"
    if isinstance(v, int):
        return str(v)
    return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def dump_table(db, table, query=None):
    con = sqlite3.connect(db)
    try:
        cur = con.execute(query or 'SELECT * FROM "%s" ORDER BY rowid' % table)
    except sqlite3.OperationalError as e:
        con.close()
        return "(%s)\n" % e
    lines = ["\t".join(d[0] for d in cur.description)]
    for row in cur:
        lines.append("\t".join(fmt(v) for v in row))
    con.close()
    return "\n".join(lines) + "\n"


def normalize(text, subst):
    for key, val in subst.items():
        text = text.replace(val, key)
    text = re.sub(r"in \d+\.\d+ s\b", "in X s", text)
    return text


CASE = [None]


def diff(name, want, got):
    """Prints the difference; with OPMFU_GOLDEN_ACTUAL=DIR, also writes what was
    got to DIR/CASE/NAME for a person to review (never into expected/)."""
    import difflib
    dump = os.environ.get("OPMFU_GOLDEN_ACTUAL")
    if dump and CASE[0]:
        d = os.path.join(dump, os.path.basename(CASE[0].rstrip("/")))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name.replace("/", "_")), "w", encoding="utf-8") as f:
            f.write(got)
    sys.stdout.write("MISMATCH in %s:\n" % name)
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                               "expected", "actual"))
    return 1


def case_part(case, part):
    """case/part, or the part of the case folder that case/part_from names."""
    link = os.path.join(case, part + "_from")
    if os.path.exists(link):
        with open(link, encoding="utf-8") as f:
            return os.path.join(case, f.read().strip(), part)
    return os.path.join(case, part)


def main():
    opmfu, case, schema_path = sys.argv[1], sys.argv[2], sys.argv[3]
    CASE[0] = case
    with open(schema_path, encoding="utf-8") as f:
        schema = f.read()
    expected = case_part(case, "expected")
    shared = os.path.normpath(os.path.join(os.path.dirname(schema_path), "..", "..", "..", "shared"))
    tmp = tempfile.mkdtemp(prefix="opmfu-golden-")
    try:
        tree = os.path.join(tmp, "tree")
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        tree_new = os.path.join(tmp, "tree_new")
        for part, dst in (("tree", tree), ("tree_new", tree_new)):
            src_tree = case_part(case, part)
            if os.path.isdir(src_tree):
                build_tree(src_tree, dst, schema)
        prep = os.path.join(case, "prepare")
        if os.path.exists(prep):
            if not os.path.isdir(os.path.join(shared, "real")):
                print("skip: %s/real is not there" % shared)
                return 77
            prepare(prep, tree, shared)
        cmd_file = os.path.join(case, "cmd")
        args = ["analyze", "{tree}", "-o", "{out}"]
        if os.path.exists(cmd_file):
            with open(cmd_file, encoding="utf-8") as f:
                args = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        if any("{shared}" in a for a in args) and not os.path.isdir(os.path.join(shared, "real")):
            print("skip: %s/real is not there" % shared)
            return 77
        # {tree_new} before {tree}: normalize() replaces values in this order
        subst = {"{tree_new}": tree_new, "{tree}": tree, "{out}": out, "{shared}": shared}
        args = [normalize_arg(a, subst) for a in args]
        runs = [[]]
        for a in args:
            if a == "---":
                runs.append([])
            else:
                runs[-1].append(a)
        roots = input_roots(args, tree, out) + ([tree_new] if os.path.isdir(tree_new) else [])
        before = tree_hashes(roots)
        env = dict(os.environ)
        env.pop("OPMFU_PEAK", None)
        envfile = os.path.join(case, "env")
        if os.path.exists(envfile):
            with open(envfile, encoding="utf-8") as f:
                for line in f:
                    if "=" in line:
                        k, v = line.rstrip("\n").split("=", 1)
                        env[k] = v
        fails = 0
        for run in runs[:-1]:
            proc = subprocess.run([opmfu] + run, capture_output=True, text=True, env=env, timeout=300)
            if proc.returncode != 0:
                print("%s: exit status %d\nstdout:\n%sstderr:\n%s" % (" ".join(run), proc.returncode,
                                                                     proc.stdout, proc.stderr))
                fails += 1
        proc = subprocess.run([opmfu] + runs[-1], capture_output=True, text=True, env=env, timeout=300)
        want_exit = 0
        if os.path.exists(os.path.join(expected, "exit")):
            with open(os.path.join(expected, "exit")) as f:
                want_exit = int(f.read().strip())
        if proc.returncode != want_exit:
            print("exit status %d, expected %d" % (proc.returncode, want_exit))
            print("stdout:\n" + proc.stdout + "stderr:\n" + proc.stderr)
            fails += 1
        for stream, got in (("stdout", proc.stdout), ("stderr", proc.stderr)):
            path = os.path.join(expected, stream)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    want = f.read()
                got = normalize(got, subst)
                if stream == "stdout":
                    got = keep_lines(case, got)
                if want != got:
                    fails += diff(stream, want, got)
            # stdout.head: what stdout starts with (the per-rank blocks of --verbose)
            if os.path.exists(path + ".head"):
                with open(path + ".head", encoding="utf-8") as f:
                    want = f.read()
                full = normalize(got, subst)
                got = full[:len(want)]
                if want != got:
                    fails += diff(stream + ".head", want, got)
                    if os.environ.get("OPMFU_GOLDEN_ACTUAL"):  # the whole of it, to pick the new head from
                        with open(os.path.join(os.environ["OPMFU_GOLDEN_ACTUAL"], os.path.basename(case.rstrip("/")),
                                               stream + ".full"), "w", encoding="utf-8") as f:
                            f.write(full)
        db = os.path.join(out, "cluster_analysis_output", "cluster_analysis.db")
        if os.path.exists(os.path.join(case, "dbpath")):
            with open(os.path.join(case, "dbpath"), encoding="utf-8") as f:
                db = normalize_arg(f.read().strip(), subst)
        for name in sorted(os.listdir(expected)):
            if not name.endswith(".tsv"):
                continue
            with open(os.path.join(expected, name), encoding="utf-8") as f:
                want = f.read()
            query = None
            qpath = os.path.join(expected, name[:-4] + ".sql")
            if os.path.exists(qpath):
                with open(qpath, encoding="utf-8") as f:
                    query = f.read()
            got = dump_table(db, name[:-4], query) if os.path.exists(db) else "(no database)\n"
            got = normalize(got, subst)
            if want != got:
                fails += diff(name, want, got)
        fails += check_xlsx(os.path.join(expected, "xlsx"), out, subst)
        fails += check_files(os.path.join(expected, "files"), out, subst)
        absent = os.path.join(expected, "absent")
        if os.path.exists(absent):
            with open(absent, encoding="utf-8") as f:
                for line in f:
                    p = normalize_arg(line.strip(), subst)
                    if p and os.path.exists(p):
                        print("%s exists but should not" % p)
                        fails += 1
        for line in input_changes(before, tree_hashes(roots)):
            print(line)
            fails += 1
        print("%s: %s" % (os.path.basename(case), "ok" if not fails else "%d mismatches" % fails))
        return 1 if fails else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def temp_files_left(dirs):
    """Temporary files (*.tmp) a writer left in dirs, each printed."""
    n = 0
    for d in sorted(dirs):
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(".tmp"):
                print("temporary file left behind: %s" % os.path.join(d, name))
                n += 1
    return n


def expected_files(want_dir, suffix):
    """(expected file, PATH) for every want_dir/PATH + suffix, in name order."""
    for root, dirs, files in os.walk(want_dir):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(suffix):
                p = os.path.join(root, name)
                rel = os.path.relpath(p, want_dir)
                yield p, rel[:len(rel) - len(suffix)]


def check_xlsx(want_dir, out, subst):
    """Compares every expected/xlsx/PATH.cells with the dump of {out}/PATH."""
    fails = 0
    dirs_seen = set()
    for want_path, rel in expected_files(want_dir, ".cells"):
        rel, _, sheet = rel.partition("#")
        book = os.path.join(out, rel)
        with open(want_path, encoding="utf-8") as f:
            want = f.read()
        got = normalize(dump_xlsx(book, sheet or None), subst) if os.path.exists(book) else "(no workbook)\n"
        if want != got:
            fails += diff("xlsx/" + rel + ("#" + sheet if sheet else ""), want, got)
        dirs_seen.add(os.path.dirname(book))
    return fails + temp_files_left(dirs_seen)


def check_files(want_dir, out, subst):
    """Compares every expected/files/PATH with the bytes of {out}/PATH."""
    fails = 0
    dirs_seen = set()
    for want_path, rel in expected_files(want_dir, ""):
        got_path = os.path.join(out, rel)
        with open(want_path, "rb") as f:
            want = f.read()
        got = b"(no file)\n"
        if os.path.exists(got_path):
            with open(got_path, "rb") as f:
                got = f.read()
            for key, val in subst.items():
                got = got.replace(val.encode(), key.encode())
        if want != got:
            # line by line with every byte visible
            fails += diff("files/" + rel, "".join(repr(l)[2:-1] + "\n" for l in want.splitlines(True)),
                          "".join(repr(l)[2:-1] + "\n" for l in got.splitlines(True)))
        dirs_seen.add(os.path.dirname(got_path))
    return fails + temp_files_left(dirs_seen)


def prepare(path, tree, shared):
    """Runs the actions of a case's prepare file (see the docstring)."""
    import tarfile
    os.makedirs(tree, exist_ok=True)
    with open(path, encoding="utf-8") as f:
        actions = [l.split() for l in f if l.strip() and not l.startswith("#")]
    for act in actions:
        words = [w.replace("{shared}", shared) for w in act]
        verb, src = words[0], words[1]
        if verb == "copy":
            dest = os.path.join(tree, words[2] if len(words) > 2 else os.path.basename(src))
            if os.path.isdir(src):
                shutil.copytree(src, dest)
            else:
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copyfile(src, dest)
        elif verb == "untar":
            dest = os.path.join(tree, words[2]) if len(words) > 2 else tree
            root = os.path.realpath(dest)
            with tarfile.open(src) as tar:
                for m in tar.getmembers():
                    target = os.path.realpath(os.path.join(dest, m.name))
                    if not (m.isfile() or m.isdir()) or os.path.commonpath([root, target]) != root:
                        raise SystemExit("%s: unsafe member %s" % (src, m.name))
                tar.extractall(dest)
        else:
            raise SystemExit("%s: unknown action %s" % (path, verb))


def keep_lines(case, text):
    """The lines of text that a case's stdout_keep patterns select (all without one)."""
    path = os.path.join(case, "stdout_keep")
    if not os.path.exists(path):
        return text
    with open(path, encoding="utf-8") as f:
        pats = [re.compile(l.rstrip("\n")) for l in f if l.strip()]
    return "".join(l for l in text.splitlines(True) if any(p.search(l) for p in pats))


def normalize_arg(a, subst):
    for k, v in subst.items():
        a = a.replace(k, v)
    return a


if __name__ == "__main__":
    sys.exit(main())
