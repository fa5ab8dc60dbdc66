#!/bin/sh
# report --accuracy end to end: a hand-written results directory in the format bench/accuracy
# writes (accuracy.tsv, fig3.tsv; five workloads, four scenarios, two models, one prediction
# unknown): page count, each page's text, every page non-blank, the figures alone, the summary
# (summary.tsv and the summary page) against averages computed here from the fixture, -o,
# --no-png, -q, hostile names, damaged and missing inputs, usage errors. Prints PASS/FAIL lines.
set -u
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CONTEND:=$TOP/${BUILD:-build}/contend}"
for p in gnuplot pdfunite pdftoppm pdftotext pdfinfo; do
	command -v $p >/dev/null 2>&1 || { echo "skipped: $p is not installed"; exit 77; }
done
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
. "$TOP/tests/e2e/report-fixture.inc"	# dark_pixels

ok() { echo "PASS report_accuracy/$1"; }
bad() { echo "FAIL report_accuracy/$1: $2"; }
pages_of() { pdfinfo "$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'; }
page_text() { pdftotext -layout -f "$2" -l "$2" "$1" - 2>/dev/null | tr '\n' ' ' | tr -s ' '; }

# make_results DIR: accuracy.tsv and fig3.tsv with made-up but plausible numbers. Each
# scenario slows every workload by its own factor; predictions are off by a few percent;
# farm has no p000 prediction in agg (-1). error_pct is printed as bench/accuracy does (%+.1f).
make_results() {
	mkdir -p "$1"
	awk -v dir="$1" 'BEGIN {
		OFS = "\t"
		f = dir "/accuracy.tsv"
		print "# contend-accuracy 1" > f
		print "workload", "scenario", "model", "dedicated_ns", "predicted_ns", "measured_ns",
		      "measured_min_ns", "measured_max_ns", "reps", "error_pct", "description" > f
		nw = split("stencil alltoall solver farm compute", W, " ")
		split("2100000000 1500000000 3200000000 2700000000 4000000000", D, " ")
		ns = split("cpu1 link both agg", S, " ")
		split("1.40 1.25 1.70 1.90", F, " ")
		desc["cpu1"] = "one CPU-bound competitor on ws1"
		desc["link"] = "the ws1 link capped at 10 Mbit/s"
		desc["both"] = "cpu1 and link together"
		desc["agg"] = "serial and parallel competitors on ws1-ws3 (paper 000)"
		for (s = 1; s <= ns; s++)
			for (w = 1; w <= nw; w++) {
				m = int(D[w] * F[s] * (1 + 0.03 * w))
				nm = S[s] == "agg" ? 2 : 1
				for (k = 1; k <= nm; k++) {
					model = S[s] == "agg" && k == 1 ? "p000" : "p003"
					if (W[w] == "farm" && model == "p000") {
						print W[w], S[s], model, D[w], -1, m, int(m * 0.97), int(m * 1.04), 5, "-",
						      desc[S[s]] > f
						continue
					}
					p = int(m * (1 + (w - 3) * 0.017 * s + (k - 1) * 0.011))
					print W[w], S[s], model, D[w], p, m, int(m * 0.97), int(m * 1.04), 5,
					      sprintf("%+.1f", 100 * (p - m) / m), desc[S[s]] > f
				}
			}
		close(f)
		f = dir "/fig3.tsv"
		print "# contend-fig3 1" > f
		print "workload", "exec_ns", "comp_pct", "comm_pct", "idle_pct", "avg_busy_ns", "avg_idle_ns",
		      "link_msgs", "link_avg_bytes", "ranks" > f
		print "stencil", 2100000000, 71.2, 20.1, 8.7, 45000000, 12000000, 400, 32768, 4 > f
		print "alltoall", 1500000000, 35.5, 55, 9.5, 8000000, 9000000, 1200, 131072, 3 > f
		print "solver", 3200000000, 80.1, 12.3, 7.6, 120000000, 15000000, 250, 8192, 4 > f
		print "farm", 2700000000, 60, 5, 35, 200000000, 90000000, 64, 1024, 3 > f
		print "compute", 4000000000, 98.2, 0.5, 1.3, 3900000000, -1, 6, 8, 3 > f
		close(f)
	}'
}

