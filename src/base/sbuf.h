/*
 * sbuf.h - a growable NUL-terminated byte buffer.
 * Invariant: buf is never NULL after sbuf_init; len excludes the NUL.
 */
#ifndef OPMFU_SBUF_H
#define OPMFU_SBUF_H

#include <stddef.h>
#include <stdint.h>

struct sbuf {
	char *buf;
	size_t len, cap;
	int oom; /* set once an append failed; later appends are ignored */
};

void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
void sbuf_reset(struct sbuf *sb);
void sbuf_add(struct sbuf *sb, const char *s, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
/* v in decimal ("-12"), as "%" PRId64 prints it, without printf's cost per call. */
void sbuf_add_i64(struct sbuf *sb, int64_t v);
/* Gives the caller the buffer (malloc'd, free with opmfu_free) and leaves sb
 * empty. NULL if an append had failed. */
char *sbuf_detach(struct sbuf *sb);

/* A duration for people: "950 ns", "12.50 us", "3.20 ms", "1.25 s"; "-" when
 * negative or NaN (the report's and the library's messages alike). */
void opmfu_ns_text(double ns, char *out, size_t size);

/* "a/b" (one '/' between them), malloc'd; NULL when out of memory. */
char *opmfu_path_join(const char *a, const char *b);

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

#endif
