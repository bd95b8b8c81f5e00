/*
 * opmfu.h - the opmfu library's public API: analyse Ascend profiler
 * databases and write OperatorMFU / ModuleMFU, and model-level MFU from a
 * model's config.json (opmfu_model_compute). The library never prints and
 * never exits; it reports through return values, struct opmfu_err, the
 * report and the optional callbacks in struct opmfu_opts.
 */
#ifndef OPMFU_H
#define OPMFU_H

#include <stddef.h>

#include "base/status.h"

#define OPMFU_VERSION "0.1.0"

/* Peak classes (SPEC 8), indexes of opmfu_opts.peak_tflops and of the
 * report's peaks: fp32, tf32 (Ascend hf32), fp16 (and bf16), fp8 (e4m3,
 * e5m2, HiFloat8), int8, fp4. */
enum {
	OPMFU_CLASS_FP32 = 0, OPMFU_CLASS_TF32 = 1, OPMFU_CLASS_FP16 = 2, OPMFU_CLASS_FP8 = 3,
	OPMFU_CLASS_INT8 = 4, OPMFU_CLASS_FP4 = 5, OPMFU_NCLASS = 6
};
/* The names --peak takes, for messages. */
#define OPMFU_PEAK_CLASSES "fp32, tf32 (= hf32), fp16 (= bf16), fp8 (= hif8), int8, fp4"

/* What --export asks for. Bit i is writer i of the library's registry
 * (write/writer.c): the order is fixed. */
enum opmfu_export_flags {
	OPMFU_EXPORT_DB = 1 << 0,   /* cluster_analysis.db */
	OPMFU_EXPORT_XLSX = 1 << 1, /* OperatorMfu/<name>_<rank>.xlsx per rank and table, and opmfu_summary.xlsx */
	OPMFU_EXPORT_CSV = 1 << 2,  /* csv/<Table>.csv per table, every rank's rows */
	OPMFU_EXPORT_JSON = 1 << 3, /* json/<Table>.jsonl per table, every rank's rows */
	OPMFU_EXPORT_HTML = 1 << 4, /* opmfu_report.html: the run's report as one page */
};

/* Workbooks written for one rank (opmfu_rank_report.xlsx). */
enum opmfu_xlsx_flags { OPMFU_XLSX_KERNEL = 1 << 0, OPMFU_XLSX_MODULE = 1 << 1 };

struct opmfu_progress {
	size_t ranks_done, ranks_total;
	size_t kernels_done; /* compute kernel rows analysed so far */
	double elapsed_s;
};

struct opmfu_model_opts;

struct opmfu_opts {
	const char *const *inputs; /* cluster dirs, rank dirs or .db files */
	size_t n_inputs;
	const char *out_dir;       /* NULL: the single input's directory */
	unsigned exports;          /* OPMFU_EXPORT_*; 0 means DB */
	/* CSV: texts a spreadsheet would read as formulas (starting with =, +,
	 * -, @, tab or CR) as they are; 0: with ' in front (docs/output-schema.md) */
	int csv_verbatim;
	/* --summary-only: the run account and the per-rank summaries (OpmfuRankSummary, OpmfuSteps,
	 * OpmfuCollectives, OpmfuRun, OpmfuHotspots, OpmfuStragglers, OpmfuModel) without the per-op
	 * tables (docs/output-schema.md); the account is the same as a full run's */
	int summary_only;
	/* Peak overrides in TFLOPS per class; 0 = not overridden. peak_origin
	 * names where they came from ("--peak", "OPMFU_PEAK") for the report. */
	double peak_tflops[OPMFU_NCLASS];
	const char *peak_origin;
	const char *chip;          /* built-in table entry to use, or NULL */
	int jobs;                  /* worker threads; <= 0: number of CPUs */
	/* --run: the run to analyse, by ID or a unique prefix of one (SPEC 17: a
	 * result is one run); NULL: the inputs must hold one run, else
	 * OPMFU_ERR_USAGE lists the runs found */
	const char *run;
	const int *ranks;          /* only these rank ids (of the run), or NULL for all */
	size_t n_ranks;
	/* --steps: only the work of these step numbers; n_steps 0: all. --time-range (has_time_range):
	 * only the work in [time_from_ns, time_to_ns) after each rank's first device activity
	 * (time_to_ns LLONG_MAX: to the end). Applied to each rank's trace before any analysis
	 * (SPEC 22, docs/cli.md "Filters"); the texts are the user's, for messages. */
	const int *steps;
	size_t n_steps;
	const char *steps_text;
	int has_time_range;
	long long time_from_ns, time_to_ns;
	const char *time_range_text;
	/* --model: model FLOPs checked against each rank's steps (OpmfuModel, SPEC 12);
	 * NULL: none. world_size 0 is the ranks found; step_time, chip, peak unused. */
	const struct opmfu_model_opts *model;
	/* follow symbolic links to directories outside the inputs (never into
	 * /proc or /sys); 0: they are not walked, and one warning counts them */
	int follow_symlinks;
	/* Optional callbacks, called from the calling thread only. */
	void (*on_warning)(void *ctx, const char *msg);
	void (*on_progress)(void *ctx, const struct opmfu_progress *p);
	void *ctx;
	/* Peak memory bandwidth override in TB/s (SPEC 18); 0 = not overridden.
	 * peak_bw_origin names where it came from ("--peak-bw", "OPMFU_PEAK"). */
	double peak_bw_tbps;
	const char *peak_bw_origin;
	/* --no-tf32: fp32 GEMMs and convolutions whose kernel name says TF32 tensor
	 * cores (docs/gpu-traces.md, TF32) keep the fp32 peak; 0: they take the tf32 peak */
	int no_tf32;
	/* --shard I/N (SPEC 22, docs/scale.md): analyse the I-th (1-based) of N
	 * contiguous blocks of the run's ranks in rank order and write a shard
	 * result (the database alone) for opmfu_merge; shard_n 0: the whole run */
	int shard_i, shard_n;
};

