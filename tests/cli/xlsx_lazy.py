"""libxlsxwriter is loaded only when a workbook is written (write/xlsx_book.h,
docs/architecture.md "Workbooks"): a run exporting the database alone maps
neither it nor the libcrypto it needs; one exporting workbooks loads it and
writes them. The dynamic loader says what it maps (LD_DEBUG=files, glibc).
usage: xlsx_lazy.py OPMFU SOURCE_ROOT"""
import os
import subprocess
import sys
import tempfile

import sample_rank

OPMFU = sys.argv[1]
ROOT = sys.argv[2]


def loaded(args, out):
    """The shared objects the loader mapped while opmfu ran args, and its exit status."""
    env = dict(os.environ, LD_DEBUG="files")
    p = subprocess.run([OPMFU] + args + ["-o", out, "-q"], env=env, capture_output=True, text=True)
    libs = set()
    for line in p.stderr.splitlines():
        if "file=" in line and ("needed by" in line or "dynamically loaded by" in line):
            libs.add(line.split("file=", 1)[1].split()[0])
    return libs, p.returncode


def named(libs, stem):
    return sorted(x for x in libs if os.path.basename(x).startswith(stem))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "in")
        sample_rank.make_rank(tree, sample_rank.schema(ROOT) + sample_rank.DATA)
        libs, rc = loaded(["analyze", tree], os.path.join(tmp, "db"))
        if "libsqlite3.so.0" not in {os.path.basename(x) for x in libs}:
            # not glibc's loader, or LD_DEBUG ignored (a static or setuid binary)
            print("SKIP: the dynamic loader does not report what it maps (LD_DEBUG=files)")
            return 77
        assert rc == 0, "analyze exited %d" % rc
        assert not named(libs, "libxlsxwriter"), "the database alone loaded %s" % named(libs, "libxlsxwriter")
        assert not named(libs, "libcrypto"), "the database alone loaded %s" % named(libs, "libcrypto")
        out = os.path.join(tmp, "xlsx")
        libs, rc = loaded(["analyze", tree, "--export", "db,xlsx"], out)
        assert rc == 0, "analyze --export db,xlsx exited %d" % rc
        assert named(libs, "libxlsxwriter"), "workbooks written without loading libxlsxwriter"
        book = os.path.join(out, "cluster_analysis_output", "OperatorMfu", "operator_mfu_kernel_0.xlsx")
        assert os.path.getsize(book) > 0, book
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
