-- opmfu's own table (SPEC 11, 15, 17, 25): where each step went, per rank.
-- A row is a window on the device timeline: a step's (kind 'step'), the
-- backlog of work queued before profiling began (kind 'backlog', step
-- NULL; it is in no step), or the whole trace when it has no step marks
-- (kind 'trace', step NULL). Windows of a rank never overlap: the
-- device-side step annotation where the trace has consistent ones, else a
-- step's first device work to the next step's (the last step to its last
-- work). Every ns of a window is in exactly one of flops_ns,
-- matmul_noflops_ns, memory_bound_ns, other_compute_ns, comm_exposed_ns, memcpy_ns,
-- idle_host_ns, idle_ns (unions of device intervals, in that order of
-- precedence); comm_overlapped_ns is beside them.
-- trace_mfu + share_idle + share_comm + share_other_compute +
-- share_inefficiency = 1 (docs/output-schema.md).
CREATE TABLE "OpmfuSteps" (
    "rank_id" INTEGER,
    "step" INTEGER,               -- the step number; NULL: the backlog or the whole trace (kind)
    "kind" TEXT,                  -- 'step', 'backlog' or 'trace'
    "start_ns" INTEGER,           -- the window on the device timeline
    "end_ns" INTEGER,
    "window_ns" INTEGER,
    "profiler_step_ns" INTEGER,   -- the step's host span (STEP_TIME, ProfilerStep#N); NULL: none
    "preparing_ns" INTEGER,       -- from the host step's start to the window's (the host's head of the step)
    "flops_ns" INTEGER,           -- compute of ops with FLOPs (and a peak)
    "matmul_noflops_ns" INTEGER,  -- GEMM, convolution or attention kernels whose FLOPs are unknown
    "other_compute_ns" INTEGER,   -- other compute without FLOPs (bytes unknown)
    "comm_exposed_ns" INTEGER,    -- communication under no compute
    "comm_overlapped_ns" INTEGER, -- communication under compute
    "memcpy_ns" INTEGER,          -- copies and memsets under no compute or communication
    "idle_host_ns" INTEGER,       -- nothing ran, and the work that ended the gap was launched after it began
    "idle_ns" INTEGER,            -- nothing ran, otherwise
    "flops" INTEGER,              -- FLOPs of the OpmfuOps rows of the step (their step column)
    "flops_record" INTEGER,
    "flops_shape" INTEGER,
    "peak_tflops" REAL,           -- the peak of those FLOPs (kernel-time-weighted over their classes)
    "trace_mfu" REAL,             -- FLOPs / (window x peak)
    "share_idle" REAL,            -- (idle_host_ns + idle_ns) / window
    "share_comm" REAL,            -- exposed communication
    "share_other_compute" REAL,   -- busy without FLOPs: (matmul_noflops_ns + memory_bound_ns + other_compute_ns
                                  -- + memcpy_ns) / window
    "share_inefficiency" REAL,    -- flops_ns / window - trace_mfu: FLOP compute not turned into FLOPs
    "share_matmul_noflops" REAL,  -- the parts of share_other_compute and share_idle, each ns / window
    "share_other_kernels" REAL,
    "share_memcpy" REAL,
    "share_idle_host" REAL,
    "share_idle_device" REAL,
    "memory_bound_ns" INTEGER,    -- kernels of ops without FLOPs whose bytes are known (SPEC 18), not under FLOP
                                  -- or GEMM compute: a part of busy without FLOPs, taken out of other compute
    "share_memory_bound" REAL,    -- memory_bound_ns / window
    "memory_bound_eff" REAL,      -- those ops' bytes / peak bandwidth over their kernel time (ops starting in the step)
    "comm_wait_ns" INTEGER,       -- the part of comm_exposed_ns spent waiting for other ranks (SPEC 19): Ascend, while
                                  -- a collective's Notify_Wait task runs; GPU, from each call's start to the last
                                  -- rank's start of the same call (its exposed part). NULL: not known (one rank)
    "share_comm_wait" REAL        -- comm_wait_ns / window
);
