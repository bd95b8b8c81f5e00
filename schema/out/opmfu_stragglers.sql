-- opmfu's own table (SPEC 16, 19): per measure of the ranks' OpmfuRankSummary,
-- the rank furthest from the median rank on the bad side (the highest step
-- time or share; the lowest trace MFU). Written for two or more ranks with
-- the measure known.
CREATE TABLE "OpmfuStragglers" (
    "measure" TEXT,              -- step_ns_median | trace_mfu | share_inefficiency | share_other_compute | share_comm | share_idle
    "rank_id" INTEGER,           -- the straggler
    "value" REAL,                -- its value (ns, or a ratio in [0, 1])
    "median" REAL,               -- the median rank's value
    "delta" REAL,                -- value - median
    "culprit_of" TEXT            -- NULL until collectives are matched across ranks (SPEC 19)
);
