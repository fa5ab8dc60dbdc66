#!/bin/sh
# parse as a job of the cluster, on the testbed: a stencil recorded with `contend collect`
# on 4 workstations (one capture each), then `contend testbed mpirun` starts one
# `contend parse --part .` per workstation (Open MPI's launcher, not a loop of ours), each
# parsing the capture written there; `contend parse --merge` must then give every profile
# file byte for byte as a single-process parse. Instance TESTBED_E2E_INSTANCE (default
# 24); the testbed is always brought down. E2E_KEEP_DIR=DIR keeps the run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads/ompi/stencil
INST=${TESTBED_E2E_INSTANCE:-24}
E2E_NAME=parse_parts_testbed
. "$TOP/tests/e2e/checks.inc"

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x "$WL" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: mpirun missing"; exit 77; }
e2e_workdir "${E2E_KEEP_DIR:-}" parts-tb
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }
up=1
$TB down >/dev/null 2>&1
$TB up -n 4 >"$T/up" 2>&1 || { fail up "$(tail -n 2 "$T/up")"; exit 0; }

R=$T/run
timeout -k 5 120 $TB mpirun -np 4 -- "$CONTEND" collect -q -o "$R" -- "$WL" -n 64 -i 20 -c 5 -q \
	>"$T/collect.out" 2>&1
ncap=$(ls "$R/capture" 2>/dev/null | wc -l)
check collect '[ "$ncap" -eq 4 ]' "$ncap captures: $(tail -n 3 "$T/collect.out")"
[ "$ncap" -eq 4 ] || exit 0

# one process per workstation, each naming its part after its own host
timeout -k 5 120 $TB mpirun -np 4 -- "$CONTEND" parse --part . "$R" >"$T/part.out" 2>&1
rc=$?
nparts=$(ls "$R/profile/parts" 2>/dev/null | grep -c '\.stats\.tsv$')
check parts '[ $rc -eq 0 ] && [ "$nparts" -eq 4 ]' "exit $rc, $nparts parts: $(tail -n 3 "$T/part.out")"
for c in "$R"/capture/*; do
	b=$(basename "$c")
	check "part-$b" '[ -s "$R/profile/parts/$b.stats.tsv" ] &&
		grep -q "part of node .${b%%.*}." "$T/part.out"' "no part of $b made on its node"
done

"$CONTEND" parse -q --merge "$R" >"$T/merge.out" 2>&1
rc=$?
check merge '[ $rc -eq 0 ] && [ -s "$R/profile/messages.tsv" ]' "exit $rc: $(tail -n 3 "$T/merge.out")"
"$CONTEND" parse -q -o "$T/single" "$R" >"$T/single.out" 2>&1
n=0 bad=""
for f in "$T"/single/*; do
	n=$((n + 1))
	cmp -s "$f" "$R/profile/$(basename "$f")" || bad="$bad $(basename "$f")"
done
check same-as-single '[ $n -ge 9 ] && [ -z "$bad" ]' "$n files, differing:$bad"
msgs=$(grep -vc '^#' "$R/profile/messages.tsv")
check messages '[ "$msgs" -gt 20 ]' "$msgs lines in messages.tsv"
