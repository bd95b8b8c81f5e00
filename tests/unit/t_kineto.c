/*
 * t_kineto.c - the PyTorch profiler (Kineto) reader (read/kineto/): its
 * string parsers, and whole traces written here, plain and gzip'd: links by
 * External id and by correlation through nested cpu_ops, kernels that link
 * to nothing, nn.Module and ProfilerStep ranges, NCCL kernels, copies and
 * memsets, launch times, device-side steps, the GPU from deviceProperties, dtype lists, microseconds to nanoseconds, malformed
 * JSON and damaged gzip files with their messages, and every allocation
 * failing in turn. Expected values are worked out by hand in the comments.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/mem.h"
#include "check.h"
#include "read/kineto/kineto.h"
#include "read/kineto/kineto_parse.h"
#include "trace/coll.h"

static char dir[64];

/* ---- the string parsers ---- */

static int64_t ns(const char *s)
{
	int64_t v = -777;
	return opmfu_kineto_us_to_ns(s, strlen(s), &v) ? -999 : v;
}

static void test_us_to_ns(void)
{
	int64_t v;
	CHECK_INT(ns("1419247333430.849"), 1419247333430849LL);
	CHECK_INT(ns("1683564901548726"), 1683564901548726000LL);
	CHECK_INT(ns("3"), 3000);
	CHECK_INT(ns("0.639"), 639);
	CHECK_INT(ns("4426.114"), 4426114);
	/* past the nanosecond: half away from zero (0.1235 us = 123.5 ns) */
	CHECK_INT(ns("0.1235"), 124);
	CHECK_INT(ns("0.1234999"), 123);
	CHECK_INT(ns("0.0005"), 1);
	CHECK_INT(ns("0.0004999"), 0);
	CHECK_INT(ns("-2.5"), -2500);
	CHECK_INT(ns("-0.0005"), -1);
	/* exponents move the point: 1.5e3 us = 1500000 ns, 1e-3 us = 1 ns */
	CHECK_INT(ns("1.5e3"), 1500000);
	CHECK_INT(ns("15E-1"), 1500);
	CHECK_INT(ns("1e-3"), 1);
	CHECK_INT(ns("1e-400"), 0);
	CHECK_INT(ns("0e400"), 0);
	CHECK_INT(ns("0.000"), 0);
	/* INT64_MAX ns = 9223372036854775.807 us; one more does not fit */
	CHECK_INT(ns("9223372036854775.807"), INT64_MAX);
	CHECK_INT(ns("9223372036854775.8069"), INT64_MAX);
	CHECK_INT(ns("9223372036854775.808"), -999);
	CHECK_INT(ns("9223372036854775.8075"), -999);
	CHECK_INT(ns("1e400"), -999);
	CHECK_INT(ns("12345678901234567890123"), -999);
	/* not numbers */
	CHECK_INT(ns(""), -999);
	CHECK_INT(ns(".5"), -999);
	CHECK_INT(ns("1."), -999);
	CHECK_INT(ns("1e"), -999);
	CHECK_INT(ns("1.2.3"), -999);
	CHECK_INT(ns("+1"), -999);
	CHECK_INT(ns("0x10"), -999);
	CHECK_INT(ns("1 "), -999);
	CHECK_INT(opmfu_kineto_us_to_ns(NULL, 0, &v), -1);

	CHECK_INT(opmfu_kineto_int("17", 2, &v), 0);
	CHECK_INT(v, 17);
	CHECK_INT(opmfu_kineto_int("-3", 2, &v), 0);
	CHECK_INT(v, -3);
	CHECK_INT(opmfu_kineto_int("9223372036854775807", 19, &v), 0);
	CHECK_INT(v, INT64_MAX);
	CHECK_INT(opmfu_kineto_int("9223372036854775808", 19, &v), -1);
	CHECK_INT(opmfu_kineto_int("1.0", 3, &v), -1);
	CHECK_INT(opmfu_kineto_int("1e2", 3, &v), -1);
	CHECK_INT(opmfu_kineto_int("", 0, &v), -1);
	CHECK_INT(opmfu_kineto_int("123456789012345678", 18, &v), 0);
	CHECK_INT(v, 123456789012345678LL);
	CHECK_INT(opmfu_kineto_int("00017", 5, &v), 0);
	CHECK_INT(v, 17);
	CHECK_INT(opmfu_kineto_int("17x", 3, &v), -1);

	/* Plain "I.F" (kineto_parse.c's short way) against the same digits as
	 * "IFe-|F|" (the exponent rule): the same value, at the short way's
	 * edges (15 and 16 integer digits, 1 to 6 fraction digits, a fourth
	 * fraction digit of 4 and 5, carries into the microsecond). */
	{
		static const char *ints[] = { "0", "7", "1419247333430", "999999999999999", "1000000000000000",
					      "9223372036854775" };
		static const char *fracs[] = { "", "5", "04", "849", "9994", "9995", "12345", "999999", "000500" };
		size_t a, b;
		for (a = 0; a < sizeof(ints) / sizeof(ints[0]); a++)
			for (b = 0; b < sizeof(fracs) / sizeof(fracs[0]); b++) {
				char plain[64], expo[64];
				int64_t want = -999;
				if (*fracs[b])
					snprintf(plain, sizeof(plain), "%s.%s", ints[a], fracs[b]);
				else
					snprintf(plain, sizeof(plain), "%s", ints[a]);
				snprintf(expo, sizeof(expo), "%s%se-%zu", ints[a], fracs[b], strlen(fracs[b]));
				(void)opmfu_kineto_us_to_ns(expo, strlen(expo), &want);
				CHECK_INT(ns(plain), want);
			}
		/* and by hand, where the short way stops (16 digits go the long way) */
		CHECK_INT(ns("999999999999999.9995"), 1000000000000000000LL);
		CHECK_INT(ns("1000000000000000.0004"), 1000000000000000000LL);
	}
}

static struct opmfu_dtype dt(const char *list)
{
	struct opmfu_dtype d;
	opmfu_kineto_dtype(list, list ? strlen(list) : 0, 5, &d);
	return d;
}

