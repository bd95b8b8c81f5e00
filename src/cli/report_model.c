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

void opmfu_print_model_report(const struct opmfu_run *run, int dtype_class)
{
	static const char *const class_names[OPMFU_NCLASS] = { "fp32", "tf32", "bf16/fp16", "fp8", "int8", "fp4" };
	const struct opmfu_rows *m = opmfu_run_rows(run, "OpmfuModel"), *r = opmfu_run_rows(run, "OpmfuRun");
	char step[24], peak[48], b[4][24];
	double step_ns, pk;
	size_t k, n = opmfu_rows_count(m);
	const char *cls = dtype_class >= 0 && dtype_class < OPMFU_NCLASS ? class_names[dtype_class] : "?";

	if (!n)
		return;
	/* the run's rows are the step the waterfall shows: OpmfuRun's median step */
	step_ns = opmfu_cell(m, 0, "step_ns");
	pk = opmfu_cell(m, 0, "peak_tflops");
	if (isnan(step_ns) || step_ns <= 0) {
		opmfu_printf("\nmodel MFU: no step with device activity\n");
	} else {
		opmfu_format_ns(step_ns, step, sizeof(step));
		if (pk > 0)
			snprintf(peak, sizeof(peak), "%g TFLOPS %s", pk, cls);
		else
			snprintf(peak, sizeof(peak), "no %s peak", cls);
		opmfu_printf("\nmodel MFU of that step = model FLOPs per device / (%s x %s); its trace MFU %s\n", step, peak,
		       ratio(opmfu_cell(r, 0, "trace_mfu"), b[0], sizeof(b[0])));
	}
	opmfu_printf("  %-12s %10s %8s %9s %8s  %s\n", "convention", "FLOPs/step", "/device", "model MFU", "coverage",
	       "likely reason (coverage = trace FLOPs / model FLOPs per device)");
	for (k = 0; k < n; k++) {
		const char *conv = opmfu_cell_str(m, k, "convention"), *note = opmfu_cell_str(m, k, "note");
		opmfu_printf("  %-12s %10s %8s %9s %8s  %s\n", conv ? conv : "?",
		       opmfu_format_sci(opmfu_cell(m, k, "model_flops_per_step"), b[0], sizeof(b[0])),
		       opmfu_format_sci(opmfu_cell(m, k, "model_flops_per_device"), b[1], sizeof(b[1])),
		       ratio(opmfu_cell(m, k, "model_mfu"), b[2], sizeof(b[2])),
		       ratio(opmfu_cell(m, k, "coverage"), b[3], sizeof(b[3])), note ? note : "");
	}
}
