/*
 * t_analyses.c - the registry of analyses (lib/analyses.c, trace/analysis.h):
 * what each analysis needs is there before it, what it makes is made once
 * and has its DDL in schema/out (argv[1]) with the same columns in the same
 * order, and each scope has its functions.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/lib.h"

/* ---- the DDL files: CREATE TABLE "Name" ( "col" TYPE, ... ) ---- */

#define MAX_DDL 64
#define MAX_COLS 128

struct ddl {
	char file[256];
	char table[128];
	char *cols[MAX_COLS];
	size_t n_cols;
};

static struct ddl ddls[MAX_DDL];
static size_t n_ddls;

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(s = malloc((size_t)n + 1))) {
		fclose(f);
		return NULL;
	}
	if (fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		fclose(f);
		return NULL;
	}
	s[n] = 0;
	fclose(f);
	return s;
}

/* SQL comments ("--" to the end of the line) become blanks: they may quote anything */
static void strip_comments(char *s)
{
	char *p = s;
	while ((p = strstr(p, "--")))
		while (*p && *p != '\n')
			*p++ = ' ';
}

/* The quoted identifier at *p (after blanks), copied out; *p moves past it. */
static char *quoted(const char **p)
{
	const char *s = *p, *e;
	char *out;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	if (*s != '"' || !(e = strchr(s + 1, '"')))
		return NULL;
	out = malloc((size_t)(e - s));
	memcpy(out, s + 1, (size_t)(e - s - 1));
	out[e - s - 1] = 0;
	*p = e + 1;
	return out;
}

/* Every CREATE TABLE of one file: its name and its columns, in order. */
static void parse_ddl(const char *file, char *text)
{
	const char *p = text;
	strip_comments(text);
	for (;;) {
		/* a table, or a view with its column list (a table stored narrow, SPEC 24) */
		const char *t = strstr(p, "CREATE TABLE"), *v = strstr(p, "CREATE VIEW");
		struct ddl *d = &ddls[n_ddls];
		char *name;
		int depth = 0;
		if (!t && !v)
			break;
		p = t && (!v || t < v) ? t + strlen("CREATE TABLE") : v + strlen("CREATE VIEW");
		if (n_ddls == MAX_DDL || !(name = quoted(&p))) {
			fprintf(stderr, "%s: a CREATE TABLE this test cannot read\n", file);
			check_failures++;
			return;
		}
		snprintf(d->file, sizeof(d->file), "%s", file);
		snprintf(d->table, sizeof(d->table), "%s", name);
		free(name);
		n_ddls++;
		while (*p && *p != '(')
			p++;
		/* a column begins after "(" or a top-level ","; a type's own parentheses are not columns */
		for (; *p; p++) {
			if (*p == '"') { /* a quoted name may hold parentheses: "kernel_start(ns)" */
				const char *e = strchr(p + 1, '"');
				if (!e)
					break;
				p = e;
			} else if (*p == '(' && depth++ == 0) {
				const char *q = p + 1;
				char *col = quoted(&q);
				if (col && d->n_cols < MAX_COLS)
					d->cols[d->n_cols++] = col;
				else
					free(col);
			} else if (*p == ')' && --depth == 0) {
				break;
			} else if (*p == ',' && depth == 1) {
				const char *q = p + 1;
				char *col = quoted(&q);
				if (col && d->n_cols < MAX_COLS)
					d->cols[d->n_cols++] = col;
				else
					free(col);
			}
		}
	}
}

