/*
 * gen_synth.c - writes a synthetic Ascend profiling tree for benchmarks: R
 * ranks of N compute kernels each, shaped like a transformer training run.
 *
 * Each rank directory looks like a real export (SPEC 1.1): the profiler
 * database with the tables and columns of real files (PYTORCH_API times are
 * TEXT, TASK has the TaskIndex of real files) and a PROF_* chip info file
 * (24 AI cores at 1800 MHz). One training step is: embedding, L decoder
 * layers (RMSNorm, attention with QKV/out projections and flash attention,
 * MLP with gate-up/SwiGLU/down, tensor-parallel all-reduces inside the
 * modules), loss, then the backward pass on the autograd thread (outside
 * every module, two matmuls per linear) and the optimizer. Each framework op
 * is written the way torch_npu writes it: the aten:: row, the op-command row
 * (aclnnMm, ...) that the kernels link to through CONNECTION_IDS, an
 * Enqueue row and a Dequeue@ row on the task-queue thread. Most matmul and
 * attention ops sit in an mfu_flops range; some ranges overlap others from a
 * second thread; module ranges nest six levels deep.
 *
 * The output depends only on the options (--seed): no clock, no pid.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

static const char usage[] =
	"usage: gen_synth -o DIR [options]\n"
	"\n"
	"Writes DIR/{worker}_{pid}_{timestamp}_ascend_pt/ per rank, with\n"
	"ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{rank}.db and\n"
	"PROF_.../device_{id}/info.json.{id}.\n"
	"\n"
	"options:\n"
	"  -o, --out DIR       output directory (created; existing rank databases are replaced)\n"
	"  -r, --ranks R       number of ranks (default 1)\n"
	"  -n, --kernels N     compute kernels per rank (default 100000)\n"
	"  -l, --layers L      decoder layers of the model (default 32)\n"
	"  -s, --seed S        random seed (default 1); the output depends only on the options\n"
	"  -q, --quiet         no progress on stderr\n"
	"  -S, --step-marks    a STEP_TIME row per training step (its host span)\n"
	"  -h, --help          show this help\n";

#define T0 INT64_C(1753437664000000000) /* 2025-07-25, the first host timestamp */
#define MAX_DEPTH 16

/* ---- deterministic randomness (splitmix64) ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* 1 with probability 1/n */
static int one_in(uint64_t *s, unsigned n)
{
	return rng_next(s) % n == 0;
}

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("gen_synth: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* ---- string table: value -> STRING_IDS id, written at the end ---- */

struct strtab {
	char *pool;
	size_t len, cap;
	size_t *off; /* by id */
	uint32_t n, n_cap;
	uint32_t *slot; /* open addressing over ids, 0 = empty (ids start at 1) */
	size_t slot_cap;
};

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void strtab_grow(struct strtab *t)
{
	size_t cap = t->slot_cap ? t->slot_cap * 2 : 4096, i;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		die("out of memory");
	for (i = 1; i <= t->n; i++) {
		size_t h = fnv(t->pool + t->off[i]) & (cap - 1);
		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = (uint32_t)i;
	}
	free(t->slot);
	t->slot = slot;
	t->slot_cap = cap;
}

static uint32_t strtab_id(struct strtab *t, const char *s)
{
	size_t h, n = strlen(s);
	if ((size_t)(t->n + 1) * 2 > t->slot_cap)
		strtab_grow(t);
	h = fnv(s) & (t->slot_cap - 1);
	while (t->slot[h]) {
		if (strcmp(t->pool + t->off[t->slot[h]], s) == 0)
			return t->slot[h];
		h = (h + 1) & (t->slot_cap - 1);
	}
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->pool = xrealloc(t->pool, t->cap);
	}
	if (t->n + 2 > t->n_cap) {
		t->n_cap = t->n_cap ? t->n_cap * 2 : 1024;
		t->off = xrealloc(t->off, t->n_cap * sizeof(*t->off));
	}
	memcpy(t->pool + t->len, s, n + 1);
	t->off[++t->n] = t->len;
	t->len += n + 1;
	t->slot[h] = t->n;
	return t->n;
}

/* ---- one rank ---- */

enum { TH_MAIN, TH_BWD, TH_QUEUE, TH_SIDE, TH__COUNT };

struct model {
	int layers, hidden, ffn, heads, seq, tp;
	const char *dt;     /* activation dtype name: DT_BF16 or FLOAT16 */
};

struct gen {
	sqlite3 *db;
	sqlite3_stmt *ins_str, *ins_task, *ins_cti, *ins_conn, *ins_api, *ins_mstx, *ins_comm;
	struct strtab strs;
	uint64_t rng;
	struct model m;
	int rank;
	int64_t budget;            /* compute kernels still to write */
	int64_t host, dev, comm_dev; /* host clock, compute stream and comm stream free times */
	int64_t tid[TH__COUNT];
	int64_t next_task, next_conn, next_cid, next_opid;
	uint32_t d_flops, d_module; /* domain string ids */
	struct {
		uint32_t name;
		int64_t start;
	} mod[MAX_DEPTH];
	int depth;
	int64_t n_rows;
};

