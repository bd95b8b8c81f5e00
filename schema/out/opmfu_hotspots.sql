-- opmfu's own table (SPEC 16, 18): where the run's time can be won back, by
-- name summed over every rank (no per-rank cut-off), most recoverable first
-- (ties: kind in the order module, op_type, kernel; then first seen).
CREATE TABLE "OpmfuHotspots" (
    "kind" TEXT,                 -- module (a path, its own ops) | op_type | kernel
    "name" TEXT,
    "ranks" INTEGER,             -- ranks that have it
    "calls" INTEGER,             -- module calls, ops, or kernels
    "kernel_ns" INTEGER,         -- kernel time, all ranks
    "recoverable_ns" INTEGER,    -- time that could be won back; = lost_ns until ops have bytes (SPEC 18)
    "lost_ns" INTEGER,           -- kernel time beyond what its FLOPs need at peak (all of it without FLOPs)
    "pct_of_step" REAL,          -- its kernel time per rank-step / the run's step time (OpmfuRun.step_ns)
    "mfu" REAL,                  -- time-weighted MFU of its rows with FLOPs; NULL: none
    "roofline_eff" REAL,         -- sum of roofline_ns / sum of kernel_ns over the units behind the row that
                                 -- have a roofline (SPEC 18); units without one are left out of both sums;
                                 -- NULL when none has one
    "achieved_tflops" REAL,      -- shape rows: FLOPs / the kernel time of the rows with FLOPs; NULL otherwise
    "intensity" REAL             -- shape rows: FLOPs / bytes (OpmfuShapes, all ranks); NULL without both
);
