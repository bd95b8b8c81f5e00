/*
 * chips.h - built-in table of dense (no 2:4 sparsity) vendor peak FLOPS and
 * peak memory bandwidth (SPEC 6, 18).
 */
#ifndef OPMFU_CHIPS_H
#define OPMFU_CHIPS_H

#include <stddef.h>

enum opmfu_chip_flags {
	/* Ascend cube unit: fp32 and hf32 (tf32) inputs run at the fp16 rate, the
	 * rule the reference applies to FLOAT kernels */
	OPMFU_CHIP_CUBE = 1 << 0,
};

struct opmfu_chip {
	const char *name;    /* canonical name, e.g. "H100 SXM" */
	const char *aliases; /* other exact names, '|'-separated, or NULL; real device names
				("NVIDIA H100 80GB HBM3") are aliases too */
	double fp32, tf32, fp16, fp8, int8; /* TFLOPS; 0 = not given */
	const char *source;
	unsigned flags;      /* enum opmfu_chip_flags */
	double bw;           /* peak device-memory (HBM/GDDR) bandwidth, TB/s (10^12 bytes/s); 0 = no public
				figure (SPEC 18) */
	const char *bw_source; /* the vendor document that gives bw, or why there is none */
};

/* The table, terminated by an entry with name NULL. */
const struct opmfu_chip *opmfu_chips(void);

/*
 * Looks a chip up by name or alias. Matching ignores case, spaces, '-' and
 * '_' but is otherwise exact: "L20X" does not match "L20", "GB200" does not
 * match "B200". Returns NULL when no chip matches.
 */
const struct opmfu_chip *opmfu_chip_find(const char *name);

/*
 * The chip of a device name as a trace gives it ("NVIDIA H100 80GB HBM3",
 * "AMD Instinct MI300X VF"): opmfu_chip_find, else the same name without a
 * trailing " VF" (a virtual function) or " MIG ..." (a MIG slice). NULL
 * when none matches.
 */
const struct opmfu_chip *opmfu_chip_find_device(const char *name);

/*
 * Up to max chips whose name or an alias is close to name (edit distance
 * of the normalised forms at most 2, or a third of the name's length),
 * closest first: "did you mean". Returns how many were put in out.
 */
size_t opmfu_chip_suggest(const char *name, const struct opmfu_chip **out, size_t max);

#endif
