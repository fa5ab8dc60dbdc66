#!/bin/sh
# parse_tail: a rank whose end hung after the run's last message (docs/parse.md, "A hung
# end"), made by hand from traces/stencil-4ws: rank 2's samples go on spinning for 10 s
# after its exit, as an MPI library stuck in MPI_Finalize does until it is killed.
#  - ended by SIGTERM: its exec time is cut back to the run's, with one warning, the
#    tail_* keys in stats.tsv, and a note from predict;
#  - --keep-tail: the same warning, nothing cut;
#  - the same spinning in a rank that exited 0 (a long final computation): not cut;
#  - the trace as recorded: no warning and no tail_* key.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
E2E_NAME=parse_tail
. "$TOP/tests/e2e/checks.inc"
src=$TOP/traces/stencil-4ws
[ -d "$src/capture" ] || { echo "SKIP e2e/parse_tail: skipped: $src is missing"; exit 0; }
T=$(mktemp -d /tmp/contend-e2e-tail.XXXXXX)
trap 'rm -rf "$T"' EXIT
TAIL_NS=10000000000

# exec_ns of rank $2 in profile $1
exec_of() { awk -F'\t' -v r="$2" 'NR > 2 && $1 !~ /^#/ && $1 == r { print $3 }' "$1/ranks.tsv"; }
stat_of() { meta "$1/stats.tsv" "$2"; }

# mkrun DIR HOW: the trace with rank 2 spinning TAIL_NS past its end, ended as HOW
mkrun() {
	cp -r "$src" "$1"
	m=$1/meta/rank-2.tsv
	zcat "$src/samples/rank-2.tsv.gz" | awk -F'\t' -v OFS='\t' -v tail="$TAIL_NS" '
		{ print }
		$1 ~ /^[0-9]/ { mono = $1; real = $2; pid = $3; if ($4 == $3) run = $8 }
		END {
			for (i = 1; i <= tail / 20000000; i++) {
				run += 19000000
				printf "%.0f\t%.0f\t%d\t%d\tR\t%d\t%d\t%.0f\t0\t0\t%d\n", mono + i * 20000000,
					real + i * 20000000, pid, pid, 150 + i, 19 + i, run, i
			}
		}' | gzip >"$1/samples/rank-2.tsv.gz"
	awk -F'\t' -v OFS='\t' -v how="$2" -v tail="$TAIL_NS" '
		$1 == "end_real_ns" || $1 == "end_mono_ns" { $2 = sprintf("%.0f", $2 + tail) }
		$1 == "samples_taken" { $2 += tail / 20000000 }
		$1 == "how_ended" { $2 = how }
		$1 == "exit_status" && how == "signaled" { $2 = -1 }
		$1 == "exit_signal" && how == "signaled" { $2 = 15 }
		{ print }
		$1 == "exit_signal" && how == "signaled" { print "exit_signal_name", "SIGTERM" }' \
		"$src/meta/rank-2.tsv" >"$m.new" && mv "$m.new" "$m"
}

# 1. the trace as recorded
cp -r "$src" "$T/plain"
"$CONTEND" parse -q -j 1 "$T/plain" >/dev/null 2>"$T/plain.err"
check plain-parses '[ $? -eq 0 ]' "parse of the recorded trace failed: $(tail -n 1 "$T/plain.err")"
check plain-no-warning '! grep -q "last message" "$T/plain.err"' "a hung end was found in a normal run"
check plain-no-tail-keys '! grep -q "^tail_" "$T/plain/profile/stats.tsv"' "stats.tsv has tail_ keys"
base=$(exec_of "$T/plain/profile" 2)

# 2. rank 2 spins 10 s and is ended by SIGTERM: cut
mkrun "$T/hung" signaled
"$CONTEND" parse -q -j 1 "$T/hung" >/dev/null 2>"$T/hung.err"
rc=$?
check hung-exit-0 '[ $rc -eq 0 ]' "exit $rc: $(tail -n 1 "$T/hung.err")"
check hung-one-warning '[ "$(grep -c "rank 2 was ended by SIGTERM .* s after the run.s last message" "$T/hung.err")" -eq 1 ] &&
	[ "$(grep -c "last message" "$T/hung.err")" -eq 1 ]' "$(cat "$T/hung.err")"
cut=$(exec_of "$T/hung/profile" 2)
check hung-cut-back 'awk -v a="$cut" -v b="$base" "BEGIN { exit !(a > 0 && a <= b + 20000000 && a > b - 1000000000) }"' \
	"rank 2 exec_ns $cut, recorded $base"
check hung-stats '[ "$(stat_of "$T/hung/profile" tail_hung_ranks)" = 1 ] &&
	[ "$(stat_of "$T/hung/profile" tail_cut_ranks)" = 1 ] &&
	stat_of "$T/hung/profile" tail_hung | grep -q "^2=1[01]\.[0-9]*$" &&
	[ "$(stat_of "$T/hung/profile" complete)" = yes ]' "$(grep -E "^tail|^complete" "$T/hung/profile/stats.tsv")"
check hung-others-unchanged 'for r in 0 1 3; do [ "$(exec_of "$T/hung/profile" $r)" = "$(exec_of "$T/plain/profile" $r)" ] || exit 1; done' \
	"another rank's exec_ns changed"
"$CONTEND" predict "$T/hung" --scenario "$TOP/traces/scenarios/stencil-load-c3ws2.ini" >"$T/pred.out" 2>"$T/pred.err"
check predict-note 'grep -hq "^note: rank 2 (1[01]\.[0-9] s) .*cut" "$T/pred.out" "$T/pred.err"' "no note: $(head -n 3 "$T/pred.out")"

# 3. the same with --keep-tail: found and said, not cut
mkrun "$T/kept" signaled
"$CONTEND" parse -q -j 1 --keep-tail "$T/kept" >/dev/null 2>"$T/kept.err"
kept=$(exec_of "$T/kept/profile" 2)
check keep-tail-warns 'grep -q "rank 2 was ended by SIGTERM.*kept (--keep-tail)" "$T/kept.err"' "$(cat "$T/kept.err")"
check keep-tail-keeps 'awk -v a="$kept" -v b="$base" "BEGIN { exit !(a > b + 9000000000) }"' \
	"rank 2 exec_ns $kept, recorded $base"
check keep-tail-stats '[ "$(stat_of "$T/kept/profile" tail_hung_ranks)" = 1 ] &&
	[ "$(stat_of "$T/kept/profile" tail_cut_ranks)" = 0 ]' "$(grep "^tail" "$T/kept/profile/stats.tsv")"

# 4. the same 10 s of CPU after the last message in a rank that exited 0: its own work
mkrun "$T/exited" exited
"$CONTEND" parse -q -j 1 "$T/exited" >/dev/null 2>"$T/exited.err"
long=$(exec_of "$T/exited/profile" 2)
check exited-not-cut '! grep -q "last message" "$T/exited.err" &&
	awk -v a="$long" -v b="$base" "BEGIN { exit !(a > b + 9000000000) }" &&
	! grep -q "^tail_" "$T/exited/profile/stats.tsv"' "rank 2 exec_ns $long, recorded $base: $(cat "$T/exited.err")"
