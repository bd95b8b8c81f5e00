/*
 * chips.h - built-in table of dense (no 2:4 sparsity) vendor peak FLOPS.
 */
#ifndef OPMFU_CHIPS_H
#define OPMFU_CHIPS_H

#include <stddef.h>

struct opmfu_chip {
	const char *name;    /* canonical name, e.g. "H100 SXM" */
	const char *aliases; /* other exact names, '|'-separated, or NULL */
	double fp32, tf32, fp16, fp8, int8; /* TFLOPS; 0 = not given */
	const char *source;
};

/* The table, terminated by an entry with name NULL. */
const struct opmfu_chip *opmfu_chips(void);

/*
 * Looks a chip up by name or alias. Matching ignores case, spaces, '-' and
 * '_' but is otherwise exact: "L20X" does not match "L20", "GB200" does not
 * match "B200". Returns NULL when no chip matches.
 */
const struct opmfu_chip *opmfu_chip_find(const char *name);

#endif
