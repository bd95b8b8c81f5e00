#!/usr/bin/env python3
"""tools/check_layers.py refuses what a layer may not include, and accepts the tree.

layer_check.py OPMFU SOURCE_ROOT (OPMFU unused: the runner's calling convention)
"""
import os
import shutil
import subprocess
import sys
import tempfile


def run(src):
    with tempfile.TemporaryDirectory() as d:
        stamp = os.path.join(d, "stamp")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "check_layers.py"), stamp, src],
                           capture_output=True, text=True)
        return p.returncode, p.stderr, os.path.exists(stamp)


def with_line(path, line):
    """A copy of src/ whose file path (relative to src/) has line added."""
    d = tempfile.mkdtemp()
    shutil.copytree(os.path.join(ROOT, "src"), os.path.join(d, "src"))
    with open(os.path.join(d, "src", path), "a") as f:
        f.write(line + "\n")
    return d


ROOT = sys.argv[2]
failures = 0


def expect(what, got, want):
    global failures
    if got != want:
        print("FAIL %s:\n  got  %r\n  want %r" % (what, got, want))
        failures += 1


rc, err, stamped = run(os.path.join(ROOT, "src"))
expect("the tree passes", (rc, err, stamped), (0, "", True))

cases = [
    ("reference/op_mfu.c", '#include "write/writer.h"',
     'layer check: reference/op_mfu.c includes "write/writer.h": reference/ may include only base, trace, chips, flops\n'),
    ("write/write_sqlite.c", '#include "opmfu.h"',
     'layer check: write/write_sqlite.c includes "opmfu.h": write/ may include only base, trace\n'),
    ("trace/trace.c", "#include <sqlite3.h>",
     "layer check: trace/trace.c includes <sqlite3.h>: only read, write/write_sqlite.c may\n"),
    ("write/write_sqlite.c", "#include <xlsxwriter.h>",
     "layer check: write/write_sqlite.c includes <xlsxwriter.h>: only write/xlsx_book.h, write/xlsx_book.c, write/write_xlsx.c, write/summary_xlsx.c may\n"),
    ("base/mem.c", '#include "trace/trace.h"',
     'layer check: base/mem.c includes "trace/trace.h": base/ may include only libc\n'),
    ("cli/main.c", '#include "lib/lib.h"',
     'layer check: cli/main.c includes "lib/lib.h": cli/ may include only api\n'),
    ("mflops/mflops.c", '#include "trace/trace.h"',
     'layer check: mflops/mflops.c includes "trace/trace.h": mflops/ may include only base\n'),
    ("mflops/mflops.c", "#include <yajl/yajl_parse.h>",
     "layer check: mflops/mflops.c includes <yajl/yajl_parse.h>: only read may\n"),
    ("lib/rank.c", '#include "../base/mem.h"',
     'layer check: lib/rank.c includes "../base/mem.h": no such file under src/ (include paths start at src/)\n'),
]
for path, line, want in cases:
    d = with_line(path, line)
    try:
        rc, err, stamped = run(os.path.join(d, "src"))
    finally:
        shutil.rmtree(d)
    expect("%s + %s" % (path, line), (rc, err, stamped), (1, want, False))

print("%d of %d cases failed" % (failures, len(cases) + 1) if failures else "all %d cases pass" % (len(cases) + 1))
sys.exit(1 if failures else 0)
