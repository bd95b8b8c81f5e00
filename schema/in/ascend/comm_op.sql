-- Communication ops: kernel name (opType), start, end, connectionId; opId
-- and opName name the collective its tasks (COMMUNICATION_TASK_INFO.opId)
-- belong to. They join CONNECTION_IDS and PYTORCH_API like device tasks do.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT opType, startNs, endNs, connectionId, opId, opName FROM COMMUNICATION_OP