/*
 * A run: what opmfu_analyze computed and wrote. It is opaque; its numbers
 * are read from its tables, the same rows the writers wrote, so every view
 * shows the same values (SPEC 16):
 *   "OpmfuRun"         one row: the run as a whole (the median rank's median step, its waterfall, ...)
 *   "OpmfuRankSummary" one row per rank, in rank order (failed ranks too: status, reason)
 *   "OpmfuHotspots"    by name over every rank, most recoverable time first
 *   "OpmfuStragglers"  per measure, the rank furthest from the median rank
 *   "OpmfuModel"       with --model: the run's rows (rank_id NULL)
 * docs/output-schema.md has their columns, docs/glossary.md their terms.
 */
struct opmfu_run;
struct opmfu_rows; /* one table of a run */

/*
 * Runs the whole analysis. Returns OPMFU_OK when every rank was analysed
 * (some may still have no MFU), OPMFU_ERR_PARTIAL when at least one rank
 * failed but results were written, or an error when nothing could be written
 * (message in err). *run is set in every case but out of memory (then NULL)
 * and must be freed with opmfu_run_free.
 */
enum opmfu_status opmfu_analyze(const struct opmfu_opts *opts, struct opmfu_run **run, struct opmfu_err *err);
void opmfu_run_free(struct opmfu_run *run);

/*
 * Removes every file the library has staged and not yet renamed into place
 * or removed (the hidden ".NAME.PID.N.tmp" files beside each output), so an
 * interrupted run leaves none. Async-signal-safe (atomic loads and unlink(2)
 * only): meant for a SIGINT or SIGTERM handler, which should then re-raise
 * the signal with its default action. The outputs of the run are left as
 * they were (the previous ones). A file staged in the instant the handler
 * runs may be missed; the next run in that folder removes it, as it removes
 * the staged files of any process that no longer exists.
 */
void opmfu_remove_staged(void);

/*
 * Merges shard results (opmfu_analyze with shard_n > 0) into the result one
 * run over all their ranks writes (SPEC 22): opts->out_dir, exports,
 * csv_verbatim and the callbacks are used, the rest ignored. inputs are
 * the shards' result databases. Shards of different runs, or of different
 * N, and a rank in two shards are OPMFU_ERR_USAGE (nothing written); missing
 * shards are OPMFU_ERR_PARTIAL after the others are merged, as are failed
 * ranks. The run's tables are opmfu_analyze's ("OpmfuShard" too: the
 * shards merged, one row per shard).
 */
enum opmfu_status opmfu_merge(const struct opmfu_opts *opts, struct opmfu_run **run, struct opmfu_err *err);

/* The run's table of that name, or NULL when it has none ("OpmfuShard": a
 * shard result's, or a merge's, rows). */
