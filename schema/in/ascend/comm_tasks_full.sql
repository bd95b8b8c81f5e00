-- Communication tasks as comm_tasks.sql, with what tells waiting from
-- transfer (SPEC 19): the task type (Notify_Wait, Memcpy, Reduce_Inline; a
-- STRING_IDS id), its plane, transport (ENUM_HCCL_TRANSPORT_TYPE: 0 SDMA,
-- 1 RDMA, 2 LOCAL), link (ENUM_HCCL_LINK_TYPE: 0 ON_CHIP, 1 HCCS, 2 PCIE,
-- 4 SIO, 5 HCCS_SW), size in bytes, the ranks in the group it joins, and
-- its RDMA role (ENUM_HCCL_RDMA_TYPE: 1 RDMA_SEND_PAYLOAD).
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT globalTaskId, opId, name, taskType, planeId, transportType, linkType, size, srcRank, dstRank, rdmaType
FROM COMMUNICATION_TASK_INFO
