/*
 * t_kineto_coll.c - the Kineto reader's collective calls (t->colls, SPEC 19).
 *
 *   t_kineto_coll FIXTURE            fixtures/kineto_coll/tree/trace.json: each entry
 *                                    field by field, as its README derives them
 *   t_kineto_coll --dump TRACE...    one line per entry of each trace (for
 *                                    tests/cli/kineto_colls_real.py): "coll\t"
 *                                    kind, bytes, ranks, group, dtype, start, end,
 *                                    name; first "trace\tPATH\tN" (N entries)
 *                                    and "comm\tN" (COMM ranges)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "read/kineto/kineto.h"
#include "trace/coll.h"

static const char *str(const struct opmfu_trace *t, uint32_t sid)
{
	return sid ? opmfu_strtab_str(&t->strs, sid) : "";
}

static int read_trace(const char *path, struct opmfu_trace *t)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	opmfu_trace_init(t);
	if (opmfu_read_kineto(path, t, NULL, &e) != OPMFU_OK) {
		fprintf(stderr, "reading %s: %s\n", path, e.msg);
		return -1;
	}
	return 0;
}

static int dump(int argc, char **argv)
{
	int i;
	for (i = 2; i < argc; i++) {
		struct opmfu_trace t;
		size_t k;
		if (read_trace(argv[i], &t))
			return 1;
		printf("trace\t%s\t%zu\ncomm\t%zu\n", argv[i], t.colls.n, t.comm.n);
		for (k = 0; k < t.colls.n; k++) {
			const struct opmfu_coll *c = &t.colls.v[k];
			const char *kind = opmfu_coll_kind_name(c->kind);
			printf("coll\t%s\t%" PRId64 "\t%d\t%s\t%s\t%" PRId64 "\t%" PRId64 "\t%s\n", kind ? kind : "other",
			       c->bytes, (int)c->ranks, str(&t, c->group), str(&t, c->dtype), c->start, c->end,
			       str(&t, c->name));
		}
		opmfu_trace_release(&t);
	}
	return 0;
}

/* What fixtures/kineto_coll/README.md derives for an entry. */
struct want {
	int64_t start, end, bytes;
	int kind, ranks;
	const char *name, *group, *dtype; /* "" : sid 0 */
};

static void check_entry(const struct opmfu_trace *t, size_t i, const struct want *w)
{
	const struct opmfu_coll *c = &t->colls.v[i];
	fprintf(stderr, "entry %zu\n", i);
	CHECK_INT(c->start, w->start);
	CHECK_INT(c->end, w->end);
	CHECK_STR(str(t, c->name), w->name);
	CHECK_INT(c->kind, w->kind);
	CHECK_INT(c->bytes, w->bytes);
	CHECK_INT(c->ranks, w->ranks);
	CHECK_STR(str(t, c->group), w->group);
	CHECK_STR(str(t, c->dtype), w->dtype);
	CHECK_INT(!w->group[0], c->group == 0);
	CHECK_INT(!w->dtype[0], c->dtype == 0);
	/* GPU traces have no tasks */
	CHECK_INT(c->wait_ns, OPMFU_COLL_UNKNOWN);
	CHECK_INT(c->transfer_ns, OPMFU_COLL_UNKNOWN);
	CHECK_INT(c->link_bytes, OPMFU_COLL_UNKNOWN);
	CHECK_INT(c->transport, 0);
	/* the COMM range of the same kernel, in the same order */
	CHECK(i < t->comm.n);
	if (i < t->comm.n) {
		CHECK_INT(t->comm.v[i].start, c->start);
		CHECK_INT(t->comm.v[i].end, c->end);
	}
}

static void test_fixture(const char *path)
{
	static const char *sendrecv = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)";
	char big[8192];
	size_t i, n = 0;
	struct opmfu_trace t;
	const struct want w[] = {
		/* 1: its own args; the kind from "Collective name" (the name says nothing) */
		{ 200000, 210000, 4096, OPMFU_COLL_ALLREDUCE, 4, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
		  "0", "Float" },
		/* 2: Out > In: 2048 x 2; ranks counted from the list, the group its text */
		{ 300000, 320000, 4096, OPMFU_COLL_ALLGATHER, 8, "ncclDevKernel_AllGather_RING_LL",
		  "[0, 2, 4, 6, 8, 10, 12, 14]", "BFloat16" },
		/* 3: no args: the launching op's (nccl:all_reduce, by correlation) */
		{ 400000, 430000, 2000, OPMFU_COLL_ALLREDUCE, 2,
		  "ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)", "[1, 3]", "c10::Half" },
		/* 4: SendRecv with nothing to say: OTHER, all unknown */
		{ 500000, 505000, OPMFU_COLL_UNKNOWN, OPMFU_COLL_OTHER, 0, sendrecv, "", "" },
		/* 5: hostile: bytes overflow, Group size absurd, ranks text cut */
		{ 600000, 605000, OPMFU_COLL_UNKNOWN, OPMFU_COLL_BROADCAST, 1200, "ncclDevKernel_Broadcast_RING_LL", big,
		  "Double" },
		/* 6: SendRecv whose op says "recv": its kind and its args */
		{ 700000, 708000, 400, OPMFU_COLL_RECV, 2, sendrecv, "7", "Int" },
		/* 7: torch < 2.1: record_param_comms says nothing; the c10d op around it its size and kind */
		{ 900000, 906000, 24576, OPMFU_COLL_ALLTOALL, 0, sendrecv, "", "float" },
		/* 8: ... whose input is a TensorList: no size */
		{ 1100000, 1107000, OPMFU_COLL_UNKNOWN, OPMFU_COLL_ALLREDUCE, 0,
		  "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "", "" },
	};

	/* the first 4096 bytes of "[0, 1, ..., 1199]" */
	n += (size_t)snprintf(big, sizeof(big), "[");
	for (i = 0; i < 1200 && n < sizeof(big); i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%s%zu", i ? ", " : "", i);
	big[KIN_COLL_TEXT_MAX] = '\0';

	if (read_trace(path, &t)) {
		CHECK(0);
		return;
	}
	CHECK_INT(t.colls.n, sizeof(w) / sizeof(w[0]));
	CHECK_INT(t.comm.n, t.colls.n);
	for (i = 0; i < t.colls.n && i < sizeof(w) / sizeof(w[0]); i++)
		check_entry(&t, i, &w[i]);
	if (t.colls.n >= 5)
		CHECK_INT(strlen(str(&t, t.colls.v[4].group)), KIN_COLL_TEXT_MAX);
	/* the compute kernel stays a link, not a call */
	CHECK_INT(t.n_compute, 1);
	opmfu_trace_release(&t);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--dump"))
		return dump(argc, argv);
	if (argc != 2) {
		fprintf(stderr, "usage: t_kineto_coll FIXTURE | --dump TRACE...\n");
		return 2;
	}
	test_fixture(argv[1]);
	return check_done();
}