# expected_summary FILE: "scenario model n avg max" per (scenario, model), from the times.
expected_summary() {
	awk -F'\t' 'NR > 2 {
		k = $2 " " $3
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		if ($5 == -1 || $6 == -1) next
		e = 100 * ($5 - $6) / $6; if (e < 0) e = -e
		cnt[k]++; sum[k] += e; if (e > max[k]) max[k] = e
	}
	END { for (i = 1; i <= n; i++) { k = order[i]; printf "%s %d %.4f %.4f\n", k, cnt[k], sum[k] / cnt[k], max[k] } }' "$1"
}

d=$tmpd/acc
make_results "$d"
if "$CONTEND" report --accuracy "$d" 2>"$tmpd/err"; then ok exit; else bad exit "exit $?: $(head -n 3 "$tmpd/err")"; fi
n=$(pages_of "$d/accuracy.pdf")
if [ "${n:-0}" -eq 6 ]; then ok pages; else bad pages "$d/accuracy.pdf has ${n:-no} pages, expected 6 (table, 4 scenarios, summary)"; fi
case $(cat "$tmpd/err") in
*"wrote '$d/accuracy.pdf' (6 pages"*) ok says-written ;;
*) bad says-written "stderr: $(cat "$tmpd/err")" ;;
esac

# Each page: its title, and ink on it.
fails=""
i=1
for want in "paper 003, Figure 3" "scenario 'cpu1'" "scenario 'link'" "scenario 'both'" "scenario 'agg'" \
	"Prediction error per scenario"; do
	txt=$(page_text "$d/accuracy.pdf" $i | sed "s/\xe2\x80\x99/'/g")
	case $txt in *"$want"*) ;; *) fails="$fails page $i lacks '$want';" ;; esac
	dk=$(dark_pixels "$d/accuracy.pdf" $i)
	[ "${dk:-0}" -ge 300 ] || fails="$fails page $i is blank ($dk dark pixels);"
	i=$((i + 1))
done
if [ -z "$fails" ]; then ok titles-and-ink; else bad titles-and-ink "$fails"; fi

missing=""
for f in 01-fig3 02-fig4-cpu1 03-fig4-link 04-fig4-both 05-fig4-agg 06-summary; do
	for ext in pdf png; do [ -s "$d/figures/$f.$ext" ] || missing="$missing $f.$ext"; done
done
if [ -z "$missing" ]; then ok figures-alone; else bad figures-alone "missing:$missing"; fi
n=$(pages_of "$d/figures/05-fig4-agg.pdf")
[ "${n:-0}" -eq 1 ] && ok figure-one-page || bad figure-one-page "05-fig4-agg.pdf has ${n:-no} pages"

# Figure 3 rows come from fig3.tsv.
txt=$(page_text "$d/accuracy.pdf" 1)
case $txt in
*"alltoall 3 1.500 35.5 55.0 9.5 8.0 9.0 1200 128.0"*"compute 3 4.000 98.2 0.5 1.3 3900.0 - 6 0.01"*) ok fig3-rows ;;
*) bad fig3-rows "page 1: $txt" ;;
esac

# The errors on the bars: those of cpu1 computed here from the times, and n/a for farm/p000.
want=$(awk -F'\t' 'NR > 2 && $2 == "cpu1" { printf "%+.1f%%\n", 100 * ($5 - $6) / $6 }' "$d/accuracy.tsv")
txt=$(pdftotext -f 2 -l 2 "$d/accuracy.pdf" - 2>/dev/null)
fails=""
for e in $want; do
	printf '%s\n' "$txt" | grep -qxF -- "$e" || fails="$fails $e"
done
if [ -z "$fails" ] && [ "$(printf '%s\n' "$want" | wc -l)" -eq 5 ]; then ok bar-errors; else bad bar-errors "page 2 lacks:$fails"; fi
txt=$(page_text "$d/accuracy.pdf" 5)
case $txt in
*"n/a"*"farm, p000: no prediction"*) ok unknown-prediction-noted ;;
*) bad unknown-prediction-noted "page 5: $txt" ;;
esac

