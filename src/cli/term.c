/*
 * term.c - what the program prints, with the control characters of the
 * data neutralised (issue 27): a name from a trace or a config
 * ("\x1b]0;pwned\x07", "\x1b[2J") must not reach the terminal as an escape
 * sequence, which could retitle the window, clear the screen or hide what
 * precedes it.
 *
 * Every byte that a terminal could take as a control is written as a
 * visible escape instead: C0 controls but LF (0x00-0x1F: tab, CR and ESC
 * included) and DEL (0x7F) as \xNN with lowercase hex digits (ESC is \x1b,
 * BEL \x07); the C1 controls U+0080-U+009F, two bytes in UTF-8 (C2 80 ..
 * C2 9F), as \u0080 .. \u009f; a byte 0x80-0x9F that is not part of a
 * UTF-8 sequence (which an 8-bit terminal would take for a C1 control) as
 * \xNN. Everything else passes as it is: text, UTF-8 (a CJK module name,
 * "×") and LF, which ends the program's own lines (a name holding LF
 * starts a new line, which no terminal takes for a command).
 *
 * The library's messages and tables keep the names as they are, byte for
 * byte; only what goes to standard output and standard error is escaped,
 * and output without such bytes is unchanged.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static void put_escape(FILE *f, const char *fmt, unsigned char c)
{
	char e[8];
	int n = snprintf(e, sizeof(e), fmt, c);
	fwrite(e, 1, (size_t)n, f);
}

void opmfu_term_write(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, from = 0;
	int cont = 0; /* continuation bytes the last lead byte still wants */

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (cont > 0 && c >= 0x80 && c <= 0xBF) {
			cont--;
			continue;
		}
		cont = 0;
		if (c == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
			fwrite(p + from, 1, i - from, f);
			put_escape(f, "\\u00%02x", p[i + 1]);
			from = ++i + 1;
		} else if ((c < 0x20 && c != '\n') || (c >= 0x7F && c <= 0x9F)) {
			fwrite(p + from, 1, i - from, f);
			put_escape(f, "\\x%02x", c);
			from = i + 1;
		} else if (c >= 0xC2 && c <= 0xF4) {
			cont = c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
		}
	}
	fwrite(p + from, 1, n - from, f);
}

void opmfu_term_vprintf(FILE *f, const char *fmt, va_list ap)
{
	char small[1024], *buf = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		if (!(buf = malloc((size_t)n + 1)))
			return;
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
	}
	opmfu_term_write(f, buf, (size_t)n);
	if (buf != small)
		free(buf);
}

void opmfu_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	opmfu_term_vprintf(f, fmt, ap);
	va_end(ap);
}

void opmfu_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	opmfu_term_vprintf(stdout, fmt, ap);
	va_end(ap);
}
