#!/usr/bin/env python3
"""`opmfu analyze --shard I/N` and `opmfu merge` (SPEC 22, docs/scale.md) on generated clusters.

The cluster: 7 Ascend ranks from gen_synth (step marks, collectives), ranks 4-6 moved two folders
down (nested), and a copy of rank 2 from another seed under a third folder with a later timestamp
in its name (a duplicated rank: discovery keeps the copy, SPEC 1.1, and says so).

Checked, for N = 1, 2, 3, 7 (N = 7: one rank per shard; with 7 ranks and N = 3 blocks of 2, 2, 3):
  * each shard runs as its own process, the shards in a shuffled order; shard I holds the ranks
    at sorted positions [(I-1)*n//N, I*n//N) (the contiguous blocks docs/scale.md promises,
    worked out here from the rank ids found), its stdout line says so, and its OpmfuShard rows
    name run 'ascend', I, N, 7 ranks and each rank's database;
  * the merge of the shards, given in another shuffled order, with --export db,xlsx,csv,json,html,
    equals one `opmfu analyze` of the cluster with the same exports: the md5 of every table's
    rows (tests/bench/table_md5.py, rowid order), the same files, every CSV and JSON Lines file
    byte for byte, and every workbook's cells (tests/tools/xlsx_cells.py: values, types, styles,
    charts), per-rank workbooks and opmfu_summary.xlsx;
  * N = 9 > 7 ranks: shards 1 and 2 of 9 hold no rank, say so, and the merge of all 9 is the same;
  * a missing shard: exit 3, `shard 2 of 3 missing: merged 5 of the 7 ranks of run 'ascend' from 2
    shards`, and the result holds exactly the ranks of shards 1 and 3;
  * a duplicated shard (a copy of shard 2 given beside it): exit 2, `rank 2 is in both A (shard
    2/3) and B (shard 2/3): give each shard once`, nothing written;
  * two empty shards of the same I: exit 2, `A and B are both shard 1/9`;
  * shards of two runs (a Kineto pair from gen_kineto is run kineto-w8-...): exit 2, the message
    naming both files and runs; shards of different N: exit 2;
  * tampered shard results: OpmfuShard dropped, a REAL cell made text (one the run account reads,
    and with --export db,csv ones it does not), a rank's OpmfuRankSummary
    row deleted, a column dropped, a row's rank_id changed, a file that is not a database: each
    exit 1 with its message naming the file and the table (the tampered cells with --export db,csv,
    which reads the tables: with the database alone the merge reads the ranks' packs);
  * the packs (OpmfuShardPack, OpmfuShardPackLayout; pack_tests): each kind of damage to a rank's
    blob, its row missing or NULL or text, the table dropped, another layout or format: exit 1
    with the exact message (file, rank, table, row, column); a shard without the pack tables (an
    older opmfu's) merges table by table to the single run's tables, and so does a junk pack
    under --export db,csv, which does not read packs;
  * a rank whose database is junk: its shard exits 3 and is written, the merge exits 3 ("1 of 7
    ranks failed") and equals the single run (every table's md5);
  * --model (N = 2, the shards given in reverse): the merge's OpmfuModel equals the single run's, all
    rows, the run's (rank_id NULL: the median rank's median step) too, by md5 and row for row, and
    so does every other table; the merge warns nothing; a shard analysed with other --model options
    (--global-batch 16) or without --model beside one with it: exit 2 naming both files, nothing
    written;
  * usage: --shard 0/3, 4/3, 3, x/2; --shard without -o; --shard with --export xlsx; merge
    without -o: exit 2 with their messages.
usage: shard_merge.py OPMFU GEN_SYNTH GEN_KINETO ROOT"""
import glob
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def run(args, code=0, err=None):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != code:
        fail("%s: exit %d, want %d; stderr: %s" % (" ".join(args), p.returncode, code, p.stderr.strip()))
    if err is not None and err not in p.stderr:
        fail("%s: stderr %r lacks %r" % (" ".join(args), p.stderr.strip(), err))
    return p


def out_of(d):
    return os.path.join(d, "cluster_analysis_output")