static void step_or_die(struct gen *g, sqlite3_stmt *s)
{
	if (sqlite3_step(s) != SQLITE_DONE)
		die("insert: %s", sqlite3_errmsg(g->db));
	sqlite3_reset(s);
	g->n_rows++;
}

static void exec_or_die(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		die("%s: %s", sql, msg ? msg : "?");
}

static uint32_t str(struct gen *g, const char *s)
{
	return strtab_id(&g->strs, s);
}

static uint32_t strf(struct gen *g, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return strtab_id(&g->strs, buf);
}

static void bind_ns_text(sqlite3_stmt *s, int col, int64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%" PRId64, v);
	sqlite3_bind_text(s, col, buf, n, SQLITE_TRANSIENT);
}

/* PYTORCH_API row; conn < 0 writes NULL (framework rows have no connection) */
static void api(struct gen *g, int64_t start, int64_t end, int th, int64_t conn, uint32_t name, int depth)
{
	sqlite3_stmt *s = g->ins_api;
	bind_ns_text(s, 1, start);
	bind_ns_text(s, 2, end);
	sqlite3_bind_int64(s, 3, g->tid[th]);
	if (conn >= 0)
		sqlite3_bind_int64(s, 4, conn);
	else
		sqlite3_bind_null(s, 4);
	sqlite3_bind_int64(s, 5, name);
	sqlite3_bind_int(s, 6, depth);
	step_or_die(g, s);
}

static void conn_row(struct gen *g, int64_t id, int64_t conn)
{
	sqlite3_bind_int64(g->ins_conn, 1, id);
	sqlite3_bind_int64(g->ins_conn, 2, conn);
	step_or_die(g, g->ins_conn);
}

static int64_t task(struct gen *g, int64_t start, int64_t end, int64_t conn, int type, int stream)
{
	sqlite3_stmt *s = g->ins_task;
	int64_t id = g->next_task++;
	sqlite3_bind_int64(s, 1, start);
	sqlite3_bind_int64(s, 2, end);
	sqlite3_bind_int(s, 3, g->rank % 8);
	sqlite3_bind_int64(s, 4, conn);
	sqlite3_bind_int64(s, 5, id);
	sqlite3_bind_int64(s, 6, 3136493 + g->rank);
	sqlite3_bind_int(s, 7, type);
	sqlite3_bind_int(s, 8, stream);
	sqlite3_bind_int64(s, 9, id & 0xffff);
	step_or_die(g, s);
	return id;
}

static void mstx(struct gen *g, int64_t start, int64_t end, uint32_t msg, uint32_t domain, int th)
{
	sqlite3_stmt *s = g->ins_mstx;
	sqlite3_bind_int64(s, 1, start);
	sqlite3_bind_int64(s, 2, end);
	sqlite3_bind_int(s, 3, 2); /* start/end range */
	sqlite3_bind_int64(s, 4, msg);
	sqlite3_bind_int64(s, 5, g->tid[th]);
	sqlite3_bind_int64(s, 6, domain);
	step_or_die(g, s);
}

static void mod_push(struct gen *g, const char *name)
{
	if (g->depth == MAX_DEPTH)
		die("module tree too deep");
	g->mod[g->depth].name = str(g, name);
	g->mod[g->depth].start = g->host;
	g->depth++;
	g->host += rng_range(&g->rng, 1000, 3000);
}

static void mod_pop(struct gen *g)
{
	g->depth--;
	g->host += rng_range(&g->rng, 1000, 3000);
	mstx(g, g->mod[g->depth].start, g->host, g->mod[g->depth].name, g->d_module, TH_MAIN);
	g->host += 500;
}

/* A kernel an op launches. */
struct kern {
	const char *name;
	const char *in_shapes, *in_dtypes, *out_shapes; /* shapes without the quotes */
	int64_t ns; /* device time */
};

/* kernel duration of a matmul-class kernel: flops at 45..85% of the 353.9 TFLOPS peak */
static int64_t mm_ns(struct gen *g, double flops)
{
	double eff = (double)rng_range(&g->rng, 45, 85) / 100.0;
	int64_t ns = (int64_t)(flops / (353.894e12 * eff) * 1e9);
	return ns > 2000 ? ns : 2000;
}

/* duration of a memory-bound kernel moving `elems` elements */
static int64_t mem_ns(struct gen *g, double elems)
{
	int64_t ns = (int64_t)(elems * 4 / 1.2e12 * 1e9) + rng_range(&g->rng, 1500, 4000);
	return ns;
}

/*
 * One framework op: `fw` (aten::..., no connection) around the op-command
 * row `cmd` that launches the kernels, with its Enqueue row and the matching
 * Dequeue@cmd row on the task-queue thread. flops > 0 wraps the op in an
 * mfu_flops range named flops_name. Stops at the kernel budget.
 */
