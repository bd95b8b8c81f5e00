/*
 * kineto.h - the PyTorch profiler (Kineto) reader (read/reader.h, SPEC 13):
 * which files are its ranks, and reading one into a struct opmfu_trace.
 *
 * A rank is one Chrome-trace JSON file, plain or gzip'd. Reading streams it
 * (zlib, then yajl through read/json_stream.h) and keeps, per event of the
 * kinds it uses, a compact record (kineto_events.c); the links between GPU
 * kernels and cpu_ops are made after the last byte (kineto_link.c), since
 * a kernel may come before or after its op in the file. Memory follows the
 * events kept, never the file's size.
 *
 * What is read: cpu_ops (with shapes, dtypes, Concrete Inputs), runtime
 * calls that carry a correlation id (cuda_runtime, cuda_driver, hip
 * runtime), GPU kernels, gpu_memcpy and gpu_memset events (MEMCPY ranges,
 * never kernels or links), nn.Module python_functions, ProfilerStep#N
 * (cpu_op or user_annotation: STEP; gpu_user_annotation: DEVSTEP, and STEP
 * when the number has no CPU one), ac2g flow ends, deviceProperties,
 * baseTimeNanoseconds, distributedInfo; counter events are counted. The
 * launch time of a kernel, copy or memset (t->launch, range values) is the
 * ts of the runtime call with its correlation id, else (kernels) of its
 * flow's "s" end.
 */
#ifndef OPMFU_KINETO_H
#define OPMFU_KINETO_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "base/err.h"
#include "base/idtab.h"
#include "base/sbuf.h"
#include "trace/trace.h"
#include "read/json_stream.h"
#include "read/reader.h"

extern const struct opmfu_reader opmfu_reader_kineto;

/* A named *.json or *.json.gz file whose first MiB holds a top-level
 * "traceEvents" key (YES), or any other named file of such a name (MAYBE:
 * reading it says what is wrong); files met in a walk only on YES. */
enum opmfu_probe opmfu_kineto_probe_file(const char *path, int named, struct opmfu_rank_input *in,
					 struct opmfu_rank_list *more);

/* Reads the trace at path into t (initialised by the caller), o->on_links
 * included (o may be NULL). Errors name the file: malformed JSON with its
 * byte offset (in the inflated text of a .gz), a truncated or corrupt gzip
 * file, a JSON text that is not a trace. */
enum opmfu_status opmfu_read_kineto(const char *path, struct opmfu_trace *t, const struct opmfu_read_opts *o,
				    struct opmfu_err *err);

/* How much text the probe reads before giving up on finding traceEvents. */
#define OPMFU_KINETO_SNIFF_MAX (1024 * 1024)

/* ---- the file's text (kineto_input.c) ---- */

struct kin_in {
	const char *path;
	int fd;
	int gz;          /* gzip: inflated as it is read */
	z_stream z;      /* next_in/avail_in: read but not yet used bytes of zbuf (both modes) */
	int z_live;      /* inflateInit done */
	int eof, done;   /* the file ended; the last gzip member ended */
	unsigned char *zbuf;
	uint64_t zread;  /* bytes read from the file */
	uint64_t out;    /* bytes of text handed out */
	unsigned char *obuf;   /* opmfu_kin_in_next's text without a ring */
	struct kin_ring *ring; /* inflating on a thread (kineto_input.c) */
};

/* Opens path (gzip when it starts with 1f 8b). On failure in must still be
 * closed. */
enum opmfu_status opmfu_kin_in_open(struct kin_in *in, const char *path, struct opmfu_err *err);
/* Up to cap bytes of text into buf; *n == 0 at the end. Errors name the
 * file: read errors, corrupt or truncated gzip data. */
enum opmfu_status opmfu_kin_in_read(struct kin_in *in, void *buf, size_t cap, size_t *n, struct opmfu_err *err);
/* A gzip'd file is inflated on a thread of its own from now on, a few
 * chunks ahead of opmfu_kin_in_next (when the thread cannot start, on the
 * caller's as before). */
void opmfu_kin_in_ahead(struct kin_in *in);
/* The next chunk of text, *p valid until the next call or close; *n == 0
 * at the end. Errors as opmfu_kin_in_read's, in the same order. Not mixed
 * with opmfu_kin_in_read. */
