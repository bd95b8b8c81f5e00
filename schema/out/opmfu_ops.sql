-- opmfu's own table (SPEC 10, 15): one row per op instance that launched
-- compute kernels, or per FLOPs record with the op instances it covers; its
-- FLOPs over the time of all its kernels (each kernel span once).
--
-- Read the view "OpmfuOps" at the end. It is stored narrow (SPEC 24): the
-- rows in OpmfuOps_rows; what repeats from op to op (names, classes, the
-- peaks) once per rank in OpmfuOps_kinds, module paths in OpmfuOps_modules;
-- the rates and ratios computed by the view from the stored values, as
-- opmfu computes them for the other exports (docs/output-schema.md).
CREATE TABLE "OpmfuOps_rows" (
    "rank_id" INTEGER,
    "step" INTEGER,
    "kind" INTEGER,            -- OpmfuOps_kinds.id of the rank
    "module" INTEGER,          -- OpmfuOps_modules.id of the rank
    "start_ns" INTEGER,
    "dur_ns" INTEGER,          -- end_ns - start_ns
    "kernels" INTEGER,
    "kernel_ns" INTEGER,
    "flops" INTEGER,
    "lost_ns" INTEGER,         -- NULL: kernel_ns
    "bytes" INTEGER,
    "roofline_ns" INTEGER,
    "recoverable_ns" INTEGER,  -- NULL: kernel_ns
    "mfu" REAL,                -- NULL when the kind has its peak (the view computes it); else the ratio
    "roofline_eff" REAL        -- likewise: rows opmfu merge took from a shard through another export
);
CREATE TABLE "OpmfuOps_kinds" (
    "rank_id" INTEGER,
    "id" INTEGER,
    "op_name" TEXT,
    "main_kernel" TEXT,
    "flops_name" TEXT,
    "flops_source" TEXT,
    "dtype_class" TEXT,
    "peak_tflops" REAL,
    "peak" REAL,               -- FLOP/s of the dtype class; NULL: none, or not stored (OpmfuOps_rows.mfu)
    "bw" REAL,                 -- the chip's memory bandwidth, bytes/s; NULL: none, or not stored
    "bound" TEXT,
    PRIMARY KEY ("rank_id", "id")
) WITHOUT ROWID;
CREATE TABLE "OpmfuOps_modules" (
    "rank_id" INTEGER,
    "id" INTEGER,
    "module" TEXT,
    PRIMARY KEY ("rank_id", "id")
) WITHOUT ROWID;
CREATE VIEW "OpmfuOps" (
    "rank_id",
    "step",            -- the step whose window holds its (first) op's start; NULL: no step marks or outside
    "op_name",         -- the (first) framework op's name
    "module",          -- innermost module path, "A/B/C"; NULL: outside every module
    "start_ns",        -- op span (of all its op instances)
    "end_ns",
    "kernels",         -- distinct kernel spans
    "main_kernel",     -- its longest kernel
    "kernel_ns",       -- their time
    "flops",           -- NULL without FLOPs
    "flops_source",    -- record | shape | none
    "dtype_class",     -- fp32 | tf32 | fp16 | fp8 | int8 | fp4; NULL: no data dtype
    "peak_tflops",     -- the peak of its class; NULL: none (OpmfuRankSummary.peak_source says whence)
    "achieved_tflops", -- flops / kernel time
    "mfu",             -- achieved / peak; NULL without FLOPs or peak
    "lost_ns",         -- kernel_ns - flops / peak: all of kernel_ns without FLOPs or peak
    "flops_name",      -- the record's op name (record rows)
    "bytes",           -- bytes its kernels move to and from device memory (docs/roofline.md); NULL: unknown
    "intensity",       -- flops / bytes
    "achieved_tbps",   -- bytes / kernel time, TB/s
    "bound",           -- compute | memory (by the chip's ridge point, peak / bandwidth) | unknown
    "roofline_ns",     -- max(flops / peak, bytes / bandwidth): the least time it could take here
    "roofline_eff",    -- max(flops / peak, bytes / bandwidth) / kernel_ns
    "recoverable_ns"   -- kernel_ns - roofline_ns (at least 0); all of kernel_ns when neither is known
) AS SELECT
    r."rank_id", r."step", k."op_name", m."module", r."start_ns", r."start_ns" + r."dur_ns", r."kernels",
    k."main_kernel", r."kernel_ns", r."flops", k."flops_source", k."dtype_class", k."peak_tflops",
    CASE WHEN r."flops" IS NOT NULL AND r."kernel_ns" > 0 THEN CAST(r."flops" AS REAL) / r."kernel_ns" / 1e3 END,
    coalesce(r."mfu", CASE WHEN r."flops" IS NOT NULL AND k."peak" > 0 AND r."kernel_ns" > 0
                                AND r."flops" / (r."kernel_ns" * 1e-9) / k."peak" >= 0
                           THEN r."flops" / (r."kernel_ns" * 1e-9) / k."peak" END),
    coalesce(r."lost_ns", r."kernel_ns"), k."flops_name", r."bytes",
    CASE WHEN r."flops" IS NOT NULL AND r."bytes" > 0 THEN CAST(r."flops" AS REAL) / r."bytes" END,
    CASE WHEN r."bytes" IS NOT NULL AND r."kernel_ns" > 0 THEN CAST(r."bytes" AS REAL) / r."kernel_ns" / 1e3 END,
    k."bound", r."roofline_ns",
    -- the roofline time unrounded: the larger of the FLOPs' and the bytes' times (-1: neither)
    coalesce(r."roofline_eff", CASE WHEN r."kernel_ns" > 0 THEN
        CASE WHEN r."bytes" IS NOT NULL AND k."bw" > 0
                  AND r."bytes" / k."bw" * 1e9 > CASE WHEN r."flops" IS NOT NULL AND k."peak" > 0
                                                     THEN r."flops" / k."peak" * 1e9 ELSE -1 END
             THEN r."bytes" / k."bw" * 1e9 / r."kernel_ns"
             WHEN r."flops" IS NOT NULL AND k."peak" > 0 AND r."flops" / k."peak" * 1e9 >= 0
             THEN r."flops" / k."peak" * 1e9 / r."kernel_ns"
        END
    END),
    coalesce(r."recoverable_ns", r."kernel_ns")
FROM "OpmfuOps_rows" r
LEFT JOIN "OpmfuOps_kinds" k ON k."rank_id" = r."rank_id" AND k."id" = r."kind"
LEFT JOIN "OpmfuOps_modules" m ON m."rank_id" = r."rank_id" AND m."id" = r."module";
