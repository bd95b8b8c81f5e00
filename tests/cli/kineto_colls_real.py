#!/usr/bin/env python3
"""The Kineto reader's collective calls (t->colls, SPEC 19) on the real traces of
../shared/real/kineto, against this script's own reading of the JSON (Python's json
module, the whole document):

- DLRM's 8 ranks (kineto_v100_dlrm_8ranks, unpacked from its tar.gz into a temporary
  folder): per rank, one entry per NCCL kernel (cat "kernel", name starting "nccl"/"rccl",
  after an optional "void "), in kernel start order, each entry's span that kernel's.
  These kernels carry no collective args, nor do their launching ops (record_param_comms).
  Their size comes from the c10d op around the launch (torch < 2.1 traces): the kernel's
  cudaLaunchKernel (by "correlation"), the cpu_ops on its thread whose span holds the launch,
  innermost first; the first named c10d::... or nccl:... with a tensor input of a known
  type gives bytes = the largest such input's elements x its type's size (this script's own
  table of C type names), and the kind its name says when the kernel's does not (SendRecv).
  Inputs that are lists of tensors (c10d::allreduce_) have no dims: size unknown.
- A100's recsys rank (kineto_a100_recsys_train_rank0of16), torch 2.0: no args either; sizes
  from the c10d ops as for DLRM.
- MI300X's ResNet rank (kineto_mi300x_resnet_ckpt_train): likewise, and each kernel that
  carries "In msg nelems"/"Out msg nelems"/"dtype" has bytes known and equal to
  max(In, Out) x the dtype's size (as nccl-tests; this script's own table of sizes),
  ranks = "Group size", group = "Process Group Name", kind = "Collective name".

usage: kineto_colls_real.py T_KINETO_COLL SOURCE_ROOT; exit 77 (skip) without
../shared/real/kineto.
"""
import gzip
import json
import os
import subprocess
import sys
import tarfile
import tempfile

SIZES = {"Float": 4, "BFloat16": 2, "Half": 2, "Long": 8, "Int": 4, "Double": 8, "Char": 1, "Byte": 1}
# PyTorch's "Input type" spellings of the c10d ops' tensors in torch 1.x/2.0 traces
C_SIZES = {"float": 4, "double": 8, "int": 4, "long int": 8, "long": 8, "c10::Half": 2, "c10::BFloat16": 2,
           "unsigned char": 1, "signed char": 1, "short int": 2, "bool": 1}
KINDS = {"allreduce": "allreduce", "broadcast": "broadcast", "allgather": "allgather",
         "_allgather_base": "allgather", "reduce_scatter": "reducescatter", "all_to_all": "alltoall"}


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def is_comm(name):
    n = name[5:] if name.startswith("void ") else name
    return n[:4].lower() in ("nccl", "rccl")


