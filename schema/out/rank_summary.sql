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
    "trace_mfu" REAL,         -- FLOPs / (step window x peak), over all steps (SPEC 11)
    "step_ns_median" INTEGER, -- the median step window
    "steps" INTEGER           -- OpmfuSteps rows (1: no step marks, the whole trace)
);
