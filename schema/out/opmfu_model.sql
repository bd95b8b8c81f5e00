-- opmfu's own table (SPEC 12, 15), written by `opmfu analyze --model`: the
-- model's FLOPs under each convention against the trace. One row per rank,
-- step (with device activity) and convention, then one per convention for
-- the run as a whole (rank_id and step NULL: the median step of the run's
-- median rank, OpmfuRun.median_rank and median_step).
-- model_mfu = model_flops_per_device / (step_ns x 1e-9 x peak_tflops x 1e12);
-- coverage = trace_flops / model_flops_per_device.
CREATE TABLE "OpmfuModel" (
    "rank_id" INTEGER,                -- NULL: the run
    "step" INTEGER,                   -- NULL: the run, or a trace without step marks
    "convention" TEXT,                -- palm, kempnerforge, maxtext, verl-omni
    "model_flops_per_step" REAL,      -- the model's FLOPs of one step, all devices
    "model_flops_per_device" REAL,    -- of one device (verl-omni: of one data-parallel rank)
    "step_ns" INTEGER,                -- the step's window; the run: OpmfuRun.step_ns
    "model_mfu" REAL,                 -- NULL without a peak of the --dtype class
    "trace_flops" INTEGER,            -- the step's FLOPs in the trace; the run: that step's
    "coverage" REAL,                  -- trace_flops / model_flops_per_device
    "peak_tflops" REAL,               -- the rank's peak of the --dtype class; the run: the median rank's
    "note" TEXT                       -- the likely reason coverage is far from 1; NULL: near 1
);
