#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_rank_db (tests/fuzz/corpus/rank_db/) in the
input layout described at the top of fuzz_rank_db.c. Run it again after
changing that layout; the fuzzer adds its own finds beside these."""
import os
import sys

TABLES = ["STRING_IDS", "TASK", "COMPUTE_TASK_INFO", "CONNECTION_IDS", "PYTORCH_API",
          "MSTX_EVENTS", "COMMUNICATION_OP", "COMMUNICATION_SCHEDULE_TASK_INFO", "COMMUNICATION_TASK_INFO"]
# indexes into fuzz_rank_db.c's dict[]
D_FLOPS, D_MODULE, D_MM, D_MATMUL, D_REC, D_GPT, D_SHAPES, D_SHAPE, D_BF16 = 0, 1, 2, 4, 6, 14, 19, 20, 23
D_ALLREDUCE_T, D_ALLREDUCE = 29, 30
D_WAIT, D_MEMCPY, D_REDUCE, D_SEND, D_RDMA = 38, 39, 40, 41, 42
D_STEP = 43  # ProfilerStep#1


def null():
    return [0]


def small(n):
    return [1, n]


def ts(x):  # 1000 + x
    return [2, x >> 8, x & 255]


def text_ts(x):
    return [8, x >> 8, x & 255]


def word(i):
    return [4, i]


def row(table, *values):
    out = [TABLES.index(table)]
    for v in values:
        out += v
    return out


def raw(b):  # these bytes as TEXT, invalid UTF-8 and NUL included
    return [5, len(b)] + list(b)


def rank(flags=0, omit=0, extra=(), text_times=False, module=True, kernel=2):
    t = text_ts if text_times else ts
    rows = [
        row("STRING_IDS", small(1), word(D_MM)), row("STRING_IDS", small(2), word(D_MATMUL)),
        row("STRING_IDS", small(3), word(D_SHAPES)), row("STRING_IDS", small(4), word(D_BF16)),
        row("STRING_IDS", small(5), word(D_SHAPE)), row("STRING_IDS", small(6), word(D_FLOPS)),
        row("STRING_IDS", small(7), word(D_REC)), row("STRING_IDS", small(8), word(D_MODULE)),
        row("STRING_IDS", small(9), word(D_GPT)),
        # one aten::mm (1100-1600) launching one 1000 ns MatMulV3 kernel
        row("PYTORCH_API", small(1), small(1), t(100), t(600)),
        row("CONNECTION_IDS", small(1), small(1)),
        row("TASK", small(1), ts(10000), ts(11000), small(1)),
        row("COMPUTE_TASK_INFO", small(1), small(kernel), small(3), small(4), small(5)),
        # its FLOPs record, and a module around it
        row("MSTX_EVENTS", ts(0), ts(700), small(2), small(7), small(6)),
    ]
    if module:
        rows.append(row("MSTX_EVENTS", ts(50), ts(800), small(2), small(9), small(8)))
    out = [flags, omit]
    for r in rows:
        out += r
    for r in extra:
        out += r
    return bytes(out)


# rows of every odd kind: invalid UTF-8 (0xff 0xfe), NaN, huge negatives, a malformed message
ODD = [
    row("TASK", small(2), [3] + [255] * 8, ts(5), small(1)),   # a huge negative start
    row("COMPUTE_TASK_INFO", small(2), [5, 3, 0xff, 0xfe, 0], null(), [7, 2, 1, 2], small(4)),
    row("PYTORCH_API", small(1), small(1), [6, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0], ts(900)),  # NaN start
    row("MSTX_EVENTS", ts(0), ts(2000), small(2), word(10), small(6)),   # "-5-mm"
    row("COMMUNICATION_OP", word(29), ts(20), ts(30), small(1), null(), null(), null(), null(), null()),
]


def comm(op_name, op_type, op_id, tasks):
    """A collective (COMMUNICATION_OP, 300 ns from 20) and its tasks: (type sid, plane,
    transport, link, rdma, size, start, end), TASK rows with global ids 100 + i."""
    rows = [row("COMMUNICATION_OP", small(op_type), ts(20), ts(320), small(1), small(op_id), small(op_name),
                small(op_name), small(4), small(9))]
    for i, (ty, plane, tr, lk, rd, size, s, e) in enumerate(tasks):
        rows.append(row("TASK", small(100 + i), ts(s), ts(e), null()))
        rows.append(row("COMMUNICATION_TASK_INFO", small(100 + i), small(op_id), small(ty), small(ty), small(plane),
                        small(tr), small(lk), small(size), small(0), small(1), small(rd)))
    return rows


# string ids 11..16: the task types and op names the collectives' analysis reads
COMM_STRINGS = [row("STRING_IDS", small(11), word(D_WAIT)), row("STRING_IDS", small(12), word(D_MEMCPY)),
                row("STRING_IDS", small(13), word(D_REDUCE)), row("STRING_IDS", small(14), word(D_SEND)),
                row("STRING_IDS", small(15), word(D_RDMA)), row("STRING_IDS", small(10), word(D_ALLREDUCE))]
# an all-reduce over two planes (plane 0 with an RDMA run closed by its five tasks), a send whose
# run is not closed
COMM = COMM_STRINGS + comm(10, 10, 1, [
    (11, 0, 2, 0, 15, 0, 20, 40), (15, 0, 1, 3, 1, 8, 40, 50), (15, 0, 1, 3, 1, 8, 50, 60),
    (15, 0, 1, 3, 0, 4, 60, 70), (11, 0, 2, 0, 15, 0, 70, 90), (15, 0, 1, 3, 0, 4, 90, 95),
    (11, 0, 2, 0, 15, 0, 95, 99), (12, 1, 0, 1, 15, 12, 30, 45), (13, 1, 0, 2, 15, 6, 45, 50),
]) + comm(14, 14, 2, [(15, 0, 1, 3, 1, 8, 200, 210), (11, 0, 2, 0, 15, 0, 210, 220)])

# ProfilerStep#1 (string id 1000: small ids stop at 15) around the aten::mm (host span 1000-1900)
STEP = [row("STRING_IDS", ts(0), word(D_STEP)), row("PYTORCH_API", small(2), ts(0), ts(0), ts(900))]

SEEDS = {
    "one_kernel": rank(),
    "one_kernel_j2_xlsx": rank(flags=3),
    "no_peak": rank(flags=4),
    "text_times": rank(text_times=True),
    "no_mstx": rank(omit=1 << TABLES.index("MSTX_EVENTS")),
    "no_pytorch_api": rank(omit=1 << TABLES.index("PYTORCH_API")),
    "empty_tables": bytes([0, 0]),
    "odd_values": rank(flags=1, extra=ODD),
    "one_kernel_text": rank(flags=8),            # also the csv and json exports
    "odd_values_text": rank(flags=1 | 8, extra=ODD),
    "one_kernel_model": rank(flags=16),          # --model
    "odd_values_model": rank(flags=1 | 8 | 16, extra=ODD),
    # a kernel name of invalid UTF-8, a quote, CR LF, a control byte and NUL in every export
    "odd_name_text": rank(flags=2 | 8, kernel=10,
                          extra=[row("STRING_IDS", small(10), raw(b'M\xff\xe2\x82"q",\r\n\x01\x00z\xed\xa0\x80'))]),
    # collectives with their tasks (SPEC 19): waits, SDMA transit, RDMA runs
    "comm_tasks": rank(flags=8, extra=COMM),
    "comm_tasks_j2": rank(flags=1, extra=COMM + ODD),
    # the filters (trace/filter.c): --time-range 0:2us, --steps 1
    "comm_tasks_time_range": rank(flags=8 | 128, extra=COMM),
    "odd_values_time_range": rank(flags=1 | 128, extra=ODD),
    "odd_values_steps": rank(flags=64, extra=ODD),
    "comm_tasks_both_filters": rank(flags=64 | 128, extra=COMM + ODD),
    "step_kept": rank(flags=64, extra=STEP),
    "step_both_filters": rank(flags=8 | 64 | 128, extra=STEP + COMM),
}


def write_seeds(seeds, corpus):
    """seeds (name: bytes) into argv[1], default tests/fuzz/corpus/CORPUS."""
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", corpus)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def main():
    write_seeds(SEEDS, "rank_db")


if __name__ == "__main__":
    main()
