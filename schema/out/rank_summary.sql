-- opmfu's own table: per rank, which peak was used and where it came from,
-- what was read and why a rank has no MFU. Not written by the reference.
CREATE TABLE "OpmfuRankSummary" (
    "rank_id" INTEGER,
    "db_path" TEXT,
    "status" TEXT,            -- ok | no_mfu | failed
    "reason" TEXT,            -- why there is no MFU, or the failure message
    "peak_fp16_tflops" REAL,  -- fp16/bf16 peak (OperatorMFU also uses it for FLOAT); NULL if none
    "peak_int8_tflops" REAL,
    "peak_fp8_tflops" REAL,
    "peak_source" TEXT,
    "kernels" INTEGER,        -- compute kernel rows linked to framework ops
    "flops_records" INTEGER,  -- mfu_flops records read
    "flops_records_used" INTEGER,
    "flops_records_dropped" INTEGER,
    "kernels_with_mfu" INTEGER,
    "operator_mfu_rows" INTEGER,
    "module_mfu_rows" INTEGER,
    "chip_seen" TEXT,         -- the chip the trace names ("Ascend910B (NPU_INFO ..., AICORE_FREQ 1800 MHz)")
    "mfu_recorded" REAL,      -- FLOPs / (kernel time of the ops with FLOPs x peak) (SPEC 10)
    "mfu_busy" REAL,          -- FLOPs / (all compute kernel time x peak)
    "flops_coverage" REAL,    -- share of compute kernel time that has FLOPs
    "peak_fp32_tflops" REAL,
    "peak_tf32_tflops" REAL,  -- tf32 (Ascend hf32)
    "peak_fp4_tflops" REAL,
    "compute_ns" INTEGER,     -- compute kernel time of all OpmfuOps rows
    "flops_ns" INTEGER,       -- of which ops with FLOPs
    "flops_record" REAL,      -- FLOPs the ops took from records
    "flops_shape" REAL,       -- and from shapes
    "ops" INTEGER,            -- OpmfuOps rows
    "ops_with_flops" INTEGER,
    "ops_above_one" INTEGER,  -- with MFU above 1: their FLOPs or the peak are wrong
    "records_vs_shapes" INTEGER, -- records whose kernels also have shape FLOPs
    "records_agree" INTEGER,  -- of those, within 1 %
    "trace_mfu" REAL,         -- the median step's FLOPs / (its window x peak) (SPEC 11, 16)
    "step_ns_median" INTEGER, -- the median step's window (docs/glossary.md: median step)
    "steps" INTEGER,          -- OpmfuSteps rows (1: no step marks, the whole trace)
    "source" TEXT,            -- the reader: ascend | kineto
    "median_step" INTEGER,    -- the median step's number; NULL: the whole trace, or no step with device activity
    "peak_tflops" REAL,       -- the median step's peak (kernel-time-weighted over its FLOPs' classes); without
                              -- FLOPs in it, the fp16 peak, else the highest; NULL: no peak
    "share_idle" REAL,        -- the median step's waterfall: these four and trace_mfu sum to 1
    "share_comm" REAL,
    "share_other_compute" REAL,
    "share_inefficiency" REAL,
    "trace_mfu_all_steps" REAL, -- FLOPs / (window x peak) summed over all steps
    "input_note" TEXT,        -- what the reader says about its input (Kineto: links by rule, GPU, ...)
    "warning" TEXT,           -- the rank's warning (no peak, --chip against the trace); NULL: none
    "comm_links" INTEGER,     -- communication rows read
    "module_ranges" INTEGER,  -- Module ranges (nn.Module events) read
    "module_paths" INTEGER,   -- OpmfuModules rows
    "module_ops_too_deep" INTEGER, -- ops left out of ModuleMFU: nested deeper than 20 modules
    "bad_rows" INTEGER,       -- rows skipped: NULL or non-numeric timestamps
    "bad_dtype" TEXT,         -- the first unsupported input dtype seen; NULL: none
    "records_nested" INTEGER, -- records whose op instances all belong to inner records
    "shape_failed" INTEGER,   -- kernels of a type with a formula whose shapes did not fit
    "ops_no_peak" INTEGER,    -- ops with FLOPs whose dtype class has no peak
    "operator_mfu_above_one" INTEGER, -- OperatorMFU rows above 100 % (the reference's helper-kernel rule)
    "records_dropped_why" TEXT, -- "2 malformed message, 1 ..."; NULL: none dropped
    "no_peak" INTEGER,        -- 1: no class has a peak, MFU is NULL everywhere
    "comm_overlapped_share" REAL, -- communication under compute, as a share of the median step
    "share_matmul_noflops" REAL,  -- the median step's parts of share_other_compute and share_idle (OpmfuSteps)
    "share_other_kernels" REAL,
    "share_memcpy" REAL,
    "share_idle_host" REAL,
    "share_idle_device" REAL,
    "profiler_step_ns" INTEGER,   -- the median step's host span; NULL: none
    "preparing_ns" INTEGER,       -- its head on the host before its first device work
    "backlog_ns" INTEGER,         -- the backlog's window (work queued before profiling); NULL: none
    "step_windows" TEXT,          -- how the windows were cut: 'device annotation', 'device work', 'whole trace'
    "steps_spilled" INTEGER,      -- steps whose work runs past the next step's start (a warning)
    "share_memory_bound" REAL,    -- the median step's memory-bound work with known bytes (OpmfuSteps)
    "memory_bound_eff" REAL,      -- its bandwidth efficiency
    "peak_bw_tbps" REAL,          -- peak memory bandwidth (HBM/GDDR), TB/s (SPEC 18); NULL: none
    "peak_bw_source" TEXT,        -- where it came from: "override (--peak-bw)", "built-in table: H100 SXM
                                  -- (NVIDIA H100 datasheet, SXM HBM3)"; NULL: none
    "compiled_noflops_ns" INTEGER -- GEMM/conv/attention kernel time without FLOPs whose op is a torch.compile
                                  -- region (CompiledFunction, CompiledFunctionBackward, Torch-Compiled
                                  -- Region: the trace records no shapes for its kernels; SPEC 20)
);
