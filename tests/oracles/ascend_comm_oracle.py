#!/usr/bin/env python3
"""Independent oracle for the per-HCCL-op communication analysis that torch_npu
ships in ASCEND_PROFILER_OUTPUT/analysis.db (CommAnalyzerTime /
CommAnalyzerBandwidth), recomputed from the torch_npu SQLite export alone.

Usage:
    ascend_comm_oracle.py EXPORT.db                    # print per-op lines
    ascend_comm_oracle.py EXPORT.db --check ANALYSIS.db

Output (all integers, nanoseconds / bytes), one line per HCCL op in start order:
    op_name group start_ns elapse_ns transit_ns wait_ns sync_ns idle_ns
followed by that op's bandwidth lines:
    bw op_name transport transit_bytes transit_ns

The rules are those of CANN msprof's single-device communication analyzer
(msparser/cluster/communication_parser.py + meta_parser.py), which torch_npu
copies verbatim into analysis.db.  See ascend_comm_NOTES.md.
Only the python3 standard library is used.
"""
import sqlite3
import sys
from collections import defaultdict

# ENUM_HCCL_TRANSPORT_TYPE / ENUM_HCCL_LINK_TYPE / ENUM_HCCL_RDMA_TYPE ids
# are read by name from the export; these are the names the rules refer to.
TRANSIT_TASKS = ("Memcpy", "Reduce_Inline")     # SDMA data movement tasks
WAIT_TASK = "Notify_Wait"
LARGE_PACKET_MB = {"RDMA": 0.5, "HCCS": 32.0, "PCIE": 32.0, "SIO": 32.0}
BAND_ORDER = ("RDMA", "HCCS", "PCIE", "SDMA", "SIO")
U32_NONE = 4294967295

TOL_ABS_NS = 1000.0      # 1 us
TOL_REL = 1e-3           # 0.1 %


def _enum(conn, table):
    try:
        return {r[0]: r[1] for r in conn.execute("SELECT id, name FROM %s" % table)}
    except sqlite3.Error:
        return {}


def _has_col(conn, table, col):
    return any(r[1] == col for r in conn.execute("PRAGMA table_info(%s)" % table))


def load(export_path):
    conn = sqlite3.connect("file:%s?mode=ro" % export_path, uri=True)
    strings = {r[0]: r[1] for r in conn.execute("SELECT id, value FROM STRING_IDS")}
    transport = _enum(conn, "ENUM_HCCL_TRANSPORT_TYPE")
    link = _enum(conn, "ENUM_HCCL_LINK_TYPE")
    rdma = _enum(conn, "ENUM_HCCL_RDMA_TYPE")

    def s(i):
        return strings.get(i, "" if i is None else str(i))

    ops = []
    for (op_id, name, start, end, group, dtype, count, optype, alg) in conn.execute(
            "SELECT opId, opName, startNs, endNs, groupName, dataType, count, opType, algType "
            "FROM COMMUNICATION_OP ORDER BY startNs, opId"):
        ops.append(dict(op_id=op_id, name=s(name), start=start, end=end, group=s(group),
                        dtype=dtype, count=count, op_type=s(optype), alg=s(alg), tasks=[]))
    by_id = {o["op_id"]: o for o in ops}
    # COMMUNICATION_TASK_INFO carries the HCCL attributes, TASK the device times;
    # they join on globalTaskId.  taskType/name/groupName are STRING_IDS ids.
    q = ("SELECT ci.opId, ci.taskType, ci.planeId, ci.transportType, ci.linkType, ci.rdmaType, "
         "ci.size, ci.srcRank, ci.dstRank, t.startNs, t.endNs, ci.globalTaskId "
         "FROM COMMUNICATION_TASK_INFO ci JOIN TASK t ON t.globalTaskId = ci.globalTaskId "
         "ORDER BY ci.opId, t.startNs, ci.globalTaskId")
    for (op_id, ttype, plane, tr, lk, rd, size, src, dst, ts, te, gid) in conn.execute(q):
        op = by_id.get(op_id)
        if op is None:
            continue
        op["tasks"].append(dict(type=s(ttype), plane=plane, transport=transport.get(tr, str(tr)),
                                link=link.get(lk, str(lk)), rdma=rdma.get(rd, str(rd)),
                                size=size or 0, src=src, dst=dst, start=ts, end=te, gid=gid))
    steps = []
    try:
        steps = list(conn.execute("SELECT id, startNs, endNs FROM STEP_TIME"))
    except sqlite3.Error:
        pass
    conn.close()
    return ops, steps


