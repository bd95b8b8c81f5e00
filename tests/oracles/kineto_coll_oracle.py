#!/usr/bin/env python3
"""Independent oracle: match NCCL/RCCL collective kernels across the ranks of one job
from PyTorch profiler (Kineto) Chrome-trace JSON files, and split each call into wait
(for the last rank to arrive) and transfer.

Python 3 standard library only.  Written without reference to opmfu's C sources.

Usage:
  kineto_coll_oracle.py TRACE [TRACE ...]
    TRACE: a .json or .json.gz Kineto trace, a directory holding them, or a .tar/.tar.gz
    archive holding them (e.g. dlrm_kineto.tar.gz).  One trace per rank.

Method (see kineto_coll_NOTES.md):
  * communication kernel = cat "kernel" whose name (after an optional "void ") contains
    "nccl" or "rccl" (any case), or whose args carry "Collective name".
  * rank = distributedInfo.rank (else the position of the file in the sorted input).
  * each kernel's description (kind, group, nelems, dtype) comes, first found wins, from:
      1. the kernel's own args ("Collective name", "In/Out msg nelems", "dtype",
         "Group size", "Process Group Name", "Process Group Ranks")       [src=kernel]
      2. the CPU op with the same "External id" that carries "Collective name"
         (new-style links: kernel External id == record_param_comms External id) [src=cpu_ext]
      3. the CPU ops enclosing the launching runtime call (kernel "correlation" ==
         cuda_runtime/hip runtime "correlation"; enclosing = same pid/tid, time-contained):
         a record_param_comms carrying "Collective name", else the innermost
         "nccl:<coll>" op (in nelems = numel of Input Dims[0], dtype = Input type[0]) with
         the enclosing "c10d::<coll>" op giving the output numel for ops whose first
         argument is the output tensor (alltoall_base_, _allgather_base_,
         _reduce_scatter_base_, allgather_into_tensor_coalesced_, reduce_scatter_tensor_coalesced_)
                                                                           [src=cpu_enclosing]
      4. the kernel name alone (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce,
         SendRecv) - no sizes                                              [src=kernel_name]
  * group = "pg=<Process Group Name>" if present, else "ranks=<Process Group Ranks>",
    else "n=<Group size>", else "n=<distributedInfo.world_size>" (world) - the DLRM traces
    fall in the last case.  For allgather/reducescatter without "Group size" the size is
    inferred as larger/smaller of (in, out) nelems when that divides exactly.
  * per rank, kernels sorted by (start, end, correlation); the k-th kernel of a
    (kind, group) on a rank is call k (0-based) of that (kind, group); calls with the same
    (kind, group, k) are matched across ranks.
  * wait_r = clip(min(last_start, end_r) - start_r, 0), last_start = max over matched ranks
    of start; transfer_r = (end_r - start_r) - wait_r.
  * last rank (culprit) = rank with max start; ties go to the lowest rank id.
  * bytes_r = max(in_nelems, out_nelems) * dtype size  (nccl-tests' S: the whole array; for
    allgather that is the output = sendcount*n, for reducescatter the input = recvcount*n;
    for allreduce/broadcast/reduce in == out; for alltoall(v) nccl-tests' S is the per-rank
    send buffer (= receive buffer when splits are even); for uneven splits we take the larger).
  * algbw = bytes / time (bytes per ns == GB/s, 1 GB = 1e9 B), time = end - start of that
    rank's kernel (nccl-tests' "time" is the whole call); also algbw_xfer = bytes / transfer.
    busbw = algbw * factor(n): allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n;
    broadcast, reduce, send, recv 1; n = group size.
  * times: integer ns on the trace's own clock = ts(us) * 1000, exact (JSON floats parsed
    as Decimal).
"""
import decimal
import gzip
import io
import json
import os
import re
import sys
import tarfile
from collections import defaultdict

D = decimal.Decimal