static void test_dtypes(void)
{
	struct opmfu_dtype d;
	/* bfloat16 and half are fp16-class under both rules; float is fp16 for
	 * the reference (as Ascend FLOAT) and fp32 for SPEC 8 */
	d = dt("c10::BFloat16;c10::BFloat16;Scalar");
	CHECK(d.text == 5 && d.ref == OPMFU_DT_FP16 && d.prec == OPMFU_PREC_FP16);
	d = dt("c10::Half");
	CHECK(d.ref == OPMFU_DT_FP16 && d.prec == OPMFU_PREC_FP16);
	d = dt("float;float");
	CHECK(d.ref == OPMFU_DT_FP16 && d.prec == OPMFU_PREC_FP32);
	/* index and mask tensors are passed over, non-tensors too */
	d = dt("long int;bool;;Scalar;c10::Float8_e4m3fn");
	CHECK(d.ref == OPMFU_DT_FP8 && d.prec == OPMFU_PREC_FP8);
	d = dt("unsigned char;c10::Float8_e5m2");
	CHECK(d.ref == OPMFU_DT_FP8 && d.prec == OPMFU_PREC_FP8);
	d = dt("signed char;signed char;int");
	CHECK(d.ref == OPMFU_DT_INT8 && d.prec == OPMFU_PREC_INT8);
	d = dt("c10::quint8;c10::qint8");
	CHECK(d.ref == OPMFU_DT_INT8 && d.prec == OPMFU_PREC_INT8);
	/* fp4: SPEC 8 only; the reference's rule has no class for it */
	d = dt("c10::Float4_e2m1fn_x2");
	CHECK(d.ref == OPMFU_DT_UNSUPPORTED && d.prec == OPMFU_PREC_FP4);
	CHECK_STR(d.example, "c10::Float4_e2m1fn_x2");
	/* double: no class under either rule; the example names it verbatim */
	d = dt("Scalar;double;float");
	CHECK(d.ref == OPMFU_DT_UNSUPPORTED && d.prec == OPMFU_PREC_UNSUPPORTED);
	CHECK_STR(d.example, "double");
	d = dt("c10::complex<float>");
	CHECK(d.ref == OPMFU_DT_UNSUPPORTED);
	/* case matters: "Bool" is a Python bool (no tensor), "bool" a tensor */
	d = dt("long int;int;bool");
	CHECK(d.ref == OPMFU_DT_NONE && d.prec == OPMFU_PREC_NONE);
	CHECK_STR(d.example, "long int;int;bool");
	/* only non-tensor entries, or nothing: the empty list's classes */
	d = dt("TensorList;Scalar;ScalarList;;Bool;Int;Device");
	CHECK(d.ref == OPMFU_DT_FP16 && d.prec == OPMFU_PREC_NONE);
	CHECK_STR(d.example, "");
	d = dt("");
	CHECK(d.ref == OPMFU_DT_FP16 && d.prec == OPMFU_PREC_NONE);
	d = dt(NULL);
	CHECK(d.ref == OPMFU_DT_FP16 && d.prec == OPMFU_PREC_NONE);
	d = dt("Float");
	CHECK(d.ref == OPMFU_DT_UNSUPPORTED);
	CHECK_STR(d.example, "Float");
}

static void test_names(void)
{
	int64_t n = -1;
	size_t off = 0;

	CHECK(opmfu_kineto_step("ProfilerStep#550", 16, &n) && n == 550);
	CHECK(!opmfu_kineto_step("ProfilerStep#", 13, &n));
	CHECK(!opmfu_kineto_step("ProfilerStep#-1", 15, &n));
	CHECK(!opmfu_kineto_step("ProfilerStep#1a", 15, &n));
	CHECK(!opmfu_kineto_step("ProfilerStep#1234567890123456789", 32, &n));
	CHECK(!opmfu_kineto_step("profilerStep#1", 14, &n));
	CHECK(opmfu_kineto_is_module("nn.Module: Linear_0", 19));
	CHECK(!opmfu_kineto_is_module("nn.Module: ", 11));
	CHECK(!opmfu_kineto_is_module("nn.Module:Linear", 16));
	CHECK(opmfu_kineto_is_comm("ncclDevKernel_Generic(x)", 24));
	CHECK(opmfu_kineto_is_comm("void ncclKernel_AllReduce_RING_LL_Sum_float(a)", 46));
	CHECK(opmfu_kineto_is_comm("RCCL_kernel", 11));
	CHECK(!opmfu_kineto_is_comm("void at::native::nccl_like", 26));
	CHECK(!opmfu_kineto_is_comm("ncc", 3));
#define S(x) x, sizeof(x) - 1
	/* the families beyond NCCL/RCCL (SPEC 20) and the kinds their names give */
	CHECK(opmfu_kineto_is_comm(S("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*)")));
	CHECK(opmfu_kineto_is_comm(S("deep_ep::internode::combine")));
	CHECK(opmfu_kineto_is_comm(S("void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 8>()")));
	CHECK(opmfu_kineto_is_comm(S("void nvshmemi_transfer_kernel()")));
	CHECK(opmfu_kineto_is_comm(S("void mscclpp::allreduce6<__nv_bfloat16>()")));
	CHECK(!opmfu_kineto_is_comm(S("void at::native::deep_ep_like()")));
	CHECK(!opmfu_kineto_is_comm(S("void c10d::other::kernel()")));
	CHECK_INT(opmfu_kineto_comm_kind(S("void deep_ep::internode_ll::dispatch<false>()")), OPMFU_COLL_ALLTOALL);
	CHECK_INT(opmfu_kineto_comm_kind(S("void deep_ep::intranode::combine<bf16>()")), OPMFU_COLL_ALLTOALL);
	CHECK_INT(opmfu_kineto_comm_kind(S("void deep_ep::intranode::barrier<8>()")), 0);
	CHECK_INT(opmfu_kineto_comm_kind(S("ncclDevKernel_AllReduce_Sum_f32_RING_LL")), 0);
	CHECK_INT(opmfu_kineto_comm_kind(S("void gemm_dispatch()")), 0);
#undef S

	CHECK(opmfu_kineto_trace_name("a.pt.trace.json"));
	CHECK(opmfu_kineto_trace_name("rank0.json.gz"));
	CHECK(!opmfu_kineto_trace_name(".json"));
	CHECK(!opmfu_kineto_trace_name("trace.json.bz2"));
	CHECK(!opmfu_kineto_trace_name("info.json.0"));

	CHECK_INT(opmfu_kineto_name_rank("rank3.json"), 3);
	CHECK_INT(opmfu_kineto_name_rank("trace_rank-12.pt.trace.json.gz"), 12);
	CHECK_INT(opmfu_kineto_name_rank("RANK.7.json"), 7);
	CHECK_INT(opmfu_kineto_name_rank("rank_2_of_rank_16.json"), 16); /* the last one */
	CHECK_INT(opmfu_kineto_name_rank("frank3.json"), -1);             /* not a word of its own */
	CHECK_INT(opmfu_kineto_name_rank("host_4242.1694128201545.pt.trace.json"), -1);
	CHECK_INT(opmfu_kineto_name_rank("worker0_step_12.json"), -1);
	CHECK_INT(opmfu_kineto_name_rank("rank1234567890.json"), -1);
	CHECK_INT(opmfu_kineto_name_rank("rank.json"), -1);

	CHECK_INT(opmfu_kineto_name_stamp("worker0_step_12.1694128201545.pt.trace.json", &off), 13);
	CHECK_INT(off, 16);
	CHECK_INT(opmfu_kineto_name_stamp("h_1.1694128201545.json.gz", &off), 13);
	CHECK_INT(off, 4);
	CHECK_INT(opmfu_kineto_name_stamp("rank.3.json", &off), 0);           /* fewer than 10 digits */
	CHECK_INT(opmfu_kineto_name_stamp("1694128201545.pt.trace.json", &off), 0); /* no worker before it */
	CHECK_INT(opmfu_kineto_name_stamp("a_1694128201545.json", &off), 0);  /* not after a '.' */
	CHECK_INT(opmfu_kineto_name_stamp("a.1694128201545.txt", &off), 0);
}

/* ---- whole traces ---- */

