/*
 * cmd_chips.c - `opmfu chips`: the built-in peak table.
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
		puts("usage: opmfu chips\n\nList the built-in dense peak TFLOPS table (use a name with --chip).");
		return 0;
	}
	if (argc > 1)
		opmfu_die_usage("chips ", "chips takes no arguments, got '%s'", argv[1]);
	printf("%-12s %9s %9s %9s %9s %9s  %s\n", "chip", "fp32", "tf32", "bf16/fp16", "fp8", "int8", "aliases");
	for (i = 0; opmfu_chip_row(i, &r); i++) {
		double v[5] = { r.fp32, r.tf32, r.fp16, r.fp8, r.int8 };
		int k;
		printf("%-12s", r.name);
		for (k = 0; k < 5; k++) {
			if (v[k] > 0)
				printf(" %9.2f", v[k]);
			else
				printf(" %9s", "-");
		}
		printf("  %s\n", r.aliases ? r.aliases : "");
	}
	return 0;
}

