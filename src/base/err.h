/*
 * err.h - status codes and the error message that travels with them.
 * The library fills a struct opmfu_err at the failure site; only the CLI prints it.
 */
#ifndef OPMFU_ERR_H
#define OPMFU_ERR_H

#include <stdarg.h>

#include "base/status.h"

/* Sets the message (printf-style) and returns status, so callers can write
 * `return opmfu_err_set(err, OPMFU_ERR_IO, "...")`. err may be NULL. */
enum opmfu_status opmfu_err_set(struct opmfu_err *err, enum opmfu_status status,
				const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Prepends "prefix: " to an existing message, to add context on the way up. */
void opmfu_err_prefix(struct opmfu_err *err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

#endif
