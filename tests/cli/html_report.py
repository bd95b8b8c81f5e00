#!/usr/bin/env python3
"""opmfu_report.html (SPEC 23, docs/html.md) for every fixture, the real traces, a diff and
hostile names. usage: html_report.py OPMFU SOURCE_ROOT

- Every case of fixtures/ whose last command is an `analyze` that writes results (exit 0 or
  3): run again with html added to --export (db too, so the page can be checked against the
  database of the same run); cases that read ../shared/real are skipped, saying so, when it is
  absent. Each page is parsed strictly (tests/tools/html_page.py: balanced tags, no load of any
  kind, one script whose SHA-256 the Content-Security-Policy names) and its numbers compared
  with the tables of cluster_analysis.db: OpmfuRun's median step, step time, trace MFU, the top
  hotspot, each hotspot kind's first rows, the ranks shown (the terminal's rule, written again
  in Python), the stragglers and the model's run rows.
- A run in which every rank fails leaves an earlier page as it was; no run leaves a staged file.
- `opmfu diff BASE NEW -o OUT --export db,html` (fixtures/diff_inputs, both sides inputs): the
  Diff section is OpmfuDiff's rows (the first 20 of each kind, in order), and the rest is NEW's
  report: the same checks against NEW analysed on its own.
- Hostile names (module_tree's fixture with its root module, an op and a kernel renamed to
  hold <script>, quotes, & and an invalid UTF-8 byte): the page still parses with one script,
  and the names show as text (repaired as Python's errors="replace" does).
- Size: the page of a 1,000-rank synthetic cluster (gen_synth, given as a third argument) stays
  under the bound docs/html.md gives (OPMFU_HTML_MAX_BYTES below).
"""
import os
import shutil
import subprocess
import sys
import tempfile

OPMFU = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
GEN = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
from build_fixture import build_edited, build_tree, MODULE_TREE_SQL  # noqa: E402
from html_page import PageError, check_db, check_diff, parse, shown_name  # noqa: E402
from run_golden import case_part, prepare  # noqa: E402

# docs/html.md: the page of 1,000 ranks (gen_synth, 1,000 kernels each) is measured there
OPMFU_HTML_MAX_BYTES = 400_000
REPORT = os.path.join("cluster_analysis_output", "opmfu_report.html")
fails = []


def with_html(args):
    """args with html (and db) in --export."""
    out, i = [], 0
    seen = False
    while i < len(args):
        if args[i] == "--export" and i + 1 < len(args):
            words = set(args[i + 1].split(",")) | {"db", "html"}
            out += ["--export", ",".join(sorted(words))]
            seen = True
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out if seen else out + ["--export", "db,html"]


def check_page(name, page_path, db):
    try:
        page = parse(page_path)
    except (PageError, UnicodeDecodeError) as e:
        fails.append("%s: %s" % (name, e))
        return None
    check_db(page, db, fails, name)
    return page


