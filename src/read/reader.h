/*
 * reader.h - what an input format plugs in, and rank discovery over all of
 * them. A reader recognises its ranks on disk (probes) and reads one rank
 * into a struct opmfu_trace; readers.c lists them, discover.c walks the
 * user's paths and asks each (SPEC 1.1, 13).
 */
#ifndef OPMFU_READER_H
#define OPMFU_READER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "trace/trace.h"

struct opmfu_reader;

/* One rank found on disk. The strings are malloc'd (base/mem) and owned by
 * the rank list once the rank is in it. */
struct opmfu_rank_input {
	const struct opmfu_reader *reader; /* the format that reads it */
	int rank;       /* -1 for a single-card rank */
	char *dir;      /* the rank's folder (Ascend: its rank directory, where the chip info is) */
	char *path;     /* the file the reader reads (Ascend: the database) */
	char *stamp;    /* its timestamp's digits, NULL without one: the newer of two equal ids wins */
	char *out_hint; /* where results go by default (set by discovery) */
	const char *name; /* dir or path, whichever messages call the rank by (not owned) */
	/*
	 * Which run the rank belongs to (SPEC 17: a result is one run). Ranks
	 * of one reader with equal run_key are one run; the probe sets it
	 * (NULL: the reader's name, one run per format). run_name is what the
	 * run's ID is made from ("kineto w8 Tesla V100-SXM2-32GB"; NULL: the
	 * key); run_id is that ID, set by opmfu_discover.
	 */
	char *run_key;
	char *run_name;
	char *run_id;
	/*
	 * The part of its file the rank is, for a format whose file may hold
	 * several ranks (nsys: part[0] the CUDA device, part[1] the process
	 * id, -1 unknown), and how many parts the file holds (0: the format
	 * has none, the rank is the whole file). Set by the probe.
	 */
	int64_t part[2];
	int n_parts;
};

struct opmfu_rank_list {
	struct opmfu_rank_input *v;
	size_t n, cap;
};

/* What a probe says of a directory or file. */
enum opmfu_probe {
	OPMFU_PROBE_NOMEM = -1, /* an allocation failed (nothing is kept) */
	OPMFU_PROBE_NO = 0,
	OPMFU_PROBE_MAYBE = 1,  /* only if no reader says YES: the fallback for a file the user named */
	OPMFU_PROBE_YES = 2
};

/*
 * Called on the reading thread as soon as t's links (and strings) are
 * complete, while another thread may still be reading the rest: work that
 * needs only the links can start there. The links are final; nothing in t
 * may be changed.
 */
typedef void (*opmfu_links_fn)(void *ctx, const struct opmfu_trace *t);

struct opmfu_read_opts {
	int threads;             /* threads the reader may use, the caller's included (at least 1) */
	opmfu_links_fn on_links; /* may be NULL; called at most once, unless reading failed before */
	void *ctx;               /* for on_links */
};

struct opmfu_reader {
	const char *name;      /* "ascend" */
	const char *looks_for; /* what a rank looks like, for "no rank found (looked for ...)" */
	/*
	 * Is dir one rank of this format? On YES fills in's rank, dir, path,
	 * stamp and name (reader and out_hint are discovery's). Then the walk
	 * does not descend into dir. May be NULL.
	 */
	enum opmfu_probe (*probe_dir)(const char *dir, struct opmfu_rank_input *in);
	/*
	 * Is the file at path one rank of this format? named: the user gave
	 * this path (else the walk met it in a directory). Fills in as
	 * probe_dir does, on YES or MAYBE. A file that holds several ranks
	 * (nsys: one per (device, process)) fills in with the first and
	 * appends the others, filled alike, to more; more NULL asks only
	 * whether the file is this format's (in's part is then not looked
	 * up). May be NULL.
	 */
	enum opmfu_probe (*probe_file)(const char *path, int named, struct opmfu_rank_input *in,
				       struct opmfu_rank_list *more);
	/*
	 * Fills t (initialised by the caller) from the rank, t->device
	 * included. Returns OPMFU_OK, or an error naming the file and what is
	 * at fault; on error t holds whatever was read and must still be
	 * released. The result is the same for every o->threads.
	 */
	enum opmfu_status (*read)(const struct opmfu_rank_input *in, struct opmfu_trace *t,
				  const struct opmfu_read_opts *o, struct opmfu_err *err);
	/*
	 * Is a file of this name (its last component) one this format may
	 * read? Only asked of what the walk does not offer to probe_file: a
	 * FIFO, socket or device so named is skipped with a warning. May be
	 * NULL.
	 */
	int (*input_name)(const char *base);
};

/* What a database the user named that no reader takes is told (Ascend's
 * and nsys's tables, SPEC 21). */
#define OPMFU_NEITHER_EXPORT                                                                                      \
	"neither an Ascend export (no STRING_IDS or TASK table) nor an Nsight Systems export (no StringIds table "  \
	"with CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME, NVTX_EVENTS or TARGET_INFO_GPU)"

/* Every reader, in the order they are asked, NULL-terminated (readers.c). */
const struct opmfu_reader *const *opmfu_readers(void);

