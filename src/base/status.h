/*
 * opmfu_status.h - the status codes every opmfu function returns.
 * Kept apart from opmfu.h so base/ can use them without the whole API.
 * Also the error message struct every function fills on failure.
 */
#ifndef OPMFU_STATUS_H
#define OPMFU_STATUS_H

enum opmfu_status {
	OPMFU_OK = 0,
	OPMFU_ERR_NOMEM,   /* an allocation failed */
	OPMFU_ERR_IO,      /* a file or directory could not be read or written */
	OPMFU_ERR_SQLITE,  /* SQLite reported an error (message quotes it) */
	OPMFU_ERR_FORMAT,  /* input content is malformed (JSON, numbers, ...) */
	OPMFU_ERR_SCHEMA,  /* a required table or column is missing */
	OPMFU_ERR_LIMIT,   /* output exceeds a format limit (xlsx rows) */
	OPMFU_ERR_USAGE,   /* the options given to the library are invalid */
	OPMFU_ERR_NOINPUT, /* no rank directory or database was found */
	OPMFU_ERR_PARTIAL, /* the run completed but some ranks failed */
	OPMFU_ERR_BUSY,    /* the output database stayed busy; the results were kept beside it */
};

#define OPMFU_ERR_MSG_MAX 4096 /* room for the list of runs a refused path holds */

/* A complete, printable message ("what: why"), empty while no error occurred. */
struct opmfu_err {
	char msg[OPMFU_ERR_MSG_MAX];
};

#define OPMFU_ERR_INIT { { 0 } }

/* A short constant name for a status ("out of memory", ...). Never NULL. */
const char *opmfu_strstatus(enum opmfu_status status);

#endif
