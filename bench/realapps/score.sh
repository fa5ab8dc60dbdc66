#!/bin/sh
# bench/realapps/score.sh: score the headline answer again on an existing accuracy-raw.tsv,
# without running anything: every model's number and the measured median of each cell are
# in the file, so `contend predict --score` redoes the pick and the interval the way
# `contend predict` would now, each program's cells from the other programs' only (leave one
# program out), and this prints the coverage, the median width and the headline's errors
# per scenario, beside those the file was written with. Rerun it after the models or
# the interval change to see what moved (docs/validation.md, "Scoring again offline"). A
# change to parse or to a model changes the models' numbers: accuracy.sh --from DIR predicts
# them again from runs kept with -k DIR.
#
# Usage: sh bench/realapps/score.sh [RAW] [-t]
#   RAW  an accuracy-raw.tsv of bench/realapps/accuracy.sh (default
#        bench/results/realapps/accuracy-raw.tsv); runs.tsv beside it, when present, gives
#        each program's dedicated spread (its dedicated runs' wall times)
#   -t   print the per-cell table of contend predict --score too
# Environment: CONTEND (default build/contend).
# Exit: 0 scored, 1 something failed (said on stderr), 2 usage.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CONTEND=${CONTEND:-$TOP/build/contend}
RAW="" CELLS=0
for a in "$@"; do
	case $a in
	-t) CELLS=1 ;;
	-h | -*) sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	*) [ -z "$RAW" ] || { echo "realapps-score: one RAW file" >&2; exit 2; }; RAW=$a ;;
	esac
done
RAW=${RAW:-$TOP/bench/results/realapps/accuracy-raw.tsv}
[ -r "$RAW" ] || { echo "realapps-score: cannot read '$RAW'" >&2; exit 1; }
[ -x "$CONTEND" ] || { echo "realapps-score: no $CONTEND (make)" >&2; exit 1; }
head -n 1 "$RAW" | grep -q '^# contend-realapps-accuracy 1' ||
	{ echo "realapps-score: '$RAW' is no contend-realapps-accuracy file" >&2; exit 1; }
RUNS=$(dirname "$RAW")/runs.tsv
W=$(mktemp -d "${TMPDIR:-/tmp}/contend-realapps-score.XXXXXX") || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT

# The dedicated spread per set: (slowest - fastest) / 2 / median of its dedicated runs.
: >"$W/spread"
if [ -r "$RUNS" ]; then
	awk -F'\t' '$4 == "ded" { print $1, $5 }' "$RUNS" | sort -k1,1 -k2g | awk '
		function out() { if (n) printf "%s %.6f\n", s, (v[n] - v[1]) / 2 / (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }
		$1 != s { out(); s = $1; n = 0 } { v[++n] = $2 } END { out() }' >"$W/spread"
fi
# The raw rows as a contend-accuracy table (the models' numbers, not the old headline's).
{
	printf '# contend-accuracy 1\nworkload\tscenario\tmodel\tpredicted_ns\tmeasured_ns\tmeasured_min_ns\tmeasured_max_ns\tkind\tdedicated_spread\n'
	awk -F'\t' -v OFS='\t' -v spf="$W/spread" '
		BEGIN { while ((getline l < spf) > 0) { split(l, a, " "); sp[a[1]] = a[2] } }
		NR <= 2 || $8 == "n/a" || $6 == "contend" { next }
		{ w = $1 "-" $2 "-" $3; print w, $5, $6, $8, $9, $10, $11, $4, (w in sp) ? sp[w] : "-" }' "$RAW"
} >"$W/table.tsv"
"$CONTEND" predict --score "$W/table.tsv" >"$W/scored.tsv" 2>"$W/err" ||
	{ echo "realapps-score: $(tail -n 1 "$W/err")" >&2; exit 1; }
[ $CELLS -eq 0 ] || column -t -s "$(printf '\t')" "$W/scored.tsv"

# One line per scenario and one for all cells: headline |error|, coverage, median width.
# Input rows: scenario |error| inside(yes/no) width.
summ() {
	sort -k1,1 | awk '
		function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function line(name, e, c, n, w) { printf "| %s | %.1f %% | %d of %d (%.0f %%) | %.1f %% |\n", name, e / n, c, n, 100 * c / n, med(w, n) }
		$1 != s { if (n) line(s, e, c, n, w); s = $1; n = e = c = 0; delete w }
		{ n++; e += $2; c += $3 == "yes"; w[n] = $4; N++; E += $2; C += $3 == "yes"; W[N] = $4 }
		END { if (n) line(s, e, c, n, w); if (N) line("all", E, C, N, W) }'
}
echo "before: the headline as $(basename "$RAW") has it"
echo
echo "| scenario | headline mean abs error | inside the interval | median width |"
echo "|---|---|---|---|"
awk -F'\t' 'NR > 2 && $6 == "contend" && $16 != "-" { e = $13 + 0; print $5, e < 0 ? -e : e, $16, $17 }' "$RAW" | summ
echo
echo "after: contend predict --score (leave one program out; picks: $(awk -F'\t' 'NR > 1 && $4 != $5' "$W/scored.tsv" | wc -l) cells not the rules' own)"
echo
echo "| scenario | headline mean abs error | inside the interval | median width |"
echo "|---|---|---|---|"
awk -F'\t' 'NR > 1 { e = $12 + 0; print $2, e < 0 ? -e : e, $10, $11 }' "$W/scored.tsv" | summ
