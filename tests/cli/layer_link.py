#!/usr/bin/env python3
"""The layer rules hold at link time: a call into a layer a layer may not use
fails the build's link of that layer, a call into one it may use links.

layer_link.py NINJA BUILD_ROOT SOURCE_ROOT

meson.build makes one executable per layer, layer_link_<layer>, from the
layer's library linked whole and the libraries of the layers it may use
(docs/architecture.md, "Rules between layers"). For every layer L this takes
the build's own link command of layer_link_L (ninja -t commands) and, for
every other layer M, links it again with one more object that calls a
function defined in M's library: that link must fail with an undefined
reference exactly when tools/check_layers.py's LAYERS does not let L include
M. So the test fails if a layer's executable is missing or not built, if it
links a library it may not (the call would resolve), or if it lacks one it
may use, and the link rules and the include rules stay one table.
"""
import concurrent.futures
import importlib.util
import os
import shlex
import subprocess
import sys
import tempfile

NINJA, BUILD, ROOT = sys.argv[1:4]

spec = importlib.util.spec_from_file_location("check_layers", os.path.join(ROOT, "tools", "check_layers.py"))
check_layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layers)
RULES = check_layers.LAYERS
LAYERS = sorted(k for k in RULES if k not in ("api", "cli"))  # cli links the program, api is a header

failures = 0
checks = 0


def expect(what, ok, detail=""):
    global failures, checks
    checks += 1
    if not ok:
        print("FAIL %s%s" % (what, ("\n  " + detail.strip().replace("\n", "\n  ")) if detail else ""))
        failures += 1


def archive(layer):
    return os.path.join(BUILD, "libopmfu.a" if layer == "lib" else "libopmfu_%s.a" % layer)


def a_function(layer):
    """One function the layer's library defines (nm: global, in .text)."""
    p = subprocess.run(["nm", "-g", "--defined-only", archive(layer)], capture_output=True, text=True, check=True)
    names = sorted(f[2] for f in (line.split() for line in p.stdout.splitlines())
                   if len(f) == 3 and f[1] == "T" and f[2].startswith("opmfu_"))
    return names[0]


def link_command(layer):
    """The build's link command of layer_link_LAYER, as run in BUILD."""
    p = subprocess.run([NINJA, "-C", BUILD, "-t", "commands", "layer_link_" + layer], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    lines = [l for l in p.stdout.splitlines() if " -o layer_link_%s " % layer in l + " "]
    return shlex.split(lines[-1]) if lines else None


def link(cmd, out, extra):
    """cmd with its output at out and the objects extra first (so the archives after them resolve them)."""
    cmd = list(cmd)
    i = cmd.index("-o")
    cmd[i + 1:i + 2] = [out] + extra
    return subprocess.run(cmd, cwd=BUILD, capture_output=True, text=True)


# every folder of src/ but cli/ is a layer with a rule and an executable
folders = sorted(d for d in os.listdir(os.path.join(ROOT, "src"))
                 if os.path.isdir(os.path.join(ROOT, "src", d)) and d != "cli")
expect("the layers of tools/check_layers.py are the folders of src/", folders == LAYERS,
       "folders %s\nlayers  %s" % (folders, LAYERS))

cmds = {}
for layer in LAYERS:
    cmds[layer] = link_command(layer)
    expect("meson.build links layer_link_%s" % layer, cmds[layer] is not None)
    expect("layer_link_%s is built by default" % layer, os.path.exists(os.path.join(BUILD, "layer_link_" + layer)))

if not any(cmds.values()):
    print("%d of %d checks failed: no layer executable to link" % (failures, checks))
    sys.exit(1)
with tempfile.TemporaryDirectory() as tmp:
    cc = next(c for c in cmds.values() if c)[0]
    calls = {}  # layer -> (function, object calling it)
    for layer in LAYERS:
        fn = a_function(layer)
        src = os.path.join(tmp, "call_%s.c" % layer)
        with open(src, "w") as f:
            f.write("void %s(void);\nvoid opmfu_layer_link_probe(void);\n"
                    "void opmfu_layer_link_probe(void) { %s(); }\n" % (fn, fn))
        obj = src[:-2] + ".o"
        subprocess.run([cc, "-c", src, "-o", obj], check=True)
        calls[layer] = (fn, obj)

    jobs = []
    for caller in LAYERS:
        if cmds[caller] is None:
            continue
        jobs.append((caller, None))
        jobs += [(caller, callee) for callee in LAYERS if callee != caller]

    def run(job):
        caller, callee = job
        out = os.path.join(tmp, "out_%s_%s" % (caller, callee))
        return job, link(cmds[caller], out, [calls[callee][1]] if callee else [])

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for (caller, callee), p in pool.map(run, jobs):
            if callee is None:
                expect("layer_link_%s links as the build does" % caller, p.returncode == 0, p.stderr)
                continue
            fn = calls[callee][0]
            if callee in RULES[caller]:
                expect("%s/ calling %s (%s/) links" % (caller, fn, callee), p.returncode == 0, p.stderr)
            else:
                expect("%s/ calling %s (%s/) fails to link with an undefined reference" % (caller, fn, callee),
                       p.returncode != 0 and fn in p.stderr and "undefined" in p.stderr,
                       "exit %d\n%s" % (p.returncode, p.stderr))

print("%d of %d checks failed" % (failures, checks) if failures else "all %d checks pass" % checks)
sys.exit(1 if failures else 0)