def has_detail(op):
    """level0 exports keep one COMMUNICATION_TASK_INFO row per task but with
    every HCCL attribute N/A (taskType 'N/A', planeId 0xffffffff)."""
    return any(t["type"] not in ("N/A", "") for t in op["tasks"])


def is_sdma_transit(t):
    # local (ON_CHIP) copies are not counted as transit
    return t["type"] in TRANSIT_TASKS and t["transport"] == "SDMA" and t["link"] != "ON_CHIP"


def sdma_band_type(t):
    if t["link"] == "HCCS_SW":
        return "HCCS"
    if t["link"] in ("HCCS", "PCIE", "SIO"):
        return t["link"]
    return "SDMA"   # RESERVED / INVALID link: folded into SDMA (and later overwritten)


def main_plane(tasks):
    """msprof get_main_plane_id: the single plane if there is only one, else
    plane 0 when plane 0 carries RDMA tasks, else plane 1."""
    planes = sorted({t["plane"] for t in tasks if t["plane"] not in (-1, U32_NONE)})
    if not planes:
        return None
    if len(planes) == 1:
        return planes[0]
    if any(t["transport"] == "RDMA" for t in tasks if t["plane"] == 0):
        return 0
    return 1


def rdma_group(tasks, idx, jump):
    """Consecutive RDMA_SEND_PAYLOAD tasks starting at idx; returns
    (n_payload, span_ns, bytes) or (n_payload, None, None) when the closing
    tasks are missing.  Span: first payload start -> end of the task at
    idx + n_payload + jump - 2 (the closing Notify_Wait)."""
    n = 0
    while idx + n < len(tasks) and tasks[idx + n]["rdma"] == "RDMA_SEND_PAYLOAD":
        n += 1
    last = idx + n + jump - 2
    if last >= len(tasks):
        return n, None, None
    size = sum(tasks[i]["size"] for i in range(idx, idx + n))
    return n, tasks[last]["end"] - tasks[idx]["start"], size


def rdma_jump(op_name):
    low = op_name.lower()
    return 3 if ("send" in low or "receive" in low) else 5


def op_time(op):
    tasks = op["tasks"]
    res = dict(elapse=op["end"] - op["start"], transit=0, wait=0, sync=0, idle=0)
    if not tasks:
        res["idle"] = res["elapse"]
        return res, None
    mp = main_plane(tasks)
    ev = [t for t in tasks if t["plane"] == mp]
    jump = rdma_jump(op["name"])
    wait_flag = True
    i = 0
    while i < len(ev):
        t = ev[i]
        if is_sdma_transit(t):
            wait_flag = False
            res["transit"] += t["end"] - t["start"]
        if t["rdma"] == "RDMA_SEND_PAYLOAD":
            n, span, _ = rdma_group(ev, i, jump)
            if span is None:
                i += n
                continue
            res["transit"] += span
            wait_flag = False
            i += jump + n - 1
            continue
        if t["type"] == WAIT_TASK:
            d = t["end"] - t["start"]
            if wait_flag:
                res["sync"] += d
            res["wait"] += d
        i += 1
    res["idle"] = res["elapse"] - res["transit"] - res["wait"]
    return res, mp