const struct opmfu_rows *opmfu_run_rows(const struct opmfu_run *run, const char *table);
size_t opmfu_rows_count(const struct opmfu_rows *t);
/* The index of a column by name; -1 when the table has none. */
int opmfu_rows_col(const struct opmfu_rows *t, const char *name);
/* A cell as a number: NaN when NULL, a text, or col < 0. */
double opmfu_rows_num(const struct opmfu_rows *t, size_t row, int col);
/* A cell as text (NUL-terminated, valid while the run lives): NULL when NULL, a number, or col < 0. */
const char *opmfu_rows_text(const struct opmfu_rows *t, size_t row, int col);

/*
 * The rows of OpmfuRankSummary rs a bounded view shows (the terminal report
 * and the HTML report share the rule, trace/rank_pick.h): with at most 8 of
 * n_analysed (OpmfuRun.ranks_analysed), every analysed rank; else the median
 * rank's row, the best and worst trace MFU and up to OPMFU_SHOWN_SLOW
 * slowest median steps. Rows into rows[], their OPMFU_SHOWN_* into roles[]
 * (room for OPMFU_SHOWN_MAX each); returns their count.
 */
#define OPMFU_SHOWN_MAX 8
#define OPMFU_SHOWN_SLOW 5
enum { OPMFU_SHOWN_RANK, OPMFU_SHOWN_MEDIAN, OPMFU_SHOWN_BEST, OPMFU_SHOWN_WORST, OPMFU_SHOWN_SLOW_RANK };
size_t opmfu_rows_ranks_shown(const struct opmfu_rows *rs, size_t n_analysed, double median_rank, size_t *rows,
			      int *roles);

/* What the run wrote: paths (NULL: not written) and counts. */
enum opmfu_run_output {
	OPMFU_OUT_DIR,  /* OUT/cluster_analysis_output */
	OPMFU_OUT_DB,   /* cluster_analysis.db */
	OPMFU_OUT_XLSX, /* the folder of the workbooks */
	OPMFU_OUT_CSV,  /* the folder of the CSV files */
	OPMFU_OUT_JSON, /* the folder of the JSON Lines files */
	OPMFU_OUT_HTML, /* opmfu_report.html */
};
const char *opmfu_run_path(const struct opmfu_run *run, enum opmfu_run_output which);
/* Files written there: workbooks for OPMFU_OUT_XLSX, tables for _CSV and _JSON. */
size_t opmfu_run_files(const struct opmfu_run *run, enum opmfu_run_output which);
/* Wall time of the whole run. */
double opmfu_run_seconds(const struct opmfu_run *run);
/* Stages of one rank, for --timings (not results: they differ run to run). */
enum opmfu_stage {
	OPMFU_STAGE_READ,   /* reading and joining the input */
	OPMFU_STAGE_KERNEL, /* kernel-level MFU */
	OPMFU_STAGE_MODULE, /* the module tree and ModuleMFU, op units, steps, hotspots */
	OPMFU_STAGE_WRITE,  /* the writer's own time on the rank: rows, workbooks */
	OPMFU_NSTAGE
};
/* Seconds of stage for OpmfuRankSummary's row i; -1 past the end. */
double opmfu_run_stage_seconds(const struct opmfu_run *run, size_t i, enum opmfu_stage stage);

/* Parses "fp16=353.9,int8=707.8,bw=3.35" (classes OPMFU_PEAK_CLASSES; TFLOPS;
 * bw: peak memory bandwidth, TB/s) into tflops[OPMFU_NCLASS] and *bw_tbps (0
 * when not given). bw_tbps NULL: bw= is refused as an unknown class. Returns
 * 0, or -1 with a message in msg. */
int opmfu_parse_peak_spec(const char *spec, double *tflops, double *bw_tbps, char *msg, size_t msgsz);
/* Parses --time-range's "START:END" (each a number with a unit ns, us, ms or s; START empty: 0,
 * END empty: the end, LLONG_MAX) into *from_ns and *to_ns. Returns 0, or -1 when malformed or
 * START >= END (nothing set). */
int opmfu_parse_time_range(const char *s, long long *from_ns, long long *to_ns);
/* Parses --peak-bw's TBPS: 0, or -1 with a message naming the value in msg. */
int opmfu_parse_peak_bw(const char *arg, double *bw_tbps, char *msg, size_t msgsz);

/* A duration as views and messages show it: "950 ns", "12.50 us", "3.20 ms", "1.25 s";
 * "-" when negative or NaN. */
void opmfu_format_ns(double ns, char *out, size_t size);

