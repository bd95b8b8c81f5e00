-- opmfu's own table (SPEC 16): the run as a whole, one row, computed once
-- from the ranks' OpmfuRankSummary rows (docs/glossary.md defines each term).
-- The step quantities are the median rank's median step's; the rest is the
-- median rank's. Every view (terminal, opmfu_summary.xlsx, diff) shows these.
CREATE TABLE "OpmfuRun" (
    "run_id" TEXT,               -- a digest of the ranks' inputs: the same inputs, the same id
    "source" TEXT,               -- ascend | kineto | mixed (the readers of the ranks)
    "ranks" INTEGER,             -- ranks found
    "ranks_failed" INTEGER,
    "chip" TEXT,                 -- the chip the median rank's trace names
    "peak_tflops" REAL,          -- the median rank's OpmfuRankSummary.peak_tflops (its median step's FLOPs' peak)
    "peak_source" TEXT,          -- where the median rank's peaks came from
    "median_rank" INTEGER,       -- the median rank (docs/glossary.md)
    "median_step" INTEGER,       -- its median step; NULL: the whole trace (no step marks)
    "step_ns" INTEGER,           -- that step's time (window)
    "trace_mfu" REAL,            -- FLOPs / (step time x peak) of that step
    "mfu_busy" REAL,             -- the median rank's FLOPs / (all compute kernel time x peak)
    "flops_coverage" REAL,       -- the median rank's share of compute time whose FLOPs are known
    "share_idle" REAL,           -- that step's waterfall: these four and trace_mfu sum to 1
    "share_comm" REAL,
    "share_other_compute" REAL,
    "share_inefficiency" REAL,
    "ranks_analysed" INTEGER,    -- ranks not failed
    "mfu_recorded" REAL,         -- the median rank's FLOPs / (FLOP-bearing kernel time x peak)
    "share_matmul_noflops" REAL, -- that step's parts of share_other_compute and share_idle (OpmfuSteps)
    "share_other_kernels" REAL,
    "share_memcpy" REAL,
    "share_idle_host" REAL,
    "share_idle_device" REAL,
    "profiler_step_ns" INTEGER,  -- that step's host span; NULL: none
    "backlog_ns" INTEGER,        -- the median rank's backlog window; NULL: none
    "step_windows" TEXT,         -- how the median rank's windows were cut
    "share_memory_bound" REAL,   -- that step's memory-bound work with known bytes (SPEC 18)
    "memory_bound_eff" REAL,     -- its bandwidth efficiency
    "peak_bw_tbps" REAL,         -- the median rank's peak memory bandwidth, TB/s; NULL: none
    "peak_bw_source" TEXT,       -- where it came from (OpmfuRankSummary.peak_bw_source)
    "share_comm_wait" REAL       -- the part of share_comm spent waiting for other ranks (the median rank's
                                 -- median step in OpmfuSteps); NULL: not known
);
