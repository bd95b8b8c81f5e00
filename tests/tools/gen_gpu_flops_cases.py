#!/usr/bin/env python3
"""Write the small Kineto traces of the SPEC 20 FLOPs fixtures.

usage: gen_gpu_flops_cases.py SOURCE_ROOT

Writes fixtures/<case>/tree/trace.json for:
  gpu_tf32        fp32 GEMMs on TF32 and on plain fp32 kernels (gpu_tf32_off reads
                  the same tree with --no-tf32)
  gpu_flops_more  aten::_scaled_mm (fp8), aten::_grouped_mm (3-D x 3-D and an
                  offs-split 2-D x 3-D), Triton kernels with Inductor's kernel_flop
  gpu_compiled    torch.compile regions (CompiledFunction, CompiledFunctionBackward) whose
                  GEMM kernels have no shapes, beside an aten::mm that has them

The traces are in torch.profiler's own form (torch >= 2.1: kernels link to
their cpu_op by External id; a cudaLaunchKernel per kernel with the
kernel's correlation id). Each fixture's README derives the expected rows
by hand from these numbers; this script never runs opmfu.
"""
import json
import os
import sys


class Trace:
    def __init__(self, gpu):
        self.events = []
        self.ext = 100
        self.corr = 5000
        self.gpu = gpu

    def op(self, name, ts, dur, dims=None, types=None, concrete=None, kernels=(), extra=None):
        """A cpu_op and its kernels: kernels are (name, ts, dur)."""
        self.ext += 1
        args = {"External id": self.ext}
        if dims is not None:
            args["Input Dims"] = dims
        if types is not None:
            args["Input type"] = types
        if concrete is not None:
            args["Concrete Inputs"] = concrete
        args.update(extra or {})
        self.events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1,
                            "ts": ts, "dur": dur, "args": args})
        for i, (kname, kts, kdur) in enumerate(kernels):
            self.corr += 1
            self.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                                "tid": 1, "ts": ts + 1 + i, "dur": 1, "args": {"correlation": self.corr}})
            self.events.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
                                "ts": kts, "dur": kdur,
                                "args": {"External id": self.ext, "correlation": self.corr, "device": 0,
                                         "stream": 7}})

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        doc = {"schemaVersion": 1,
               "deviceProperties": [{"id": 0, "name": self.gpu, "totalGlobalMem": 85899345920}],
               "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
               "traceEvents": self.events}
        with open(path, "w") as f:
            f.write('{"schemaVersion": 1, "deviceProperties": ' + json.dumps(doc["deviceProperties"]) +
                    ', "distributedInfo": ' + json.dumps(doc["distributedInfo"]) + ', "traceEvents": [\n')
            f.write(",\n".join(json.dumps(e) for e in self.events))
            f.write("\n]}\n")


STEP = {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 5000,
        "args": {"External id": 1}}


def tf32():
    t = Trace("NVIDIA A100-SXM4-80GB")
    t.events.append(dict(STEP))
    # fp32 addmm on a cuBLASLt/xmma TF32 kernel: 2*1024*1024*1024 FLOPs in 100 us
    t.op("aten::addmm", 10, 50, [[1024], [1024, 1024], [1024, 1024], [], []],
         ["float", "float", "float", "Scalar", "Scalar"], ["", "", "", "1", "1"],
         [("sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_kernel",
           1000, 100)])
    # fp32 mm on a SIMT sgemm (no tensor cores): 2*1024^3 in 400 us
    t.op("aten::mm", 100, 50, [[1024, 1024], [1024, 1024]], ["float", "float"], ["", ""],
         [("ampere_sgemm_128x64_nn", 1200, 400)])
    # fp32 mm on cuBLAS's CUTLASS tensor-op kernel plus its split-K reduce: 2*512*2048*512 in 50 + 10 us
    t.op("aten::mm", 200, 50, [[512, 2048], [2048, 512]], ["float", "float"], ["", ""],
         [("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1>"
           "(cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1::Params)", 1700, 50),
          ("void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>"
           "(cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, "
           "float const*, float const*, float*, void*, long, float*, int*)", 1760, 10)])
    # bf16 mm on a kernel with tf32 nowhere: stays fp16-class; 2*1024^3 in 20 us
    t.op("aten::mm", 300, 50, [[1024, 1024], [1024, 1024]], ["c10::BFloat16", "c10::BFloat16"], ["", ""],
         [("sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x16_kernel",
           1800, 20)])
    return t