/* How deep below a path the walk looks for ranks (SPEC 1.1). */
#define OPMFU_RANK_DEPTH 5

/* opmfu_discover's flags: follow symbolic links to directories outside the
 * path given (never into /proc or /sys). */
#define OPMFU_DISCOVER_FOLLOW_LINKS 1u

typedef void (*opmfu_warn_fn)(void *ctx, const char *msg);

/*
 * Finds ranks under path with readers (NULL-terminated; NULL for
 * opmfu_readers()): path is a file (the best probe_file answer), or a
 * directory walked to OPMFU_RANK_DEPTH levels below, in name order, where
 * a directory some probe_dir claims is one rank and every other file is
 * offered to probe_file. Appends to list, keeping for each rank id of a
 * run the one with the newest stamp and reporting the others through warn
 * (SPEC 1.1; ranks of two runs are never duplicates). Does not sort.
 * Returns OPMFU_ERR_IO when path cannot be read; finding nothing is not an
 * error here.
 *
 * Only regular files and directories are looked at (SPEC 26): path itself
 * anything else is OPMFU_ERR_IO ("PATH: not a regular file (a FIFO): opmfu
 * reads only regular files"); in the walk, such an entry named as some
 * reader's input is skipped with a warning naming it, others silently. A
 * symbolic link to a directory is followed only where it stays inside path
 * (real paths compared); the others are counted and reported in one
 * warning, as is any directory under /proc or /sys (never walked). A link
 * to a file, and path itself being a link, are followed.
 */
enum opmfu_status opmfu_find_ranks(const char *path, const struct opmfu_reader *const *readers,
				   struct opmfu_rank_list *list, opmfu_warn_fn warn, void *ctx,
				   struct opmfu_err *err);

/*
 * opmfu_find_ranks over every path; then each run gets its ID (run_id:
 * opmfu_run_slug of its run_name, made unique by a suffix -2, -3, ... in
 * run_key order) and the list is sorted by run ID, then rank id. A path
 * with no rank is OPMFU_ERR_NOINPUT: "PATH: no rank found (looked for
 * ...)", naming what each reader looks for. A rank id of one run found
 * under two paths is one rank: the same file (overlapping paths) is read
 * once, otherwise SPEC 1.1's newer timestamp wins, and on a tie the path given first; one
 * warning per pair of paths and outcome names the ids ("ranks 0-3 found
 * under both A and B: using those under B (newer timestamp), ignoring A").
 * flags: OPMFU_DISCOVER_*. Links not followed get one warning for all paths.
 */
enum opmfu_status opmfu_discover(const char *const *paths, size_t n_paths,
				 const struct opmfu_reader *const *readers, unsigned flags, struct opmfu_rank_list *list,
				 opmfu_warn_fn warn, void *ctx, struct opmfu_err *err);

/* Sorts by run (reader, then run_key), then rank id (duplicate ids were
 * already resolved). Returns 0, or -1 when out of memory (the list
 * unchanged). */
int opmfu_rank_list_sort(struct opmfu_rank_list *list);

/*
 * A run's ID from its name: lower case, letters, digits, '.', '_' and '-'
 * kept, every other run of bytes one '-', none at either end, at most
 * OPMFU_RUN_ID_MAX - 1 bytes ("kineto w8 Tesla V100-SXM2-32GB" ->
 * "kineto-w8-tesla-v100-sxm2-32gb"): short, and typeable after --run.
 * "run" when nothing is left. Returns the length written.
 */
#define OPMFU_RUN_ID_MAX 64
size_t opmfu_run_slug(const char *name, char *out, size_t size);

/*
 * Keeps the ranks of one run of a list opmfu_discover made. want: the run's
 * ID, or a prefix of exactly one run's ID (an exact ID wins over prefixes);
 * NULL when not given, which is fine only when the list holds one run.
 * Otherwise OPMFU_ERR_USAGE with the list unchanged and a message that
 * starts with what ("PATH", "the 2 paths given"): with several runs and no
 * want, one line per run (ID, format, ranks, the first rank's path) and
 * "use --run ID to pick one"; for an unknown or ambiguous want, the IDs.
 */
enum opmfu_status opmfu_rank_list_pick_run(struct opmfu_rank_list *list, const char *want, const char *what,
					   struct opmfu_err *err);

/* Keeps only the given ranks of a sorted list. A rank that is not in the list
 * is OPMFU_ERR_USAGE naming it (the list is then unchanged). */
enum opmfu_status opmfu_rank_list_select(struct opmfu_rank_list *list, const int *ranks, size_t n_ranks,
					 struct opmfu_err *err);
void opmfu_rank_list_release(struct opmfu_rank_list *list);

/* Frees in's strings (for probes that give up half-way). */
void opmfu_rank_input_release(struct opmfu_rank_input *in);

struct sbuf;
/* in's run_key and run_name from a probe's texts (reader.h's run), which it
 * takes; -1 when out of memory (then both are NULL). */
int opmfu_rank_set_run(struct opmfu_rank_input *in, struct sbuf *key, struct sbuf *name);

#endif
