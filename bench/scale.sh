#!/bin/sh
# bench/scale.sh: how each stage grows with the size of a run. For each size (ranks), a run is
# generated with `parse_gen -R` (N ranks on N/4 nodes, at least 4 ranks per node past 16,
# PATTERN for SECONDS, Open MPI or MPICH framing, framed captures) and parsed three ways, each timed
# with /usr/bin/time (wall seconds, peak RSS):
#   j1       contend parse -j 1 RUN
#   jN       contend parse -j JOBS RUN                  (JOBS: the CPUs available)
#   parts    contend parse --part NODE RUN for every node one after the other (the slowest
#            and the largest part: what one node of a cluster job costs), then --merge
#            (-j JOBS)
# The steps after the captures, from parse --times, for j1 and jN: m1_s / mN_s the merge
# (the parts' messages into messages.tsv and the sums), s1_s / sN_s the samples
# (phases.tsv); `after` is (m1 + s1) / (mN + sN), how much the -j threads shorten them, and
# `speedup` is j1_s / jN_s. Then the replay (predict/replay.h) on the profile: bench/replay_rate's CPU
# seconds to build the trace (r_init_s) and to replay it once (r_run_s), the slower of its
# two readings (predict's and explain's), and r_Meps, millions of events (a send and a
# receive per message) per second for both together: the target is at least 5. Then the
# stages after parse on the run (its profile from parse -j 1), each timed as above:
#   pred     contend predict RUN --scenario S (every model, the replay among them; S: one
#            CPU-bound competitor on the first node and its link to the second capped at
#            100 Mbit/s)
#   expl     contend explain -q RUN
#   rep      contend report -q --no-png RUN
# A stage that exits other than 0 (parse: other than 0 or 1, a partial result) or leaves
# no output (RUN/predict/S.tsv, RUN/explain.tsv, RUN/report.pdf, a profile) shows as
# "failed" in the table, its exit status and stderr's last line on stderr. Last, the
# growth exponents of each time and peak memory (the slope of log value against log
# messages and against log ranks, between the first and the last size and between the last
# two: 1 is linear; the first sizes are mostly fixed costs).
#
#   make bench && sh bench/scale.sh               # 4 32 256 1024 ranks (long: a quiet machine)
#   SIZES="4 32" SECONDS_RUN=2 sh bench/scale.sh  # the plumbing, in seconds
#
# Environment: SIZES, PATTERN (halo|alltoall|irregular, default halo), MPI (ompi|mpich,
# default ompi: the framing on the wire), SECONDS_RUN (10),
# MSG_BYTES (4096), JOBS, WORK (scratch directory, default a fresh one in /tmp, removed),
# BUILD (build).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
BUILD=${BUILD:-build}
CONTEND=$TOP/$BUILD/contend
GEN=$TOP/$BUILD/bench/parse_gen
RATE=$TOP/$BUILD/bench/replay_rate
SIZES=${SIZES:-4 32 256 1024}
PATTERN=${PATTERN:-halo}
MPI=${MPI:-ompi}
SECONDS_RUN=${SECONDS_RUN:-10}
MSG_BYTES=${MSG_BYTES:-4096}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
TIME=/usr/bin/time

[ -x "$CONTEND" ] && [ -x "$GEN" ] && [ -x "$RATE" ] || { echo "bench/scale: make bench first" >&2; exit 2; }
[ -x "$TIME" ] || { echo "bench/scale: needs $TIME (Debian package time)" >&2; exit 2; }
bench_workdir scale
: >"$W/failed"

