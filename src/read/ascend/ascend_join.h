/*
 * ascend_join.h - the kernel <-> framework-op join of SPEC 1.2, done in
 * memory. The reader scans each table once and feeds the rows here; rows that
 * cannot take part in a link are dropped as they arrive, and the links come
 * out in the order of the SQL join this replaces (see opmfu_ajoin_emit).
 * Every step is a linear pass, a counting sort or a hash/direct lookup, so
 * the cost is linear in the rows read (SQLite's join built an automatic
 * index per joined table and did one B-tree search per row: 10x slower).
 * No SQLite here: it is plain C over arrays.
 */
#ifndef OPMFU_ASCEND_JOIN_H
#define OPMFU_ASCEND_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/idtab.h"
#include "trace/trace.h"

#define OPMFU_AJ_NONE UINT32_MAX

/*
 * A set of int64 keys, each given a dense index 0..n-1 in the order first
 * put. Filled in two phases: note() every key (min, max, count), alloc(),
 * then put() them; get() after that. Keys within a small range (ids in real
 * files count up from 0) use a direct table, which also keeps lookups in
 * table order sequential in memory; others use open addressing.
 */
struct opmfu_keyidx {
	int64_t min, max;
	size_t n_noted, n;
	uint32_t *direct; /* direct[key - min], range max - min + 1 */
	int64_t *keys;    /* hash mode: the key of each index */
	struct opmfu_idtab tab; /* hash mode: indexes by key */
};

/* A task row that joined its info row: a kernel candidate. */
struct opmfu_aj_task {
	int64_t start, end, conn; /* conn: TASK.connectionId (or COMMUNICATION_OP's) */
	uint32_t ref;             /* compute: info row; communication: kernel name sid */
	uint8_t bad;              /* start or end is not a number */
};

/* A framework-op row (PYTORCH_API) with a connection. */
struct opmfu_aj_api {
	int64_t id, start, end; /* id: PYTORCH_API.connectionId */
	uint32_t name;          /* sid */
	uint8_t bad;
};

/* Per kernel source (enum opmfu_link_src). */
struct opmfu_aj_src {
	struct opmfu_aj_task *v;
	size_t n, cap;
};

/* Words the collectives are told by (SPEC 19), interned before the string
 * table closes: task types, link names, HCCL dataType names by enum value. */
enum { OPMFU_AJ_W_NOTIFY_WAIT, OPMFU_AJ_W_MEMCPY, OPMFU_AJ_W_REDUCE_INLINE, OPMFU_AJ_W_HCCS, OPMFU_AJ_W_PCIE,
       OPMFU_AJ_W_SIO, OPMFU_AJ_W_RDMA, OPMFU_AJ_W_DTYPE0, OPMFU_AJ_W_N = OPMFU_AJ_W_DTYPE0 + 13 };
/* Interns them into strs (still loading) as words[]. Returns 0, or -1 when out of memory. */
int opmfu_ajoin_words(struct opmfu_strtab *strs, uint32_t *words);