/* A kernel's name as views show it (SPEC 20): "void ", template arguments
 * (but a lone identifier) and parameter lists dropped, then cut from the
 * right to width bytes with "..." (0: no cut); tables keep the whole name.
 * Writes out (size bytes, NUL-terminated) and returns its length. */
size_t opmfu_kernel_short_name(const char *name, size_t width, char *out, size_t size);

/* Built-in chip table access for `opmfu chips`. */
struct opmfu_chip_row {
	const char *name, *aliases, *source;
	double fp32, tf32, fp16, fp8, int8, fp4;
	double bw;             /* peak memory bandwidth, TB/s; 0 = no public figure */
	const char *bw_source;
};
/* Returns row i, or 0 past the end. */
int opmfu_chip_row(size_t i, struct opmfu_chip_row *row);

/* ---- Model-level MFU (SPEC 12): `opmfu model` ---- */

/* The seed conventions, indexes of opmfu_model_result.conv. */
enum opmfu_convention {
	OPMFU_CONV_PALM,         /* nanoGPT's 6N + 12·L·H·Q·T */
	OPMFU_CONV_KEMPNERFORGE, /* 6·active + 12·L·D·S */
	OPMFU_CONV_MAXTEXT,      /* 3 x the sum of the step's matmuls, causal attention halved */
	OPMFU_CONV_VERL_OMNI,    /* diffusion transformers: Qwen-Image, Wan */
	OPMFU_NCONV
};

/* "palm", "kempnerforge", "maxtext", "verl-omni"; NULL past the end. */
const char *opmfu_convention_name(int conv);
/* The convention of that name, or -1. */
int opmfu_convention_find(const char *name);

/* What to compute. Zero means "not given" unless said otherwise. */
struct opmfu_model_opts {
	const char *config;          /* a Hugging Face or diffusers transformer config.json */
	const char *const *set;      /* "FIELD=VALUE": supply or replace config fields */
	size_t n_set;
	long long seq_len;           /* tokens per sequence; diffusion: latent tokens per sample */
	long long prompt_len;        /* diffusion: prompt tokens per sample; -1 = not given */
	long long global_batch;      /* sequences (samples) per step */
	long long tokens_per_step;   /* decoders: instead of global_batch */
	long long world_size;        /* devices; 0 = 1 */
	long long dp;                /* data-parallel size (verl-omni); 0 = world_size */
	long long timesteps;         /* diffusion: denoising steps per step; 0 = 1 */
	long long cfg_passes;        /* diffusion: forward passes per timestep; 0 = 1 */
	int forward_only;            /* no backward pass */
	int no_causal;               /* decoders: attention over every (query, key) pair */
	double step_time;            /* seconds per step, for MFU */
	double peak_tflops[OPMFU_NCLASS]; /* overrides per class, as opmfu_opts */
	const char *peak_origin;
	const char *chip;
	int dtype_class;             /* OPMFU_CLASS_*: the peak MFU divides by (0 is fp32: set it) */
	unsigned conventions;        /* bits 1 << enum opmfu_convention; 0 = every one that applies */
};

struct opmfu_model_conv {
	const char *name;
	int shown;                 /* asked for, or (none asked for) applies */
	int applies;               /* 0: text says why not */
	double flops_per_token;    /* -1: the convention has none */
	double flops_per_step;     /* all devices; -1 without a batch or tokens per step */
	double flops_per_device;   /* per step on one device; -1 likewise */
	double mfu;                /* flops_per_device / (step_time x peak); -1 without them */
	double params;             /* palm's N, kempnerforge's active parameters; else 0 */
	char text[480];            /* what it counts and how it differs, or why it does not apply */
	char flag[96];             /* a caution the row's numbers need beside them, e.g. palm on a mixture of
				      experts: "counts all 8 experts, not the top 2"; empty: none */
};

struct opmfu_model_result {
	char arch[64];             /* model_type or _class_name */
	int diffusion;
	char model[512];           /* the architecture in one line */
	double params;             /* every parameter of a decoder; 0 for diffusion */
	long long seq_len, prompt_len, global_batch, world_size, dp, timesteps, cfg_passes;
	int world_defaulted;       /* neither --world-size nor --dp given: world_size is 1 by default */
	double tokens_per_step;    /* 0: unknown */
	int forward_only, causal;
	double step_time;
	double peak_tflops;        /* of the dtype class asked for; 0: none */
	char peak_source[256];     /* where it came from, or what would supply it */
	struct opmfu_model_conv conv[OPMFU_NCONV];
};

