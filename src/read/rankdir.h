/*
 * rankdir.h - finding ranks on disk (SPEC 1.1) and their chip info (SPEC 1.4).
 */
#ifndef OPMFU_RANKDIR_H
#define OPMFU_RANKDIR_H

#include <stddef.h>

#include "base/err.h"

struct opmfu_rank_input {
	int rank;       /* -1 for a single-card database */
	char *dir;      /* rank directory (holds ASCEND_PROFILER_OUTPUT), or the db's folder */
	char *db_path;
	char *out_hint; /* where results go by default for this input */
};

struct opmfu_rank_list {
	struct opmfu_rank_input *v;
	size_t n, cap;
};

typedef void (*opmfu_warn_fn)(void *ctx, const char *msg);

/*
 * Finds ranks under path: a cluster directory (rank directories up to 5
 * levels below), one rank directory, or one database file. Appends to list,
 * keeping for each rank id the directory with the newest timestamp and
 * reporting the others through warn. Does not sort. Returns OPMFU_ERR_IO when
 * path cannot be read; finding nothing is not an error here.
 */
enum opmfu_status opmfu_find_ranks(const char *path, struct opmfu_rank_list *list,
				   opmfu_warn_fn warn, void *ctx, struct opmfu_err *err);

/* Sorts by rank id (duplicate ids were already resolved by opmfu_find_ranks). */
void opmfu_rank_list_sort(struct opmfu_rank_list *list);

/* Keeps only the given ranks of a sorted list. A rank that is not in the list
 * is OPMFU_ERR_USAGE naming it (the list is then unchanged). */
enum opmfu_status opmfu_rank_list_select(struct opmfu_rank_list *list, const int *ranks, size_t n_ranks,
					 struct opmfu_err *err);
void opmfu_rank_list_release(struct opmfu_rank_list *list);

/* The rank number in a database file name (ascend_pytorch_profiler_3.db -> 3),
 * -1 without a number, -2 when the name does not match. */
int opmfu_db_name_rank(const char *name);

/*
 * Finds the chip info file (first info.json.N inside a device_N directory, up
 * to 10 levels below dir, in name order). On OPMFU_OK *path is a malloc'd
 * path, or NULL when there is none; OPMFU_ERR_NOMEM if the search ran out of
 * memory (then *path is NULL).
 */
enum opmfu_status opmfu_find_info_json(const char *dir, char **path, struct opmfu_err *err);

/* Peak FLOPS from info.json content (SPEC 1.4). */
struct opmfu_chip_info {
	long long ai_core_num;
	double aic_mhz;
	double peak_fp16, peak_int8; /* FLOPS */
};

/* Parses info.json text. On failure returns OPMFU_ERR_FORMAT with a message
 * naming the field at fault (the caller prefixes the file name). */
enum opmfu_status opmfu_parse_info_json(const char *text, size_t len, struct opmfu_chip_info *out,
					struct opmfu_err *err);

/* Reads and parses the file (at most 16 MiB). */
enum opmfu_status opmfu_read_info_json(const char *path, struct opmfu_chip_info *out,
				       struct opmfu_err *err);

#endif
