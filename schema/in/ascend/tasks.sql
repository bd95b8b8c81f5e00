-- Device tasks: globalTaskId, start, end, connectionId. Tasks without an
-- info row (HCCL, events, memcpy) are dropped by the join.
SELECT globalTaskId, startNs, endNs, connectionId FROM TASK
