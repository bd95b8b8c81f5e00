/*
 * json_stream.c - yajl behind opmfu's errors and allocator (json_stream.h).
 *
 * yajl does not check its allocations (its buffer and parse stack write
 * through whatever realloc returned), so a failure must not return to it:
 * the allocator jumps back to the call into yajl (setjmp in the guarded_*
 * functions, which keep nothing in locals across it) and every block yajl
 * held, all on one list, is freed. No callback of ours allocates through it.
 */
#include "read/json_stream.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* The header of a block handed to yajl. */
union block {
	struct {
		union block *prev, *next;
	} l;
	max_align_t align;
};

static void block_link(struct opmfu_json *j, union block *b)
{
	b->l.prev = NULL;
	b->l.next = j->blocks;
	if (b->l.next)
		b->l.next->l.prev = b;
	j->blocks = b;
}

static void block_unlink(struct opmfu_json *j, union block *b)
{
	if (b->l.prev)
		b->l.prev->l.next = b->l.next;
	else
		j->blocks = b->l.next;
	if (b->l.next)
		b->l.next->l.prev = b->l.prev;
}

static void *yajl_malloc_cb(void *ctx, size_t sz)
{
	struct opmfu_json *j = ctx;
	union block *b = sz <= SIZE_MAX - sizeof(*b) ? opmfu_malloc(sizeof(*b) + sz) : NULL;
	if (!b)
		longjmp(j->oom, 1);
	block_link(j, b);
	return b + 1;
}

static void *yajl_realloc_cb(void *ctx, void *p, size_t sz)
{
	struct opmfu_json *j = ctx;
	union block *b, *nb;
	if (!p)
		return yajl_malloc_cb(ctx, sz);
	b = (union block *)p - 1;
	block_unlink(j, b);
	nb = sz <= SIZE_MAX - sizeof(*b) ? opmfu_realloc(b, sizeof(*b) + sz) : NULL;
	if (!nb) {
		block_link(j, b);
		longjmp(j->oom, 1);
	}
	block_link(j, nb);
	return nb + 1;
}

static void yajl_free_cb(void *ctx, void *p)
{
	union block *b;
	if (!p)
		return;
	b = (union block *)p - 1;
	block_unlink(ctx, b);
	opmfu_free(b);
}

static void free_blocks(struct opmfu_json *j)
{
	while (j->blocks) {
		union block *b = j->blocks;
		j->blocks = b->l.next;
		opmfu_free(b);
	}
	j->h = NULL;
}

static enum opmfu_status fail(struct opmfu_json *j, enum opmfu_status st, struct opmfu_err *err)
{
	j->st = st;
	return opmfu_err_set(err, st, "%s", j->why.msg);
}

/* After yajl ran out of memory: its handle is gone. */
static enum opmfu_status out_of_memory(struct opmfu_json *j, struct opmfu_err *err)
{
	free_blocks(j);
	opmfu_err_set(&j->why, OPMFU_ERR_NOMEM, "out of memory parsing JSON");
	return fail(j, OPMFU_ERR_NOMEM, err);
}

static int guarded_alloc(struct opmfu_json *j, const yajl_callbacks *cb, yajl_alloc_funcs *af, void *ctx)
{
	if (setjmp(j->oom))
		return -1;
	j->h = yajl_alloc(cb, af, ctx);
	yajl_config(j->h, yajl_dont_validate_strings, 1);
	return 0;
}

static int guarded_parse(struct opmfu_json *j, const unsigned char *p, size_t n, yajl_status *ys)
{
	if (setjmp(j->oom))
		return -1;
	*ys = n ? yajl_parse(j->h, p, n) : yajl_complete_parse(j->h);
	return 0;
}

static int guarded_error(struct opmfu_json *j, char *out, size_t size)
{
	unsigned char *s;
	if (setjmp(j->oom))
		return -1;
	s = yajl_get_error(j->h, 0, NULL, 0);
	snprintf(out, size, "%s", s ? (const char *)s : "");
	yajl_free_error(j->h, s);
	return 0;
}

