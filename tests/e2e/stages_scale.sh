#!/bin/sh
# stages at scale, end to end: a generated Open MPI run of 256 ranks on 64 nodes (parse_gen
# -R, halo, 11 521 messages) goes through every stage after collect: parse -j 2,
# predict under one CPU-bound competitor on a node and a capped link, explain and report.
# Each must exit 0 and write its output: the profile with every rank, the prediction with
# the replay's row, explain.tsv with its causes, the ideal time and a row of work per rank, a report of at least
# seven pages that names the 256 ranks; and each within a generous time (60 s: the stages
# take about a second each here). Fast: the run is short, the figures come from
# bench/scale.sh.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
GEN=${GEN:-$TOP/$BUILD/bench/parse_gen}
E2E_NAME=stages_scale
INST=${TESTBED_E2E_INSTANCE:-1}
. "$TOP/tests/e2e/checks.inc"

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x "$GEN" ] || { echo "skipped: no $GEN (make bench)"; exit 77; }
e2e_workdir "${E2E_KEEP_DIR:-}" stages-scale
R=$T/halo256

# stage NAME CMD...: run CMD with its output in $T/NAME.out, its exit status in rc and
# its wall seconds in secs
stage() {
	name=$1; shift
	t0=$(date +%s)
	"$@" >"$T/$name.out" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
}
# within NAME: the stage took under 60 s
within() { check "$1/time" '[ "$secs" -lt 60 ]' "$secs s"; }

"$GEN" -R "$R" -n 256 -N 64 -p halo -t 1 >/dev/null || { fail gen "parse_gen failed"; exit 1; }

stage parse "$CONTEND" parse -q -j 2 "$R"
nr=$(grep -vc '^#' "$R/profile/ranks.tsv" 2>/dev/null)
nm=$(grep -vc '^#' "$R/profile/messages.tsv" 2>/dev/null)
check parse '[ $rc -eq 0 ] && [ "${nr:-0}" -eq 257 ] && [ "${nm:-0}" -gt 10000 ]' \
	"exit $rc, $nr rows in ranks.tsv, $nm in messages.tsv: $(tail -n 1 "$T/parse.out")"
within parse

printf '[scenario]\ndescription = one CPU-bound competitor on gn0 and its link to gn1 capped\n[node gn0]\ncpu_procs = 1\n[link gn0 gn1]\nbandwidth = 100 Mbit/s\n' >"$T/load.ini"
stage predict "$CONTEND" predict "$R" --scenario "$T/load.ini"
check predict '[ $rc -eq 0 ] && grep -q "^replay (paper -): [0-9.]* s" "$T/predict.out" &&
	awk -F"\t" "\$1 == \"replay\"" "$R/predict/load.tsv" | grep -q .' \
	"exit $rc: $(grep -v '^note' "$T/predict.out" | head -n 3)"
within predict

stage explain "$CONTEND" explain -q "$R"
check explain '[ $rc -eq 0 ] && [ ! -s "$T/explain.out" ] && grep -q "^startup" "$R/explain.tsv" &&
	grep -q "^ideal" "$R/explain.tsv" && [ "$(grep -c "^rank-work" "$R/explain.tsv")" -eq 256 ]' "exit $rc: $(head -n 3 "$T/explain.out"), $(head -c 300 "$R/explain.tsv" 2>/dev/null)"
within explain

if command -v gnuplot >/dev/null && command -v pdfunite >/dev/null && command -v pdfinfo >/dev/null &&
	command -v pdftotext >/dev/null; then
	stage report "$CONTEND" report -q --no-png "$R"
	pages=$(pdfinfo "$R/report.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
	check report '[ $rc -eq 0 ] && [ "${pages:-0}" -ge 7 ] && pdftotext "$R/report.pdf" - 2>/dev/null | grep -q "256 ranks"' \
		"exit $rc, ${pages:-no} pages: $(head -n 3 "$T/report.out")"
	within report
else
	echo "SKIP e2e/$E2E_NAME/report: skipped: gnuplot or poppler-utils (pdfunite, pdfinfo, pdftotext) not installed"
fi
exit 0
