/*
 * fuzz_input.h - what the targets that build their input from a description
 * share: a reader of the input's bytes (every byte past the end reads as 0)
 * and, for those that write files (define _GNU_SOURCE first, for nftw), a
 * scratch folder under $TMPDIR removed at exit.
 */
#ifndef OPMFU_FUZZ_INPUT_H
#define OPMFU_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct reader {
	const uint8_t *p;
	size_t n;
};

static inline unsigned byte(struct reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static inline uint64_t u64(struct reader *r)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | byte(r);
	return v;
}

#ifdef FTW_DEPTH
static char fuzz_dir[64];

static inline int fuzz_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void fuzz_cleanup(void)
{
	if (fuzz_dir[0])
		nftw(fuzz_dir, fuzz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The scratch folder, made on the first call. */
static inline const char *fuzz_scratch(void)
{
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/opmfu-fuzz-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
		FUZZ_ASSERT(mkdtemp(fuzz_dir) != NULL);
		atexit(fuzz_cleanup);
	}
	return fuzz_dir;
}
#endif

#endif