/* yajl's errors in the words (and mostly the byte offsets) of the parser it
 * replaced. at: where the fault is from the byte after the last one yajl
 * took: -1 the token it just took, 0 that byte (inside a string or number),
 * AT_END the end of the input. */
#define AT_END 2
static const struct {
	const char *yajl, *ours;
	int at;
} errors[] = {
	{ "invalid char in json text", "unexpected character", -1 },
	{ "invalid string in json text", "unexpected character", -1 },
	{ "comments are not enabled", "unexpected character", 0 },
	{ "unallowed token", "unexpected character", -1 },
	{ "invalid object key", "expected object key", -1 },
	{ "separated by a colon", "expected ':'", -1 },
	{ "inside map, I expect", "expected ',' or '}'", 0 }, /* yajl steps back over the token */
	{ "after array element", "expected ',' or ']'", -1 },
	{ "trailing garbage", "trailing characters after the value", -1 },
	{ "premature EOF", "unexpected end of input", AT_END },
	{ "malformed number", "bad number", 0 },
	{ "invalid character inside string", "control character in string", 0 },
	{ "non-hex", "bad \\u escape", 0 },
	{ "occurs before a character", "bad escape", 0 },
};

/* The byte at offset at - 1 when still at hand (in p[0..n), the chunk at
 * j->chunk_at, or the tail of the chunks before it), else -1. */
static int byte_before(const struct opmfu_json *j, const unsigned char *p, size_t n, size_t at)
{
	if (at > j->chunk_at && at - j->chunk_at <= n)
		return p[at - j->chunk_at - 1];
	if (at <= j->chunk_at && at > 0 && j->chunk_at - at < j->n_tail)
		return j->tail[j->n_tail - 1 - (j->chunk_at - at)];
	return -1;
}

/* p[0..n): the chunk yajl was given */
static enum opmfu_status syntax_error(struct opmfu_json *j, const unsigned char *p, size_t n, struct opmfu_err *err)
{
	char text[256];
	const char *what = text;
	size_t i, at = j->chunk_at + yajl_get_bytes_consumed(j->h);
	int k;

	if (guarded_error(j, text, sizeof(text)))
		return out_of_memory(j, err);
	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (strstr(text, errors[i].yajl))
			break;
	if (i < sizeof(errors) / sizeof(errors[0])) {
		what = errors[i].ours;
		if (errors[i].at == AT_END)
			at = j->fed;
		else if (errors[i].at < 0 && at > 0)
			at--;
		/* a misspelt true, false or null: where the word starts */
		while (i == 1 && byte_before(j, p, n, at) >= 'a' && byte_before(j, p, n, at) <= 'z')
			at--;
	} else {
		/* "parse error: ...\n": yajl's own words */
		char *colon = strstr(text, ": ");
		for (k = (int)strlen(text); k > 0 && (text[k - 1] == '\n' || text[k - 1] == '.'); k--)
			text[k - 1] = '\0';
		if (colon)
			what = colon + 2;
	}
	opmfu_err_set(&j->why, OPMFU_ERR_FORMAT, "invalid JSON at byte %zu: %s", at, what);
	return fail(j, OPMFU_ERR_FORMAT, err);
}

/* Keeps the last bytes of p[0..n) after those kept before. */
static void keep_tail(struct opmfu_json *j, const unsigned char *p, size_t n)
{
	size_t keep = n < sizeof(j->tail) ? n : sizeof(j->tail);
	size_t old = j->n_tail + keep > sizeof(j->tail) ? sizeof(j->tail) - keep : j->n_tail;
	memmove(j->tail, j->tail + j->n_tail - old, old);
	memcpy(j->tail + old, p + n - keep, keep);
	j->n_tail = old + keep;
}

/* Gives yajl p[0..n) found at offset at of the input (n == 0: the end). */
static enum opmfu_status parse(struct opmfu_json *j, const unsigned char *p, size_t n, size_t at,
			       struct opmfu_err *err)
{
	yajl_status ys;
	j->chunk_at = at;
	if (guarded_parse(j, p, n, &ys))
		return out_of_memory(j, err);
	if (ys == yajl_status_ok) {
		if (n)
			keep_tail(j, p, n);
		return OPMFU_OK;
	}
	if (ys == yajl_status_client_canceled)
		return fail(j, j->st ? j->st : OPMFU_ERR_FORMAT, err);
	return syntax_error(j, p, n, err);
}

