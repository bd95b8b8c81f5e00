/*
 * nsys.h - the Nsight Systems reader (read/reader.h, SPEC 21): the SQLite
 * file `nsys export --type sqlite` writes, one per process or rank.
 *
 * A file is an nsys export when it has a StringIds table and one of the
 * tables nsys writes (CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
 * NVTX_EVENTS, TARGET_INFO_GPU). Reading fills the Kineto reader's parse
 * (read/kineto/kineto.h) from the tables, so that the links, the projection
 * of kernels onto NVTX op ranges (the innermost range on the launching
 * thread that holds the launch), communication, copies and steps are made
 * by the one code both formats share (kineto_link.c). docs/nsys.md.
 */
#ifndef OPMFU_NSYS_H
#define OPMFU_NSYS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/sbuf.h"
#include "read/reader.h"
#include "trace/trace.h"

extern const struct opmfu_reader opmfu_reader_nsys;

/* YES for a file with nsys's tables (named by the user: any name; met in
 * a walk: only *.sqlite), else NO. One rank per (device, process) that
 * ran kernels, the first in in, the others appended to more (reader.h);
 * the rank ids as nsys_probe.c says. */
enum opmfu_probe opmfu_nsys_probe_file(const char *path, int named, struct opmfu_rank_input *in,
				       struct opmfu_rank_list *more);

/* Whether a database at path has nsys's tables: 1 yes, 0 no, -1 it could
 * not be opened. */
int opmfu_nsys_is_export(const char *path);
/* Whether base is an export's file name (*.sqlite): what a walk opens, and
 * the reader's name test. */
int opmfu_nsys_file_name(const char *base);

/* What an NVTX text is (nsys_nvtx.c). */
enum nsys_text_kind {
	NSYS_TEXT_OTHER = 0,  /* a user's range: no op */
	NSYS_TEXT_OP = 1,     /* a PyTorch op (emit_nvtx / --pytorch=autograd-*-nvtx) */
	NSYS_TEXT_STEP = 2,   /* ProfilerStep#N */
	NSYS_TEXT_MODULE = 3  /* nn.Module: Name */
};

/*
 * One NVTX text parsed. PyTorch's grammar (torch/csrc/profiler, getNvtxStr):
 *   NAME [", seq = " INT] [", op_id = " INT] [", sizes = " SIZES]
 *        [", input_op_ids = " ...]
 *   SIZES = "[" [ DIMS { ", " DIMS } ] "]";  DIMS = "[" [ INT { ", " INT } ] "]"
 * The name ends at the first of those markers. sizes become the normalised
 * shape list of model/shape.h ("4096,4096;4096,4096", an empty [] an empty
 * entry) in shapes; shapes_ok 0 when there is no sizes field or it does
 * not parse (then the op's shapes are unknown).
 */
struct nsys_text {
	enum nsys_text_kind kind;
	const char *name;    /* into the text */
	size_t name_len;
	int64_t seq, op_id;  /* -1: absent */
	int64_t step;        /* NSYS_TEXT_STEP: N */
	int has_sizes, shapes_ok;
};

/* Parses s[0..n) (any bytes); shapes (reset here) gets the normalised
 * sizes. Returns 0, or -1 when out of memory (shapes->oom). */
int opmfu_nsys_parse_text(const char *s, size_t n, struct nsys_text *out, struct sbuf *shapes);

/* The input dtype list a kernel's name implies (docs/nsys.md), as the
 * PyTorch dtype name the dtype table knows ("c10::BFloat16"), or NULL. */
const char *opmfu_nsys_kernel_dtype(const char *name, size_t n);

#endif
