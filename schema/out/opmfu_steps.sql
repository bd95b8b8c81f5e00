-- opmfu's own table (SPEC 11, 15): where each step went, per rank. The
-- window is the step's first to last device activity; its parts are unions
-- of device intervals: compute of ops with FLOPs, other compute (not under
-- FLOP compute), communication under no compute (exposed), the rest idle.
-- trace_mfu + share_idle + share_comm + share_other_compute +
-- share_inefficiency = 1.
CREATE TABLE "OpmfuSteps" (
    "rank_id" INTEGER,
    "step" INTEGER,               -- the step number; NULL: no step marks, the whole trace
    "start_ns" INTEGER,
    "end_ns" INTEGER,
    "window_ns" INTEGER,
    "flops_ns" INTEGER,           -- compute of ops with FLOPs (and a peak)
    "other_compute_ns" INTEGER,   -- compute without FLOPs, not under FLOP compute
    "comm_exposed_ns" INTEGER,    -- communication under no compute
    "comm_overlapped_ns" INTEGER, -- communication under compute
    "idle_ns" INTEGER,            -- window - flops_ns - other_compute_ns - comm_exposed_ns
    "flops" INTEGER,              -- FLOPs of the OpmfuOps rows of the step (their step column)
    "flops_record" INTEGER,
    "flops_shape" INTEGER,
    "peak_tflops" REAL,           -- the peak of those FLOPs (kernel-time-weighted over their classes)
    "trace_mfu" REAL,             -- FLOPs / (window x peak)
    "share_idle" REAL,
    "share_comm" REAL,            -- exposed communication
    "share_other_compute" REAL,
    "share_inefficiency" REAL     -- flops_ns / window - trace_mfu: FLOP compute not turned into FLOPs
);