enum opmfu_status opmfu_json_init(struct opmfu_json *j, const yajl_callbacks *cb, void *ctx,
				  struct opmfu_err *err)
{
	yajl_alloc_funcs af = { yajl_malloc_cb, yajl_realloc_cb, yajl_free_cb, NULL };

	memset(j, 0, sizeof(*j));
	af.ctx = j;
	if (guarded_alloc(j, cb, &af, ctx))
		return out_of_memory(j, err);
	return OPMFU_OK;
}

static const unsigned char bom[3] = { 0xEF, 0xBB, 0xBF };

/* ---- tokens split over chunks ---- */

/* The scanner's states: between tokens, in a string, in a string after a
 * backslash, in a number or literal. */
enum { LX_OUT, LX_STR, LX_ESC, LX_BARE };

/* A byte that ends a number or literal (and is no part of it). */
static int is_delim(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '[' || c == ']' ||
	       c == '{' || c == '}' || c == '"';
}

/* Runs the scanner over p[i..n) and returns where it stopped: just past the
 * first token to end when stop_at_end (n: none ended), else n. *open is the
 * start of the token open at the stop (when j->lx is not LX_OUT). */
static size_t scan(struct opmfu_json *j, const unsigned char *p, size_t i, size_t n, int stop_at_end, size_t *open)
{
	int lx = j->lx;
	for (; i < n; i++) {
		unsigned char c = p[i];
		switch (lx) {
		case LX_OUT:
			if (c == '"') {
				lx = LX_STR;
				*open = i;
			} else if (!is_delim(c)) {
				lx = LX_BARE;
				*open = i;
			}
			break;
		case LX_STR: {
			/* the string's body at memchr speed; a raw line feed
			 * ends it here as it does in yajl (an error), so that
			 * no token, held or not, runs over one (feed_tokens) */
			const unsigned char *q = p + i;
			while (q < p + n && *q != '"' && *q != '\\' && *q != '\n')
				q++;
			i = (size_t)(q - p);
			if (i == n)
				break;
			if (*q == '\\') {
				lx = LX_ESC;
				break;
			}
			lx = LX_OUT;
			if (stop_at_end) {
				j->lx = lx;
				return i + 1;
			}
			break;
		}
		case LX_ESC:
			lx = c == '\n' ? LX_OUT : LX_STR; /* a line feed ends it (above) */
			if (lx == LX_OUT && stop_at_end) {
				j->lx = lx;
				return i + 1;
			}
			break;
		default: /* LX_BARE */
			if (is_delim(c)) {
				lx = LX_OUT;
				if (stop_at_end) {
					j->lx = lx;
					return i;
				}
				i--; /* the delimiter may open a string */
			}
			break;
		}
	}
	j->lx = lx;
	return n;
}

static enum opmfu_status too_long(struct opmfu_json *j, struct opmfu_err *err)
{
	opmfu_err_set(&j->why, OPMFU_ERR_FORMAT, "JSON token longer than %zu bytes at byte %zu", OPMFU_JSON_TOKEN_MAX,
		      j->pend_at);
	return fail(j, OPMFU_ERR_FORMAT, err);
}

/* Appends p[0..n) to the held token. */
static enum opmfu_status hold(struct opmfu_json *j, const unsigned char *p, size_t n, struct opmfu_err *err)
{
	if (n > OPMFU_JSON_TOKEN_MAX - j->n_pend)
		return too_long(j, err);
	if (opmfu_grow((void **)&j->pend, &j->cap_pend, j->n_pend + n, 1)) {
		opmfu_err_set(&j->why, OPMFU_ERR_NOMEM, "out of memory parsing JSON");
		return fail(j, OPMFU_ERR_NOMEM, err);
	}
	memcpy(j->pend + j->n_pend, p, n);
	j->n_pend += n;
	return OPMFU_OK;
}

