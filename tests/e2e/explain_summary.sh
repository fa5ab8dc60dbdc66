#!/bin/sh
# explain_summary: bench/explain.sh --summary scores a hand-built explain.tsv whose counts
# are known: the injected cause first, the dedicated runs without a cause over 5 %, the
# ideal run and its floor (each round's own dedicated run) within 7 % of the median
# dedicated run, the split within 5 %; a file of another kind refused. No testbed.
set -u
: "${TOP:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
E2E_NAME=explain_summary
. "$TOP/tests/e2e/checks.inc"
S=$TOP/bench/explain.sh
tab() { printf '%s' "$1" | tr ' ' '\t'; printf '\n'; }
# one program, dedicated runs of 10.5, 11 and 13 s (median 11: rounds 1 and 2 within 7 %,
# round 3 not); ideal runs of 11.5 (in), 9.0 (out) and 12.9 (out, 17 % over); splits of the
# 20 s runs: 10.5 + 9.5 = 20 (in), 11 + 5 = 16 (out), 13 + 6.5 = 19.5 (in)
{
	tab "prog mpi scenario round first second injected_first attributed_s measured_s loaded_s dedicated_s exec_s ideal_s baseline_exec_s causes_s"
	tab "p ompi cpu1 1 cpu@ws2 startup@- yes 9.5 10 20 10.5 20 11.5 10.5 9.5"
	tab "p ompi cpu1 2 link@ws1-ws2 cpu@ws2 no 5 9 20 11 20 9.0 11 5"
	tab "p ompi cpu1 3 cpu@ws2 - yes 6.5 7 20 13 20 12.9 13 6.5"
	tab "p ompi none 1 startup@- - yes 0 0 10 10 10 9.8 11 0"
	tab "p ompi none 2 cpu@ws2 - no 0.9 1 11 11 11 10.2 13 0.9"
} >"$T/explain.tsv"
sh "$S" --summary "$T/explain.tsv" >"$T/out" 2>"$T/err"
rc=$?
line() { grep "$1" "$T/out"; }
[ $rc -eq 0 ] && line '^2 of 3 cases with the injected cause first' >/dev/null && pass first ||
	fail first "exit $rc: $(cat "$T/out" "$T/err")"
line '^1 of 2 dedicated runs with no cause above 5 %' >/dev/null && pass dedicated || fail dedicated "$(cat "$T/out")"
line '^1 of 3 ideal runs within 7 % of the median dedicated run (the rounds'"'"' own dedicated runs: 2)$' >/dev/null &&
	pass ideal-floor || fail ideal-floor "$(line ideal)"
line '^2 of 3 splits' >/dev/null && pass split || fail split "$(line splits)"
printf 'prog\tsomething\n' >"$T/other.tsv"
sh "$S" --summary "$T/other.tsv" >/dev/null 2>"$T/berr"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$T/berr")" -eq 1 ] && pass refuses || fail refuses "exit $rc: $(cat "$T/berr")"