static const char *put_file(const char *name, const char *text, size_t len, int gz)
{
	static char path[4][160];
	static int k;
	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	if (gz) {
		gzFile f = gzopen(path[k], "wb6");
		CHECK(f != NULL);
		if (f) {
			CHECK(gzwrite(f, text, (unsigned)len) == (int)len);
			gzclose(f);
		}
	} else {
		FILE *f = fopen(path[k], "wb");
		CHECK(f != NULL);
		if (f) {
			CHECK(fwrite(text, 1, len, f) == len);
			fclose(f);
		}
	}
	return path[k];
}

/* 2: a gzip'd file is inflated on a thread of its own (kineto_input.c) */
static int read_threads = 1;

static enum opmfu_status read_trace(const char *path, struct opmfu_trace *t, struct opmfu_err *e)
{
	struct opmfu_read_opts o = { read_threads, NULL, NULL };
	opmfu_trace_init(t);
	memset(e, 0, sizeof(*e));
	return opmfu_read_kineto(path, t, &o, e);
}

static const char *str(const struct opmfu_trace *t, uint32_t sid)
{
	return sid ? opmfu_strtab_str(&t->strs, sid) : "(none)";
}

/* New-style links (External id), written the way TraceLens keeps traces:
 * deviceProperties and baseTimeNanoseconds after traceEvents. */
static const char trace_a[] =
	"{\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":100.0,\"dur\":900.5,"
	"\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Model_0\",\"pid\":1,\"tid\":1,\"ts\":101,\"dur\":800},\n"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Linear_0\",\"pid\":1,\"tid\":1,\"ts\":102,\"dur\":100},\n"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(3): forward\",\"pid\":1,\"tid\":1,\"ts\":102,\"dur\":100},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":103.25,\"dur\":50,\"args\":"
	"{\"External id\":2,\"Input Dims\":[[16,559,1024],[3072,1024],[]],\"Input type\":[\"c10::BFloat16\","
	"\"c10::BFloat16\",\"\"],\"Concrete Inputs\":[\"\",\"\",\"\"]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":104.5,\"dur\":40.0001,\"args\":"
	"{\"External id\":3,\"Input Dims\":[[3072],[8944,1024],[1024,3072],[],[]],\"Input type\":[\"c10::BFloat16\","
	"\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"1\",\"1\"]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":5,"
	"\"args\":{\"External id\":3,\"correlation\":50}},\n"
	"{\"ph\":\"s\",\"id\":50,\"pid\":1,\"tid\":1,\"ts\":110,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":7,\"ts\":200.0015,\"dur\":10.5,"
	"\"args\":{\"External id\":3,\"correlation\":50,\"device\":1,\"grid\":[1,2,3]}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_b\",\"pid\":0,\"tid\":7,\"ts\":211,\"dur\":1,"
	"\"args\":{\"External id\":3,\"correlation\":51,\"device\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":150,\"dur\":2,"
	"\"args\":{\"correlation\":99,\"device\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::cat\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":10,\"args\":"
	"{\"External id\":4,\"Input Dims\":[[[2,3],[2,3]],[]],\"Input type\":[\"TensorList\",\"Scalar\"],"
	"\"Concrete Inputs\":[\"\",\"-1\"]}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"cat_k\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":3,"
	"\"args\":{\"External id\":4,\"device\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":10,"
	"\"args\":{\"External id\":5}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"copy_k\",\"pid\":0,\"tid\":7,\"ts\":505,\"dur\":1,"
	"\"args\":{\"External id\":5,\"device\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":600,\"dur\":10,"
	"\"args\":{\"External id\":6,\"Input Dims\":[[[10]]],\"Input type\":[\"TensorList\"]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":605.5,\"dur\":2,"
	"\"args\":{\"External id\":6,\"correlation\":60}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,"
	"\"tid\":8,\"ts\":610,\"dur\":20,\"args\":{\"External id\":6,\"correlation\":60,\"Collective name\":\"allreduce\","
	"\"device\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)\",\"pid\":0,"
	"\"tid\":8,\"ts\":650,\"dur\":5,\"args\":{\"device\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":0,\"tid\":7,\"ts\":190,\"dur\":500,"
	"\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":120,\"args\":{\"Bytes\":4}}\n"
	"],\n"
	"\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\"},{\"id\":1,\"name\":\"NVIDIA H100 80GB HBM3\"}],\n"
	"\"baseTimeNanoseconds\": 1000000000000}\n";

#define BASE 1000000000000LL

static void check_link(const struct opmfu_trace *t, size_t i, const char *k_name, int64_t ks, int64_t ke,
		       const char *op, int64_t os, int64_t oe, uint32_t op_id)
{
	const struct opmfu_link *l = &t->links[i];
	CHECK_STR(str(t, l->k_name), k_name);
	CHECK_INT(l->k_start, ks);
	CHECK_INT(l->k_end, ke);
	CHECK_STR(str(t, l->op_name), op);
	CHECK_INT(l->op_start, os);
	CHECK_INT(l->op_end, oe);
	CHECK_INT(l->op, op_id);
	CHECK_INT(l->out_shapes, 0);
}

static void check_range(const struct opmfu_ranges *rs, size_t i, int64_t s, int64_t e, int64_t v, const char *name,
			const struct opmfu_trace *t)
{
	CHECK(i < rs->n);
	if (i >= rs->n)
		return;
	CHECK_INT(rs->v[i].start, s);
	CHECK_INT(rs->v[i].end, e);
	CHECK_INT(rs->v[i].value, v);
	CHECK_STR(str(t, rs->v[i].name), name);
}

