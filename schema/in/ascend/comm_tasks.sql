-- Communication tasks (Memcpy, Notify_Record, Notify_Wait, Reduce_Inline of
-- a collective): globalTaskId (joins TASK), opId (joins COMMUNICATION_OP),
-- the task's name (STRING_IDS id). Their TASK spans are the device time of
-- communication: a collective's span also holds the gaps between its tasks.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, opId, name FROM COMMUNICATION_TASK_INFO
