-- opmfu's own table (SPEC 19, 25): one row per rank and collective call,
-- the calls of every rank matched by (kind, group, k-th call on the rank).
-- Written at the run's end: waiting on a GPU is known from the other ranks.
-- docs/collectives.md says how to read it.
CREATE TABLE "OpmfuCollectives" (
    "rank_id" INTEGER,
    "step" INTEGER,               -- the step whose window holds the call's start; NULL: none or the backlog
    "name" TEXT,                  -- allreduce, allgather, reducescatter, alltoall, broadcast, reduce, send, recv,
                                  -- barrier; NULL: a communication call of no such kind (op_name says what)
    "group" TEXT,                 -- the communicator as the trace names it; NULL: not known
    "ranks_in_group" INTEGER,     -- NULL: not known
    "dtype" TEXT,                 -- the element type as the trace names it
    "bytes" INTEGER,              -- nccl-tests' size: the larger of the call's input and output on this rank
    "start_ns" INTEGER,           -- the call on the device
    "end_ns" INTEGER,
    "time_ns" INTEGER,            -- end_ns - start_ns
    "exposed_ns" INTEGER,         -- its time under no compute
    "wait_ns" INTEGER,            -- waiting for other ranks: the trace's own measure (Ascend: the main plane's
                                  -- Notify_Wait tasks, torch_npu's wait_time), else from the other ranks' starts
    "transfer_ns" INTEGER,        -- Ascend: the main plane's transit tasks (torch_npu's transit_time); GPU:
                                  -- time_ns - wait_ns
    "algbw_gbps" REAL,            -- bytes / time_ns (nccl-tests' algorithm bandwidth, GB/s = 10^9 bytes/s)
    "busbw_gbps" REAL,            -- algbw x nccl-tests' factor for the kind and ranks_in_group
    "op_name" TEXT,               -- the call's name in the trace (HCCL op name, NCCL kernel)
    "call" INTEGER,               -- the k-th call of its kind and group on the rank (from 1), the matching key
    "ranks_matched" INTEGER,      -- ranks of the run whose k-th call it met; NULL: no other rank had it
    "last_rank" INTEGER,          -- the rank that started it last: the one the others waited for
    "wait_source" TEXT,           -- "trace" or "ranks": where wait_ns came from
    "idle_ns" INTEGER,            -- Ascend: time_ns - wait_ns - transfer_ns (torch_npu's idle_time)
    "link_bytes" INTEGER,         -- Ascend: bytes its transit tasks moved over links, all planes
    "transport" TEXT,             -- Ascend: the link type that carried most of them (HCCS, PCIE, SIO, RDMA)
    "link_gbps" REAL,             -- link_bytes / link_ns (torch_npu's CommAnalyzerBandwidth bandwidth, all links)
    "link_ns" INTEGER             -- Ascend: the summed time of those tasks, all planes
);
