/*
 * module_tree.h - the module tree of SPEC 3.1-3.3, built once per trace: the
 * kernel rows, the op nodes they make, and which Module range each op node
 * sits directly under. Module MFU aggregates over it; any analysis by module
 * can take it as it is, and the module paths from opmfu_module_paths.
 */
#ifndef OPMFU_MODULE_TREE_H
#define OPMFU_MODULE_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/intern.h"
#include "base/sbuf.h"
#include "trace/trace.h"
#include "reference/op_mfu.h"

/* Module levels below the root that yield rows (SPEC 3.3); deeper modules and
 * their ops yield none, as in the reference. */
#define OPMFU_MODULE_MAX_DEPTH 20

/* No module: the parent of a top-level module. */
#define OPMFU_MODULE_NONE UINT32_MAX

struct opmfu_module_tree {
	/* kernel rows in SPEC 3.1 order: a link and its MFU entry in the
	 * op_mfu result (OPMFU_NO_ENTRY: none), one row per entry; the first
	 * n_k_r are R's rows, in op start order */
	uint32_t *k_link, *k_ent;
	size_t n_k, n_k_r;
	/* op nodes, one per (op name, op start, op end), numbered in order of
	 * first appearance: a link of the op (its name and span), and the
	 * kernel rows kord[node_off[i] .. node_off[i + 1]) in row order */
	uint32_t *node_link, *node_off, *kord;
	size_t n_nodes, cap_nodes;
	/* per Module range of the trace: the innermost module containing it
	 * (OPMFU_MODULE_NONE: the root) and its depth (1 under the root) */
	uint32_t *mod_parent, *mod_depth;
	/* op nodes under a module at depth <= OPMFU_MODULE_MAX_DEPTH: the node
	 * and that innermost module, by (module start, op start), ties in
	 * depth-first order (SPEC 3.3) */
	uint32_t *row_node, *row_mod;
	size_t n_rows;
	size_t ops_too_deep; /* op nodes under deeper modules */
};

void opmfu_module_tree_init(struct opmfu_module_tree *mt);
void opmfu_module_tree_release(struct opmfu_module_tree *mt);

/*
 * Builds the tree of trace t; op is opmfu_op_mfu_run()'s result on t. mt
 * must be freshly initialised. A trace without Module ranges or links gives
 * an empty tree (nothing is built). Cost O(n log n) in the kernel rows.
 * Returns 0, or -1 when out of memory (mt then holds what was built:
 * release it).
 */
int opmfu_module_tree_build(struct opmfu_module_tree *mt, const struct opmfu_trace *t,
			    const struct opmfu_op_mfu *op);

/*
 * Module ranges and other spans on one timeline, for a walk with a stack of
 * the open modules: in opmfu_nest_order's order a container comes before
 * what it contains, so the innermost open module that ends no earlier holds
 * an item. Item k < n_mods is module k (mods[k]); item n_mods + i is the
 * caller's span i, the int64 start and end at off_start and off_end in the
 * record base + stride * (via ? via[i] : i). The items are read where they
 * are, not copied: a copy (24 bytes an item) and its sort were the top of a
 * large rank's memory.
 */
struct opmfu_nest {
	const struct opmfu_range *mods;
	size_t n_mods;
	const void *base;
	size_t stride, off_start, off_end;
	const uint32_t *via; /* NULL: span i is record i */
};

static inline void opmfu_nest_span(const struct opmfu_nest *ns, uint32_t k, int64_t *start, int64_t *end)
{
	const char *p;
	size_t i;
	if (k < ns->n_mods) {
		*start = ns->mods[k].start;
		*end = ns->mods[k].end;
		return;
	}
	i = k - ns->n_mods;
	p = (const char *)ns->base + ns->stride * (ns->via ? ns->via[i] : i);
	memcpy(start, p + ns->off_start, sizeof(*start));
	memcpy(end, p + ns->off_end, sizeof(*end));
}

/* ord[0 .. n) (n items, the modules first) the items by (start ascending,
 * end descending, item). Returns 0, or -1 when out of memory. */
int opmfu_nest_order(const struct opmfu_nest *ns, uint32_t *ord, size_t n);

/* The string of sid ("" for none) and its length. */
static inline const char *opmfu_module_str(const struct opmfu_trace *t, uint32_t sid, size_t *len)
{
	const char *s = opmfu_strtab_str(&t->strs, sid);
	*len = s ? opmfu_strtab_len(&t->strs, sid) : 0;
	return s ? s : "";
}

/* A name as a key: NULL and "" are the same name (0). */
static inline uint32_t opmfu_module_name_key(const struct opmfu_trace *t, uint32_t sid)
{
	return sid && opmfu_strtab_len(&t->strs, sid) ? sid : 0;
}

/*
 * Module paths (SPEC 3.3: "A/B/C" from the root), interned in a set the
 * caller owns, each built once from its parent's. Only modules asked for and
 * their ancestors are built, so the recursion stays as deep as the modules
 * asked for (module MFU asks only for modules at depth <= 20).
 */
struct opmfu_module_paths {
	const struct opmfu_module_tree *mt;
	const struct opmfu_trace *t;
	struct opmfu_intern *strs;
	struct sbuf *sb;      /* scratch */
	uint32_t *pid, *fid;  /* per module: parent path / own path in strs, NONE until built */
	uint32_t empty;       /* "" in strs: the parent path of a top-level module */
};

/* Returns 0, or -1 when out of memory (release p all the same). */
int opmfu_module_paths_init(struct opmfu_module_paths *p, const struct opmfu_module_tree *mt,
			    const struct opmfu_trace *t, struct opmfu_intern *strs, struct sbuf *sb);
void opmfu_module_paths_release(struct opmfu_module_paths *p);

/* Id in p->strs of the parent_module string of module m, or
 * OPMFU_IDTAB_NONE when out of memory. */
uint32_t opmfu_module_parent_path(struct opmfu_module_paths *p, uint32_t m);
/* Id in p->strs of module m's own path, or OPMFU_IDTAB_NONE. */
uint32_t opmfu_module_path(struct opmfu_module_paths *p, uint32_t m);

#endif
