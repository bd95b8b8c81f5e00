#!/usr/bin/env python3
"""The report fits one screen whatever the number of ranks (issue 20): on
synthetic clusters of 8 and of 1,000 ranks (tests/tools/gen_synth.c) it has
the same number of lines, at most 56 (45, the peak and where it came from,
issue 26, the five parts of the waterfall's shares, issue 28, its memory-bound
part, issue 29, the waiting for other ranks, a collective hotspot and the rank
the others wait for, issue 30), none wider than 120 characters; with 8
ranks one row per rank, with 1,000 the median, best and worst ranks and the
five slowest; the waterfall's five shares and trace MFU sum to 100 % (to the
rounding of the printed tenths). With --model (a tiny llama config) the
model section adds at most six lines, one row per convention, the same
for 8 and 1,000 ranks.
usage: report_length.py OPMFU GEN_SYNTH"""
import re
import shutil
import subprocess
import sys
import tempfile

SHARE = re.compile(r"^  (useful math|FLOP kernels below|busy without|communication not|idle device).*? "
                   r"(\d+\.\d)%")


CONFIG = ('{"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, '
          '"intermediate_size": 128, "vocab_size": 256}')


def report(opmfu, gen, tmp, ranks, kernels, model=None):
    tree, out = "%s/t%d" % (tmp, ranks), "%s/o%d%s" % (tmp, ranks, "m" if model else "")
    if not model:
        subprocess.run([gen, "-o", tree, "--ranks", str(ranks), "--kernels", str(kernels), "--layers", "2", "-q"],
                       check=True, capture_output=True)
    more = ["--model", model, "--seq-len", "128", "--global-batch", "2"] if model else []
    p = subprocess.run([opmfu, "analyze", tree, "-o", out] + more, capture_output=True, text=True, timeout=300)
    if p.returncode:
        raise SystemExit("exit %d: %s" % (p.returncode, p.stderr))
    return p.stdout.splitlines()


def main():
    opmfu, gen = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="opmfu-report-")
    fails = []
    try:
        few, many = report(opmfu, gen, tmp, 8, 400), report(opmfu, gen, tmp, 1000, 60)
        if len(few) != len(many) or len(few) > 56:
            fails.append("lengths %d (8 ranks) and %d (1000 ranks)" % (len(few), len(many)))
        for name, lines in (("8", few), ("1000", many)):
            wide = [l for l in lines if len(l) > 120]
            if wide:
                fails.append("%s ranks: %d lines wider than 120: %r" % (name, len(wide), wide[0]))
            shares = [float(m.group(2)) for m in map(SHARE.match, lines) if m]
            if len(shares) != 5 or abs(sum(shares) - 100) > 0.3:
                fails.append("%s ranks: waterfall %r does not sum to 100 %%" % (name, shares))
        rows = [l.split()[0] for l in few if re.match(r"^\d+ +\d+ ", l)]
        if rows != [str(r) for r in range(8)]:
            fails.append("8 ranks: rows %r" % rows)
        labels = [l.split()[0] for l in many if re.match(r"^(median|best|worst|slow) \d+ ", l)]
        if labels != ["median", "best", "worst"] + ["slow"] * 5:
            fails.append("1000 ranks: rows %r" % labels)
        config = "%s/config.json" % tmp
        with open(config, "w") as f:
            f.write(CONFIG)
        few_m, many_m = report(opmfu, gen, tmp, 8, 400, config), report(opmfu, gen, tmp, 1000, 60, config)
        if len(few_m) != len(many_m) or len(few_m) > len(few) + 6:
            fails.append("--model: lengths %d (8 ranks) and %d (1000 ranks), %d without" %
                         (len(few_m), len(many_m), len(few)))
        for name, lines in (("8", few_m), ("1000", many_m)):
            wide = [l for l in lines if len(l) > 120]
            if wide:
                fails.append("--model, %s ranks: %d lines wider than 120: %r" % (name, len(wide), wide[0]))
            conv = [l.split()[0] for l in lines if re.match(r"^  (palm|kempnerforge|maxtext) ", l)]
            if conv != ["palm", "kempnerforge", "maxtext"]:
                fails.append("--model, %s ranks: convention rows %r" % (name, conv))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print(f)
    print("report_length: %s" % ("ok" if not fails else "%d failures" % len(fails)))
    return 1 if fails else 0


sys.exit(main())