# timed NAME CMD...: run CMD, append "NAME seconds peak_kB exit merge_s samples_s" to
# $W/times (the last two from parse --times, 0 without); its exit status in last_rc
timed() {
	name=$1; shift
	$TIME -f '%e %M' -o "$W/t.out" "$@" >/dev/null 2>"$W/t.err"
	last_rc=$?
	steps=$(awk '/^parse: times:/ { for (i = 3; i < NF; i++) { if ($i == "merge") m = $(i + 1)
		if ($i == "samples") s = $(i + 1) } } END { printf "%s %s", m + 0, s + 0 }' "$W/t.err")
	echo "$name $(tail -n 1 "$W/t.out") $last_rc $steps" >>"$W/times"
}
# need NAME MAX_EXIT FILE: NAME failed at this size unless its last exit status was at
# most MAX_EXIT and it wrote FILE (not empty); a failed stage is "failed" in the table
need() {
	[ "$last_rc" -le "$2" ] && [ -s "$3" ] && return 0
	grep -qx "$1" "$W/failed" || echo "$1" >>"$W/failed"
	why=$(grep -v '^$' "$W/t.err" | tail -n 1)
	[ -s "$3" ] || why="no $(basename "$3"); $why"
	echo "bench/scale: $1 failed at $n ranks: exit $last_rc: $why" >&2
}
# get NAME FIELD: seconds (2), peak MB (3), merge (5) or samples seconds (6) of a timed
# step; for parts, the largest; "failed" when the step failed
get() {
	if grep -qx "$1" "$W/failed"; then echo failed; return; fi
	awk -v n="$1" -v f="$2" '$1 == n { v = f == 3 ? $3 / 1024 : $f; if (v > m) m = v } END { printf "%.2f", m }' "$W/times"
}
# ratio A B: A / B, or - when either is not a number or B is 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'; }
# sum A B: A + B, or "failed" when either failed
sum() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "failed" || b == "failed") print "failed"; else print a + b }'; }

# the scenario: one CPU-bound competitor on the first node, its link to the second capped
scen=$W/scale.ini
FMT='%6s %5s %9s %8s | %7s %7s | %7s %7s %6s | %6s %6s %6s %6s %5s | %7s %7s %7s %7s | %8s %7s %6s | %7s %7s %7s %7s %7s %7s\n'
# shellcheck disable=SC2059 # the format is ours
printf "$FMT" ranks nodes msgs cap_MB j1_s j1_MB jN_s jN_MB speedup m1_s s1_s mN_s sN_s after \
	part_s part_MB merge_s merge_MB r_init_s r_run_s r_Meps pred_s pred_MB expl_s expl_MB rep_s rep_MB
