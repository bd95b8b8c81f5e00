/*
 * t_nsys_text.c - the NVTX text parser of read/nsys/nsys_nvtx.c (PyTorch's
 * emit_nvtx grammar, docs/nsys.md) and the dtype a kernel name implies, on
 * texts whose every field is written out by hand. Sizes are compared in the
 * normal form the Kineto reader gives "Input Dims" (kineto_events.c
 * dims_value): dims joined by ',', inputs by ';', a [] input an empty entry.
 */
#include <string.h>

#include "check.h"
#include "read/nsys/nsys.h"

static struct nsys_text x;
static struct sbuf shapes;

static void parse(const char *s)
{
	CHECK_INT(opmfu_nsys_parse_text(s, strlen(s), &x, &shapes), 0);
}

/* the name as a NUL-terminated copy, for CHECK_STR */
static const char *name(void)
{
	static char buf[256];
	size_t n = x.name_len < sizeof(buf) - 1 ? x.name_len : sizeof(buf) - 1;
	memcpy(buf, x.name ? x.name : "", x.name ? n : 0);
	buf[x.name ? n : 0] = 0;
	return buf;
}

/* the sizes as a NUL-terminated copy */
static const char *sizes(void)
{
	static char buf[256];
	size_t n = shapes.len < sizeof(buf) - 1 ? shapes.len : sizeof(buf) - 1;
	if (n)
		memcpy(buf, shapes.buf, n);
	buf[n] = 0;
	return buf;
}

static void op(const char *text, const char *nm, long long seq, long long op_id, int has_sizes, int ok,
	       const char *sz)
{
	parse(text);
	CHECK_INT(x.kind, NSYS_TEXT_OP);
	CHECK_STR(name(), nm);
	CHECK_INT(x.seq, seq);
	CHECK_INT(x.op_id, op_id);
	CHECK_INT(x.step, -1);
	CHECK_INT(x.has_sizes, has_sizes);
	CHECK_INT(x.shapes_ok, ok);
	CHECK_STR(sizes(), sz);
}

