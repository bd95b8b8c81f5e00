-- opmfu's own table (SPEC 16, 19): per measure of the ranks' OpmfuRankSummary,
-- the rank furthest from the median rank on the bad side (the highest step
-- time or share; the lowest trace MFU). Written for two or more ranks with
-- the measure known.
CREATE TABLE "OpmfuStragglers" (
    "measure" TEXT,              -- step_ns_median | trace_mfu | share_inefficiency | share_other_compute | share_comm | share_idle
                                 -- | comm_wait_caused_ns (SPEC 19: the rank the others waited for, value in ns)
    "rank_id" INTEGER,           -- the straggler
    "value" REAL,                -- its value (ns, or a ratio in [0, 1])
    "median" REAL,               -- the median rank's value
    "delta" REAL,                -- value - median
    "culprit_of" TEXT            -- who waited for whom (SPEC 19): on comm_wait_caused_ns and share_comm; NULL elsewhere
);
