#!/bin/sh
# realapps_inputs: bench/realapps/run.sh writes each layout's inputs as it means to (no
# testbed: `run.sh PROG LAYOUT MPI --inputs DIR`). ScaLAPACK's LU and QR keep their file's
# size on 4x1 and 4x2 (a 2x1 change once turned that size into a control byte and the tests
# refused their input) and take 256 and 200 on 4x4, with the layout's process grid, and on
# 2x1 take 20 problems on a 1 x 2 grid with two block sizes.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
E2E_NAME=realapps_inputs
. "$TOP/tests/e2e/checks.inc"
T=$(mktemp -d /tmp/contend-e2e-realapps-inputs.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

[ -x /usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu ] ||
	{ echo "skipped: no scalapack-mpi-test (sh bench/realapps/setup.sh)"; exit 77; }
# value FILE WHAT: the first field of the line that ends in WHAT
value() { awk -v w="$2" 'index($0, w) { sub(/ +[A-Za-z].*$/, ""); print; exit }' "$1"; }
for p in lu qr; do
	dat=$(echo "$p" | tr a-z A-Z).dat
	for l in 4x1 4x2 4x4 2x1; do
		d=$T/$p-$l
		CONTEND=$CONTEND sh "$TOP/bench/realapps/run.sh" "$p" "$l" ompi --inputs "$d" >"$d.out" 2>&1
		rc=$?
		check "$p-$l/exit" "[ $rc -eq 0 ] && [ -s '$d/$dat' ]" "exit $rc: $(tail -n 2 "$d.out" | tr '\n' ' ')"
		want=$(value "$TOP/bench/realapps/inputs/$dat" "values of M")
		[ "$l" = 4x4 ] && { [ "$p" = lu ] && want=256 || want=200; }
		case $l in 4x1) P=2 Q=2 ;; 4x2) P=2 Q=4 ;; 4x4) P=4 Q=4 ;; 2x1) P=1 Q=2 ;; esac
		if [ "$l" = 2x1 ]; then
			check "$p-$l/sizes" '[ "$(value "$d/$dat" "number of problems sizes")" = 20 ] &&
				[ "$(value "$d/$dat" "values of N" | wc -w)" = 20 ]' \
				"$(grep -E 'problems sizes|values of [MN]' "$d/$dat" | cut -c1-60 | tr '\n' ';')"
		else
			check "$p-$l/sizes" '[ "$(value "$d/$dat" "values of M")" = "$want" ] &&
				[ "$(value "$d/$dat" "values of N")" = "$want" ]' \
				"want $want: $(grep -E 'values of [MN]' "$d/$dat" | od -c | head -n 2 | tr '\n' ' ')"
		fi
		check "$p-$l/grid" '[ "$(value "$d/$dat" "values of P")" = $P ] && [ "$(value "$d/$dat" "values of Q")" = $Q ]' \
			"$(grep -E 'values of [PQ]' "$d/$dat" | tr '\n' ';')"
	done
done
