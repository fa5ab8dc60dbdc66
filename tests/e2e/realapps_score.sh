#!/bin/sh
# realapps_score: bench/realapps/score.sh scores the headline again from the committed
# accuracy-raw.tsv through `contend predict --score` (leave one program out), every cell
# once; a file of another format is refused. No testbed. Prints PASS/FAIL lines.
set -u
: "${CONTEND:?}" "${TOP:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS e2e/realapps_score/$1"; }
fail() { echo "FAIL e2e/realapps_score/$1: $2"; }
RAW=$TOP/bench/results/realapps/accuracy-raw.tsv
if [ ! -r "$RAW" ]; then
	echo "SKIP e2e/realapps_score: skipped: no $RAW"
	exit 0
fi
ncell=$(awk -F'\t' 'NR > 2 && $6 == "contend"' "$RAW" | wc -l)
CONTEND=$CONTEND sh "$TOP/bench/realapps/score.sh" "$RAW" -t >"$T/out" 2>"$T/err"
rc=$?
# the per-cell table: one row per cell, each with a pick, an interval around its prediction
rows=$(awk '$1 ~ /-/ && NF == 12' "$T/out" | wc -l)
bad=$(awk '$1 ~ /-/ && NF == 12 && !($7 <= $6 && $6 <= $8 && ($10 == "yes") == ($7 <= $9 && $9 <= $8))' "$T/out" | wc -l)
if [ $rc -eq 0 ] && [ "$ncell" -gt 0 ] && [ "$rows" -eq "$ncell" ] && [ "$bad" -eq 0 ]; then
	pass cells
else
	fail cells "exit $rc, $rows rows for $ncell cells, $bad inconsistent: $(tail -n 2 "$T/err")"
fi
# before and after, each over all the cells
if [ "$(grep -c "^| all | [0-9.]* % | [0-9]* of $ncell (" "$T/out")" -eq 2 ]; then
	pass summary
else
	fail summary "$(grep '^| all' "$T/out")"
fi
# one program alone: with its own cells left out nothing is left to move the pick
awk -F'\t' 'NR <= 2 || $1 == "lu"' "$RAW" >"$T/one.tsv"
nlu=$(awk -F'\t' 'NR > 2 && $6 == "contend"' "$T/one.tsv" | wc -l)
CONTEND=$CONTEND sh "$TOP/bench/realapps/score.sh" "$T/one.tsv" -t >"$T/one" 2>&1
if [ "$nlu" -gt 0 ] &&
	awk -v want="$nlu" '$1 ~ /^lu-/ && NF == 12 { n++; if ($4 != $5) moved++ } END { exit !(n == want && !moved) }' "$T/one"; then
	pass alone
else
	fail alone "$(head -n 4 "$T/one")"
fi
printf 'not a raw file\n' >"$T/bad.tsv"
if CONTEND=$CONTEND sh "$TOP/bench/realapps/score.sh" "$T/bad.tsv" >/dev/null 2>"$T/berr"; then
	fail refuses "a file of another format was scored"
else
	grep -q 'no contend-realapps-accuracy file' "$T/berr" && pass refuses || fail refuses "$(cat "$T/berr")"
fi
