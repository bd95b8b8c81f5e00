-- Communication ops: kernel name (opType), start, end, connectionId. They
-- join CONNECTION_IDS and PYTORCH_API like device tasks do.
SELECT opType, startNs, endNs, connectionId FROM COMMUNICATION_OP
