-- opmfu's own table (SPEC 10, 15): one row per op instance that launched
-- compute kernels, or per FLOPs record with the op instances it covers; its
-- FLOPs over the time of all its kernels (each kernel span once).
CREATE TABLE "OpmfuOps" (
    "rank_id" INTEGER,
    "step" INTEGER,            -- the step whose window holds its (first) op's start; NULL: no step marks or outside
    "op_name" TEXT,            -- the (first) framework op's name
    "module" TEXT,             -- innermost module path, "A/B/C"; NULL: outside every module
    "start_ns" INTEGER,        -- op span (of all its op instances)
    "end_ns" INTEGER,
    "kernels" INTEGER,         -- distinct kernel spans
    "main_kernel" TEXT,        -- its longest kernel
    "kernel_ns" INTEGER,       -- their time
    "flops" INTEGER,           -- NULL without FLOPs
    "flops_source" TEXT,       -- record | shape | none
    "dtype_class" TEXT,        -- fp32 | tf32 | fp16 | fp8 | int8 | fp4; NULL: no data dtype
    "peak_tflops" REAL,        -- the peak of its class; NULL: none (OpmfuRankSummary.peak_source says whence)
    "achieved_tflops" REAL,    -- flops / kernel time
    "mfu" REAL,                -- achieved / peak; NULL without FLOPs or peak
    "lost_ns" INTEGER,         -- kernel_ns - flops / peak: all of kernel_ns without FLOPs or peak
    "flops_name" TEXT,         -- the record's op name (record rows)
    "bytes" INTEGER,           -- bytes its kernels move to and from device memory (docs/roofline.md); NULL: unknown
    "intensity" REAL,          -- flops / bytes
    "achieved_tbps" REAL,      -- bytes / kernel time, TB/s
    "bound" TEXT,              -- compute | memory (by the chip's ridge point, peak / bandwidth) | unknown
    "roofline_ns" INTEGER,     -- max(flops / peak, bytes / bandwidth): the least time it could take here
    "roofline_eff" REAL,       -- roofline_ns / kernel_ns
    "recoverable_ns" INTEGER   -- kernel_ns - roofline_ns (at least 0); all of kernel_ns when neither is known
);
