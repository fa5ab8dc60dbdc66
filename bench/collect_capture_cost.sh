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
#
# Offline, the user-space part of a framed capture's cost on full captures (from
# `collect --payload full`, or tcpdump), with no MPI job and no testbed:
#   sh bench/collect_capture_cost.sh --trim [ROUNDS] CAPTURE...
# In each of ROUNDS rounds (default 3), `contend trim` of every CAPTURE (plain pcap, read
# from the page cache) REPEAT times back to back (default 10), and bench/pcap_loop
# reading them as often (the reading trim does and the capture thread does not: libpcap
# hands it the packets in place), each timed by GNU time. Prints the median and range of
# the user CPU per MB read of both and their difference (the cut and the writing, as the
# capture thread does them). With valgrind, also one callgrind run of trim on the first
# CAPTURE: instructions per packet and per MB of the cut (framecut_keep) and of writing
# the records (write_record; pcap_dump in older builds); deterministic, so comparable on a
# shared machine. CONTEND=PATH measures another build.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
if [ "${1:-}" = --trim ]; then
	shift
	N=3
	case ${1:-} in [0-9]*) N=$1; shift ;; esac
	REPEAT=${REPEAT:-10}
	[ $# -gt 0 ] || { echo "usage: sh bench/collect_capture_cost.sh --trim [ROUNDS] CAPTURE..." >&2; exit 2; }
	[ -x "$B/bench/pcap_loop" ] || { echo "no $B/bench/pcap_loop (make bench)" >&2; exit 1; }
	[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }
	. "$TOP/bench/lib.sh"
	T=$(mktemp -d "${TMPDIR:-/tmp}/contend-trimcost.XXXXXX")
	trap 'rm -rf "$T"' EXIT INT TERM
	bytes=0 packets=0
	for f in "$@"; do
		"$B/bench/pcap_loop" "$f" >"$T/loop" || exit 1
		bytes=$((bytes + $(awk '{ print $4 }' "$T/loop")))
		packets=$((packets + $(awk '{ print $2 }' "$T/loop")))
	done
	mb=$(awk -v b="$bytes" -v r="$REPEAT" 'BEGIN { printf "%.3f", b * r / 1e6 }')
	: >"$T/trim"; : >"$T/read"; : >"$T/cut"
	i=0
	while [ $i -lt "$N" ]; do
		/usr/bin/time -f %U -o "$T/t" sh -c 'r=$1; c=$2; o=$3; shift 3; k=0
			while [ $k -lt "$r" ]; do for f; do "$c" trim --force "$f" "$o" >/dev/null || exit 1; done; k=$((k + 1)); done' \
			sh "$REPEAT" "$CONTEND" "$T/out.pcap" "$@" || exit 1
		tu=$(tail -1 "$T/t")
		/usr/bin/time -f %U -o "$T/t" sh -c 'r=$1; l=$2; shift 2; k=0
			while [ $k -lt "$r" ]; do for f; do "$l" "$f" >/dev/null || exit 1; done; k=$((k + 1)); done' \
			sh "$REPEAT" "$B/bench/pcap_loop" "$@" || exit 1
		ru=$(tail -1 "$T/t")
		awk -v u="$tu" -v mb="$mb" 'BEGIN { printf "%.4f\n", u * 1e3 / mb }' >>"$T/trim"
		awk -v u="$ru" -v mb="$mb" 'BEGIN { printf "%.4f\n", u * 1e3 / mb }' >>"$T/read"
		awk -v a="$tu" -v b="$ru" -v mb="$mb" 'BEGIN { printf "%.4f\n", (a - b) * 1e3 / mb }' >>"$T/cut"
		i=$((i + 1))
	done
	echo "contend trim of $# capture(s), $packets packets, $bytes bytes, x$REPEAT per round, $N rounds"
	printf '%-22s %12s %22s\n' user_cpu median_ms_MB range
	for v in trim read cut; do
		printf '%-22s %12s %22s\n' "$v" "$(median <"$T/$v")" "$(range "$T/$v")"
	done
	if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
		valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$CONTEND" trim --force "$1" "$T/out.pcap" >/dev/null 2>&1
		"$B/bench/pcap_loop" "$1" >"$T/loop"
		callgrind_annotate --inclusive=yes --threshold=100 "$T/cg" 2>/dev/null | awk -v p="$(awk '{ print $2 }' "$T/loop")" \
			-v b="$(awk '{ print $4 }' "$T/loop")" -v f="$1" '
			/^ *[0-9,]+ .*:(framecut_keep|write_record|pcap_dump) / {
				n = $1; gsub(",", "", n)
				w = $0; sub(/ \[.*/, "", w); sub(/.*:/, "", w)
				if (!(w in seen)) { seen[w] = 1; v[w] = n }
			}
			END {
				printf "callgrind, %s (%d packets): instructions per packet, per MB\n", f, p
				cut = v["framecut_keep"] + 0; wr = v["write_record"] + v["pcap_dump"]
				printf "%-22s %10.0f %14.0f\n", "cut (framecut_keep)", cut / p, cut / (b / 1e6)
				printf "%-22s %10.0f %14.0f\n", "write", wr / p, wr / (b / 1e6)
				printf "%-22s %10.0f %14.0f\n", "cut + write", (cut + wr) / p, (cut + wr) / (b / 1e6)
			}'
	else
		echo "callgrind: skipped: no valgrind"
	fi
	echo "load: $(cat /proc/loadavg)"
	exit 0
fi
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
