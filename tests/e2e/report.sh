#!/bin/sh
# report end to end: hand-built runs (tests/e2e/report-fixture.inc) and every run recorded in
# traces/: the pages each report holds (count, and each page's text with pdftotext), every
# page non-blank (grey pixels counted), the figures alone, pages left out and said so,
# damaged rows counted, gnuplot missing. Prints PASS/FAIL/SKIP lines.
set -u
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CONTEND:=$TOP/${BUILD:-build}/contend}"
for p in gnuplot pdfunite pdftoppm pdftotext; do
	command -v $p >/dev/null 2>&1 || { echo "skipped: $p is not installed"; exit 77; }
done
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
. "$TOP/tests/e2e/report-fixture.inc"

ok() { echo "PASS report/$1"; }
bad() { echo "FAIL report/$1: $2"; }
pages_of() { pdfinfo "$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'; }
page_text() { pdftotext -f "$2" -l "$2" "$1" - 2>/dev/null | tr '\n' ' '; }

# check_report NAME PDF TEXT... : one TEXT per page, in order; page count, text, non-blank.
check_report() {
	name=$1 pdf=$2
	shift 2
	n=$(pages_of "$pdf")
	if [ "${n:-0}" -ne $# ]; then
		bad "$name-pages" "$pdf has ${n:-no} pages, expected $#"
		return
	fi
	ok "$name-pages"
	i=1 fails=""
	for want in "$@"; do	# "-": any text (a page drawn by another program)
		txt=$(page_text "$pdf" $i)
		case $txt in
		*"$want"*) ;;
		*) [ "$want" = - ] || fails="$fails page $i lacks '$want';" ;;
		esac
		d=$(dark_pixels "$pdf" $i)
		[ "${d:-0}" -ge 300 ] || fails="$fails page $i is blank ($d dark pixels);"
		i=$((i + 1))
	done
	if [ -z "$fails" ]; then ok "$name-text-and-ink"; else bad "$name-text-and-ink" "$fails"; fi
}

# 1. An 8-rank master/slave run with topology, a 4-rank and a 2-rank run of the same program.
make_run "$tmpd/r8" 8 60 ws ./mw
make_topo_pdf "$tmpd/r8"
make_run "$tmpd/r4" 4 40 ws ./mw
make_run "$tmpd/r2" 2 30 ws ./mw
if "$CONTEND" report -q "$tmpd/r8" "$tmpd/r4" "$tmpd/r2" 2>"$tmpd/err"; then
	ok three-runs-exit
else
	bad three-runs-exit "exit $?: $(head -n 3 "$tmpd/err")"
fi
check_report r8 "$tmpd/r8/report.pdf" "contend report: r8" "Per-rank timeline" "Communication matrix" \
	"Message size distribution" "Execution characteristics" "Predicted and measured" \
	"Slowdown curves" "Speedup and efficiency" "topology (fixture)" "candidate master" "Why the run took"
check_report r4 "$tmpd/r4/report.pdf" "contend report: r4" "Per-rank timeline" "Communication matrix" \
	"Message size distribution" "Execution characteristics" "Predicted and measured" \
	"Slowdown curves" "Speedup and efficiency" "candidate master" "Why the run took"
# The front page says which pages were left out and why.
txt=$(page_text "$tmpd/r4/report.pdf" 1)
case $txt in
*"left out"*"topology graph: no topology.pdf"*) ok front-says-left-out ;;
*) bad front-says-left-out "front page of r4 does not name the topology page: $txt" ;;
esac
# Every figure alone, as PDF and PNG.
missing=""
for f in 01-front 02-timeline 03-matrix 04-sizes 05-table 06-predicted 07-slowdown 08-speedup 09-topology 10-masters 11-explain; do
	for ext in pdf png; do
		[ -s "$tmpd/r8/figures/$f.$ext" ] || missing="$missing $f.$ext"
	done
done
if [ -z "$missing" ]; then ok figures-alone; else bad figures-alone "missing:$missing"; fi
# Table numbers come from ranks.tsv: rank 3's host and message count are on page 5.
txt=$(page_text "$tmpd/r8/report.pdf" 5)
want=$(awk -F'\t' '$1 == "3" { print $2 " " }' "$tmpd/r8/profile/ranks.tsv")
case $txt in
*"$want"*) ok table-rows ;;
*) bad table-rows "page 5 lacks '$want'" ;;
esac
# Prediction error on the bars: p003 for cpu1 is 1.27 vs 1.31 measured = -3.1 %.
txt=$(page_text "$tmpd/r8/report.pdf" 6)
case $txt in
*"-3.1%"*) ok predicted-error ;;
*) bad predicted-error "page 6 lacks the -3.1% error: $txt" ;;
esac

# 2. Many ranks: the timeline becomes a heat map, the matrix groups ranks.
make_run "$tmpd/big" 80 200 node ./other
if "$CONTEND" report -q --no-png "$tmpd/big" 2>"$tmpd/err"; then
	check_report big "$tmpd/big/report.pdf" "contend report: big" "Busy share per rank" \
		"Communication matrix (heat map, 2 ranks per cell)" "Message size distribution" "Execution characteristics" \
		"Predicted and measured" "Slowdown curves" "candidate master" "Why the run took"
	[ ! -e "$tmpd/big/figures/02-timeline.png" ] && ok no-png || bad no-png "--no-png wrote PNG files"
else
	bad big-exit "exit $?: $(head -n 3 "$tmpd/err")"
