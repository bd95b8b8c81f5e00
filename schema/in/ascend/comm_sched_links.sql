-- (AICPU communication task, framework op) rows, joined like compute kernels.
SELECT c.name, t.startNs, t.endNs, p.name, p.startNs, p.endNs
FROM COMMUNICATION_SCHEDULE_TASK_INFO AS c
JOIN TASK AS t ON t.globalTaskId = c.globalTaskId
JOIN CONNECTION_IDS AS ci ON ci.connectionId = t.connectionId
JOIN PYTORCH_API AS p ON p.connectionId = ci.id
