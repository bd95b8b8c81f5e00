#!/usr/bin/env python3
"""Write the synthetic Nsight Systems exports of the nsys golden cases.

gen_nsys_cases.py [ROOT]   (ROOT: the repository, default: this file's ../..)

Each export is SQL text, fixtures/CASE/tree*/NAME.sqlite.sql: its rows, which
tools/build_fixture.py turns into NAME.sqlite after the CREATE TABLE statements
of the tables opmfu reads (schema/in/nsys.sql: copied unchanged from a real
nsys 2025.3.1 export, schema 3.20.2; CUPTI_ACTIVITY_KIND_MEMSET from
2026.2.1). Export.sql() is a whole database, DDL included, for tests. Columns that are NOT NULL and that opmfu does not read get 0.
The expected values are derived by hand in each case's README.md.
"""
import os
import sqlite3
import sys

# the DDL of schema/in/nsys.sql (the tables as nsys writes them), without its header comment
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "in", "nsys.sql")) as _f:
    _sql = _f.read()
DDL = "\n" + _sql[_sql.index("CREATE TABLE StringIds"):].strip() + "\n"


PID = 100
GPID = PID << 24                # globalPid: pid in bits 24..47
TID = GPID | 1                  # globalTid of the main thread (tid 1)
TID2 = GPID | 2                 # a second thread

MM = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn"
ADDMM = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_stage5_warpsize2x2x1_tensor16x8x16_kernel"
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)")
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
OTHER = "void other_thread_kernel(float*)"


class Export:
    """Rows of one export, written as INSERT statements."""

    def __init__(self):
        self.con = sqlite3.connect(":memory:")
        self.con.executescript(DDL)
        self.rows = []
        self.strings = {}

    def sid(self, text):
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1
            self.add("StringIds", id=self.strings[text], value=text)
        return self.strings[text]

    def add(self, table, **cols):
        for cid, name, typ, notnull, dflt, pk in self.con.execute("PRAGMA table_info(%s)" % table):
            if notnull and name not in cols:
                cols[name] = 0
        names = sorted(cols)
        self.rows.append("INSERT INTO %s (%s) VALUES (%s);" % (
            table, ", ".join(names), ", ".join(sql_value(cols[n]) for n in names)))

    def kernel(self, start, end, corr, name, device=0, gpid=GPID):
        s = self.sid(name)
        self.add("CUPTI_ACTIVITY_KIND_KERNEL", start=start, end=end, deviceId=device, streamId=7,
                 correlationId=corr, globalPid=gpid, demangledName=s, shortName=s)

    def launch(self, ts, corr, tid=TID, api="cudaLaunchKernel_v7000"):
        self.add("CUPTI_ACTIVITY_KIND_RUNTIME", start=ts, end=ts + 2000, eventClass=1, globalTid=tid,
                 correlationId=corr, nameId=self.sid(api), returnValue=0)

    def nvtx(self, start, end, text, tid=TID, registered=False, domain=0, event_type=59, end_tid=None):
        """event_type 59 push/pop, 60 start/end (may end on end_tid), 70/71 NVTXT."""
        cols = dict(start=start, end=end, eventType=event_type, globalTid=tid, domainId=domain)
        if end_tid is not None:
            cols["endGlobalTid"] = end_tid
        if event_type in (60, 71):
            cols["rangeId"] = len(self.rows) + 1
        if registered:
            cols["textId"] = self.sid(text)
        else:
            cols["text"] = text
        self.add("NVTX_EVENTS", **cols)

    def sql(self):
        """A whole database: the DDL, then the rows."""
        return "-- schema: own\n" + DDL.strip() + "\n\n" + self.rows_sql()

    def rows_sql(self):
        """The rows alone, as a fixture holds them (tools/build_fixture.py puts
        schema/in/nsys.sql before a FILE.sqlite.sql)."""
        return "\n".join(self.rows) + "\n"


