#!/bin/sh
# ompi_ucx: Open MPI over UCX (pml ucx, on UCX's TCP transport) decoded exactly on the
# testbed. A project workload (ring: eager, multi-record eager and rendezvous sizes) and,
# when Debian's scalapack-mpi-test is installed, a program nobody in the project wrote
# (ScaLAPACK's LU test, bench/realapps in its small form) run under Open MPI with
# `--mca pml ucx` and UCX_TLS=tcp,self, one rank per workstation, with the PMPI wrapper
# (tests/pmpi) logging every send. parse must hand the UCX streams to the Open MPI over UCX
# decoder (no Open MPI ob1 stream, no warning) and rebuild every point-to-point message of
# the truth, with its source, destination, tag and size, and nothing else
# (tests/pmpi/compare.sh). Instance 23 (UCX_E2E_INSTANCE); always brought down.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads
INST=${UCX_E2E_INSTANCE:-23}
E2E_NAME=ompi_ucx
. "$TOP/tests/e2e/checks.inc"
e2e_workdir "" ompi-ucx

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x "$WL/ompi/ring" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }
[ -f "$TOP/$BUILD/pmpi/ompi.so" ] || { echo "skipped: no $BUILD/pmpi/ompi.so (make workloads)"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: Open MPI's mpirun is not installed"; exit 77; }
ompi_info 2>/dev/null | grep -q 'MCA pml: ucx' || { echo "skipped: this Open MPI has no pml ucx"; exit 77; }
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }
up=1
$TB down >/dev/null 2>&1
$TB up -n 2 >"$T/up" 2>&1 || { fail up "$(tail -n 2 "$T/up")"; exit 0; }

UCX="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0"

# judge NAME RUN TRUTH: parse RUN and check its messages against the truth
judge() {
	"$CONTEND" parse "$2" >"$T/$1.parse" 2>&1
	prc=$?
	check "$1-parse" "[ $prc -eq 0 ]" "parse exit $prc: $(grep -m 1 -i 'warn\|error\|ucx' "$T/$1.parse")"
	s=$2/profile/stats.tsv
	check "$1-decoder" "[ \"\$(meta '$s' ompi_ucx_streams)\" -gt 0 ] && [ \"\$(meta '$s' ompi_streams)\" = 0 ] && [ \"\$(meta '$s' mpich_streams)\" = 0 ]" \
		"streams: ompi_ucx $(meta "$s" ompi_ucx_streams), ompi $(meta "$s" ompi_streams), mpich $(meta "$s" mpich_streams) (was pml ucx used?)"
	check "$1-named" "grep -q 'ompi-ucx [1-9]' '$T/$1.parse'" "parse's summary does not name the Open MPI over UCX streams"
	sh "$TOP/tests/pmpi/compare.sh" -q "$2" "$3" >"$T/$1.cmp" 2>&1
	crc=$?
	check "$1-exact" "[ $crc -eq 0 ] && grep -q 'sent=[1-9]' '$T/$1.cmp'" "$(tail -n 1 "$T/$1.cmp")"
}

# the ring workload, 2 ranks on two workstations, at eager, multi-record eager and
# rendezvous sizes
for m in 1k 100k 1M; do
	mkdir -p "$T/truth-$m"
	timeout -k 5 120 $TB mpirun -np 2 -- $UCX "$CONTEND" collect -q -o "$T/ring-$m" -- \
		env LD_PRELOAD="$TOP/$BUILD/pmpi/ompi.so" PMPI_LOG_DIR="$T/truth-$m" \
		"$WL/ompi/ring" -i 10 -c 2 -m $m -q >"$T/ring-$m.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then fail "ring-$m-run" "exit $rc: $(tail -n 2 "$T/ring-$m.out" | tr '\n' ' ')"; continue; fi
	judge "ring-$m" "$T/ring-$m" "$T/truth-$m"
done
# UCX sends 1 MiB by rendezvous (RTS, RTR, PUT): the decoder must have seen it as such
[ -s "$T/ring-1M/profile/messages.tsv" ] &&
	check ring-1M-rndv "awk -F'\t' '\$7 == 7 && \$12 == \"rndv-put\"' '$T/ring-1M/profile/messages.tsv' | grep -q ." \
		"no rendezvous PUT message with the workload's tag 7"
$TB down >/dev/null 2>&1
up=0

# ScaLAPACK's LU test, 4 workstations
if [ -x /usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu ]; then
	up=1	# run.sh leaves the testbed up for a next run: the clean-up takes it down
	INSTANCE=$INST BUILD=$BUILD CONTEND=$CONTEND TIMEOUT=150 timeout -k 10 200 \
		sh "$TOP/bench/realapps/run.sh" lu 4x1 ompi --ucx --small --collect '' \
		--run "$T/lu" --pmpi "$T/lu-truth" >"$T/lu.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q 'exit=0' "$T/lu.out"; then
		judge lu "$T/lu" "$T/lu-truth"
	else
		fail lu-run "exit $rc: $(tail -n 2 "$T/lu.out" | tr '\n' ' ')"
	fi
else
	echo "SKIP e2e/ompi_ucx/lu: skipped: no scalapack-mpi-test (sh bench/realapps/setup.sh)"
fi
