#!/usr/bin/env python3
"""Control characters in the data never reach the terminal raw (issue 27):
names holding escape sequences (ESC [2J clears the screen, ESC ]0;...BEL
retitles the window, U+009B is the 8-bit CSI) are shown neutralised, as
src/cli/term.c spells them (\\x1b, \\x07, \\u009b), on standard output and
standard error alike, while the database keeps the bytes as they are.

- analyze: module_tree's fixture with its root module and an op renamed to
  hold them, and a kernel (MatMulV3: the report's one kernel hotspot line) with a lone byte 0x9B (not UTF-8), --verbose and --model, whose config's model_type holds them too
  (an unknown model_type: the error message names it);
- model: the same config (the error), then on its own;
- diff of the fixture as it is against the renamed one (the view names
  module paths and op types).

usage: terminal_escapes.py OPMFU SOURCE_ROOT"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "tools"))
from build_fixture import build_edited, build_tree, MODULE_TREE_SQL  # noqa: E402

MODEL = "Model\x1b[2J\x1b]0;pwned\x07\u009b31m"
MODEL_SHOWN = b"Model\\x1b[2J\\x1b]0;pwned\\x07\\u009b31m"
OP = "aten::mm\x1b[31m\r"
OP_SHOWN = b"aten::mm\\x1b[31m\\x0d"
# a lone byte 0x9B (not UTF-8: an 8-bit terminal's CSI)
KERNEL_SHOWN = b"MatMulV3\\x9b2J"
TYPE = "llama\x1b]0;pwned\x07"
TYPE_SHOWN = b"llama\\x1b]0;pwned\\x07"
fails = []


def sql_str(s):
    """s as an SQLite expression: quoted pieces and char() for the controls."""
    return " || ".join("char(%d)" % ord(c) if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else "'%s'" % c for c in s)


def run(name, args, shown, code=None):
    p = subprocess.run([OPMFU] + args, capture_output=True, timeout=120)
    both = p.stdout + p.stderr
    raw = [c for c in (b"\x1b", b"\x07", b"\r", b"\x9b") if c in both]
    if raw:
        fails.append("%s: raw %r in the output" % (name, raw))
    for s in shown:
        if s not in both:
            fails.append("%s: %r is not shown" % (name, s))
    if code is not None and p.returncode != code:
        fails.append("%s: exit %d, expected %d: %r" % (name, p.returncode, code, p.stderr[-300:]))
    print("%-22s %s" % (name, "ok" if not any(f.startswith(name + ":") for f in fails) else "FAILED"))
    return p


def main():
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    tmp = tempfile.mkdtemp(prefix="opmfu-term-")
    try:
        edits = (("(3,'Model')", "(3,%s)" % sql_str(MODEL)), ("(8,'aten::mm')", "(8,%s)" % sql_str(OP)),
                 ("(18,'MatMulV3')", "(18,'MatMulV3' || CAST(X'9B' AS TEXT) || '2J')"))
        tree = os.path.join(tmp, "tree")
        counts = build_edited(os.path.join(ROOT, "fixtures", "module_tree", "tree"), MODULE_TREE_SQL, edits,
                              os.path.join(tmp, "src"), tree, schema)
        for (old, _), n in zip(edits, counts):
            if not n:
                fails.append("fixture: %s not in module_tree's SQL" % old)
        with open(os.path.join(ROOT, "fixtures", "model_check", "tree", "tiny_llama.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        cfg["model_type"] = TYPE
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            json.dump(cfg, f)
        out = os.path.join(tmp, "out")
        run("analyze", ["analyze", tree, "-o", out, "--verbose"], [MODEL_SHOWN, OP_SHOWN, KERNEL_SHOWN], 0)
        # the database keeps the names byte for byte
        con = sqlite3.connect(os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"))
        con.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
        names = {r[0] for r in con.execute("SELECT name FROM OpmfuHotspots")}
        con.close()
        if not any(MODEL in n for n in names) or OP not in names:
            fails.append("analyze: the database does not hold the names as they are: %r" % sorted(names))
        run("analyze --model", ["analyze", tree, "-o", out, "--model", bad, "--seq-len", "128", "--global-batch",
                                "2"], [TYPE_SHOWN], 1)
        run("model", ["model", bad, "--seq-len", "128", "--global-batch", "2"], [TYPE_SHOWN], 1)
        # against the fixture as it is: the renamed module paths and op types are all changes
        plain = os.path.join(tmp, "plain")
        build_tree(os.path.join(ROOT, "fixtures", "module_tree", "tree"), plain, schema)
        run("diff", ["diff", plain, tree], [MODEL_SHOWN], 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print(f)
    print("terminal_escapes: %s" % ("ok" if not fails else "%d problems" % len(fails)))
    return 1 if fails else 0


sys.exit(main())
