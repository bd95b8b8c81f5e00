#!/usr/bin/env python3
"""Seeds for fuzz_shard_db: real shard results (opmfu analyze --shard I/N) written in the target's
input layout (tests/fuzz/fuzz_shard_db.c), so the fuzzer starts from shards the merge accepts.

shard_db_seeds.py OUT_DIR FLAGS:SHARD_DB...   (FLAGS: the layout's byte 0, e.g. 0, 3, 12)

Tables in name order (the target's: a table stored narrow behind a view, OpmfuOps, as its view, the
tables the view reads left out), every column in the table's order; values in fuzz_db.h's kinds:
NULL (0), INTEGER (3, 8 bytes big-endian), REAL (6, its 8 bytes as the target reads them), TEXT (10,
a 2-byte length and the UTF-8 bytes), and the target's BLOB (11, a 2-byte length and the bytes: a
rank's OpmfuShardPack)."""
import os
import sqlite3
import struct
import sys


class Text(bytes):
    """A TEXT value's bytes (a BLOB's come as plain bytes)."""


def encode(db, flags):
    con = sqlite3.connect(db)
    con.text_factory = Text
    kinds = dict((bytes(n).decode(), bytes(t).decode())
                 for n, t in con.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')"))
    views = [n for n, t in kinds.items() if t == "view"]
    names = sorted(n for n in kinds if not any(n.startswith(v + "_") for v in views))
    out = bytearray([flags, 0, 0, 0, 0, 0, 0])
    for k, name in enumerate(names):
        order = "" if kinds[name] == "view" else " ORDER BY rowid"
        for row in con.execute('SELECT * FROM "%s"%s' % (name, order)):
            out.append(k)
            for v in row:
                if v is None:
                    out.append(0)
                elif isinstance(v, bytes) and not isinstance(v, Text):
                    v = v[:65535]
                    out.append(11)
                    out += struct.pack(">H", len(v)) + v
                elif isinstance(v, int):
                    out.append(3)
                    out += struct.pack(">q", v)
                elif isinstance(v, float):
                    out.append(6)
                    out += struct.pack(">Q", struct.unpack("<Q", struct.pack("<d", v))[0])
                else:
                    v = v[:65535]
                    out.append(10)
                    out += struct.pack(">H", len(v)) + v
    con.close()
    return bytes(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for i, arg in enumerate(sys.argv[2:]):
        flags, db = arg.split(":", 1)
        with open(os.path.join(sys.argv[1], "shard%d" % i), "wb") as f:
            f.write(encode(db, int(flags)))


if __name__ == "__main__":
    main()
