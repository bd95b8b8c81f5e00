#!/usr/bin/env python3
"""Counts, from a Kineto trace's raw JSON, what SPEC 13 says the reader finds.

An independent derivation of the golden numbers of fixtures/kineto_*: it
loads the whole document with Python's json module (the reader streams it
with yajl) and applies the rules as written, by a different method:

  * cpu_op: ph "X", cat "cpu_op" (or the old "Operator"), except
    ProfilerStep#N (a step, not an op);
  * kernel: ph "X", cat "kernel" (or "Kernel"); it is communication when its
    name, after an optional "void ", starts with nccl or rccl (any case), or
    its args have "Collective name";
  * link 1: args "External id" of the kernel equals a cpu_op's, unless it equals
    the kernel's own correlation id (the mark of traces before torch 2.1, whose
    External id is no op's);
  * link 2: else its "correlation" equals that of a runtime call (ph "X", cat
    ending in _runtime or _driver, or "Runtime"); the op is the innermost
    cpu_op with the same pid and tid whose span [ts, ts + dur] holds the
    call's ts: found here by scanning back from the last op starting at or
    before it (the reader sweeps with a stack);
  * modules: python_function events named "nn.Module: NAME";
  * steps: distinct N of ProfilerStep#N (cpu_op, user_annotation or
    gpu_user_annotation);
  * rank: distributedInfo.rank; GPU: the deviceProperties name of the device
    that ran most kernels.

Usage: kineto_links.py TRACE... (plain or .gz); prints one line per trace in
the words of opmfu's summary "input:" line.
"""
import bisect
import gzip
import json
import sys


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def is_comm(e):
    name = e.get("name", "")
    if name.startswith("void "):
        name = name[5:]
    return name[:4].lower() in ("nccl", "rccl") or "Collective name" in e.get("args", {})


def step_number(name):
    pre = "ProfilerStep#"
    if isinstance(name, str) and name.startswith(pre) and name[len(pre):].isdigit():
        return int(name[len(pre):])
    return None


def count(doc):
    ev = [e for e in doc.get("traceEvents", []) if isinstance(e, dict) and e.get("ph") == "X"]
    ops = [e for e in ev if e.get("cat") in ("cpu_op", "Operator") and step_number(e.get("name")) is None]
    kernels = [e for e in ev if e.get("cat") in ("kernel", "Kernel")]
    runtime = [e for e in ev if isinstance(e.get("cat"), str) and
               (e["cat"].endswith("_runtime") or e["cat"].endswith("_driver") or e["cat"] == "Runtime")
               and "correlation" in e.get("args", {})]
    by_ext_id = {}
    for o in ops:
        by_ext_id.setdefault(o.get("args", {}).get("External id"), o)
    by_ext_id.pop(None, None)
    launch = {}
    for r in runtime:
        launch.setdefault(r["args"]["correlation"], r)
    threads = {}
    for o in ops:
        threads.setdefault((o["pid"], o["tid"]), []).append(o)
    starts = {}
    for key, lst in threads.items():
        lst.sort(key=lambda o: o["ts"])
        starts[key] = [o["ts"] for o in lst]

    def enclosing(r):
        key = (r["pid"], r["tid"])
        if key not in threads:
            return None
        lst = threads[key]
        i = bisect.bisect_right(starts[key], r["ts"]) - 1
        best = None
        while i >= 0:
            o = lst[i]
            if best is not None and o["ts"] < best["ts"]:
                break
            # innermost: the latest start; among equal starts the shortest
            if o["ts"] + o["dur"] >= r["ts"] and (best is None or o["dur"] < best["dur"]):
                best = o
            i -= 1
        return best

    c = dict(ext=0, corr=0, none=0, comm=0, comm_linked=0)
    devices = {}
    for k in kernels:
        a = k.get("args", {})
        if isinstance(a.get("device"), int):
            devices[a["device"]] = devices.get(a["device"], 0) + 1
        op, how = None, "ext"
        if a.get("External id") != a.get("correlation"):
            op = by_ext_id.get(a.get("External id"))
        if op is None:
            how = "corr"
            r = launch.get(a.get("correlation"))
            op = enclosing(r) if r is not None else None
        if is_comm(k):
            c["comm"] += 1
            c["comm_linked"] += op is not None
        elif op is None:
            c["none"] += 1
        else:
            c[how] += 1
    mods = sum(1 for e in ev if e.get("cat") == "python_function" and
               str(e.get("name", "")).startswith("nn.Module: ") and len(e["name"]) > 11)
    steps = {step_number(e.get("name")) for e in ev
             if e.get("cat") in ("cpu_op", "Operator", "user_annotation", "gpu_user_annotation")}
    steps.discard(None)
    gpu = ""
    if devices:
        d = sorted(devices.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        for p in doc.get("deviceProperties", []):
            if p.get("id") == d:
                gpu = p.get("name", "")
                break
    return c, mods, len(steps), gpu, doc.get("distributedInfo", {}).get("rank", -1)


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def main():
    for path in sys.argv[1:]:
        c, mods, steps, gpu, rank = count(load(path))
        k = c["ext"] + c["corr"] + c["none"]
        line = ("%s: %d linked by External id, %d by correlation, %d to no op; %s (%d linked); %s; %s"
                % (plural(k, "GPU kernel"), c["ext"], c["corr"], c["none"],
                   plural(c["comm"], "communication kernel"), c["comm_linked"],
                   plural(mods, "nn.Module call"), plural(steps, "step")))
        if gpu:
            line += '; GPU "%s"' % gpu
        print("%s\trank %s\t%s" % (path, rank, line))


if __name__ == "__main__":
    main()
