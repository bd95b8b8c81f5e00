-- opmfu's own table (SPEC 10, 15): one row per module path, all its calls
-- together, over the OpmfuOps rows under it (its sub-modules included; the
-- self_ columns: only the ops directly under it). Most lost time first.
CREATE TABLE "OpmfuModules" (
    "rank_id" INTEGER,
    "module" TEXT,             -- full path, "A/B/C"
    "calls" INTEGER,           -- Module ranges with this path
    "kernel_ns" INTEGER,       -- kernel time of every op under it
    "flops_kernel_ns" INTEGER, -- of which ops with FLOPs
    "flops" INTEGER,
    "mfu" REAL,                -- FLOPs / (FLOP-bearing kernel time x peak): time-weighted; NULL: none
    "mfu_all" REAL,            -- FLOPs / (all kernel time x peak; ops without FLOPs at the rank's main peak)
    "lost_ns" INTEGER,         -- time lost to peak, summed over its ops
    "depth" INTEGER,           -- 1 for a top-level module
    "self_kernel_ns" INTEGER,
    "self_flops" INTEGER,
    "self_mfu" REAL,
    "self_lost_ns" INTEGER,
    "recoverable_ns" INTEGER,      -- kernel time beyond the roofline time (SPEC 18), summed over its ops
    "self_recoverable_ns" INTEGER,
    "roofline_ns" INTEGER,        -- sum of the roofline time (OpmfuOps.roofline_ns) of its ops that have one; NULL: none has
    "roofline_kernel_ns" INTEGER, -- the kernel time of those ops
    "self_roofline_ns" INTEGER,   -- the same over its own ops
    "self_roofline_kernel_ns" INTEGER
);