enum opmfu_status opmfu_kin_in_next(struct kin_in *in, const unsigned char **p, size_t *n, struct opmfu_err *err);
void opmfu_kin_in_close(struct kin_in *in);

/* ---- what the parse keeps (kineto_events.c) ---- */

#define KIN_NONE UINT32_MAX

/* A cpu_op. Times are ns without baseTimeNanoseconds. 48 bytes. */
struct kin_op {
	int64_t start, end;
	int64_t ext;        /* External id; INT64_MIN: none */
	uint32_t thread;    /* index into the (pid, tid) table; KIN_NONE: not numeric */
	uint32_t name;      /* sid */
	uint32_t shapes;    /* normalised Input Dims (sid), or t->shape_unknown */
	uint32_t dtype;     /* index into t->dtypes; 0: no Input type */
	uint32_t attrs;     /* Concrete Inputs joined by OPMFU_ATTR_SEP (sid); 0: none */
	uint32_t link_op;   /* the op instance id once a link uses it (kineto_link.c); KIN_NONE before */
};

/* A runtime call (cuda_runtime, cuda_driver, ...) with a correlation id. */
struct kin_launch {
	int64_t ts, corr;
	uint32_t thread;
};

/* A GPU kernel. 48 bytes: how it links (enum kin_link_by) is kept beside,
 * in kin_parse.kby, made only when the links are. */
struct kin_kernel {
	int64_t start, end;
	int64_t ext, corr;  /* INT64_MIN: none */
	uint32_t thread;    /* its (pid, tid): where a flow's "f" end finds it; KIN_NONE: not numeric */
	uint32_t name;      /* sid */
	uint32_t comm;      /* communication: the sid COMM ranges name it by ("Collective name", else
			       the kernel's name); 0: a compute kernel */
	uint32_t op;        /* the kin_op it links to (kineto_link.c); KIN_NONE: none */
};

/* KIN_BY_FIX: an External id whose op does not hold the kernel's launch,
 * taken as a correlation id and linked through the launch instead. */
enum kin_link_by { KIN_BY_NONE = 0, KIN_BY_EXT = 1, KIN_BY_CORR = 2, KIN_BY_FLOW = 3, KIN_BY_FIX = 4 };

/* One end of an ac2g flow (a launch's "s", a kernel's "f"): its id and
 * where it sits. 24 bytes; as many as the kernels at most, in practice. */
struct kin_flow {
	int64_t id, ts;
	uint32_t thread;
};

/*
 * What a communication kernel, or a cpu_op, says of the collective it is
 * (SPEC 19): its args "In msg nelems", "Out msg nelems", "dtype", "Group
 * size", "Process Group Name", "Process Group Ranks" (and a cpu_op's
 * "Collective name"). Kept beside the kernels and ops, only for the comm
 * kernels and the ops that carry one of these args, in the order of their
 * owners (kernels and ops are many; these are few). 40 bytes.
 */
struct kin_cargs {
	int64_t in, out;   /* nelems; -1: not known (absent, not an integer, negative) */
	uint32_t owner;    /* index into kernels (kcargs) or ops (ocargs) */
	uint32_t dtype;    /* sid of the dtype text; 0: none */
	uint32_t group;    /* sid of "Process Group Name", else of the ranks text; 0: none */
	uint32_t coll;     /* sid of a cpu_op's "Collective name"; 0: none */
	int32_t ranks;     /* "Group size", else the count of "Process Group Ranks"; 0: not known */
	uint32_t pad;
};

/* Texts of these args (dtype, group name, ranks list) are cut at this many
 * bytes; "Group size" and rank counts outside 1 .. KIN_COLL_MAX_RANKS are
 * not known (docs/collectives.md). */
#define KIN_COLL_TEXT_MAX 4096
#define KIN_COLL_MAX_RANKS (1 << 24)
/* A call's bytes above this (2^62 - 1) are not known rather than absurd. */
#define KIN_COLL_MAX_BYTES INT64_C(4611686018427387903)

/* A gpu_memcpy or gpu_memset event is kept as the MEMCPY range it becomes
 * (struct opmfu_range, 32 bytes: name = its name, times without the base)
 * with value = its correlation id (INT64_MIN: none) until kineto_link.c
 * puts the launch time there. */

