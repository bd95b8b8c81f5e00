#!/usr/bin/env python3
"""Build a fixture's input tree: build_fixture.py SRC_TREE DST_DIR SCHEMA.sql [STAMP]

Every FILE.db.sql under SRC_TREE becomes the SQLite database FILE.db, made from
SCHEMA.sql (the part of the profiler schema opmfu reads) followed by the file's
own statements; FILE.sqlite.sql becomes the database FILE.sqlite, as Nsight Systems
names its exports, made from schema/in/nsys.sql the same way. A file whose first
line is '-- schema: own' brings its own DDL. A line
'-- include: PATH' (relative to the file) stands for the whole of that file,
so a case can take another case's rows and then reshape its tables.
FILE.bin.hex becomes the bytes it spells in hex. Other files are copied.
"""
import os
import shutil
import sqlite3
import sys

NSYS_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema", "in", "nsys.sql")


def read_sql(path):
    """The file's SQL with its '-- include: PATH' lines replaced by those files."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("-- include: "):
                line = read_sql(os.path.join(os.path.dirname(path), line[len("-- include: "):].strip()))
                if not line.endswith("\n"):
                    line += "\n"
            out.append(line)
    return "".join(out)


def build_tree(src, dst, schema):
    nsys = None  # schema/in/nsys.sql, read when a tree has an nsys export
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, src)
        out_dir = os.path.normpath(os.path.join(dst, rel))
        os.makedirs(out_dir, exist_ok=True)
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith(".db.sql") or name.endswith(".sqlite.sql"):
                sql = read_sql(path)
                if not sql.startswith("-- schema: own"):
                    if name.endswith(".sqlite.sql") and nsys is None:
                        with open(NSYS_SCHEMA, encoding="utf-8") as f:
                            nsys = f.read()
                    sql = (nsys if name.endswith(".sqlite.sql") else schema) + "\n" + sql
                target = os.path.join(out_dir, name[:-4])
                if os.path.exists(target):
                    os.remove(target)
                con = sqlite3.connect(target)
                con.executescript(sql)
                con.commit()
                con.close()
            elif name.endswith(".bin.hex"):
                with open(path, encoding="ascii") as f:
                    data = bytes.fromhex("".join(f.read().split()))
                with open(os.path.join(out_dir, name[:-8]), "wb") as f:
                    f.write(data)
            else:
                shutil.copyfile(path, os.path.join(out_dir, name))


def build_fixture(root, case, dst):
    """Builds fixtures/CASE/tree of the source tree ROOT into DST."""
    with open(os.path.join(root, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    build_tree(os.path.join(root, "fixtures", case, "tree"), dst, schema)


# module_tree's rank-0 database (as SQL text) in its tree: tests edit its names
MODULE_TREE_SQL = os.path.join("rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_0.db.sql")


def build_edited(src, rel, edits, work, dst, schema):
    """Copies the fixture tree SRC into WORK, replaces each (old, new) of edits in its file REL
    (a *.sql text), and builds WORK into DST; returns how often each old stood in the text."""
    shutil.copytree(src, work)
    path = os.path.join(work, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    counts = []
    for old, new in edits:
        counts.append(text.count(old))
        text = text.replace(old, new)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    build_tree(work, dst, schema)
    return counts


def main():
    src, dst, schema_path = sys.argv[1:4]
    with open(schema_path, encoding="utf-8") as f:
        schema = f.read()
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    build_tree(src, dst, schema)
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w") as f:
            f.write("built\n")


if __name__ == "__main__":
    main()
