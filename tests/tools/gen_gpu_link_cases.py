#!/usr/bin/env python3
"""Write the small Kineto traces of the GPU-trace linking cases (SPEC 20).

Each trace is a real-format torch.profiler Chrome trace (the keys and event
kinds Kineto writes), small enough that its README derives the expected
tables by hand. Run from the repository root (or give it the root):

    tests/tools/gen_gpu_link_cases.py [ROOT]

It writes fixtures/<case>/tree/*.json; the cmd, expected/ and README.md of
each case are written by hand and are not touched. No baseTimeNanoseconds:
times are the events' microseconds x 1000 ns.
"""
import gzip
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85520809984, "computeMajor": 9,
        "computeMinor": 0, "maxThreadsPerBlock": 1024, "numSms": 132}


def op(name, ts, dur, ext, dims=None, types=None, tid=1, pid=100):
    args = {"External id": ext, "Record function id": 0, "Ev Idx": ext}
    if dims is not None:
        args["Input Dims"] = dims
        args["Input type"] = types
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def launch(ts, corr=None, ext=None, tid=1, pid=100, name="cudaLaunchKernel"):
    args = {"cbid": 211}
    if corr is not None:
        args["correlation"] = corr
    if ext is not None:
        args["External id"] = ext
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": 2, "args": args}


def kernel(name, ts, dur, corr=None, ext=None, device=0, stream=7):
    args = {"queued": 0, "device": device, "context": 1, "stream": stream, "registers per thread": 32,
            "grid": [1, 1, 1], "block": [128, 1, 1]}
    if corr is not None:
        args["correlation"] = corr
    if ext is not None:
        args["External id"] = ext
    return {"ph": "X", "cat": "kernel", "name": name, "pid": device, "tid": stream, "ts": ts, "dur": dur,
            "args": args}


def flow(ph, fid, pid, tid, ts, cat="ac2g"):
    e = {"ph": ph, "id": fid, "pid": pid, "tid": tid, "ts": ts, "cat": cat, "name": cat}
    if ph == "f":
        e["bp"] = "e"
    return e


def step(n, ts, dur):
    return {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 100, "tid": 1, "ts": ts,
            "dur": dur, "args": {"External id": 1000 + n}}


def write(case, name, doc, order=None):
    d = os.path.join(ROOT, "fixtures", case, "tree")
    os.makedirs(d, exist_ok=True)
    keys = order or list(doc)
    with open(os.path.join(d, name), "w") as f:
        f.write("{\n")
        for i, k in enumerate(keys):
            if k == "traceEvents":
                f.write('  "traceEvents": [\n')
                f.write(",\n".join("    " + json.dumps(e) for e in doc[k]))
                f.write("\n  ]")
            else:
                f.write("  %s: %s" % (json.dumps(k), json.dumps(doc[k])))
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")


MM = ([[64, 128], [128, 256]], ["c10::BFloat16", "c10::BFloat16"])


