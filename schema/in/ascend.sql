-- The part of the Ascend PyTorch profiler database (ascend_pytorch_profiler*.db)
-- that opmfu reads (SPEC 1.2). Real files have more columns and tables; the
-- fixtures in fixtures/ are built from this DDL plus their own rows.
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
                   globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER,
                   streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER,
                   mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER,
                   inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER,
                   outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER);
CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
-- startNs/endNs are TEXT in real exports: readers must not compare them as text.
CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER,
                   name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER,
                   inputShapes INTEGER, callchainId INTEGER, type INTEGER);
CREATE TABLE MSTX_EVENTS (startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER,
                   category INTEGER, message INTEGER, globalTid INTEGER, endGlobalTid INTEGER,
                   domainId INTEGER, connectionId INTEGER);
CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER,
                   groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, retry INTEGER,
                   dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER);
-- Communication tasks of a collective (optional): opId joins COMMUNICATION_OP.opId.
CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER,
                   groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER, dstRank INTEGER,
                   transportType INTEGER, size INTEGER, dataType INTEGER, linkType INTEGER, opId INTEGER);
-- Runtime calls (optional): the one under a task's connectionId launched it.
CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER,
                   connectionId INTEGER PRIMARY KEY, name INTEGER);
