#!/bin/sh
# bench/scale.sh: how parse grows with the size of a run. For each size (ranks), a run is
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
# `speedup` is j1_s / jN_s. Then the growth exponent of each time over the series (the
# slope of log time against log messages between the first and the last size: 1 is
# linear). Then the replay (predict/replay.h) on the profile: bench/replay_rate's CPU
# seconds to build the trace (r_init_s) and to replay it once (r_run_s), the slower of its
# two readings (predict's and explain's), and r_Meps, millions of events (a send and a
# receive per message) per second for both together: the target is at least 5.
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

# timed NAME CMD...: run CMD, append "NAME seconds peak_kB exit merge_s samples_s" to
# $W/times (the last two from parse --times, 0 without)
timed() {
	name=$1; shift
	$TIME -f '%e %M' -o "$W/t.out" "$@" >/dev/null 2>"$W/t.err"
	rc=$?
	steps=$(awk '/^parse: times:/ { for (i = 3; i < NF; i++) { if ($i == "merge") m = $(i + 1)
		if ($i == "samples") s = $(i + 1) } } END { printf "%s %s", m + 0, s + 0 }' "$W/t.err")
	echo "$name $(tail -n 1 "$W/t.out") $rc $steps" >>"$W/times"
}
# get NAME FIELD: seconds (2), peak MB (3), merge (5) or samples seconds (6) of a timed
# step; for parts, the largest
get() {
	awk -v n="$1" -v f="$2" '$1 == n { v = f == 3 ? $3 / 1024 : $f; if (v > m) m = v } END { printf "%.2f", m }' "$W/times"
}
# ratio A B: A / B, or - when B is 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
bad() { awk -v n="$1" '$1 == n && $4 != 0 && $4 != 1 { b = 1 } END { exit !b }' "$W/times"; }

printf '%6s %5s %9s %8s | %7s %7s | %7s %7s %6s | %6s %6s %6s %6s %5s | %7s %7s %7s %7s | %8s %7s %6s\n' \
	ranks nodes msgs cap_MB j1_s j1_MB jN_s jN_MB speedup m1_s s1_s mN_s sN_s after \
	part_s part_MB merge_s merge_MB r_init_s r_run_s r_Meps
: >"$W/series"
for n in $SIZES; do
	nodes=$n
	[ "$n" -gt 16 ] && nodes=$((n / 4))
	R=$W/run-$n
	rm -rf "$R" "$W/times"
	"$GEN" -R "$R" -n "$n" -N "$nodes" -p "$PATTERN" -t "$SECONDS_RUN" -m "$MSG_BYTES" -M "$MPI" >"$W/gen.out" || {
		echo "bench/scale: parse_gen failed at $n ranks" >&2; exit 1; }
	cap=$(du -sm "$R/capture" | cut -f1)
	timed j1 "$CONTEND" parse -q --times -j 1 -o "$W/p1" "$R"
	msgs=$(grep -vc '^#' "$W/p1/messages.tsv")
	msgs=$((msgs - 1))
	timed jN "$CONTEND" parse -q --times -j "$JOBS" -o "$W/pN" "$R"
	for c in "$R"/capture/*.pcap; do
		node=$(basename "$c" .pcap)
		timed part "$CONTEND" parse -q --part "$node" -o "$W/pp" "$R"
	done
	timed merge "$CONTEND" parse -q --times -j "$JOBS" --merge -o "$W/pp" "$R"
	for s in j1 jN part merge; do bad $s && echo "bench/scale: $s failed at $n ranks" >&2; done
	# the three ways must agree
	for f in "$W"/p1/*.tsv; do
		cmp -s "$f" "$W/pN/$(basename "$f")" && cmp -s "$f" "$W/pp/$(basename "$f")" ||
			echo "bench/scale: $(basename "$f") differs between the ways at $n ranks" >&2
	done
	# the replay: the slower reading's CPU seconds and rate (each the best of 3 rounds)
	mkdir -p "$R/profile" && cp "$W"/p1/*.tsv "$R/profile/"
	"$RATE" "$R" 3 >"$W/rate" 2>"$W/rate.err" || echo "bench/scale: replay_rate failed at $n ranks" >&2
	rate=$(awk '$2 == "events" { if ($5 > i) i = $5; if ($7 > r) r = $7; if (e == "" || $13 + 0 < e) e = $13 + 0 }
		END { printf "%.3f %.3f %s", i, r, (e > 0 ? sprintf("%.2f", e / 1e6) : "-") }' "$W/rate")
	after1=$(awk -v a="$(get j1 5)" -v b="$(get j1 6)" 'BEGIN { print a + b }')
	afterN=$(awk -v a="$(get jN 5)" -v b="$(get jN 6)" 'BEGIN { print a + b }')
	# shellcheck disable=SC2086 # $rate is three words
	printf '%6s %5s %9s %8s | %7s %7s | %7s %7s %6s | %6s %6s %6s %6s %5s | %7s %7s %7s %7s | %8s %7s %6s\n' \
		"$n" "$nodes" "$msgs" "$cap" "$(get j1 2)" "$(get j1 3)" "$(get jN 2)" "$(get jN 3)" \
		"$(ratio "$(get j1 2)" "$(get jN 2)")" "$(get j1 5)" "$(get j1 6)" "$(get jN 5)" \
		"$(get jN 6)" "$(ratio "$after1" "$afterN")" \
		"$(get part 2)" "$(get part 3)" "$(get merge 2)" "$(get merge 3)" $rate
	echo "$msgs $(get j1 2) $(get jN 2) $(get part 2) $(get merge 2) $(echo "$rate" | awk '{ print $1 + $2 }')" >>"$W/series"
	rm -rf "$R" "$W/p1" "$W/pN" "$W/pp"
done
# growth exponents: d log(time) / d log(messages), first to last size
awk 'NR == 1 { for (i = 1; i <= 6; i++) a[i] = $i } { for (i = 1; i <= 6; i++) b[i] = $i }
	END { if (NR < 2 || a[1] <= 0 || b[1] <= a[1]) { print "growth: needs two sizes"; exit }
		printf "growth exponent in messages (%d to %d):", a[1], b[1]
		split("j1 jN part merge replay", nm, " ")
		for (i = 2; i <= 6; i++)
			if (a[i] > 0 && b[i] > 0) printf " %s %.2f", nm[i - 1], log(b[i] / a[i]) / log(b[1] / a[1])
			else printf " %s -", nm[i - 1]
		printf "\n" }' "$W/series"