static void test_trace_a(int gz)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	const struct opmfu_dtype *d;
	const char *path = put_file(gz ? "a.json.gz" : "a.json", trace_a, sizeof(trace_a) - 1, gz);

	CHECK_INT(read_trace(path, &t, &e), OPMFU_OK);
	CHECK_STR(e.msg, "");
	/*
	 * Kernels by start: orphan 150 us, gemm_a 200.0015 us (200001.5 ns,
	 * rounded up to 200002), gemm_b 211, cat_k 400, copy_k 505, then the
	 * two NCCL kernels 610 and 650. Compute links: gemm_a and gemm_b to
	 * aten::addmm (External id 3, op 0), cat_k to aten::cat (op 1), copy_k
	 * to aten::copy_ (op 2); the Generic NCCL kernel to record_param_comms
	 * (op 3) as a communication link. Times gain baseTimeNanoseconds (1e12).
	 */
	CHECK_INT(t.n_compute, 4);
	CHECK_INT(t.n_comm_op, 1);
	CHECK_INT(t.n_comm_sched, 0);
	CHECK_INT(t.n_links, 5);
	CHECK_INT(t.n_ops, 4);
	CHECK_INT(t.shape_scope, OPMFU_SHAPES_OP);
	if (t.n_links != 5 || !t.kx)
		goto out;
	/* addmm: 104.5 us + 40.0001 us (40000.1 ns -> 40000) */
	check_link(&t, 0, "gemm_a", BASE + 200002, BASE + 210502, "aten::addmm", BASE + 104500, BASE + 144500, 0);
	check_link(&t, 1, "gemm_b", BASE + 211000, BASE + 212000, "aten::addmm", BASE + 104500, BASE + 144500, 0);
	check_link(&t, 2, "cat_k", BASE + 400000, BASE + 403000, "aten::cat", BASE + 300000, BASE + 310000, 1);
	check_link(&t, 3, "copy_k", BASE + 505000, BASE + 506000, "aten::copy_", BASE + 500000, BASE + 510000, 2);
	check_link(&t, 4, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", BASE + 610000, BASE + 630000,
		   "record_param_comms", BASE + 600000, BASE + 610000, 3);
	/* shapes: one entry per argument; a TensorList argument is an empty
	 * entry; an op without Input Dims has the unknown shapes ("N/A") */
	CHECK_STR(str(&t, t.links[0].in_shapes), "3072;8944,1024;1024,3072;;");
	CHECK_STR(str(&t, t.links[2].in_shapes), ";");
	CHECK_INT(t.links[3].in_shapes, t.shape_unknown);
	CHECK_STR(str(&t, t.shape_unknown), "N/A");
	CHECK_INT(t.links[4].in_shapes, 0);
	CHECK_INT(t.links[4].dtype, 0);
	d = opmfu_trace_dtype(&t, t.links[0].dtype);
	CHECK_STR(str(&t, d->text), "c10::BFloat16;c10::BFloat16;c10::BFloat16;Scalar;Scalar");
	CHECK(d->ref == OPMFU_DT_FP16 && d->prec == OPMFU_PREC_FP16);
	d = opmfu_trace_dtype(&t, t.links[2].dtype);
	CHECK_STR(str(&t, d->text), "TensorList;Scalar");
	CHECK(d->prec == OPMFU_PREC_NONE);
	CHECK_INT(t.links[3].dtype, 0);
	CHECK_INT(t.links[0].dtype, t.links[1].dtype);
	/* kx: the op's name and its Concrete Inputs, one entry per argument */
	CHECK_STR(str(&t, t.kx[0].type), "aten::addmm");
	CHECK_STR(str(&t, t.kx[0].attrs), "\x1f\x1f\x1f" "1\x1f" "1");
	CHECK_STR(str(&t, t.kx[2].type), "aten::cat");
	CHECK_STR(str(&t, t.kx[2].attrs), "\x1f-1");
	CHECK_STR(str(&t, t.kx[3].type), "aten::copy_");
	CHECK_INT(t.kx[3].attrs, 0);
	CHECK(t.kx[0].in_formats == 0 && t.kx[0].out_formats == 0);
	/* launch times, linked by External id: gemm_a's correlation 50 is the
	 * cudaLaunchKernel at 110 us, the NCCL kernel's 60 the one at 605.5;
	 * gemm_b's 51 has no runtime call, cat_k and copy_k no correlation */
	CHECK(t.launch != NULL);
	if (t.launch) {
		CHECK_INT(t.launch[0], BASE + 110000);
		CHECK_INT(t.launch[1], OPMFU_NO_LAUNCH);
		CHECK_INT(t.launch[2], OPMFU_NO_LAUNCH);
		CHECK_INT(t.launch[3], OPMFU_NO_LAUNCH);
		CHECK_INT(t.launch[4], BASE + 605500);
	}
	/* the kernel with no External id and no launch (correlation 99: no call) */
	CHECK_INT(t.kernels.n, 1);
	check_range(&t.kernels, 0, BASE + 150000, BASE + 152000, OPMFU_NO_LAUNCH, "orphan", &t);
	/* both NCCL kernels are communication: the first named by its
	 * Collective name, the second (linked to nothing) by its own name */
	CHECK_INT(t.comm.n, 2);
	check_range(&t.comm, 0, BASE + 610000, BASE + 630000, BASE + 605500, "allreduce", &t);
	check_range(&t.comm, 1, BASE + 650000, BASE + 655000, OPMFU_NO_LAUNCH,
		    "void ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", &t);
	/* modules by start, named after "nn.Module: " */
	CHECK_INT(t.mods.n, 2);
	check_range(&t.mods, 0, BASE + 101000, BASE + 901000, 0, "Model_0", &t);
	check_range(&t.mods, 1, BASE + 102000, BASE + 202000, 0, "Linear_0", &t);
	/* ProfilerStep#7: its CPU span (100 us + 900.5 us), where the ops that launch its
	 * kernels are (the GPU annotation is a marker, not the step) */
	CHECK_INT(t.steps.n, 1);
	check_range(&t.steps, 0, BASE + 100000, BASE + 1000500, 7, "(none)", &t);
	/* the GPU annotation is the device's step */
	CHECK_INT(t.devsteps.n, 1);
	check_range(&t.devsteps, 0, BASE + 190000, BASE + 690000, 7, "(none)", &t);
	CHECK_INT(t.memcpy.n, 0);
	CHECK_INT(t.recs.n, 0);
	CHECK_INT(t.n_recs_read, 0);
	CHECK_INT(t.n_bad_rows, 0);
	/* every kernel ran on device 1 */
	CHECK_STR(t.device.chip, "NVIDIA H100 80GB HBM3");
	CHECK_STR(t.device.path, path);
	/* the name only: peaks are the chip table's business (lib/peaks.c) */
	CHECK(t.device.peak_flops[0] == 0 && t.device.source[0] == '\0' && t.device.no_peak[0] == '\0');
	CHECK(!t.device.cube && t.device.seen[0] == '\0');
	CHECK_STR(t.note, "5 GPU kernels: 4 linked by External id, 0 by correlation, 1 to no op; 2 communication "
			  "kernels (1 linked); 2 nn.Module calls; 1 step; GPU \"NVIDIA H100 80GB HBM3\"");
	CHECK(t.why_no_records != NULL && t.why_no_links != NULL);
out:
	opmfu_trace_release(&t);
}

/* Old-style links: a kernel's External id is its correlation id; the op is
 * the innermost cpu_op on the launching thread around the launch. Rank in
 * distributedInfo, an old capitalised category, bad timestamps. */
