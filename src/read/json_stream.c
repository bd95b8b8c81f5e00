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

/* ---- yajl's callbacks: the caller's, except while yajl reads the prefix
 * that puts it in the own parser's state (to_yajl) ---- */

static int y_null(void *c)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_null || j->cb->yajl_null(j->ctx);
}

static int y_bool(void *c, int b)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_boolean || j->cb->yajl_boolean(j->ctx, b);
}

static int y_number(void *c, const char *s, size_t n)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_number || j->cb->yajl_number(j->ctx, s, n);
}

static int y_string(void *c, const unsigned char *s, size_t n)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_string || j->cb->yajl_string(j->ctx, s, n);
}

static int y_start_map(void *c)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_start_map || j->cb->yajl_start_map(j->ctx);
}

static int y_map_key(void *c, const unsigned char *s, size_t n)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_map_key || j->cb->yajl_map_key(j->ctx, s, n);
}

static int y_end_map(void *c)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_end_map || j->cb->yajl_end_map(j->ctx);
}

static int y_start_array(void *c)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_start_array || j->cb->yajl_start_array(j->ctx);
}

static int y_end_array(void *c)
{
	struct opmfu_json *j = c;
	return j->muted || !j->cb->yajl_end_array || j->cb->yajl_end_array(j->ctx);
}

static const yajl_callbacks y_callbacks = {
	y_null, y_bool, NULL, NULL, y_number, y_string, y_start_map, y_map_key, y_end_map, y_start_array, y_end_array
};

static const yajl_callbacks no_callbacks;

/* The own parser's states: yajl's (yajl_parser.c) for the innermost
 * container, or the document before and after its value. */
enum { FS_START, FS_DONE, FS_MAP_START, FS_MAP_NEED_KEY, FS_MAP_SEP, FS_MAP_NEED_VAL, FS_MAP_GOT_VAL,
       FS_ARR_START, FS_ARR_NEED_VAL, FS_ARR_GOT_VAL };

enum opmfu_status opmfu_json_init(struct opmfu_json *j, const yajl_callbacks *cb, void *ctx,
				  struct opmfu_err *err)
{
	yajl_alloc_funcs af = { yajl_malloc_cb, yajl_realloc_cb, yajl_free_cb, NULL };

	memset(j, 0, sizeof(*j));
	j->cb = cb ? cb : &no_callbacks;
	j->ctx = ctx;
	j->fast = 1;
	j->fstate = FS_START;
	af.ctx = j;
	if (guarded_alloc(j, &y_callbacks, &af, j))
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

/* Appends p[0..n) to the held token; capped: the token's own bytes (not
 * the one after it that the own parser takes with it). */
static enum opmfu_status hold_some(struct opmfu_json *j, const unsigned char *p, size_t n, int capped,
				   struct opmfu_err *err)
{
	if (capped && n > OPMFU_JSON_TOKEN_MAX - j->n_pend)
		return too_long(j, err);
	if (opmfu_grow((void **)&j->pend, &j->cap_pend, j->n_pend + n, 1)) {
		opmfu_err_set(&j->why, OPMFU_ERR_NOMEM, "out of memory parsing JSON");
		return fail(j, OPMFU_ERR_NOMEM, err);
	}
	memcpy(j->pend + j->n_pend, p, n);
	j->n_pend += n;
	return OPMFU_OK;
}

static enum opmfu_status hold(struct opmfu_json *j, const unsigned char *p, size_t n, struct opmfu_err *err)
{
	return hold_some(j, p, n, 1, err);
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

/* ---- the own parser ---- */

/* Hands the document to yajl where the own parser stands (between two
 * tokens): yajl reads, with the callbacks muted, a prefix that leaves it in
 * the same state (open containers, and where the innermost one is), made of
 * tokens that end without looking at the next byte. The text before that
 * point is not at hand: only yajl's walk back over a misspelt literal
 * (syntax_error) looks before it, and stops there either way, as the byte
 * before a token the own parser leaves is never a letter. */
static enum opmfu_status to_yajl(struct opmfu_json *j, struct opmfu_err *err)
{
	static const char *const inner[] = {
		[FS_START] = "", [FS_DONE] = "[]", [FS_MAP_START] = "{", [FS_MAP_NEED_KEY] = "{\"\":\"\",",
		[FS_MAP_SEP] = "{\"\"", [FS_MAP_NEED_VAL] = "{\"\":", [FS_MAP_GOT_VAL] = "{\"\":\"\"",
		[FS_ARR_START] = "[", [FS_ARR_NEED_VAL] = "[\"\",", [FS_ARR_GOT_VAL] = "[\"\"",
	};
	unsigned char pre[4 * OPMFU_JSON_FAST_DEPTH + 8];
	size_t n = 0, d, k;
	enum opmfu_status st;