def dbs(d):
    return os.path.join(out_of(d), "cluster_analysis.db")


def md5s(root, d):
    return subprocess.run([sys.executable, os.path.join(root, "tests", "bench", "table_md5.py"), dbs(d)],
                          capture_output=True, text=True, check=True).stdout


def files(d):
    top = out_of(d)
    return sorted(os.path.relpath(os.path.join(a, f), top) for a, _, fs in os.walk(top) for f in fs)


def cells(root, path):
    return subprocess.run([sys.executable, os.path.join(root, "tests", "tools", "xlsx_cells.py"), path],
                          capture_output=True, check=True).stdout


def same_result(root, want, got, what):
    """The same tables, files, text exports byte for byte, workbooks cell for cell."""
    if md5s(root, want) != md5s(root, got):
        fail("%s: table md5s differ:\n%s\n%s" % (what, md5s(root, want), md5s(root, got)))
    fw, fg = files(want), files(got)
    if fw != fg:
        fail("%s: files differ: %s" % (what, sorted(set(fw) ^ set(fg))))
        return
    for f in fw:
        a, b = os.path.join(out_of(want), f), os.path.join(out_of(got), f)
        if f.endswith(".csv") or f.endswith(".jsonl") or f.endswith(".html"):
            if open(a, "rb").read() != open(b, "rb").read():
                fail("%s: %s differs" % (what, f))
        elif f.endswith(".xlsx") and cells(root, a) != cells(root, b):
            fail("%s: cells of %s differ" % (what, f))


def shard_rows(d):
    con = sqlite3.connect(dbs(d))
    rows = con.execute("SELECT run_id, source, shard, shards, run_ranks, rank_id, input FROM OpmfuShard "
                       "ORDER BY rowid").fetchall()
    con.close()
    return rows


