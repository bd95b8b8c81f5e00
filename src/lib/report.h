/*
 * report.h - what the library knows of a run while it makes it: one report
 * per rank (the source of its OpmfuRankSummary row) and the run's (lib/ and
 * the tests that look inside; the public API hands out struct opmfu_run and
 * its tables instead).
 */
#ifndef OPMFU_LIB_REPORT_H
#define OPMFU_LIB_REPORT_H

#include <stddef.h>

#include "analyze/account.h"

#define OPMFU_MAX_ANALYSES 16 /* room in the registry (lib/analyses.c) */
#include "opmfu.h"
#include "trace/table.h"

/* ---- `opmfu analyze --model`: model MFU against the trace (SPEC 12, 15) ---- */

/* One convention for the run as a whole (OpmfuModel's row with rank_id and
 * step NULL): the median step (by window) of the median rank (by that
 * window), the step the report's waterfall shows. */
struct opmfu_model_check {
	int conv;                /* enum opmfu_convention */
	double flops_per_step;   /* the model's, all devices */
	double flops_per_device;
	double step_ns;          /* the step's window; -1: no step with device activity */
	double peak_tflops;      /* the rank's peak of the class; 0: none */
	double model_mfu;        /* flops_per_device / (step_ns x peak); -1: unknown */
	double trace_flops;      /* the step's FLOPs; -1: no step */
	double coverage;         /* trace_flops / flops_per_device; -1: unknown */
	double trace_mfu;        /* the step's trace MFU (OpmfuSteps); -1: none */
	const char *note;        /* the likely reason coverage is far from 1; NULL: near 1 */
};

struct opmfu_model_report {
	struct opmfu_model_result res; /* the config, the run, FLOPs per convention */
	int dtype_class;               /* OPMFU_CLASS_*: the peak model MFU divides by */
	int median_rank;               /* the rank of the run's rows */
	long long median_step;         /* and its step; -1: the whole trace (no step marks) */
	struct opmfu_model_check run[OPMFU_NCONV]; /* the conventions shown that apply, in order */
	size_t n_run;
};

enum opmfu_rank_state {
	OPMFU_RANK_OK,     /* MFU computed for at least one kernel */
	OPMFU_RANK_NO_MFU, /* analysed, but no kernel got an MFU: see reason */
	OPMFU_RANK_FAILED, /* could not be analysed: see reason */
};

#define OPMFU_NDROP 8


/* The parts of a step (SPEC 11), as shares of its window: trace MFU, then
 * what the rest went to. */
enum opmfu_share { OPMFU_SHARE_MFU, OPMFU_SHARE_INEFFICIENCY, OPMFU_SHARE_OTHER, OPMFU_SHARE_COMM,
		   OPMFU_SHARE_IDLE, OPMFU_NSHARE };
enum opmfu_part { OPMFU_PART_MATMUL, OPMFU_PART_OTHER_KERNELS, OPMFU_PART_MEMCPY, OPMFU_PART_IDLE_HOST,
		  OPMFU_PART_IDLE_DEVICE, OPMFU_NPART };

