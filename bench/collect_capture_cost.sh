#!/bin/sh
# What the packet capture costs in a communication-heavy job: Open MPI all-to-all over
# loopback (2 ranks, -i 200 -c 2 -m 256k: about 100 MB through the capture), run N times
# in each variant, alternated: without collect, `collect --no-capture`, collect (default:
# batch mode, plain pcap), `collect --compress-level 1`, `collect --compress` (level 6),
# `collect --snaplen 256`, `collect --immediate`, `collect --immediate --compress-level 1`
# (VARIANTS="..." picks some; `batch` is --batch explicitly). Prints per variant the
# median of the application's wall_s, of the capture thread's CPU time (node-*.tsv
# capture_utime_ns + capture_stime_ns), of that CPU time per MB captured (bytes_written),
# and of all agents' CPU time (rank-*.tsv agent_*_ns, at the app's end), the capture file
# size, and the load average.
# Usage: BUILD=build-x sh bench/collect_capture_cost.sh [RUNS] [WORKLOAD ARGS...]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
N=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- alltoall -i 200 -c 2 -m 256k
. "$TOP/bench/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$B/workloads/ompi/$1" ] || { echo "no $B/workloads/ompi/$1 (make workloads)" >&2; exit 1; }
wl=$1; shift
WLARGS=$*
launch() {
	mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self --mca btl_tcp_if_include lo -np 2 "$@"
}
variants=${VARIANTS:-base nocap plain gzip1 gzip6 snap256 immed immedgz1}
for v in $variants; do : >"$T/$v.wall"; : >"$T/$v.cap"; : >"$T/$v.agent"; : >"$T/$v.size"; : >"$T/$v.permb"; done
load0=$(cat /proc/loadavg)
i=0
while [ $i -lt "$N" ]; do
	for v in $variants; do
		rm -rf "$T/run"
		case $v in
		base) set -- ;;
		*)	opts=$(collect_opts "$v") || { echo "unknown variant '$v'" >&2; exit 2; }
			# shellcheck disable=SC2086
			set -- "$CONTEND" collect -q $opts -o "$T/run" -- ;;
		esac
		# shellcheck disable=SC2086
		launch "$@" "$B/workloads/ompi/$wl" $WLARGS -q 2>/dev/null | awk '/^wall_s/ { print $2 }' >>"$T/$v.wall"
		if [ "$v" != base ]; then
			echo "$(meta_ms capture_utime_ns "$T"/run/meta/node-*.tsv) $(meta_ms capture_stime_ns "$T"/run/meta/node-*.tsv)" |
				awk '{ print $1 + $2 }' | tee -a "$T/$v.cap" >"$T/last.cap"
			mb=$(meta_sum bytes_written "$T"/run/meta/node-*.tsv | awk '{ printf "%.3f", $1 / 1e6 }')
			awk -v c="$(cat "$T/last.cap")" -v mb="$mb" 'BEGIN { if (mb > 0) printf "%.3f\n", c / mb }' >>"$T/$v.permb"
			echo "$(meta_ms agent_utime_ns "$T"/run/meta/rank-*.tsv) $(meta_ms agent_stime_ns "$T"/run/meta/rank-*.tsv)" |
				awk '{ print $1 + $2 }' >>"$T/$v.agent"
			du -sk "$T/run/capture" 2>/dev/null | cut -f1 >>"$T/$v.size"
		fi
	done
	i=$((i + 1))
done
echo "workload: $wl $WLARGS (2 ranks, Open MPI over lo), runs $N per variant"
printf '%-8s %10s %14s %18s %16s %12s\n' variant wall_s capture_cpu_ms capture_cpu_ms_MB agents_cpu_ms capture_KiB
for v in $variants; do
	printf '%-8s %10s %14s %18s %16s %12s\n' "$v" "$(median <"$T/$v.wall")" "$(median <"$T/$v.cap")" \
		"$(median <"$T/$v.permb")" "$(median <"$T/$v.agent")" "$(median <"$T/$v.size")"
done
echo "load before: $load0"
echo "load after:  $(cat /proc/loadavg)"
