-- Communication ops: kernel name (opType), start, end, connectionId. They
-- join CONNECTION_IDS and PYTORCH_API like device tasks do.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT opType, startNs, endNs, connectionId FROM COMMUNICATION_OP
