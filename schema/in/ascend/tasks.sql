-- Device tasks: globalTaskId, start, end, connectionId, task type (a
-- STRING_IDS id: "KERNEL_AIVEC", "MEMCPY_ASYNC", "Notify Wait", ...). The
-- join keeps compute kernels (COMPUTE_TASK_INFO), communication tasks
-- (COMMUNICATION_TASK_INFO) and copies (a MEMCPY task type); the rest
-- (events, notifies outside collectives) is dropped.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, startNs, endNs, connectionId, taskType FROM TASK