def make_cluster(gen, work):
    base = os.path.join(work, "cluster")
    run([gen, "-o", base, "-r", "7", "-n", "120", "-l", "2", "-S", "-q"])
    other = os.path.join(work, "other")
    run([gen, "-o", other, "-r", "3", "-n", "90", "-l", "2", "-S", "-q", "-s", "5"])
    nested = os.path.join(base, "nodeB", "deeper")
    os.makedirs(nested)
    for d in sorted(glob.glob(os.path.join(base, "*_ascend_pt"))):
        rank = int(glob.glob(os.path.join(d, "ASCEND_PROFILER_OUTPUT", "*.db"))[0].rsplit("_", 1)[1][:-3])
        if rank >= 4:
            shutil.move(d, nested)
    # rank 2 again, another seed's, newer by its name's timestamp: it replaces the first
    src = [d for d in glob.glob(os.path.join(other, "*_ascend_pt"))
           if os.path.exists(os.path.join(d, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_2.db"))][0]
    os.makedirs(os.path.join(base, "nodeC"))
    dup = os.path.join(base, "nodeC", "node9_77_29990101000000000_ascend_pt")
    shutil.copytree(src, dup)
    return base, dup


def main():
    opmfu, gen, gen_kineto, root = sys.argv[1:5]
    rng = random.Random(22)
    with tempfile.TemporaryDirectory(prefix="shard-merge-") as work:
        base, dup = make_cluster(gen, work)
        single = os.path.join(work, "single")
        p = run([opmfu, "analyze", base, "-o", single, "-j", "2", "--export", "db,xlsx,csv,json,html"])
        want = "opmfu: warning: rank 2 found twice: using %s (newer timestamp), ignoring %s" % (
            dup, sorted(glob.glob(os.path.join(base, "node0_*_ascend_pt")))[2])
        if want not in p.stderr:
            fail("the duplicated rank 2: %r lacks %r" % (p.stderr, want))
        con = sqlite3.connect(dbs(single))
        ranks = [r for (r,) in con.execute("SELECT rank_id FROM OpmfuRankSummary ORDER BY rank_id")]
        inputs = dict(con.execute("SELECT rank_id, db_path FROM OpmfuRankSummary"))
        con.close()
        if ranks != list(range(7)) or dup not in inputs.get(2, ""):
            fail("the single run's ranks %r, rank 2 from %r (want the copy under nodeC)" % (ranks, inputs.get(2)))
        for n in (1, 2, 3, 7, 9):
            order = list(range(1, n + 1))
            rng.shuffle(order)
            shards = {}
            for i in order:
                d = os.path.join(work, "n%d_s%d" % (n, i))
                shards[i] = d
                p = run([opmfu, "analyze", base, "--shard", "%d/%d" % (i, n), "-o", d, "-j", "1"])
                held = ranks[(i - 1) * len(ranks) // n:i * len(ranks) // n]
                rows = shard_rows(d)
                got = [r[5] for r in rows if r[5] is not None]
                if got != held:
                    fail("N=%d shard %d holds %r, want %r" % (n, i, got, held))
                for r in rows:
                    if r[:5] != ("ascend", "ascend", i, n, 7):
                        fail("N=%d shard %d: OpmfuShard row %r" % (n, i, r))
                    if r[5] is not None and r[6] != inputs[r[5]]:
                        fail("N=%d shard %d: rank %d's input %r, want %r" % (n, i, r[5], r[6], inputs[r[5]]))
                span = " (%d-%d)" % (held[0], held[-1]) if held else ""
                want = "shard %d/%d of run ascend: %d of its 7 ranks%s, written to %s in " % (
                    i, n, len(held), span, dbs(d))
                if not p.stdout.startswith(want):
                    fail("N=%d shard %d says %r, want %r..." % (n, i, p.stdout, want))
            given = [shards[i] for i in order]
            rng.shuffle(given)
            merged = os.path.join(work, "merged%d" % n)
            run([opmfu, "merge"] + given + ["-o", merged, "--export", "db,xlsx,csv,json,html", "-q"])
            same_result(root, single, merged, "N=%d" % n)
            if n == 3:
                # merge --summary-only: the result of analyze --summary-only (docs/cli.md)
                summ = os.path.join(work, "summary_single")
                run([opmfu, "analyze", base, "-o", summ, "-j", "2", "-q", "--summary-only",
                     "--export", "db,xlsx,csv,json,html"])
                msumm = os.path.join(work, "summary_merged")
                run([opmfu, "merge"] + given + ["-o", msumm, "--summary-only", "--export", "db,xlsx,csv,json,html", "-q"])
                same_result(root, summ, msumm, "N=3 --summary-only")
                tabs = sorted(r for (r,) in sqlite3.connect(dbs(msumm)).execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"))
                if "OpmfuOps" in tabs or "OperatorMFU" in tabs or "OpmfuRun" not in tabs:
                    fail("merge --summary-only wrote the tables %r" % tabs)

        # --model: the merge makes OpmfuModel's run rows (rank_id NULL) from the median rank's
        # OpmfuModelRun rows, which its shard wrote, so every row equals the single run's
        model = ["--model", os.path.join(root, "tests", "models", "tree", "llama3_8b.json"), "--seq-len", "128",
                 "--global-batch", "8"]
        run([opmfu, "analyze", base, "-o", os.path.join(work, "model1"), "-q"] + model)
        for i in (1, 2):
            run([opmfu, "analyze", base, "--shard", "%d/2" % i, "-o", os.path.join(work, "model_s%d" % i), "-q"] + model)
        p = run([opmfu, "merge", os.path.join(work, "model_s2"), os.path.join(work, "model_s1"), "-o",
                 os.path.join(work, "model_m"), "-q"])
        if p.stderr:
            fail("--model: the merge says %r, want nothing" % p.stderr)
        want = sqlite3.connect(dbs(os.path.join(work, "model1"))).execute(
            "SELECT * FROM OpmfuModel ORDER BY rowid").fetchall()
        got = sqlite3.connect(dbs(os.path.join(work, "model_m"))).execute(
            "SELECT * FROM OpmfuModel ORDER BY rowid").fetchall()
        n_run = len([r for r in want if r[0] is None])
        # llama3_8b, a dense decoder: palm, kempnerforge and maxtext apply, verl-omni (diffusion) does not
        # (docs/model-mfu.md): one run row each
        if got != want or n_run != 3 or len(want) <= n_run:
            fail("--model: the merge's OpmfuModel (%d rows) is not the single run's %d rows (%d of the run)"
                 % (len(got), len(want), n_run))
        if md5s(root, os.path.join(work, "model1")) != md5s(root, os.path.join(work, "model_m")):
            fail("--model: table md5s differ:\n%s\n%s" % (md5s(root, os.path.join(work, "model1")),
                                                          md5s(root, os.path.join(work, "model_m"))))
        # the shards of one merge share the --model options (OpmfuShard.model)
        other = os.path.join(work, "model_b16")
        run([opmfu, "analyze", base, "--shard", "2/2", "-o", other, "-q"] + model[:-1] + ["16"])
        run([opmfu, "merge", os.path.join(work, "model_s1"), other, "-o", os.path.join(work, "model_no"), "-q"], 2,
            "opmfu: error: %s and %s were analysed with other --model options (OpmfuShard.model '"
            % (dbs(os.path.join(work, "model_s1")), dbs(other)))
        run([opmfu, "merge", os.path.join(work, "n2_s1"), os.path.join(work, "model_s2"), "-o",
             os.path.join(work, "model_no"), "-q"], 2,
            "opmfu: error: %s was analysed without --model, %s with: the shards of a merge are analysed with the "
            "same --model options\n" % (dbs(os.path.join(work, "n2_s1")), dbs(os.path.join(work, "model_s2"))))
        if os.path.exists(dbs(os.path.join(work, "model_no"))):
            fail("a refused --model merge wrote its result")

        # the database alone: the first shard's pages become the output's (SQLite's backup), and
        # what it holds besides the copied tables goes (docs/scale.md). Its other tool's table,
        # index, view and trigger are not in the merge, whose tables equal the single run's; the
        # pages they and the shard's own tables held are free in the output (freelist_count), which
        # a result built row by row never has. A first shard whose OperatorMFU was made by another
        # CREATE text (same columns) is copied row by row: the same tables, no free page.
        def tamper(name, sql):
            """A copy of shard 1 of 2 changed by sql; its database."""
            d = os.path.join(work, "t_" + name)
            shutil.copytree(os.path.join(work, "n2_s1"), d)
            con = sqlite3.connect(dbs(d))
            con.executescript(sql)
            con.commit()
            con.close()
            return dbs(d)

        def merged_db(name, sql):
            out = os.path.join(work, "seed_" + name + "_m")
            run([opmfu, "merge", os.path.join(work, "n2_s2"), tamper("seed_" + name, sql), "-o", out, "-q"])
            con = sqlite3.connect(dbs(out))
            names = sorted(r for (r,) in con.execute("SELECT name FROM sqlite_master"))
            free = con.execute("PRAGMA freelist_count").fetchone()[0]
            con.close()
            if md5s(root, single) != md5s(root, out):
                fail("seed %s: table md5s differ from the single run's" % name)
            want = sorted(r for (r,) in sqlite3.connect(dbs(single)).execute("SELECT name FROM sqlite_master"))
            if names != want:
                fail("seed %s: the merge holds %r, want the single run's %r" % (name, names, want))
            return free

        free = merged_db("other", "CREATE TABLE other_tool(x); INSERT INTO other_tool "
                         "SELECT randomblob(1000) FROM OperatorMFU; CREATE INDEX other_ix ON OperatorMFU(op_name); "
                         "CREATE VIEW other_v AS SELECT 1; CREATE TRIGGER other_t AFTER INSERT ON OpmfuSteps "
                         "BEGIN DELETE FROM other_tool; END;")
        if free == 0:
            fail("seed other: no free page in the merge: the first shard was not taken whole")
        free = merged_db("ddl", "ALTER TABLE OperatorMFU RENAME TO old_mfu; CREATE TABLE OperatorMFU AS "
                         "SELECT * FROM old_mfu ORDER BY rowid; DROP TABLE old_mfu; VACUUM;")
        if free != 0:
            fail("seed ddl: %d free pages: a shard of another CREATE text was taken whole" % free)

        # a rank that fails (its database junk): its shard is written (exit 3, as analyze), and the
        # merge equals the single run, which also exits 3
        broken = os.path.join(work, "broken")
        shutil.copytree(base, broken)
        db0 = glob.glob(os.path.join(broken, "node0_*_ascend_pt", "ASCEND_PROFILER_OUTPUT",
                                     "ascend_pytorch_profiler_0.db"))[0]
        open(db0, "w").write("junk\n")
        run([opmfu, "analyze", broken, "-o", os.path.join(work, "broken1"), "-q"], 3)
        run([opmfu, "analyze", broken, "--shard", "1/2", "-o", os.path.join(work, "broken_s1"), "-q"], 3,
            "opmfu: error: 1 of 3 ranks failed\n")
        run([opmfu, "analyze", broken, "--shard", "2/2", "-o", os.path.join(work, "broken_s2"), "-q"])
        run([opmfu, "merge", os.path.join(work, "broken_s2"), os.path.join(work, "broken_s1"), "-o",
             os.path.join(work, "broken_m"), "-q"], 3, "opmfu: error: 1 of 7 ranks failed\n")
        if md5s(root, os.path.join(work, "broken1")) != md5s(root, os.path.join(work, "broken_m")):
            fail("a failed rank: the merge differs from the single run")

        # a missing shard: the others merged, exit 3
        part = os.path.join(work, "part")
        run([opmfu, "merge", dbs(os.path.join(work, "n3_s3")), os.path.join(work, "n3_s1"), "-o", part, "-q"], 3,
            "opmfu: error: shard 2 of 3 missing: merged 5 of the 7 ranks of run 'ascend' from 2 shards\n")
        con = sqlite3.connect(dbs(part))
        got = [r for (r,) in con.execute("SELECT rank_id FROM OpmfuRankSummary ORDER BY rowid")]
        n_run = con.execute("SELECT ranks FROM OpmfuRun").fetchone()[0]
        con.close()
        if got != [0, 1, 4, 5, 6] or n_run != 5:
            fail("the partial merge holds ranks %r (OpmfuRun.ranks %r), want [0, 1, 4, 5, 6] and 5" % (got, n_run))

        # a duplicated shard: refused, nothing written
        copy = os.path.join(work, "copy_s2")
        shutil.copytree(os.path.join(work, "n3_s2"), copy)
        nothing = os.path.join(work, "nothing")
        run([opmfu, "merge", os.path.join(work, "n3_s1"), os.path.join(work, "n3_s2"), copy,
             os.path.join(work, "n3_s3"), "-o", nothing], 2,
            "opmfu: error: rank 2 is in both %s (shard 2/3) and %s (shard 2/3): give each shard once\n"
            % (dbs(os.path.join(work, "n3_s2")), dbs(copy)))
        if os.path.exists(dbs(nothing)):
            fail("a refused merge wrote %s" % dbs(nothing))
        run([opmfu, "merge", os.path.join(work, "n9_s1"), os.path.join(work, "n9_s1"), "-o", nothing], 2,
            "opmfu: error: %s and %s are both shard 1/9: give each shard once\n"
            % (dbs(os.path.join(work, "n9_s1")), dbs(os.path.join(work, "n9_s1"))))

        # shards of two runs, and of two N
        kin = os.path.join(work, "kineto")
        os.makedirs(kin)
        for r in (0, 1):
            subprocess.run([gen_kineto, os.path.join(kin, "rank%d.pt.trace.json" % r), "50", "--rank", str(r)],
                           capture_output=True, check=True)
        ks = os.path.join(work, "k_s1")
        run([opmfu, "analyze", kin, "--shard", "1/2", "-o", ks, "-q"])
        krun = shard_rows(ks)[0][0]
        if not krun.startswith("kineto-w"):
            fail("the Kineto pair's run is %r" % krun)
        run([opmfu, "merge", ks, os.path.join(work, "n2_s2"), "-o", nothing], 2,
            "opmfu: error: %s is a shard of run '%s' (kineto), %s of run 'ascend' (ascend): a merge is of one run\n"
            % (dbs(ks), krun, dbs(os.path.join(work, "n2_s2"))))
        run([opmfu, "merge", os.path.join(work, "n2_s1"), os.path.join(work, "n3_s3"), "-o", nothing], 2,
            "opmfu: error: %s is shard 1/2 of 7 ranks, %s shard 3/3 of 7: the shards of a merge are cut from the "
            "same ranks into the same N\n" % (dbs(os.path.join(work, "n2_s1")), dbs(os.path.join(work, "n3_s3"))))
        if os.path.exists(dbs(nothing)):
            fail("a refused merge wrote %s" % dbs(nothing))

        # tampered shard results (tamper, above): each names the file and the table
        s2 = os.path.join(work, "n2_s2")
        t = tamper("noshard", "DROP TABLE OpmfuShard")
        run([opmfu, "merge", t, s2, "-o", nothing], 1, "opmfu: error: %s: not a shard result (no OpmfuShard rows): "
            "'opmfu analyze --shard I/N -o DIR' writes one\n" % t)
        # OpmfuModules feeds the run account (its hotspots read self_mfu, not mfu): with the database
        # alone the merge copies it and reads the rank's rows from its pack (OpmfuShardPack, below);
        # with another export it reads them from the table, and checks them
        t = tamper("text", "UPDATE OpmfuModules SET self_mfu = 'high' WHERE rowid = 3")
        run([opmfu, "merge", t, s2, "-o", nothing, "--export", "db,csv"], 1,
            "opmfu: error: %s: OpmfuModules row 3: self_mfu is not a number\n" % t)
        t = tamper("text_mfu", "UPDATE OpmfuModules SET mfu = 'high' WHERE rowid = 3")
        run([opmfu, "merge", t, s2, "-o", nothing, "--export", "db,csv"], 1,
            "opmfu: error: %s: OpmfuModules row 3: mfu is not a number\n" % t)
        # OpmfuOps feeds no per-run analysis: the database alone copies it as it is; with another
        # export it is read back rank by rank, and checked
        # (its view's mfu is the stored one where a row has it: docs/output-schema.md)
        t = tamper("text_ops", "UPDATE OpmfuOps_rows SET mfu = 'high' WHERE rowid = 3")
        run([opmfu, "merge", t, s2, "-o", nothing, "--export", "db,csv"], 1,
            "opmfu: error: %s: OpmfuOps row 3: mfu is not a number\n" % t)
        t = tamper("copy_col", "ALTER TABLE OperatorMFU DROP COLUMN op_name")
        run([opmfu, "merge", t, s2, "-o", nothing], 1,
            "opmfu: error: %s: cannot copy OperatorMFU: no such column: op_name\n" % t)
        t = tamper("nosum", "DELETE FROM OpmfuRankSummary WHERE rank_id = 1")
        run([opmfu, "merge", t, s2, "-o", nothing, "--export", "db,csv"], 1,
            "opmfu: error: %s: OpmfuRankSummary has 0 rows for rank 1, not one\n" % t)
        t = tamper("nocol", "ALTER TABLE OpmfuKernels DROP COLUMN kernel_ns")
        run([opmfu, "merge", t, s2, "-o", nothing], 1, "opmfu: error: %s: table OpmfuKernels has no column "
            "kernel_ns: not a complete shard result\n" % t)
        t = tamper("rank", "UPDATE OpmfuModules SET rank_id = 99 WHERE rowid = (SELECT max(rowid) FROM OpmfuModules)")
        n_mod = sqlite3.connect(t).execute("SELECT count(*) FROM OpmfuModules").fetchone()[0]
        run([opmfu, "merge", t, s2, "-o", nothing, "--export", "db,csv"], 1, "opmfu: error: %s: OpmfuModules row %d: "
            "rank 99 is not one of the shard's ranks (OpmfuShard), or out of rank order\n" % (t, n_mod))
        t = tamper("notable", "DROP TABLE OpmfuCollCalls")
        run([opmfu, "merge", t, s2, "-o", nothing], 1,
            "opmfu: error: %s: no table OpmfuCollCalls: not a complete shard result\n" % t)
        pack_tests(opmfu, root, work, single, tamper, s2, nothing)
        junk = os.path.join(work, "junk.db")
        open(junk, "w").write("not a database\n")
        run([opmfu, "merge", junk, s2, "-o", nothing], 1,
            "opmfu: error: %s: not an SQLite database, so not a shard result\n" % junk)
        if os.path.exists(dbs(nothing)):
            fail("a failed merge wrote %s" % dbs(nothing))

        # usage
        for bad in ("0/3", "4/3", "3", "x/2"):
            run([opmfu, "analyze", base, "--shard", bad, "-o", nothing], 2,
                "opmfu: error: --shard: '%s' is not I/N with 1 <= I <= N <= 1000000 (I counts from 1, as "
                "SLURM_ARRAY_TASK_ID of --array=1-N)\n" % bad)
        run([opmfu, "analyze", base, "--shard", "1/2"], 2, "opmfu: error: --shard needs -o DIR: each shard writes a "
            "result of its own for 'opmfu merge'\n")
        run([opmfu, "analyze", base, "--shard", "1/2", "-o", nothing, "--export", "db,xlsx"], 2,
            "opmfu: error: --shard writes the shard result database alone (--export db); 'opmfu merge --export ...' "
            "writes the others\n")
        run([opmfu, "merge", s2], 2, "opmfu: error: merge needs -o DIR: where to write the merged result\n")
    return verdict()


def pack_tests(opmfu, root, work, single, tamper, s2, nothing):
    """A shard's packed ranks (OpmfuShardPack, OpmfuShardPackLayout: docs/scale.md), which the merge
    reads with the database alone: a pack of any bytes is refused naming the file, the rank and the
    table; a shard without the packs (an older opmfu's) is read table by table, the same result."""
    def tamper_pack(name, rank, change):
        """Shard 1 of 2 with rank's pack replaced by change(pack)."""
        t = tamper(name, "")
        con = sqlite3.connect(t)
        (blob,) = con.execute("SELECT pack FROM OpmfuShardPack WHERE rank_id = ?", (rank,)).fetchone()
        con.execute("UPDATE OpmfuShardPack SET pack = ? WHERE rank_id = ?", (change(bytes(blob)), rank))
        con.commit()
        con.close()
        return t

    con = sqlite3.connect(dbs(os.path.join(work, "n2_s1")))
    (layout,) = con.execute("SELECT layout FROM OpmfuShardPackLayout").fetchone()
    ranks = [r for (r,) in con.execute("SELECT rank_id FROM OpmfuShardPack ORDER BY rowid")]
    con.close()
    if ranks != [0, 1, 2] or not layout.startswith("OpmfuModules(rank_id I,"):
        fail("shard 1 of 2 packs ranks %s, layout %r" % (ranks, layout[:60]))
    prefix = "opmfu: error: %s: OpmfuShardPack, rank 1: "
    # a pack's first bytes: OpmfuModules' row count, then row 1's rank_id (tag 1, zigzag varint 2)
    cases = [
        ("pack_empty", lambda b: b"", "table OpmfuModules: the pack ends before its row count"),
        ("pack_rows", lambda b: b"\x05", "table OpmfuModules: 5 rows, more than the 0 bytes left of the pack "
         "could hold"),
        ("pack_more", lambda b: b + b"\x00", "bytes after its last table"),
        ("pack_type", lambda b: b[:1] + b"\x03" + b[2:], "table OpmfuModules row 1, rank_id: not an integer"),
        ("pack_tag", lambda b: b[:1] + b"\x09" + b[2:], "table OpmfuModules row 1, rank_id: a value of no known "
         "type (tag past 4)"),
        # tag 4 repeats the row before's value: the first row has none
        ("pack_same", lambda b: b[:1] + b"\x04" + b[3:], "table OpmfuModules row 1, rank_id: the value of the row "
         "before, which has none"),
        ("pack_rank", lambda b: b[:2] + b"\x04" + b[3:], "table OpmfuModules row 1, rank_id: not the pack's rank"),
        ("pack_varint", lambda b: b[:2] + b"\xff" * 11 + b[3:], "table OpmfuModules row 1, rank_id: an integer "
         "that runs past the pack's end or 64 bits"),
        # OpmfuModules' module (a text) follows rank_id: its length past the end
        ("pack_text", lambda b: b[:3] + b"\x03\xff\xff\x7f" + b[4:], "table OpmfuModules row 1, module: a text whose "
         "length runs past the pack's end, or not ended by a NUL"),
    ]
    for name, change, msg in cases:
        t = tamper_pack(name, 1, change)
        run([opmfu, "merge", t, s2, "-o", nothing], 1, prefix % t + msg + "\n")
    # the cut pack: whatever the last value, the message names the rank and a table of the layout
    t = tamper_pack("pack_cut", 1, lambda b: b[:len(b) // 2])
    p = run([opmfu, "merge", t, s2, "-o", nothing], 1, prefix % t + "table Opmfu")
    if "the pack ends" not in p.stderr and "past the pack's end" not in p.stderr and "more than" not in p.stderr:
        fail("the cut pack: %r" % p.stderr)
    t = tamper("pack_norow", "DELETE FROM OpmfuShardPack WHERE rank_id = 1")
    run([opmfu, "merge", t, s2, "-o", nothing], 1,
        "opmfu: error: %s: OpmfuShardPack has no row for rank 1, not one pack\n" % t)
    t = tamper("pack_null", "UPDATE OpmfuShardPack SET pack = NULL WHERE rank_id = 1")
    run([opmfu, "merge", t, s2, "-o", nothing], 1,
        "opmfu: error: %s: OpmfuShardPack has more rows, or a NULL pack, for rank 1, not one pack\n" % t)
    t = tamper("pack_text_cell", "UPDATE OpmfuShardPack SET pack = 'abc' WHERE rank_id = 1")
    run([opmfu, "merge", t, s2, "-o", nothing], 1, "opmfu: error: %s: OpmfuShardPack row 2: pack is not a blob\n" % t)
    t = tamper("pack_notable", "DROP TABLE OpmfuShardPack")
    run([opmfu, "merge", t, s2, "-o", nothing], 1,
        "opmfu: error: %s: no table OpmfuShardPack: not a complete shard result\n" % t)
    # a shard packed otherwise: refused, naming the table packed otherwise
    t = tamper("pack_layout", "UPDATE OpmfuShardPackLayout SET layout = replace(layout, 'OpmfuKernels(rank_id I,', "
               "'OpmfuKernels(rank_id I,extra R,')")
    part = [x for x in layout.replace("OpmfuKernels(rank_id I,", "OpmfuKernels(rank_id I,extra R,").split(";")
            if x.startswith("OpmfuKernels(")][0]
    run([opmfu, "merge", t, s2, "-o", nothing], 1, "opmfu: error: %s: OpmfuShardPackLayout: table OpmfuKernels is "
        "not packed as this opmfu packs it ('%s'): a shard of another opmfu; analyse it again with this one\n"
        % (t, part[:200]))
    t = tamper("pack_format", "UPDATE OpmfuShardPackLayout SET format = 2")
    run([opmfu, "merge", t, s2, "-o", nothing], 1, "opmfu: error: %s: OpmfuShardPackLayout: format 2, not 1: a shard "
        "of another opmfu; analyse it again with this one\n" % t)
    if os.path.exists(dbs(nothing)):
        fail("a merge refusing a pack wrote %s" % dbs(nothing))
    # without the packs (a shard of an opmfu before them): read table by table, the same result;
    # and a pack is only read with the database alone: with CSV too the tables are read
    old = tamper("pack_none", "DROP TABLE OpmfuShardPack; DROP TABLE OpmfuShardPackLayout")
    out = os.path.join(work, "pack_none_m")
    run([opmfu, "merge", old, s2, "-o", out, "-q"])
    if md5s(root, single) != md5s(root, out):
        fail("a merge of a shard without packs differs from the single run")
    t = tamper_pack("pack_csv", 1, lambda b: b"")
    out = os.path.join(work, "pack_csv_m")
    run([opmfu, "merge", t, s2, "-o", out, "-q", "--export", "db,csv"])
    if md5s(root, single) != md5s(root, out):
        fail("a merge with --export db,csv of a shard with a junk pack differs from the single run")


def verdict():
    """The exit status of a test of this family: 1 after any failure."""
    if fails:
        print("%d failure(s)" % len(fails))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
