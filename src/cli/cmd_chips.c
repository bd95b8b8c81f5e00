/*
 * cmd_chips.c - `opmfu chips`: the built-in peak table (FLOPS, then memory
 * bandwidth), then where each chip's peaks and bandwidth come from.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int opmfu_cmd_chips(int argc, char **argv)
{
	struct opmfu_chip_row r;
	size_t i;
	(void)argv;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: opmfu chips\n\nList the built-in dense peak TFLOPS and peak memory bandwidth (TB/s)\n"
		     "table, and the source of each peak and bandwidth (use a name with --chip).");
		return 0;
	}
	if (argc > 1)
		opmfu_die_usage("chips ", "chips takes no arguments, got '%s'", argv[1]);
	printf("%-12s %9s %9s %9s %9s %9s %9s %6s  %s\n", "chip", "fp32", "tf32", "bf16/fp16", "fp8", "int8", "fp4",
	       "TB/s", "aliases");
	for (i = 0; opmfu_chip_row(i, &r); i++) {
		double v[6] = { r.fp32, r.tf32, r.fp16, r.fp8, r.int8, r.fp4 };
		int k;
		printf("%-12s", r.name);
		for (k = 0; k < 6; k++) {
			if (v[k] > 0)
				printf(" %9.2f", v[k]);
			else
				printf(" %9s", "-");
		}
		if (r.bw > 0)
			printf(" %6.3f", r.bw);
		else
			printf(" %6s", "-");
		printf("  %s\n", r.aliases ? r.aliases : "");
	}
	puts("\npeak TFLOPS from:");
	for (i = 0; opmfu_chip_row(i, &r); i++)
		printf("%-12s %s\n", r.name, r.source ? r.source : "");
	puts("\nmemory bandwidth (TB/s) from:");
	for (i = 0; opmfu_chip_row(i, &r); i++)
		printf("%-12s %s%s\n", r.name, r.bw_source ? r.bw_source : "", r.bw > 0 ? "" : " (give --peak-bw)");
	return 0;
}

