#!/usr/bin/env python3
"""Seeds for fuzz_shard_db: real shard results (opmfu analyze --shard I/N) written in the target's
input layout (tests/fuzz/fuzz_shard_db.c), so the fuzzer starts from shards the merge accepts.

shard_db_seeds.py OUT_DIR FLAGS:SHARD_DB...   (FLAGS: the layout's byte 0, e.g. 0, 3, 12)

Tables in name order (the target's), every column in the table's order; values in fuzz_db.h's
kinds: NULL (0), INTEGER (3, 8 bytes big-endian), REAL (6, its 8 bytes as the target reads
them), TEXT (10, a 2-byte length and the UTF-8 bytes)."""
import os
import sqlite3
import struct
import sys


def encode(db, flags):
    con = sqlite3.connect(db)
    con.text_factory = bytes
    names = sorted(n.decode() for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    out = bytearray([flags, 0, 0, 0, 0, 0, 0])
    for k, name in enumerate(names):
        for row in con.execute('SELECT * FROM "%s" ORDER BY rowid' % name):
            out.append(k)
            for v in row:
                if v is None:
                    out.append(0)
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