static const char trace_b[] =
	"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Tesla V100-SXM2-32GB\"}],\n"
	"\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n"
	"\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#2\",\"pid\":10,\"tid\":11,\"ts\":900,\"dur\":2000},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":10,\"tid\":11,\"ts\":1000,\"dur\":100,"
	"\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":10,\"tid\":11,\"ts\":1010,\"dur\":50,"
	"\"args\":{\"External id\":2,\"Input Dims\":[[4,8],[8,2]],\"Input type\":[\"float\",\"float\"]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1020,\"dur\":5,"
	"\"args\":{\"External id\":900,\"correlation\":900}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1070,\"dur\":5,"
	"\"args\":{\"correlation\":901}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":2000,\"dur\":5,"
	"\"args\":{\"correlation\":902}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":12,\"ts\":1100,\"dur\":5,"
	"\"args\":{\"correlation\":903}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":11,\"tid\":11,\"ts\":1020,\"dur\":5,"
	"\"args\":{\"correlation\":904}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1060,\"dur\":5,"
	"\"args\":{\"correlation\":906}},\n"
	"{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k900\",\"pid\":0,\"tid\":7,\"ts\":1100,\"dur\":1,"
	"\"args\":{\"External id\":900,\"correlation\":900,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k901\",\"pid\":0,\"tid\":7,\"ts\":1101,\"dur\":1,"
	"\"args\":{\"External id\":901,\"correlation\":901,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k902\",\"pid\":0,\"tid\":7,\"ts\":1102,\"dur\":1,"
	"\"args\":{\"External id\":902,\"correlation\":902,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k903\",\"pid\":0,\"tid\":7,\"ts\":1103,\"dur\":1,"
	"\"args\":{\"External id\":903,\"correlation\":903,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k904\",\"pid\":0,\"tid\":7,\"ts\":1104,\"dur\":1,"
	"\"args\":{\"External id\":904,\"correlation\":904,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k905\",\"pid\":0,\"tid\":7,\"ts\":1105,\"dur\":1,"
	"\"args\":{\"External id\":905,\"correlation\":905,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k906\",\"pid\":0,\"tid\":7,\"ts\":1106,\"dur\":1,"
	"\"args\":{\"External id\":906,\"correlation\":906,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":10,\"tid\":12,\"ts\":1000,\"dur\":200,"
	"\"args\":{\"External id\":3}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::collide\",\"pid\":10,\"tid\":13,\"ts\":5000,\"dur\":10,"
	"\"args\":{\"External id\":900}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad\",\"pid\":10,\"tid\":11,\"ts\":\"5\",\"dur\":1},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kneg\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":-1,\"args\":{}},\n"
	"{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"begin\",\"pid\":10,\"tid\":11,\"ts\":5}\n"
	"]}\n";

static void test_trace_b(int gz)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	const char *path = put_file(gz ? "b.json.gz" : "b.json", trace_b, sizeof(trace_b) - 1, gz);

	CHECK_INT(read_trace(path, &t, &e), OPMFU_OK);
	/*
	 * k900: launch at 1020 on (10,11), inside linear [1000,1100] and addmm
	 * [1010,1060]: the innermost, addmm. k901: launch at 1070, after addmm
	 * ended: linear. k906: launch at 1060, addmm's last instant: addmm.
	 * k903: launch on (10,12) at 1100: aten::mm, written after the kernels.
	 * k902 (launch at 2000, only inside the ProfilerStep#2 cpu_op, which is
	 * a step and no op), k904 (pid 11: no ops there) and k905 (no launch)
	 * link to nothing. aten::collide's External id 900 is k900's too, but
	 * k900's External id is its correlation id: old style, no op's id.
	 * No base time: ts are Unix microseconds already.
	 */
	CHECK_INT(t.n_compute, 4);
	CHECK_INT(t.n_comm_op, 0);
	CHECK_INT(t.n_ops, 3);
	if (t.n_compute == 4) {
		check_link(&t, 0, "k900", 1100000, 1101000, "aten::addmm", 1010000, 1060000, 0);
		check_link(&t, 1, "k901", 1101000, 1102000, "aten::linear", 1000000, 1100000, 1);
		check_link(&t, 2, "k903", 1103000, 1104000, "aten::mm", 1000000, 1200000, 2);
		check_link(&t, 3, "k906", 1106000, 1107000, "aten::addmm", 1010000, 1060000, 0);
		CHECK_STR(str(&t, t.links[0].in_shapes), "4,8;8,2");
		CHECK(opmfu_trace_dtype(&t, t.links[0].dtype)->prec == OPMFU_PREC_FP32);
		CHECK_STR(str(&t, t.kx[1].type), "aten::linear");
		/* linked by correlation: the launch is the call the link went through */
		CHECK(t.launch != NULL);
		if (t.launch) {
			CHECK_INT(t.launch[0], 1020000);
			CHECK_INT(t.launch[1], 1070000);
			CHECK_INT(t.launch[2], 1100000);
			CHECK_INT(t.launch[3], 1060000);
		}
	}
	/* linked to no op, but launched: k902 by the cuLaunchKernel at 2000,
	 * k904 on pid 11 at 1020; k905 has no runtime call */
	CHECK_INT(t.kernels.n, 3);
	check_range(&t.kernels, 0, 1102000, 1103000, 2000000, "k902", &t);
	check_range(&t.kernels, 1, 1104000, 1105000, 1020000, "k904", &t);
	check_range(&t.kernels, 2, 1105000, 1106000, OPMFU_NO_LAUNCH, "k905", &t);
	CHECK_INT(t.steps.n, 1);
	check_range(&t.steps, 0, 900000, 2900000, 2, "(none)", &t);
	CHECK_INT(t.devsteps.n, 0);
	CHECK_INT(t.mods.n, 0);
	/* "ts": "5" and "dur": -1 */
	CHECK_INT(t.n_bad_rows, 2);
	CHECK_STR(t.device.chip, "Tesla V100-SXM2-32GB");
	CHECK_STR(t.note, "7 GPU kernels: 0 linked by External id, 4 by correlation, 3 to no op; 0 communication "
			  "kernels (0 linked); 0 nn.Module calls; 1 step; GPU \"Tesla V100-SXM2-32GB\"");
	opmfu_trace_release(&t);
}

/* The device timeline (SPEC 17): copies and memsets under both category
 * names, with and without a launch, one whose External id is an op's (it
 * still links to nothing: a copy is no kernel), one with a bad duration; a
 * kernel whose correlation id no runtime call has; a correlation id two
 * runtime calls carry; ProfilerStep#N on the GPU, one number twice, one
 * with a CPU step too. */
static const char trace_c[] =
	"{\"baseTimeNanoseconds\": 5000000000, \"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy DtoH (Device -> Pageable)\",\"pid\":0,\"tid\":\"stream 7\","
	"\"ts\":60,\"dur\":1.5,\"args\":{\"correlation\":72,\"external id\":10}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,"
	"\"ts\":40,\"dur\":5,\"args\":{\"External id\":10,\"device\":0,\"correlation\":70,\"bytes\":64}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20,"
	"\"args\":{\"External id\":10}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":3,"
	"\"args\":{\"External id\":10,\"correlation\":70}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":13,\"dur\":1,"
	"\"args\":{\"correlation\":70}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":1,"
	"\"args\":{\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":2,"
	"\"args\":{\"correlation\":71}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy bad\",\"pid\":0,\"tid\":7,\"ts\":55,\"dur\":\"x\","
	"\"args\":{\"correlation\":70}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":2,\"ts\":58,\"dur\":1,"
	"\"args\":{\"correlation\":72}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_nolaunch\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":1,"
	"\"args\":{\"correlation\":73,\"device\":0}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":0,\"tid\":7,\"ts\":100,"
	"\"dur\":50},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":0,\"tid\":7,\"ts\":20,"
	"\"dur\":60},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":0,\"tid\":7,\"ts\":90,"
	"\"dur\":5},\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":90},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"aten::copy_\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":5}\n"
	"]}\n";

#define BASE_C 5000000000LL

