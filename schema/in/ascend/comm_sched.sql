-- AICPU communication tasks: globalTaskId, kernel name; joined like compute
-- kernels (through TASK).
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, name FROM COMMUNICATION_SCHEDULE_TASK_INFO