struct opmfu_rank_report {
	int rank;
	const char *source;         /* the reader's name: "ascend", "kineto" */
	char *db_path;
	enum opmfu_rank_state state;
	/* Text fields are arrays so that reporting never needs memory. */
	char reason[2048];          /* why no MFU / why it failed; empty when OK */
	size_t kernels;             /* compute kernel rows linked to framework ops */
	size_t comm_links;          /* communication rows (module tree only) */
	size_t recs_read, recs_used;
	size_t drops[OPMFU_NDROP];  /* by enum opmfu_drop order; see opmfu_drop_reason */
	char drops_why[400];        /* "2 malformed message, 1 ..."; empty: none */
	size_t kernels_with_mfu;
	size_t op_rows, module_rows;
	size_t modules;             /* Module ranges read */
	size_t module_ops_too_deep; /* ops left out of ModuleMFU: nested deeper than 20 modules */
	size_t bad_rows;            /* link or Module rows skipped: NULL or non-numeric timestamps */
	char note[400];             /* what the reader tells about the input (Kineto: kernels linked by each
				       rule, modules, steps, GPU); empty: nothing */
	/* steps (SPEC 11): how many, the median step (docs/glossary.md) and its
	 * window, the trace MFU over all of them, and the median step's waterfall
	 * (shares[OPMFU_SHARE_MFU] is its trace MFU; -1 shares when unknown) */
	size_t steps;
	double step_ns_median;      /* the median step's window; -1: none */
	double trace_mfu_all;       /* FLOPs / (window x peak) over all steps; -1: none */
	double median_peak;         /* the median step's peak, FLOPS (kernel-time-weighted); 0: none */
	long long median_step;      /* its number; -1 without step marks */
	double shares[OPMFU_NSHARE];
	double comm_overlapped;     /* share of the median step's window */
	/* the median step's parts of its shares (SPEC 17; -1: unknown): GEMM/conv/attention
	 * without FLOPs, other kernels without FLOPs, copies (these three are
	 * OPMFU_SHARE_OTHER), idle with the host late, other idle (these two OPMFU_SHARE_IDLE) */
	double parts[OPMFU_NPART];
	double mb_share;            /* the median step's memory-bound work with known bytes (SPEC 18, a part
				       of OPMFU_SHARE_OTHER); -1: unknown */
	double mb_eff;              /* its bandwidth efficiency; -1: none */
	double profiler_step_ns;    /* the median step's host span; -1: none */
	double preparing_ns;        /* its head before the first device work; -1: none */
	double backlog_ns;          /* the backlog's window (work queued before profiling); -1: none */
	int windows_from_device;    /* the steps' windows: 0 from device work, 1 the device's step annotations,
				       2 the whole trace (no step marks) */
	size_t steps_spilled;       /* steps whose work runs past the next step's start */
	long long spill_step[4];    /* the first of them; -1 past the end */
	double peak_tflops[OPMFU_NCLASS]; /* per OPMFU_CLASS_*; 0 = none */
	char peak_source[1400];     /* "fp16, int8 from info.json PATH (24 AI cores at 1800 MHz); fp32, tf32
				       at the fp16 rate (...)"; empty: none */
	double peak_bw_tbps;        /* peak memory bandwidth, TB/s (SPEC 18); 0 = none */
	char peak_bw_source[700];   /* "built-in table: H100 SXM (NVIDIA H100 datasheet, SXM HBM3)",
				       "override (--peak-bw)"; empty: none */
	char chip_seen[320];        /* the chip the trace names, and what else it says of it: "Ascend910B
				       (NPU_INFO Ascend910B, AICORE_FREQ 1800 MHz)"; empty: nothing */
	char warning[2100];         /* one warning about this rank's results (no peak, --chip contradicts
				       the trace, ...); the CLI prints it; empty: none */
	/* honest rank-level MFU (SPEC 10), over OpmfuOps' units; -1: none */
	double mfu_recorded;        /* FLOPs / (FLOP-bearing kernel time x peak) */
	double mfu_busy;            /* FLOPs / (all compute kernel time x peak) */
	double flops_coverage;      /* share of compute kernel time that has FLOPs */
	double busy_ns, flops_ns;   /* all compute kernel time; that with FLOPs */
	double compiled_noflops_ns; /* GEMM/conv/attention kernel time without FLOPs in torch.compile regions
				       (SPEC 20: the trace has no shapes for them) */
	double flops_record, flops_shape; /* FLOPs the units took from each source */
	size_t units, units_flops;  /* OpmfuOps rows; those with FLOPs */
	size_t units_no_peak;       /* with FLOPs but no peak for their dtype class */
	size_t clamped;             /* rows with times or FLOPs beyond the sane range (trace.h n_clamped) */
	size_t units_above_one;     /* with an MFU above 1: wrong FLOPs or peak */
	size_t rec_compared, rec_agree; /* records whose kernels have shape FLOPs too; within 1 % */
	size_t recs_nested;         /* records whose op instances all belong to inner records */
	size_t shape_failed;        /* calls of a type with a formula whose shapes did not fit */
	size_t op_rows_above_one;   /* OperatorMFU rows above 100 % (the reference's helper-kernel rule) */
	size_t module_paths;        /* OpmfuModules rows */
	size_t modules_cut;         /* Module ranges deeper than 20 levels folded into their level-20 ancestor
				       in OpmfuModules, and the ops they held */
	size_t module_units_folded;
	size_t strings_cut;         /* names and shape strings longer than OPMFU_STR_MAX, cut with a marker */
	int no_peak;                /* no class has a peak: MFU is NULL everywhere */
	char bad_dtype[48];         /* the first unsupported dtype seen; empty: none */
	unsigned xlsx;              /* OPMFU_XLSX_* bits: workbooks written for this rank */
	double seconds[OPMFU_NSTAGE]; /* wall time per stage (enum opmfu_stage) */
};