static void test_trace_c(void)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	const char *path = put_file("c.json", trace_c, sizeof(trace_c) - 1, 0);

	CHECK_INT(read_trace(path, &t, &e), OPMFU_OK);
	/* copies and memsets are no kernels: nothing links, aten::copy_ is
	 * no op instance; the one kernel links to nothing */
	CHECK_INT(t.n_links, 0);
	CHECK_INT(t.n_ops, 0);
	CHECK(t.launch != NULL);
	/* by start, with the base: the memset at 30 us (no correlation), the
	 * HtoD copy at 40 (correlation 70: the cudaMemcpyAsync at 12, the first
	 * of the two calls with that id), the old-style Memset at 50
	 * (correlation 71: no call), the old-style Memcpy at 60 (the call at
	 * 58, on another thread); the one with "dur": "x" is a bad row */
	CHECK_INT(t.memcpy.n, 4);
	check_range(&t.memcpy, 0, BASE_C + 30000, BASE_C + 31000, OPMFU_NO_LAUNCH, "Memset (Device)", &t);
	check_range(&t.memcpy, 1, BASE_C + 40000, BASE_C + 45000, BASE_C + 12000, "Memcpy HtoD (Pageable -> Device)", &t);
	check_range(&t.memcpy, 2, BASE_C + 50000, BASE_C + 52000, OPMFU_NO_LAUNCH, "Memset (Device)", &t);
	check_range(&t.memcpy, 3, BASE_C + 60000, BASE_C + 61500, BASE_C + 58000, "Memcpy DtoH (Device -> Pageable)", &t);
	CHECK_INT(t.n_bad_rows, 1);
	/* correlation 73 has no runtime call */
	CHECK_INT(t.kernels.n, 1);
	check_range(&t.kernels, 0, BASE_C + 70000, BASE_C + 71000, OPMFU_NO_LAUNCH, "k_nolaunch", &t);
	CHECK_INT(t.comm.n, 0);
	/* steps as before: #2 its CPU span, #3 (no CPU one) its first GPU
	 * span; device steps: every number's first GPU span in file order
	 * (#3's second, at 90 us, is dropped), by start */
	CHECK_INT(t.steps.n, 2);
	check_range(&t.steps, 0, BASE_C + 5000, BASE_C + 95000, 2, "(none)", &t);
	check_range(&t.steps, 1, BASE_C + 100000, BASE_C + 150000, 3, "(none)", &t);
	CHECK_INT(t.devsteps.n, 2);
	check_range(&t.devsteps, 0, BASE_C + 20000, BASE_C + 80000, 2, "(none)", &t);
	check_range(&t.devsteps, 1, BASE_C + 100000, BASE_C + 150000, 3, "(none)", &t);
	CHECK_STR(t.note, "1 GPU kernel: 0 linked by External id, 0 by correlation, 1 to no op; 0 communication "
			  "kernels (0 linked); 0 nn.Module calls; 2 steps");
	opmfu_trace_release(&t);
}

/* How kernels find their ops when the ids come in no order (kineto_link.c):
 * External id 20 belongs to two ops, the later nested in the earlier, and
 * the first in file order wins (the innermost around the launch would be
 * the other); External id 7's op does not hold its kernel's launch, which
 * then links through the launch; two kernels with neither id link by their
 * ac2g flows, whose "s" ends come in id order or not (@ marks where the
 * two variants put the flow of id 300). Most ops link to nothing, and the
 * one that comes first has the highest id. */
#define TRACE_ORDER(S300_FIRST, S300_LAST) \
	"{\"traceEvents\": [\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"late_ext\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{\"External id\":99}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"first5\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10,\"args\":{\"External id\":5}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer20\",\"pid\":1,\"tid\":1,\"ts\":25,\"dur\":20,\"args\":{\"External id\":20}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"inner20\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,\"args\":{\"External id\":20}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"holder7\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10,\"args\":{\"External id\":7}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"around70\",\"pid\":1,\"tid\":1,\"ts\":65,\"dur\":10,\"args\":{\"External id\":8}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flowop\",\"pid\":1,\"tid\":1,\"ts\":80,\"dur\":10,\"args\":{\"External id\":11}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"flowop2\",\"pid\":1,\"tid\":1,\"ts\":90.5,\"dur\":5,\"args\":{\"External id\":12}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"unused\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":1,\"args\":{\"External id\":13}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":1,\"args\":{\"correlation\":100}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":32,\"dur\":1,\"args\":{\"correlation\":102}},\n" \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":1,\"args\":{\"correlation\":101}},\n" \
	S300_FIRST \
	"{\"ph\":\"s\",\"id\":200,\"pid\":1,\"tid\":1,\"ts\":92,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n" \
	S300_LAST \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kA\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":5,\"args\":{\"External id\":5,\"correlation\":100}},\n" \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kB\",\"pid\":0,\"tid\":7,\"ts\":150,\"dur\":5,\"args\":{\"External id\":7,\"correlation\":101}},\n" \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kE\",\"pid\":0,\"tid\":7,\"ts\":170,\"dur\":5,\"args\":{\"External id\":20,\"correlation\":102}},\n" \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kC\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":5,\"args\":{\"device\":0}},\n" \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kD\",\"pid\":0,\"tid\":7,\"ts\":210,\"dur\":5,\"args\":{\"device\":0}},\n" \
	"{\"ph\":\"f\",\"id\":300,\"pid\":0,\"tid\":7,\"ts\":200,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n" \
	"{\"ph\":\"f\",\"id\":200,\"pid\":0,\"tid\":7,\"ts\":210,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}\n" \
	"]}\n"
#define S300 "{\"ph\":\"s\",\"id\":300,\"pid\":1,\"tid\":1,\"ts\":82,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
static const char trace_order_sorted[] = TRACE_ORDER("", S300);
static const char trace_order_unsorted[] = TRACE_ORDER(S300, "");

static void test_link_order(const char *text, size_t len)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	const char *path = put_file("order.json", text, len, 0);

	CHECK_INT(read_trace(path, &t, &e), OPMFU_OK);
	CHECK_INT(t.n_links, 5);
	CHECK_INT(t.n_ops, 5);
	if (t.n_links == 5) {
		check_link(&t, 0, "kA", 100000, 105000, "first5", 10000, 20000, 0);
		check_link(&t, 1, "kB", 150000, 155000, "around70", 65000, 75000, 1);
		check_link(&t, 2, "kE", 170000, 175000, "outer20", 25000, 45000, 2);
		check_link(&t, 3, "kC", 200000, 205000, "flowop", 80000, 90000, 3);
		check_link(&t, 4, "kD", 210000, 215000, "flowop2", 90500, 95500, 4);
	}
	CHECK_STR(t.note, "5 GPU kernels: 2 linked by External id, 0 by correlation, 2 by flow (ac2g), 1 through "
			  "their launch (their External id's op did not hold it), 0 to no op; 0 communication kernels "
			  "(0 linked); 0 nn.Module calls; 0 steps");
	opmfu_trace_release(&t);
}

/* One cpu_op per case with one kernel each (External id i), in time order:
 * what Input Dims, Input type and Concrete Inputs become. */