/* A ProfilerStep#N event: on the CPU (cpu_op, user_annotation) or the GPU
 * timeline (gpu_user_annotation). */
struct kin_step {
	int64_t start, end, n;
	int gpu;
};

struct kin_devprop {
	int64_t id;
	int has_id;
	char name[64];
};

#define KIN_MAX_DEVPROPS 64
#define KIN_DEVICE_COUNTS 64

/* The parse: yajl callbacks fill it (kineto_events.c). */
struct kin_parse {
	struct opmfu_json json;
	struct opmfu_trace *t; /* strings and dtypes go straight into it */
	const char *path;

	struct kin_op *ops;
	size_t n_ops, cap_ops;
	struct kin_launch *launches;
	size_t n_launches, cap_launches;
	struct kin_kernel *kernels;
	size_t n_kernels, cap_kernels;
	struct kin_flow *fstarts, *fends; /* ac2g / async_cpu_to_gpu flows: "s" (launches), "f" (kernels) */
	size_t n_fstarts, cap_fstarts, n_fends, cap_fends;
	struct kin_cargs *kcargs, *ocargs; /* comm kernels' and cpu_ops' collective args, by owner */
	size_t n_kcargs, cap_kcargs, n_ocargs, cap_ocargs;
	uint8_t *kby;              /* by kernel: how it links (enum kin_link_by), from opmfu_kin_link on */
	uint32_t *coll_host;       /* by kernel: the c10d op around a comm kernel's op whose inputs give
				      its size (older traces, kineto_link.c); NULL: none looked for */
	struct opmfu_ranges mods;  /* nn.Module calls, times without the base */
	struct opmfu_ranges copies; /* gpu_memcpy and gpu_memset events: value = correlation id (above) */
	struct kin_step *steps;
	size_t n_steps, cap_steps;
	struct kin_devprop devprops[KIN_MAX_DEVPROPS];
	size_t n_devprops;
	size_t device_kernels[KIN_DEVICE_COUNTS]; /* kernels per device id */
	int64_t base_ns;           /* baseTimeNanoseconds; 0: none */
	int has_events;            /* a top-level traceEvents array was met */
	int64_t rank, world;       /* distributedInfo's, wherever it is; -1: none (read_kineto.c compares the
				      rank with the one discovery gave) */
	size_t n_counters;         /* counter events ("ph" "C") and cuda_profiler_range spans: what a trace
				      without kernels may hold instead */
	size_t n_bad;              /* kept kinds of events with no usable ts or dur */
	unsigned paged;            /* KIN_PAGED_* bits: which arrays live in pages of their own (kin_grow) */

	/* (pid, tid) of cpu_ops and launches -> dense thread index */
	struct kin_thread { int64_t pid, tid; } *threads;
	uint32_t last_thread; /* the index thread_of gave last */
	size_t n_threads, cap_threads;
	struct opmfu_idtab thread_tab;
	/* dtype list sid -> index into t->dtypes + 1 (0: not yet seen) */
	uint32_t *dtype_of;
	size_t n_dtype_of;

	/* the walk through the document */
	size_t depth;   /* containers open */
	size_t skip;    /* > 0: inside a value no one reads, this many containers deep */
	int ctx;        /* what the innermost container we read is (kineto_events.c) */
	int top_object; /* the document is an object */
	int key;        /* what the value after the last key is for */
	size_t sub;     /* depth inside a list being collected (Input Dims, ...) */
	/* the event being read */
	struct kin_event {
		int has_ph, ph_x, ph_flow, ph_c, has_name, cat, verdict, has_id;
		int ts_ok, dur_ok, pid_ok, tid_ok, has_ext, has_corr, has_device;
		int has_dims, dims_bad, has_types, has_concrete, has_coll;
		int has_cargs;     /* one of the collective args below was met */
		int has_kflop;     /* a kernel_flop > 0 (Inductor's Triton kernels' launch op) */
		int64_t kflop;
		int64_t ts, dur, ext, corr, device, pid, tid, id;
		int64_t in_n, out_n, gsize; /* -1: not given or unusable */
		int64_t n_ranks;   /* entries of "Process Group Ranks"; -1: none */
		int has_pgname, has_ranks, has_dtype;
		size_t arg_dims;   /* dims written for the current Input Dims argument */
		int arg_list;      /* the current argument is a list of tensors */
		size_t n_items;    /* arguments begun in the list being collected */
		struct sbuf name, dims, types, concrete, coll;
		struct sbuf dtype, pgname, ranks; /* collective args, each at most KIN_COLL_TEXT_MAX */
	} ev;
	struct kin_devprop cur_dev;
};

