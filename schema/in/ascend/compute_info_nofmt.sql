-- compute_info.sql for an export whose COMPUTE_TASK_INFO has no
-- inputFormats/outputFormats/outputDataTypes columns (they are optional):
-- formats and output dtypes NULL.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, name, inputShapes, inputDataTypes, outputShapes, opType, NULL, NULL, NULL
FROM COMPUTE_TASK_INFO
