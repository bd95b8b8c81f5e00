#!/usr/bin/env python3
"""The md5 of every table's rows in an opmfu result database, one line per
table (name, rows, md5), to show that a change kept every output: run it on
the result of the old and the new binary and compare (diff) the two lists.
Rows are read in rowid order (a view's in its own), cells as SQLite returns them (repr).
The tables a view keeps its rows in are left out: the view is the output.

usage: table_md5.py RESULT.db
"""
import hashlib
import sqlite3
import sys


def result_tables(con):
    """The tables a result shows, sorted: its tables and views, less the tables a view keeps its
    rows in (OpmfuOps_rows, OpmfuOps_kinds and OpmfuOps_modules behind the view OpmfuOps,
    docs/output-schema.md), which differ with how the rows came (also imported by tests)."""
    rows = [(n.decode() if isinstance(n, bytes) else n, t.decode() if isinstance(t, bytes) else t)
            for n, t in con.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")]
    views = [n for n, t in rows if t == "view"]
    return sorted(n for n, t in rows if not any(n.startswith(v + "_") for v in views))


def table_md5s(path):
    """{table: (rows, md5 of its rows)} of the database at path (also imported by tests)."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    out = {}
    kinds = dict(con.execute("SELECT name, type FROM sqlite_master"))
    for name in result_tables(con):
        h = hashlib.md5()
        n = 0
        # a view gives its rows in its own order (its row table's)
        order = "" if kinds[name] == "view" else " ORDER BY rowid"
        for row in con.execute('SELECT * FROM "%s"%s' % (name.replace('"', '""'), order)):
            h.update(repr(row).encode())
            n += 1
        out[name] = (n, h.hexdigest())
    con.close()
    return out


def main():
    for name, (n, md5) in sorted(table_md5s(sys.argv[1]).items()):
        print("%s\t%d\t%s" % (name, n, md5))


if __name__ == "__main__":
    main()