# The summary: summary.tsv and page 6 hold the averages computed here (scenarios and models
# each in order of first appearance, so agg lists p003 before p000).
expected_summary "$d/accuracy.tsv" >"$tmpd/want"
awk -F'\t' 'NR > 2 { printf "%s %s %d %.4f %.4f\n", $1, $2, $3, $4, $5 }' "$d/summary.tsv" >"$tmpd/got"
if [ "$(head -n 1 "$d/summary.tsv")" = "# contend-accuracy-summary 1" ] &&
   [ "$(wc -l <"$tmpd/want")" -eq 5 ] && [ "$(sort "$tmpd/want")" = "$(sort "$tmpd/got")" ]; then
	ok summary-tsv
else
	bad summary-tsv "expected: $(tr '\n' ';' <"$tmpd/want") got: $(tr '\n' ';' <"$tmpd/got")"
fi
paper=$(awk -F'\t' 'NR > 2 { printf "%s/%s:%s:%s ", $1, $2, $6, $7 }' "$d/summary.tsv")
if [ "$paper" = "cpu1/p003:2.3:7.8 link/p003:2:7.4 both/p003:5.7:11.8 agg/p003:-:- agg/p000:-:15 " ]; then
	ok summary-paper-figures
else
	bad summary-paper-figures "$paper"
fi
txt=$(page_text "$d/accuracy.pdf" 6)
fails=""
while read -r sc mo cnt avg max; do
	rows=$(awk -F'\t' -v s="$sc" -v m="$mo" 'NR > 2 && $2 == s && $3 == m' "$d/accuracy.tsv" | wc -l)
	row=$(printf '%s %s %d of %d %.1f %.1f' "$sc" "$mo" "$cnt" "$rows" "$avg" "$max")
	case $txt in *"$row"*) ;; *) fails="$fails '$row';" ;; esac
done <"$tmpd/want"
if [ -z "$fails" ]; then ok summary-page; else bad summary-page "page 6 lacks$fails: $txt"; fi

