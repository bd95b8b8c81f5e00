-- AICPU communication tasks: globalTaskId, kernel name; joined like compute
-- kernels (through TASK).
SELECT globalTaskId, name FROM COMMUNICATION_SCHEDULE_TASK_INFO
