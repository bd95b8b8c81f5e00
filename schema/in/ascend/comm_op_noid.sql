-- comm_op.sql for an export whose COMMUNICATION_OP has no opId or opName:
-- communication tasks are then named by their own COMMUNICATION_TASK_INFO.name.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT opType, startNs, endNs, connectionId, NULL, NULL FROM COMMUNICATION_OP
