-- t_ascend_comm: one collective with two tasks and a gap between them, a
-- task of a collective that COMMUNICATION_OP lacks, copies and non-copies,
-- and the runtime calls that launched them.
INSERT INTO STRING_IDS VALUES (1,'hcom_allReduce__1_0_1'),(2,'hcom_allReduce_'),(3,'own_name_1'),
  (4,'KERNEL_AIVEC'),(5,'MEMCPY_ASYNC'),(6,'SDMA'),(7,'Notify Wait'),(8,'MatMul'),(9,'aten::mm'),
  (10,'HcclAllreduce'),(11,'hcom_broadcast__9_0_1'),(12,'EVENT_RECORD'),(13,'memcpy_async_v2'),(14,'Cast');
-- gid 1: a compute kernel linked to aten::mm
-- gids 2, 3: the all-reduce's tasks, 3000-3500 and 4000-4600 (gap 3500-4000)
-- gid 4: a task of collective 9, which COMMUNICATION_OP does not have
-- gid 5: a copy; gid 6: MEMCPY_ASYNC but a compute kernel (no connection);
-- gid 7: an event (nothing); gid 8: a copy type in lower case; gid 9: a
-- copy with no start (dropped)
INSERT INTO TASK (startNs, endNs, connectionId, globalTaskId, taskType) VALUES
  (1000, 2000, 1, 1, 4),
  (3000, 3500, 2, 2, 6),
  (4000, 4600, 2, 3, 7),
  (5000, 5100, 3, 4, 7),
  (6000, 6200, 4, 5, 5),
  (6300, 6400, NULL, 6, 5),
  (7000, 7100, 5, 7, 12),
  (8000, 8050, 6, 8, 13),
  (NULL, 9100, 7, 9, 5);
INSERT INTO COMPUTE_TASK_INFO (globalTaskId, name, opType, inputShapes, inputDataTypes, outputShapes) VALUES
  (1, 8, 8, NULL, NULL, NULL), (6, 14, 14, NULL, NULL, NULL);
INSERT INTO COMMUNICATION_TASK_INFO (globalTaskId, name, opId) VALUES (2, 3, 1), (3, 3, 1), (4, 11, 9);
INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, connectionId, opId, opType) VALUES (1, 3000, 4600, 2, 1, 2);
INSERT INTO CONNECTION_IDS VALUES (1, 1), (2, 2);
INSERT INTO PYTORCH_API (startNs, endNs, connectionId, name) VALUES ('900', '2100', 1, 9), ('2900', '4700', 2, 10);
-- launches: of the kernel (conn 1), the all-reduce and its tasks (2), the
-- lone task (3), the first copy (4); none for the second copy (6); one no
-- task has (99)
INSERT INTO CANN_API (startNs, endNs, connectionId, name) VALUES
  (950, 960, 1, NULL), (2950, 2960, 2, NULL), (4950, 4960, 3, NULL), (5900, 5910, 4, NULL), (10, 20, 99, NULL);
