/*
 * t_kname.c - short kernel names (SPEC 20) on real names from the Kineto
 * traces in ../shared/real/kineto (A100 recsys, H100 BERT and Qwen, MI300X
 * ResNet); each expectation worked out by hand from the rule in kname.h.
 */
#include <string.h>

#include "base/kname.h"
#include "check.h"

static void is(const char *name, size_t width, const char *want)
{
	char out[512];
	size_t n = opmfu_kernel_short(name, strlen(name), width, out, sizeof(out));
	CHECK_STR(out, want);
	CHECK_INT(n, strlen(want));
}

int main(void)
{
	/* at::native, H100 BERT: the template list holds parentheses, lambdas and a nested std::array<> */
	is("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
	   "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::"
	   "BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
	   "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::"
	   "BFloat16)#1}, std::array<char*, 2ul>)",
	   0, "at::native::vectorized_elementwise_kernel");
	/* the kernel, Qwen: its old left cut showed "...float> > >(at::TensorIteratorBase&, ..." */
	is("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor"
	   "<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::"
	   "TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::"
	   "binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::"
	   "native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<"
	   "float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
	   "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
	   50, "at::native::elementwise_kernel");
	/* "(anonymous namespace)::" is a scope and stays */
	is("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, "
	   "true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 "
	   "const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, "
	   "unsigned int, long)",
	   0, "at::native::(anonymous namespace)::indexSelectLargeIndex");
	/* cutlass: a lone identifier argument is the kernel's real name and stays */
	is("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(cutlass_80_tensorop_"
	   "bf16_s16816gemm_bf16_256x128_64x3_tn_align2::Params)",
	   0, "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>");
	is("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_"
	   "256x128_32x3_nt_align1::Params)",
	   0, "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1>");
	/* flash attention: a list of types and booleans */
	is("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
	   "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, "
	   "false, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)",
	   0, "pytorch_flash::flash_fwd_kernel");
	/* fbgemm, A100 recsys */
	is("void split_embedding_codegen_forward_weighted_kernel<float, float, float, false, long, 1ul, 16ul>(at::"
	   "GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>, long)",
	   0, "split_embedding_codegen_forward_weighted_kernel");
	/* NCCL: parameters only (MI300X's ncclDevKernel_, A100's ncclKernel_) */
	is("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", 0, "ncclDevKernel_Generic");
	is("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 0,
	   "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
	/* Triton and op names: nothing to drop */
	is("triton__0d1d23d", 0, "triton__0d1d23d");
	is("triton_poi_fused_add_0", 10, "triton_...");
	is("aten::mm", 8, "aten::mm");
	/* the cut from the right: width - 3 bytes and "..." (17 + 3 = 20) */
	is("void at::native::vectorized_elementwise_kernel<4, float>(int)", 20, "at::native::vecto...");
	/* a mangled ROCm name has no <, ( or "void ": only the cut, 27 + 3 = 30 */
	is("_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47GridwiseGemm", 30,
	   "_ZN2ck16tensor_operation6de...");
	/* never inside a UTF-8 character: width 6 leaves 3 bytes, the third inside "β" */
	is("\xce\xb1\xce\xb2\xce\xb3\xce\xb4\xce\xb5", 6, "\xce\xb1...");
	/* an unclosed list drops to the end; "void" alone is a name */
	is("foo<int", 0, "foo");
	is("void", 0, "void");
	is("", 10, "");
	{
		/* the cut follows the short name's length, not what fits: 81 bytes of room, a width of 80,
		 * an 81-byte short name -> 77 bytes and "..." */
		char out[81];
		const char *k = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(p)";
		CHECK_INT(opmfu_kernel_short(k, strlen(k), 80, out, sizeof(out)), 80);
		CHECK_STR(out, "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_ali...");
	}
	{
		char small[8];
		CHECK_INT(opmfu_kernel_short("ncclDevKernel_Generic(x)", 24, 0, small, sizeof(small)), 7);
		CHECK_STR(small, "ncclDev");
	}
	return check_done();
}
