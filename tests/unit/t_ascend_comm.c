/*
 * t_ascend_comm.c - the Ascend reader's device timeline on hand-made
 * databases (tests/unit/ascend_comm/): communication comes from the tasks of
 * COMMUNICATION_TASK_INFO, not the collective's span, named by the
 * collective (else the task's own name); copies are tasks of a MEMCPY type
 * that no info table claims; launch times come from CANN_API by
 * connectionId; the links stay as they were. Without communication tasks
 * the collective's span is the range; without CANN_API rows there are no
 * launch times (t->launch NULL).
 * Usage: t_ascend_comm DIR (the folder the .db.sql files were built into).
 */
#include <stdio.h>

#include "check.h"
#include "read/ascend/read_ascend.h"

#define NONE OPMFU_NO_LAUNCH

static const char *name_of(const struct opmfu_trace *t, const struct opmfu_range *r)
{
	return opmfu_strtab_str(&t->strs, r->name) + r->name_off;
}

/* launch: the value expected when the database has launch times (else none) */
static void check_range(const struct opmfu_trace *t, const struct opmfu_ranges *rs, size_t i, int64_t start,
			int64_t end, const char *name, int64_t launch)
{
	if (i >= rs->n) {
		CHECK(i < rs->n);
		return;
	}
	CHECK_INT(rs->v[i].start, start);
	CHECK_INT(rs->v[i].end, end);
	CHECK_STR(name_of(t, &rs->v[i]), name);
	CHECK_INT(rs->v[i].value, t->launch ? launch : NONE);
}

/* What every database shares: the links, the unlinked kernel, the copies. */
static void check_common(const struct opmfu_trace *t, int launches)
{
	CHECK_INT(t->n_compute, 1);
	CHECK_INT(t->n_comm_op, 1);
	CHECK_INT(t->n_comm_sched, 0);
	if (t->n_links == 2) {
		/* the communication link keeps the collective's span (OperatorMFU, ModuleMFU) */
		CHECK_INT(t->links[1].k_start, 3000);
		CHECK_INT(t->links[1].k_end, 4600);
		CHECK_STR(opmfu_strtab_str(&t->strs, t->links[1].k_name), "hcom_allReduce_");
	}
	CHECK_INT(t->n_links, 2);
	CHECK_INT(t->launch != NULL, launches);
	if (t->launch && t->n_links == 2) {
		CHECK_INT(t->launch[0], 950);  /* the kernel's runtime call */
		CHECK_INT(t->launch[1], 2950); /* the collective's */
	}
	/* MEMCPY_ASYNC in COMPUTE_TASK_INFO is a compute kernel, not a copy; no connection, no launch */
	CHECK_INT(t->kernels.n, 1);
	check_range(t, &t->kernels, 0, 6300, 6400, "Cast", NONE);
	/* copies: gid 5 and the lower-case type; not the event, not the one without a start */
	CHECK_INT(t->memcpy.n, 2);
	check_range(t, &t->memcpy, 0, 6000, 6200, "MEMCPY_ASYNC", 5900);
	check_range(t, &t->memcpy, 1, 8000, 8050, "memcpy_async_v2", NONE);
}

static void read_db(const char *dir, const char *name, int threads, struct opmfu_trace *t)
{
	char path[4096];
	struct opmfu_err err = OPMFU_ERR_INIT;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	opmfu_trace_init(t);
	CHECK_INT(opmfu_read_ascend_threads(path, t, threads, NULL, NULL, &err), OPMFU_OK);
}

int main(int argc, char **argv)
{
	static const char *const with_tasks[] = { "comm_tasks.db", "no_launch.db" };
	struct opmfu_trace t;
	int threads, k;

	if (argc != 2) {
		fprintf(stderr, "usage: t_ascend_comm DIR\n");
		return 2;
	}
	for (threads = 1; threads <= 2; threads++) {
		for (k = 0; k < 2; k++) {
			/* the all-reduce's two tasks with the gap between them, not its
			 * span; the task of a collective COMMUNICATION_OP lacks keeps
			 * its own name */
			read_db(argv[1], with_tasks[k], threads, &t);
			check_common(&t, k == 0);
			CHECK_INT(t.comm.n, 3);
			check_range(&t, &t.comm, 0, 3000, 3500, "hcom_allReduce__1_0_1", 2950);
			check_range(&t, &t.comm, 1, 4000, 4600, "hcom_allReduce__1_0_1", 2950);
			check_range(&t, &t.comm, 2, 5000, 5100, "hcom_broadcast__9_0_1", 4950);
			opmfu_trace_release(&t);
		}

		/* no communication tasks: the collective's span, named by its type */
		read_db(argv[1], "no_tasks.db", threads, &t);
		check_common(&t, 1);
		CHECK_INT(t.comm.n, 1);
		check_range(&t, &t.comm, 0, 3000, 4600, "hcom_allReduce_", 2950);
		opmfu_trace_release(&t);
	}
	return check_done();
}