/* The held token to yajl. */
static enum opmfu_status flush_pend(struct opmfu_json *j, struct opmfu_err *err)
{
	size_t n = j->n_pend;
	if (!n)
		return OPMFU_OK;
	j->n_pend = 0;
	return parse(j, j->pend, n, j->pend_at, err);
}

/* p[0..n), at offset at, to yajl, tokens whole. */
static enum opmfu_status feed_tokens(struct opmfu_json *j, const unsigned char *p, size_t n, size_t at,
				     struct opmfu_err *err)
{
	enum opmfu_status st;
	size_t i = 0, k, open = 0;

	if (j->n_pend) {
		/* the held token goes on into this chunk */
		i = scan(j, p, 0, n, 1, &open);
		if ((st = hold(j, p, i, err)))
			return st;
		if (j->lx != LX_OUT)
			return OPMFU_OK;
		if ((st = flush_pend(j, err)))
			return st;
		if (i == n)
			return OPMFU_OK;
	}
	/* A raw line feed is never inside a token of valid JSON (no string may
	 * hold one; it ends a number or literal), and yajl stops at one that
	 * is: the text up to the last one is whole tokens, given to yajl
	 * unscanned. Only the last line is scanned (a minified text is one). */
	for (k = n; k > i && p[k - 1] != '\n'; k--)
		;
	if (k > i) {
		if ((st = parse(j, p + i, k - i, at + i, err)))
			return st;
		i = k;
		if (i == n)
			return OPMFU_OK;
	}
	scan(j, p, i, n, 0, &open);
	if (j->lx == LX_OUT)
		return parse(j, p + i, n - i, at + i, err);
	/* a token open at the end: the bytes before it now, it later */
	if (open > i && (st = parse(j, p + i, open - i, at + i, err)))
		return st;
	j->pend_at = at + open;
	return hold(j, p + open, n - open, err);
}

enum opmfu_status opmfu_json_feed(struct opmfu_json *j, const void *buf, size_t n, struct opmfu_err *err)
{
	const unsigned char *p = buf;
	enum opmfu_status st;
	size_t at;

	if (j->st)
		return fail(j, j->st, err);
	if (j->bom >= 0) {
		/* a byte order mark may come split over chunks */
		while (n > 0 && j->bom < 3 && *p == bom[j->bom]) {
			j->bom++;
			j->fed++;
			p++;
			n--;
		}
		if (j->bom < 3 && n == 0)
			return OPMFU_OK;
		if (j->bom < 3 && j->bom > 0 && (st = parse(j, bom, (size_t)j->bom, 0, err)))
			return st;
		j->bom = -1;
	}
	/* Only a token a feed ends inside is measured (the scan of the rest
	 * stays at memchr speed); slices no longer than the cap make every
	 * longer token end a slice, whatever the caller's chunk size. The
	 * readers' feeds (256 KiB at most) are one slice; only the fuzz build's
	 * 64 KiB cap (json_stream.h) cuts them. */
	while (n > 0) {
		size_t k = n < OPMFU_JSON_TOKEN_MAX ? n : OPMFU_JSON_TOKEN_MAX;
		at = j->fed;
		j->fed += k;
		if ((st = feed_tokens(j, p, k, at, err)))
			return st;
		p += k;
		n -= k;
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_json_finish(struct opmfu_json *j, struct opmfu_err *err)
{
	enum opmfu_status st;
	if (j->st)
		return fail(j, j->st, err);
	if (j->bom > 0 && j->bom < 3 && (st = parse(j, bom, (size_t)j->bom, 0, err)))
		return st;
	j->bom = -1;
	if ((st = flush_pend(j, err)))
		return st;
	return parse(j, NULL, 0, j->fed, err);
}

void opmfu_json_release(struct opmfu_json *j)
{
	/* after a failed allocation j->h is NULL: only the blocks are left */
	if (j->h)
		yajl_free(j->h);
	free_blocks(j);
	opmfu_free(j->pend);
	j->pend = NULL;
	j->n_pend = j->cap_pend = 0;
}

enum opmfu_status opmfu_json_feed_file(struct opmfu_json *j, enum opmfu_status st, FILE *f, size_t max,
				       const char *what, struct opmfu_err *err)
{
	struct opmfu_err perr = OPMFU_ERR_INIT;
	char buf[8192];
	size_t n, total = 0;

	if (st)
		snprintf(perr.msg, sizeof(perr.msg), "%s", err->msg);
	while (total < max) {
		size_t want = max - total < sizeof(buf) ? max - total : sizeof(buf);
		if ((n = fread(buf, 1, want, f)) == 0)
			break;
		total += n;
		if (!st)
			st = opmfu_json_feed(j, buf, n, &perr);
	}
	if (ferror(f))
		return opmfu_err_set(err, OPMFU_ERR_IO, "read error");
	if (total >= max)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "larger than %zu MiB, not %s", max >> 20, what);
	if (!st)
		st = opmfu_json_finish(j, &perr);
	return st ? opmfu_err_set(err, st, "%s", perr.msg) : OPMFU_OK;
}

int opmfu_json_stop(struct opmfu_json *j, enum opmfu_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->why.msg, sizeof(j->why.msg), fmt, ap);
	va_end(ap);
	j->st = status;
	return 0;
}

