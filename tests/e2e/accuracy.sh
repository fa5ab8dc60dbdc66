#!/bin/sh
# The whole validation path works on the testbed: bench/accuracy in its small form (two
# workloads, one run of each condition, short runs) records with contend collect, parses,
# calibrates delay_comm, predicts every scenario, runs it for real and draws the chart with
# contend report --accuracy. Checks that every number is produced and finite, not how
# accurate it is (that is the benchmark's job, docs/validation.md); then predicts again
# from the kept runs (-F) and gets the same table. Instance 12
# (ACCURACY_E2E_INSTANCE); the benchmark brings its testbed down.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
INST=${ACCURACY_E2E_INSTANCE:-12}
WLS="stencil compute"
SCS="cpu1 link both agg"
T=$(mktemp -d /tmp/contend-e2e-acc.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

pass() { echo "PASS e2e/accuracy/$1"; }
fail() { echo "FAIL e2e/accuracy/$1: $2"; }

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
for w in $WLS; do
	[ -x "$TOP/$BUILD/workloads/ompi/$w" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }
done
"$CONTEND" testbed --instance "$INST" check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }

R=$T/res
INSTANCE=$INST BUILD=$BUILD CONTEND=$CONTEND sh "$TOP/bench/accuracy" -S -r 1 -w "$WLS" -s "$SCS" -o "$R" \
	-k "$T/keep" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && pass exit-0 || fail exit-0 "exit $rc: $(tail -n 3 "$T/err" | tr '\n' ' ')"

# every workload x scenario has a p003 row, agg a p000 and a replay row instead (p003 does
# not model agg's communicating competitors, so it refuses); every number finite and
# positive, the error the one the numbers give
for w in $WLS; do
	for s in $SCS; do
		if [ "$s" = agg ]; then
			if awk -F'\t' -v w="$w" 'NR > 2 && $1 == w && $2 == "agg" && $3 == "p003" { f = 1 } END { exit f }' \
				"$R/accuracy.tsv" 2>/dev/null; then
				pass "no-p003-$w-agg"
			else
				fail "no-p003-$w-agg" "p003 gave a number for communicating competitors it does not model"
			fi
		fi
		for m in $([ "$s" = agg ] && echo p000 replay || echo p003); do
			row=$(awk -F'\t' -v w="$w" -v s="$s" -v m="$m" 'NR > 2 && $1 == w && $2 == s && $3 == m' "$R/accuracy.tsv" 2>/dev/null)
			if [ -z "$row" ]; then
				fail "row-$w-$s-$m" "no row in accuracy.tsv"
				continue
			fi
			echo "$row" | awk -F'\t' '{
				for (i = 4; i <= 8; i++) if ($i !~ /^[0-9]+$/ || $i + 0 <= 0) exit 1
				if ($7 > $6 || $6 > $8 || $9 != 1) exit 1
				e = 100 * ($5 - $6) / $6; d = $10 - e; if (d < -0.051 || d > 0.051) exit 1 }' &&
				pass "row-$w-$s-$m" || fail "row-$w-$s-$m" "bad numbers: $row"
		done
	done
done

# Figure 3 rows: one per workload, percentages summing to 100
n=$(awk -F'\t' 'NR > 2 && $2 > 0 && ($3 + $4 + $5) > 99.5 && ($3 + $4 + $5) < 100.5 && $10 == 3' "$R/fig3.tsv" 2>/dev/null | wc -l)
[ "$n" -eq 2 ] && pass fig3 || fail fig3 "$n good rows of 2: $(cat "$R/fig3.tsv" 2>/dev/null | tr '\n' '|')"

# the chart and the summary through contend report --accuracy
pages=$(pdfinfo "$R/accuracy.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
[ "${pages:-0}" -ge 3 ] && pass chart-pdf || fail chart-pdf "accuracy.pdf has ${pages:-no} pages"
n=$(awk -F'\t' 'NR > 2 && $3 > 0 && $4 ~ /^[0-9.]+$/ && $5 ~ /^[0-9.]+$/' "$R/summary.tsv" 2>/dev/null | wc -l)
[ "$n" -ge 4 ] && pass summary || fail summary "$n summary rows"
[ -s "$R/delaycomm.tsv" ] && pass delaycomm || fail delaycomm "no calibrated delay_comm curves"
grep -q "^command: bench/accuracy" "$R/machine.txt" 2>/dev/null && pass machine || fail machine "no machine.txt"
# the scenarios ran bare: their measured time is in the scenario file, not a collect run
n=$(grep -l "^measured_time = [0-9.]* s$" "$R"/scenario-*.ini 2>/dev/null | wc -l)
m=$(ls "$R"/scenario-*.ini 2>/dev/null | wc -l)
[ "$n" -ge 1 ] && [ "$n" -eq "$m" ] && grep -q "scenario runs bare" "$R/machine.txt" &&
	pass scenarios-bare || fail scenarios-bare "$n of $m scenario files with a measured time"
# and the bare dedicated runs beside the collected ones: the observer's effect, per workload
n=$(grep -c "^| [a-z]* | [0-9.]* ([0-9.-]*) | [0-9.]* ([0-9.-]*) | [+-][0-9.]* % |$" "$R/README.md" 2>/dev/null)
[ "${n:-0}" -eq 2 ] && pass observer-table || fail observer-table "${n:-0} rows of 2"
# predicted again from the kept runs (-F), by the same build: the same table, no testbed
INSTANCE=$INST BUILD=$BUILD CONTEND=$CONTEND sh "$TOP/bench/accuracy" -F "$T/keep" -w "$WLS" -s "$SCS" \
	-o "$T/res2" -q >"$T/out2" 2>"$T/err2"
rc=$?
if [ $rc -eq 0 ] && [ -s "$R/accuracy.tsv" ] && cmp -s "$R/accuracy.tsv" "$T/res2/accuracy.tsv" &&
	grep -q "^runs: kept in" "$T/res2/machine.txt"; then
	pass from-kept
else
	fail from-kept "exit $rc; $(diff "$R/accuracy.tsv" "$T/res2/accuracy.tsv" 2>&1 | head -n 4 | tr '\n' ' ')"
fi
# the testbed is gone
"$CONTEND" testbed --instance "$INST" status 2>/dev/null | grep -q "c${INST}ws1" &&
	fail testbed-down "instance $INST still up" || pass testbed-down
exit 0