def fixture_cases(schema, tmp):
    n = skipped = 0
    for case in sorted(os.listdir(os.path.join(ROOT, "fixtures"))):
        d = os.path.join(ROOT, "fixtures", case)
        args = ["analyze", "{tree}", "-o", "{out}"]
        if os.path.exists(os.path.join(d, "cmd")):
            with open(os.path.join(d, "cmd"), encoding="utf-8") as f:
                args = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        if "---" in args:
            args = args[len(args) - args[::-1].index("---"):]
        exit_file = os.path.join(case_part(d, "expected"), "exit")
        want_exit = int(open(exit_file).read()) if os.path.exists(exit_file) else 0
        if args[0] != "analyze" or want_exit not in (0, 3):
            continue
        needs_shared = os.path.exists(os.path.join(d, "prepare")) or any("{shared}" in a for a in args)
        if needs_shared and not os.path.isdir(os.path.join(SHARED, "real")):
            print("%-28s skipped: %s/real is not there" % (case, SHARED))
            skipped += 1
            continue
        work = os.path.join(tmp, case)
        tree, out = os.path.join(work, "tree"), os.path.join(work, "out")
        os.makedirs(out)
        if os.path.isdir(case_part(d, "tree")):
            build_tree(case_part(d, "tree"), tree, schema)
        if os.path.exists(os.path.join(d, "prepare")):
            prepare(os.path.join(d, "prepare"), tree, SHARED)
        args = [a.replace("{tree}", tree).replace("{out}", out).replace("{shared}", SHARED) for a in args]
        if "-o" not in args:  # the result beside the input otherwise; here under out
            args += ["-o", out]
        env = dict(os.environ)
        env.pop("OPMFU_PEAK", None)
        if os.path.exists(os.path.join(d, "env")):
            with open(os.path.join(d, "env"), encoding="utf-8") as f:
                env.update(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
        p = subprocess.run([OPMFU] + with_html(args), capture_output=True, text=True, env=env, timeout=600)
        if p.returncode != want_exit:
            fails.append("%s: exit %d, expected %d: %s" % (case, p.returncode, want_exit, p.stderr[-400:]))
            continue
        # the result may be under -o or, without it, beside the input
        o = args[args.index("-o") + 1] if "-o" in args else None
        page_path = os.path.join(o, REPORT) if o else None
        if not page_path or not os.path.exists(page_path):
            fails.append("%s: no page at %s" % (case, page_path))
            continue
        page = check_page(case, page_path, os.path.join(o, "cluster_analysis_output", "cluster_analysis.db"))
        left = [f for f in os.listdir(os.path.dirname(page_path)) if f.endswith(".tmp")]
        if left:
            fails.append("%s: staged files left: %s" % (case, left))
        n += 1
        print("%-28s %s (%d bytes)" % (case, "ok" if not any(f.startswith(case + ":") for f in fails) else "FAILED",
                                       page.size if page else 0))
    return n, skipped


def diff_case(schema, tmp):
    work = os.path.join(tmp, "diff")
    d = os.path.join(ROOT, "fixtures", "diff_inputs")
    base, new, out, alone = (os.path.join(work, x) for x in ("base", "new", "out", "alone"))
    build_tree(os.path.join(d, "tree"), base, schema)
    build_tree(os.path.join(d, "tree_new"), new, schema)
    p = subprocess.run([OPMFU, "diff", base, new, "-o", out, "--export", "db,html"], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0 or "opmfu_report.html (the Diff, NEW's report)" not in p.stdout:
        fails.append("diff: exit %d: %s%s" % (p.returncode, p.stdout, p.stderr))
        return
    p = subprocess.run([OPMFU, "analyze", new, "-o", alone, "-q"], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fails.append("diff: NEW alone: exit %d: %s" % (p.returncode, p.stderr))
        return
    page = check_page("diff", os.path.join(out, REPORT), os.path.join(alone, "cluster_analysis_output",
                                                                       "cluster_analysis.db"))
    if page:
        check_diff(page, os.path.join(out, "cluster_analysis_output", "cluster_analysis.db"), fails, "diff")
        if "diff" not in page.ids:
            fails.append("diff: no #diff section")
    # html alone: no database, and the page all the same
    out2 = os.path.join(work, "out2")
    p = subprocess.run([OPMFU, "diff", base, new, "-o", out2, "--export", "html"], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0 or not os.path.exists(os.path.join(out2, REPORT)) or \
            os.path.exists(os.path.join(out2, "cluster_analysis_output", "cluster_analysis.db")):
        fails.append("diff --export html: exit %d, page %s, database %s" % (
            p.returncode, os.path.exists(os.path.join(out2, REPORT)),
            os.path.exists(os.path.join(out2, "cluster_analysis_output", "cluster_analysis.db"))))
    print("%-28s %s" % ("diff", "ok" if not any(f.startswith("diff") for f in fails) else "FAILED"))


# hostile names: markup, quotes, ampersands and a lone byte that is not UTF-8
MODULE = "Model<script>alert(1)</script>"
OP = "aten::mm\"'&amp;<b>x</b>"
KERNEL_SQL = "'MatMulV3<script>alert(2)</script>' || CAST(X'9B' AS TEXT) || '&'"
KERNEL = b"MatMulV3<script>alert(2)</script>\x9b&"


def hostile_tree(schema, tmp):
    edits = (("(3,'Model')", "(3,'%s')" % MODULE), ("(8,'aten::mm')", "(8,'%s')" % OP.replace("'", "''")),
             ("(18,'MatMulV3')", "(18,%s)" % KERNEL_SQL))
    tree = os.path.join(tmp, "hostile")
    counts = build_edited(os.path.join(ROOT, "fixtures", "module_tree", "tree"), MODULE_TREE_SQL, edits,
                          os.path.join(tmp, "hostile_src"), tree, schema)
    for (old, _), n in zip(edits, counts):
        if n != 1:
            fails.append("hostile: %s not once in module_tree's SQL" % old)
    return tree


def hostile_case(schema, tmp):
    tree = hostile_tree(schema, tmp)
    out = os.path.join(tmp, "hostile_out")
    p = subprocess.run([OPMFU, "analyze", tree, "-o", out, "--export", "db,html", "-q"], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        fails.append("hostile: exit %d: %s" % (p.returncode, p.stderr))
        return
    page = check_page("hostile", os.path.join(out, REPORT), os.path.join(out, "cluster_analysis_output",
                                                                          "cluster_analysis.db"))
    if not page:
        return
    texts = [c[1] for rows in page.tables.values() for r in rows for c in r]
    for what, name in (("module path", MODULE), ("op", OP), ("module class", MODULE)):
        if not any(t == name or t.startswith(name + "/") or t.startswith(name + " ") for t in texts):
            fails.append("hostile: the %s %r is not shown as text" % (what, name))
    with open(os.path.join(out, REPORT), "rb") as f:
        raw = f.read()
    if b"<script>alert" in raw or b"<b>x</b>" in raw:
        fails.append("hostile: markup of a name is in the page unescaped")
    # a kernel's cell is its short name (templates dropped, base/kname.h), its title the whole name
    if shown_name(KERNEL) not in [r[1][2] for r in page.tables.get("hot-kernel", [])]:
        fails.append("hostile: kernel %r not in a title (kernels: %r)" % (
            shown_name(KERNEL), [r[1][2] for r in page.tables.get("hot-kernel", [])]))
    print("%-28s %s" % ("hostile", "ok" if not any(f.startswith("hostile") for f in fails) else "FAILED"))


def kept_on_failure(schema, tmp):
    """Every rank failing leaves an earlier page as it was."""
    tree = os.path.join(tmp, "keep_tree")
    build_tree(os.path.join(ROOT, "fixtures", "single_card", "tree"), tree, schema)
    out = os.path.join(tmp, "keep_out")
    subprocess.run([OPMFU, "analyze", tree, "-o", out, "--export", "html", "-q"], capture_output=True, timeout=120)
    page = os.path.join(out, REPORT)
    before = open(page, "rb").read() if os.path.exists(page) else None
    for root, _, files in os.walk(tree):
        for f in files:
            if f.endswith(".db"):
                with open(os.path.join(root, f), "wb") as fh:
                    fh.write(b"not a database")
    p = subprocess.run([OPMFU, "analyze", tree, "-o", out, "--export", "html", "-q"], capture_output=True,
                       timeout=120)
    after = open(page, "rb").read() if os.path.exists(page) else None
    if before is None or p.returncode == 0 or after != before:
        fails.append("failed run: exit %d, the earlier page %s" % (p.returncode, "kept" if after == before and before
                                                                    else "changed or missing"))
    print("%-28s %s" % ("failed run keeps the page", "ok" if not any(f.startswith("failed run") for f in fails)
                        else "FAILED"))


def size_case(tmp):
    if not GEN:
        return
    tree, out = os.path.join(tmp, "synth"), os.path.join(tmp, "synth_out")
    os.makedirs(tree)
    subprocess.run([GEN, "-o", tree, "--ranks", "1000", "--kernels", "200", "--layers", "2", "-q"], check=True)
    p = subprocess.run([OPMFU, "analyze", tree, "-o", out, "--export", "db,html", "-q"], capture_output=True,
                       text=True, timeout=600)
    if p.returncode != 0:
        fails.append("1,000 ranks: exit %d: %s" % (p.returncode, p.stderr[-300:]))
        return
    page = check_page("1,000 ranks", os.path.join(out, REPORT), os.path.join(out, "cluster_analysis_output",
                                                                              "cluster_analysis.db"))
    size = os.path.getsize(os.path.join(out, REPORT))
    if size > OPMFU_HTML_MAX_BYTES:
        fails.append("1,000 ranks: the page is %d bytes, over %d" % (size, OPMFU_HTML_MAX_BYTES))
    if page and len(page.tables.get("ranks-table", [])) != 8:
        fails.append("1,000 ranks: %d ranks shown, want 8" % len(page.tables.get("ranks-table", [])))
    print("%-28s %s (%d bytes)" % ("1,000 ranks", "ok" if not any(f.startswith("1,000") for f in fails)
                                   else "FAILED", size))


def main():
    with open(os.path.join(ROOT, "schema", "in", "ascend.sql"), encoding="utf-8") as f:
        schema = f.read()
    tmp = tempfile.mkdtemp(prefix="opmfu-html-")
    try:
        n, skipped = fixture_cases(schema, tmp)
        diff_case(schema, tmp)
        hostile_case(schema, tmp)
        kept_on_failure(schema, tmp)
        size_case(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d fixture pages checked, %d skipped" % (n, skipped))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