def sql_value(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return str(v)


def pytorch_rank(mm_ns, gpu="NVIDIA H100 80GB HBM3"):
    """One rank of a PyTorch run under emit_nvtx(record_shapes=True); mm_ns: the
    aten::mm kernel's duration, everything on the device after it shifted by
    mm_ns - 1 ms (README.md has the timeline)."""
    e = Export()
    d = mm_ns - 1000000
    e.add("META_DATA_EXPORT", name="EXPORT_PRODUCT_VERSION", value="2025.3.1.90")
    e.add("TARGET_INFO_GPU", vmId=0, id=0, name=gpu, cuDevice=0)
    # host: the step, then the ops (nested: aten::linear holds aten::addmm)
    e.nvtx(0, 1000000, "ProfilerStep#3", registered=True)
    e.nvtx(10000, 50000, "aten::mm, seq = 12, op_id = 5, sizes = [[4096, 4096], [4096, 4096]]")
    e.nvtx(60000, 120000, "aten::linear, seq = 13, op_id = 6, sizes = [[8, 1024], [4096, 1024], [4096]]")
    e.nvtx(70000, 110000, "aten::addmm, seq = 14, op_id = 8, sizes = [[4096], [8, 1024], [1024, 4096], [], []]",
           registered=True)
    e.nvtx(130000, 140000, "aten::add, seq = 15, op_id = 9, sizes = [[8, 4096], [8, 4096], []]")
    # a range on another thread that holds launch 7's time: not its thread's
    e.nvtx(190000, 210000, "aten::mm, op_id = 20, sizes = [[8, 8], [8, 8]]", tid=TID2)
    e.launch(20000, 1)
    e.launch(80000, 2)
    e.launch(135000, 4)
    e.launch(150000, 5)
    e.launch(160000, 6)
    e.launch(200000, 7)
    # device, one stream: mm, the copy, the collective, the kernel of no op,
    # 5 us idle, addmm, add (README.md)
    e.kernel(100000, 100000 + mm_ns, 1, MM)
    e.add("CUPTI_ACTIVITY_KIND_MEMCPY", start=1100000 + d, end=1110000 + d, deviceId=0, contextId=1, streamId=7,
          correlationId=6, globalPid=GPID, bytes=1048576, copyKind=1)
    e.kernel(1110000 + d, 1130000 + d, 5, NCCL)
    e.kernel(1130000 + d, 1132000 + d, 7, FILL)
    e.kernel(1137000 + d, 1147000 + d, 2, ADDMM)
    e.kernel(1147000 + d, 1152000 + d, 4, ADD)
    return e


NCCL_GENERIC = "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"
FILL_BF16 = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, "
             "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::BFloat16>, at::detail::Array<char*, 1>)")
CUB = "void cub::DeviceReduceSingleTileKernel<cub::DeviceReducePolicy<float, int>::Policy600, float*, float*>"
RELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_functor<c10::BFloat16>, "
        "at::detail::Array<char*, 2> >")


def ranges_rank():
    """One process: NVTX start/end ranges as ops, module ranges, NCCL's own
    ranges (domain "NCCL", names through textId) around a kernel whose name
    gives no kind, a library domain's range that is no op, a memset and a
    memcpy, texts with and without sizes (fixtures/nsys_ranges/README.md)."""
    e = Export()
    e.add("META_DATA_EXPORT", name="EXPORT_PRODUCT_VERSION", value="2025.3.1.90")
    e.add("TARGET_INFO_GPU", vmId=0, id=0, name="NVIDIA H100 80GB HBM3", cuDevice=0)
    # domains: eventType 75 names them (text), as nsys writes NVTX_EVENTS
    e.add("NVTX_EVENTS", start=1, eventType=75, globalTid=TID, domainId=1, text="NCCL")
    e.add("NVTX_EVENTS", start=2, eventType=75, globalTid=TID, domainId=2, text="CCCL")
    e.nvtx(0, 400000, "ProfilerStep#5", registered=True)
    e.nvtx(5000, 145000, "nn.Module: Block")
    e.nvtx(10000, 100000, "nn.Module: Linear_0")
    e.nvtx(15000, 70000, "aten::linear, seq = 39, op_id = 40, sizes = [[256, 512], [1024, 512], []]")
    # a start/end range started on thread 1, ended on thread 2: thread 1's
    e.nvtx(20000, 60000, "aten::mm, seq = 40, op_id = 41, sizes = [[256, 512], [512, 1024]]", event_type=60,
           end_tid=TID2)
    e.nvtx(120000, 140000, "aten::fill_, op_id = 77", event_type=71)
    e.nvtx(150000, 170000, "ncclAllReduce", registered=True, domain=1)
    e.nvtx(175000, 185000, "cub::DeviceReduce::Sum", domain=2)
    e.nvtx(200000, 210000, "aten::relu, seq = 50", event_type=60)
    e.launch(30000, 1)
    e.launch(130000, 2)
    e.launch(160000, 3)
    e.launch(180000, 6)
    e.launch(190000, 4, api="cudaMemsetAsync_v3020")
    e.launch(195000, 5, api="cudaMemcpyAsync_v3020")
    e.launch(205000, 7)
    # device, one stream
    e.kernel(300000, 310000, 1, MM)
    e.kernel(310000, 312000, 2, FILL_BF16)
    e.kernel(312000, 332000, 3, NCCL_GENERIC)
    e.kernel(332000, 334000, 6, CUB)
    e.add("CUPTI_ACTIVITY_KIND_MEMSET", start=336000, end=339000, deviceId=0, contextId=1, streamId=7,
          correlationId=4, globalPid=GPID, value=0, bytes=4096)
    e.add("CUPTI_ACTIVITY_KIND_MEMCPY", start=339000, end=346000, deviceId=0, contextId=1, streamId=7,
          correlationId=5, globalPid=GPID, bytes=65536, copyKind=2)
    e.kernel(346000, 350000, 7, RELU)
    return e


