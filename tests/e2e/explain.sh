#!/bin/sh
# explain names an injected cause on the testbed: a stencil is recorded dedicated and with a
# CPU-bound competitor inside ws2; explain must put "cpu" on ws2 first for the loaded run
# (also against the dedicated run as baseline), and for the dedicated run no cpu, link or
# imbalance cause may cost 5 % of the run or more; the loaded run parsed again with the
# generic decoder must still have cpu on ws2 first. Instance TESTBED_E2E_INSTANCE (default
# 15); the testbed is always brought down. EXPLAIN_E2E_KEEP=DIR keeps the runs in DIR.
#
# Setup as e2e/predict_testbed: two workstations, each with its own core at 100 % (no quota
# cutting busy phases), one rank each, the competitor sharing only the loaded rank's core.
# A plain parse: explain rebuilds the busy phases by demand from the samples itself.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads/ompi/stencil
INST=${TESTBED_E2E_INSTANCE:-15}
KEEP=${EXPLAIN_E2E_KEEP:-}
E2E_NAME=explain
. "$TOP/tests/e2e/checks.inc"
e2e_workdir "$KEEP" explain

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x "$WL" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }
[ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" -ge 2 ] ||
	{ echo "skipped: needs 2 cores (one per workstation)"; exit 77; }
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }
up=1
$TB down >/dev/null 2>&1
$TB up -n 2 --cpus 1=0 --cpus 2=1 --cpu-pct all=100 >"$T/up" 2>&1 || { fail up "$(tail -n 2 "$T/up")"; exit 0; }
G=/sys/fs/cgroup/cpu/contend-testbed-$INST
[ -w "$G/cpu.shares" ] && echo 262144 >"$G/cpu.shares"

record() {	# dir
	$TB mpirun -np 2 -- "$CONTEND" collect -q -o "$1" -- "$WL" -n 64 -i 30 -c 50 -q >"$1.out" 2>&1 &&
		"$CONTEND" parse "$1" >"$1.parse" 2>&1
	[ -s "$1/profile/ranks.tsv" ]
}
# the first cause row of an explain.tsv: kind host pct
first_cause() {
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $1 != "measured" { print $1, $3, $7; exit }' "$1"
}

record "$T/ded" || { fail dedicated-run "$(tail -n 3 "$T/ded.out" "$T/ded.parse")"; exit 0; }
$TB load ws2 --cpu 1 >/dev/null || { fail load "cannot start the competitor"; exit 0; }
sleep 0.3
record "$T/cpu1"
rc=$?
$TB unload >/dev/null 2>&1
[ $rc -eq 0 ] || { fail loaded-run "$(tail -n 3 "$T/cpu1.out" "$T/cpu1.parse")"; exit 0; }
ws2=c${INST}ws2

for run in cpu1 ded; do
	"$CONTEND" explain "$T/$run" >"$T/$run.explain" 2>&1 ||
		{ fail "$run-explain" "$(tail -n 2 "$T/$run.explain")"; continue; }
	sed "s/^/note: $run: /" "$T/$run.explain" | head -n 14
done
top=$(first_cause "$T/cpu1/explain.tsv")
check loaded-cpu-ws2-first '[ "${top% *}" = "cpu $ws2" ]' "first cause: ${top:-none}"
# the dedicated run: no contention cause at 5 % or more
# (a failure on a busy machine is a skip: other work on it takes CPU from the 'dedicated'
# run too, a real cause that explain rightly names)
big=$(awk -F'\t' 'NR > 2 && ($1 == "cpu" || $1 == "link" || $1 == "imbalance") && $7 >= 5 { print $1, $3, $7 }' "$T/ded/explain.tsv")
ncpu=$(getconf _NPROCESSORS_ONLN)
load=$(for f in "$T"/ded/samples/node-*.tsv.gz; do zcat "$f"; done 2>/dev/null |
	awk -F'\t' '$3 ~ /^[0-9.]+$/ && $3 > m { m = $3 } END { print m + 0 }')
if [ -z "$big" ] || awk -v l="$load" -v n="$ncpu" 'BEGIN { exit !(l <= n) }'; then
	check dedicated-no-cause-above-5pct '[ -z "$big" ]' "$big"
else
	echo "SKIP e2e/explain/dedicated-no-cause-above-5pct: skipped: $big, with the machine's load1 at $load on $ncpu cores during the dedicated run"
fi
# against the dedicated run as baseline
if "$CONTEND" explain "$T/cpu1" --baseline "$T/ded" >"$T/base.explain" 2>&1; then
	sed "s/^/note: baseline: /" "$T/base.explain" | head -n 14
	top=$(first_cause "$T/cpu1/explain.tsv")
	check baseline-cpu-ws2-first '[ "${top% *}" = "cpu $ws2" ]' "first cause: ${top:-none}"
	# collect's agents' start times are in the ranks' meta: what they held the start-up is
	# said apart (an observer row, collect's own start-up line), not ranked as a cause
	obs=$(awk -F'\t' '$1 == "observer" && $8 ~ /^its agents held the start-up [0-9.]+ s, starting their ranks/' "$T/cpu1/explain.tsv")
	check observer-said-apart '[ -n "$obs" ] && grep -q "^collect.s own start-up .*not a cause of the program.s" "$T/base.explain" &&
		! awk -F"\t" "NR > 2 && \$1 ~ /^(cpu|link|imbalance|startup|finish)\$/ { n++ } \$1 == \"observer\" && !n { bad = 1 } END { exit !bad }" "$T/cpu1/explain.tsv"' \
		"no observer row or line: $(grep -c . "$T/cpu1/explain.tsv") rows"
	# estimated against measured: the cpu cost against the loaded minus the dedicated time
	awk -F'\t' -v ded="$(awk -F'\t' '$1 == "baseline" { print $6 }' "$T/cpu1/explain.tsv")" '
		$1 == "measured" { m = $6 } $1 == "cpu" && c == "" { c = $6 }
		END { printf "note: cpu cost %.3f s estimated, %.3f s measured (loaded %.3f s - dedicated %.3f s)\n",
			c / 1e9, (m - ded) / 1e9, m / 1e9, ded / 1e9 }' "$T/cpu1/explain.tsv"
else
	fail baseline-explain "$(tail -n 2 "$T/base.explain")"
fi

# the same loaded run through the generic decoder (paper 003's byte runs, no MPI headers):
# explain still names the competitor
cp -a "$T/cpu1" "$T/gen" && rm -rf "$T/gen/profile" "$T/gen/explain.tsv"
if "$CONTEND" parse -q --force --mpi generic "$T/gen" >"$T/gen.parse" 2>&1; then
	dec=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ { n[$11 == "generic" ? "generic" : "other"]++ }
		END { printf "%d %d", n["generic"], n["other"] }' "$T/gen/profile/messages.tsv" 2>/dev/null)
	check generic-decoded '[ "${dec#* }" = 0 ] && [ "${dec% *}" -gt 0 ]' "messages generic/other: ${dec:-none}"
	if "$CONTEND" explain "$T/gen" >"$T/gen.explain" 2>&1; then
		top=$(first_cause "$T/gen/explain.tsv")
		check generic-cpu-ws2-first '[ "${top% *}" = "cpu $ws2" ]' "first cause: ${top:-none}"
	else
		fail generic-explain "$(tail -n 2 "$T/gen.explain")"
	fi
else
	fail generic-parse "$(tail -n 2 "$T/gen.parse")"
fi
