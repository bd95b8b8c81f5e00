/*
 * t_ascend_join.c - the reader's in-memory join (SPEC 1.2) on hand-built
 * rows: tasks without an info row or a connection, a connection under two
 * ids (joined in id order), an id with two framework ops (in start order),
 * rows no task reaches, an unreadable time, both communication sources, and
 * the same with ids too sparse for the direct tables (hash mode), and with
 * row-count hints (opmfu_ajoin_expect) too small, exact and too large; info
 * rows shared by kernels kept once.
 */
#include <string.h>

#include "base/mem.h"
#include "check.h"
#include "read/ascend/ascend_join.h"

#define N(x) ((uint32_t)(x)) /* names are plain numbers here, not sids */

static struct opmfu_aj_api *api_rows(const struct opmfu_aj_api *v, size_t n)
{
	struct opmfu_aj_api *p = opmfu_malloc(n * sizeof(*p));
	memcpy(p, v, n * sizeof(*p));
	return p;
}

/* k = id scale: 1 gives dense ids, a huge k forces the hash tables;
 * hint: rows announced before each table (0: none) */
static void run(int64_t k, size_t hint)
{
	struct opmfu_ajoin j;
	struct opmfu_trace t;
	struct opmfu_aj_info info;
	/* framework ops: id, start, end, name, bad */
	static const struct opmfu_aj_api api[] = {
		{ 5, 200, 290, N(50), 0 },
		{ 3, 300, 390, N(31), 0 },  /* id 3 has two ops: this one comes second */
		{ 3, 250, 260, N(30), 0 },
		{ 8, 100, 110, N(80), 0 },  /* id 8: its connection has no task */
		{ 7, 400, 410, N(70), 0 },
		{ 9, 500, 510, N(90), 0 },
		{ 11, 600, 610, N(110), 1 }, /* an unreadable time */
	};
	struct opmfu_aj_api a[sizeof(api) / sizeof(api[0])];
	size_t i;

	for (i = 0; i < sizeof(api) / sizeof(api[0]); i++) {
		a[i] = api[i];
		a[i].id *= k;
	}
	opmfu_ajoin_init(&j);
	opmfu_trace_init(&t);

	/* COMPUTE_TASK_INFO out of globalTaskId order, one schedule task */
	if (hint)
		opmfu_ajoin_expect(&j, OPMFU_AJ_INFO, hint);
	info = (struct opmfu_aj_info){ N(12), N(1), N(2), N(3), N(4), N(5), N(6), 0 };
	CHECK_INT(opmfu_ajoin_add_info(&j, 12 * k, &info), 0);
	info = (struct opmfu_aj_info){ N(10), N(1), N(2), N(3), N(4), N(5), N(6), 0 };
	CHECK_INT(opmfu_ajoin_add_info(&j, 10 * k, &info), 0);
	info = (struct opmfu_aj_info){ N(13), N(1), N(2), N(3), N(4), N(5), N(6), 0 };
	CHECK_INT(opmfu_ajoin_add_info(&j, 13 * k, &info), 0);
	CHECK_INT(opmfu_ajoin_add_sched(&j, 99 * k, N(990)), 0);
	CHECK_INT(opmfu_ajoin_index_info(&j), 0);

	/* TASK: gid, start, end, bad, conn_ok, conn */
	if (hint)
		opmfu_ajoin_expect(&j, OPMFU_AJ_TASK, hint);
	CHECK_INT(opmfu_ajoin_add_task(&j, 10 * k, 1000, 1100, 0, 1, 100 * k, 0), 0);
	CHECK_INT(opmfu_ajoin_add_task(&j, 11 * k, 1100, 1200, 0, 1, 100 * k, 0), 0); /* no info row */
	CHECK_INT(opmfu_ajoin_add_task(&j, 12 * k, 1200, 1300, 0, 0, 0, 0), 0);       /* NULL connection */
	CHECK_INT(opmfu_ajoin_add_task(&j, 13 * k, 1300, 1400, 0, 1, 102 * k, 0), 0);
	CHECK_INT(opmfu_ajoin_add_task(&j, 99 * k, 1400, 1500, 0, 1, 101 * k, 0), 0); /* schedule task */
	CHECK_INT(opmfu_ajoin_add_comm(&j, N(77), 2000, 2100, 0, 1, 100 * k), 0);
	CHECK_INT(opmfu_ajoin_add_comm(&j, N(78), 2100, 2200, 1, 1, 103 * k), 0);  /* bad time */
	if (hint > 16) /* room made once, exactly as announced: no growth */
		CHECK_INT(j.cap_info, hint);
	CHECK_INT(opmfu_ajoin_index_conns(&j), 0);
	/* then each distinct info row once (the three differ by name) */
	CHECK_INT(j.n_info, 3);
	CHECK_INT(j.cap_info, 3);

	/* CONNECTION_IDS: id, connectionId; conn 100 under ids 5 and 3 (joined as 3, 5) */
	if (hint)
		opmfu_ajoin_expect(&j, OPMFU_AJ_CONNECTION, hint);
	CHECK_INT(opmfu_ajoin_add_connection(&j, 5 * k, 100 * k), 0);
	CHECK_INT(opmfu_ajoin_add_connection(&j, 3 * k, 100 * k), 0);
	CHECK_INT(opmfu_ajoin_add_connection(&j, 8 * k, 555 * k), 0); /* no task: dropped */
	CHECK_INT(opmfu_ajoin_add_connection(&j, 7 * k, 102 * k), 0);
	CHECK_INT(opmfu_ajoin_add_connection(&j, 9 * k, 101 * k), 0);
	CHECK_INT(opmfu_ajoin_add_connection(&j, 11 * k, 103 * k), 0);
	if (hint > 16) {
		CHECK_INT(j.src[OPMFU_SRC_COMPUTE].cap, hint);
		CHECK_INT(j.cap_ci, hint);
	}
	CHECK_INT(opmfu_ajoin_index_connections(&j), 0);
	CHECK(opmfu_ajoin_want_api(&j, 3 * k));
	CHECK(!opmfu_ajoin_want_api(&j, 8 * k));

	CHECK_INT(opmfu_ajoin_set_api(&j, api_rows(a, sizeof(a) / sizeof(a[0])), sizeof(a) / sizeof(a[0])), 0);
	CHECK_INT(opmfu_ajoin_emit(&j, &t), 0);

	/* compute: task 10 -> id 3 (ops at 250, 300), id 5 (op at 200); task 13 -> id 7 */
	CHECK_INT(t.n_compute, 4);
	CHECK_INT(t.n_comm_op, 3); /* conn 100 again; the bad one is counted, not linked */
	CHECK_INT(t.n_comm_sched, 1);
	CHECK_INT(t.n_bad_rows, 1);
	CHECK_INT(t.n_links, 8);
	if (t.n_links == 8) {
		static const int64_t op_start[] = { 250, 300, 200, 400, 250, 300, 200, 500 };
		static const uint32_t op_name[] = { 30, 31, 50, 70, 30, 31, 50, 90 };
		static const uint32_t k_name[] = { 10, 10, 10, 13, 77, 77, 77, 990 };
		for (i = 0; i < 8; i++) {
			CHECK_INT(t.links[i].op_start, op_start[i]);
			CHECK_INT(t.links[i].op_name, op_name[i]);
			CHECK_INT(t.links[i].k_name, k_name[i]);
		}
		/* one op instance per PYTORCH_API row: compute and communication
		 * links under the same row share it */
		CHECK_INT(t.n_ops, 6);
		CHECK_INT(t.links[0].op, t.links[4].op);
		CHECK_INT(t.links[2].op, t.links[6].op);
		CHECK(t.links[0].op != t.links[1].op && t.links[0].op != t.links[2].op);
		CHECK(t.links[3].op != t.links[7].op && t.links[7].op < 6);
		CHECK_INT(t.links[0].k_start, 1000);
		CHECK_INT(t.links[0].in_shapes, 1);
		CHECK_INT(t.links[3].k_start, 1300);
		CHECK_INT(t.links[0].dtype, 2);
		CHECK_INT(t.links[4].dtype, 0); /* communication rows have no shapes */
		CHECK_INT(t.links[7].k_start, 1400);
		/* each compute link carries its info row's op type and formats */
		for (i = 0; i < 4 && t.kx; i++) {
			CHECK_INT(t.kx[i].type, 4);
			CHECK_INT(t.kx[i].in_formats, 5);
			CHECK_INT(t.kx[i].out_formats, 6);
			CHECK_INT(t.kx[i].attrs, 0);
		}
		CHECK(t.kx != NULL);
	}
	opmfu_ajoin_release(&j);
	opmfu_trace_release(&t);
}

