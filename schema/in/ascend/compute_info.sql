-- Compute kernels: globalTaskId, kernel name, input shapes, input dtypes,
-- output shapes (all but the first are STRING_IDS ids). The join of SPEC 1.2
-- is done in C (src/read/ascend_join.c): each table is scanned once.
SELECT globalTaskId, name, inputShapes, inputDataTypes, outputShapes FROM COMPUTE_TASK_INFO
