#!/usr/bin/env python3
"""Every opmfu command of README.md's fenced sh blocks runs and exits 0 (SPEC 20).

The quick start's two blocks (apt-get, a fresh machine) are not run here: they install
packages; they are the commands this suite is built and run with. A command that names
../shared is skipped. Placeholders become fixtures: CLUSTER_DIR, RANK_DIR_ascend_pt,
path/to/ascend_pytorch_profiler_3.db, RUN1 and RUN2 the sample rank built from
fixtures/module_tree (as the quick start's build/sample), TRACES_DIR two Kineto traces
(fixtures/runs_two_jobs/tree/h100), NSYS_DIR the two Nsight Systems exports of
fixtures/nsys_pytorch, config.json tests/models/tree/llama3_8b.json, OUT a
fresh folder. A word in capitals this script does not know fails the test, so a new
example gets a fixture here.

usage: readme_examples.py OPMFU SOURCE_ROOT
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "tools"))
from build_fixture import build_tree  # noqa: E402


def examples(readme):
    """The opmfu command lines of the fenced sh blocks, comments cut."""
    cmds, block = [], None
    for line in readme.splitlines():
        if line.startswith("```"):
            block = [] if block is None and line.strip() in ("```sh", "```bash") else None
            continue
        if block is None:
            continue
        if "apt-get" in line:  # the quick start: installs packages
            continue
        text = re.sub(r"\s+#.*$", "", line).strip()
        if re.match(r"^(\S+=\S+\s+)*opmfu\s", text):
            cmds.append(text)
    return cmds


def main():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        cmds = examples(f.read())
    if len(cmds) < 5:
        print("README.md: found only %d opmfu examples" % len(cmds))
        return 1
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        sample = os.path.join(tmp, "sample")
        build_tree(os.path.join(ROOT, "fixtures", "module_tree", "tree"), sample, schema)
        traces = os.path.join(tmp, "traces")
        shutil.copytree(os.path.join(ROOT, "fixtures", "runs_two_jobs", "tree", "h100"), traces)
        nsys_dir = os.path.join(tmp, "nsys")
        build_tree(os.path.join(ROOT, "fixtures", "nsys_pytorch", "tree", "job"), nsys_dir, schema)
        run2 = os.path.join(tmp, "run2")
        shutil.copytree(sample, run2)
        db = os.path.join(sample, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_0.db")
        names = {
            "CLUSTER_DIR": sample,
            "RANK_DIR_ascend_pt": os.path.join(sample, "rank0_ascend_pt"),
            "path/to/ascend_pytorch_profiler_3.db": db,
            "TRACES_DIR": traces,
            "NSYS_DIR": nsys_dir,
            "RUN1": sample,
            "RUN2": run2,
            "config.json": os.path.join(ROOT, "tests", "models", "tree", "llama3_8b.json"),
        }
        for i, cmd in enumerate(cmds):
            if "../shared" in cmd:
                print("skip (needs ../shared): %s" % cmd)
                continue
            args, env = [], dict(os.environ)
            out = os.path.join(tmp, "out%d" % i)
            for word in shlex.split(cmd):
                m = re.match(r"^([A-Z_]+)=(.*)$", word)
                if m and not args:
                    env[m.group(1)] = m.group(2)
                    continue
                if word == "OUT":
                    word = out
                word = names.get(word, word)
                if word != out and re.fullmatch(r"[A-Z]+(_[A-Z]+)+|[A-Z]{3,}\d*", word):
                    print("FAIL: %s: no fixture for %s" % (cmd, word))
                    failed += 1
                    break
                args.append(word)
            else:
                args[0] = OPMFU
                p = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
                if p.returncode != 0:
                    print("FAIL (exit %d): %s\n%s" % (p.returncode, cmd, p.stderr.decode(errors="replace")))
                    failed += 1
                else:
                    print("ok: %s" % cmd)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
