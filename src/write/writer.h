/*
 * writer.h - the writers of result tables (model/table.h), generic over
 * tables: each output format is one file implementing struct
 * opmfu_writer_type and one line in the registry (write/writer.c).
 *
 * A run opens each writer once with every table it may be given, then, per
 * rank, puts the rank's tables and ends the rank with keep_rank (its results
 * stay) or drop_rank (what the rank put is taken back: its analysis failed
 * after some of its tables were written). Every writer holds the run's
 * output back until commit, so all of it appears together: the database is
 * built in a staged file and put in place at commit, workbooks and the CSV
 * and JSON files are staged under temporary names (write/stage.h) and
 * renamed then. close without commit leaves the previous results as they
 * were, and leaves no temporary file. A busy database makes commit return
 * OPMFU_ERR_BUSY with its results kept beside it (write_sqlite.c).
 */
#ifndef OPMFU_WRITER_H
#define OPMFU_WRITER_H

#include <limits.h>
#include <stddef.h>

#include "base/err.h"
#include "trace/table.h"

/* What a writer did to one rank's data that its format could not hold as
 * it is (for warnings), and the files it put in place. */
struct opmfu_write_stats {
	size_t truncated; /* strings cut to the format's cell limit */
	size_t repaired;  /* strings whose invalid UTF-8 or NUL bytes became U+FFFD */
	size_t blanks;    /* NaN or infinite numbers written as empty cells */
	size_t nulled;    /* infinite numbers written as null (JSON has no spelling for them) */
	size_t prefixed;  /* CSV texts a spreadsheet would read as formulas, written with ' in front */
	unsigned files;   /* bit k: a file of defs[k] (as given to open) is in place */
};

struct opmfu_writer;

/* The pseudo rank of rows about the run as a whole (OpmfuModel's with
 * rank_id NULL): put after the last rank and kept like a rank's, so every
 * writer takes them as it takes a rank's. Such a table has no workbook. */
#define OPMFU_RUN_RANK INT_MIN

struct opmfu_writer_type {
	const char *name;  /* the --export word: "db", "xlsx", "csv", "json" */
	const char *where; /* its output under the output directory: a file, or a directory that exists */
	/* Opens the output at path for the tables defs[0 .. n_defs) (at most
	 * 32; the defs must outlive the writer). On error *w is NULL. */
	enum opmfu_status (*open)(struct opmfu_writer **w, const char *path, const struct opmfu_table_def *const *defs,
				  size_t n_defs, struct opmfu_err *err);
	/* Writes t, whose def is one of open's, for rank; at most once per
	 * table and rank. */
	enum opmfu_status (*put)(struct opmfu_writer *w, int rank, const struct opmfu_table *t, struct opmfu_err *err);
	/* The rank is done and its output stays; *st gets what its writing did. */
	enum opmfu_status (*keep_rank)(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
				       struct opmfu_err *err);
	/* Takes back what was put for rank since its last keep_rank. */
	enum opmfu_status (*drop_rank)(struct opmfu_writer *w, int rank, struct opmfu_err *err);
	/* Makes the run's output final. */
	enum opmfu_status (*commit)(struct opmfu_writer *w, struct opmfu_err *err);
	/* Undoes anything not committed (or kept) and frees. */
	void (*close)(struct opmfu_writer *w);
	/* Optional (NULL: none): appends every row of the tables defs[0 .. n) in
	 * the opmfu result database at path, each in its rowid order, as they
	 * are there: what opmfu merge does with the tables it does not need to
	 * write rank by rank, instead of putting them (lib/shard.c, SPEC 22). */
	enum opmfu_status (*copy)(struct opmfu_writer *w, const char *path, const struct opmfu_table_def *const *defs,
				  size_t n, struct opmfu_err *err);
};

/* Every writer's handle starts with this. */
struct opmfu_writer {
	const struct opmfu_writer_type *type;
	/* tables the run does not write though a run may (--summary-only's detail tables): at
	 * commit the database drops them and the text writers remove their files, so an earlier
	 * run's rows never stand beside this run's (the workbook writer leaves earlier
	 * workbooks, as it does for ranks a run does not analyse). Set after open; none: 0 */
	const struct opmfu_table_def *const *retired;
	size_t n_retired;
};

/* The registry, NULL-terminated. Entry i is the export bit 1 << i of
 * opmfu.h (OPMFU_EXPORT_DB, _XLSX, _CSV, _JSON, _HTML). */
extern const struct opmfu_writer_type *const opmfu_writer_types[];

/* The registry's writer of that --export word, or NULL. */
const struct opmfu_writer_type *opmfu_writer_type_find(const char *name);

static inline enum opmfu_status opmfu_writer_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t,
						 struct opmfu_err *err)
{
	return w->type->put(w, rank, t, err);
}

static inline enum opmfu_status opmfu_writer_keep_rank(struct opmfu_writer *w, int rank,
						       struct opmfu_write_stats *st, struct opmfu_err *err)
{
	return w->type->keep_rank(w, rank, st, err);
}

static inline enum opmfu_status opmfu_writer_drop_rank(struct opmfu_writer *w, int rank, struct opmfu_err *err)
{
	return w->type->drop_rank(w, rank, err);
}

static inline enum opmfu_status opmfu_writer_commit(struct opmfu_writer *w, struct opmfu_err *err)
{
	return w->type->commit(w, err);
}

/* NULL is a no-op */
static inline void opmfu_writer_close(struct opmfu_writer *w)
{
	if (w)
		w->type->close(w);
}

#endif
