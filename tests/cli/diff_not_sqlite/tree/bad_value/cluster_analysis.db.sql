-- schema: own
-- an opmfu result edited by hand: a text where OpmfuSteps holds a time (its second row)
CREATE TABLE OpmfuRankSummary (rank_id INTEGER, status TEXT, compute_ns INTEGER, flops_record REAL,
                               flops_shape REAL, mfu_recorded REAL);
INSERT INTO OpmfuRankSummary VALUES (0, 'ok', 1000, 100, 0, 0.5);
CREATE TABLE OpmfuModules (rank_id INTEGER, module TEXT, self_kernel_ns INTEGER, self_flops INTEGER,
                           self_mfu REAL, self_lost_ns INTEGER);
CREATE TABLE OpmfuOpTypes (rank_id INTEGER, op_name TEXT, kernel_ns INTEGER, flops INTEGER, mfu REAL,
                           lost_ns INTEGER);
CREATE TABLE OpmfuSteps (rank_id INTEGER, step INTEGER, window_ns INTEGER, flops_ns INTEGER,
                         other_compute_ns INTEGER, comm_exposed_ns INTEGER, idle_ns INTEGER, flops INTEGER,
                         trace_mfu REAL);
INSERT INTO OpmfuSteps VALUES (0, 1, 1000, 500, 0, 0, 500, 100, 0.1), (0, 2, 1000, 'abc', 0, 0, 500, 100, 0.1);