size_t opmfu_json_offset(const struct opmfu_json *j)
{
	return j->chunk_at + yajl_get_bytes_consumed(j->h);
}

/* ---- the picker ---- */

/* Values whose path matches the member or element about to start. */
static unsigned member_mask(struct opmfu_json_pick *p)
{
	size_t d = p->depth, k;
	unsigned m = 0;

	if (d == 0)
		return (1u << p->n) - 1;
	if (d > OPMFU_JSON_PATH_MAX)
		return 0;
	if (p->open[d - 1].is_object)
		return p->open[d - 1].next;
	for (k = 0; k < p->n; k++)
		if ((p->open[d - 1].live >> k & 1) && !p->steps[k][d - 1].key &&
		    p->steps[k][d - 1].index == p->open[d - 1].index)
			m |= 1u << k;
	p->open[d - 1].index++;
	return m;
}

/* A value starts: records the values it is, and returns those it leads to. */
static int value_start(struct opmfu_json_pick *p, enum opmfu_json_type type, const char *text, size_t len,
		       int truth, unsigned *leads)
{
	unsigned m;
	size_t k;

	if (p->depth > OPMFU_JSON_MAX_DEPTH) {
		size_t at = opmfu_json_offset(&p->json);
		return opmfu_json_stop(&p->json, OPMFU_ERR_FORMAT, "invalid JSON at byte %zu: nesting too deep",
				       at ? at - 1 : 0);
	}
	m = member_mask(p);
	*leads = 0;
	for (k = 0; k < p->n; k++) {
		struct opmfu_json_value *v = &p->v[k];
		if (!(m >> k & 1))
			continue;
		if (p->n_steps[k] > p->depth) {
			*leads |= 1u << k;
			continue;
		}
		v->type = type;
		v->len = len;
		v->truth = truth;
		if (text) {
			size_t c = len < sizeof(v->text) ? len : sizeof(v->text) - 1;
			memcpy(v->text, text, c);
			v->text[c] = '\0';
		}
	}
	return 1;
}

static int scalar(void *ctx, enum opmfu_json_type type, const char *text, size_t len, int truth)
{
	unsigned leads;
	return value_start(ctx, type, text, len, truth, &leads);
}

static int pick_null(void *ctx)
{
	return scalar(ctx, OPMFU_JSON_NULL, NULL, 0, 0);
}

static int pick_bool(void *ctx, int b)
{
	return scalar(ctx, OPMFU_JSON_BOOL, NULL, 0, b != 0);
}

static int pick_number(void *ctx, const char *s, size_t len)
{
	return scalar(ctx, OPMFU_JSON_NUMBER, s, len, 0);
}

static int pick_string(void *ctx, const unsigned char *s, size_t len)
{
	return scalar(ctx, OPMFU_JSON_STRING, (const char *)s, len, 0);
}

static int open_container(void *ctx, int is_object)
{
	struct opmfu_json_pick *p = ctx;
	unsigned leads = 0; /* set by value_start but where it stops the parse */
	if (!value_start(p, is_object ? OPMFU_JSON_OBJECT : OPMFU_JSON_ARRAY, NULL, 0, 0, &leads))
		return 0;
	if (p->depth < OPMFU_JSON_PATH_MAX) {
		p->open[p->depth].live = leads;
		p->open[p->depth].next = 0;
		p->open[p->depth].index = 0;
		p->open[p->depth].is_object = is_object;
	}
	p->depth++;
	return 1;
}

