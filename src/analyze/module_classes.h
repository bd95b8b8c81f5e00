/*
 * module_classes.h - modules grouped the way people fix them (SPEC 18,
 * OpmfuModuleClasses): a module path's class is its last name without the
 * instance suffix (Qwen2Model_0/Qwen2DecoderLayer_13/Qwen2Attention_13 ->
 * Qwen2Attention), every instance and layer together. A class's inclusive
 * sums hold every unit under any module of the class, each unit once even
 * when the class nests in itself; its own sums the units directly under
 * one. Most recoverable time (inclusive) first.
 */
#ifndef OPMFU_MODULE_CLASSES_H
#define OPMFU_MODULE_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/modules.h"
#include "base/err.h"
#include "base/intern.h"
#include "trace/analysis.h"
#include "trace/table.h"

/*
 * The length of the class name of module name s[0 .. n): n less a trailing
 * "_" and one or more decimal digits, when something comes before the "_"
 * ("Qwen2Attention_13" -> 14, "fc2" -> 3, "layer_1a" -> 8, "_3" -> 2).
 */
size_t opmfu_module_class_len(const char *s, size_t n);

struct opmfu_mclass {
	uint32_t name;   /* id in classes */
	uint32_t paths;  /* module paths whose last name is of the class (instances) */
	size_t calls;    /* their Module ranges */
	struct opmfu_msum all, self;
};

struct opmfu_module_classes {
	struct opmfu_arena ar;
	struct opmfu_intern classes;
	struct opmfu_mclass *v; /* most recoverable (inclusive) first; ties by first appearance */
	size_t n;
};

void opmfu_module_classes_init(struct opmfu_module_classes *res);
void opmfu_module_classes_release(struct opmfu_module_classes *res);
/* The classes of mods' paths over mods->ops' units (placed by
 * opmfu_modules_run). Returns OPMFU_OK or OPMFU_ERR_NOMEM. */
enum opmfu_status opmfu_module_classes_run(const struct opmfu_modules *mods, struct opmfu_module_classes *res,
					   struct opmfu_err *err);

extern const struct opmfu_table_def opmfu_module_classes_def;
struct opmfu_module_classes_table {
	const struct opmfu_module_classes *mc;
	int rank;
};
struct opmfu_table opmfu_module_classes_table(const struct opmfu_module_classes_table *src);

/* The registered analysis "module_classes" (OpmfuModuleClasses; needs "modules"). */
struct opmfu_module_classes_state {
	struct opmfu_module_classes mc;
	struct opmfu_module_classes_table view;
};
extern const struct opmfu_analysis opmfu_analysis_module_classes;

#endif