/* Reads the config, checks the run options against it (OPMFU_ERR_USAGE
 * naming the option) and fills res. No memory to release. */
enum opmfu_status opmfu_model_compute(const struct opmfu_model_opts *o, struct opmfu_model_result *res,
				      struct opmfu_err *err);

/* ---- Comparing two runs (SPEC 14, 15): `opmfu diff BASE NEW` ---- */

/* The kinds of OpmfuDiff rows, in the table's order (docs/output-schema.md
 * says what each kind's columns hold). */
enum opmfu_diff_kind {
	OPMFU_DIFF_STEP_SHARE, /* a part of the step time (SPEC 11's waterfall) */
	OPMFU_DIFF_MODULE,     /* a module path: the ops directly under it */
	OPMFU_DIFF_OP_TYPE,    /* an op name */
	OPMFU_DIFF_COLLECTIVE, /* a collective kind and group (OpmfuCollectives), by exposed time (SPEC 19) */
	OPMFU_DIFF_MODEL,      /* a model-FLOPs convention (OpmfuModel, the whole run) */
	OPMFU_DIFF_RANK,       /* a rank analysed on one side only */
	OPMFU_NDIFF_KIND
};

/* "step_share", "module", "op_type", "collective", "model", "rank"; "?" past the end. */
const char *opmfu_diff_kind_name(int kind);

struct opmfu_diff_opts {
	const char *paths[2]; /* BASE, NEW: each an opmfu result (database or folder) or an input path */
	/* How input paths are analysed, as opmfu_analyze takes it (inputs,
	 * out_dir and exports are the diff's own); ranks, when given, also
	 * choose the ranks of results; the callbacks serve the whole diff. */
	struct opmfu_opts analyze;
	const char *out_dir;  /* write OpmfuDiff under OUT/cluster_analysis_output/; NULL: nothing */
	/* OPMFU_EXPORT_DB, _CSV, _JSON (OpmfuDiff), _XLSX (opmfu_summary.xlsx:
	 * NEW's summary sheets and the Diff sheet), _HTML (opmfu_report.html:
	 * the Diff and NEW's report); 0 means DB */
	unsigned exports;
};

/* One row of OpmfuDiff. Index 0 is BASE, 1 NEW. NAN stands for NULL: the
 * name is not on that side, or the value is unknown there. Times are whole
 * nanoseconds. */
struct opmfu_diff_row {
	enum opmfu_diff_kind kind;
	const char *name;
	double kernel_ns[2], flops[2], mfu[2], lost_ns[2];
	double delta_lost_ns; /* NEW - BASE, a side without the name counting 0 */
};

struct opmfu_diff_side {
	char *path;          /* as given */
	char *db;            /* the result database read; NULL for an input analysed (its folder is gone) */
	int analysed;        /* an input path, analysed for the diff */
	size_t ranks;        /* ranks analysed (now or when the result was written) */
	int *failed;         /* ranks whose analysis failed: not compared */
	size_t n_failed;
	int *only;           /* ranks analysed here and not on the other side */
	size_t n_only;
	size_t steps;        /* OpmfuSteps rows of the compared ranks */
	int has_model;       /* OpmfuModel has rows for the run */
};

struct opmfu_diff {
	struct opmfu_diff_side side[2];
	int *compared;       /* ranks analysed on both sides, ascending */
	size_t n_compared;
	struct opmfu_diff_row *rows; /* by kind; within module, op_type and collective by delta_lost_ns, largest first */
	size_t n_rows;
	char *out_db, *csv_dir, *json_dir; /* written, or NULL */
	char *summary_xlsx;  /* the summary workbook written, or NULL */
	char *html;          /* opmfu_report.html written (the Diff and NEW's report), or NULL */
	void *store;         /* the rows' names */
	double seconds;
};

/*
 * Compares two runs. Returns OPMFU_OK, OPMFU_ERR_PARTIAL when ranks of an
 * input path failed to be analysed (the others were compared and written),
 * or an error (message in err). d is filled in every case and must be
 * released.
 */
enum opmfu_status opmfu_diff(const struct opmfu_diff_opts *o, struct opmfu_diff *d, struct opmfu_err *err);
void opmfu_diff_release(struct opmfu_diff *d);

/* Rank ids as a list: "0-3, 8, 10-11" (v ascending), cut with "..." to fit. */
void opmfu_format_ranks(const int *v, size_t n, char *out, size_t size);

#endif
