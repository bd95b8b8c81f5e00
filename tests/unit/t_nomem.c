/*
 * t_nomem.c - every allocation of a whole run fails in turn: the run must end
 * with a status and an "out of memory" message, never crash or leak (the
 * suite also runs under AddressSanitizer). argv[1] is a rank directory.
 */
#include <string.h>

#include "base/mem.h"
#include "check.h"
#include "opmfu.h"

static int says_nomem(const struct opmfu_report *rep, const struct opmfu_err *err)
{
	size_t i;
	if (strstr(err->msg, "out of memory"))
		return 1;
	for (i = 0; i < rep->n_ranks; i++)
		if (strstr(rep->ranks[i].reason, "out of memory"))
			return 1;
	return 0;
}

static enum opmfu_status run(const char *in, const char *out, struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_opts o;
	memset(&o, 0, sizeof(o));
	o.inputs = &in;
	o.n_inputs = 1;
	o.out_dir = out;
	o.jobs = 2;
	memset(err, 0, sizeof(*err));
	return opmfu_analyze(&o, rep, err);
}

int main(int argc, char **argv)
{
	struct opmfu_report rep;
	struct opmfu_err err;
	long before, total, k, failed_runs = 0;
	char out[4096];

	if (argc < 3)
		return 2;
	snprintf(out, sizeof(out), "%s", argv[2]);
	before = opmfu_mem_count();
	CHECK_INT(run(argv[1], out, &rep, &err), OPMFU_OK);
	/* fixtures/module_tree: 6 OperatorMFU rows, 9 ModuleMFU rows */
	CHECK(rep.n_ranks == 1 && rep.ranks[0].op_rows == 6 && rep.ranks[0].module_rows == 9);
	opmfu_report_release(&rep);
	total = opmfu_mem_count() - before;
	CHECK(total > 20);
	for (k = 1; k <= total + 5; k++) {
		enum opmfu_status st;
		opmfu_mem_fail_after(k);
		st = run(argv[1], out, &rep, &err);
		opmfu_mem_fail_after(0);
		if (st != OPMFU_OK) {
			failed_runs++;
			if (!says_nomem(&rep, &err))
				fprintf(stderr, "allocation %ld: status %d, message '%s'\n", k, (int)st, err.msg);
			CHECK(says_nomem(&rep, &err));
		}
		opmfu_report_release(&rep);
	}
	/* most single failures must be fatal to the run or a rank */
	CHECK(failed_runs > total / 2);
	printf("%ld allocations, %ld runs ended with out of memory\n", total, failed_runs);
	return check_done();
}