static void op(struct gen *g, int th, const char *fw, const char *cmd, const struct kern *k, int nk, double flops,
	       const char *flops_name)
{
	int64_t s = g->host, e, cs, ce, launch, conn_id, queue_conn;
	int i, depth = 2;

	if (g->budget <= 0)
		return;
	if (nk > g->budget)
		nk = (int)g->budget;
	e = s + rng_range(&g->rng, 25000, 70000) + 4000 * nk;
	cs = s + rng_range(&g->rng, 6000, 12000);
	ce = e - rng_range(&g->rng, 2000, 4000);
	if (th == TH_BWD) {
		char buf[160];
		snprintf(buf, sizeof(buf), "autograd::engine::evaluate_function: %sBackward0", cmd + 5);
		api(g, s - 3000, e + 3000, th, -1, str(g, buf), 0);
		depth = 1;
	}
	api(g, s, e, th, -1, str(g, fw), depth);
	api(g, s + 1500, s + 4500, th, -1, str(g, "empty_tensor"), depth + 1);
	conn_id = g->next_cid++;
	api(g, cs, ce, th, conn_id, str(g, cmd), depth + 1);
	/* the task queue: Enqueue and Dequeue share a connection no task has */
	queue_conn = g->next_conn++;
	conn_row(g, g->next_cid, queue_conn);
	api(g, cs + 1500, ce - 1500, th, g->next_cid++, str(g, "Enqueue"), depth + 2);
	conn_row(g, g->next_cid, queue_conn);
	api(g, ce + 800, ce + 800 + rng_range(&g->rng, 6000, 20000), TH_QUEUE, g->next_cid++,
	    strf(g, "Dequeue@%s", cmd), 0);

	launch = ce + 20000;
	if (g->dev < launch)
		g->dev = launch;
	for (i = 0; i < nk; i++) {
		int64_t conn = g->next_conn++, dur = k[i].ns, id;
		char in[256], out[256];
		sqlite3_stmt *c = g->ins_cti;
		/* now and then a kernel too short for the timer (SPEC 2.5) */
		if (one_in(&g->rng, 20000))
			dur = 0;
		conn_row(g, conn_id, conn);
		id = task(g, g->dev, g->dev + dur, conn, 2, 2);
		g->dev += dur + rng_range(&g->rng, 800, 3000);
		snprintf(in, sizeof(in), "\"%s\"", k[i].in_shapes);
		snprintf(out, sizeof(out), "\"%s\"", k[i].out_shapes);
		sqlite3_bind_int64(c, 1, str(g, k[i].name));
		sqlite3_bind_int64(c, 2, id);
		sqlite3_bind_int(c, 3, (int)rng_range(&g->rng, 8, 48));
		sqlite3_bind_int64(c, 4, str(g, "AI_CORE"));
		sqlite3_bind_int64(c, 5, str(g, k[i].name));
		sqlite3_bind_int64(c, 6, str(g, "ND;ND"));
		sqlite3_bind_int64(c, 7, str(g, k[i].in_dtypes));
		/* AI_CPU kernels report no shapes */
		sqlite3_bind_int64(c, 8, str(g, strcmp(k[i].in_shapes, "N/A") ? in : "N/A"));
		sqlite3_bind_int64(c, 9, str(g, "ND"));
		sqlite3_bind_int64(c, 10, str(g, k[i].in_dtypes));
		sqlite3_bind_int64(c, 11, str(g, strcmp(k[i].out_shapes, "N/A") ? out : "N/A"));
		step_or_die(g, c);
	}
	g->budget -= nk;
	if (flops > 0 && !one_in(&g->rng, 25)) {
		char msg[96];
		/* some torch_npu versions write FLOPs as a Python float (SPEC 1.3) */
		if (one_in(&g->rng, 50) && flops < 1e16)
			snprintf(msg, sizeof(msg), "%.1f-%s", flops, flops_name);
		else
			snprintf(msg, sizeof(msg), "%.0f-%s", flops, flops_name);
		mstx(g, s - rng_range(&g->rng, 500, 1500), e + rng_range(&g->rng, 500, 1500), str(g, msg),
		     g->d_flops, th);
	}
	g->host = e + rng_range(&g->rng, 2000, 8000);
}

/* a FLOPs-less single-kernel op (norms, activations, adds, ...) */
static void simple(struct gen *g, int th, const char *fw, const char *cmd, const char *kname, const char *shape,
		   double elems)
{
	char dt[64];
	struct kern k;
	snprintf(dt, sizeof(dt), "%s;%s", g->m.dt, g->m.dt);
	k = (struct kern){ kname, shape, dt, shape, mem_ns(g, elems) };
	op(g, th, fw, cmd, &k, 1, 0, NULL);
}

/*
 * y[m,n] = x[m,k] w[n,k]^T as aclnnMm: TransData on the weight now and then,
 * the MatMulV3, and a Cast when the output is kept in fp32.
 */
