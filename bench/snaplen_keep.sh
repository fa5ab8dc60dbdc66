#!/bin/sh
# What a cut capture keeps: each workload is collected on the testbed (3 workstations,
# instance 10 unless INST=K) once with full payloads and once with --snaplen 256, both
# runs are parsed, and their MPI messages (source, destination, tag, size, library) are
# compared. Prints per workload the messages of each run, how many are the same in both,
# the capture sizes and the flags of the cut run's messages. MPICH jobs are bounded to
# 40 s (MPICH 4.0.2 over UCX may hang in MPI_Finalize after its work; the run is kept).
# Usage: BUILD=build-x sh bench/snaplen_keep.sh [SNAPLEN]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
INST=${INST:-10}
SNAP=${1:-256}
. "$TOP/bench/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/contend-snap.XXXXXX")
cleanup() {
	testbed_release "$INST"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
testbed_ensure "$INST" "$T"

one() {	# one IMPL SNAPLEN OUT WORKLOAD ARGS...
	impl=$1 sn=$2 out=$3
	shift 3
	rm -rf "$out"
	if [ "$impl" = ompi ]; then
		"$CONTEND" testbed --instance "$INST" mpirun --tcp -np 3 -- \
			"$CONTEND" collect -q --snaplen "$sn" -o "$out" -- "$B/workloads/ompi/$@" -q </dev/null >/dev/null 2>&1
	else
		timeout -k 5 40 "$CONTEND" testbed --instance "$INST" mpirun --mpich --tcp -np 3 -- \
			"$CONTEND" collect -q --snaplen "$sn" -o "$out" -- "$B/workloads/mpich/$@" -q </dev/null >/dev/null 2>&1
	fi
	"$CONTEND" parse -q "$out" >/dev/null 2>&1
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $11 != "generic" { print $3, $4, $7, $9, $11 }' \
		"$out/profile/messages.tsv" 2>/dev/null | sort >"$out.msgs"
}

printf '%-5s %-34s %6s %6s %6s %10s %10s  %s\n' mpi workload full cut same full_KiB cut_KiB cut_flags
while read -r impl wl; do
	[ -n "$impl" ] || continue
	[ -x "$B/workloads/$impl/${wl%% *}" ] || { echo "no $B/workloads/$impl/${wl%% *} (make workloads)" >&2; continue; }
	# shellcheck disable=SC2086
	one "$impl" 262144 "$T/full" $wl
	# shellcheck disable=SC2086
	one "$impl" "$SNAP" "$T/cut" $wl
	printf '%-5s %-34s %6s %6s %6s %10s %10s  %s\n' "$impl" "$wl" "$(wc -l <"$T/full.msgs")" \
		"$(wc -l <"$T/cut.msgs")" "$(comm -12 "$T/full.msgs" "$T/cut.msgs" | wc -l)" \
		"$(du -sk "$T/full/capture" | cut -f1)" "$(du -sk "$T/cut/capture" | cut -f1)" \
		"$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $11 != "generic" { print $14 }' "$T/cut/profile/messages.tsv" |
			sort | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }')"
done <<LIST
ompi alltoall -i 200 -c 2 -m 256k
ompi stencil
ompi solver
ompi farm
mpich stencil
mpich alltoall -i 50 -c 2 -m 256k
LIST
echo "snaplen $SNAP against 262144; 'same': messages identical in both runs (the farm hands out work dynamically, so its runs differ anyway)"
