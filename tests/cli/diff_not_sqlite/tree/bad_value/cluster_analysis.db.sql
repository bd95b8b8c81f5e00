-- schema: own
-- an opmfu result edited by hand: a text where OpmfuSteps holds a time (its second row)
-- include: ../../../../../fixtures/diff_model/result_tables.sql
INSERT INTO OpmfuRankSummary VALUES (0, 'ok', 1000, 100, 0, 0.5);
INSERT INTO OpmfuSteps VALUES (0, 1, 1000, 500, 0, 0, 500, 100, 0.1), (0, 2, 1000, 'abc', 0, 0, 500, 100, 0.1);