static void matmul(struct gen *g, int th, const char *fw, const char *flops_name, int m, int n, int kd)
{
	char in[128], out[64], wt[64], dt[64], dt1[32];
	struct kern k[3];
	int nk = 0;
	double flops = 2.0 * m * n * kd;

	snprintf(in, sizeof(in), "%d,%d;%d,%d", m, kd, n, kd);
	snprintf(out, sizeof(out), "%d,%d", m, n);
	snprintf(wt, sizeof(wt), "%d,%d", n, kd);
	snprintf(dt, sizeof(dt), "%s;%s", g->m.dt, g->m.dt);
	snprintf(dt1, sizeof(dt1), "%s", g->m.dt);
	if (one_in(&g->rng, 3))
		k[nk++] = (struct kern){ "TransData", wt, dt1, wt, mem_ns(g, (double)n * kd) };
	k[nk++] = (struct kern){ "MatMulV3", in, dt, out, mm_ns(g, flops) };
	if (one_in(&g->rng, 4))
		k[nk++] = (struct kern){ "Cast", out, dt1, out, mem_ns(g, (double)m * n) };
	op(g, th, fw, "aclnnMm", k, nk, flops, flops_name);
}

/* an int8 weight-quantised matmul: the record's dtype class is int8 */
static void quant_matmul(struct gen *g, int th, int m, int n, int kd)
{
	char in[128], out[64];
	struct kern k;
	double flops = 2.0 * m * n * kd;
	snprintf(in, sizeof(in), "%d,%d;%d,%d;%d", m, kd, n, kd, n);
	snprintf(out, sizeof(out), "%d,%d", m, n);
	k = (struct kern){ "QuantBatchMatmulV3", in, "INT8;INT8;FLOAT", out, mm_ns(g, flops) / 2 };
	op(g, th, "npu::npu_quant_matmul", "aclnnQuantMatmulV4", &k, 1, flops, "npu_quant_matmul");
}

static void flash_attention(struct gen *g, int th, int grad)
{
	const struct model *m = &g->m;
	int heads = m->heads / m->tp, hd = m->hidden / m->heads;
	char q[64], dt[96];
	struct kern k;
	double flops = 4.0 * m->seq * m->seq * hd * heads * (grad ? 2.5 : 1.0) / 2; /* causal */

	snprintf(q, sizeof(q), "1,%d,%d,%d", heads, m->seq, hd);
	snprintf(dt, sizeof(dt), "%s;%s;%s;UINT8;FLOAT", m->dt, m->dt, m->dt);
	k = (struct kern){ grad ? "FlashAttentionScoreGrad" : "FlashAttentionScore", q, dt, q, mm_ns(g, flops) };
	op(g, th, grad ? "npu::npu_fusion_attention_grad" : "npu::npu_fusion_attention",
	   grad ? "aclnnFlashAttentionScoreGrad" : "aclnnFlashAttentionScore", &k, 1, flops,
	   grad ? "npu_fusion_attention_grad" : "npu_fusion_attention");
}

/* a tensor-parallel all-reduce: COMMUNICATION_OP linked to an HcclAllreduce row, plus its HCCL tasks */
static void allreduce(struct gen *g, int th, double bytes)
{
	sqlite3_stmt *s = g->ins_comm;
	int64_t start = g->host, conn = g->next_conn++, cid = g->next_cid++, dur, cs;
	int i;

	if (g->budget <= 0)
		return;
	api(g, start, start + 30000, th, cid, str(g, "HcclAllreduce"), 2);
	conn_row(g, cid, conn);
	cs = g->dev > g->comm_dev ? g->dev : g->comm_dev;
	dur = (int64_t)(bytes / 50e9 * 1e9) + 20000;
	for (i = 0; i < 3; i++)
		task(g, cs + i * dur / 3, cs + (i + 1) * dur / 3, conn, i == 1 ? 1 : 18, 5);
	sqlite3_bind_int64(s, 1, strf(g, "hcom_allReduce__%d_%" PRId64 "_1", 100 + g->rank % 8, g->next_opid));
	sqlite3_bind_int64(s, 2, cs);
	sqlite3_bind_int64(s, 3, cs + dur);
	sqlite3_bind_int64(s, 4, conn);
	sqlite3_bind_int64(s, 5, str(g, "tp_group_0"));
	sqlite3_bind_int64(s, 6, g->next_opid++);
	sqlite3_bind_int64(s, 7, str(g, "DT_BF16"));
	sqlite3_bind_int64(s, 8, str(g, "MESH-RING-NA"));
	sqlite3_bind_double(s, 9, bytes / 2);
	sqlite3_bind_int64(s, 10, str(g, "hcom_allReduce_"));
	step_or_die(g, s);
	g->comm_dev = cs + dur;
	g->host = start + 35000;
}

static void shape2(char *buf, size_t n, int a, int b)
{
	snprintf(buf, n, "%d,%d", a, b);
}

static void rms_norm(struct gen *g, int th, int grad)
{
	char sh[32];
	shape2(sh, sizeof(sh), g->m.seq, g->m.hidden);
	/* module ranges come from forward hooks: backward ops are outside every module */
	if (!grad)
		mod_push(g, "RMSNorm");
	simple(g, th, grad ? "npu::npu_rms_norm_backward" : "npu::npu_rms_norm", grad ? "aclnnRmsNormGrad" : "aclnnRmsNorm",
	       grad ? "RmsNormGrad" : "RmsNorm", sh, (double)g->m.seq * g->m.hidden);
	if (!grad)
		mod_pop(g);
}

