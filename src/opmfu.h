/*
 * opmfu.h - the opmfu library's public API: analyse Ascend profiler
 * databases and write OperatorMFU / ModuleMFU. The library never prints and
 * never exits; it reports through return values, struct opmfu_err, the
 * report and the optional callbacks in struct opmfu_opts.
 */
#ifndef OPMFU_H
#define OPMFU_H

#include <stddef.h>

#include "base/status.h"

#define OPMFU_VERSION "0.1.0"

/* Peak classes, indexes of opmfu_opts.peak_tflops and report peaks. */
enum { OPMFU_CLASS_FP16 = 0, OPMFU_CLASS_INT8 = 1, OPMFU_CLASS_FP8 = 2, OPMFU_NCLASS = 3 };

enum opmfu_export_flags { OPMFU_EXPORT_DB = 1 << 0, OPMFU_EXPORT_XLSX = 1 << 1 };

/* Workbooks written for one rank (opmfu_rank_report.xlsx). */
enum opmfu_xlsx_flags { OPMFU_XLSX_KERNEL = 1 << 0, OPMFU_XLSX_MODULE = 1 << 1 };

struct opmfu_progress {
	size_t ranks_done, ranks_total;
	size_t kernels_done; /* compute kernel rows analysed so far */
	double elapsed_s;
};

struct opmfu_opts {
	const char *const *inputs; /* cluster dirs, rank dirs or .db files */
	size_t n_inputs;
	const char *out_dir;       /* NULL: the single input's directory */
	unsigned exports;          /* OPMFU_EXPORT_*; 0 means DB */
	/* Peak overrides in TFLOPS per class; 0 = not overridden. peak_origin
	 * names where they came from ("--peak", "OPMFU_PEAK") for the report. */
	double peak_tflops[OPMFU_NCLASS];
	const char *peak_origin;
	const char *chip;          /* built-in table entry to use, or NULL */
	int jobs;                  /* worker threads; <= 0: number of CPUs */
	const int *ranks;          /* only these rank ids, or NULL for all */
	size_t n_ranks;
	/* Optional callbacks, called from the calling thread only. */
	void (*on_warning)(void *ctx, const char *msg);
	void (*on_progress)(void *ctx, const struct opmfu_progress *p);
	void *ctx;
};

enum opmfu_rank_state {
	OPMFU_RANK_OK,     /* MFU computed for at least one kernel */
	OPMFU_RANK_NO_MFU, /* analysed, but no kernel got an MFU: see reason */
	OPMFU_RANK_FAILED, /* could not be analysed: see reason */
};

#define OPMFU_NDROP 8

/* A module (parent_module/module, before _k suffixes) by the kernel time of
 * the ops directly under it. */
struct opmfu_module_top {
	char name[256];     /* parent/module */
	double kernel_ns;   /* total kernel time */
	double mfu;         /* sum(mfu x ns) / sum(ns) over its kernels with an MFU > 0, or -1 */
};

/* Stages of one rank, indexes of opmfu_rank_report.seconds. */
enum opmfu_stage {
	OPMFU_STAGE_READ,   /* reading and joining the database */
	OPMFU_STAGE_KERNEL, /* kernel-level MFU */
	OPMFU_STAGE_MODULE, /* the module tree and ModuleMFU; runs while OperatorMFU is written */
	OPMFU_STAGE_WRITE,  /* the writer's own time on the rank: rows, workbooks */
	OPMFU_NSTAGE
};

struct opmfu_rank_report {
	int rank;
	char *db_path;
	enum opmfu_rank_state state;
	/* Text fields are arrays so that reporting never needs memory. */
	char reason[1024];          /* why no MFU / why it failed; empty when OK */
	size_t kernels;             /* compute kernel rows linked to framework ops */
	size_t comm_links;          /* communication rows (module tree only) */
	size_t recs_read, recs_used;
	size_t drops[OPMFU_NDROP];  /* by enum opmfu_drop order; see opmfu_drop_reason */
	size_t kernels_with_mfu;
	size_t op_rows, module_rows;
	size_t modules;             /* Module ranges read */
	size_t module_ops_too_deep; /* ops left out of ModuleMFU: nested deeper than 20 modules */
	size_t bad_rows;            /* link or Module rows skipped: NULL or non-numeric timestamps */
	char note[320];             /* what the reader tells about the input (Kineto: kernels linked by each
				       rule, modules, steps, GPU); empty: nothing */
	struct opmfu_module_top top[5];
	size_t n_top;
	double peak_tflops[OPMFU_NCLASS]; /* 0 = none */
	char peak_source[1024];     /* "fp16, int8 from info.json PATH (24 AI cores at 1800 MHz)"; empty: none */
	double mfu_recorded;        /* sum FLOPs / sum(kernel time x peak) of used records, or -1 */
	char bad_dtype[48];         /* the first unsupported dtype seen; empty: none */
	unsigned xlsx;              /* OPMFU_XLSX_* bits: workbooks written for this rank */
	double seconds[OPMFU_NSTAGE]; /* wall time per stage (enum opmfu_stage) */
};

struct opmfu_report {
	struct opmfu_rank_report *ranks; /* in rank order */
	size_t n_ranks, n_failed;
	char *out_db;    /* cluster_analysis.db written, or NULL */
	char *out_dir;   /* cluster_analysis_output directory */
	char *xlsx_dir;  /* OperatorMfu directory when xlsx was asked for, or NULL */
	size_t xlsx_files; /* workbooks written */
	double seconds;
};

/* Name of drop reason i (< OPMFU_NDROP), e.g. "malformed message". */
const char *opmfu_drop_reason(int i);

/*
 * Runs the whole analysis. Returns OPMFU_OK when every rank was analysed
 * (some may still have no MFU), OPMFU_ERR_PARTIAL when at least one rank
 * failed but results were written, or an error when nothing could be written
 * (message in err). rep is filled in every case and must be released.
 */
enum opmfu_status opmfu_analyze(const struct opmfu_opts *opts, struct opmfu_report *rep,
				struct opmfu_err *err);

void opmfu_report_release(struct opmfu_report *rep);

/* Parses "fp16=353.9,int8=707.8" (classes fp16|bf16, int8, fp8; TFLOPS) into
 * tflops[OPMFU_NCLASS]. Returns 0, or -1 with a message in msg. */
int opmfu_parse_peak_spec(const char *spec, double *tflops, char *msg, size_t msgsz);

/* Built-in chip table access for `opmfu chips`. */
struct opmfu_chip_row {
	const char *name, *aliases, *source;
	double fp32, tf32, fp16, fp8, int8;
};
/* Returns row i, or 0 past the end. */
int opmfu_chip_row(size_t i, struct opmfu_chip_row *row);

#endif
