#!/bin/sh
# report with hostile names: a run directory and host names full of quotes, backticks,
# $(...), system("...") and @macros. Nothing may run (no marker file appears) and the report
# still comes out with the names on its pages. Prints PASS/FAIL lines.
set -u
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CONTEND:=$TOP/${BUILD:-build}/contend}"
for p in gnuplot pdfunite pdftoppm pdftotext; do
	command -v $p >/dev/null 2>&1 || { echo "skipped: $p is not installed"; exit 77; }
done
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
. "$TOP/tests/e2e/report-fixture.inc"

cd "$tmpd" || exit 1
m=marker	# relative: anything run from here would leave tmpd/marker.N
hp="h'q''\`touch $m.1\`\$(touch $m.2)system(\"touch $m.3\")@x;!touch $m.4 \\b"
run="$tmpd/run '\`touch $m.5\`\$(touch $m.6)"
make_run "$run" 4 12 "$hp" "./a'\`touch $m.7\`"
mkdir -p "$tmpd/plain"
make_topo_pdf "$tmpd/plain"
cp "$tmpd/plain/topology.pdf" "$run/topology.pdf"
"$CONTEND" report -q "$run" 2>"$tmpd/err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$run/report.pdf" ]; then
	echo "PASS report_hostile/report-written"
else
	echo "FAIL report_hostile/report-written: exit $rc: $(head -n 3 "$tmpd/err")"
fi
found=$(ls "$tmpd" | grep -c '^marker')
if [ "$found" -eq 0 ]; then
	echo "PASS report_hostile/nothing-executed"
else
	echo "FAIL report_hostile/nothing-executed: $(ls "$tmpd" | grep '^marker' | tr '\n' ' ')"
fi
n=$(pdfinfo "$run/report.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
[ "${n:-0}" -eq 9 ] && echo "PASS report_hostile/pages" || echo "FAIL report_hostile/pages: ${n:-no} pages, expected 9"
[ -s "$run/figures/09-topology.png" ] && echo "PASS report_hostile/topology-png" || echo "FAIL report_hostile/topology-png: not drawn"
# The names are printed as they are (apostrophes as typographic ones, long names cut) on the
# front page and the table.
txt=$(pdftotext -f 1 -l 5 "$run/report.pdf" - 2>/dev/null | tr '\n' ' ')
case $txt in
*"./a’\`touch $m.7\`"*"h’q’’\`touch $m.1\`\$(touch $m.2)system(\"touch $m.3"*) echo "PASS report_hostile/names-shown" ;;
*) echo "FAIL report_hostile/names-shown: $(printf '%s' "$txt" | head -c 400)" ;;
esac
exit 0
