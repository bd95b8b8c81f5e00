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
	double fp32, tf32, fp16, fp8, int8, fp4; /* TFLOPS; 0 = not given */
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
 * Up to max chips whose name or an alias is close to name (optimal string
 * alignment distance - Levenshtein with adjacent transpositions - of the
 * folded forms at most 2, or a third of the name's length), closest first,
 * then by the longest common prefix, then in table order: "did you mean".
 * Returns how many were put in out.
 */
size_t opmfu_chip_suggest(const char *name, const struct opmfu_chip **out, size_t max);

/*
 * The chips of the family name names (up to max, table order): those whose
 * name or an alias, folded, starts with name's folded form and goes on
 * where a digit meets a letter ("H100" -> "H100 SXM", "H100 PCIe", "H100
 * NVL"; "MI3" is no family of "MI300X"). Returns how many; a family needs
 * two, and a name that is itself a chip is none.
 */
size_t opmfu_chip_family(const char *name, const struct opmfu_chip **out, size_t max);

/*
 * The message for a --chip that names no chip, into buf: "H100 is a family:
 * H100 SXM, H100 PCIe or H100 NVL; pick one (see 'opmfu chips')" or
 * "unknown chip 'X'; did you mean A, B or C? (see 'opmfu chips')".
 */
void opmfu_chip_unknown(const char *name, char *buf, size_t size);

#endif
