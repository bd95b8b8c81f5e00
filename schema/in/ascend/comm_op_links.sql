-- (communication op, framework op) rows: COMMUNICATION_OP carries its own
-- span and is linked through CONNECTION_IDS; its kernel name is opType.
SELECT o.opType, o.startNs, o.endNs, p.name, p.startNs, p.endNs
FROM COMMUNICATION_OP AS o
JOIN CONNECTION_IDS AS ci ON ci.connectionId = o.connectionId
JOIN PYTORCH_API AS p ON p.connectionId = ci.id