static const char trace_args[] =
	"{\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o1\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"External id\":1,"
	"\"Input Dims\":[[1,2],[],[[3],[4,5]],[]],\"Input type\":[\"a;b\",null,1,[2],\"c10::Half\"],"
	"\"Concrete Inputs\":[\"x\\u001fy\",\"[1, 2]\",3,null,true,[\"z\"],{\"k\":1}]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o2\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"args\":{\"External id\":2,"
	"\"Input Dims\":[[-1]]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o3\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,\"args\":{\"External id\":3,"
	"\"Input Dims\":[[1.5]]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o4\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,\"args\":{\"External id\":4,"
	"\"Input Dims\":[{\"a\":1}]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o5\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1,\"args\":{\"External id\":5,"
	"\"Input Dims\":[[[1],2]]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o6\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1,\"args\":{\"External id\":6,"
	"\"Input Dims\":[1]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o7\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"args\":{\"External id\":7,"
	"\"Input Dims\":7}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o8\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1,\"args\":{\"External id\":8,"
	"\"Input Dims\":[[[[4]]],[2,0]],\"Input type\":[]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"o9\",\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1,\"args\":{\"External id\":9,"
	"\"Input Dims\":[[1234567890123456789]]}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"ts\":11,\"dur\":1,\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"ts\":12,\"dur\":1,\"args\":{\"External id\":2}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"ts\":13,\"dur\":1,\"args\":{\"External id\":3}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"ts\":14,\"dur\":1,\"args\":{\"External id\":4}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k5\",\"ts\":15,\"dur\":1,\"args\":{\"External id\":5}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k6\",\"ts\":16,\"dur\":1,\"args\":{\"External id\":6}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k7\",\"ts\":17,\"dur\":1,\"args\":{\"External id\":7}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k8\",\"ts\":18,\"dur\":1,\"args\":{\"External id\":8}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k9\",\"ts\":19,\"dur\":1,\"args\":{\"External id\":9}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":20,\"dur\":1,\"args\":{\"device\":3}},\n"
	"{\"args\":{\"External id\":1},\"dur\":1,\"ts\":21,\"name\":\"late_keys\",\"cat\":\"kernel\",\"ph\":\"X\"}\n"
	"]}\n";

static void test_args(void)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	const char *path = put_file("args.json", trace_args, sizeof(trace_args) - 1, 0);
	size_t i;

	CHECK_INT(read_trace(path, &t, &e), OPMFU_OK);
	CHECK_INT(t.n_compute, 10);
	if (t.n_compute != 10)
		goto out;
	/* a kernel without a name has the empty one, not the last event's; one
	 * whose keys come in another order (args first) is read the same */
	CHECK_INT(t.kernels.n, 1);
	if (t.kernels.n == 1)
		CHECK_STR(str(&t, t.kernels.v[0].name), "");
	CHECK_STR(str(&t, t.links[9].k_name), "late_keys");
	CHECK_STR(str(&t, t.links[9].op_name), "o1");
	/* o1: four arguments, the third a list of tensors (one empty entry);
	 * type entries that are no string keep their place (';' inside one
	 * becomes ' '); a concrete input's 0x1f becomes ' ', lists and objects
	 * are empty entries */
	CHECK_STR(str(&t, t.links[0].in_shapes), "1,2;;;");
	CHECK_STR(str(&t, opmfu_trace_dtype(&t, t.links[0].dtype)->text), "a b;;1;;c10::Half");
	CHECK_STR(str(&t, t.kx[0].attrs), "x y\x1f[1, 2]\x1f" "3\x1f\x1ftrue\x1f\x1f");
	/* o2-o7: a negative or fractional dim, an object, a list mixing
	 * tensors and dims, a bare number, no list: shapes unknown */
	for (i = 1; i <= 6; i++)
		CHECK_INT(t.links[i].in_shapes, t.shape_unknown);
	/* o8: deeper lists are one empty entry; a 0 dim is a dim; "Input type": []
	 * is an empty list (its text ""), not a missing one */
	CHECK_STR(str(&t, t.links[7].in_shapes), ";2,0");
	CHECK(t.links[7].dtype != 0);
	CHECK_STR(str(&t, opmfu_trace_dtype(&t, t.links[7].dtype)->text), "");
	/* o9: 19 digits may not fit in int64: unknown */
	CHECK_INT(t.links[8].in_shapes, t.shape_unknown);
	/* no pid or tid: still linked by External id */
	CHECK_STR(t.note, "11 GPU kernels: 10 linked by External id, 0 by correlation, 1 to no op; 0 communication "
			  "kernels (0 linked); 0 nn.Module calls; 0 steps");
	/* no deviceProperties (device 3 ran a kernel): no GPU, and the device says why */
	CHECK_STR(t.device.chip, "");
	CHECK(t.device.path == NULL && strstr(t.device.no_peak, "names no GPU") != NULL);
out:
	opmfu_trace_release(&t);
}

/* Reads text as a trace; returns the status and the message without the path. */
static enum opmfu_status read_text(const char *text, char *msg, size_t size)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	const char *path = put_file("t.json", text, strlen(text), 0);
	enum opmfu_status st = read_trace(path, &t, &e);
	size_t n = strlen(path);
	snprintf(msg, size, "%s", !strncmp(e.msg, path, n) && e.msg[n] == ':' ? e.msg + n + 2 : e.msg);
	opmfu_trace_release(&t);
	return st;
}

