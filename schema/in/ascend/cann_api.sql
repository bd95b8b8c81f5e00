-- Runtime calls: connectionId, start. The call under a task's (or a
-- collective's) connectionId launched it ("launch", aclnnInplaceCopy,
-- aclrtMemcpyAsync, ...): its start is the device work's host launch time.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT connectionId, startNs FROM CANN_API