struct opmfu_shard_pack;

struct opmfu_report {
	struct opmfu_rank_report *ranks; /* in rank order */
	size_t n_ranks, n_failed;
	char *out_db;    /* cluster_analysis.db written, or NULL */
	char *out_dir;   /* cluster_analysis_output directory */
	char *xlsx_dir;  /* OperatorMfu directory when xlsx was asked for, or NULL */
	size_t xlsx_files; /* workbooks written: the ranks' and opmfu_summary.xlsx */
	char *html;      /* opmfu_report.html when html was asked for, or NULL */
	char *csv_dir;   /* csv directory when csv was asked for and written, or NULL */
	char *json_dir;  /* json directory when json was asked for and written, or NULL */
	size_t n_tables; /* tables of the run: the files in csv_dir and in json_dir */
	int summary_only; /* --summary-only: the detail tables (OPMFU_TABLE_DETAIL) go to no writer */
	size_t csv_prefixed; /* CSV texts written with ' in front (write_csv.c), over the kept ranks */
	double seconds;
	struct opmfu_model_report *model; /* with opts.model: the model against the trace; else NULL */
	void *run_state[OPMFU_MAX_ANALYSES]; /* per registered per-run analysis (the account: OpmfuRun, ...) */
	struct opmfu_cell_store model_run; /* with opts.model: OpmfuModel's run rows */
	/* a merge of shards analysed with --model: OpmfuModel's run rows of the
	 * run's median rank (NULL: none) into cs, initialised here (lib/shard.c) */
	enum opmfu_status (*model_run_of)(void *ctx, const int *median, struct opmfu_cell_store *cs,
					  struct opmfu_err *err);
	void *model_ctx;
	/* a shard (opts.shard_n > 0, lib/shard.c): its OpmfuShard rows, put at the
	 * run's end instead of the run's tables; a merge: the shards' run */
	int shard_n;
	struct opmfu_cell_store shard;
	struct opmfu_shard_pack *pack; /* a shard's: the rank's rows the merge reads, packed (lib/shard_pack.c) */
	char *run_id, *source; /* a merge's run (a run analysed has them in its rank list) */
};

/* Name of drop reason i (< OPMFU_NDROP), e.g. "malformed message". */
const char *opmfu_drop_reason(int i);

/* The whole analysis into rep (opmfu_analyze's work, for lib/ and the
 * tests that look inside); rep must be released. */
enum opmfu_status opmfu_analyze_report(const struct opmfu_opts *opts, struct opmfu_report *rep,
				       struct opmfu_err *err);

void opmfu_report_release(struct opmfu_report *rep);

/* The public run: the report and the tables kept for the views. */
struct opmfu_run {
	struct opmfu_report rep;
};

#endif