static void texts(void)
{
	/* the grammar's fields, in PyTorch's order */
	op("aten::mm, seq = 12, op_id = 5, sizes = [[4096, 4096], [4096, 4096]]", "aten::mm", 12, 5, 1, 1,
	   "4096,4096;4096,4096");
	/* non-tensor inputs ([]) are empty entries, positions kept */
	op("aten::addmm, seq = 14, op_id = 8, sizes = [[4096], [8, 1024], [1024, 4096], [], []]", "aten::addmm", 14, 8,
	   1, 1, "4096;8,1024;1024,4096;;");
	/* input_op_ids after the sizes are not part of them */
	op("aten::add, seq = 1, op_id = 9, sizes = [[2], [2]], input_op_ids = [(8, 0), (7, 0)]", "aten::add", 1, 9, 1,
	   1, "2;2");
	/* texts without sizes: ops whose shapes are unknown */
	op("aten::view, op_id = 314290", "aten::view", -1, 314290, 0, 0, "");
	op("aten::empty, seq = 3", "aten::empty", 3, -1, 0, 0, "");
	/* the fields in another order: each is found after the name */
	op("aten::mm, op_id = 5, seq = 7", "aten::mm", 7, 5, 0, 0, "");
	/* an op with no inputs: sizes known and empty */
	op("aten::zeros, sizes = []", "aten::zeros", -1, -1, 1, 1, "");
	/* spaces where PyTorch writes none are skipped */
	op("aten::cat, sizes = [ [1,2] , [ 3 ] ]", "aten::cat", -1, -1, 1, 1, "1,2;3");
	/* a name with "::" and no comma is an op with nothing else */
	op("aten::relu_", "aten::relu_", -1, -1, 0, 0, "");
	/* 18 digits are a number, 19 are not (int64 holds 18 nines) */
	op("aten::mm, seq = 999999999999999999, sizes = [[999999999999999999]]", "aten::mm", 999999999999999999LL, -1,
	   1, 1, "999999999999999999");
	op("aten::mm, seq = 1234567890123456789, op_id = 10000000000000000000, sizes = [[1234567890123456789]]",
	   "aten::mm", -1, -1, 1, 0, "");
	/* malformed sizes: unknown shapes, the op kept */
	op("aten::mm, seq = 2, sizes = [[1, 2]", "aten::mm", 2, -1, 1, 0, "");          /* unbalanced */
	op("aten::mm, sizes = [[1, 2], [3]", "aten::mm", -1, -1, 1, 0, "");             /* outer ] missing */
	op("aten::mm, sizes = [1, 2]", "aten::mm", -1, -1, 1, 0, "");                   /* dims not in a list */
	op("aten::mm, sizes = [[1, [2]]]", "aten::mm", -1, -1, 1, 0, "");               /* nested */
	op("aten::mm, sizes = [[a, 2]]", "aten::mm", -1, -1, 1, 0, "");                 /* non-digit */
	op("aten::mm, sizes = [[-1, 2]]", "aten::mm", -1, -1, 1, 0, "");                /* negative */
	op("aten::mm, sizes = [[1,, 2]]", "aten::mm", -1, -1, 1, 0, "");                /* empty dim */
	op("aten::mm, sizes = ", "aten::mm", -1, -1, 1, 0, "");                         /* truncated */
	/* non-digit seq and op_id: absent; the markers still make it an op */
	op("aten::mm, seq = x, op_id = -4", "aten::mm", -1, -1, 0, 0, "");
	/* trailing junk after the number: the field is refused, not read as 12;
	 * the other fields stand */
	op("aten::mm, seq = 12abc, op_id = 5", "aten::mm", -1, 5, 0, 0, "");
	op("aten::mm, op_id = 5x, seq = 12", "aten::mm", 12, -1, 0, 0, "");
	op("aten::mm, seq = 12 , op_id = 5", "aten::mm", -1, 5, 0, 0, "");
	op("aten::mm, seq = 12abc, sizes = [[2, 3], [3, 4]]", "aten::mm", -1, -1, 1, 1, "2,3;3,4");
	/* a text cut at n: nothing after it is read */
	CHECK_INT(opmfu_nsys_parse_text("aten::mm, seq = 12", 8, &x, &shapes), 0);
	CHECK_INT(x.kind, NSYS_TEXT_OP);
	CHECK_INT(x.name_len, 8);
	CHECK_INT(x.seq, -1);

	/* steps */
	parse("ProfilerStep#12");
	CHECK_INT(x.kind, NSYS_TEXT_STEP);
	CHECK_INT(x.step, 12);
	CHECK_STR(name(), "ProfilerStep#12");
	CHECK_INT(x.seq, -1);
	CHECK_INT(x.op_id, -1);
	parse("ProfilerStep#");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);
	parse("ProfilerStep#-1");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);
	parse("ProfilerStep#1x");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);

	/* modules: the whole text is the name (the reader drops the prefix) */
	parse("nn.Module: Linear_3");
	CHECK_INT(x.kind, NSYS_TEXT_MODULE);
	CHECK_STR(name(), "nn.Module: Linear_3");
	CHECK_INT(x.name_len, 19);
	CHECK_INT(x.has_sizes, 0);
	parse("nn.Module: ");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);

	/* a user's range and a library's: no op */
	parse("Compute & Residual 10");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);
	CHECK_STR(name(), "Compute & Residual 10");
	parse("");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);
	CHECK_INT(x.name_len, 0);
	CHECK_INT(opmfu_nsys_parse_text(NULL, 0, &x, &shapes), 0);
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);
	CHECK_INT(x.seq, -1);
	/* a text starting with a marker has an empty name: not an op */
	parse(", seq = 4");
	CHECK_INT(x.kind, NSYS_TEXT_OTHER);
	CHECK_INT(x.name_len, 0);
	CHECK_INT(x.seq, 4);
}

static void dtypes(void)
{
	static const char *bf16 = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64";
	CHECK_STR(opmfu_nsys_kernel_dtype(bf16, strlen(bf16)), "c10::BFloat16");
	CHECK_STR(opmfu_nsys_kernel_dtype("ampere_sgemm_128x64_nn", 22), "float");
	CHECK_STR(opmfu_nsys_kernel_dtype("sm90_xmma_gemm_E4M3_f32", 23), "c10::Float8_e4m3fn");
	CHECK_STR(opmfu_nsys_kernel_dtype("volta_h884gemm_64x64", 20), "c10::Half");
	CHECK_STR(opmfu_nsys_kernel_dtype("imma_int8_gemm", 14), "signed char");
	CHECK(opmfu_nsys_kernel_dtype("void other_thread_kernel(int*)", 30) == NULL);
	/* only the first n bytes: "bf16" beyond them does not count */
	CHECK(opmfu_nsys_kernel_dtype("gemm_bf16", 4) == NULL);
	CHECK(opmfu_nsys_kernel_dtype(NULL, 0) == NULL);
}

int main(void)
{
	sbuf_init(&shapes);
	texts();
	dtypes();
	CHECK(!shapes.oom);
	sbuf_release(&shapes);
	return check_done();
}
