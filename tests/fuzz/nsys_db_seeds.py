#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_nsys_db (tests/fuzz/corpus/nsys_db/) in the
input layout described at the top of fuzz_nsys_db.c. Run it again after
changing that layout; the fuzzer adds its own finds beside these."""
# the value kinds both targets share (fuzz_db.h's fuzz_bind), encoded as rank_db_seeds.py does
from rank_db_seeds import null, raw, small, ts, word, write_seeds  # noqa: E402

# tables[] of fuzz_nsys_db.c, each with its columns in the DDL's order
TABLES = [
    ("StringIds", ["id", "value"]),
    ("CUPTI_ACTIVITY_KIND_KERNEL", ["start", "end", "deviceId", "correlationId", "globalPid", "demangledName",
                                    "shortName"]),
    ("CUPTI_ACTIVITY_KIND_RUNTIME", ["start", "globalTid", "correlationId"]),
    ("CUPTI_ACTIVITY_KIND_MEMCPY", ["start", "end", "deviceId", "correlationId", "globalPid", "copyKind"]),
    ("CUPTI_ACTIVITY_KIND_MEMSET", ["start", "end", "deviceId", "correlationId", "globalPid"]),
    ("NVTX_EVENTS", ["start", "end", "eventType", "text", "globalTid", "textId", "domainId"]),
    ("TARGET_INFO_GPU", ["id", "name"]),
]
NAMES = [t for t, _ in TABLES]
DROPS = [("CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"), ("CUPTI_ACTIVITY_KIND_KERNEL", "shortName"),
         ("CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"), ("NVTX_EVENTS", "textId"), ("NVTX_EVENTS", "domainId"),
         ("CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind"), ("CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid"),
         ("CUPTI_ACTIVITY_KIND_MEMSET", "globalPid")]
# indexes into fuzz_nsys_db.c's dict[]
D_MM, D_LINEAR, D_ADDMM, D_BMM, D_BAD_SIZES, D_CUT = 0, 1, 2, 3, 4, 5
D_MODULE, D_NCCL, D_CCCL = 11, 13, 14
K_GEMM_BF16, K_ADD_BF16, K_NCCL, K_GENERIC = 17, 19, 20, 21
D_H100 = 23
EV = {59: 0, 60: 1, 70: 2, 71: 3, 75: 4, 34: 5}


def tid(t, proc=0):  # process 100 (+1), thread t
    return [10, proc << 2 | t]


def ev(e):
    return [11, EV[e]]


class Seed:
    def __init__(self, flags=0, omit=(), drop=()):
        self.flags = flags
        self.omit = sum(1 << NAMES.index(t) for t in omit)
        self.drop = sum(1 << DROPS.index(d) for d in drop)
        self.rows = []

    def row(self, table, **vals):
        """One row; columns not given are NULL, dropped ones are left out,
        and rows of a table left out too (the target would read their
        values as table bytes)."""
        if self.omit >> NAMES.index(table) & 1:
            return self
        out = [NAMES.index(table)]
        for c in dict(TABLES)[table]:
            if (table, c) in DROPS and self.drop >> DROPS.index((table, c)) & 1:
                continue
            out += vals.get(c, null())
        self.rows.append(out)
        return self

    def bytes(self):
        return bytes([self.flags, self.omit, self.drop] + [b for r in self.rows for b in r])


def pytorch(flags=0, omit=(), drop=(), extra=()):
    """A step, a module, three op ranges (push/pop, start/end, NVTXT) with
    sizes, NCCL's domain and a range in it, their launches and kernels
    (bf16 gemm, bf16 add, a generic NCCL kernel), a memcpy and a memset."""
    s = Seed(flags, omit, drop)
    for i, w in enumerate([K_GEMM_BF16, K_ADD_BF16, K_NCCL, 8, 15, K_GENERIC]):
        s.row("StringIds", id=small(i + 1), value=word(w))  # 4: ProfilerStep#1, 5: ncclAllReduce
    s.row("TARGET_INFO_GPU", id=small(0), name=word(D_H100))
    nv = dict(globalTid=tid(1), domainId=small(0))
    s.row("NVTX_EVENTS", start=ts(0), end=ts(6000), eventType=ev(59), textId=small(4), **nv)
    s.row("NVTX_EVENTS", start=ts(10), end=ts(2050), eventType=ev(59), text=word(D_MODULE), **nv)
    s.row("NVTX_EVENTS", start=ts(100), end=ts(1000), eventType=ev(59), text=word(D_MM), **nv)
    s.row("NVTX_EVENTS", start=ts(1100), end=ts(2000), eventType=ev(60), text=word(D_LINEAR), **nv)
    s.row("NVTX_EVENTS", start=ts(1200), end=ts(1900), eventType=ev(70), text=word(D_ADDMM), **nv)
    s.row("NVTX_EVENTS", start=small(1), eventType=ev(75), text=word(D_NCCL), globalTid=tid(1), domainId=small(1))
    s.row("NVTX_EVENTS", start=small(2), eventType=ev(75), text=word(D_CCCL), globalTid=tid(1), domainId=small(2))
    s.row("NVTX_EVENTS", start=ts(2100), end=ts(2500), eventType=ev(59), textId=small(5), globalTid=tid(1),
          domainId=small(1))
    s.row("NVTX_EVENTS", start=ts(2600), end=ts(2700), eventType=ev(59), text=word(D_BMM), globalTid=tid(1),
          domainId=small(2))
    for corr, t in [(1, 500), (2, 1500), (3, 2200), (4, 2650)]:
        s.row("CUPTI_ACTIVITY_KIND_RUNTIME", start=ts(t), globalTid=tid(1), correlationId=small(corr))
    for corr, a, b, name in [(1, 3000, 4000, 1), (2, 4000, 4200, 2), (3, 4200, 4800, 6), (4, 4950, 5000, 1)]:
        s.row("CUPTI_ACTIVITY_KIND_KERNEL", start=ts(a), end=ts(b), deviceId=small(0), correlationId=small(corr),
              globalPid=tid(0), demangledName=small(name), shortName=small(name))
    s.row("CUPTI_ACTIVITY_KIND_MEMCPY", start=ts(4800), end=ts(4900), deviceId=small(0), globalPid=tid(0),
          copyKind=small(1))
    s.row("CUPTI_ACTIVITY_KIND_MEMSET", start=ts(4900), end=ts(4950), deviceId=small(0), globalPid=tid(0))
    for table, vals in extra:
        s.row(table, **vals)
    return s.bytes()


# rows of odd kinds: invalid UTF-8 and NUL in a text, a blob name, NaN and
# huge times, an unclosed range, texts where ids belong, a bad sizes list,
# a second device and process
ODD = [
    ("StringIds", dict(id=small(9), value=raw(b'aten::mm\xff, sizes = [[1\x00, 2]]'))),
    ("StringIds", dict(id=small(10), value=[7, 3, 1, 2, 3])),
    ("NVTX_EVENTS", dict(start=ts(3000), eventType=ev(59), text=word(D_MM), globalTid=tid(1), domainId=small(0))),
    ("NVTX_EVENTS", dict(start=ts(3100), end=ts(3200), eventType=ev(71), text=word(D_BAD_SIZES), globalTid=tid(2),
                         domainId=small(0))),
    ("NVTX_EVENTS", dict(start=ts(3300), end=ts(3400), eventType=ev(59), text=word(D_CUT), globalTid=tid(1),
                         domainId=[6, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0])),
    ("NVTX_EVENTS", dict(start=ts(3300), end=ts(3400), eventType=ev(59), textId=small(9), globalTid=tid(1),
                         domainId=small(0))),
    ("CUPTI_ACTIVITY_KIND_RUNTIME", dict(start=ts(3150), globalTid=tid(2), correlationId=small(9))),
    ("CUPTI_ACTIVITY_KIND_RUNTIME", dict(start=[6, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0], globalTid=tid(1),
                                         correlationId=small(10))),
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(5000), end=ts(5100), deviceId=small(0), correlationId=small(9),
                                        globalPid=tid(0), demangledName=small(9), shortName=small(10))),
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(5100), end=[3] + [255] * 8, deviceId=small(0),
                                        correlationId=small(10), globalPid=tid(0), demangledName=small(10),
                                        shortName=small(10))),
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(5200), end=ts(5300), deviceId=small(0), correlationId=word(28),
                                        globalPid=tid(0), demangledName=word(K_GEMM_BF16), shortName=null())),
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(5300), end=ts(5400), deviceId=small(1), correlationId=small(1),
                                        globalPid=tid(0, 1), demangledName=small(1), shortName=small(1))),
    ("CUPTI_ACTIVITY_KIND_MEMCPY", dict(start=ts(5400), end=ts(5500), deviceId=small(0), globalPid=tid(0),
                                        copyKind=[3] + [255] * 8)),
    ("TARGET_INFO_GPU", dict(id=small(1), name=raw(b'\xffGPU'))),
]

# nsys around a launcher: a second process (its own correlationIds from 1,
# its thread and op range) and both processes on a second device: four
# (device, process) pairs, four ranks (docs/nsys.md)
MULTI = [
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(3000), end=ts(3500), deviceId=small(1), correlationId=small(2),
                                        globalPid=tid(0), demangledName=small(2), shortName=small(2))),
    ("NVTX_EVENTS", dict(start=ts(100), end=ts(1000), eventType=ev(59), text=word(D_MM), globalTid=tid(1, 1),
                         domainId=small(0))),
    ("CUPTI_ACTIVITY_KIND_RUNTIME", dict(start=ts(500), globalTid=tid(1, 1), correlationId=small(1))),
    ("CUPTI_ACTIVITY_KIND_RUNTIME", dict(start=ts(1500), globalTid=tid(1, 1), correlationId=small(2))),
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(3000), end=ts(4000), deviceId=small(0), correlationId=small(1),
                                        globalPid=tid(0, 1), demangledName=small(1), shortName=small(1))),
    ("CUPTI_ACTIVITY_KIND_KERNEL", dict(start=ts(4000), end=ts(4500), deviceId=small(1), correlationId=small(2),
                                        globalPid=tid(0, 1), demangledName=small(3), shortName=small(3))),
    ("CUPTI_ACTIVITY_KIND_MEMSET", dict(start=ts(4900), end=ts(4950), deviceId=small(1), globalPid=tid(0, 1))),
]

SEEDS = {
    "pytorch": pytorch(),
    "pytorch_j2_xlsx": pytorch(flags=3),
    "peak_from_gpu": pytorch(flags=4 | 16),
    "pytorch_text": pytorch(flags=8),
    "no_gpu_no_peak": pytorch(flags=4, omit=["TARGET_INFO_GPU"]),
    "no_runtime": pytorch(omit=["CUPTI_ACTIVITY_KIND_RUNTIME"]),
    "no_nvtx": pytorch(flags=8, omit=["NVTX_EVENTS"]),
    "no_kernels": pytorch(flags=8, omit=["CUPTI_ACTIVITY_KIND_KERNEL"]),
    "no_string_ids": pytorch(omit=["StringIds"]),
    "no_copies": pytorch(omit=["CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"]),
    "short_names_no_pid": pytorch(flags=8, drop=[DROPS[0], DROPS[2], DROPS[7]]),
    "no_name_column": pytorch(drop=[DROPS[0], DROPS[1]]),
    "nvtx_old_columns": pytorch(flags=8, drop=[DROPS[3], DROPS[4], DROPS[5]]),
    "runtime_no_tid": pytorch(drop=[DROPS[6]]),
    "empty_tables": bytes([0, 0, 0]),
    "odd_values": pytorch(flags=1 | 8, extra=ODD),
    "odd_values_xlsx": pytorch(flags=2 | 4 | 16, extra=ODD),
    "two_processes_two_gpus": pytorch(flags=1 | 8, extra=MULTI),
    "two_processes_no_pid": pytorch(flags=8, drop=[DROPS[2]], extra=MULTI),
}


def main():
    write_seeds(SEEDS, "nsys_db")


if __name__ == "__main__":
    main()
