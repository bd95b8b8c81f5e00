-- opmfu's own table (SPEC 18, 25): the OpmfuOps rows of a rank summed per
-- (op name, input shapes, input dtype list), the shapes and dtypes of each
-- row's longest kernel. Most recoverable time first. NULL where unknown:
-- bytes, achieved_tbps, bound and roofline_eff until the ops have bytes
-- and the rank a memory bandwidth.
CREATE TABLE "OpmfuShapes" (
    "rank_id" INTEGER,
    "op_name" TEXT,
    "input_shapes" TEXT,          -- as the trace has them (normalised); NULL: none or not known
    "input_dtypes" TEXT,          -- the input dtype list as the trace has it; NULL: none
    "calls" INTEGER,              -- OpmfuOps rows
    "kernel_ns" INTEGER,
    "flops" INTEGER,              -- NULL: no row has FLOPs
    "bytes" INTEGER,              -- NULL unless every row's bytes are known
    "achieved_tflops" REAL,       -- flops / the kernel time of the rows with FLOPs
    "achieved_tbps" REAL,         -- bytes / kernel time
    "bound" TEXT,                 -- compute / memory by the chip's ridge point; NULL: unknown
    "roofline_eff" REAL,          -- sum of the rows' roofline time / kernel time; NULL unless every row's is known
    "recoverable_ns" INTEGER,     -- sum of the rows' recoverable time
    "pct_of_step" REAL,           -- kernel_ns / (steps with device activity x the rank's median step)
    "flops_kernel_ns" INTEGER,
    "mfu" REAL,
    "lost_ns" INTEGER,
    "roofline_ns" INTEGER,        -- sum of the roofline time (OpmfuOps.roofline_ns) of its ops that have one; NULL: none has
    "roofline_kernel_ns" INTEGER, -- the kernel time of those ops (OpmfuHotspots.roofline_eff = roofline_ns / this)
    "intensity" REAL              -- flops / bytes (FLOPs per byte); NULL without FLOPs or bytes
);
