-- Device tasks: globalTaskId, start, end, connectionId. Tasks without an
-- info row (HCCL, events, memcpy) are dropped by the join.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, startNs, endNs, connectionId FROM TASK