/* Kernels with the same info row share one copy of it after index_conns,
 * and each link still carries its own kernel's strings. */
static void t_info_shared(void)
{
	struct opmfu_ajoin j;
	struct opmfu_trace t;
	/* X, Y (another name), X again, X' (X with other output dtypes) */
	const struct opmfu_aj_info x = { N(10), N(1), N(2), N(3), N(4), N(5), N(6), N(7) },
				   y = { N(11), N(1), N(2), N(3), N(4), N(5), N(6), N(7) },
				   x2 = { N(10), N(1), N(2), N(3), N(4), N(5), N(6), N(8) };
	struct opmfu_aj_api api[4];
	static const uint32_t k_name[] = { 10, 11, 10, 10 }, out_dtypes[] = { 7, 7, 7, 8 };
	int64_t i;

	opmfu_ajoin_init(&j);
	opmfu_trace_init(&t);
	CHECK_INT(opmfu_ajoin_add_info(&j, 1, &x), 0);
	CHECK_INT(opmfu_ajoin_add_info(&j, 2, &y), 0);
	CHECK_INT(opmfu_ajoin_add_info(&j, 3, &x), 0);
	CHECK_INT(opmfu_ajoin_add_info(&j, 4, &x2), 0);
	CHECK_INT(opmfu_ajoin_index_info(&j), 0);
	/* task gid g on connection 100 + g, whose id g has one op at 10 * g */
	for (i = 1; i <= 4; i++)
		CHECK_INT(opmfu_ajoin_add_task(&j, i, 1000 * i, 1000 * i + 10, 0, 1, 100 + i, 0), 0);
	CHECK_INT(opmfu_ajoin_index_conns(&j), 0);
	/* X, Y, X': X's second row is X's */
	CHECK_INT(j.n_info, 3);
	for (i = 1; i <= 4; i++)
		CHECK_INT(opmfu_ajoin_add_connection(&j, i, 100 + i), 0);
	CHECK_INT(opmfu_ajoin_index_connections(&j), 0);
	for (i = 0; i < 4; i++)
		api[i] = (struct opmfu_aj_api){ i + 1, 10 * (i + 1), 10 * (i + 1) + 5, N(50 + i), 0 };
	CHECK_INT(opmfu_ajoin_set_api(&j, api_rows(api, 4), 4), 0);
	CHECK_INT(opmfu_ajoin_emit(&j, &t), 0);
	CHECK_INT(t.n_compute, 4);
	for (i = 0; i < 4 && t.n_links == 4 && t.kx; i++) {
		CHECK_INT(t.links[i].k_name, k_name[i]);
		CHECK_INT(t.links[i].op_name, 50 + i);
		CHECK_INT(t.kx[i].out_dtypes, out_dtypes[i]);
		CHECK_INT(t.kx[i].type, 4);
	}
	opmfu_ajoin_release(&j);
	opmfu_trace_release(&t);
}

int main(void)
{
	t_info_shared();
	static const size_t hints[] = { 0, 1, 3, 1000 };
	size_t h;
	for (h = 0; h < sizeof(hints) / sizeof(hints[0]); h++) {
		run(1, hints[h]);
		run((int64_t)1 << 40, hints[h]);
	}
	return check_done();
}
