-- opmfu's own table (SPEC 14, 15): `opmfu diff BASE NEW`, the two runs side by
-- side over the ranks both analysed. base_ columns are BASE's, new_ NEW's; NULL
-- where a name is not on that side or a value is unknown. Times are sums over
-- the compared ranks (and their steps). Kinds, in this order:
--   step_share  the parts of the step time: trace_mfu (kernel_ns = the step
--               windows, mfu = trace MFU, lost = the rest), then inefficiency,
--               other_compute, comm_exposed, idle (kernel_ns = lost = that
--               part's time, mfu = its share of the step time); then
--               comm_wait, the part of comm_exposed spent waiting for other
--               ranks (OpmfuSteps.comm_wait_ns, SPEC 19; not a sixth part):
--               NULL on a side that does not know it (one rank, a result
--               older than the column), its change NULL unless both know it
--   module      a module path's own ops (OpmfuModules' self_ columns)
--   op_type     an op name (OpmfuOpTypes)
--   collective  a collective kind and group as the collective hotspots name it
--               (OpmfuCollectives: name, else op_name, then " [group G]"):
--               kernel_ns = its calls' time, lost = their exposed time, no
--               FLOPs or MFU; only when both sides have OpmfuCollectives
--   model       a convention's model MFU for the run (OpmfuModel), when both have it
--   rank        a rank analysed on one side only
-- module, op_type and collective rows: largest increase in lost time first.
CREATE TABLE "OpmfuDiff" (
    "kind" TEXT,
    "name" TEXT,
    "base_kernel_ns" INTEGER,
    "new_kernel_ns" INTEGER,
    "base_flops" REAL,          -- sums over ranks may pass 2^63
    "new_flops" REAL,
    "base_mfu" REAL,            -- time-weighted: sum of FLOPs / sum of capacity
    "new_mfu" REAL,
    "base_lost_ns" INTEGER,
    "new_lost_ns" INTEGER,
    "delta_lost_ns" INTEGER     -- new - base, a side without the name counting 0
);
