/*
 * gen_kineto.c - writes a synthetic PyTorch profiler (Kineto) trace of N GPU
 * kernels, laid out as torch.profiler writes them (one event per block of
 * lines, the keys in Kineto's order), for the reader's tests and benchmark.
 *
 * One step: ProfilerStep#S on the CPU and on the GPU timeline; layers as
 * nn.Module python_function events around Python frames, and in each layer
 * cpu_ops: aten::linear holding aten::addmm (a GEMM kernel), aten::add (an
 * elementwise kernel), attention (a flash kernel), ops with no kernel, and
 * every 16th kernel an all-reduce (record_param_comms and an NCCL kernel
 * with "Collective name"). Each kernel has its cudaLaunchKernel runtime
 * event, the ac2g flow pair and [memory] instant events beside it. With
 * --old, kernels carry their correlation id as "External id" (traces before
 * torch 2.1): they link through the launch instead. With --orphans K, every
 * K-th compute kernel's launch is left out: it links to nothing.
 *
 * For a multi-rank job: --world W writes W as distributedInfo.world_size
 * (default 8), and with --world or --skew the all-reduce kernels carry the
 * args the reader takes the group and size from (Process Group Name "0",
 * Group size W, 2873320 BFloat16 elements in and out). --skew NS delays the
 * c-th all-reduce (from 0) of rank R by NS * ((37 R + 11 c) mod 101) ns, so
 * that different ranks arrive last at different calls.
 *
 * On stdout: what the reader must find, in the words of opmfu's summary
 * "input:" line, counted while writing. The output depends only on the
 * options.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char usage[] =
	"usage: gen_kineto OUT N [--old] [--orphans K] [--rank R] [--layers L] [--world W] [--skew NS]\n"
	"  OUT ending in .gz is gzip'd (level 6); N GPU kernels in all\n";

struct out {
	FILE *f;
	gzFile gz;
	char buf[1 << 16];
	size_t n;
};

static void flush_out(struct out *o)
{
	if (o->gz ? gzwrite(o->gz, o->buf, (unsigned)o->n) != (int)o->n : fwrite(o->buf, 1, o->n, o->f) != o->n) {
		fprintf(stderr, "gen_kineto: write error\n");
		exit(1);
	}
	o->n = 0;
}

static void put(struct out *o, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;
	if (o->n > sizeof(o->buf) - 4096)
		flush_out(o);
	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->n, sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(o->buf) - o->n) {
		fprintf(stderr, "gen_kineto: event too long\n");
		exit(1);
	}
	o->n += (size_t)k;
}

/* ---- the clock: microseconds with three decimals, as Kineto writes them ---- */

static int64_t now_ns = INT64_C(1419247332000000);

/* "1419247333430.849" */
static const char *us(int64_t ns, char *b)
{
	snprintf(b, 32, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
	return b;
}

struct gen {
	struct out o;
	int old;
	long orphans;
	int rank, world, coll_args; /* coll_args: the all-reduces carry group and size args */
	int64_t skew;
	long n_kernels, done, compute_done;
	int64_t ext, corr, ev_idx;
	/* what the reader must find */
	long by_ext, by_corr, none, comm, comm_linked, mods, steps;
	int first;
};

static void begin(struct gen *g)
{
	put(&g->o, "%s\n  {\n", g->first ? "" : ",");
	g->first = 0;
}

static void span(struct gen *g, const char *cat, const char *name, int pid, int tid, int64_t ts, int64_t dur)
{
	char a[32], b[32];
	begin(g);
	put(&g->o, "    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n"
		   "    \"ts\": %s, \"dur\": %s,\n", cat, name, pid, tid, us(ts, a), us(dur, b));
}

static void python_frame(struct gen *g, const char *name, int64_t ts, int64_t dur, int64_t id)
{
	span(g, "python_function", name, 100, 100, ts, dur);
	put(&g->o, "    \"args\": {\n      \"Python parent id\": %" PRId64 ", \"Python id\": %" PRId64
		   ", \"Ev Idx\": %" PRId64 "\n    }\n  }", id - 1, id, g->ev_idx++);
}

static void memory_event(struct gen *g, int64_t ts)
{
	char a[32];
	begin(g);
	put(&g->o, "    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n"
		   "    \"pid\": 100, \"tid\": 100,\n    \"ts\": %s,\n"
		   "    \"args\": {\n      \"Total Reserved\": 121634816, \"Total Allocated\": 91505152, \"Bytes\": 144384, "
		   "\"Addr\": 128184607182336, \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": %" PRId64 "\n    }\n  }",
	    us(ts, a), g->ev_idx++);
}

