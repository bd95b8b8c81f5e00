-- Framework ops that can link: connectionId, name, start, end. startNs and
-- endNs are TEXT in real files; the reader parses them as integers.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT connectionId, name, startNs, endNs FROM PYTORCH_API WHERE connectionId IS NOT NULL