/* a layout change before/after attention: one Transpose kernel */
static void transpose(struct gen *g, int th, const char *shape, double elems)
{
	simple(g, th, "aten::contiguous", "aclnnInplaceCopy", "Transpose", shape, elems);
}

/* dropout: the mask comes from an AI_CPU kernel, which reports no shapes */
static void dropout(struct gen *g, int th, const char *shape, double elems, int grad)
{
	struct kern k = { "DropOutGenMaskV3", "N/A", "INT64;FLOAT", "N/A", mem_ns(g, elems / 8) };
	if (!grad)
		op(g, th, "aten::native_dropout", "aclnnDropoutGenMaskV2", &k, 1, 0, NULL);
	simple(g, th, grad ? "aten::native_dropout_backward" : "aten::native_dropout", "aclnnDropoutDoMask",
	       "DropOutDoMaskV3", shape, elems);
}

static void layer_forward(struct gen *g, int li)
{
	const struct model *m = &g->m;
	int s = m->seq, h = m->hidden, hp = m->hidden / m->tp, fp = m->ffn / m->tp;
	char sh[32];

	shape2(sh, sizeof(sh), s, h);
	mod_push(g, "ParallelTransformerLayer");
	rms_norm(g, TH_MAIN, 0);
	mod_push(g, "ParallelAttention");
	mod_push(g, "ColumnParallelLinear");
	mod_push(g, "LinearWithGradAccumulation");
	matmul(g, TH_MAIN, "aten::linear", "linear", s, 3 * hp, h);
	mod_pop(g);
	mod_pop(g);
	transpose(g, TH_MAIN, sh, (double)s * hp);
	mod_push(g, "RotaryEmbedding");
	simple(g, TH_MAIN, "npu::npu_rotary_mul", "aclnnRotaryPositionEmbedding", "RotaryPositionEmbedding", sh,
	       (double)s * hp);
	simple(g, TH_MAIN, "npu::npu_rotary_mul", "aclnnRotaryPositionEmbedding", "RotaryPositionEmbedding", sh,
	       (double)s * hp);
	mod_pop(g);
	mod_push(g, "CoreAttention");
	{
		/* a nested call on a side thread: its record overlaps the main one */
		int64_t side = g->host;
		flash_attention(g, TH_MAIN, 0);
		if (li % 4 == 1 && g->budget > 0) {
			char msg[64];
			snprintf(msg, sizeof(msg), "%.0f-matmul", 2.0 * s * s * hp);
			mstx(g, side - 4000, g->host + 1000, str(g, msg), g->d_flops, TH_SIDE);
		}
	}
	mod_pop(g);
	transpose(g, TH_MAIN, sh, (double)s * hp);
	mod_push(g, "RowParallelLinear");
	matmul(g, TH_MAIN, "aten::linear", "linear", s, h, hp);
	allreduce(g, TH_MAIN, 2.0 * s * h);
	mod_pop(g);
	mod_pop(g);
	dropout(g, TH_MAIN, sh, (double)s * h, 0);
	simple(g, TH_MAIN, "aten::add", "aclnnAdd", "Add", sh, (double)s * h);
	rms_norm(g, TH_MAIN, 0);
	mod_push(g, "ParallelMLP");
	mod_push(g, "ColumnParallelLinear");
	matmul(g, TH_MAIN, "aten::linear", "linear", s, 2 * fp, h);
	mod_pop(g);
	simple(g, TH_MAIN, "npu::npu_swiglu", "aclnnSwiGlu", "SwiGlu", sh, (double)s * fp * 3);
	mod_push(g, "RowParallelLinear");
	if (li % 4 == 3)
		quant_matmul(g, TH_MAIN, s, h, fp);
	else
		matmul(g, TH_MAIN, "aten::linear", "linear", s, h, fp);
	allreduce(g, TH_MAIN, 2.0 * s * h);
	mod_pop(g);
	mod_pop(g);
	dropout(g, TH_MAIN, sh, (double)s * h, 0);
	simple(g, TH_MAIN, "aten::add", "aclnnAdd", "Add", sh, (double)s * h);
	mod_pop(g);
}

/* backward of one linear: grad input and grad weight (two recorded mms), then
 * the weight gradient is accumulated into main_grad */
static void linear_backward(struct gen *g, int m, int n, int kd)
{
	char w[32];
	shape2(w, sizeof(w), n, kd);
	matmul(g, TH_BWD, "aten::mm", "mm", m, kd, n);
	matmul(g, TH_BWD, "aten::mm", "mm", n, kd, m);
	simple(g, TH_BWD, "aten::add_", "aclnnInplaceAdd", "Add", w, (double)n * kd);
}

