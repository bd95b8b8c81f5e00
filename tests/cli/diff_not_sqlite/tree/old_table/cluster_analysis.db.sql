-- schema: own
-- an opmfu result of an older opmfu: no OpmfuOpTypes
CREATE TABLE OpmfuRankSummary (rank_id INTEGER, status TEXT, compute_ns INTEGER, flops_record REAL,
                               flops_shape REAL, mfu_recorded REAL);
INSERT INTO OpmfuRankSummary VALUES (0, 'ok', 1000, 100, 0, 0.5);
CREATE TABLE OpmfuModules (rank_id INTEGER, module TEXT, self_kernel_ns INTEGER, self_flops INTEGER,
                           self_mfu REAL, self_lost_ns INTEGER);