def op_bandwidth(op):
    """Per transport: [bytes, ns, {package_bytes: [count, ns]}], all planes."""
    bw = {k: [0, 0, defaultdict(lambda: [0, 0])] for k in BAND_ORDER}

    def add(kind, size, dur):
        if kind == "HCCS_SW":
            kind = "HCCS"
        if kind not in bw:
            return          # STANDARD_ROCE and unknown kinds are dropped
        bw[kind][0] += size
        bw[kind][1] += dur
        bw[kind][2][size][0] += 1
        bw[kind][2][size][1] += dur

    jump = rdma_jump(op["name"])
    per_plane = defaultdict(list)
    for t in op["tasks"]:
        per_plane[t["plane"]].append(t)
    for plane_tasks in per_plane.values():
        i = 0
        while i < len(plane_tasks):
            t = plane_tasks[i]
            if is_sdma_transit(t):
                add(sdma_band_type(t), t["size"], t["end"] - t["start"])
            if t["rdma"] == "RDMA_SEND_PAYLOAD":
                n, span, size = rdma_group(plane_tasks, i, jump)
                if span is None:
                    i += n
                    continue
                add(t["transport"], size, span)
                i += jump + n - 1
                continue
            i += 1
    # SDMA row = HCCS + PCIE + SIO (no package distribution of its own)
    bw["SDMA"][0] = bw["HCCS"][0] + bw["PCIE"][0] + bw["SIO"][0]
    bw["SDMA"][1] = bw["HCCS"][1] + bw["PCIE"][1] + bw["SIO"][1]
    bw["SDMA"][2] = {}
    return bw


def analyse(export_path):
    ops, steps = load(export_path)
    out = []
    for op in ops:
        tm, mp = op_time(op)
        out.append(dict(op=op, time=tm, plane=mp, bw=op_bandwidth(op)))
    return out, steps


def print_results(results):
    for r in results:
        op, tm = r["op"], r["time"]
        if not has_detail(op):
            print("warning: %s has no HCCL task detail (taskType N/A); transit/wait/sync are 0 "
                  "(level0 export?)" % op["name"], file=sys.stderr)
        print("%s %s %d %d %d %d %d %d" % (op["name"], op["group"], op["start"], tm["elapse"],
                                           tm["transit"], tm["wait"], tm["sync"], tm["idle"]))
        for kind in BAND_ORDER:
            size, dur, _ = r["bw"][kind]
            if size or dur:
                print("bw %s %s %d %d" % (op["name"], kind, size, dur))


def _close(a, b, abs_tol):
    return abs(a - b) <= max(abs_tol, TOL_REL * max(abs(a), abs(b)))


