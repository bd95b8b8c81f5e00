-- opmfu's own table: the OpmfuOps rows of a rank summed per op name (the
-- op types a user fixes first), most lost time first.
CREATE TABLE "OpmfuOpTypes" (
    "rank_id" INTEGER,
    "op_name" TEXT,
    "ops" INTEGER,             -- OpmfuOps rows with this name
    "kernel_ns" INTEGER,
    "flops_kernel_ns" INTEGER, -- of which rows with FLOPs
    "flops" INTEGER,
    "mfu" REAL,                -- FLOPs / (their kernel time x peak), time-weighted; NULL: none
    "lost_ns" INTEGER,         -- sum of the rows' lost_ns
    "recoverable_ns" INTEGER,  -- sum of the rows' recoverable_ns (SPEC 18)
    "roofline_ns" INTEGER,        -- sum of the roofline time (OpmfuOps.roofline_ns) of its ops that have one; NULL: none has
    "roofline_kernel_ns" INTEGER  -- the kernel time of those ops (OpmfuHotspots.roofline_eff = roofline_ns / this)
);
