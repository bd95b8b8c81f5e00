-- schema: own
-- an opmfu result whose OpmfuSteps has no trace_mfu
CREATE TABLE OpmfuRankSummary (rank_id INTEGER, status TEXT, compute_ns INTEGER, flops_record REAL,
                               flops_shape REAL, mfu_recorded REAL);
CREATE TABLE OpmfuModules (rank_id INTEGER, module TEXT, self_kernel_ns INTEGER, self_flops INTEGER,
                           self_mfu REAL, self_lost_ns INTEGER);
CREATE TABLE OpmfuOpTypes (rank_id INTEGER, op_name TEXT, kernel_ns INTEGER, flops INTEGER, mfu REAL,
                           lost_ns INTEGER);
CREATE TABLE OpmfuSteps (rank_id INTEGER, step INTEGER, window_ns INTEGER, flops_ns INTEGER,
                         other_compute_ns INTEGER, comm_exposed_ns INTEGER, idle_ns INTEGER, flops INTEGER);