def more():
    t = Trace("NVIDIA H100 80GB HBM3")
    t.events.append(dict(STEP))
    # fp8 GEMM: (2048, 4096) @ (4096, 1024), scales and out dtype after; 50 us
    t.op("aten::_scaled_mm", 10, 40, [[2048, 4096], [4096, 1024], [], [], [], [], [], []],
         ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "ScalarType", "Scalar"],
         ["", "", "", "", "", "", "15", "False"],
         [("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_kernel", 1000, 50)])
    # grouped GEMM, 3-D x 3-D: 8 experts, (256, 512) @ (512, 128) each; 10 us
    t.op("aten::_grouped_mm", 100, 40, [[8, 256, 512], [8, 512, 128], [], [], []],
         ["c10::BFloat16", "c10::BFloat16", "", "", ""], ["", "", "", "", ""],
         [("void cutlass::device_kernel<grouped_gemm_bf16_kernel>(Params)", 1100, 10)])
    # grouped GEMM, 2-D x 3-D split by offs (MoE experts): group sizes are offs' values, not in the trace
    t.op("aten::_grouped_mm", 200, 40, [[1024, 512], [8, 512, 128], [8], [], []],
         ["c10::BFloat16", "c10::BFloat16", "int", "", ""], ["", "", "", "", ""],
         [("void cutlass::device_kernel<grouped_gemm_bf16_kernel>(Params)", 1200, 12)])
    # Inductor's Triton template GEMM, launched under its _RecordFunctionFast op with kernel_flop; 16 us
    t.op("triton_tem_fused_mm_0", 300, 20, [[512, 1024], [1024, 512], [512, 512]],
         ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], None,
         [("triton_tem_fused_mm_0", 1300, 16)],
         {"kernel_file": "/tmp/torchinductor/ab/cab.py", "kernel_hash": "cab", "kernel_backend": "triton",
          "stream": 0, "num_warps": 4, "num_stages": 3, "kernel_kwargs": "BLOCK_M=64,BLOCK_N=64,BLOCK_K=32",
          "kernel_name": "triton_tem_fused_mm_0", "kernel_flop": 536870912, "kernel_num_gb": 0.003})
    # a pointwise Triton kernel: kernel_flop 0 (Inductor counts no FLOPs), so none; 4 us
    t.op("triton_poi_fused_relu_1", 400, 20, [[512, 512]], ["c10::BFloat16"], None,
         [("triton_poi_fused_relu_1", 1400, 4)],
         {"kernel_backend": "triton", "kernel_name": "triton_poi_fused_relu_1", "kernel_flop": 0,
          "kernel_num_gb": 0.001})
    return t


def compiled():
    t = Trace("NVIDIA A100-SXM4-80GB")
    t.events.append(dict(STEP))
    # the backward of a compiled graph: a CUTLASS GEMM (300 us) and a Triton pointwise kernel (100 us),
    # both linked to the region's op, which records no shapes
    t.op("CompiledFunctionBackward", 10, 400, None, None, None,
         [("void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x5_nn_align8>(Params)",
           1000, 300),
          ("triton_poi_fused_add_0", 1300, 100)])
    # its forward: one xmma GEMM, 50 us
    t.op("CompiledFunction", 500, 100, None, None, None,
         [("sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x16_kernel",
           1500, 50)])
    # eager ops: an elementwise add (50 us) and a bf16 mm with shapes (2*1024^3 FLOPs in 20 us)
    t.op("aten::add", 700, 20, [[1024, 1024], [1024, 1024], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"],
         ["", "", "1"], [("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>,"
                          " at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
                          "at::detail::Array<char*, 3>)", 1600, 50)])
    t.op("aten::mm", 800, 20, [[1024, 1024], [1024, 1024]], ["c10::BFloat16", "c10::BFloat16"], ["", ""],
         [("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 1700, 20)])
    return t


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    for case, make in (("gpu_tf32", tf32), ("gpu_flops_more", more), ("gpu_compiled", compiled)):
        make().write(os.path.join(root, "fixtures", case, "tree", "trace.json"))


if __name__ == "__main__":
    main()
