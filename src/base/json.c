/*
 * json.c - recursive-descent JSON validator that records a flat node array.
 * Depth is bounded (JSON_MAX_DEPTH) so hostile input cannot exhaust the stack.
 */
#include "base/json.h"

#include <string.h>

#include "base/mem.h"

struct parser {
	struct json_doc *doc;
	const char *s;
	size_t len, pos;
	struct opmfu_err *err;
	enum opmfu_status st;
};

static int fail(struct parser *p, const char *what)
{
	if (p->st == OPMFU_OK)
		p->st = opmfu_err_set(p->err, OPMFU_ERR_FORMAT,
				      "invalid JSON at byte %zu: %s", p->pos, what);
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static size_t add_node(struct parser *p, enum json_type t, size_t start)
{
	struct json_doc *d = p->doc;
	if (OPMFU_GROW(d->nodes, d->cap, d->n + 1)) {
		p->st = opmfu_err_set(p->err, OPMFU_ERR_NOMEM, "out of memory parsing JSON");
		return JSON_NONE;
	}
	d->nodes[d->n] = (struct json_node){ t, start, start, 0, 0 };
	return d->n++;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int parse_string_body(struct parser *p)
{
	/* p->pos is just past the opening quote */
	while (p->pos < p->len) {
		unsigned char c = (unsigned char)p->s[p->pos];
		if (c == '"')
			return 0;
		if (c < 0x20)
			return fail(p, "control character in string");
		if (c == '\\') {
			char e;
			if (++p->pos >= p->len)
				break;
			e = p->s[p->pos];
			if (e == 'u') {
				int i;
				for (i = 1; i <= 4; i++)
					if (p->pos + i >= p->len || !is_hex(p->s[p->pos + i]))
						return fail(p, "bad \\u escape");
				p->pos += 4;
			} else if (!strchr("\"\\/bfnrt", e) || e == '\0') {
				return fail(p, "bad escape");
			}
		}
		p->pos++;
	}
	return fail(p, "unterminated string");
}

static int parse_value(struct parser *p, int depth);

static int parse_number(struct parser *p)
{
	size_t st = p->pos, idx;
	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	if (p->pos >= p->len)
		return fail(p, "bad number");
	if (p->s[p->pos] == '0') {
		p->pos++;
	} else if (p->s[p->pos] >= '1' && p->s[p->pos] <= '9') {
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	} else {
		return fail(p, "bad number");
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		size_t d = ++p->pos;
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
		if (p->pos == d)
			return fail(p, "bad number");
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		size_t d;
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		d = p->pos;
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
		if (p->pos == d)
			return fail(p, "bad number");
	}
	idx = add_node(p, JSON_NUMBER, st);
	if (idx == JSON_NONE)
		return -1;
	p->doc->nodes[idx].end = p->pos;
	p->doc->nodes[idx].next = idx + 1;
	return 0;
}

static int parse_literal(struct parser *p, const char *word, enum json_type t)
{
	size_t n = strlen(word), idx;
	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
		return fail(p, "unexpected character");
	idx = add_node(p, t, p->pos);
	if (idx == JSON_NONE)
		return -1;
	p->pos += n;
	p->doc->nodes[idx].end = p->pos;
	p->doc->nodes[idx].next = idx + 1;
	return 0;
}

static int parse_container(struct parser *p, int depth, int is_obj)
{
	size_t idx = add_node(p, is_obj ? JSON_OBJECT : JSON_ARRAY, p->pos);
	size_t count = 0;
	char close = is_obj ? '}' : ']';

	if (idx == JSON_NONE)
		return -1;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
	} else {
		for (;;) {
			skip_ws(p);
			if (is_obj) {
				if (p->pos >= p->len || p->s[p->pos] != '"')
					return fail(p, "expected object key");
				if (parse_value(p, depth + 1))
					return -1;
				skip_ws(p);
				if (p->pos >= p->len || p->s[p->pos] != ':')
					return fail(p, "expected ':'");
				p->pos++;
			}
			if (parse_value(p, depth + 1))
				return -1;
			count++;
			skip_ws(p);
			if (p->pos < p->len && p->s[p->pos] == ',') {
				p->pos++;
				continue;
			}
			if (p->pos < p->len && p->s[p->pos] == close) {
				p->pos++;
				break;
			}
			return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
	p->doc->nodes[idx].end = p->pos;
	p->doc->nodes[idx].count = count;
	p->doc->nodes[idx].next = p->doc->n;
	return 0;
}

static int parse_value(struct parser *p, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return fail(p, "nesting too deep");
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "unexpected end of input");
	switch (p->s[p->pos]) {
	case '{':
		return parse_container(p, depth, 1);
	case '[':
		return parse_container(p, depth, 0);
	case '"': {
		size_t idx = add_node(p, JSON_STRING, p->pos + 1);
		if (idx == JSON_NONE)
			return -1;
		p->pos++;
		if (parse_string_body(p))
			return -1;
		p->doc->nodes[idx].end = p->pos;
		p->doc->nodes[idx].next = idx + 1;
		p->pos++;
		return 0;
	}
	case 't':
		return parse_literal(p, "true", JSON_TRUE);
	case 'f':
		return parse_literal(p, "false", JSON_FALSE);
	case 'n':
		return parse_literal(p, "null", JSON_NULL);
	default:
		if (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
			return parse_number(p);
		return fail(p, "unexpected character");
	}
}

enum opmfu_status json_parse(struct json_doc *doc, const char *text, size_t len,
			     struct opmfu_err *err)
{
	struct parser p = { doc, text, len, 0, err, OPMFU_OK };

	memset(doc, 0, sizeof(*doc));
	doc->text = text;
	/* a UTF-8 byte order mark is common in files written on Windows */
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		p.pos = 3;
	if (parse_value(&p, 0) == 0) {
		skip_ws(&p);
		if (p.pos != p.len)
			fail(&p, "trailing characters after the value");
	}
	if (p.st != OPMFU_OK)
		json_release(doc);
	return p.st;
}

void json_release(struct json_doc *doc)
{
	opmfu_free(doc->nodes);
	doc->nodes = NULL;
	doc->n = doc->cap = 0;
}

static int key_equals(const struct json_doc *doc, size_t node, const char *key)
{
	char buf[256];
	if (json_string(doc, node, buf, sizeof(buf)))
		return 0;
	return strcmp(buf, key) == 0;
}

size_t json_get(const struct json_doc *doc, size_t obj, const char *key)
{
	size_t i, c;
	if (obj >= doc->n || doc->nodes[obj].type != JSON_OBJECT)
		return JSON_NONE;
	c = obj + 1;
	for (i = 0; i < doc->nodes[obj].count; i++) {
		size_t val = doc->nodes[c].next;
		if (key_equals(doc, c, key))
			return val;
		c = doc->nodes[val].next;
	}
	return JSON_NONE;
}

size_t json_at(const struct json_doc *doc, size_t arr, size_t i)
{
	size_t k, c;
	if (arr >= doc->n || doc->nodes[arr].type != JSON_ARRAY || i >= doc->nodes[arr].count)
		return JSON_NONE;
	c = arr + 1;
	for (k = 0; k < i; k++)
		c = doc->nodes[c].next;
	return c;
}

static unsigned hexval(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	return (unsigned)(c - 'A' + 10);
}

int json_string(const struct json_doc *doc, size_t node, char *out, size_t outsz)
{
	const struct json_node *n;
	size_t i, o = 0;

	if (node >= doc->n || doc->nodes[node].type != JSON_STRING || outsz == 0)
		return -1;
	n = &doc->nodes[node];
	for (i = n->start; i < n->end && o + 1 < outsz; i++) {
		char c = doc->text[i];
		if (c != '\\') {
			out[o++] = c;
			continue;
		}
		c = doc->text[++i];
		switch (c) {
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			unsigned cp = (hexval(doc->text[i + 1]) << 12) | (hexval(doc->text[i + 2]) << 8) |
				      (hexval(doc->text[i + 3]) << 4) | hexval(doc->text[i + 4]);
			i += 4;
			/* surrogates are kept as-is (3 bytes); key matching never needs them */
			if (cp < 0x80) {
				out[o++] = (char)cp;
			} else if (cp < 0x800 && o + 2 < outsz) {
				out[o++] = (char)(0xC0 | (cp >> 6));
				out[o++] = (char)(0x80 | (cp & 0x3F));
			} else if (o + 3 < outsz) {
				out[o++] = (char)(0xE0 | (cp >> 12));
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
				out[o++] = (char)(0x80 | (cp & 0x3F));
			}
			break;
		}
		default: out[o++] = c; break;
		}
	}
	out[o] = '\0';
	return 0;
}
