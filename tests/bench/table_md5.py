#!/usr/bin/env python3
"""The md5 of every table's rows in an opmfu result database, one line per
table (name, rows, md5), to show that a change kept every output: run it on
the result of the old and the new binary and compare (diff) the two lists.
Rows are read in rowid order, cells as SQLite returns them (repr).

usage: table_md5.py RESULT.db
"""
import hashlib
import sqlite3
import sys


def table_md5s(path):
    """{table: (rows, md5 of its rows)} of the database at path (also imported by tests)."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    out = {}
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for name in names:
        h = hashlib.md5()
        n = 0
        for row in con.execute('SELECT * FROM "%s" ORDER BY rowid' % name.replace('"', '""')):
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
