-- opmfu's own table: the compute kernels of a rank summed per kernel name;
-- each kernel takes its op's FLOPs and lost time in proportion to its share
-- of the op's kernel time. Most lost time first.
CREATE TABLE "OpmfuKernels" (
    "rank_id" INTEGER,
    "kernel_name" TEXT,
    "kernels" INTEGER,         -- kernel-op links with this name
    "kernel_ns" INTEGER,
    "flops_kernel_ns" INTEGER, -- of which kernels of ops with FLOPs
    "flops" INTEGER,           -- their share of their ops' FLOPs
    "mfu" REAL,                -- time-weighted; NULL: none
    "lost_ns" INTEGER,
    "recoverable_ns" INTEGER,  -- its share of its ops' recoverable time, as lost_ns (SPEC 18)
    "roofline_ns" INTEGER,        -- its share of the roofline time of its ops that have one, as lost_ns; NULL: none has
    "roofline_kernel_ns" INTEGER  -- its kernel time in those ops (OpmfuHotspots.roofline_eff = roofline_ns / this)
);
