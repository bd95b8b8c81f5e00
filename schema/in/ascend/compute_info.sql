-- Compute kernels: globalTaskId, kernel name, input shapes, input dtypes,
-- output shapes (all but the first are STRING_IDS ids). The join of SPEC 1.2
-- is done in C (src/read/ascend_join.c): each table is scanned once.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, name, inputShapes, inputDataTypes, outputShapes FROM COMPUTE_TASK_INFO
