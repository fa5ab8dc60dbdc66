#!/bin/sh
# realapps_accuracy: bench/realapps/accuracy.sh in its small form (ScaLAPACK's LU test from
# Debian's scalapack-mpi-test, short inputs, Open MPI, scenarios cpu1 and link, and the
# program alone against the bare runs), with two
# rounds so that the second runs the conditions in reverse, produces every number finite: the measured medians and spreads, every model's prediction
# or its "n/a", the errors, the headline with an interval that holds it, coverage and width,
# the summary, the chart; and `contend predict` takes the error table it writes. Instance
# 16 (REALAPPS_E2E_INSTANCE); the benchmark brings its testbed down. Then --from on the kept
# runs: the same build re-parses and re-predicts them to the very same tables.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
INST=${REALAPPS_E2E_INSTANCE:-16}
E2E_NAME=realapps_accuracy
. "$TOP/tests/e2e/checks.inc"
e2e_workdir "" realapps-acc

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x /usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu ] ||
	{ echo "skipped: no scalapack-mpi-test (sh bench/realapps/setup.sh)"; exit 77; }
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }

t0=$(date +%s)
INSTANCE=$INST BUILD=$BUILD CONTEND=$CONTEND timeout -k 10 300 \
	sh "$TOP/bench/realapps/accuracy.sh" -S -r 2 -q -o "$T/res" -k "$T/keep" >"$T/out" 2>"$T/err"
rc=$?
secs=$(( $(date +%s) - t0 ))
# A skip inside (a package gone between the checks above and the run) is a skip here too.
if grep -q 'skipped:' "$T/out"; then echo "skipped: $(grep -m 1 'skipped:' "$T/out" | sed 's/.*skipped: *//')"; exit 77; fi
check exit "[ $rc -eq 0 ]" "accuracy.sh -S exit $rc: $(tail -n 3 "$T/err" | tr '\n' ' ')"
check under-5-min "[ $secs -lt 300 ]" "took $secs s"

# every condition once per round, the second round in reverse
order=$(awk -F'\t' 'NR > 2 { printf "%s%s:%s", (NR > 3 ? " " : ""), $2, $4 }' "$T/res/runs.tsv" 2>/dev/null)
check alternated "[ \"\$order\" = '1:ded 1:bare 1:cpu1 1:link 2:link 2:cpu1 2:bare 2:ded' ]" "runs.tsv order: ${order:-none}"
# every run says how many other testbed instances had tasks around it (run.sh's rivals)
bad=$(awk -F'\t' 'NR > 2 && $9 !~ /^[0-9]+$/ { print $2 ":" $4 "=" $9 }' "$T/res/runs.tsv" 2>/dev/null | tr '\n' ' ')
check rivals-recorded "[ -z \"\$bad\" ]" "runs.tsv rivals not a count: $bad"

RAW=$T/res/accuracy-raw.tsv
num='^[+-]?[0-9]+(\.[0-9]+)?$'
# bare: the program alone (a scenario without sections) against the bare runs
for sc in cpu1 link bare; do
	hl=$(awk -F'\t' -v s="$sc" 'NR > 2 && $1 == "lu" && $5 == s && $6 == "contend"' "$RAW" 2>/dev/null)
	check "$sc-headline-row" "[ -n \"\$hl\" ]" "no headline row for lu $sc in accuracy-raw.tsv"
	[ -n "$hl" ] || continue
	bad=$(echo "$hl" | awk -F'\t' -v re="$num" '{
		for (i = 7; i <= 15; i++) if ($i !~ re) print "column " i " " $i
		if ($16 != "yes" && $16 != "no") print "inside " $16
		if ($12 != 2) print "reps " $12
		if ($17 !~ re || $17 < 0) print "width " $17
		if (!($10 <= $9 && $9 <= $11)) print "median outside min-max"
		if (!($14 <= $8 && $8 <= $15)) print "prediction outside its interval"
		if ($13 + 0 != 0 && ($13 > 0) != ($8 > $9)) print "error sign"
	}' | tr '\n' ' ')
	check "$sc-headline-finite" "[ -z \"\$bad\" ]" "$bad"
	# every model: a finite number and error, or n/a; the replay gives one
	bad=$(awk -F'\t' -v s="$sc" -v re="$num" 'NR > 2 && $5 == s && $6 != "contend" {
		if ($8 == "n/a") { if ($13 != "-") print $6 " n/a with an error"; next }
		if ($8 !~ re || $8 <= 0 || $13 !~ re) print $6 " " $8 " " $13 }' "$RAW" | tr '\n' ' ')
	check "$sc-models-finite" "[ -z \"\$bad\" ]" "$bad"
	n=$(awk -F'\t' -v s="$sc" 'NR > 2 && $5 == s && $6 == "replay" && $8 != "n/a"' "$RAW" | wc -l)
	check "$sc-replay" "[ $n -eq 1 ]" "no replay number for $sc"