struct opmfu_ajoin {
	uint32_t words[OPMFU_AJ_W_N]; /* opmfu_ajoin_words; 0: none (no collective is sized) */
	/* COMPUTE_TASK_INFO rows: globalTaskId and the strings of the kernel; from
	 * opmfu_ajoin_index_conns on, each distinct row once (no globalTaskId),
	 * which the compute tasks' ref index */
	int64_t *info_gid;
	struct opmfu_aj_info {
		uint32_t name, in_shapes, dtype, out_shapes; /* dtype: index into the trace's dtypes */
		uint32_t type, in_formats, out_formats;     /* opType and normalised formats (struct opmfu_kext) */
		uint32_t out_dtypes;                         /* outputDataTypes as the export has it (struct opmfu_kext) */
	} *info;
	size_t n_info, cap_info;
	uint32_t *info_sorted;    /* info rows by (globalTaskId, row); NULL: already so */
	size_t hint_info, hint_sched; /* where the last globalTaskId search ended */
	/* COMMUNICATION_SCHEDULE_TASK_INFO rows (globalTaskId, name sid) */
	int64_t *sched_gid;
	uint32_t *sched_name;
	size_t n_sched, cap_sched;
	uint32_t *sched_sorted;   /* sched rows by (globalTaskId, row) */
	/* COMMUNICATION_TASK_INFO rows: globalTaskId, the collective (opId) and
	 * the task's own name */
	int64_t *ct_gid;
	struct opmfu_aj_ctinfo {
		int64_t op_id;
		uint32_t name;
		uint8_t op_ok; /* op_id is readable */
		/* SPEC 19 (comm_tasks_full.sql; else unknown): the task type sid (0: unknown), plane
		 * (-1: none), transport and link enums (-1: unknown), size (-1), the highest rank it names (-1) */
		uint32_t task_type;
		int32_t transport, link, rdma; /* rdma: ENUM_HCCL_RDMA_TYPE (-1: unknown) */
		int64_t plane, size, max_rank;
	} *ct_info;
	size_t n_ct_info, cap_ct_info, hint_ct;
	uint32_t *ct_sorted;      /* ct rows by (globalTaskId, row); NULL: already so */
	/* TASK rows that are communication tasks, in TASK order: span and ct row */
	struct opmfu_aj_ctask {
		int64_t start, end, conn;
		uint32_t info;
		uint8_t conn_ok;
	} *ctask;
	size_t n_ctask, cap_ctask;
	/* COMMUNICATION_OP rows, in table order: the communication ranges when
	 * no task is a communication task, else the names of the tasks' ops */
	struct opmfu_aj_cop {
		int64_t start, end, op_id, conn;
		uint32_t type, name; /* opType (the links' kernel name), opName */
		uint8_t op_ok, bad, conn_ok; /* op_id readable; span not; connectionId readable */
		/* SPEC 19 (comm_op_full.sql): groupName sid (0: none), HCCL dataType (-1), count (-1) */
		uint32_t group;
		int64_t data_type, count;
	} *cop;
	size_t n_cop, cap_cop;
	/* copies: tasks of a copy type that are neither compute nor communication */
	struct opmfu_aj_copy {
		int64_t start, end, conn;
		uint32_t name; /* the task type */
		uint8_t conn_ok;
	} *copies;
	size_t n_copies, cap_copies;
	/* launch times (CANN_API.startNs) by connection: lconns gives every
	 * task's and collective's connection a slot, launch[slot] its time */
	struct opmfu_keyidx lconns;
	int64_t *launch;
	size_t n_launched; /* slots that got a time */
	/* TASK rows that match a schedule row, with their globalTaskId */
	struct opmfu_aj_stask {
		int64_t gid;
		struct opmfu_aj_task k;
	} *stask;
	size_t n_stask, cap_stask;
	struct opmfu_aj_src src[3];

	struct opmfu_keyidx conns; /* connection ids of all tasks -> conn slot */
	/* CONNECTION_IDS rows of those connections, grouped by conn slot */
	struct opmfu_aj_ci {
		int64_t id, conn;
	} *ci;
	size_t n_ci, cap_ci;
	uint32_t *ci_ids;          /* id slot of each row, grouped */
	uint32_t *ci_off;          /* conn slot -> first row in ci_ids; n + 1 entries */
	struct opmfu_keyidx ids;   /* CONNECTION_IDS.id of kept rows -> id slot */
	struct opmfu_aj_api *api;  /* kept PYTORCH_API rows, grouped by id slot */
	size_t n_api, cap_api;
	uint32_t *api_off;         /* id slot -> first row in api; n + 1 entries */
	/* compute kernels with a NULL connection: no op can claim them, but the
	 * device ran them (emit adds them to the trace's kernel ranges) */
	struct opmfu_ranges no_conn;
};

void opmfu_ajoin_init(struct opmfu_ajoin *j);
void opmfu_ajoin_release(struct opmfu_ajoin *j);

/* A hint before a table's rows come: room for n of them is reserved (a
 * failure is ignored: the arrays then grow as usual). */
enum opmfu_aj_table { OPMFU_AJ_INFO, OPMFU_AJ_TASK, OPMFU_AJ_CONNECTION };
void opmfu_ajoin_expect(struct opmfu_ajoin *j, enum opmfu_aj_table tab, size_t n);

/* Rows of COMPUTE_TASK_INFO / COMMUNICATION_SCHEDULE_TASK_INFO, in table
 * order; then index() once. Return 0 or -1 (out of memory). */
int opmfu_ajoin_add_info(struct opmfu_ajoin *j, int64_t gid, const struct opmfu_aj_info *info);
int opmfu_ajoin_add_sched(struct opmfu_ajoin *j, int64_t gid, uint32_t name);
/* One COMMUNICATION_TASK_INFO row: globalTaskId, its collective's opId
 * (op_ok = 0: NULL or unreadable) and the task's name sid. */