static int pick_start_map(void *ctx)
{
	return open_container(ctx, 1);
}

static int pick_start_array(void *ctx)
{
	return open_container(ctx, 0);
}

static int pick_end(void *ctx)
{
	((struct opmfu_json_pick *)ctx)->depth--;
	return 1;
}

static int pick_key(void *ctx, const unsigned char *key, size_t len)
{
	struct opmfu_json_pick *p = ctx;
	size_t d = p->depth, k;
	unsigned m = 0;

	if (d > OPMFU_JSON_MAX_DEPTH) {
		size_t at = opmfu_json_offset(&p->json);
		return opmfu_json_stop(&p->json, OPMFU_ERR_FORMAT, "invalid JSON at byte %zu: nesting too deep",
				       at ? at - 1 : 0);
	}
	if (d > OPMFU_JSON_PATH_MAX)
		return 1;
	for (k = 0; k < p->n; k++) {
		const struct opmfu_json_step *s = &p->steps[k][d - 1];
		if ((p->open[d - 1].live >> k & 1) && s->key && s->len == len && !memcmp(s->key, key, len) &&
		    !(p->seen[k] >> (d - 1) & 1)) {
			m |= 1u << k;
			p->seen[k] |= 1u << (d - 1);
		}
	}
	p->open[d - 1].next = m;
	return 1;
}

static const yajl_callbacks pick_callbacks = {
	pick_null, pick_bool, NULL, NULL, pick_number, pick_string,
	pick_start_map, pick_key, pick_end, pick_start_array, pick_end
};

/* "DeviceInfo[0].ai_core_num" -> key, index, key. -1 if malformed or too long. */
static int split_path(const char *path, struct opmfu_json_step *steps, unsigned *n)
{
	const char *s = path;
	*n = 0;
	while (*s) {
		struct opmfu_json_step st = { NULL, 0, 0 };
		if (*s == '[') {
			char *end;
			unsigned long long i = strtoull(s + 1, &end, 10);
			if (end == s + 1 || *end != ']')
				return -1;
			st.index = (size_t)i;
			s = end + 1;
		} else {
			if (*s == '.' && s != path)
				s++;
			st.key = s;
			while (*s && *s != '.' && *s != '[')
				s++;
			st.len = (size_t)(s - st.key);
		}
		if (*n >= OPMFU_JSON_PATH_MAX)
			return -1;
		steps[(*n)++] = st;
	}
	return 0;
}

enum opmfu_status opmfu_json_pick_init(struct opmfu_json_pick *p, struct opmfu_json_value *v, size_t n,
				       struct opmfu_err *err)
{
	size_t k;

	memset(p, 0, sizeof(*p));
	if (n > OPMFU_JSON_PICK_MAX)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%zu JSON values to pick: at most %d", n,
				     OPMFU_JSON_PICK_MAX);
	for (k = 0; k < n; k++) {
		if (split_path(v[k].path, p->steps[k], &p->n_steps[k]))
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "'%s': not a JSON path of at most %d steps",
					     v[k].path, OPMFU_JSON_PATH_MAX);
		v[k].type = OPMFU_JSON_ABSENT;
		v[k].len = 0;
		v[k].text[0] = '\0';
		v[k].truth = 0;
	}
	p->v = v;
	p->n = n;
	return opmfu_json_init(&p->json, &pick_callbacks, p, err);
}

enum opmfu_status opmfu_json_pick_text(const char *text, size_t len, struct opmfu_json_value *v, size_t n,
				       struct opmfu_err *err)
{
	struct opmfu_json_pick p;
	enum opmfu_status st = opmfu_json_pick_init(&p, v, n, err);

	if (st)
		return st;
	if (!(st = opmfu_json_feed(&p.json, text, len, err)))
		st = opmfu_json_finish(&p.json, err);
	opmfu_json_release(&p.json);
	return st;
}
