-- Communication ops as comm_op.sql, with what SPEC 19 sizes a collective by:
-- its communicator (groupName, a STRING_IDS id), the element type
-- (dataType, an HCCL enum: docs/collectives.md) and the element count.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT opType, startNs, endNs, connectionId, opId, opName, groupName, dataType, count FROM COMMUNICATION_OP
