-- MSTX ranges; the reader keeps the mfu_flops and Module domains.
SELECT startNs, endNs, eventType, message, domainId FROM MSTX_EVENTS