def multi_export():
    """nsys profiling a launcher: two processes (pids 100 and 200) each
    using two GPUs (devices 0 and 1), in one file: four ranks, the k-th
    (device, process) in order rank k. Each process numbers its
    correlationIds from 1, so a launch of the other process with the same id
    must not link. tests/cli/nsys_multi.py derives the counts by hand."""
    e = Export()
    p1, p2 = 100 << 24, 200 << 24
    e.add("META_DATA_EXPORT", name="EXPORT_PRODUCT_VERSION", value="2025.3.1.90")
    e.add("TARGET_INFO_GPU", vmId=0, id=0, name="NVIDIA H100 80GB HBM3", cuDevice=0)
    e.add("TARGET_INFO_GPU", vmId=0, id=1, name="NVIDIA H100 80GB HBM3", cuDevice=1)
    # process 100: an op range holding its launches 1 (device 0) and 4 (device 1); 9: a call with no kernel
    e.nvtx(10000, 30000, "aten::mm, seq = 1, op_id = 1, sizes = [[64, 64], [64, 64]]", tid=p1 | 1)
    launches = [(p1, 20000, 1), (p1, 25000, 4), (p1, 40000, 2), (p1, 50000, 3), (p1, 55000, 5), (p1, 60000, 9)]
    # process 200: an op range holding its launch 3 (device 1)
    e.nvtx(10000, 30000, "aten::addmm, seq = 2, op_id = 2, sizes = [[64], [8, 64], [64, 64], [], []]", tid=p2 | 1)
    launches += [(p2, 5000, 1), (p2, 8000, 2), (p2, 20000, 3), (p2, 35000, 4), (p2, 36000, 5), (p2, 37000, 6)]
    for gpid, ts, corr in launches:
        e.launch(ts, corr, tid=gpid | 1)
    # (process, device, start, end, correlationId, name)
    for gpid, dev, start, end, corr, name in [
            (p1, 0, 100000, 110000, 1, MM), (p1, 0, 110000, 112000, 2, FILL), (p1, 0, 120000, 130000, 3, NCCL),
            (p1, 1, 100000, 104000, 4, MM), (p1, 1, 125000, 135000, 5, NCCL),
            (p2, 0, 140000, 141000, 1, FILL), (p2, 0, 141000, 151000, 2, NCCL),
            (p2, 1, 140000, 143000, 3, ADDMM), (p2, 1, 143000, 144000, 4, FILL), (p2, 1, 144000, 145000, 5, FILL),
            (p2, 1, 145000, 155000, 6, NCCL)]:
        e.kernel(start, end, corr, name, device=dev, gpid=gpid)
    # (table, process, device, start, end, correlationId, copyKind)
    for table, gpid, dev, start, end, corr, kind in [
            ("CUPTI_ACTIVITY_KIND_MEMCPY", p1, 0, 90000, 95000, 7, 1),
            ("CUPTI_ACTIVITY_KIND_MEMSET", p2, 0, 90000, 91000, 8, None),
            ("CUPTI_ACTIVITY_KIND_MEMCPY", p2, 1, 80000, 82000, 9, 2),
            ("CUPTI_ACTIVITY_KIND_MEMCPY", p2, 1, 85000, 87000, 9, 2)]:
        cols = dict(start=start, end=end, deviceId=dev, contextId=1, streamId=7, correlationId=corr, globalPid=gpid,
                    bytes=4096)
        cols.update(value=0) if kind is None else cols.update(copyKind=kind)
        e.add(table, **cols)
    return e


def write(path, export):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(export.rows_sql())


def include(path, of):
    """path holds the rows of the fixture file of (tools/build_fixture.py's '-- include:')."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("-- include: %s\n" % os.path.relpath(of, os.path.dirname(path)))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    fx = os.path.join(root, "fixtures")
    rank0 = os.path.join(fx, "nsys_pytorch", "tree", "job", "rank0.sqlite.sql")
    rank1 = os.path.join(fx, "nsys_pytorch", "tree", "job", "rank1.sqlite.sql")
    write(rank0, pytorch_rank(1000000))
    write(rank1, pytorch_rank(2000000))
    # nsys_diff compares the two: OLD is rank 0's export, NEW rank 1's
    include(os.path.join(fx, "nsys_diff", "tree", "old.sqlite.sql"), rank0)
    include(os.path.join(fx, "nsys_diff", "tree_new", "new.sqlite.sql"), rank1)
    write(os.path.join(fx, "nsys_ranges", "tree", "trace.sqlite.sql"), ranges_rank())


if __name__ == "__main__":
    main()
