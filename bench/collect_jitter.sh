#!/bin/sh
# Sampling jitter: run `contend collect` on an idle process for DUR seconds and print the
# distribution of intervals between samples (target: median 20 ms, p99 within 2 ms on an
# idle node). Usage: sh bench/collect_jitter.sh [DURATION_S] (BUILD=build-x to pick a build)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
CONTEND=${CONTEND:-$TOP/${BUILD:-build}/contend}
DUR=${1:-20}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$CONTEND" collect -q --no-capture -o "$T/run" -- sleep "$DUR" || exit 1
echo "load before/after: $(cat /proc/loadavg)"
zcat "$T/run/samples/rank-0.tsv.gz" | awk -F'\t' 'NR > 2 && $1 !~ /^#/ { print $1 }' | uniq |
awk 'NR > 1 { printf "%.3f\n", ($1 - p) / 1e6 } { p = $1 }' | sort -n |
awk '{ a[NR] = $1 } END {
	printf "intervals %d  min %.3f ms  p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms\n",
		NR, a[1], a[int(NR * 0.5)], a[int(NR * 0.9)], a[int(NR * 0.99)], a[NR] }'
awk -F'\t' '$1 == "samples_missed" { print "missed slots " $2 }' "$T/run/meta/rank-0.tsv"