echo "ranks msgs j1_s jN_s part_s merge_s replay_s pred_s expl_s rep_s j1_MB jN_MB part_MB merge_MB pred_MB expl_MB rep_MB" >"$W/series"
for n in $SIZES; do
	nodes=$n
	[ "$n" -gt 16 ] && nodes=$((n / 4))
	R=$W/run-$n
	rm -rf "$R" "$W/times"
	: >"$W/failed"
	"$GEN" -R "$R" -n "$n" -N "$nodes" -p "$PATTERN" -t "$SECONDS_RUN" -m "$MSG_BYTES" -M "$MPI" >"$W/gen.out" || {
		echo "bench/scale: parse_gen failed at $n ranks" >&2; exit 1; }
	cap=$(du -sm "$R/capture" | cut -f1)
	timed j1 "$CONTEND" parse -q --times -j 1 -o "$W/p1" "$R"
	need j1 1 "$W/p1/messages.tsv"
	msgs=$(grep -vc '^#' "$W/p1/messages.tsv" 2>/dev/null)
	msgs=$((msgs - 1))
	timed jN "$CONTEND" parse -q --times -j "$JOBS" -o "$W/pN" "$R"
	need jN 1 "$W/pN/messages.tsv"
	for c in "$R"/capture/*.pcap; do
		node=$(basename "$c" .pcap)
		timed part "$CONTEND" parse -q --part "$node" -o "$W/pp" "$R"
		need part 1 "$W/pp/parts/$node.pcap.stats.tsv"
	done
	timed merge "$CONTEND" parse -q --times -j "$JOBS" --merge -o "$W/pp" "$R"
	need merge 1 "$W/pp/messages.tsv"
	# the three ways must agree
	for f in "$W"/p1/*.tsv; do
		cmp -s "$f" "$W/pN/$(basename "$f")" && cmp -s "$f" "$W/pp/$(basename "$f")" ||
			echo "bench/scale: $(basename "$f") differs between the ways at $n ranks" >&2
	done
	# the replay: the slower reading's CPU seconds and rate (each the best of 3 rounds)
	mkdir -p "$R/profile" && cp "$W"/p1/*.tsv "$R/profile/"
	if "$RATE" "$R" 3 >"$W/rate" 2>"$W/rate.err"; then
		rate=$(awk '$2 == "events" { if ($5 > i) i = $5; if ($7 > r) r = $7; if (e == "" || $13 + 0 < e) e = $13 + 0 }
			END { printf "%.3f %.3f %s", i, r, (e > 0 ? sprintf("%.2f", e / 1e6) : "-") }' "$W/rate")
		replay=$(echo "$rate" | awk '{ print $1 + $2 }')
	else
		echo "bench/scale: replay_rate failed at $n ranks: $(tail -n 1 "$W/rate.err")" >&2
		rate="failed failed failed" replay=failed
	fi
	# the stages after parse, on the profile of -j 1
	# shellcheck disable=SC2012,SC2046 # host names have no blanks
	set -- $(ls "$R/capture" | sed 's/\.pcap.*//' | sort -V | head -n 2)
	printf '[scenario]\ndescription = one CPU-bound competitor on %s and its link to %s at 100 Mbit/s\n[node %s]\ncpu_procs = 1\n[link %s %s]\nbandwidth = 100 Mbit/s\n' \
		"$1" "${2:-$1}" "$1" "$1" "${2:-$1}" >"$scen"
	timed pred "$CONTEND" predict "$R" --scenario "$scen"
	need pred 0 "$R/predict/scale.tsv"
	timed expl "$CONTEND" explain -q "$R"
	need expl 0 "$R/explain.tsv"
	timed rep "$CONTEND" report -q --no-png "$R"
	need rep 0 "$R/report.pdf"
	after1=$(awk -v a="$(get j1 5)" -v b="$(get j1 6)" 'BEGIN { print a + b }')
	afterN=$(awk -v a="$(get jN 5)" -v b="$(get jN 6)" 'BEGIN { print a + b }')
	# shellcheck disable=SC2059,SC2086 # the format is ours; $rate is three words
	printf "$FMT" \
		"$n" "$nodes" "$msgs" "$cap" "$(get j1 2)" "$(get j1 3)" "$(get jN 2)" "$(get jN 3)" \
		"$(ratio "$(get j1 2)" "$(get jN 2)")" "$(get j1 5)" "$(get j1 6)" "$(get jN 5)" \
		"$(get jN 6)" "$(ratio "$after1" "$afterN")" \
		"$(get part 2)" "$(get part 3)" "$(get merge 2)" "$(get merge 3)" $rate \
		"$(get pred 2)" "$(get pred 3)" "$(get expl 2)" "$(get expl 3)" "$(get rep 2)" "$(get rep 3)"
	echo "$n $msgs $(get j1 2) $(get jN 2) $(get part 2) $(get merge 2) $replay $(get pred 2)" \
		"$(get expl 2) $(get rep 2) $(get j1 3) $(get jN 3) $(get part 3) $(get merge 3)" \
		"$(get pred 3) $(get expl 3) $(get rep 3)" >>"$W/series"
	rm -rf "$R" "$W/p1" "$W/pN" "$W/pp"
done
# growth exponents: d log(value) / d log(messages) and d log(value) / d log(ranks), from the
# first size to the last and between the last two; "-" where a value failed or is 0
awk 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; nf = NF; next }
	{ k++; for (i = 1; i <= nf; i++) v[k, i] = $i }
	# ex(A, B, C, X): the exponent of column C against column X from row A to row B
	function ex(a, b, c, x) {
		if (v[a, c] !~ /^[0-9.]+$/ || v[b, c] !~ /^[0-9.]+$/ || v[a, c] <= 0 || v[b, c] <= 0 ||
		    v[a, x] <= 0 || v[b, x] <= v[a, x]) return "-"
		return sprintf("%.2f", log(v[b, c] / v[a, c]) / log(v[b, x] / v[a, x]))
	}
	function line(label, a, b, x,   c) {
		printf "%-26s", label
		for (c = 3; c <= nf; c++) printf " %8s", ex(a, b, c, x)
		printf "\n"
	}
	END { if (k < 2) { print "growth: needs two sizes"; exit }
		printf "growth exponents (1 is linear)\n%-26s", ""
		for (i = 3; i <= nf; i++) printf " %8s", h[i]
		printf "\n"
		line(sprintf("msgs %d-%d", v[1, 2], v[k, 2]), 1, k, 2)
		line(sprintf("ranks %d-%d", v[1, 1], v[k, 1]), 1, k, 1)
		if (k > 2) {
			line(sprintf("msgs %d-%d", v[k - 1, 2], v[k, 2]), k - 1, k, 2)
			line(sprintf("ranks %d-%d", v[k - 1, 1], v[k, 1]), k - 1, k, 1)
		}
	}' "$W/series"