def flow_only():
    """Kernels with no correlation key and no External id: only ac2g flows link them."""
    ev = [
        step(1, 0, 200),
        op("aten::linear", 5, 30, 10, [[64, 128], [256, 128], [256]], ["c10::BFloat16"] * 3),
        op("aten::mm", 10, 10, 11, *MM),
        launch(12),
        flow("s", 1, 100, 1, 12),
        op("aten::add", 40, 10, 12, [[64, 256], [64, 256], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"]),
        launch(42),
        flow("s", 2, 100, 1, 42, cat="async_cpu_to_gpu"),
        # a launch on another thread, inside no op: its kernel links to nothing
        launch(60, tid=2),
        flow("s", 3, 100, 2, 60),
        kernel("void gemm_bf16_kernel<64, 128>(float*)", 100, 20),
        flow("f", 1, 0, 7, 100),
        kernel("void elementwise_add_kernel(float*)", 130, 10),
        flow("f", 2, 0, 7, 130, cat="async_cpu_to_gpu"),
        kernel("void lonely_kernel(float*)", 150, 5),
        flow("f", 3, 0, 7, 150),
        # an "f" with no "s" of its id, and one that lands on no kernel: they pair nothing
        kernel("void unlaunched_kernel(float*)", 170, 5),
        flow("f", 99, 0, 7, 170),
        flow("f", 2, 0, 8, 130),
    ]
    write("kineto_link_flow", "trace.json",
          {"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev,
           "traceName": "flow_only.pt.trace.json"})


def collision():
    """A GEMM benchmark whose kernels carry their correlation id as External id,
    and whose ops' ids run into the same numbers: an External id that is an
    unrelated op's whose span does not hold the launch."""
    ev = [
        step(1, 0, 300),
        # the op that really launched both GEMMs: External id 7
        op("aten::mm", 10, 20, 7, *MM),
        launch(12, corr=21),
        launch(22, corr=22),
        # an unrelated op later on, whose External id 21 equals the first GEMM's correlation id
        op("aten::copy_", 100, 10, 21, [[64, 256], [64, 256], []], ["c10::BFloat16", "c10::BFloat16", "Bool"]),
        launch(102, corr=30, ext=21),
        # GEMM 1: External id = correlation id = 21 (torch < 2.1 style): through its launch at 12
        kernel("void gemm_bf16_kernel<64, 128>(float*)", 40, 20, corr=21, ext=21),
        # GEMM 2: External id 21 (the copy's), correlation 22: the copy (100-110) does not hold the
        # launch at 22, so the id is a correlation id that met the copy's: through the launch to aten::mm
        kernel("void gemm_bf16_kernel<64, 128>(float*)", 70, 20, corr=22, ext=21),
        # the copy's own kernel: External id 21, launched at 102 inside the copy
        kernel("void copy_kernel(float*)", 120, 5, corr=30, ext=21),
    ]
    write("kineto_link_collision", "trace.json",
          {"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev})


def device_fallback():
    """Kernels on device 2 of a VM whose only deviceProperties entry is id 0."""
    vf = {"id": 0, "name": "AMD Instinct MI300X VF", "totalGlobalMem": 205520809984, "computeMajor": 9,
          "computeMinor": 4, "maxThreadsPerBlock": 1024, "numSms": 304}
    ev = [
        step(1, 0, 100),
        op("aten::mm", 10, 10, 5, *MM),
        launch(12, corr=40, ext=5, name="hipLaunchKernel"),
        kernel("Cijk_Ailk_Bljk_BBS_BH_MT64x128", 50, 20, corr=40, ext=5, device=2, stream=3),
    ]
    write("kineto_device_fallback", "trace.json",
          {"schemaVersion": 1, "deviceProperties": [vf], "traceEvents": ev})


def rank_late():
    """distributedInfo (rank 3 of 4) after traceEvents; the file name has no rank."""
    ev = [
        step(1, 0, 100),
        op("aten::mm", 10, 10, 5, *MM),
        launch(12, corr=40, ext=5),
        kernel("void gemm_bf16_kernel<64, 128>(float*)", 50, 20, corr=40, ext=5),
    ]
    write("kineto_rank_late", "worker.pt.trace.json",
          {"schemaVersion": 1, "traceEvents": ev, "deviceProperties": [H100],
           "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 4}})
    # the same, gzip'd: the probe reads only the head; the read finds the rank (mtime 0: the same bytes
    # every time)
    src = os.path.join(ROOT, "fixtures", "kineto_rank_late", "tree", "worker.pt.trace.json")
    d = os.path.join(ROOT, "fixtures", "kineto_rank_late_gz", "tree")
    os.makedirs(d, exist_ok=True)
    with open(src, "rb") as f, open(os.path.join(d, "worker.pt.trace.json.gz"), "wb") as out:
        out.write(gzip.compress(f.read(), mtime=0))


def counters_only():
    """CUPTI range profiling: counter events and a cuda_profiler_range, no kernels."""
    ev = [
        op("aten::mm", 10, 10, 5, *MM),
        {"ph": "X", "cat": "cuda_profiler_range", "name": "gemm_bf16_kernel", "pid": 0, "tid": 0, "ts": 50,
         "dur": 20, "args": {"sm__throughput.avg.pct_of_peak_sustained_elapsed": 71.5}},
        {"ph": "C", "cat": "cuda_profiler_range", "name": "sm__throughput", "pid": 0, "tid": 0, "ts": 50,
         "args": {"value": 71.5}},
        {"ph": "C", "cat": "cuda_profiler_range", "name": "dram__throughput", "pid": 0, "tid": 0, "ts": 50,
         "args": {"value": 12.25}},
    ]
    write("kineto_counters_only", "trace.json",
          {"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev})


def comm_names():
    """DeepEP and symmetric-memory kernels beside a compute GEMM."""
    ev = [
        step(1, 0, 400),
        op("aten::mm", 10, 10, 5, *MM),
        launch(12, corr=40, ext=5),
        op("deep_ep::dispatch", 30, 10, 6),
        launch(32, corr=41, ext=6),
        op("deep_ep::combine", 50, 10, 7),
        launch(52, corr=42, ext=7),
        op("symm_mem::one_shot_all_reduce", 70, 10, 8),
        launch(72, corr=43, ext=8),
        launch(74, corr=44, ext=8),
        kernel("void gemm_bf16_kernel<64, 128>(float*)", 100, 20, corr=40, ext=5),
        kernel("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)", 130, 30, corr=41, ext=6),
        kernel("void deep_ep::internode_ll::combine<false, 7168>(void*, void*)", 170, 40, corr=42, ext=7),
        kernel("void c10d::symmetric_memory::one_shot_all_reduce_kernel<c10::BFloat16, 8>(c10::BFloat16**)",
               220, 10, corr=43, ext=8),
        kernel("void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 8>(c10::BFloat16*)",
               240, 10, corr=44, ext=8),
    ]
    write("kineto_comm_names", "trace.json",
          {"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev})


if __name__ == "__main__":
    flow_only()
    collision()
    device_fallback()
    rank_late()
    counters_only()
    comm_names()
