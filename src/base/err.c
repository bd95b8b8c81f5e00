/*
 * err.c - setting and prefixing error messages.
 */
#include "base/err.h"

#include <stdio.h>
#include <string.h>

enum opmfu_status opmfu_err_set(struct opmfu_err *err, enum opmfu_status status,
				const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return status;
}

void opmfu_err_prefix(struct opmfu_err *err, const char *fmt, ...)
{
	char head[OPMFU_ERR_MSG_MAX], old[OPMFU_ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* truncation is acceptable: the message stays a complete C string */
	if (snprintf(err->msg, sizeof(err->msg), "%s: ", head) < (int)sizeof(err->msg)) {
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof(err->msg) - n, "%s", old);
	}
}

const char *opmfu_strstatus(enum opmfu_status status)
{
	switch (status) {
	case OPMFU_OK: return "ok";
	case OPMFU_ERR_NOMEM: return "out of memory";
	case OPMFU_ERR_IO: return "I/O error";
	case OPMFU_ERR_SQLITE: return "SQLite error";
	case OPMFU_ERR_FORMAT: return "malformed input";
	case OPMFU_ERR_SCHEMA: return "missing table or column";
	case OPMFU_ERR_LIMIT: return "output limit exceeded";
	case OPMFU_ERR_USAGE: return "invalid options";
	case OPMFU_ERR_NOINPUT: return "no input found";
	case OPMFU_ERR_PARTIAL: return "some ranks failed";
	case OPMFU_ERR_BUSY: return "output database busy";
	}
	return "unknown status";
}