int opmfu_ajoin_add_ctinfo(struct opmfu_ajoin *j, int64_t gid, int op_ok, int64_t op_id, uint32_t name);
/* What the last opmfu_ajoin_add_ctinfo row says of its task beyond that (struct opmfu_aj_ctinfo). */
void opmfu_ajoin_ctinfo_kind(struct opmfu_ajoin *j, uint32_t task_type, int64_t plane, int32_t transport,
			     int32_t link, int64_t size, int64_t max_rank, int32_t rdma);
int opmfu_ajoin_index_info(struct opmfu_ajoin *j);

/* One TASK row, in table order (after index_info); keeps it as a compute
 * kernel per matching info row, remembers it for matching schedule rows,
 * and as a communication task when COMMUNICATION_TASK_INFO has it. conn_ok =
 * 0 for a NULL connection (it can never link). copy: the task type's sid
 * when the type is a copy (the reader knows which), else 0; such a task that
 * is none of the above becomes a copy range. */
int opmfu_ajoin_add_task(struct opmfu_ajoin *j, int64_t gid, int64_t start, int64_t end, int bad,
			 int conn_ok, int64_t conn, uint32_t copy);
/* One COMMUNICATION_OP row (kernel name = opType sid), in table order. */
int opmfu_ajoin_add_comm(struct opmfu_ajoin *j, uint32_t name, int64_t start, int64_t end, int bad,
			 int conn_ok, int64_t conn);
/* The same row as a collective: its span (when readable) and, for naming its
 * tasks, opId (op_ok = 0: unknown) and opName sid. */
int opmfu_ajoin_add_collective(struct opmfu_ajoin *j, const struct opmfu_aj_cop *c);
/* After the last task and communication row: indexes their connections. */
int opmfu_ajoin_index_conns(struct opmfu_ajoin *j);
/* One CANN_API row (after index_conns): the host launch time of the device
 * work under its connectionId, kept when some task or collective has it
 * (the first row of a connection wins). Returns 0, or -1 when out of memory. */
int opmfu_ajoin_add_launch(struct opmfu_ajoin *j, int64_t conn, int64_t start);

/* One CONNECTION_IDS row, in table order; kept if a task has its connection. */
int opmfu_ajoin_add_connection(struct opmfu_ajoin *j, int64_t id, int64_t conn);
/* After the last CONNECTION_IDS row: groups them and indexes their ids. */
int opmfu_ajoin_index_connections(struct opmfu_ajoin *j);

/* 1 if a PYTORCH_API row with this connectionId can link (after index_connections). */
int opmfu_ajoin_want_api(const struct opmfu_ajoin *j, int64_t id);
/*
 * The PYTORCH_API rows, in table order, as an array the join takes over
 * (allocated with opmfu_malloc; it is freed or kept by the join). Rows not
 * wanted are dropped here, so the caller may pass them unfiltered. Once it
 * has succeeded the ids' index is gone: opmfu_ajoin_want_api answers no more.
 */
int opmfu_ajoin_set_api(struct opmfu_ajoin *j, struct opmfu_aj_api *rows, size_t n);

/*
 * Appends the links to t->links: compute kernels, then COMMUNICATION_OP, then
 * schedule tasks (t->n_compute, n_comm_op, n_comm_sched are set). The order
 * is the SQL join's: kernels in TASK order (COMMUNICATION_OP / schedule
 * table order for the others), per kernel its CONNECTION_IDS rows by (id,
 * table order), per row its PYTORCH_API rows by (startNs, endNs, table
 * order). A link with an unreadable time is counted in t->n_bad_rows and
 * skipped. Each PYTORCH_API row is one op instance (t->n_ops grows by
 * their number). Compute kernels that make no link (no connection, or no
 * framework op behind it) become t's OPMFU_RANGE_KERNEL ranges, so that the
 * device timeline (SPEC 11) still has them. Communication ranges
 * (OPMFU_RANGE_COMM): one per communication task, in TASK order, named by its
 * collective's opName (else its own name); when no task is one (an export
 * without COMMUNICATION_TASK_INFO), one per COMMUNICATION_OP row, named by
 * opType. Copies become OPMFU_RANGE_MEMCPY ranges named by task type. When
 * some CANN_API row gave a launch time (opmfu_ajoin_add_launch), t->launch
 * holds every link's and the KERNEL, COMM and MEMCPY ranges' value theirs,
 * by their task's (collective's) connectionId, OPMFU_NO_LAUNCH where there
 * is none; else t->launch stays NULL and the ranges have none. Returns 0,
 * or -1 when out of memory or past 2^32 - 2 links.
 */
int opmfu_ajoin_emit(struct opmfu_ajoin *j, struct opmfu_trace *t);

#endif
