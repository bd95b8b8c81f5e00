-- MSTX ranges; the reader keeps the mfu_flops and Module domains.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT startNs, endNs, eventType, message, domainId FROM MSTX_EVENTS
