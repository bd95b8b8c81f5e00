/*
 * report_model.c - the report's model section (`opmfu analyze --model`,
 * SPEC 12): per convention the model's FLOPs per step and per device, the
 * model MFU of the run next to its trace MFU, the FLOPs coverage and the
 * likely reason when it is far from 1; at most six lines.
 */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/model_args.h"

/* A ratio as a percentage ("25.9%") up to 10 times, then as a factor
 * ("1.676e3x"); "-" for none (< 0). */
static const char *ratio(double v, char *buf, size_t size)
{
	char sci[24];
	if (isnan(v) || v < 10)
		opmfu_format_pct(v, 1, buf, size);
	else
		snprintf(buf, size, "%sx", opmfu_format_sci(v, sci, sizeof(sci)));
	return buf;
}

void opmfu_print_model_report(const struct opmfu_report *rep)
{
	static const char *const class_names[OPMFU_NCLASS] = { "fp32", "tf32", "bf16/fp16", "fp8", "int8", "fp4" };
	const struct opmfu_model_report *m = rep->model;
	const struct opmfu_model_check *r0;
	char step[24], peak[48], b[4][24];
	size_t k;

	if (!m || !m->n_run)
		return;
	r0 = &m->run[0];
	if (r0->step_ns <= 0) {
		printf("\nmodel MFU: no step with device activity\n");
	} else {
		opmfu_format_ns(r0->step_ns, step, sizeof(step));
		if (r0->peak_tflops > 0)
			snprintf(peak, sizeof(peak), "%g TFLOPS %s", r0->peak_tflops, class_names[m->dtype_class]);
		else
			snprintf(peak, sizeof(peak), "no %s peak", class_names[m->dtype_class]);
		printf("\nmodel MFU of that step = model FLOPs per device / (%s x %s); its trace MFU %s\n", step, peak,
		       ratio(r0->trace_mfu, b[0], sizeof(b[0])));
	}
	printf("  %-12s %10s %8s %9s %8s  %s\n", "convention", "FLOPs/step", "/device", "model MFU", "coverage",
	       "likely reason (coverage = trace FLOPs / model FLOPs per device)");
	for (k = 0; k < m->n_run; k++) {
		const struct opmfu_model_check *r = &m->run[k];
		printf("  %-12s %10s %8s %9s %8s  %s\n", opmfu_convention_name(r->conv),
		       opmfu_format_sci(r->flops_per_step, b[0], sizeof(b[0])),
		       opmfu_format_sci(r->flops_per_device, b[1], sizeof(b[1])), ratio(r->model_mfu, b[2], sizeof(b[2])),
		       ratio(r->coverage, b[3], sizeof(b[3])), r->note ? r->note : "");
	}
}
