#!/usr/bin/env python3
"""One small PyTorch workload written twice: as an Nsight Systems export and
as a Kineto trace (issue 32: the two readers give the same FLOPs).

gen_nsys_kineto_pair.py DIR   writes DIR/nsys/rank0.sqlite, DIR/kineto/trace.json

The nsys export has what emit_nvtx(record_shapes=True) writes: push/pop
ranges whose texts carry the input sizes ("aten::mm, seq = 1, op_id = 1,
sizes = [[64, 128], [128, 256]]"), a runtime call per kernel, the kernels.
The Kineto trace has the same ops as cpu_ops with the same Input Dims
("[]" for a non-tensor input, as the NVTX sizes write it) and kernels linked
by External id. NVTX texts carry no dtypes; the nsys reader takes an op's
from its first kernel's name (docs/nsys.md), so the Kineto ops get that
dtype in Input type ("c10::BFloat16": every kernel here is a bf16 one) and
the comparison is about FLOPs. The conv carries its stride, padding and
dilation in Kineto's Concrete Inputs only: NVTX sizes have none, so the nsys
reader gives it no FLOPs (the one documented difference; nsys_pair.py).
OPS lists the ops with their FLOPs by hand (docs/flops.md).
"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_nsys_cases as g  # noqa: E402

BF16 = "c10::BFloat16"
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
BGEMM = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn"
CONV = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_kernel"

# (name, input dims, tensor inputs (the rest are scalars), concrete inputs
# (Kineto only), kernel, FLOPs by hand; None: unknown to the nsys reader)
OPS = [
    ("aten::mm", [[64, 128], [128, 256]], 2, None, GEMM, 2 * 64 * 256 * 128),
    ("aten::addmm", [[256], [64, 128], [128, 256], [], []], 3, None, GEMM, 2 * 64 * 256 * 128),
    ("aten::bmm", [[4, 64, 128], [4, 128, 32]], 2, None, BGEMM, 2 * 4 * 64 * 32 * 128),
    ("aten::linear", [[2, 64, 128], [256, 128], [256]], 3, None, GEMM, 2 * 2 * 64 * 256 * 128),
    ("aten::mm", [[1000, 24], [24, 3]], 2, None, BGEMM, 2 * 1000 * 3 * 24),
    # conv2d(input, weight, bias, stride, padding, dilation, groups): output
    # 8x16x32x32, Cin 3, kernel 3x3
    ("aten::conv2d", [[8, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], []], 3,
     ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"], CONV, None),
]
CONV_FLOPS = 2 * (8 * 16 * 32 * 32) * 3 * 3 * 3


def sizes_text(dims):
    return "[" + ", ".join("[" + ", ".join(str(d) for d in x) + "]" for x in dims) + "]"


def nsys_export():
    e = g.Export()
    e.add("META_DATA_EXPORT", name="EXPORT_PRODUCT_VERSION", value="2025.3.1.90")
    e.add("TARGET_INFO_GPU", vmId=0, id=0, name="NVIDIA H100 80GB HBM3", cuDevice=0)
    for i, (name, dims, _, _, kernel, _) in enumerate(OPS):
        t = 10000 + 100000 * i
        e.nvtx(t, t + 50000, "%s, seq = %d, op_id = %d, sizes = %s" % (name, i + 1, i + 1, sizes_text(dims)))
        e.launch(t + 10000, i + 1)
        e.kernel(1000000 + 100000 * i, 1000000 + 100000 * i + 20000 * (i + 1), i + 1, kernel)
    return e


def kineto_trace():
    events = []
    for i, (name, dims, tensors, concrete, kernel, _) in enumerate(OPS):
        t = 10 + 100 * i  # us: the nsys export's times / 1000
        args = {"External id": 100 + i, "Input Dims": dims,
                "Input type": [BF16 if j < tensors else "Scalar" for j in range(len(dims))]}
        if concrete is not None:
            args["Concrete Inputs"] = concrete
        events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t, "dur": 50,
                       "args": args})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 10, "dur": 2, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": 1000 + 100 * i,
                       "dur": 20 * (i + 1), "args": {"External id": 100 + i, "correlation": i + 1, "device": 0,
                                                     "stream": 7}})
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85899345920}],
            "traceEvents": events}


def write(out):
    os.makedirs(os.path.join(out, "nsys"), exist_ok=True)
    os.makedirs(os.path.join(out, "kineto"), exist_ok=True)
    path = os.path.join(out, "nsys", "rank0.sqlite")
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.executescript(nsys_export().sql())
    con.commit()
    con.close()
    with open(os.path.join(out, "kineto", "trace.json"), "w") as f:
        json.dump(kineto_trace(), f)


if __name__ == "__main__":
    write(sys.argv[1])