static void layer_backward(struct gen *g)
{
	const struct model *m = &g->m;
	int s = m->seq, h = m->hidden, hp = m->hidden / m->tp, fp = m->ffn / m->tp;
	char sh[32];

	shape2(sh, sizeof(sh), s, h);
	dropout(g, TH_BWD, sh, (double)s * h, 1);
	linear_backward(g, s, h, fp);
	simple(g, TH_BWD, "npu::npu_swiglu_backward", "aclnnSwiGluGrad", "SwiGluGrad", sh, (double)s * fp * 4);
	linear_backward(g, s, 2 * fp, h);
	rms_norm(g, TH_BWD, 1);
	simple(g, TH_BWD, "aten::add", "aclnnAdd", "Add", sh, (double)s * h);
	dropout(g, TH_BWD, sh, (double)s * h, 1);
	linear_backward(g, s, h, hp);
	transpose(g, TH_BWD, sh, (double)s * hp);
	flash_attention(g, TH_BWD, 1);
	transpose(g, TH_BWD, sh, (double)s * hp);
	simple(g, TH_BWD, "npu::npu_rotary_mul_backward", "aclnnRotaryPositionEmbeddingGrad",
	       "RotaryPositionEmbeddingGrad", sh, (double)s * hp);
	simple(g, TH_BWD, "npu::npu_rotary_mul_backward", "aclnnRotaryPositionEmbeddingGrad",
	       "RotaryPositionEmbeddingGrad", sh, (double)s * hp);
	linear_backward(g, s, 3 * hp, h);
	rms_norm(g, TH_BWD, 1);
	simple(g, TH_BWD, "aten::add", "aclnnAdd", "Add", sh, (double)s * h);
}

static void train_step(struct gen *g)
{
	const struct model *m = &g->m;
	int s = m->seq, h = m->hidden, vocab = 152064 / m->tp, i;
	char sh[32], emb[96];
	struct kern k;

	shape2(sh, sizeof(sh), s, h);
	mod_push(g, "GPTModel");
	mod_push(g, "LanguageModelEmbedding");
	mod_push(g, "VocabParallelEmbedding");
	/* index first: SPEC 5.1 skips INT64 when picking the dtype class */
	snprintf(emb, sizeof(emb), "%d;%d,%d", s, vocab, h);
	k = (struct kern){ "GatherV2", emb, "INT64;DT_BF16", sh, mem_ns(g, (double)s * h) };
	op(g, TH_MAIN, "aten::embedding", "aclnnEmbedding", &k, 1, 0, NULL);
	allreduce(g, TH_MAIN, 2.0 * s * h);
	mod_pop(g);
	mod_pop(g);
	mod_push(g, "TransformerBlock");
	for (i = 0; i < m->layers && g->budget > 0; i++)
		layer_forward(g, i);
	rms_norm(g, TH_MAIN, 0);
	mod_pop(g);
	mod_push(g, "ColumnParallelLinear");
	matmul(g, TH_MAIN, "aten::linear", "linear", s, vocab, h);
	mod_pop(g);
	mod_pop(g);
	simple(g, TH_MAIN, "aten::cross_entropy", "aclnnCrossEntropyLoss", "CrossEntropyLoss", sh, (double)s * vocab);
	/* an AI_CPU kernel: no shapes */
	k = (struct kern){ "DropOutGenMaskV3", "N/A", "INT64", "N/A", mem_ns(g, 1024) };
	op(g, TH_MAIN, "aten::item", "aclnnItem", &k, 1, 0, NULL);

	g->host += 20000;
	linear_backward(g, s, vocab, h);
	for (i = 0; i < m->layers && g->budget > 0; i++)
		layer_backward(g);
	allreduce(g, TH_BWD, 2.0 * s * h);

	/* optimizer (Adam): foreach kernels over the parameter groups, then zero_grad */
	for (i = 0; i < 16 && g->budget > 0; i++) {
		simple(g, TH_MAIN, "aten::_foreach_mul_", "aclnnForeachMulScalarV2", "ForeachMulScalar", sh,
		       (double)h * h);
		simple(g, TH_MAIN, "aten::_foreach_add_", "aclnnForeachAddListV2", "ForeachAddList", sh, (double)h * h);
		simple(g, TH_MAIN, "aten::_foreach_addcmul_", "aclnnForeachAddcmulScalarV2", "ForeachAddcmulScalar", sh,
		       (double)h * h);
		simple(g, TH_MAIN, "aten::_foreach_sqrt", "aclnnForeachSqrt", "ForeachSqrt", sh, (double)h * h);
		simple(g, TH_MAIN, "aten::_foreach_addcdiv_", "aclnnForeachAddcdivScalarV2", "ForeachAddcdivScalar",
		       sh, (double)h * h);
	}
	for (i = 0; i < 16 && g->budget > 0; i++)
		simple(g, TH_MAIN, "aten::zero_", "aclnnInplaceZero", "ZerosLike", sh, (double)h * h);
	/* the step ends with a synchronisation: the host waits for the device */
	if (g->host < g->dev)
		g->host = g->dev;
	if (g->host < g->comm_dev)
		g->host = g->comm_dev;
	g->host += rng_range(&g->rng, 100000, 300000);
}

static void prepare(struct gen *g, sqlite3_stmt **s, const char *sql)
{
	if (sqlite3_prepare_v2(g->db, sql, -1, s, NULL) != SQLITE_OK)
		die("%s: %s", sql, sqlite3_errmsg(g->db));
}

