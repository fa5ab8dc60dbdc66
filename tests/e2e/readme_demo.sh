#!/bin/sh
# README's main job: `make demo` runs parse, infer, predict and report on a shipped run
# and ends with a multi-page report.pdf.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
cd "$TOP" || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! make -s demo BUILD="$BUILD" >"$out" 2>&1; then
	echo "FAIL readme/demo: make demo failed: $(tail -n 3 "$out" | tr '\n' ' ')"
	exit 1
fi
pdf=$BUILD/demo/stencil-4ws/report.pdf
if [ ! -s "$pdf" ]; then
	echo "FAIL readme/demo-report: no $pdf"
	exit 1
fi
echo "PASS readme/demo"
pages=$(pdfinfo "$pdf" 2>/dev/null | awk '/^Pages:/ {print $2}')
if [ "${pages:-0}" -ge 6 ]; then
	echo "PASS readme/demo-report-pages"
else
	echo "FAIL readme/demo-report-pages: $pdf has ${pages:-no} pages, expected at least 6"
fi
for s in stencil-load-c3ws2 stencil-load-and-link; do
	if [ -s "$BUILD/demo/stencil-4ws/predict/$s.tsv" ] && pdftotext "$pdf" - | grep -q "$s"; then
		echo "PASS readme/demo-scenario-$s"
	else
		echo "FAIL readme/demo-scenario-$s: no prediction for $s in the report"
	fi
done

# analyze again on the same run with one more scenario: parse and infer are kept, the new
# prediction is made and the report redrawn
run=$BUILD/demo/stencil-4ws
sc=$(mktemp --suffix=.ini)
printf '[scenario]\ndescription = a second look\n[node c3ws1]\ncpu_procs = 2\n' >"$sc"
if "$BUILD/contend" analyze --scenario "$sc" "$run" >"$out" 2>&1 &&
	grep -q "analyze: parse: keeping" "$out" && grep -q "analyze: infer: keeping" "$out" &&
	[ -s "$run/predict/$(basename "$sc" .ini).tsv" ]; then
	echo "PASS readme/analyze-again-keeps-stages"
else
	echo "FAIL readme/analyze-again-keeps-stages: $(grep -m 2 -E 'analyze|error' "$out" | tr '\n' ' ')"
fi
rm -f "$sc" "$run/predict/$(basename "$sc" .ini).tsv"
