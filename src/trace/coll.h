/*
 * coll.h - collective calls as a reader leaves them (SPEC 19): one entry per
 * communication call on a rank's device, with what the trace tells of it
 * (kind, group, dtype, size; on Ascend its own tasks' wait and transfer).
 * What needs the other ranks (the wait on a GPU, the culprit) is computed
 * after every rank is read (analyze/collectives.h).
 */
#ifndef OPMFU_COLL_H
#define OPMFU_COLL_H

#include <stddef.h>
#include <stdint.h>

/* What a call does (OpmfuCollectives.name). */
enum opmfu_coll_kind {
	OPMFU_COLL_OTHER = 0, /* a communication call of no kind below (name NULL in the table) */
	OPMFU_COLL_ALLREDUCE,
	OPMFU_COLL_ALLGATHER,
	OPMFU_COLL_REDUCESCATTER,
	OPMFU_COLL_ALLTOALL,
	OPMFU_COLL_BROADCAST,
	OPMFU_COLL_REDUCE,
	OPMFU_COLL_SEND,
	OPMFU_COLL_RECV,
	OPMFU_COLL_BARRIER,
	OPMFU_COLL__N
};

/* "allreduce", ... ; NULL for OPMFU_COLL_OTHER and out of range. */
const char *opmfu_coll_kind_name(int kind);
/*
 * The kind a name says, whatever its spelling: HCCL op names and types
 * ("hcom_allReduce__210_0_1", "hcom_reduceScatter_", "HcclAllGather"),
 * NCCL/RCCL kernels ("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
 * "ncclKernel_SendRecv_..." is OTHER: it is both), PyTorch's
 * ("all_reduce", "_allgather_base", "reduce_scatter_tensor",
 * "all_to_all_single", "alltoall"), a "Collective name" arg ("allreduce",
 * "_reduce_scatter_base"). Matching is on the letters alone, case and '_'
 * ignored. OPMFU_COLL_OTHER when none matches.
 */
int opmfu_coll_kind_of(const char *s, size_t n);
/*
 * nccl-tests' bus bandwidth factor for a kind over n ranks: allreduce
 * 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n; broadcast, reduce,
 * send, recv 1; 0 for the others or n < 1.
 */
double opmfu_coll_bus_factor(int kind, int64_t n);
/* Bytes of one element of a dtype named s (PyTorch's "Float", "c10::BFloat16",
 * "float32", NCCL's "ncclFloat32"/"f32", HCCL's "FP16", "INT8", ...); 0 when
 * unknown. Matching ignores case and a "c10::", "torch.", "nccl" prefix. */
int opmfu_coll_dtype_size(const char *s, size_t n);

/*
 * The run's name of a collective (OpmfuCollectives' name, else its op_name,
 * then " [group G]" when its group is known): the key one tunes, which
 * OpmfuHotspots' collective rows and OpmfuDiff's collective rows are both
 * named by, so the two agree. kind NULL: neither is known (the group
 * alone). Appended to sb (sb->oom when out of memory).
 */
struct sbuf;
void opmfu_coll_key(struct sbuf *sb, const char *kind, size_t kn, const char *group, size_t gn);

/* Not known (bytes, counts, times of struct opmfu_coll). */
#define OPMFU_COLL_UNKNOWN (-1)

/*
 * One collective call on a rank. 80 bytes. Times are the device's (ns).
 * bytes is nccl-tests' "size" of the call: the larger of its input and
 * output buffers on this rank (allgather: the gathered output;
 * reducescatter: the input), docs/collectives.md.
 */
struct opmfu_coll {
	int64_t start, end;
	int64_t bytes;        /* OPMFU_COLL_UNKNOWN: not known */
	int64_t wait_ns;      /* the trace's own measure of waiting for other ranks (Ascend's notify waits);
				 OPMFU_COLL_UNKNOWN: the trace has none (then it comes from the other ranks) */
	int64_t transfer_ns;  /* the trace's own transfer time (Ascend's transit tasks); OPMFU_COLL_UNKNOWN: none */
	int64_t link_bytes;   /* bytes the call's transfer tasks moved over links, every plane (Ascend);
				 OPMFU_COLL_UNKNOWN: none */
	int64_t link_ns;      /* those tasks' summed time (torch_npu's CommAnalyzerBandwidth transit_time) */
	uint32_t name;        /* sid: the call's name in the trace (hcom_allReduce__210_0_1, the NCCL kernel) */
	uint32_t group;       /* sid: its communicator as the trace names it (HCCL groupName, "Process Group
				 Name", else the ranks list); 0: not known */
	uint32_t dtype;       /* sid: the element type as the trace names it; 0: not known */
	uint32_t transport;   /* sid: the transport that carried most of link_bytes ("HCCS", "RDMA"); 0: none */
	int32_t ranks;        /* ranks in the group; 0: not known */
	uint8_t kind;         /* enum opmfu_coll_kind */
	uint8_t pad[3];
};

struct opmfu_colls {
	struct opmfu_coll *v; /* in the reader's order */
	size_t n, cap;
};

/* Appends c; returns 0, or -1 when out of memory (nothing added). */
int opmfu_colls_add(struct opmfu_colls *cs, const struct opmfu_coll *c);
void opmfu_colls_release(struct opmfu_colls *cs);
/* A call with nothing known but its span, name and kind. */
struct opmfu_coll opmfu_coll_blank(int64_t start, int64_t end, uint32_t name, int kind);

#endif