/* A cpu_op; dims etc. are the args' JSON text. */
static void cpu_op(struct gen *g, const char *name, int64_t ts, int64_t dur, int64_t ext, const char *dims,
		   const char *types, const char *concrete)
{
	span(g, "cpu_op", name, 100, 100, ts, dur);
	put(&g->o, "    \"args\": {\n      \"External id\": %" PRId64 ", \"Record function id\": 0, \"Concrete Inputs\": %s, "
		   "\"Input type\": %s, \"Input Strides\": [], \"Input Dims\": %s, \"Ev Idx\": %" PRId64 "\n    }\n  }",
	    ext, concrete, types, dims, g->ev_idx++);
}

/* A kernel launched at `at` by the op with External id ext; linked: its
 * launch is written. Durations (ns) keep the op's MFU below 1 on an H100:
 * the GEMM (56 GFLOP) needs 57 us at peak, the attention (20 GFLOP) 21 us. */
static void kernel(struct gen *g, const char *name, const char *coll, int64_t at, int64_t ext, int linked,
		   int64_t base_dur)
{
	char a[32];
	int64_t corr = g->corr++, kts = at + 20000 + (g->done % 7) * 1000, kdur = base_dur + (g->done % 13) * 1517;
	int64_t kext = g->old ? corr : ext;

	if (coll)
		kts += g->skew * ((37 * (int64_t)g->rank + 11 * (int64_t)g->comm) % 101);

	if (linked) {
		span(g, "cuda_runtime", "cudaLaunchKernel", 100, 100, at, 4100);
		put(&g->o, "    \"args\": {\n      \"External id\": %" PRId64 ", \"cbid\": 211, \"correlation\": %" PRId64
			   "\n    }\n  }", kext, corr);
		begin(g);
		put(&g->o, "    \"ph\": \"s\", \"id\": %" PRId64 ", \"pid\": 100, \"tid\": 100, \"ts\": %s, \"cat\": \"ac2g\", "
			   "\"name\": \"ac2g\"\n  }", corr, us(at, a));
	}
	span(g, "kernel", name, 0, 7, kts, kdur);
	/* a kernel whose launch is not in the trace carries no External id either */
	if (linked || g->old)
		put(&g->o, "    \"args\": {\n      \"External id\": %" PRId64 ", ", kext);
	else
		put(&g->o, "    \"args\": {\n      ");
	put(&g->o, "\"queued\": 0, \"device\": 0, \"context\": 1,\n"
		   "      \"stream\": 7, \"correlation\": %" PRId64 ", \"registers per thread\": 32, \"shared memory\": 0,\n"
		   "      \"blocks per SM\": 4.272727, \"warps per SM\": 17.09091, \"grid\": [564, 1, 1], \"block\": [128, 1, 1],\n"
		   "      \"est. achieved occupancy %%\": 27%s%s%s",
	    corr, coll ? ", \"Collective name\": \"" : "", coll ? coll : "", coll ? "\"" : "");
	if (coll && g->coll_args)
		put(&g->o, ",\n      \"In msg nelems\": 2873320, \"Out msg nelems\": 2873320, \"Group size\": %d, "
			   "\"dtype\": \"BFloat16\", \"Process Group Name\": \"0\"", g->world);
	put(&g->o, "\n    }\n  }");
	begin(g);
	put(&g->o, "    \"ph\": \"f\", \"id\": %" PRId64 ", \"pid\": 0, \"tid\": 7, \"ts\": %s, \"cat\": \"ac2g\", "
		   "\"name\": \"ac2g\", \"bp\": \"e\"\n  }", corr, us(kts, a));
	g->done++;
	if (coll) {
		g->comm++;
		g->comm_linked += linked;
	} else if (!linked) {
		g->none++;
	} else {
		/* an External id equal to the correlation id is the old style's
		 * mark: such a kernel links through its launch, also in a new
		 * trace where the two meet by chance */
		g->by_ext += !g->old && kext != corr;
		g->by_corr += g->old || kext == corr;
	}
}