	j->fast = 0;
	for (d = 0; d + 1 < j->depth; d++) {
		const char *w = j->stack[d] == '{' ? "{\"\":" : "[";
		k = strlen(w);
		memcpy(pre + n, w, k);
		n += k;
	}
	k = strlen(inner[j->fstate]);
	memcpy(pre + n, inner[j->fstate], k);
	n += k;
	if (!n)
		return OPMFU_OK;
	j->muted = 1;
	st = parse(j, pre, n, 0, err);
	j->muted = 0;
	j->n_tail = 0;
	return st;
}

/* Results of the own parser over a buffer: all read; a token runs past its
 * end (held until it ends); yajl reads on from a token; a callback stopped
 * the parse; out of memory. */
enum { FR_OK, FR_HOLD, FR_YAJL, FR_STOP, FR_NOMEM };

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A byte after a number or literal that yajl, too, reads as its end. */
static int ends_bare(unsigned char c)
{
	return is_ws(c) || c == ',' || c == ']' || c == '}';
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* The first byte of p[i..n) that is '"', '\\' or below 0x20 (n: none), eight
 * bytes a step while none is. */
static size_t str_stop(const unsigned char *p, size_t i, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	while (n - i >= 8) {
		uint64_t x, q, b, m;
		memcpy(&x, p + i, 8);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		m = (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x)) & highs;
		if (m) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* the lowest flagged byte is a match (a borrow only flags
			 * bytes above one) */
			return i + (size_t)__builtin_ctzll(m) / 8;
#else
			break;
#endif
		}
		i += 8;
	}
	while (i < n && p[i] != '"' && p[i] != '\\' && p[i] >= 0x20)
		i++;
	return i;
}

/* Appends p[0..n) to the decoded string (*len bytes so far). */
static int dec_put(struct opmfu_json *j, size_t *len, const unsigned char *p, size_t n)
{
	if (opmfu_grow((void **)&j->dec, &j->cap_dec, *len + n + 1, 1))
		return -1;
	memcpy(j->dec + *len, p, n);
	*len += n;
	return 0;
}

/* The string opening at p[i]: *s, *len its text (decoded into j->dec when
 * it has escapes: the ones yajl decodes byte for byte; \u is yajl's), *end
 * past its closing quote. */
static int lex_string(struct opmfu_json *j, const unsigned char *p, size_t i, size_t n, size_t *end,
		      const unsigned char **s, size_t *len)
{
	size_t q = str_stop(p, i + 1, n), from = i + 1, d = 0;

	if (q == n)
		return FR_HOLD;
	if (p[q] == '"') {
		*s = p + i + 1;
		*len = q - i - 1;
		*end = q + 1;
		return FR_OK;
	}
	while (p[q] == '\\') {
		unsigned char c;
		if (q + 1 >= n)
			return FR_HOLD;
		switch (p[q + 1]) {
		case '"': c = '"'; break;
		case '\\': c = '\\'; break;
		case '/': c = '/'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		default: return FR_YAJL;
		}
		if (dec_put(j, &d, p + from, q - from) || dec_put(j, &d, &c, 1))
			return FR_NOMEM;
		from = q + 2;
		if ((q = str_stop(p, from, n)) == n)
			return FR_HOLD;
	}
	if (p[q] != '"')
		return FR_YAJL; /* a control character: yajl's error */
	if (dec_put(j, &d, p + from, q - from))
		return FR_NOMEM;
	*s = j->dec;
	*len = d;
	*end = q + 1;
	return FR_OK;
}

/* A run of digits from p[*q] (q < n), at least one: FR_OK with *q past it,
 * FR_YAJL when there is none, FR_HOLD when it reaches n (more may follow). */
static int digits(const unsigned char *p, size_t *q, size_t n)
{
	if (!is_digit(p[*q]))
		return FR_YAJL;
	while (++*q < n && is_digit(p[*q]))
		;
	return *q == n ? FR_HOLD : FR_OK;
}

/* The number starting at p[i] (yajl's grammar), *end where it ends. */
static int lex_number(const unsigned char *p, size_t i, size_t n, size_t *end)
{
	size_t q = i;
	int r;
	if (p[q] == '-' && ++q == n)
		return FR_HOLD;
	if (p[q] == '0') {
		if (++q == n)
			return FR_HOLD;
	} else if (p[q] < '1' || p[q] > '9') {
		return FR_YAJL;
	} else if ((r = digits(p, &q, n))) {
		return r;
	}
	if (p[q] == '.') {
		if (++q == n)
			return FR_HOLD;
		if ((r = digits(p, &q, n)))
			return r;
	}
	if (p[q] == 'e' || p[q] == 'E') {
		if (++q == n)
			return FR_HOLD;
		if ((p[q] == '+' || p[q] == '-') && ++q == n)
			return FR_HOLD;
		if ((r = digits(p, &q, n)))
			return r;
	}
	if (!ends_bare(p[q]))
		return FR_YAJL;
	*end = q;
	return FR_OK;
}

/* The literal w (wl bytes) at p[i], followed by a byte that ends it. */
static int lex_word(const unsigned char *p, size_t i, size_t n, const char *w, size_t wl, size_t *end)
{
	if (n - i <= wl)
		return memcmp(p + i, w, n - i) ? FR_YAJL : FR_HOLD;
	if (memcmp(p + i, w, wl) || !ends_bare(p[i + wl]))
		return FR_YAJL;
	*end = i + wl;
	return FR_OK;
}

static int value_state(int s)
{
	return s == FS_START || s == FS_MAP_NEED_VAL || s == FS_ARR_START || s == FS_ARR_NEED_VAL;
}

/* A value was read: the state of its container, as yajl moves it. */
static void got_value(struct opmfu_json *j)
{
	j->fstate = j->fstate == FS_START ? FS_DONE : j->fstate == FS_MAP_NEED_VAL ? FS_MAP_GOT_VAL : FS_ARR_GOT_VAL;
}

static void pop(struct opmfu_json *j)
{
	j->depth--;
	j->fstate = !j->depth ? FS_DONE : j->stack[j->depth - 1] == '{' ? FS_MAP_GOT_VAL : FS_ARR_GOT_VAL;
}

/* Reads p[0..n), at offset at, calling back as yajl would, token by token;
 * *stop: where a token it does not read whole starts (final: p is all there
 * is for now, so a number or literal at its end is yajl's). */
static int fast_run(struct opmfu_json *j, const unsigned char *p, size_t n, size_t at, int final, size_t *stop)
{
	const yajl_callbacks *cb = j->cb;
	void *ctx = j->ctx;
	size_t i = 0, e = 0;
	int r = FR_YAJL;

	while (i < n) {
		const unsigned char *s = NULL;
		size_t len = 0;
		unsigned char c = p[i];
		/* runs of indentation before the dispatch */
		while (c == ' ' && ++i < n)
			c = p[i];
		if (i == n)
			break;
		switch (c) {
		case ' ': case '\t': case '\n': case '\r':
			i++;
			continue;
		case '"':
			if ((r = lex_string(j, p, i, n, &e, &s, &len)))
				goto out;
			j->tok_end = at + e;
			if (j->fstate == FS_MAP_START || j->fstate == FS_MAP_NEED_KEY) {
				if (cb->yajl_map_key && !cb->yajl_map_key(ctx, s, len))
					return FR_STOP;
				j->fstate = FS_MAP_SEP;
			} else if (value_state(j->fstate)) {
				if (cb->yajl_string && !cb->yajl_string(ctx, s, len))
					return FR_STOP;
				got_value(j);
			} else {
				r = FR_YAJL;
				goto out;
			}
			i = e;
			continue;
		case '{': case '[':
			if (!value_state(j->fstate) || j->depth == OPMFU_JSON_FAST_DEPTH) {
				r = FR_YAJL;
				goto out;
			}
			j->tok_end = at + i + 1;
			if (c == '{' ? cb->yajl_start_map && !cb->yajl_start_map(ctx)
				     : cb->yajl_start_array && !cb->yajl_start_array(ctx))
				return FR_STOP;
			got_value(j);
			j->stack[j->depth++] = c;
			j->fstate = c == '{' ? FS_MAP_START : FS_ARR_START;
			i++;
			continue;
		case '}':
		case ']':
			if (c == '}' ? j->fstate != FS_MAP_START && j->fstate != FS_MAP_GOT_VAL
				     : j->fstate != FS_ARR_START && j->fstate != FS_ARR_GOT_VAL) {
				r = FR_YAJL;
				goto out;
			}
			j->tok_end = at + i + 1;
			if (c == '}' ? cb->yajl_end_map && !cb->yajl_end_map(ctx)
				     : cb->yajl_end_array && !cb->yajl_end_array(ctx))
				return FR_STOP;
			pop(j);
			i++;
			continue;
		case ',':
			if (j->fstate == FS_MAP_GOT_VAL)
				j->fstate = FS_MAP_NEED_KEY;
			else if (j->fstate == FS_ARR_GOT_VAL)
				j->fstate = FS_ARR_NEED_VAL;
			else {
				r = FR_YAJL;
				goto out;
			}
			i++;
			continue;
		case ':':
			if (j->fstate != FS_MAP_SEP) {
				r = FR_YAJL;
				goto out;
			}
			j->fstate = FS_MAP_NEED_VAL;
			i++;
			continue;
		case 't': case 'f': case 'n':
			if ((r = lex_word(p, i, n, c == 't' ? "true" : c == 'f' ? "false" : "null", c == 'f' ? 5 : 4, &e)))
				goto out;
			if (!value_state(j->fstate)) {
				r = FR_YAJL;
				goto out;
			}
			j->tok_end = at + e;
			if (c == 'n' ? cb->yajl_null && !cb->yajl_null(ctx)
				     : cb->yajl_boolean && !cb->yajl_boolean(ctx, c == 't'))
				return FR_STOP;
			got_value(j);
			i = e;
			continue;
		case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
		case '9':
			if ((r = lex_number(p, i, n, &e)))
				goto out;
			if (!value_state(j->fstate)) {
				r = FR_YAJL;
				goto out;
			}
			j->tok_end = at + e;
			if (cb->yajl_number && !cb->yajl_number(ctx, (const char *)p + i, e - i))
				return FR_STOP;
			got_value(j);
			i = e;
			continue;
		default:
			r = FR_YAJL;
			goto out;
		}
	}
	return FR_OK;
out:
	*stop = i;
	return r == FR_HOLD && final ? FR_YAJL : r;
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

static enum opmfu_status fast_fault(struct opmfu_json *j, int r, struct opmfu_err *err)
{
	if (r == FR_STOP)
		return fail(j, j->st ? j->st : OPMFU_ERR_FORMAT, err);
	opmfu_err_set(&j->why, OPMFU_ERR_NOMEM, "out of memory parsing JSON");
	return fail(j, OPMFU_ERR_NOMEM, err);
}

/* p[0..n), at offset at, to the own parser, or to yajl from the first token
 * it leaves. A token split over feeds is held as feed_tokens holds it. */
static enum opmfu_status fast_feed(struct opmfu_json *j, const unsigned char *p, size_t n, size_t at,
				   struct opmfu_err *err)
{
	enum opmfu_status st;
	size_t i = 0, k = 0, open = 0;
	int r;

	if (j->n_pend) {
		/* the held token goes on into this chunk; a number or literal
		 * with the byte that ends it, when that is one it may end with */
		int bare = j->pend[0] != '"';
		size_t took = 0;
		i = scan(j, p, 0, n, 1, &open);
		if ((st = hold(j, p, i, err)))
			return st;
		if (j->lx == LX_OUT && bare && i < n && ends_bare(p[i])) {
			if ((st = hold_some(j, p + i, 1, 0, err)))
				return st;
			took = 1;
		}
		if (j->lx != LX_OUT)
			return OPMFU_OK;
		r = fast_run(j, j->pend, j->n_pend, j->pend_at, 1, &k);
		if (r == FR_STOP || r == FR_NOMEM)
			return fast_fault(j, r, err);
		if (r == FR_YAJL) {
			/* yajl gets the bytes in the calls the yajl path makes (its
			 * offsets after a token split over calls depend on them):
			 * the held token alone, then the chunk from after it */
			size_t m = j->n_pend - took;
			j->n_pend = 0;
			if ((st = to_yajl(j, err)))
				return st;
			if (k < m && (st = parse(j, j->pend + k, m - k, j->pend_at + k, err)))
				return st;
			return i < n ? feed_tokens(j, p + i, n - i, at + i, err) : OPMFU_OK;
		}
		j->n_pend = 0;
		i += took;
		if (i == n)
			return OPMFU_OK;
	}
	r = fast_run(j, p + i, n - i, at + i, 0, &k);
	k += i;
	switch (r) {
	case FR_OK:
		return OPMFU_OK;
	case FR_HOLD:
		j->lx = LX_OUT;
		scan(j, p, k, n, 0, &open);
		j->pend_at = at + k;
		return hold(j, p + k, n - k, err);
	case FR_YAJL:
		if ((st = to_yajl(j, err)))
			return st;
		return feed_tokens(j, p + k, n - k, at + k, err);
	default:
		return fast_fault(j, r, err);
	}
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
		if (j->bom < 3 && j->bom > 0) {
			/* yajl's error on the bytes */
			if (j->fast && (st = to_yajl(j, err)))
				return st;
			if ((st = parse(j, bom, (size_t)j->bom, 0, err)))
				return st;
		}
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
		if ((st = j->fast ? fast_feed(j, p, k, at, err) : feed_tokens(j, p, k, at, err)))
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
	if (j->fast) {
		/* the value read whole: yajl's finish would find it complete */
		if (j->fstate == FS_DONE && !j->n_pend && j->bom <= 0)
			return OPMFU_OK;
		if ((st = to_yajl(j, err)))
			return st;
	}
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
	opmfu_free(j->dec);
	j->dec = NULL;
	j->cap_dec = 0;
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
	if (j->fast)
		return j->tok_end;
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