done
# paired by round: every round's dedicated run predicted against the same round's run
PR=$T/res/accuracy-paired.tsv
for sc in cpu1 link bare; do
	row=$(awk -F'\t' -v s="$sc" 'NR > 2 && $1 == "lu" && $4 == s && $5 == "contend"' "$PR" 2>/dev/null)
	check "$sc-paired-row" "[ -n \"\$row\" ]" "no paired headline row for lu $sc"
	[ -n "$row" ] || continue
	bad=$(echo "$row" | awk -F'\t' -v re="$num" '{ n = split($8, e, ",")
		if ($6 != 2) print "rounds " $6
		if (n != 2) print "round errors " $8
		for (i = 1; i <= n; i++) if (e[i] !~ re) print "round error " e[i]
		if ($7 !~ re) print "error " $7
		else if ($7 + 0 < e[1] + 0 && $7 + 0 < e[2] + 0 || $7 + 0 > e[1] + 0 && $7 + 0 > e[2] + 0) print "median " $7 " outside " $8
		if ($9 !~ /^[0-2]\/2$/) print "inside " $9 }' | tr '\n' ' ')
	check "$sc-paired-finite" "[ -z \"\$bad\" ]" "$bad"
done
md=$T/res/accuracy.md
check summary "grep -q 'inside the headline interval in [0-9]* of 3 ([0-9]* %), median width [0-9.]* %' \"$md\"" \
	"no coverage line in accuracy.md"
for sc in cpu1 link bare; do
	line=$(awk -v s="| $sc |" 'index($0, s) == 1' "$md")
	check "$sc-summary-row" "echo \"\$line\" | grep -Eq '^\\| $sc \\| [0-9.]+ % \\(1\\) \\|.* [0-9] of 1 '" \
		"summary row: ${line:-none}"
done
check no-nan "! grep -Eiq 'nan|inf\\b' \"$RAW\" \"$md\"" "a nan or inf in the tables"
check machine "grep -q '^machine load (1, 5, 15 min): before [0-9]' \"$md\" && grep -q '^command: ' \"$md\"" \
	"no machine load or command in accuracy.md"
check chart "[ -s \"$T/res/accuracy.pdf\" ] && [ -s \"$T/res/summary.tsv\" ]" "no accuracy.pdf or summary.tsv"

# predict loads the error table: its interval then rests on the table's cells
ded=$(ls -d "$T/keep"/lu-4x1-ompi-ded-1 2>/dev/null)
check spread-term "grep -q 'the spread of 2 dedicated runs' \"$T/keep\"/lu-4x1-ompi-cpu1.ini.lopo-lu.tsv.out" \
	"the headline's interval does not use the 2 dedicated runs"
if [ -n "$ded" ]; then
	"$CONTEND" predict "$ded" --scenario "$T/res/scenario-lu-4x1-ompi-cpu1.ini" --errors "$T/res/accuracy.tsv" \
		>"$T/pred" 2>&1
	check errors-table "grep -q 'errors from: .*accuracy.tsv' \"$T/pred\" && grep -Eq 'error on [1-9][0-9]* measured cell' \"$T/pred\"" \
		"predict --errors accuracy.tsv: $(grep -E 'errors from|interval from' "$T/pred" | tr '\n' ' ')"
else
	fail errors-table "no kept dedicated run"
fi

# --from: the kept runs parsed, predicted and scored again with the same build give the same
# numbers, without the testbed, and the kept directory is left as it was.
sums() { find "$T/keep" -path "$T/keep/results" -prune -o -type f -print0 | sort -z | xargs -0 md5sum; }
sums >"$T/keep.md5"
CONTEND=$CONTEND INSTANCE=999 timeout -k 10 120 \
	sh "$TOP/bench/realapps/accuracy.sh" --from "$T/keep" -q -o "$T/rep" >"$T/rep.out" 2>"$T/rep.err"
rc=$?
check from-exit "[ $rc -eq 0 ]" "accuracy.sh --from exit $rc: $(tail -n 3 "$T/rep.err" | tr '\n' ' ')"
for f in accuracy-raw.tsv accuracy-paired.tsv accuracy.tsv fig3.tsv runs.tsv summary.tsv scenario-lu-4x1-ompi-cpu1.ini; do
	check "from-same-$f" "cmp -s \"$T/res/$f\" \"$T/rep/$f\"" "--from's $f differs: $(diff "$T/res/$f" "$T/rep/$f" 2>&1 | head -n 4 | tr '\n' ' ')"
done
tables() { sed -n '/^## The dedicated runs/,/^## Machine and commands/p' "$1"; }
check from-same-tables "[ \"\$(tables \"$T/res/accuracy.md\")\" = \"\$(tables \"$T/rep/accuracy.md\")\" ]" \
	"--from's accuracy.md tables differ from the measured ones"
check from-says "grep -q '^\\*\\*Re-predicted from kept runs\\*\\*' \"$T/rep/accuracy.md\" && grep -q '^re-predicted from: .*commit ' \"$T/rep/accuracy.md\"" \
	"accuracy.md does not say it was re-predicted"
check from-settings "grep -q 'runs: .* --small\$' \"$T/rep/accuracy.md\" && grep -q 'INSTANCE=$INST ' \"$T/rep/accuracy.md\"" \
	"the kept settings.txt is not used"
check from-kept-intact "sums | cmp -s - \"$T/keep.md5\"" "--from changed the kept runs"
check from-no-testbed "! ip netns list 2>/dev/null | grep -q '^c999'" \
	"--from touched the testbed"