fi

# 3. Nothing parsed: no report drawn from nothing; exit 1 with a message to parse first.
mkdir -p "$tmpd/bare/meta"
"$CONTEND" report -q --no-png "$tmpd/bare" 2>"$tmpd/err"
rc=$?
[ $rc -eq 1 ] && ok bare-exit || bad bare-exit "exit $rc, expected 1: $(head -n 3 "$tmpd/err")"
grep -q "is not parsed.*run 'contend parse" "$tmpd/err" && ok bare-says-parse ||
	bad bare-says-parse "no hint to parse first: $(head -n 3 "$tmpd/err")"
[ ! -e "$tmpd/bare/report.pdf" ] && ok bare-no-pdf || bad bare-no-pdf "a report.pdf of an unparsed run"

# 4. Damaged rows are counted (once, by the profile reader) and skipped, the report is still drawn.
make_run "$tmpd/dmg" 4 20 ws ./mw
printf '12\tnot-a-time\t1\t2\n' >>"$tmpd/dmg/profile/messages.tsv"
printf 'x\tbusy\t1\t2\t0\t0\n' >>"$tmpd/dmg/profile/phases.tsv"
"$CONTEND" report --no-png "$tmpd/dmg" >"$tmpd/out" 2>"$tmpd/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "2 damaged profile rows skipped" "$tmpd/err" && [ "$(pages_of "$tmpd/dmg/report.pdf")" -eq 9 ]; then
	ok damaged-rows
else
	bad damaged-rows "exit $rc: $(head -n 3 "$tmpd/err")"
fi

# 5. gnuplot missing: one clear line, exit 1, no report.
mkdir -p "$tmpd/empty"
make_run "$tmpd/nognu" 2 5 ws
env PATH="$tmpd/empty" "$CONTEND" report -q "$tmpd/nognu" >"$tmpd/out" 2>"$tmpd/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "gnuplot is needed for the report" "$tmpd/err" && [ ! -e "$tmpd/nognu/report.pdf" ]; then
	ok gnuplot-missing
else
	bad gnuplot-missing "exit $rc, stderr: $(head -n 2 "$tmpd/err")"
fi
# usage errors
"$CONTEND" report >/dev/null 2>&1
[ $? -eq 2 ] && ok usage || bad usage "no RUN did not exit 2"
"$CONTEND" report "$tmpd/does-not-exist" >/dev/null 2>"$tmpd/err"
[ $? -eq 1 ] && grep -q "cannot open run" "$tmpd/err" && ok missing-run || bad missing-run "$(cat "$tmpd/err")"

# 6. Every recorded run in traces/ (parsed and inferred here when it was not yet): a report
# whose pages all carry ink and their title.
ntr=0
for run in "$TOP"/traces/*/; do
	[ -d "$run/meta" ] || [ -d "$run/profile" ] || continue
	ntr=$((ntr + 1))
	name=$(basename "$run")
	cp -r "$run" "$tmpd/trace-$name"
	r=$tmpd/trace-$name
	rm -rf "$r/figures" "$r/report.pdf"
	# parse exits 1 on a partly damaged capture and still writes the profile
	[ -d "$r/profile" ] || "$CONTEND" parse "$r" >/dev/null 2>"$tmpd/err"
	if [ ! -f "$r/profile/ranks.tsv" ]; then
		bad "trace-$name" "contend parse wrote no profile: $(tail -n 1 "$tmpd/err")"
		continue
	fi
	[ -f "$r/topology.pdf" ] || "$CONTEND" infer "$r" >/dev/null 2>&1
	"$CONTEND" report -q "$r" 2>"$tmpd/err"
	pdf="$r/report.pdf"
	n=$(pages_of "$pdf")
	if [ "${n:-0}" -lt 1 ]; then
		bad "trace-$name" "no report: $(head -n 2 "$tmpd/err")"
		continue
	fi
	# a parsed run always has these pages
	miss=""
	for f in 02-timeline 03-matrix 04-sizes 05-table 07-slowdown; do
		[ -s "$r/figures/$f.pdf" ] || miss="$miss $f"
	done
	[ -z "$miss" ] && ok "trace-$name-core-pages" || bad "trace-$name-core-pages" "missing:$miss"
	wants="contend report"
	for f in "$r"/figures/[0-9][0-9]-*.pdf; do
		case $f in
		*01-front.pdf) ;;
		*02-timeline.pdf) wants="$wants|timeline" ;;
		*03-matrix.pdf) wants="$wants|Communication matrix" ;;
		*04-sizes.pdf) wants="$wants|Message size" ;;
		*05-table.pdf) wants="$wants|Execution characteristics" ;;
		*06-predicted.pdf) wants="$wants|Predicted and measured" ;;
		*07-slowdown.pdf) wants="$wants|Slowdown" ;;
		*08-speedup.pdf) wants="$wants|Speedup" ;;
		*09-topology.pdf) wants="$wants|-" ;;
		*10-masters.pdf) wants="$wants|candidate master" ;;
		*11-explain.pdf) wants="$wants|Why the run took" ;;
		esac
	done
	old=$IFS
	IFS='|'
	# shellcheck disable=SC2086
	set -- $wants
	IFS=$old
	check_report "trace-$name" "$pdf" "$@"
done
# With no recorded run yet, the fabricated runs above are the whole test.
[ $ntr -eq 0 ] && echo "# no recorded run with a profile in traces/: only fabricated runs checked"
exit 0
