/*
 * t_coll.c - collective kinds, nccl-tests bus factors and element sizes
 * (trace/coll.c, SPEC 19): the spellings of HCCL, NCCL, RCCL and PyTorch.
 */
#include <string.h>

#include "check.h"
#include "trace/coll.h"

static int kind(const char *s)
{
	return opmfu_coll_kind_of(s, strlen(s));
}

static int dsize(const char *s)
{
	return opmfu_coll_dtype_size(s, strlen(s));
}

int main(void)
{
	/* kinds: HCCL op names and types */
	CHECK_INT(kind("hcom_allReduce__210_0_1"), OPMFU_COLL_ALLREDUCE);
	CHECK_INT(kind("hcom_reduceScatter_"), OPMFU_COLL_REDUCESCATTER);
	CHECK_INT(kind("hcom_allGather__512_1_1"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("hcom_broadcast_"), OPMFU_COLL_BROADCAST);
	CHECK_INT(kind("hcom_reduce_"), OPMFU_COLL_REDUCE);
	CHECK_INT(kind("hcom_send_"), OPMFU_COLL_SEND);
	CHECK_INT(kind("hcom_receive_"), OPMFU_COLL_RECV);
	CHECK_INT(kind("hcom_alltoallv_"), OPMFU_COLL_ALLTOALL);
	CHECK_INT(kind("HcclAllGather"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("HcclBarrier"), OPMFU_COLL_BARRIER);
	/* NCCL and RCCL kernels */
	CHECK_INT(kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), OPMFU_COLL_ALLREDUCE);
	CHECK_INT(kind("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
		  OPMFU_COLL_ALLREDUCE);
	CHECK_INT(kind("ncclDevKernel_AllGather_RING_LL"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), OPMFU_COLL_REDUCESCATTER);
	CHECK_INT(kind("ncclDevKernel_Broadcast_RING_LL"), OPMFU_COLL_BROADCAST);
	CHECK_INT(kind("ncclDevKernel_Reduce_Sum_f16_RING_LL"), OPMFU_COLL_REDUCE);
	/* SendRecv is both a send and a receive: no one kind */
	CHECK_INT(kind("ncclKernel_SendRecv"), OPMFU_COLL_OTHER);
	CHECK_INT(kind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"),
		  OPMFU_COLL_OTHER);
	CHECK_INT(kind("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), OPMFU_COLL_OTHER);
	/* RCCL's generic kernel names no collective */
	CHECK_INT(kind("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"), OPMFU_COLL_OTHER);
	/* PyTorch ops and "Collective name" values */
	CHECK_INT(kind("c10d::alltoall_base_"), OPMFU_COLL_ALLTOALL);
	CHECK_INT(kind("c10d::allreduce_"), OPMFU_COLL_ALLREDUCE);
	CHECK_INT(kind("c10d::_reduce_scatter_base_"), OPMFU_COLL_REDUCESCATTER);
	CHECK_INT(kind("c10d::_allgather_base_"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("_allgather_base"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("allgather_into_tensor_coalesced"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("reduce_scatter_tensor_coalesced"), OPMFU_COLL_REDUCESCATTER);
	CHECK_INT(kind("nccl:all_reduce"), OPMFU_COLL_ALLREDUCE);
	CHECK_INT(kind("nccl:all_to_all"), OPMFU_COLL_ALLTOALL);
	CHECK_INT(kind("nccl:_all_gather_base"), OPMFU_COLL_ALLGATHER);
	CHECK_INT(kind("nccl:_reduce_scatter_base"), OPMFU_COLL_REDUCESCATTER);
	CHECK_INT(kind("c10d::broadcast_"), OPMFU_COLL_BROADCAST);
	CHECK_INT(kind("c10d::barrier"), OPMFU_COLL_BARRIER);
	CHECK_INT(kind("c10d::send"), OPMFU_COLL_SEND);
	CHECK_INT(kind("c10d::recv_"), OPMFU_COLL_RECV);
	CHECK_INT(kind("allreduce"), OPMFU_COLL_ALLREDUCE);
	CHECK_INT(kind("ALL-REDUCE"), OPMFU_COLL_ALLREDUCE);
	/* nothing, or no collective */
	CHECK_INT(kind(""), OPMFU_COLL_OTHER);
	CHECK_INT(kind("volta_sgemm_128x64_nn"), OPMFU_COLL_OTHER);
	CHECK_INT(opmfu_coll_kind_of("allreduce", 3), OPMFU_COLL_OTHER); /* "all": n counts */
	/* the names */
	CHECK_STR(opmfu_coll_kind_name(OPMFU_COLL_ALLREDUCE), "allreduce");
	CHECK_STR(opmfu_coll_kind_name(OPMFU_COLL_REDUCESCATTER), "reducescatter");
	CHECK_STR(opmfu_coll_kind_name(OPMFU_COLL_RECV), "recv");
	CHECK_STR(opmfu_coll_kind_name(OPMFU_COLL_BARRIER), "barrier");
	CHECK(opmfu_coll_kind_name(OPMFU_COLL_OTHER) == NULL);
	CHECK(opmfu_coll_kind_name(OPMFU_COLL__N) == NULL);
	CHECK(opmfu_coll_kind_name(-1) == NULL);

	/* nccl-tests' bus factors: allreduce 2(n-1)/n; allgather, reducescatter, alltoall
	 * (n-1)/n; broadcast, reduce, send, recv 1 */
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLREDUCE, 1), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLREDUCE, 2), 1.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLREDUCE, 8), 1.75);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLGATHER, 1), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLGATHER, 2), 0.5);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLGATHER, 8), 0.875);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_REDUCESCATTER, 1), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_REDUCESCATTER, 2), 0.5);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_REDUCESCATTER, 8), 0.875);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLTOALL, 1), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLTOALL, 2), 0.5);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLTOALL, 8), 0.875);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_BROADCAST, 1), 1.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_BROADCAST, 2), 1.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_BROADCAST, 8), 1.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_REDUCE, 8), 1.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_SEND, 2), 1.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_RECV, 8), 1.0);
	/* no factor: no kind, a barrier (moves nothing), or no ranks */
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_OTHER, 8), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_BARRIER, 8), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_ALLREDUCE, 0), 0.0);
	CHECK_DBL(opmfu_coll_bus_factor(OPMFU_COLL_BROADCAST, -3), 0.0);

	/* element sizes: PyTorch's c10 names, its printed C types, torch.*, NCCL's, HCCL's */
	CHECK_INT(dsize("Float"), 4);
	CHECK_INT(dsize("float"), 4);
	CHECK_INT(dsize("c10::BFloat16"), 2);
	CHECK_INT(dsize("BFloat16"), 2);
	CHECK_INT(dsize("c10::Half"), 2);
	CHECK_INT(dsize("torch.float16"), 2);
	CHECK_INT(dsize("torch.int64"), 8);
	CHECK_INT(dsize("Double"), 8);
	CHECK_INT(dsize("Long"), 8);
	CHECK_INT(dsize("Int"), 4);
	CHECK_INT(dsize("int"), 4);
	CHECK_INT(dsize("Byte"), 1);
	CHECK_INT(dsize("Bool"), 1);
	/* PyTorch's "Input type" for int64 and uint8 tensors (DLRM's traces print "long int") */
	CHECK_INT(dsize("long int"), 8);
	CHECK_INT(dsize("unsigned char"), 1);
	CHECK_INT(dsize("signed char"), 1);
	CHECK_INT(dsize("short int"), 2);
	CHECK_INT(dsize("ncclFloat16"), 2);
	CHECK_INT(dsize("ncclFloat32"), 4);
	CHECK_INT(dsize("ncclBfloat16"), 2);
	CHECK_INT(dsize("ncclInt8"), 1);
	CHECK_INT(dsize("ncclInt64"), 8);
	CHECK_INT(dsize("FP32"), 4);
	CHECK_INT(dsize("FP16"), 2);
	CHECK_INT(dsize("BF16"), 2);
	CHECK_INT(dsize("INT8"), 1);
	CHECK_INT(dsize("INT32"), 4);
	CHECK_INT(dsize("UINT64"), 8);
	CHECK_INT(dsize("FP64"), 8);
	/* junk */
	CHECK_INT(dsize(""), 0);
	CHECK_INT(dsize("junk"), 0);
	CHECK_INT(dsize("Float4"), 0);
	CHECK_INT(dsize("c10::"), 0);
	CHECK_INT(dsize("nccl"), 0);
	CHECK_INT(opmfu_coll_dtype_size("Float", 3), 0); /* "Flo": n counts */
	return check_done();
}
