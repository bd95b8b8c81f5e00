-- schema: own
-- an opmfu result whose OpmfuSteps has no trace_mfu
-- include: ../../../../../fixtures/diff_model/result_tables.sql
ALTER TABLE OpmfuSteps DROP COLUMN trace_mfu;
