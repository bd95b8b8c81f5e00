-- tasks.sql for an export whose TASK has no taskType column: no task is
-- known to be a copy.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, startNs, endNs, connectionId, NULL FROM TASK
