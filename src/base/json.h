/*
 * json.h - a small validating JSON reader (RFC 8259) for the files we read
 * (info.json). Parses into a flat node array; lookups walk it. No allocation
 * happens after json_parse; json_release frees everything.
 */
#ifndef OPMFU_JSON_H
#define OPMFU_JSON_H

#include <stddef.h>

#include "base/err.h"

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING,
		 JSON_ARRAY, JSON_OBJECT };

struct json_node {
	enum json_type type;
	size_t start, end; /* byte span in the text; strings exclude the quotes */
	size_t next;       /* index of the node after this one and its children */
	size_t count;      /* children (arrays) or key/value pairs (objects) */
};

struct json_doc {
	struct json_node *nodes;
	size_t n, cap;
	const char *text; /* borrowed: must outlive the doc */
};

#define JSON_MAX_DEPTH 128
#define JSON_NONE ((size_t)-1)

/* Parses text[0..len). On failure returns OPMFU_ERR_FORMAT (or NOMEM) with a
 * message giving the byte offset. The doc borrows text. */
enum opmfu_status json_parse(struct json_doc *doc, const char *text, size_t len,
			     struct opmfu_err *err);
void json_release(struct json_doc *doc);

/* Value of key in object node obj, or JSON_NONE (also when obj is no object). */
size_t json_get(const struct json_doc *doc, size_t obj, const char *key);
/* Element i of array node arr, or JSON_NONE. */
size_t json_at(const struct json_doc *doc, size_t arr, size_t i);
/* Decodes string node into out (NUL-terminated, truncated to outsz-1 bytes).
 * Returns 0, or -1 if the node is no string. \u escapes become UTF-8. */
int json_string(const struct json_doc *doc, size_t node, char *out, size_t outsz);

#endif