/* ---- the record arrays (kineto_pages.c) ----
 * ops, launches, kernels and flow ends grow through kin_grow and go through
 * kin_drop: past KIN_PAGED_MIN bytes an array takes pages of its own, grown
 * without a copy and handed back when dropped (Linux; elsewhere malloc).
 * Arrays another reader fills itself (read/nsys) have no bit set and are
 * freed as malloc'd. */
#define KIN_PAGED_MIN (256 * 1024)
enum { KIN_PAGED_OPS = 1, KIN_PAGED_LAUNCHES = 2, KIN_PAGED_KERNELS = 4, KIN_PAGED_FSTARTS = 8, KIN_PAGED_FENDS = 16 };
/* Room for need elements of elem bytes in *v (capacity *cap, in elements).
 * Returns 0, or -1 when out of memory. */
int opmfu_kin_grow(struct kin_parse *p, unsigned bit, void **v, size_t *cap, size_t need, size_t elem);
/* Frees *v (NULL, capacity 0); its count is the caller's to keep. */
void opmfu_kin_drop(struct kin_parse *p, unsigned bit, void **v, size_t *cap, size_t elem);
/* Hands back the pages of *v past its first n elements (a paged array's;
 * a malloc'd one is small and kept). */
void opmfu_kin_shrink(struct kin_parse *p, unsigned bit, void **v, size_t *cap, size_t n, size_t elem);
#define KIN_GROW(p, bit, v, cap, need) opmfu_kin_grow((p), (bit), (void **)&(v), &(cap), (need), sizeof(*(v)))
#define KIN_DROP(p, bit, v, cap) opmfu_kin_drop((p), (bit), (void **)&(v), &(cap), sizeof(*(v)))
#define KIN_SHRINK(p, bit, v, cap, n) opmfu_kin_shrink((p), (bit), (void **)&(v), &(cap), (n), sizeof(*(v)))
/* The records only the links read (ops, launches, kernels, flows, the
 * collective args), once the links are made: what is left of the parse
 * (modules, steps, devices, counts) is small. */
void opmfu_kin_drop_events(struct kin_parse *p);

/* Starts a parse that keeps into t (strings, dtypes). */
enum opmfu_status opmfu_kin_parse_init(struct kin_parse *p, struct opmfu_trace *t, const char *path,
				       struct opmfu_err *err);
/* (pid, tid) as a dense thread index, for readers that fill a parse from
 * other formats (read/nsys). Returns 0, or -1 when out of memory. */
int opmfu_kin_thread(struct kin_parse *p, int64_t pid, int64_t tid, uint32_t *out);
/* The document ended: it must have been an object with traceEvents. */
enum opmfu_status opmfu_kin_parse_check(struct kin_parse *p, struct opmfu_err *err);
void opmfu_kin_parse_release(struct kin_parse *p);

/* ---- from the parse to the trace (kineto_link.c) ---- */

/* How the kernels linked, for the summary's note. */
struct kin_counts {
	size_t by_ext, by_corr, by_flow, none; /* compute kernels */
	size_t fixed;                     /* of by_corr + by_flow: External ids taken as correlation ids */
	size_t comm, comm_linked;         /* communication kernels */
};

/* Links every kernel (External id, then correlation and the enclosing
 * cpu_op on the launching thread) and writes t's links, kx, launch, op
 * count and the KERNEL, COMM and MEMCPY ranges (value: the launch time),
 * and t->colls: one per COMM range, in the same order.
 * On error (out of memory) the message names the file. */
enum opmfu_status opmfu_kin_link(struct kin_parse *p, struct kin_counts *c, struct opmfu_err *err);
/* t's MODULE and STEP ranges (a step's CPU span; its GPU one when it has
 * none) and DEVSTEP ranges (the GPU spans). */
enum opmfu_status opmfu_kin_ranges(struct kin_parse *p, struct opmfu_err *err);

#endif
