-- (kernel, framework op) rows of compute kernels: the join of SPEC 1.2.
-- Columns: kernel name, kernel start, kernel end, op name, op start, op end,
-- input shapes, input dtypes, output shapes (names and strings are STRING_IDS ids).
SELECT c.name, t.startNs, t.endNs, p.name, p.startNs, p.endNs,
       c.inputShapes, c.inputDataTypes, c.outputShapes
FROM COMPUTE_TASK_INFO AS c
JOIN TASK AS t ON t.globalTaskId = c.globalTaskId
JOIN CONNECTION_IDS AS ci ON ci.connectionId = t.connectionId
JOIN PYTORCH_API AS p ON p.connectionId = ci.id
