/*
 * json_stream.h - JSON through yajl, the one JSON library of read/, and
 * an own parser for the subset that Kineto traces are written in, which
 * hands over to yajl at the first token it does not take
 * (docs/architecture.md): a parser fed in chunks, which holds no more than
 * one token plus what its callbacks keep (files of any size, from zlib or a
 * plain read), and on it a picker that takes a few values by path from a
 * small document (info.json). yajl's allocations go through base/mem.
 */
#ifndef OPMFU_JSON_STREAM_H
#define OPMFU_JSON_STREAM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <yajl/yajl_parse.h>

#include "base/err.h"

/* Nesting json_stream.c's own parser follows; deeper, yajl reads on. */
#define OPMFU_JSON_FAST_DEPTH 64

/*
 * A yajl parser. Malformed input is OPMFU_ERR_FORMAT, "invalid JSON at
 * byte N: what" with N counted from the first byte fed; a UTF-8 byte order
 * mark is skipped; strings are not checked for valid UTF-8. The struct must
 * not move between init and release.
 */
struct opmfu_json {
	/* The document is read by json_stream.c's own parser (fast: 1) while
	 * it stays in a subset it knows is yajl's (plain whitespace, strings
	 * with simple escapes, numbers and literals followed by whitespace,
	 * ',', ']' or '}', nesting up to OPMFU_JSON_FAST_DEPTH). At anything
	 * else, valid or not, yajl is put in the same state and reads on from
	 * that token (fast: 0), so errors, their offsets and the callbacks are
	 * yajl's. Setting fast to 0 right after init reads with yajl alone. */
	int fast;
	int fstate;            /* the innermost container's state (json_stream.c) */
	size_t depth;          /* containers open */
	unsigned char stack[OPMFU_JSON_FAST_DEPTH]; /* each one's kind, '{' or '[' */
	size_t tok_end;        /* offset after the token being called back for */
	unsigned char *dec;    /* a string with escapes, decoded */
	size_t cap_dec;
	const yajl_callbacks *cb; /* the caller's callbacks and their ctx */
	void *ctx;
	int muted;             /* yajl reads the prefix that sets its state */
	yajl_handle h;
	void *blocks;         /* every block yajl holds (json_stream.c) */
	jmp_buf oom;          /* where an allocation failing inside yajl returns */
	size_t fed;           /* bytes fed so far, a byte order mark included */
	size_t chunk_at;      /* offset of the chunk yajl is parsing */
	unsigned char tail[8]; /* the last bytes before it, for messages */
	size_t n_tail;
	int bom;              /* bytes of a byte order mark matched; -1 once past it */
	enum opmfu_status st; /* the first failure: every later call returns it */
	struct opmfu_err why; /* and its message */
	/* A token (string, number, literal) that a chunk ended inside is held
	 * here until it ends and then given to yajl whole: yajl re-reads its
	 * buffered part of a split token on every chunk, quadratic in the
	 * token's length. lx is the scanner's state (json_stream.c). */
	unsigned char *pend;
	size_t n_pend, cap_pend, pend_at;
	int lx;
};

/* The longest token (a string with its quotes, a number) taken: 64 MiB.
 * A longer one is OPMFU_ERR_FORMAT "JSON token longer than 67108864 bytes
 * at byte N", N where it starts, however the input is cut into feeds.
 * The fuzz build (-Dfuzzers=true, meson.build) alone defines it as 64 KiB,
 * so that libFuzzer reaches it within -max_len=1048576 (docs/testing.md);
 * opmfu as built there is for fuzzing only. */
#ifndef OPMFU_JSON_TOKEN_MAX
#define OPMFU_JSON_TOKEN_MAX ((size_t)64 << 20)
#endif

/* Callbacks (yajl's, with ctx) see the values in document order; a callback
 * that returns 0 must have called opmfu_json_stop. Numbers come through
 * yajl_number only, as their text (yajl_integer and yajl_double are not
 * called). cb must outlive j. */