static void test_faults(void)
{
	char msg[OPMFU_ERR_MSG_MAX + 8];
	struct opmfu_trace t;
	struct opmfu_err e;
	char want[512];

	/* JSON faults: json_stream's words and byte offsets (0-based: '[' is
	 * byte 16, the second ',' byte 19; the text ends at byte 17) */
	CHECK_INT(read_text("{\"traceEvents\": [1,,2]}", msg, sizeof(msg)), OPMFU_ERR_FORMAT);
	CHECK_STR(msg, "invalid JSON at byte 19: unexpected character");
	CHECK_INT(read_text("{\"traceEvents\": [", msg, sizeof(msg)), OPMFU_ERR_FORMAT);
	CHECK_STR(msg, "invalid JSON at byte 17: unexpected end of input");
	CHECK_INT(read_text("", msg, sizeof(msg)), OPMFU_ERR_FORMAT);
	CHECK_STR(msg, "invalid JSON at byte 0: unexpected end of input");
	/* JSON that is no trace */
	CHECK_INT(read_text("{\"config\": {\"common_config\": {}}, \"start_info\": {}}", msg, sizeof(msg)),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(msg, "not a PyTorch profiler trace: no traceEvents list");
	CHECK_INT(read_text("{\"traceEvents\": {}}", msg, sizeof(msg)), OPMFU_ERR_FORMAT);
	CHECK_STR(msg, "not a PyTorch profiler trace: no traceEvents list");
	CHECK_INT(read_text("[{\"ph\": \"X\"}]", msg, sizeof(msg)), OPMFU_ERR_FORMAT);
	CHECK_STR(msg, "not a PyTorch profiler trace: the JSON text is not an object");
	/* an empty trace is a trace */
	CHECK_INT(read_text("{\"traceEvents\": []}", msg, sizeof(msg)), OPMFU_OK);

	/* a file that is not there */
	snprintf(want, sizeof(want), "%s/none.json: cannot read: No such file or directory", dir);
	snprintf(msg, sizeof(msg), "%s/none.json", dir);
	CHECK_INT(read_trace(msg, &t, &e), OPMFU_ERR_IO);
	CHECK_STR(e.msg, want);
	opmfu_trace_release(&t);
}

/* The bytes of trace_b gzip'd, cut or damaged. */
static void test_gzip(void)
{
	struct opmfu_trace t;
	struct opmfu_err e;
	char *gz = NULL, want[512];
	const char *path = put_file("c.json.gz", trace_b, sizeof(trace_b) - 1, 1);
	FILE *f = fopen(path, "rb");
	long n = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	gz = malloc((size_t)n);
	CHECK(gz && fread(gz, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	if (!gz)
		return;
	/* without its 8-byte trailer (CRC, size) all the text is there, but
	 * the stream does not end */
	path = put_file("cut.json.gz", gz, (size_t)n - 8, 0);
	CHECK_INT(read_trace(path, &t, &e), OPMFU_ERR_FORMAT);
	snprintf(want, sizeof(want), "%s: truncated gzip file: it ends after %ld compressed bytes (%zu bytes of text), "
		 "inside its compressed stream", path, n - 8, sizeof(trace_b) - 1);
	CHECK_STR(e.msg, want);
	opmfu_trace_release(&t);
	/* only the 10-byte gzip header */
	path = put_file("head.json.gz", gz, 10, 0);
	CHECK_INT(read_trace(path, &t, &e), OPMFU_ERR_FORMAT);
	snprintf(want, sizeof(want), "%s: truncated gzip file: it ends after 10 compressed bytes (0 bytes of text), "
		 "inside its compressed stream", path);
	CHECK_STR(e.msg, want);
	opmfu_trace_release(&t);
	/* a wrong CRC: zlib's words */
	gz[n - 8] ^= 0x55;
	path = put_file("crc.json.gz", gz, (size_t)n, 0);
	CHECK_INT(read_trace(path, &t, &e), OPMFU_ERR_FORMAT);
	snprintf(want, sizeof(want), "%s: corrupt gzip data near compressed byte", path);
	CHECK(!strncmp(e.msg, want, strlen(want)));
	CHECK(strstr(e.msg, ": incorrect data check") != NULL);
	opmfu_trace_release(&t);
	/* two gzip members one after the other are one text (as gzip -dc);
	 * bytes after the last member that are no gzip header are ignored */
	gz[n - 8] ^= 0x55;
	{
		size_t half = 300;
		char *two = malloc((size_t)n * 2 + 16);
		gzFile g;
		CHECK(two != NULL);
		if (two) {
			path = put_file("two.json.gz", "", 0, 0);
			g = gzopen(path, "wb");
			gzwrite(g, trace_b, (unsigned)half);
			gzclose(g);
			g = gzopen(path, "ab");
			gzwrite(g, trace_b + half, (unsigned)(sizeof(trace_b) - 1 - half));
			gzclose(g);
			f = fopen(path, "ab");
			fputs("junk", f);
			fclose(f);
			CHECK_INT(read_trace(path, &t, &e), OPMFU_OK);
			CHECK_INT(t.n_compute, 4);
			opmfu_trace_release(&t);
			free(two);
		}
	}
	free(gz);
}

/* Every allocation of a read failing in turn: NOMEM with a message, or a
 * complete result; the sanitizer build checks that nothing leaks. */
static void test_nomem(void)
{
	const char *paths[3];
	static const size_t compute[3] = { 4, 4, 0 }, copies[3] = { 0, 0, 4 };
	int p;

	paths[0] = put_file("m.json", trace_a, sizeof(trace_a) - 1, 0);
	paths[1] = put_file("m.json.gz", trace_b, sizeof(trace_b) - 1, 1);
	paths[2] = put_file("mc.json", trace_c, sizeof(trace_c) - 1, 0);
	for (p = 0; p < 3; p++) {
		long k;
		int done = 0;
		for (k = 1; k < 10000 && !done; k++) {
			struct opmfu_trace t;
			struct opmfu_err e;
			enum opmfu_status st;
			opmfu_trace_init(&t);
			memset(&e, 0, sizeof(e));
			opmfu_mem_fail_after(k);
			st = opmfu_read_kineto(paths[p], &t, NULL, &e);
			opmfu_mem_fail_after(0);
			if (st == OPMFU_OK) {
				CHECK_INT(t.n_compute, compute[p]);
				CHECK_INT(t.memcpy.n, copies[p]);
				done = 1;
			} else {
				CHECK_INT(st, OPMFU_ERR_NOMEM);
				CHECK(strstr(e.msg, paths[p]) == e.msg && strstr(e.msg, "out of memory") != NULL);
			}
			opmfu_trace_release(&t);
		}
		CHECK(done);
	}
}

/* The record arrays (kineto_pages.c): past KIN_PAGED_MIN bytes an array
 * moves to pages of its own and keeps growing there; every element written
 * reads back the same through each move, and dropping leaves it empty. A
 * parse of nsys's (no bit set) frees its own malloc'd array the same way. */
static void test_paged(void)
{
	struct kin_parse p;
	struct kin_op *v = NULL;
	size_t cap = 0, n, i, bad = 0;
	const size_t want = 3 * KIN_PAGED_MIN / sizeof(*v); /* past the line, then grown twice more */

	memset(&p, 0, sizeof(p));
	for (n = 0; n < want; n++) {
		if (KIN_GROW(&p, KIN_PAGED_OPS, v, cap, n + 1))
			break;
		memset(&v[n], 0, sizeof(v[n]));
		v[n].start = (int64_t)n;
		v[n].name = (uint32_t)(n * 7);
	}
	CHECK_INT(n, want);
	CHECK(cap >= want);
#ifdef __linux__
	CHECK_INT(p.paged, KIN_PAGED_OPS);
#endif
	for (i = 0; i < n; i++)
		bad += v[i].start != (int64_t)i || v[i].name != (uint32_t)(i * 7);
	CHECK_INT(bad, 0);
	KIN_DROP(&p, KIN_PAGED_OPS, v, cap);
	CHECK(v == NULL && cap == 0 && p.paged == 0);

	/* below the line: malloc'd, no bit */
	CHECK_INT(KIN_GROW(&p, KIN_PAGED_KERNELS, p.kernels, p.cap_kernels, 10), 0);
	CHECK(p.kernels != NULL && p.cap_kernels >= 10 && p.paged == 0);
	/* another reader's own array: no bit, freed as malloc'd */
	p.launches = opmfu_malloc(KIN_PAGED_MIN * 2);
	p.cap_launches = KIN_PAGED_MIN * 2 / sizeof(*p.launches);
	opmfu_kin_drop_events(&p);
	CHECK(p.kernels == NULL && p.launches == NULL && p.cap_launches == 0);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/opmfu-kineto-XXXXXX");
	if (!mkdtemp(dir))
		return 2;
	test_us_to_ns();
	test_dtypes();
	test_names();
	test_paged();
	test_trace_a(0);
	test_trace_a(1);
	test_trace_b(0);
	test_trace_b(1);
	test_trace_c();
	test_link_order(trace_order_sorted, sizeof(trace_order_sorted) - 1);
	test_link_order(trace_order_unsorted, sizeof(trace_order_unsorted) - 1);
	test_args();
	test_faults();
	test_gzip();
	/* the same traces and faults with the text inflated on a second thread */
	read_threads = 2;
	test_trace_a(1);
	test_trace_b(1);
	test_gzip();
	read_threads = 1;
	test_nomem();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return check_done();
}