static const char gemm[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
			   "segment_k_off_kernel__5x_cublas";
static const char add[] = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add"
			  "<c10::BFloat16>, at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnSelf_add"
			  "<c10::BFloat16>, at::detail::Array<char*, 2>)";
static const char flash[] = "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, "
			    "4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, "
			    "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::"
			    "Flash_fwd_params)";
static const char nccl[] = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

/* One op with one kernel and what surrounds it; t advances. */
static void op_with_kernel(struct gen *g, int64_t *t, int kind)
{
	int64_t ext = g->ext, t0 = *t;
	int comm = kind == 3, linked = 1;
	char frame[64];

	if (!comm) {
		g->compute_done++;
		linked = !(g->orphans && g->compute_done % g->orphans == 0);
	}
	snprintf(frame, sizeof(frame), "model.py(%d): forward", 100 + kind);
	python_frame(g, frame, t0, 60000, g->ev_idx + 1);
	python_frame(g, "torch/nn/modules/module.py(1747): _call_impl", t0 + 200, 59000, g->ev_idx + 1);
	g->ext += 4;
	cpu_op(g, "aten::empty", t0 + 500, 400, ext + 3, "[[], [], [], [], [], []]",
	       "[\"ScalarList\", \"Scalar\", \"\", \"Device\", \"Scalar\", \"\"]",
	       "[\"[16, 559, 1024]\", \"15\", \"\", \"cuda:0\", \"False\", \"\"]");
	switch (kind) {
	case 0:
		cpu_op(g, "aten::linear", t0 + 1000, 50000, ext, "[[16, 559, 1024], [3072, 1024], [3072]]",
		       "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]", "[\"\", \"\", \"\"]");
		cpu_op(g, "aten::t", t0 + 2000, 5000, ext + 1, "[[3072, 1024]]", "[\"c10::BFloat16\"]", "[\"\"]");
		cpu_op(g, "aten::addmm", t0 + 9000, 40000, ext + 2, "[[3072], [8944, 1024], [1024, 3072], [], []]",
		       "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
		       "[\"\", \"\", \"\", \"1\", \"1\"]");
		kernel(g, gemm, NULL, t0 + 20000, ext + 2, linked, 95000);
		break;
	case 1:
		cpu_op(g, "aten::add", t0 + 1000, 30000, ext, "[[16, 559, 1024], [16, 559, 1024], []]",
		       "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]", "[\"\", \"\", \"1\"]");
		kernel(g, add, NULL, t0 + 10000, ext, linked, 3000);
		break;
	case 2:
		cpu_op(g, "aten::_scaled_dot_product_flash_attention", t0 + 1000, 50000, ext,
		       "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]",
		       "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]",
		       "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]");
		kernel(g, flash, NULL, t0 + 20000, ext, linked, 48000);
		break;
	default:
		cpu_op(g, "record_param_comms", t0 + 1000, 50000, ext, "[[[2873320]], [], [], []]",
		       "[\"TensorList\", \"\", \"\", \"Scalar\"]", "[\"\", \"\", \"\", \"8\"]");
		kernel(g, nccl, "allreduce", t0 + 20000, ext, linked, 20000);
		break;
	}
	memory_event(g, t0 + 30000);
	*t = t0 + 70000;
}

static void header(struct gen *g)
{
	int d;
	put(&g->o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
	for (d = 0; d < 8; d++)
		put(&g->o, "    {\n      \"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 84990623744,\n"
			   "      \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132\n    }%s\n", d, d < 7 ? "," : "");
	put(&g->o, "  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
		   "  \"record_shapes\": 1,\n  \"traceEvents\": [\n", g->rank, g->world);
}

int main(int argc, char **argv)
{
	struct gen g;
	const char *path;
	int i, layers = 24;
	long step = 0;
	size_t len;

	memset(&g, 0, sizeof(g));
	g.world = 8;
	if (argc < 3) {
		fputs(usage, stderr);
		return 2;
	}
	path = argv[1];
	g.n_kernels = atol(argv[2]);
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--old"))
			g.old = 1;
		else if (!strcmp(argv[i], "--orphans") && i + 1 < argc)
			g.orphans = atol(argv[++i]);
		else if (!strcmp(argv[i], "--rank") && i + 1 < argc)
			g.rank = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--layers") && i + 1 < argc)
			layers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--world") && i + 1 < argc)
			g.world = atoi(argv[++i]), g.coll_args = 1;
		else if (!strcmp(argv[i], "--skew") && i + 1 < argc)
			g.skew = atoll(argv[++i]), g.coll_args = 1;
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	len = strlen(path);
	if (len > 3 && !strcmp(path + len - 3, ".gz"))
		g.o.gz = gzopen(path, "wb6");
	else
		g.o.f = fopen(path, "wb");
	if (!g.o.gz && !g.o.f) {
		perror(path);
		return 1;
	}
	g.first = 1;
	g.ext = 1;
	/* correlation ids count from 1000 as op ids count from 1: in old-style
	 * traces a kernel's External id (its correlation id) is also some op's */
	g.corr = 1000;
	header(&g);
	while (g.done < g.n_kernels) {
		int64_t t = now_ns, s0 = t, g0;
		char a[48];
		for (i = 0; i < layers && g.done < g.n_kernels; i++) {
			int64_t l0 = t;
			int k;
			char name[64];
			for (k = 0; k < 4 && g.done < g.n_kernels; k++)
				op_with_kernel(&g, &t, g.done % 16 == 15 ? 3 : k % 3);
			snprintf(name, sizeof(name), "nn.Module: DecoderLayer_%d", i);
			python_frame(&g, name, l0, t - l0, g.ev_idx + 1);
			g.mods++;
		}
		g0 = s0 + 20000;
		snprintf(a, sizeof(a), "ProfilerStep#%ld", step);
		span(&g, "user_annotation", a, 100, 100, s0, t - s0);
		put(&g.o, "    \"args\": {\n      \"External id\": %" PRId64 "\n    }\n  }", g.ext++);
		span(&g, "gpu_user_annotation", a, 0, 7, g0, t + 30000 - g0);
		put(&g.o, "    \"args\": {\n      \"External id\": 1\n    }\n  }");
		g.steps++;
		step++;
		now_ns = t + 100000;
	}
	put(&g.o, "\n  ],\n  \"traceName\": \"synthetic.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n"
		  "  \"baseTimeNanoseconds\": 1751410836000000000\n}\n");
	flush_out(&g.o);
	if (g.o.gz ? gzclose(g.o.gz) != Z_OK : fclose(g.o.f) != 0) {
		fprintf(stderr, "gen_kineto: cannot close %s\n", path);
		return 1;
	}
	printf("%ld GPU kernels: %ld linked by External id, %ld by correlation, %ld to no op; %ld communication "
	       "kernel%s (%ld linked); %ld nn.Module call%s; %ld step%s; GPU \"NVIDIA H100 80GB HBM3\"\n",
	       g.by_ext + g.by_corr + g.none, g.by_ext, g.by_corr, g.none, g.comm, g.comm == 1 ? "" : "s",
	       g.comm_linked, g.mods, g.mods == 1 ? "" : "s", g.steps, g.steps == 1 ? "" : "s");
	return 0;
}