/* The DDL of real exports (columns as in torch_npu 2.x files). */
static const char ddl[] =
	"CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	"CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
	"globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,"
	"taskId INTEGER,modelId INTEGER, depth integer);"
	"CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,"
	"mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,inputDataTypes INTEGER,"
	"inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,outputShapes INTEGER,"
	"attrInfo INTEGER, waitNs INTEGER);"
	"CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);"
	"CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER,"
	"name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER,"
	"callchainId INTEGER, type INTEGER, depth integer);"
	"CREATE TABLE MSTX_EVENTS (startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER,"
	"category INTEGER, message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER,"
	"connectionId INTEGER);"
	"CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,"
	"groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType INTEGER,"
	"algType INTEGER,count NUMERIC,opType INTEGER, waitNs INTEGER);"
	"CREATE TABLE META_DATA (name TEXT, value TEXT);";
/* with --step-marks: one row per training step, its host span (what torch_npu's
 * profiler writes with a schedule) */
static const char ddl_steps[] = "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);";

static void write_rank_db(const char *path, int rank, int64_t kernels, int layers, uint64_t seed, int quiet,
			  int step_marks)
{
	struct gen g;
	sqlite3_stmt *s, *ins_step = NULL;
	int64_t step = 0;
	uint32_t i;
	static const int hiddens[] = { 4096, 5120, 8192 };

	memset(&g, 0, sizeof(g));
	g.rng = seed * 0x100000001B3ULL + (uint64_t)rank;
	rng_next(&g.rng);
	g.rank = rank;
	g.budget = kernels;
	/* the model is the same on every rank of a seed: ranks of one job run one model */
	{
		uint64_t ms = seed;
		g.m.hidden = hiddens[rng_next(&ms) % 3];
		g.m.ffn = g.m.hidden * 8 / 3 / 256 * 256;
		g.m.heads = g.m.hidden / 128;
		g.m.seq = 4096;
		g.m.tp = 8;
		g.m.layers = layers;
		g.m.dt = rng_next(&ms) % 4 ? "DT_BF16" : "FLOAT16";
	}
	g.host = T0 + rank * INT64_C(1000);
	g.dev = g.comm_dev = g.host;
	for (i = 0; i < TH__COUNT; i++)
		g.tid[i] = INT64_C(13471134862269421) + (int64_t)rank * 100000 + i * 3553;
	g.next_task = 0;
	g.next_conn = 936;
	g.next_cid = 0;

	if (remove(path) != 0 && errno != ENOENT)
		die("%s: cannot replace: %s", path, strerror(errno));
	if (sqlite3_open(path, &g.db) != SQLITE_OK)
		die("%s: %s", path, sqlite3_errmsg(g.db));
	exec_or_die(g.db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;");
	exec_or_die(g.db, ddl);
	exec_or_die(g.db, "BEGIN");
	prepare(&g, &g.ins_str, "INSERT INTO STRING_IDS VALUES (?,?)");
	prepare(&g, &g.ins_task, "INSERT INTO TASK (startNs,endNs,deviceId,connectionId,globalTaskId,globalPid,"
				 "taskType,contextId,streamId,taskId,modelId,depth) "
				 "VALUES (?,?,?,?,?,?,?,4294967295,?,?,4294967295,0)");
	prepare(&g, &g.ins_cti, "INSERT INTO COMPUTE_TASK_INFO (name,globalTaskId,blockDim,mixBlockDim,taskType,"
				"opType,inputFormats,inputDataTypes,inputShapes,outputFormats,outputDataTypes,"
				"outputShapes,attrInfo,waitNs) VALUES (?,?,?,0,?,?,?,?,?,?,?,?,0,0)");
	prepare(&g, &g.ins_conn, "INSERT INTO CONNECTION_IDS VALUES (?,?)");
	prepare(&g, &g.ins_api, "INSERT INTO PYTORCH_API (startNs,endNs,globalTid,connectionId,name,type,depth) "
				"VALUES (?,?,?,?,?,50002,?)");
	prepare(&g, &g.ins_mstx, "INSERT INTO MSTX_EVENTS (startNs,endNs,eventType,message,globalTid,endGlobalTid,"
				 "domainId) VALUES (?,?,?,?,?,?5,?)");
	prepare(&g, &g.ins_comm, "INSERT INTO COMMUNICATION_OP (opName,startNs,endNs,connectionId,groupName,opId,"
				 "relay,retry,dataType,algType,count,opType,waitNs) "
				 "VALUES (?,?,?,?,?,?,0,0,?,?,?,?,0)");
	g.d_flops = str(&g, "mfu_flops");
	g.d_module = str(&g, "Module");

	if (step_marks) {
		exec_or_die(g.db, ddl_steps);
		prepare(&g, &ins_step, "INSERT INTO STEP_TIME VALUES (?,?,?)");
	}
	while (g.budget > 0) {
		int64_t start = g.host;
		train_step(&g);
		if (ins_step) {
			sqlite3_bind_int64(ins_step, 1, ++step);
			sqlite3_bind_int64(ins_step, 2, start);
			sqlite3_bind_int64(ins_step, 3, g.host);
			step_or_die(&g, ins_step);
		}
		if (!quiet)
			fprintf(stderr, "\rrank %d: %" PRId64 " of %" PRId64 " kernels", rank, kernels - g.budget,
				kernels);
	}
	while (g.depth > 0)
		mod_pop(&g);
	if (!quiet)
		fputc('\n', stderr);

	s = g.ins_str;
	for (i = 1; i <= g.strs.n; i++) {
		sqlite3_bind_int64(s, 1, i);
		sqlite3_bind_text(s, 2, g.strs.pool + g.strs.off[i], -1, SQLITE_STATIC);
		step_or_die(&g, s);
	}
	exec_or_die(g.db, "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.1'),('generator','gen_synth')");
	sqlite3_finalize(g.ins_str);
	sqlite3_finalize(g.ins_task);
	sqlite3_finalize(g.ins_cti);
	sqlite3_finalize(g.ins_conn);
	sqlite3_finalize(g.ins_api);
	sqlite3_finalize(g.ins_mstx);
	sqlite3_finalize(g.ins_comm);
	sqlite3_finalize(ins_step);
	/* real exports index TASK like this */
	exec_or_die(g.db, "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId)");
	exec_or_die(g.db, "COMMIT");
	if (sqlite3_close(g.db) != SQLITE_OK)
		die("%s: cannot close", path);
	free(g.strs.pool);
	free(g.strs.off);
	free(g.strs.slot);
}

static void mkdir_or_die(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		die("%s: cannot create: %s", path, strerror(errno));
}

/* snprintf into a path buffer; a path that does not fit is an error, never truncated */
static void pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;
	va_start(ap, fmt);
	len = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= n)
		die("path too long");
}