def check(results, steps, analysis_path):
    a = sqlite3.connect("file:%s?mode=ro" % analysis_path, uri=True)
    tables = {r[0] for r in a.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not {"CommAnalyzerTime", "CommAnalyzerBandwidth"} <= tables:
        a.close()
        with_tasks = [r["op"]["name"] for r in results if has_detail(r["op"])]
        if with_tasks:
            print("DIFF analysis.db has no CommAnalyzer tables but %d ops have task detail" % len(with_tasks))
            return 1
        print("info analysis.db has no CommAnalyzer tables and the export has no HCCL task detail "
              "(level0 collection): nothing to compare")
        return 0
    ref_t = {}
    for row in a.execute("SELECT hccl_op_name, group_name, start_timestamp, elapse_time, transit_time, "
                         "wait_time, synchronization_time, idle_time FROM CommAnalyzerTime"):
        ref_t[row[0]] = row
    ref_b = defaultdict(list)
    for row in a.execute("SELECT hccl_op_name, transport_type, transit_size, transit_time, bandwidth, "
                         "large_packet_ratio, package_size, count, total_duration FROM CommAnalyzerBandwidth"):
        ref_b[row[0]].append(row)
    a.close()
    diffs = []
    ms = 1e6  # ns per ms

    # start_timestamp (us) is msprof's device time + a local-time offset that
    # the export does not carry; it differs from COMMUNICATION_OP.startNs by a
    # per-file constant.  Report that constant, check the residuals.
    offs = sorted(ref_t[r["op"]["name"]][2] * 1000.0 - r["op"]["start"]
                  for r in results if r["op"]["name"] in ref_t)
    off = offs[len(offs) // 2] if offs else 0.0
    print("info start_timestamp offset (analysis - export) = %.0f ns (not derivable from the export)" % off)

    seen = set()
    for r in results:
        op, tm = r["op"], r["time"]
        name = op["name"]
        if name not in ref_t:
            in_step = any(s <= op["start"] <= e for _, s, e in steps)
            if in_step or not steps:
                diffs.append("%s: missing from CommAnalyzerTime" % name)
            else:
                print("info %s: outside every STEP_TIME range; torch_npu drops such ops" % name)
            continue
        seen.add(name)
        ref = ref_t[name]
        resid = ref[2] * 1000.0 - op["start"] - off
        if abs(resid) > TOL_ABS_NS:
            diffs.append("%s start: residual %.0f ns after offset" % (name, resid))
        for key, col in (("elapse", 3), ("transit", 4), ("wait", 5), ("sync", 6), ("idle", 7)):
            want = ref[col] * ms
            if not _close(tm[key], want, TOL_ABS_NS):
                diffs.append("%s %s: oracle %d ns, analysis %.3f ns" % (name, key, tm[key], want))
        # bandwidth
        mine = r["bw"]
        rows = ref_b.get(name, [])
        ref_kinds = defaultdict(list)
        for row in rows:
            ref_kinds[row[1]].append(row)
        for kind in BAND_ORDER:
            size, dur, pk = mine[kind]
            if size == 0 and dur == 0:
                if kind in ref_kinds:
                    diffs.append("%s bw %s: analysis has rows, oracle has none" % (name, kind))
                continue
            if kind not in ref_kinds:
                diffs.append("%s bw %s: oracle %d B / %d ns, analysis has no row" % (name, kind, size, dur))
                continue
            kr = ref_kinds[kind]
            mb, tms = size / 1e6, dur / ms
            gbps = round(mb / 1000.0 / (tms / 1000.0), 4) if dur else 0.0
            npk = sum(v[0] for v in pk.values())
            large = sum(v[0] for k, v in pk.items() if k / 1e6 > LARGE_PACKET_MB.get(kind, 0))
            lpr = round(large / npk, 4) if npk else 0.0
            for row in kr:
                if not _close(size, row[2] * 1e6, 0.5):
                    diffs.append("%s bw %s size: oracle %d B, analysis %.0f B" % (name, kind, size, row[2] * 1e6))
                if not _close(dur, row[3] * ms, TOL_ABS_NS):
                    diffs.append("%s bw %s time: oracle %d ns, analysis %.3f ns" % (name, kind, dur, row[3] * ms))
                if not _close(gbps, row[4], 1e-4):
                    diffs.append("%s bw %s bandwidth: oracle %.4f, analysis %.4f" % (name, kind, gbps, row[4]))
                if abs(lpr - row[5]) > 1e-4:
                    diffs.append("%s bw %s large_packet_ratio: oracle %.4f, analysis %.4f" % (name, kind, lpr, row[5]))
            # package distribution rows
            if kind == "SDMA":
                if any(row[6] or row[7] or row[8] for row in kr) or len(kr) != 1:
                    diffs.append("%s bw SDMA: expected one row with zero package columns" % name)
                continue
            ref_pk = {}
            for row in kr:
                ref_pk[round(row[6] * 1e6)] = (row[7], row[8])
            if set(ref_pk) != set(pk):
                diffs.append("%s bw %s packages: oracle %s, analysis %s" % (name, kind, sorted(pk), sorted(ref_pk)))
                continue
            for k, (cnt, tot) in pk.items():
                rc, rt = ref_pk[k]
                if cnt != rc or not _close(tot, rt * ms, TOL_ABS_NS):
                    diffs.append("%s bw %s package %d: oracle %d x %d ns, analysis %d x %.3f ns"
                                 % (name, kind, k, cnt, tot, rc, rt * ms))
    for name in ref_t:
        if name not in seen:
            diffs.append("%s: in CommAnalyzerTime but not in the export" % name)
    for d in diffs:
        print("DIFF " + d)
    print("check: %d ops compared, %d differences" % (len(seen), len(diffs)))
    return 1 if diffs else 0


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 2
    export = argv[1]
    analysis = None
    if len(argv) >= 4 and argv[2] == "--check":
        analysis = argv[3]
    elif len(argv) != 2:
        print("usage: ascend_comm_oracle.py EXPORT.db [--check ANALYSIS.db]", file=sys.stderr)
        return 2
    results, steps = analyse(export)
    print_results(results)
    if analysis:
        return check(results, steps, analysis)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