# -o, --no-png, -q.
d2=$tmpd/acc2
make_results "$d2"
if "$CONTEND" report -q --no-png --accuracy "$d2" -o "$tmpd/out.pdf" 2>"$tmpd/err" && [ ! -s "$tmpd/err" ] &&
   [ "$(pages_of "$tmpd/out.pdf")" = 6 ] && [ ! -e "$d2/accuracy.pdf" ] && [ -s "$d2/figures/01-fig3.pdf" ] &&
   ! ls "$d2"/figures/*.png >/dev/null 2>&1; then
	ok output-no-png-quiet
else
	bad output-no-png-quiet "stderr: $(cat "$tmpd/err"); $(ls "$d2" "$d2/figures" 2>&1 | tr '\n' ' ')"
fi

# Hostile names: quotes, backticks, system(), a newline escape; nothing runs, names printed.
d3=$tmpd/acc3
make_results "$d3"
printf "x'\`touch %s/m1\`\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t3\t10.0\tsystem(\"touch %s/m2\") '\\\\n@x\n" \
	"$tmpd" "$tmpd" >>"$d3/accuracy.tsv"
printf "w\t\`touch %s/m3\`\tp003\t1000\t1100\t1000\t900\t1200\t3\t10.0\td\n" "$tmpd" >>"$d3/accuracy.tsv"
if "$CONTEND" report -q --no-png --accuracy "$d3" 2>"$tmpd/err" && [ ! -e "$tmpd/m1" ] && [ ! -e "$tmpd/m2" ] &&
   [ ! -e "$tmpd/m3" ] && [ "$(pages_of "$d3/accuracy.pdf")" = 7 ] &&
   page_text "$d3/accuracy.pdf" 2 | grep -q 'touch' && ls "$d3/figures" | grep -q '^06-fig4-_touch_'; then
	ok hostile-names
else
	bad hostile-names "exit/markers/pages: $(cat "$tmpd/err"); $(ls "$tmpd" "$d3/figures" | tr '\n' ' ')"
fi

# Bad input: exit 1 with one line.
one_line_fail() {	# NAME WANT DIR: exit 1, exactly one line on stderr, holding WANT
	"$CONTEND" report --no-png --accuracy "$3" 2>"$tmpd/err" >/dev/null
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmpd/err")" -eq 1 ] && grep -qF -- "$2" "$tmpd/err"; then
		ok "$1"
	else
		bad "$1" "exit $rc: $(cat "$tmpd/err")"
	fi
}
one_line_fail missing-dir "cannot open '$tmpd/none/accuracy.tsv'" "$tmpd/none"
mkdir -p "$tmpd/b1" "$tmpd/b2" "$tmpd/b3"
printf '# contend-messages 1\na\tb\n' >"$tmpd/b1/accuracy.tsv"
one_line_fail wrong-header "'$tmpd/b1/accuracy.tsv' is not a contend-accuracy file" "$tmpd/b1"
head -n 2 "$d/accuracy.tsv" >"$tmpd/b2/accuracy.tsv"
printf 'short\trow\nstencil\tcpu1\tp003\tabc\t1\t1\t1\t1\t5\t0.0\td\n' >>"$tmpd/b2/accuracy.tsv"
one_line_fail no-usable-row "'$tmpd/b2/accuracy.tsv' has no usable row (2 damaged" "$tmpd/b2"
printf '\037\213garbage' >"$tmpd/b3/accuracy.tsv"
one_line_fail binary-file "accuracy.tsv" "$tmpd/b3"

# Damaged rows among good ones: counted in one warning, the report still written (exit 0).
d4=$tmpd/acc4
make_results "$d4"
printf 'cut\trow\nstencil\tcpu1\tp003\t1\t1\t1\t1\t1\t5\t0.0\tduplicate\n' >>"$d4/accuracy.tsv"
"$CONTEND" report --no-png --accuracy "$d4" 2>"$tmpd/err" >/dev/null
rc=$?
if [ $rc -eq 0 ] && grep -q "2 damaged rows skipped (first: '$d4/accuracy.tsv' line 28: 2 fields" "$tmpd/err" &&
   [ "$(pages_of "$d4/accuracy.pdf")" = 6 ]; then
	ok damaged-rows-counted
else
	bad damaged-rows-counted "exit $rc: $(cat "$tmpd/err")"
fi
# A scenario dropped since the last report: its old figures go (other files stay).
: >"$d4/figures/keep.txt"
awk -F'\t' '$2 != "link"' "$d4/accuracy.tsv" >"$tmpd/a" && cp "$tmpd/a" "$d4/accuracy.tsv"
"$CONTEND" report -q --no-png --accuracy "$d4" 2>"$tmpd/err" >/dev/null
if [ "$(pages_of "$d4/accuracy.pdf")" = 5 ] && [ ! -e "$d4/figures/03-fig4-link.pdf" ] &&
   [ ! -e "$d4/figures/06-summary.pdf" ] && [ ! -e "$d4/figures/06-summary.png" ] &&
   [ -s "$d4/figures/05-summary.pdf" ] && [ -s "$d4/figures/03-fig4-both.pdf" ] && [ -e "$d4/figures/keep.txt" ]; then
	ok old-figures-removed
else
	bad old-figures-removed "$(ls "$d4/figures" | tr '\n' ' ')"
fi
# fig3.tsv missing: its page is left out, the rest is drawn, exit 1.
rm -f "$d4/fig3.tsv" "$d4/accuracy.pdf"
"$CONTEND" report -q --no-png --accuracy "$d4" 2>"$tmpd/err" >/dev/null
rc=$?
if [ $rc -eq 1 ] && [ "$(pages_of "$d4/accuracy.pdf")" = 4 ] && grep -q "fig3.tsv" "$tmpd/err" &&
   [ ! -e "$d4/figures/01-fig3.pdf" ]; then
	ok fig3-missing
else
	bad fig3-missing "exit $rc, $(pages_of "$d4/accuracy.pdf") pages: $(cat "$tmpd/err")"
fi

# Usage.
"$CONTEND" report --accuracy "$d" "$d" >/dev/null 2>&1
rc1=$?
"$CONTEND" report -o "$tmpd/x.pdf" "$d" >/dev/null 2>&1
rc2=$?
"$CONTEND" report --accuracy >/dev/null 2>&1
rc3=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ]; then ok usage; else bad usage "exits $rc1 $rc2 $rc3, expected 2"; fi
if "$CONTEND" report --help | grep -q -- '--accuracy DIR' && "$CONTEND" report --help | grep -q 'contend report --accuracy '; then
	ok help
else
	bad help "report --help does not document --accuracy with an example"
fi
