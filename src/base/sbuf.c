/*
 * sbuf.c - growable string buffer.
 */
#include "base/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"

static char empty_buf[1];

void sbuf_init(struct sbuf *sb)
{
	sb->buf = empty_buf;
	sb->len = sb->cap = 0;
	sb->oom = 0;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->cap)
		opmfu_free(sb->buf);
	sbuf_init(sb);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
}

static int reserve(struct sbuf *sb, size_t extra)
{
	char *p;
	size_t need = sb->len + extra + 1, ncap;

	if (sb->oom)
		return -1;
	if (need <= sb->cap)
		return 0;
	ncap = sb->cap ? sb->cap : 64;
	while (ncap < need)
		ncap *= 2;
	p = opmfu_realloc(sb->cap ? sb->buf : NULL, ncap);
	if (!p) {
		sb->oom = 1;
		return -1;
	}
	if (!sb->cap)
		p[0] = '\0';
	sb->buf = p;
	sb->cap = ncap;
	return 0;
}

void sbuf_add(struct sbuf *sb, const char *s, size_t n)
{
	if (reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_add_i64(struct sbuf *sb, int64_t v)
{
	char d[24], *e = d + sizeof(d), *p = e;
	/* as unsigned: -INT64_MIN fits */
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	sbuf_add(sb, p, (size_t)(e - p));
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

char *sbuf_detach(struct sbuf *sb)
{
	char *s;
	if (sb->oom) {
		sbuf_release(sb);
		return NULL;
	}
	s = sb->cap ? sb->buf : opmfu_strdup("");
	sbuf_init(sb);
	return s;
}

char *opmfu_path_join(const char *a, const char *b)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, a);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		sbuf_adds(&sb, "/");
	sbuf_adds(&sb, b);
	return sbuf_detach(&sb);
}

void opmfu_ns_text(double ns, char *out, size_t size)
{
	if (ns != ns || ns < 0)
		snprintf(out, size, "-");
	else if (ns < 1e3)
		snprintf(out, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(out, size, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(out, size, "%.2f ms", ns / 1e6);
	else
		snprintf(out, size, "%.2f s", ns / 1e9);
}