enum opmfu_status opmfu_json_init(struct opmfu_json *j, const yajl_callbacks *cb, void *ctx,
				  struct opmfu_err *err);
/* Parses n more bytes. */
enum opmfu_status opmfu_json_feed(struct opmfu_json *j, const void *buf, size_t n, struct opmfu_err *err);
/* The document ended: anything left open is an error. */
enum opmfu_status opmfu_json_finish(struct opmfu_json *j, struct opmfu_err *err);
void opmfu_json_release(struct opmfu_json *j);

/*
 * Feeds j the rest of file f, at most max bytes, and finishes it; st is the
 * status so far (of opmfu_json_init: j is fed only while it is OK). The
 * whole file is read even after a JSON fault, so that a read error, then
 * the size, win over the content as when it was read in one go. Faults:
 * OPMFU_ERR_IO "read error", OPMFU_ERR_FORMAT "larger than N MiB, not
 * WHAT", st, or the parse's own; the caller names the file.
 */
enum opmfu_status opmfu_json_feed_file(struct opmfu_json *j, enum opmfu_status st, FILE *f, size_t max,
				       const char *what, struct opmfu_err *err);

/* For a callback: stops the parse with status and a message; returns 0,
 * what the callback then returns to yajl. */
int opmfu_json_stop(struct opmfu_json *j, enum opmfu_status status, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* For a callback: the byte just after the token it was called for. */
size_t opmfu_json_offset(const struct opmfu_json *j);

/* Nesting deeper than this is malformed (the picker's rule). */
#define OPMFU_JSON_MAX_DEPTH 128

enum opmfu_json_type {
	OPMFU_JSON_ABSENT = 0, OPMFU_JSON_NULL, OPMFU_JSON_BOOL, OPMFU_JSON_NUMBER, OPMFU_JSON_STRING,
	OPMFU_JSON_OBJECT, OPMFU_JSON_ARRAY
};

/* One value to pick. A path is object keys and array indexes from the root,
 * "DeviceInfo[0].ai_core_num" (keys holding '.' or '[' cannot be named).
 * Of a key given twice, the first counts. */
struct opmfu_json_value {
	const char *path;          /* in */
	enum opmfu_json_type type; /* out: OPMFU_JSON_ABSENT when the document has none */
	size_t len;                /* out: the length of a number's text or a string */
	char text[64];             /* out: its first bytes (at most 63), NUL-terminated */
	int truth;                 /* out: a boolean's value */
};

#define OPMFU_JSON_PICK_MAX 16 /* values */
#define OPMFU_JSON_PATH_MAX 8  /* steps in a path */

struct opmfu_json_step {
	const char *key; /* NULL for an index */
	size_t len;
	size_t index;
};

/* Picks values while json is fed; v is filled as the values go by. */
struct opmfu_json_pick {
	struct opmfu_json json;
	struct opmfu_json_value *v;
	size_t n;
	struct opmfu_json_step steps[OPMFU_JSON_PICK_MAX][OPMFU_JSON_PATH_MAX];
	unsigned n_steps[OPMFU_JSON_PICK_MAX];
	unsigned seen[OPMFU_JSON_PICK_MAX]; /* bit d: step d was met (later equal keys do not count) */
	struct {
		unsigned live;  /* values whose path leads into this container */
		unsigned next;  /* values the next member matches (objects: set by its key) */
		size_t index;   /* arrays: the next element's index */
		int is_object;
	} open[OPMFU_JSON_PATH_MAX];
	size_t depth; /* containers open */
};

/* Starts picking n values (at most OPMFU_JSON_PICK_MAX, else OPMFU_ERR_USAGE);
 * then feed p->json and finish it, and release it. */
enum opmfu_status opmfu_json_pick_init(struct opmfu_json_pick *p, struct opmfu_json_value *v, size_t n,
				       struct opmfu_err *err);
/* The same over text[0..len) at once. */
enum opmfu_status opmfu_json_pick_text(const char *text, size_t len, struct opmfu_json_value *v, size_t n,
				       struct opmfu_err *err);

#endif
