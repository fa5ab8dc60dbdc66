#!/bin/sh
# realapps_coupling: bench/realapps/coupling.sh on ScaLAPACK's LU test (Open MPI), 4x1, one
# round: the table and the TSV are produced, every figure finite, and the testbed's coupling
# is there to see: with two workstations' polling ranks on each core the default run takes
# more than 5 times the yielding one (about 90 times on the machine it was measured on,
# docs/validation.md "The testbed's coupling"). Instance 16 (REALAPPS_E2E_INSTANCE); the
# script brings its testbed down.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
INST=${REALAPPS_E2E_INSTANCE:-16}
E2E_NAME=realapps_coupling
. "$TOP/tests/e2e/checks.inc"
T=$(mktemp -d /tmp/contend-e2e-coupling.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x /usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu ] ||
	{ echo "skipped: no scalapack-mpi-test (sh bench/realapps/setup.sh)"; exit 77; }
"$CONTEND" testbed --instance "$INST" check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }

sh "$TOP/bench/realapps/coupling.sh" 0 >"$T/usage" 2>&1
rc=$?
check usage "[ $rc -eq 2 ]" "coupling.sh 0: exit $rc"

PROGS=lu INSTANCE=$INST BUILD=$BUILD CONTEND=$CONTEND timeout -k 10 300 \
	sh "$TOP/bench/realapps/coupling.sh" -o "$T/c.tsv" 1 >"$T/out" 2>"$T/err"
rc=$?
check exit "[ $rc -eq 0 ]" "coupling.sh exit $rc: $(tail -n 3 "$T/err" | tr '\n' ' ')"
if grep -q 'skipped:' "$T/out"; then echo "skipped: $(grep -m 1 'skipped:' "$T/out" | sed 's/.*skipped: *//')"; exit 77; fi

num='^[0-9]+(\.[0-9]+)?$'
row=$(awk '$1 == "lu"' "$T/out")
poll=$(echo "$row" | awk '{ print $4 }')
yield=$(echo "$row" | awk '{ print $6 }')
ratio=$(echo "$row" | awk '{ print $8 }')
check row "[ -n \"\$row\" ]" "no lu row in: $(tr '\n' '|' <"$T/out")"
check poll-finite "echo '$poll' | grep -Eq '$num'" "poll median '$poll'"
check yield-finite "echo '$yield' | grep -Eq '$num'" "yield median '$yield'"
check coupled "awk -v r='$ratio' 'BEGIN { exit !(r + 0 > 5) }'" "polling / yielding = $ratio (poll $poll s, yield $yield s)"
n=$(awk -F'\t' 'NR > 1 && $1 == "lu" && ($3 == "poll" || $3 == "yield")' "$T/c.tsv" 2>/dev/null | wc -l)
check tsv-rows "[ $n -eq 2 ]" "$n lu rows in the TSV"
