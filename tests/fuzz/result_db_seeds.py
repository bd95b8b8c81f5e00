#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_result_db (tests/fuzz/corpus/result_db/) in the
input layout described at the top of fuzz_result_db.c. The column types below
follow the library's table defs (OpmfuRankSummary, OpmfuSteps, OpmfuModules,
OpmfuOpTypes, OpmfuDiff); run it again after changing them or the layout."""
import os
import re
import struct
import sys

# i INTEGER, r REAL, t TEXT, one letter per column in the defs' order, read from
# schema/out (whose files the tests keep equal to the defs)
SCHEMAS = ["rank_summary", "opmfu_steps", "opmfu_modules", "opmfu_op_types", "opmfu_diff", "opmfu_run",
           "opmfu_hotspots", "opmfu_stragglers", "opmfu_collectives"]


def column_types(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "out", name + ".sql")
    body = open(path).read().split("(", 1)[1]
    kinds = re.findall(r'^\s*"[^"]+"\s+(INTEGER|REAL|TEXT)', body, re.M)
    return "".join({"INTEGER": "i", "REAL": "r", "TEXT": "t"}[k] for k in kinds)


TABLES = [column_types(n) for n in SCHEMAS]
# indexes into fuzz_result_db.c's dict[]
OK, FAILED, STEP_SHARE, MODULE, OP_TYPE, TRACE_MFU, MODEL_PATH, ATTN, MM, EMPTY, FORMULA = 0, 1, 3, 4, 5, 8, 13, 14, 16, 17, 20


def null():
    return [0]


def small(n):  # -1 .. 2
    return [1, n + 1]


def big(x):  # x << 8, x below 65536
    return [2, x >> 8 & 255, x & 255]


def real(d):
    return [4] + list(struct.pack(">d", d))


def word(i):
    return [5, i]


def raw(b, blob=False):
    return [7 if blob else 6, len(b)] + list(b)


def row(table, values, short=False):
    """A row of the table, its columns past those given NULL; short: the table lacks its
    last column (byte 2)."""
    values = values + [null()] * (len(TABLES[table]) - len(values))
    if short:
        values = values[:-1]
    assert len(values) == len(TABLES[table]) - short, (table, len(values))
    out = [table]
    for v in values:
        out += v
    return out


def typical(table, rank, name=MODULE, short=False):
    """A row of plain values of each column's type."""
    vals = []
    for c, t in enumerate(TABLES[table]):
        if c == 0 and t == "i":
            vals.append(small(rank))
        elif t == "i":
            vals.append(big(1000 + 10 * c))
        elif t == "r":
            vals.append(real(0.25 + 0.01 * c))
        else:
            vals.append(word(name if c == 1 else OK))
    return row(table, vals, short)


def diff_row(kind, name, delta):
    return row(4, [word(kind), word(name), big(4000), big(2000), real(3.5e8), real(3.5e8), real(0.25), real(0.5),
                   big(3000), big(1000), big(delta) if delta >= 0 else [3] + list(struct.pack(">q", -delta * 256))])


SEEDS = {
    "full": [2, 0, 0] + typical(0, 0) + typical(0, 1) + typical(1, 0) + typical(1, 1) + typical(2, 0, MODEL_PATH) +
    typical(2, 1, ATTN) + typical(3, 0, MM) + typical(3, 1, FORMULA) +
    diff_row(STEP_SHARE, TRACE_MFU, 12) + diff_row(MODULE, ATTN, 3) + diff_row(OP_TYPE, MM, 7),
    "ranks_pieces": [1 | 2 | 1 << 2, 0, 0] + typical(0, 0) + typical(0, 2) + typical(0, 1) + typical(1, -1) +
    typical(1, 1) + typical(1, 0) + typical(3, 2, MM) + typical(3, 0, EMPTY) + typical(3, 1, MM),
    "missing": [2, 1 << 2, 1 << 1 | 1 << 3] + typical(0, 0) + typical(1, 0, short=True) +
    typical(3, 0, MM, short=True) + diff_row(MODULE, MODEL_PATH, 5),
    "odd_values": [2, 0, 0] + row(3, [small(0), raw(b"\xff\x00bad"), [3] + [0x7f] + [0xff] * 7, null(),
                                      [3] + [0x80] + [0] * 7, [3] + [0xff] * 8, real(float("nan")),
                                      [3] + [0x80] + [0] * 6 + [1]]) +
    row(4, [word(MODULE), raw(b"a/b/c/d"), null(), [3] + [0x7f] + [0xff] * 7, real(float("nan")),
            real(float("-inf")), real(1e308), real(-0.0), null(), null(), big(1)]) +
    row(4, [word(STEP_SHARE), word(TRACE_MFU), null(), null(), null(), null(), real(float("inf")),
            real(float("nan")), null(), null(), null()]),
    "wrong_type": [2, 0, 0] + row(1, [small(0), word(TRACE_MFU)] + [big(1)] * 11 + [real(0.5)] * 6),
    "blob": [0, 0, 0] + row(3, [small(1), raw(b"\x00\x01", blob=True), null(), null(), null(), null(), null(),
                                null()]),
    "empty": [0, 0, 0],
    # OpmfuCollectives (table 8) for the diff's collective rows: two ranks of one call, a rank
    # with an odd group, and the table without its last column
    "collectives": [2, 0, 0] + typical(0, 0) + typical(0, 1) + typical(1, 0) + typical(1, 1) +
    typical(8, 0, OP_TYPE) + typical(8, 1, OP_TYPE) + row(8, [small(1), null(), null(), raw(b"\xff<g>")]),
    "collectives_short": [2 | 1 << 6, 0, 0] + typical(0, 0) + typical(1, 0) + typical(8, 0, MM, short=True),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "result_db")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes(data))


if __name__ == "__main__":
    main()
