-- Framework ops that can link: connectionId, name, start, end. startNs and
-- endNs are TEXT in real files; the reader parses them as integers.
SELECT connectionId, name, startNs, endNs FROM PYTORCH_API WHERE connectionId IS NOT NULL