# dtype size map (bytes).  Two spellings appear in Kineto traces:
#  * record_param_comms / kernel "dtype": c10::ScalarType names (toString): Float, BFloat16...
#  * "Input type" of CPU ops: C++ type names as the profiler prints them: float, long int...
DTYPE_SIZE = {
    # c10::ScalarType names
    "Byte": 1, "Char": 1, "Bool": 1, "Short": 2, "Int": 4, "Long": 8,
    "Half": 2, "BFloat16": 2, "Float": 4, "Double": 8,
    "ComplexHalf": 4, "ComplexFloat": 8, "ComplexDouble": 16,
    "UInt16": 2, "UInt32": 4, "UInt64": 8, "Int8": 1,
    "QInt8": 1, "QUInt8": 1, "QInt32": 4,
    "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Float8_e4m3fnuz": 1, "Float8_e5m2fnuz": 1,
    # profiler "Input type" spellings (C++ type names)
    "unsigned char": 1, "signed char": 1, "bool": 1, "short": 2, "short int": 2,
    "int": 4, "unsigned int": 4, "long": 8, "long int": 8, "long long": 8,
    "unsigned long": 8, "unsigned long int": 8, "int64_t": 8,
    "float": 4, "double": 8,
    "c10::Half": 2, "c10::BFloat16": 2,
    "c10::complex<c10::Half>": 4, "c10::complex<float>": 8, "c10::complex<double>": 16,
    "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2fnuz": 1,
}

