-- opmfu's own table (SPEC 18): one row per module class, the last name of a
-- module path without its instance suffix "_N" (Qwen2Attention_13 ->
-- Qwen2Attention), every instance and layer together, over the OpmfuOps
-- rows under it. kernel_ns .. recoverable_ns are inclusive (every op under
-- any module of the class, once even where the class nests in itself); the
-- self_ columns only the ops directly under one. Most recoverable time first.
CREATE TABLE "OpmfuModuleClasses" (
    "rank_id" INTEGER,
    "module_class" TEXT,
    "paths" INTEGER,              -- module paths of the class (instances)
    "calls" INTEGER,              -- their Module ranges
    "kernel_ns" INTEGER,
    "flops_kernel_ns" INTEGER,    -- of which ops with FLOPs
    "flops" INTEGER,
    "mfu" REAL,                   -- FLOPs / (FLOP-bearing kernel time x peak); NULL: none
    "lost_ns" INTEGER,
    "recoverable_ns" INTEGER,     -- kernel time beyond the roofline time (SPEC 18), summed over its ops
    "self_kernel_ns" INTEGER,
    "self_lost_ns" INTEGER,
    "self_recoverable_ns" INTEGER,
    "roofline_ns" INTEGER,        -- sum of the roofline time (OpmfuOps.roofline_ns) of its ops that have one; NULL: none has
    "roofline_kernel_ns" INTEGER, -- the kernel time of those ops
    "self_roofline_ns" INTEGER,   -- the same over its own ops
    "self_roofline_kernel_ns" INTEGER
);
