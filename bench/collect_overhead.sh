#!/bin/sh
# Overhead of `contend collect`: the application's own wall time (its "wall_s" line) with
# and without collect, alternated, N runs each, for a compute-heavy and a
# communication-heavy workload; prints medians and the ratio (target: <= 1.02).
# On the testbed (instance 5, or INST=K; brought up beforehand) when TESTBED=1, else Open
# MPI over loopback. COLLECT_OPTS adds options to collect (e.g. --immediate).
# bench/collect_bound.sh sets this against bare tcpdump on the same testbed.
# Usage: BUILD=build-x sh bench/collect_overhead.sh [RUNS]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
N=${1:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
launch() {
	if [ "${TESTBED:-0}" = 1 ]; then "$CONTEND" testbed --instance "${INST:-5}" mpirun -np 3 -- "$@"
	else mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self --mca btl_tcp_if_include lo -np 2 "$@"
	fi
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for wl in "compute -i 100 -c 20" "alltoall -i 200 -c 2 -m 256k"; do
	name=${wl%% *}
	: >"$T/base"; : >"$T/coll"
	i=0
	while [ $i -lt "$N" ]; do
		# shellcheck disable=SC2086
		launch "$B/workloads/ompi/"$wl -q 2>/dev/null | awk '/^wall_s/ { print $2 }' >>"$T/base"
		rm -rf "$T/run"
		# shellcheck disable=SC2086
		# shellcheck disable=SC2086
		launch "$CONTEND" collect -q ${COLLECT_OPTS:-} -o "$T/run" -- "$B/workloads/ompi/"$wl -q 2>/dev/null |
			awk '/^wall_s/ { print $2 }' >>"$T/coll"
		i=$((i + 1))
	done
	b=$(median <"$T/base"); c=$(median <"$T/coll")
	drops=$(cat "$T"/run/meta/node-*.tsv 2>/dev/null | awk -F'\t' '$1 == "pcap_drop" { s += $2 } END { print s + 0 }')
	echo "$name: runs $N  median without ${b} s  with ${c} s  ratio $(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.3f", c / b }')  kernel drops (last run) $drops"
	echo "  without: $(tr '\n' ' ' <"$T/base")"
	echo "  with:    $(tr '\n' ' ' <"$T/coll")"
done
echo "load: $(cat /proc/loadavg)"
