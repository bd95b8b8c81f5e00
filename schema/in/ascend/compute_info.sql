-- Compute kernels: globalTaskId, kernel name, input shapes, input dtypes,
-- output shapes, op type, input and output formats, output dtypes (all but
-- the first are STRING_IDS ids; formats and op type feed the shape FLOPs of
-- SPEC 9, output dtypes the bytes of SPEC 18). The
-- join of SPEC 1.2 is done in C (src/read/ascend_join.c): each table is
-- scanned once.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, name, inputShapes, inputDataTypes, outputShapes, opType, inputFormats, outputFormats,
       outputDataTypes
FROM COMPUTE_TASK_INFO