def host_sizes(doc):
    """For each comm kernel (by id()), what the c10d op around its launch says:
    (bytes, kind or None), or None when no such op gives a size."""
    ev = doc["traceEvents"]
    launch = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch.setdefault(e["args"]["correlation"], e)
    ops = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "cpu_op":
            ops.setdefault((e["pid"], e["tid"]), []).append(e)
    out = {}
    for e in ev:
        if not (e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel") and is_comm(e.get("name", ""))):
            continue
        l = launch.get(e.get("args", {}).get("correlation"))
        if l is None:
            continue
        around = [o for o in ops.get((l["pid"], l["tid"]), []) if o["ts"] <= l["ts"] <= o["ts"] + o["dur"]]
        around.sort(key=lambda o: (-o["ts"], o["dur"]))  # innermost first
        for o in around:
            if not (o["name"].startswith("c10d::") or o["name"].startswith("nccl:")):
                continue
            a = o.get("args", {})
            best = -1
            for dims, ty in zip(a.get("Input Dims", []), a.get("Input type", [])):
                if ty in C_SIZES and all(isinstance(x, int) for x in dims):
                    n = 1
                    for x in dims:
                        n *= x
                    best = max(best, n * C_SIZES[ty])
            if best >= 0:
                kind = next((k for w, k in (("alltoall", "alltoall"), ("allreduce", "allreduce"),
                                            ("allgather", "allgather"), ("reducescatter", "reducescatter"))
                            if w in o["name"].replace("_", "")), None)
                out[id(e)] = (best, kind)
                break
    return out


def expected(path):
    """Comm kernels in start order (stable): (start_ns, end_ns, args, host size or None)."""
    doc = load(path)
    hosts = host_sizes(doc)
    ks = []
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel") and is_comm(e.get("name", "")):
            ks.append(e)
    ks.sort(key=lambda e: e["ts"])  # stable: file order among equal starts
    base = doc.get("baseTimeNanoseconds", 0)
    return [(round(e["ts"] * 1000) + base, round((e["ts"] + e["dur"]) * 1000) + base, e.get("args", {}),
             hosts.get(id(e))) for e in ks]


def dump(exe, path):
    out = subprocess.run([exe, "--dump", path], capture_output=True, text=True, check=True).stdout
    rows, n = [], None
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "trace":
            n = int(f[2])
        elif f[0] == "coll":
            rows.append({"kind": f[1], "bytes": int(f[2]), "ranks": int(f[3]), "group": f[4], "dtype": f[5],
                         "start": int(f[6]), "end": int(f[7]), "name": f[8]})
    assert n == len(rows), (n, len(rows))
    return rows


def check(exe, path, label, fails):
    want = expected(path)
    got = dump(exe, path)
    if len(got) != len(want):
        fails.append(f"{label}: {len(got)} t->colls entries, Python counts {len(want)} NCCL/RCCL kernels")
        return 0, 0
    with_args = 0
    for i, ((s, e, a, host), g) in enumerate(zip(want, got)):
        # the reader rounds to the ns itself; a 1 ns difference is the float rounding of ts + dur
        if abs(g["start"] - s) > 1 or abs(g["end"] - e) > 1:
            fails.append(f"{label}: entry {i} spans {g['start']}..{g['end']}, the kernel {s}..{e}")
        if "In msg nelems" in a or "Out msg nelems" in a:
            with_args += 1
            nel = max(a.get("In msg nelems", -1), a.get("Out msg nelems", -1))
            want_bytes = nel * SIZES[a["dtype"]]
            if g["bytes"] != want_bytes:
                fails.append(f"{label}: entry {i} bytes {g['bytes']}, expected {want_bytes} ({nel} x {a['dtype']})")
            if g["ranks"] != a["Group size"] or g["group"] != a["Process Group Name"] or g["dtype"] != a["dtype"]:
                fails.append(f"{label}: entry {i} ranks/group/dtype {g['ranks']}/{g['group']}/{g['dtype']}, "
                             f"expected {a['Group size']}/{a['Process Group Name']}/{a['dtype']}")
            if g["kind"] != KINDS[a["Collective name"]]:
                fails.append(f"{label}: entry {i} kind {g['kind']}, expected {a['Collective name']}")
        elif host is not None:
            with_args += 1
            if g["bytes"] != host[0]:
                fails.append(f"{label}: entry {i} bytes {g['bytes']}, its c10d op says {host[0]}")
            if "SendRecv" in g["name"] and g["kind"] != host[1]:
                fails.append(f"{label}: entry {i} kind {g['kind']}, its c10d op says {host[1]}")
        elif g["bytes"] != -1:
            fails.append(f"{label}: entry {i} has no args nor a sized c10d op but bytes {g['bytes']}")
    return len(got), with_args


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, root = sys.argv[1], sys.argv[2]
    real = os.path.join(root, "..", "shared", "real", "kineto")
    tgz = os.path.join(real, "kineto_v100_dlrm_8ranks", "dlrm_kineto.tar.gz")
    mi300 = os.path.join(real, "kineto_mi300x_resnet_ckpt_train", "resnet_act_checkpoint.json.gz")
    if not os.path.exists(tgz) or not os.path.exists(mi300):
        print("SKIP: ../shared/real/kineto is absent (the real traces)")
        return 77
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(tgz) as tf:
            tf.extractall(tmp, filter="data") if hasattr(tarfile, "data_filter") else tf.extractall(tmp)
        d = os.path.join(tmp, "dlrm_kineto")
        ranks = sorted(f for f in os.listdir(d) if f.endswith(".json"))
        if len(ranks) != 8:
            fails.append(f"DLRM: {len(ranks)} rank files, expected 8")
        for f in ranks:
            n, with_args = check(exe, os.path.join(d, f), f, fails)
            print(f"{f}: {n} collective calls, {with_args} with sizes")
            if n == 0:
                fails.append(f"{f}: no collective calls")
            if with_args == 0:
                fails.append(f"{f}: no call sized by its c10d op (the check would be empty)")
    n, with_args = check(exe, mi300, "mi300x", fails)
    print(f"mi300x: {n} collective calls, {with_args} with size args")
    if with_args == 0:
        fails.append("mi300x: no kernel with size args (the check would be empty)")
    a100 = os.path.join(real, "kineto_a100_recsys_train_rank0of16", "rank0.json.gz")
    if os.path.exists(a100):
        n, with_sizes = check(exe, a100, "a100", fails)
        print(f"a100: {n} collective calls, {with_sizes} with sizes")
        if with_sizes == 0:
            fails.append("a100: no call sized by its c10d op (the check would be empty)")
    for m in fails:
        print("FAIL:", m)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