BUS_FACTOR = {
    "allreduce": lambda n: 2.0 * (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "send": lambda n: 1.0,
    "recv": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
}

# c10d ops whose Input Dims[0] is the OUTPUT tensor and [1] the input tensor
C10D_OUT_FIRST = ("c10d::alltoall_base_", "c10d::_allgather_base_",
                  "c10d::_reduce_scatter_base_", "c10d::allgather_into_tensor_coalesced_",
                  "c10d::reduce_scatter_tensor_coalesced_")


def norm_kind(s):
    """Map a collective name / op name / kernel name to one kind."""
    t = re.sub(r"[^a-z]", "", s.lower())
    for pre in ("nccldevkernel", "ncclkernel", "nccl", "rccl", "cd"):
        if t.startswith(pre):
            t = t[len(pre):]
    if t.startswith("allreduce"):
        return "allreduce"
    if "allgather" in t:
        return "allgather"
    if "reducescatter" in t:
        return "reducescatter"
    if "alltoall" in t or "alltoallv" in t:
        return "alltoall"
    if t.startswith("broadcast"):
        return "broadcast"
    if t.startswith("reduce"):
        return "reduce"
    if t.startswith("sendrecv"):
        return "sendrecv"
    if t.startswith("send"):
        return "send"
    if t.startswith("recv"):
        return "recv"
    if t.startswith("barrier"):
        return "barrier"
    if t.startswith("gather"):
        return "gather"
    if t.startswith("scatter"):
        return "scatter"
    return "unknown"


def ns(x):
    return int((D(str(x)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def load_sources(paths):
    """Yield (label, parsed json) for every trace named by paths."""
    out = []

    def parse(raw, label):
        if label.endswith(".gz"):
            raw = gzip.decompress(raw)
        return json.loads(raw.decode("utf-8"), parse_float=D)

    for p in paths:
        if os.path.isdir(p):
            for fn in sorted(os.listdir(p)):
                if fn.endswith((".json", ".json.gz")):
                    with open(os.path.join(p, fn), "rb") as f:
                        out.append((fn, parse(f.read(), fn)))
        elif p.endswith((".tar", ".tar.gz", ".tgz")):
            with tarfile.open(p) as tf:
                for m in sorted(tf.getmembers(), key=lambda m: m.name):
                    base = os.path.basename(m.name)
                    if m.isfile() and base.endswith((".json", ".json.gz")) and not base.startswith("._"):
                        out.append((base, parse(tf.extractfile(m).read(), base)))
        else:
            with open(p, "rb") as f:
                out.append((os.path.basename(p), parse(f.read(), p)))
    return out


def numel(dims):
    n = 1
    for d in dims:
        n *= int(d)
    return n


def is_comm_kernel(e):
    if e.get("cat") != "kernel" or e.get("ph") != "X":
        return False
    name = e.get("name", "")
    if name.startswith("void "):
        name = name[5:]
    low = name.lower()
    return "nccl" in low or "rccl" in low or "Collective name" in e.get("args", {})


def desc_from_coll_args(a):
    d = {"kind": norm_kind(str(a["Collective name"])),
         "coll_name": str(a["Collective name"]),
         "in_nelems": int(a["In msg nelems"]) if "In msg nelems" in a else None,
         "out_nelems": int(a["Out msg nelems"]) if "Out msg nelems" in a else None,
         "dtype": a.get("dtype"),
         "group_size": int(a["Group size"]) if "Group size" in a else None,
         "pg_name": a.get("Process Group Name"),
         "pg_ranks": a.get("Process Group Ranks")}
    return d


def analyse_trace(label, doc, fallback_rank):
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    di = doc.get("distributedInfo", {}) if isinstance(doc, dict) else {}
    rank = int(di["rank"]) if "rank" in di else fallback_rank
    world = int(di["world_size"]) if "world_size" in di else None
    X = [e for e in ev if e.get("ph") == "X" and "ts" in e]
    cpu = [e for e in X if e.get("cat") in ("cpu_op", "user_annotation")]
    cpu_by_ext = {}
    for e in cpu:
        a = e.get("args", {})
        if "External id" in a and "Collective name" in a:
            cpu_by_ext.setdefault(a["External id"], e)
    rt_by_corr = {}
    for e in X:
        if e.get("cat") in ("cuda_runtime", "hip_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                rt_by_corr.setdefault(c, e)
    cpu_by_thread = defaultdict(list)
    for e in cpu:
        cpu_by_thread[(e.get("pid"), e.get("tid"))].append(e)

    kernels = []
    for e in X:
        if not is_comm_kernel(e):
            continue
        a = e.get("args", {})
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        d = None
        src = None
        if "Collective name" in a:
            d, src = desc_from_coll_args(a), "kernel"
        if d is None and a.get("External id") in cpu_by_ext:
            d, src = desc_from_coll_args(cpu_by_ext[a["External id"]]["args"]), "cpu_ext"
        if d is None:
            r = rt_by_corr.get(a.get("correlation"))
            if r is not None:
                rs, re_ = ns(r["ts"]), ns(r["ts"]) + ns(r.get("dur", 0))
                enc = [c for c in cpu_by_thread[(r.get("pid"), r.get("tid"))]
                       if ns(c["ts"]) <= rs and ns(c["ts"]) + ns(c.get("dur", 0)) >= re_]
                enc.sort(key=lambda c: (ns(c["ts"]), -ns(c.get("dur", 0))))
                rpc = [c for c in enc if c["name"] == "record_param_comms"
                       and "Collective name" in c.get("args", {})]
                nop = [c for c in enc if c["name"].startswith("nccl:")]
                cop = [c for c in enc if c["name"].startswith("c10d::")]
                if rpc:
                    d, src = desc_from_coll_args(rpc[-1]["args"]), "cpu_enclosing:record_param_comms"
                elif nop:
                    n = nop[-1]
                    na = n.get("args", {})
                    dims = na.get("Input Dims") or []
                    types = na.get("Input type") or []
                    d = {"kind": norm_kind(n["name"][5:]), "coll_name": n["name"],
                         "in_nelems": numel(dims[0]) if dims and isinstance(dims[0], list)
                         and dims[0] and not isinstance(dims[0][0], list) else None,
                         "out_nelems": None,
                         "dtype": types[0] if types else None,
                         "group_size": None, "pg_name": None, "pg_ranks": None}
                    src = "cpu_enclosing:" + n["name"]
                    if cop:
                        c = cop[-1]
                        cd = c.get("args", {}).get("Input Dims") or []
                        if c["name"] in C10D_OUT_FIRST and len(cd) >= 2 and cd[0] and cd[1]:
                            d["out_nelems"] = numel(cd[0])
                            d["in_nelems"] = numel(cd[1])
                            src += "+" + c["name"]
                    if d["out_nelems"] is None:
                        d["out_nelems"] = d["in_nelems"]
        if d is None:
            d = {"kind": norm_kind(e["name"]), "coll_name": None, "in_nelems": None,
                 "out_nelems": None, "dtype": None, "group_size": None,
                 "pg_name": None, "pg_ranks": None}
            src = "kernel_name"
        if (d["group_size"] is None and d["kind"] in ("allgather", "reducescatter")
                and d["in_nelems"] and d["out_nelems"]):
            big, small = max(d["in_nelems"], d["out_nelems"]), min(d["in_nelems"], d["out_nelems"])
            if big % small == 0 and big // small > 1:
                d["group_size"] = big // small  # inferred: output = n * input (or the reverse)
        if d["pg_name"] is not None:
            group = "pg=%s" % d["pg_name"]
        elif d["pg_ranks"] is not None:
            group = "ranks=%s" % str(d["pg_ranks"]).replace(" ", "")
        elif d["group_size"] is not None:
            group = "n=%d" % d["group_size"]
        elif world is not None:
            group = "n=%d" % world
        else:
            group = "n=?"
        n = d["group_size"] if d["group_size"] is not None else world
        size = DTYPE_SIZE.get(d["dtype"]) if d["dtype"] is not None else None
        nel = None
        if d["in_nelems"] is not None or d["out_nelems"] is not None:
            nel = max(x for x in (d["in_nelems"], d["out_nelems"]) if x is not None)
        nbytes = nel * size if (nel is not None and size is not None) else None
        kernels.append({"rank": rank, "start": start, "end": end,
                        "corr": a.get("correlation", -1), "stream": a.get("stream", e.get("tid")),
                        "name": e["name"], "kind": d["kind"], "group": group, "n": n,
                        "in": d["in_nelems"], "out": d["out_nelems"], "dtype": d["dtype"],
                        "bytes": nbytes, "src": src})
    kernels.sort(key=lambda k: (k["start"], k["end"], k["corr"]))
    counter = defaultdict(int)
    for k in kernels:
        key = (k["kind"], k["group"])
        k["k"] = counter[key]
        counter[key] += 1
    span = [ns(e["ts"]) for e in X] + [ns(e["ts"]) + ns(e.get("dur", 0)) for e in X]
    pids = sorted({str(e.get("pid")) for e in cpu})
    devs = sorted({str(e.get("args", {}).get("device")) for e in X if e.get("cat") == "kernel"})
    return {"label": label, "rank": rank, "world": world, "backend": di.get("backend"),
            "kernels": kernels, "first": min(span) if span else 0, "last": max(span) if span else 0,
            "pids": pids, "devices": devs}


def fmt_bw(x):
    return "NA" if x is None else "%.6f" % x


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    srcs = load_sources(argv)
    ranks = [analyse_trace(lbl, doc, i) for i, (lbl, doc) in enumerate(srcs)]
    ranks.sort(key=lambda r: r["rank"])
    print("# kineto_coll_oracle v1: times in ns on each trace's clock; bandwidths in GB/s (bytes/ns)")
    for r in ranks:
        streams = sorted({str(k["stream"]) for k in r["kernels"]})
        print("trace rank=%d file=%s world_size=%s backend=%s pids=%s devices=%s comm_kernels=%d "
              "streams=%s first_ns=%d last_ns=%d" % (
                  r["rank"], r["label"], r["world"], r["backend"], ",".join(r["pids"]),
                  ",".join(r["devices"]), len(r["kernels"]), ",".join(streams), r["first"], r["last"]))
    # clocks: windows overlap?
    lo = max(r["first"] for r in ranks)
    hi = min(r["last"] for r in ranks)
    print("clock common_window_ns=[%d,%d] overlap=%s width_ns=%d" % (lo, hi, "yes" if hi > lo else "no", hi - lo))
    # per-rank kernel lists
    for r in ranks:
        for i, k in enumerate(r["kernels"]):
            print("kernel rank=%d i=%d start=%d end=%d dur=%d stream=%s kind=%s group=%s k=%d "
                  "in_nelems=%s out_nelems=%s dtype=%s bytes=%s src=%s name=%s" % (
                      r["rank"], i, k["start"], k["end"], k["end"] - k["start"], k["stream"],
                      k["kind"], k["group"], k["k"], k["in"], k["out"],
                      (k["dtype"] or "NA").replace(" ", "_"), k["bytes"], k["src"],
                      k["name"].split("(")[0]))
    # counts per (kind, group)
    keys = sorted({(k["kind"], k["group"]) for r in ranks for k in r["kernels"]})
    mismatches = 0
    for kind, group in keys:
        cnt = [sum(1 for k in r["kernels"] if (k["kind"], k["group"]) == (kind, group)) for r in ranks]
        same = len(set(cnt)) == 1
        mismatches += 0 if same else 1
        print("count kind=%s group=%s %s same=%s" % (
            kind, group, " ".join("r%d=%d" % (r["rank"], c) for r, c in zip(ranks, cnt)),
            "yes" if same else "NO"))
    # matching
    idx = {}
    for r in ranks:
        for k in r["kernels"]:
            idx[(k["kind"], k["group"], k["k"], r["rank"])] = k
    calls = sorted({(k["kind"], k["group"], k["k"]) for r in ranks for k in r["kernels"]})
    # order calls by the earliest start among ranks, then key
    def call_start(c):
        return min(idx[c + (r["rank"],)]["start"] for r in ranks if c + (r["rank"],) in idx)
    calls.sort(key=lambda c: (call_start(c), c))
    summ = {r["rank"]: {"calls": 0, "time": 0, "wait": 0, "transfer": 0, "last": 0, "culprit": 0,
                        "unmatched": 0} for r in ranks}
    all_ranks = [r["rank"] for r in ranks]
    for ci, (kind, group, kk) in enumerate(calls):
        present = [rk for rk in all_ranks if (kind, group, kk, rk) in idx]
        missing = [rk for rk in all_ranks if rk not in present]
        ks = {rk: idx[(kind, group, kk, rk)] for rk in present}
        last_start = max(k["start"] for k in ks.values())
        last_rank = min(rk for rk in present if ks[rk]["start"] == last_start)
        first_end = min(k["end"] for k in ks.values())
        last_end = max(k["end"] for k in ks.values())
        early_end = [rk for rk in present if ks[rk]["end"] < last_start]
        nb = sorted({k["bytes"] for k in ks.values()}, key=lambda x: (x is None, x))
        print("call seq=%d k=%d kind=%s group=%s ranks_present=%d missing=%s last_rank=%d last_start=%d "
              "start_spread=%d end_spread=%d ends_before_last_start=%s bytes_set=%s" % (
                  ci, kk, kind, group, len(present), ",".join(map(str, missing)) or "-",
                  last_rank, last_start, last_start - min(k["start"] for k in ks.values()),
                  last_end - first_end, ",".join(map(str, early_end)) or "-",
                  ",".join(str(x) for x in nb)))
        if missing:
            for rk in present:
                summ[rk]["unmatched"] += 1
        others_wait = 0
        for rk in present:
            k = ks[rk]
            dur = k["end"] - k["start"]
            wait = max(0, min(last_start, k["end"]) - k["start"])
            xfer = dur - wait
            n = k["n"]
            f = BUS_FACTOR.get(kind)
            alg = (k["bytes"] / dur) if (k["bytes"] is not None and dur > 0) else None
            algx = (k["bytes"] / xfer) if (k["bytes"] is not None and xfer > 0) else None
            bus = alg * f(n) if (alg is not None and f and n) else None
            busx = algx * f(n) if (algx is not None and f and n) else None
            print("  rank=%d start=%d end=%d time=%d wait=%d transfer=%d bytes=%s n=%s "
                  "algbw=%s busbw=%s algbw_xfer=%s busbw_xfer=%s" % (
                      rk, k["start"], k["end"], dur, wait, xfer, k["bytes"], n,
                      fmt_bw(alg), fmt_bw(bus), fmt_bw(algx), fmt_bw(busx)))
            s = summ[rk]
            s["calls"] += 1
            s["time"] += dur
            s["wait"] += wait
            s["transfer"] += xfer
            if rk != last_rank:
                others_wait += wait
        summ[last_rank]["last"] += 1
        summ[last_rank]["culprit"] += others_wait
    tot = {x: sum(s[x] for s in summ.values()) for x in ("time", "wait", "transfer")}
    for rk in all_ranks:
        s = summ[rk]
        print("summary rank=%d calls=%d total_time=%d total_wait=%d total_transfer=%d "
              "arrived_last=%d others_waited_for_it=%d calls_in_unmatched=%d" % (
                  rk, s["calls"], s["time"], s["wait"], s["transfer"], s["last"], s["culprit"],
                  s["unmatched"]))
    print("totals time=%d wait=%d transfer=%d calls=%d count_mismatches=%d" % (
        tot["time"], tot["wait"], tot["transfer"], len(calls), mismatches))
    order = sorted(all_ranks, key=lambda rk: (-summ[rk]["culprit"], -summ[rk]["last"], rk))
    for pos, rk in enumerate(order, 1):
        print("culprit place=%d rank=%d others_waited_for_it=%d arrived_last=%d" % (
            pos, rk, summ[rk]["culprit"], summ[rk]["last"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
