#!/bin/sh
# The merge against the analysis (docs/scale.md): OPMFU analyses RUN as 4 shards once, then
# times `analyze -j 1` of the whole run and `merge` of the shards in alternation, 3 rounds
# (/usr/bin/time: wall, user, sys, peak RSS), and prints both results' table md5s, which must
# be equal. Usage: merge_bench.sh OPMFU RUN WORK
set -eu
B=$1 T=$2 W=$3
mkdir -p "$W"
for i in 1 2 3 4; do rm -rf "$W/s$i"; "$B" analyze "$T" --shard "$i/4" -o "$W/s$i" -q -j 1 2>/dev/null; done
for r in 1 2 3; do
	rm -rf "$W/a" "$W/m"
	/usr/bin/time -f "analyse r$r wall %e user %U sys %S rss %M" "$B" analyze "$T" -o "$W/a" -q -j 1 2>&1 | grep "r$r"
	/usr/bin/time -f "merge r$r wall %e user %U sys %S rss %M" "$B" merge "$W/s1" "$W/s2" "$W/s3" "$W/s4" -o "$W/m" -q 2>&1 | grep "r$r"
done
for d in a m; do python3 "$(dirname "$0")/table_md5.py" "$W/$d/cluster_analysis_output/cluster_analysis.db" | md5sum; done