static void read_ddls(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char path[4096];
		char *text;
		if (n < 5 || strcmp(e->d_name + n - 4, ".sql"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		text = read_all(path);
		CHECK(text != NULL);
		if (text)
			parse_ddl(e->d_name, text);
		free(text);
	}
	closedir(d);
}

static void free_ddls(void)
{
	size_t i, c;
	for (i = 0; i < n_ddls; i++)
		for (c = 0; c < ddls[i].n_cols; c++)
			free(ddls[i].cols[c]);
	memset(ddls, 0, sizeof(ddls));
	n_ddls = 0;
}

static const struct ddl *ddl_of(const char *table)
{
	size_t i;
	for (i = 0; i < n_ddls; i++)
		if (!strcmp(ddls[i].table, table))
			return &ddls[i];
	return NULL;
}

static void fail(const char *what, const char *a, const char *b);

/* A stored table's (trace/table.h): its row table has the store's row-table
 * columns in order, each dimension (rank_id, id, its columns), as the DDL says. */
static void check_store(const struct opmfu_store *st)
{
	size_t part, k;
	for (part = 0; part <= st->n_dims; part++) {
		const char *name = part ? st->dims[part - 1] : st->rows;
		const struct ddl *d = ddl_of(name);
		const char *want[MAX_COLS];
		size_t n = 0;
		if (part) {
			want[n++] = "rank_id";
			want[n++] = "id";
		}
		for (k = 0; k < st->n_cols && n < MAX_COLS; k++)
			if (opmfu_store_in(st, k, (unsigned)part))
				want[n++] = st->cols[k].name;
		if (!d) {
			fail("no CREATE TABLE in schema/out for", name, st->def->name);
			continue;
		}
		CHECK_INT(d->n_cols, n);
		for (k = 0; k < n && k < d->n_cols; k++)
			CHECK_STR(d->cols[k], want[k]);
		/* write_sqlite.c's MAX_DIM_CELLS */
		CHECK(!part || n - 2 <= 16);
	}
	/* the row table's first column is the rank's, which the dimensions are keyed by */
	CHECK_STR(st->cols[0].name, "rank_id");
	CHECK(st->cols[0].dim == 0 && !st->cols[0].id);
}

/* ---- the registry ---- */

static size_t n_registered(void)
{
	size_t n = 0;
	while (opmfu_analyses[n])
		n++;
	return n;
}

/* The per-rank analysis named name among the first `before`, or NULL. */
static const struct opmfu_analysis *rank_analysis(const char *name, size_t before)
{
	size_t i;
	for (i = 0; i < before; i++)
		if (opmfu_analyses[i]->scope == OPMFU_PER_RANK && !strcmp(opmfu_analyses[i]->name, name))
			return opmfu_analyses[i];
	return NULL;
}

/* Whether some per-rank analysis makes the table. */
static int made_per_rank(const char *table)
{
	size_t i, k;
	for (i = 0; opmfu_analyses[i]; i++)
		for (k = 0; opmfu_analyses[i]->scope == OPMFU_PER_RANK && opmfu_analyses[i]->makes &&
			    opmfu_analyses[i]->makes[k];
		     k++)
			if (!strcmp(opmfu_analyses[i]->makes[k]->name, table))
				return 1;
	return 0;
}

/* A table a per-run analysis registered before index `before` makes (given to the later ones' run_add). */
static int made_per_run_before(const char *table, size_t before)
{
	size_t i, k;
	for (i = 0; i < before && opmfu_analyses[i]; i++)
		for (k = 0; opmfu_analyses[i]->scope == OPMFU_PER_RUN && opmfu_analyses[i]->makes &&
			    opmfu_analyses[i]->makes[k];
		     k++)
			if (!strcmp(opmfu_analyses[i]->makes[k]->name, table))
				return 1;
	return 0;
}

static void fail(const char *what, const char *a, const char *b)
{
	check_failures++;
	fprintf(stderr, "%s: %s %s\n", what, a, b ? b : "");
}

/* Each need is met before the analysis runs. */
static void t_needs(void)
{
	size_t i, k;
	for (i = 0; opmfu_analyses[i]; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		for (k = 0; a->needs && a->needs[k]; k++) {
			const char *need = a->needs[k];
			check_count++;
			if (a->scope == OPMFU_PER_RANK) {
				/* an analysis registered before it, run at its stage or an earlier one */
				const struct opmfu_analysis *b = rank_analysis(need, i);
				if (!b)
					fail("needs an analysis not registered before it", a->name, need);
				else if (b->stage > a->stage)
					fail("needs an analysis of a later stage", a->name, need);
			} else if (!made_per_rank(need) && !(made_per_run_before(need, i) && a->run_add) &&
				   strcmp(need, "OpmfuRankSummary") && strcmp(need, "OpmfuModel")) {
				/* a table some rank puts: one an analysis makes, or the pool's own two; or one
				 * an earlier per-run analysis makes, read through run_add */
				fail("needs a table no rank puts", a->name, need);
			}
		}
	}
}

/* Names, scopes and functions. */
static void t_shape(void)
{
	size_t i, k, per_rank = 0, per_run = 0;
	CHECK(n_registered() > 0);
	CHECK(n_registered() <= OPMFU_MAX_ANALYSES);
	for (i = 0; opmfu_analyses[i]; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		size_t n_makes = 0;
		CHECK(a->name && *a->name);
		for (k = 0; k < i; k++)
			if (!strcmp(opmfu_analyses[k]->name, a->name))
				fail("registered twice", a->name, NULL);
		CHECK(a->makes != NULL);
		while (a->makes && a->makes[n_makes])
			n_makes++;
		CHECK(n_makes >= 1);
		CHECK(n_makes <= OPMFU_MAX_TABLES);
		if (a->scope == OPMFU_PER_RANK) {
			per_rank++;
			CHECK(a->run != NULL);
			CHECK(a->tables != NULL);
			CHECK(a->stage >= OPMFU_STAGE_OPS && a->stage <= OPMFU_STAGE_LAST);
		} else {
			per_run++;
			CHECK_INT(a->scope, OPMFU_PER_RUN);
			CHECK(a->add != NULL);
			CHECK(a->keep != NULL);
			CHECK(a->drop != NULL);
			CHECK(a->finish != NULL);
			CHECK(a->run_tables != NULL);
		}
	}
	/* operator_mfu, module_mfu, ops, modules, module_classes, steps, hotspots, shapes; account */
	CHECK_INT(per_rank, 9);
	CHECK_INT(per_run, 2);
}

/* Every table is made once, OperatorMFU and ModuleMFU first. */
static void t_tables(void)
{
	const struct opmfu_table_def *defs[OPMFU_MAX_ANALYSES * OPMFU_MAX_TABLES];
	size_t n = opmfu_analyses_defs(defs, sizeof(defs) / sizeof(defs[0])), i, k;

	/* 1 + 1 + 1 (OpmfuOps) + 1 (OpmfuModules) + 1 (OpmfuModuleClasses) + 1 (OpmfuSteps) + 2 (OpmfuOpTypes,
	 * OpmfuKernels) + 1 (OpmfuShapes) + 1 (OpmfuCollectives) + 3 (the account's); OpmfuCollCalls is
	 * internal: never written */
	CHECK_INT(n, 13);
	CHECK(n >= 2);
	if (n >= 2) {
		CHECK_STR(defs[0]->name, "OperatorMFU");
		CHECK_STR(defs[1]->name, "ModuleMFU");
	}
	/* a cap smaller than the tables: only the first cap, in order */
	CHECK_INT(opmfu_analyses_defs(defs, 1), 1);
	CHECK_STR(defs[0]->name, "OperatorMFU");
	n = opmfu_analyses_defs(defs, sizeof(defs) / sizeof(defs[0]));
	for (i = 0; i < n; i++) {
		CHECK(defs[i]->name && defs[i]->n_cols > 0);
		for (k = 0; k < i; k++)
			if (!strcmp(defs[i]->name, defs[k]->name))
				fail("table made twice", defs[i]->name, NULL);
		/* the pool's own tables are made by no analysis */
		CHECK(strcmp(defs[i]->name, "OpmfuRankSummary") != 0);
		CHECK(strcmp(defs[i]->name, "OpmfuModel") != 0);
	}
}

/* Every made table has its CREATE TABLE, and its columns are the DDL's, in order (per-rank
 * and per-run alike). */
static void t_ddl(void)
{
	size_t i, k, c, checked = 0;
	CHECK(n_ddls >= 10);
	for (i = 0; i < n_ddls; i++)
		for (k = 0; k < i; k++)
			if (!strcmp(ddls[i].table, ddls[k].table))
				fail("two CREATE TABLE of", ddls[i].table, ddls[i].file);
	for (i = 0; opmfu_analyses[i]; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		for (k = 0; a->makes && a->makes[k]; k++) {
			const struct opmfu_table_def *def = a->makes[k];
			const struct ddl *d = ddl_of(def->name);
			if (def->flags & OPMFU_TABLE_INTERNAL) {
				/* never written, so no DDL; and none may exist for it */
				CHECK(!d);
				continue;
			}
			check_count++;
			if (!d) {
				fail("no CREATE TABLE in schema/out for", def->name, a->name);
				continue;
			}
			checked++;
			if (def->store)
				check_store(def->store);
			CHECK_INT(def->n_cols, d->n_cols);
			for (c = 0; c < def->n_cols && c < d->n_cols; c++) {
				check_count++;
				if (strcmp(def->cols[c].name, d->cols[c])) {
					check_failures++;
					fprintf(stderr, "%s (%s) column %zu: \"%s\", the DDL has \"%s\"\n", def->name,
						d->file, c, def->cols[c].name, d->cols[c]);
				}
			}
		}
	}
	/* per rank OperatorMFU, ModuleMFU, OpmfuOps, OpmfuModules, OpmfuModuleClasses, OpmfuSteps,
	 * OpmfuOpTypes, OpmfuKernels, OpmfuShapes; per run OpmfuCollectives, OpmfuRun, OpmfuHotspots,
	 * OpmfuStragglers */
	CHECK_INT(checked, 13);
}

/* The parser itself, on a DDL of known shape. */
static void t_parser(void)
{
	char text[] = "-- a \"quoted\" comment, (with parentheses\n"
		      "CREATE TABLE \"T\" (\n"
		      "    \"a\" INTEGER,      -- \"not_a_column\", either\n"
		      "    \"b(ns)\" NUMERIC(10, 2),\n"
		      "    \"c\" TEXT\n"
		      ");\n";
	size_t before = n_ddls;
	parse_ddl("inline", text);
	CHECK_INT(n_ddls, before + 1);
	if (n_ddls == before + 1) {
		CHECK_STR(ddls[before].table, "T");
		CHECK_INT(ddls[before].n_cols, 3);
		if (ddls[before].n_cols == 3) {
			CHECK_STR(ddls[before].cols[0], "a");
			CHECK_STR(ddls[before].cols[1], "b(ns)");
			CHECK_STR(ddls[before].cols[2], "c");
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: t_analyses SCHEMA_OUT_DIR\n");
		return 2;
	}
	t_parser();
	free_ddls();
	read_ddls(argv[1]);
	t_shape();
	t_needs();
	t_tables();
	t_ddl();
	free_ddls();
	return check_done();
}
