-- schema: own
-- an opmfu result of an older opmfu: no OpmfuOpTypes
-- include: ../../../../../fixtures/diff_model/result_tables.sql
DROP TABLE OpmfuOpTypes;
INSERT INTO OpmfuRankSummary VALUES (0, 'ok', 1000, 100, 0, 0.5);