static void write_info_json(const char *rank_dir, int device)
{
	char prof[4096], dev[4096], path[4096];
	FILE *f;
	pathf(prof, sizeof(prof), "%s/PROF_000001_20250725180104147_KBHQCMJFRAQDEGCA", rank_dir);
	mkdir_or_die(prof);
	pathf(dev, sizeof(dev), "%s/device_%d", prof, device);
	mkdir_or_die(dev);
	pathf(path, sizeof(path), "%s/info.json.%d", dev, device);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "{\"DeviceInfo\": [{\"id\": %d, \"env_type\": 3, \"ctrl_cpu_id\": \"ARMv8_Cortex_A55\", "
		   "\"ai_core_num\": 24, \"aic_frequency\": \"1800\", \"ai_cpu_num\": 6, \"aiv_num\": 48, "
		   "\"hwts_frequency\": \"50\"}]}\n",
		device);
	if (fclose(f) != 0)
		die("%s: write failed", path);
}

static long long parse_num(const char *opt, const char *v, long long lo, long long hi)
{
	char *end;
	long long n;
	errno = 0;
	n = strtoll(v, &end, 10);
	/* 5000000 may also be written 5e6 */
	if (*end == 'e' && end[1] >= '0' && end[1] <= '9' && !end[2]) {
		int e = end[1] - '0';
		while (e--)
			n *= 10;
		end += 2;
	}
	if (errno || end == v || *end || n < lo || n > hi)
		die("%s: expected a number from %lld to %lld, got '%s'", opt, lo, hi, v);
	return n;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	long long ranks = 1, kernels = 100000, layers = 32, seed = 1;
	int quiet = 0, step_marks = 0, i, r;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
			continue;
		} else if (!strcmp(a, "-S") || !strcmp(a, "--step-marks")) {
			step_marks = 1;
			continue;
		}
		if (!v)
			die("%s needs a value (see --help)", a);
		if (!strcmp(a, "-o") || !strcmp(a, "--out"))
			out = v;
		else if (!strcmp(a, "-r") || !strcmp(a, "--ranks"))
			ranks = parse_num(a, v, 1, 100000);
		else if (!strcmp(a, "-n") || !strcmp(a, "--kernels"))
			kernels = parse_num(a, v, 1, 1000000000);
		else if (!strcmp(a, "-l") || !strcmp(a, "--layers"))
			layers = parse_num(a, v, 1, 1000);
		else if (!strcmp(a, "-s") || !strcmp(a, "--seed"))
			seed = parse_num(a, v, 0, INT64_MAX);
		else
			die("unknown option '%s' (see --help)", a);
		i++;
	}
	if (!out)
		die("no output directory: give -o DIR (see --help)");
	mkdir_or_die(out);
	for (r = 0; r < ranks; r++) {
		char dir[4096], path[4096];
		/* {worker}_{pid}_{timestamp}_ascend_pt, as torch_npu names it */
		pathf(dir, sizeof(dir), "%s/node%d_%d_20250725180104%03d_ascend_pt", out, r / 8, 2315000 + r,
		      r % 1000);
		mkdir_or_die(dir);
		pathf(path, sizeof(path), "%s/ASCEND_PROFILER_OUTPUT", dir);
		mkdir_or_die(path);
		pathf(path, sizeof(path), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db", dir, r);
		write_rank_db(path, r, kernels, (int)layers, (uint64_t)seed, quiet, step_marks);
		write_info_json(dir, r % 8);
	}
	return 0;
}
