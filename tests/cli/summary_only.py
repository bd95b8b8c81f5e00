#!/usr/bin/env python3
"""analyze --summary-only (SPEC 22, docs/cli.md): on a generated 4-rank cluster (with --model)
and on the real traces of ../shared/real (the two-rank Ascend level1 export and the H100 Qwen
Kineto trace), against a full run of the same input:
  - the database holds exactly the documented tables (SUMMARY below), and the CSV and JSON
    Lines folders exactly their files;
  - every one of those tables has the same rows as the full run's (md5 of the rows,
    tests/bench/table_md5.py): the run account (OpmfuRun, OpmfuHotspots, OpmfuStragglers,
    OpmfuCollectives, OpmfuModel) and the per-rank summaries (OpmfuRankSummary, OpmfuSteps);
  - no per-rank workbook is written, and opmfu_summary.xlsx has the full run's cells;
  - opmfu_report.html is the full run's byte for byte;
  - the exit status and the report on stdout are the full run's (but the "wrote" lines: where,
    how long, how many files);
  - written over an earlier full result, the per-op tables of that result go (database, CSV,
    JSON) and a table of the user's in the same database stays;
  - opmfu diff of a summary-only result refuses with its message and exit status 1.
The real traces are skipped, saying so, when ../shared/real is absent (exit 77 when nothing
could run; the generated cluster always runs).
usage: summary_only.py OPMFU GEN_SYNTH SOURCE_ROOT"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

OPMFU, GEN, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from table_md5 import table_md5s  # noqa: E402
from xlsx_cells import dump as dump_xlsx  # noqa: E402

# docs/output-schema.md, "--summary-only": the tables written
SUMMARY = ["OpmfuCollectives", "OpmfuHotspots", "OpmfuModel", "OpmfuRankSummary", "OpmfuRun", "OpmfuSteps",
           "OpmfuStragglers"]
# and those it leaves out (OPMFU_TABLE_DETAIL)
DETAIL = ["ModuleMFU", "OperatorMFU", "OpmfuKernels", "OpmfuModuleClasses", "OpmfuModules", "OpmfuOpTypes",
          "OpmfuOps", "OpmfuShapes"]

fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


def run(args):
    return subprocess.run([OPMFU] + args, capture_output=True, text=True, timeout=600)


def out_dir(out):
    return os.path.join(out, "cluster_analysis_output")


def report(stdout):
    # the "wrote" lines say where, how long and how many files: they differ by design
    return [l for l in stdout.splitlines() if not l.startswith("wrote ")]


def check(name, inputs, extra, nonempty=()):
    tmp = tempfile.mkdtemp(prefix="opmfu-sumonly-")
    try:
        full, summ = os.path.join(tmp, "full"), os.path.join(tmp, "sum")
        exports = ["--export", "db,xlsx,csv,json,html"]
        pf = run(["analyze"] + inputs + ["-o", full] + exports + extra)
        ps = run(["analyze"] + inputs + ["-o", summ, "--summary-only"] + exports + extra)
        if pf.returncode != ps.returncode or pf.returncode not in (0, 3):
            fail("%s: exit %d (full) and %d (summary-only)\n%s%s" % (name, pf.returncode, ps.returncode,
                                                                       pf.stderr, ps.stderr))
            return
        if report(pf.stdout) != report(ps.stdout):
            fail("%s: the report differs from the full run's:\n%s\n---\n%s" % (name, pf.stdout, ps.stdout))
        m_full = table_md5s(os.path.join(out_dir(full), "cluster_analysis.db"))
        m_sum = table_md5s(os.path.join(out_dir(summ), "cluster_analysis.db"))
        if sorted(m_full) != sorted(SUMMARY + DETAIL):
            fail("%s: the full run's tables are %s" % (name, sorted(m_full)))
        if sorted(m_sum) != SUMMARY:
            fail("%s: summary-only wrote the tables %s, expected %s" % (name, sorted(m_sum), SUMMARY))
        for t in SUMMARY:
            if m_sum.get(t) != m_full.get(t):
                fail("%s: %s differs from the full run's: %s vs %s" % (name, t, m_sum.get(t), m_full.get(t)))
        for t in ["OpmfuRankSummary", "OpmfuSteps", "OpmfuRun", "OpmfuHotspots"] + list(nonempty):
            if not m_full[t][0]:
                fail("%s: the full run's %s is empty: the comparison would prove little" % (name, t))
        for folder, ext in (("csv", ".csv"), ("json", ".jsonl")):
            got = sorted(os.listdir(os.path.join(out_dir(summ), folder)))
            if got != [t + ext for t in SUMMARY]:
                fail("%s: %s folder holds %s" % (name, folder, got))
        books = sorted(os.listdir(os.path.join(out_dir(summ), "OperatorMfu")))
        if books != ["opmfu_summary.xlsx"]:
            fail("%s: summary-only wrote the workbooks %s" % (name, books))
        cells = [dump_xlsx(os.path.join(out_dir(d), "OperatorMfu", "opmfu_summary.xlsx")) for d in (full, summ)]
        if cells[0] != cells[1]:
            fail("%s: opmfu_summary.xlsx differs from the full run's" % name)
        pages = [open(os.path.join(out_dir(d), "opmfu_report.html"), "rb").read() for d in (full, summ)]
        if pages[0] != pages[1]:
            fail("%s: opmfu_report.html differs from the full run's" % name)

        # over an earlier full result holding a table of the user's
        over = os.path.join(tmp, "over")
        shutil.copytree(full, over)
        con = sqlite3.connect(os.path.join(out_dir(over), "cluster_analysis.db"))
        con.execute("CREATE TABLE MyNotes (x)")
        con.execute("INSERT INTO MyNotes VALUES (42)")
        con.commit()
        con.close()
        po = run(["analyze"] + inputs + ["-o", over, "--summary-only"] + exports + extra)
        m_over = table_md5s(os.path.join(out_dir(over), "cluster_analysis.db"))
        if po.returncode != ps.returncode or sorted(m_over) != sorted(SUMMARY + ["MyNotes"]):
            fail("%s: over a full result: exit %d, tables %s" % (name, po.returncode, sorted(m_over)))
        elif any(m_over[t] != m_full[t] for t in SUMMARY) or m_over["MyNotes"][0] != 1:
            fail("%s: over a full result: rows differ" % name)
        for folder, ext in (("csv", ".csv"), ("json", ".jsonl")):
            got = sorted(os.listdir(os.path.join(out_dir(over), folder)))
            if got != [t + ext for t in SUMMARY]:
                fail("%s: over a full result, the %s folder holds %s" % (name, folder, got))

        pd = run(["diff", full, summ])
        want = ("opmfu: error: %s/cluster_analysis.db: an opmfu result of analyze --summary-only: it has no "
                "OpmfuModules, which opmfu diff compares; analyze its input without --summary-only, or give "
                "diff the input\n" % out_dir(summ))
        if pd.returncode != 1 or pd.stderr != want:
            fail("%s: diff of a summary-only result: exit %d, stderr %r" % (name, pd.returncode, pd.stderr))
        print("%s: ok (%d tables, %d per-op tables left out)" % (name, len(m_sum), len(DETAIL)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    tmp = tempfile.mkdtemp(prefix="opmfu-sumonly-gen-")
    ran = 0
    try:
        tree = os.path.join(tmp, "tree")
        subprocess.run([GEN, "-o", tree, "-r", "4", "-n", "3000", "-S", "-q"], check=True, timeout=300)
        model = ["--model", os.path.join(ROOT, "tests", "models", "tree", "llama3_8b.json"), "--seq-len", "4096",
                 "--global-batch", "8"]
        check("generated cluster", [tree], model, ["OpmfuModel", "OpmfuCollectives", "OpmfuStragglers"])
        ran += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    real = os.path.join(os.path.dirname(os.path.abspath(ROOT)), "shared", "real")
    cases = [("real Ascend level1", os.path.join(real, "level1")),
             ("real Kineto H100 Qwen", os.path.join(real, "kineto", "kineto_h100_qwen05b_infer"))]
    for name, path in cases:
        if not os.path.isdir(path):
            print("%s: skipped: %s is absent" % (name, path))
            continue
        check(name, [path], [])
        ran += 1
    if fails:
        print("%d failures" % fails)
        return 1
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main())
