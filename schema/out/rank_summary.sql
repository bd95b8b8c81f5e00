-- opmfu's own table: per rank, which peak was used and where it came from,
-- what was read and why a rank has no MFU. Not written by the reference.
CREATE TABLE "OpmfuRankSummary" (
    "rank_id" INTEGER,
    "db_path" TEXT,
    "status" TEXT,            -- ok | no_mfu | failed
    "reason" TEXT,            -- why there is no MFU, or the failure message
    "peak_fp16_tflops" REAL,  -- fp16-class peak used (FLOAT, FLOAT16, BF16); NULL if none
    "peak_int8_tflops" REAL,
    "peak_fp8_tflops" REAL,
    "peak_source" TEXT,
    "kernels" INTEGER,        -- compute kernel rows linked to framework ops
    "flops_records" INTEGER,  -- mfu_flops records read
    "flops_records_used" INTEGER,
    "flops_records_dropped" INTEGER,
    "kernels_with_mfu" INTEGER,
    "operator_mfu_rows" INTEGER,
    "module_mfu_rows" INTEGER
);
