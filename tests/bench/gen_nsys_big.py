#!/usr/bin/env python3
"""Write a large synthetic Nsight Systems export for tests/bench/nsys_bench.py.

gen_nsys_big.py OUT.sqlite [--kernels N]   (default 10^6)

The tables are created with the real nsys 2025.3.1 DDL of
tests/tools/gen_nsys_cases.py. One process, one thread, one device: per
kernel a runtime launch and an NVTX op range with sizes around it (distinct
texts, as PyTorch's seq numbers make them), a ProfilerStep range per 10^4
ops, a module range per 100 ops and a memcpy per 100 kernels.
"""
import argparse
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from gen_nsys_cases import DDL, GPID, TID  # noqa: E402

NAMES = [
    "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_stage5_warpsize2x2x1_tensor16x8x16_kernel",
]
OPS = [
    "aten::mm, seq = %d, op_id = %d, sizes = [[4096, 4096], [4096, 4096]]",
    "aten::add, seq = %d, op_id = %d, sizes = [[8, 4096], [8, 4096], []]",
    "ncclAllReduce, seq = %d, op_id = %d",
    "aten::addmm, seq = %d, op_id = %d, sizes = [[4096], [8, 1024], [1024, 4096], [], []]",
]
PERIOD = 3000        # ns of host time per op
DEVICE_LAG = 1000000  # the device runs 1 ms behind the host


def insert(con, table, names, rows):
    """executemany with every NOT NULL column the rows do not give set to 0."""
    extra = [n for _, n, _, notnull, _, _ in con.execute("PRAGMA table_info(%s)" % table)
             if notnull and n not in names]
    sql = "INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(names + extra),
                                               ", ".join(["?"] * len(names) + ["0"] * len(extra)))
    con.executemany(sql, rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kernels", type=int, default=1000000)
    a = ap.parse_args()
    n = a.kernels
    if os.path.exists(a.out):
        os.remove(a.out)
    con = sqlite3.connect(a.out)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.executescript(DDL)
    insert(con, "META_DATA_EXPORT", ["name", "value"], [("EXPORT_PRODUCT_VERSION", "2025.3.1.90")])
    insert(con, "TARGET_INFO_GPU", ["vmId", "id", "name", "cuDevice"], [(0, 0, "NVIDIA H100 80GB HBM3", 0)])
    insert(con, "StringIds", ["id", "value"],
           [(i + 1, s) for i, s in enumerate(NAMES + ["cudaLaunchKernel_v7000", "ProfilerStep#0"])])
    k = len(NAMES)
    insert(con, "CUPTI_ACTIVITY_KIND_KERNEL",
           ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "demangledName", "shortName"],
           ((i * PERIOD + DEVICE_LAG, i * PERIOD + DEVICE_LAG + 2000, 0, 7, i + 1, GPID, i % k + 1, i % k + 1)
            for i in range(n)))
    insert(con, "CUPTI_ACTIVITY_KIND_RUNTIME", ["start", "end", "eventClass", "globalTid", "correlationId", "nameId"],
           ((i * PERIOD + 500, i * PERIOD + 900, 1, TID, i + 1, k + 1) for i in range(n)))
    insert(con, "CUPTI_ACTIVITY_KIND_MEMCPY",
           ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "copyKind"],
           ((i * PERIOD + DEVICE_LAG + 2200, i * PERIOD + DEVICE_LAG + 2800, 0, 7, None, GPID, 65536, 1)
            for i in range(0, n, 100)))
    insert(con, "NVTX_EVENTS", ["start", "end", "eventType", "globalTid", "text", "domainId"],
           ((i * PERIOD + 100, i * PERIOD + 2000, 59, TID, OPS[i % k] % (i, i), 0) for i in range(n)))
    insert(con, "NVTX_EVENTS", ["start", "end", "eventType", "globalTid", "text", "domainId"],
           ((i * PERIOD + 50, (i + 100) * PERIOD, 59, TID, "nn.Module: Layer_%d" % (i // 100 % 32), 0)
            for i in range(0, n, 100)))
    insert(con, "NVTX_EVENTS", ["start", "end", "eventType", "globalTid", "textId", "domainId"],
           ((i * PERIOD, (i + 10000) * PERIOD - 10, 59, TID, k + 2, 0) for i in range(0, n, 10000)))
    con.commit()
    con.close()


if __name__ == "__main__":
    main()
