#!/bin/sh
# collect's overhead against its physical bounds: a workload on the testbed (3
# workstations, instance 10 unless INST=K; by default a communication-heavy all-to-all),
# its own wall time ("wall_s") in each variant, alternated round by round, N rounds
# (VARIANTS="..." picks; every collect variant of bench/lib.sh's collect_opts works):
#   base      nothing
#   collect   contend collect as it is by default (batch mode: TPACKET_V3 blocks, 200 ms
#             block timeout; plain pcap)
#   immed     contend collect --immediate (libpcap immediate mode, a wake-up per packet)
#   batch1s   contend collect --batch-timeout 1s (tcpdump's buffer timeout)
#   snap256   contend collect --snaplen 256 (headers and the first ~190 payload bytes)
#   nocap     contend collect --no-capture (sampling alone)
#   nosock    contend collect --no-capture --sockets 60s (sampling, no socket map scans)
#   bare      bench/sample_bare: the least a 20 ms /proc sampler can do (reads what collect
#             reads per sample, keeps nothing): the bound for sampling
#   tcpdump   a bare `tcpdump -i eth0 -s 0 -B 32768 --immediate-mode -w FILE` in each
#             workstation (contend testbed exec), stopped by its recorded PID
#   tcpdumpb  the same without --immediate-mode (libpcap's TPACKET_V3 blocks, tcpdump's
#             1 s buffer timeout)
# Prints per variant the median wall time (the workload's own, its timed loop), the ratio to
# base, then the ranks' lives (each rank wrapped by bench/realapps/lifetime.sh inside the
# observer: MPI's start and end included), how far apart the ranks started (skew_s) and the
# time from the last rank's start to the last end (last_s: what a prediction counts, docs/
# predict.md) with its ratio to base, the median kernel drops, the
# median CPU time of the observers summed over the workstations (collect: the agents' own
# CPU when the application ended, from the rank metadata; bare: its getrusage; tcpdump:
# /proc/PID/stat just before it is stopped, 10 ms ticks), and the load average before and
# after. The testbed is brought up here and taken down at the
# end unless KEEP=1. LOAD="WS --cpu N" runs every variant beside competitors that
# `contend testbed load` starts before the first run and stops after the last: the
# observer's cost on a loaded node, where the runs a prediction is checked against are
# made. FRESH=1 builds the testbed again before every round: some of its state is fixed
# when it is built (docs/collect.md, "A loaded node under a quota"), and rounds on one
# testbed all see the same.
# Usage: BUILD=build-x sh bench/collect_bound.sh [RUNS] [WORKLOAD ARGS...]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
INST=${INST:-10}
N=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- alltoall -i 200 -c 2 -m 256k
[ -x "$B/workloads/ompi/$1" ] || { echo "no $B/workloads/ompi/$1 (make workloads)" >&2; exit 1; }
[ -x "$B/bench/sample_bare" ] || { echo "no $B/bench/sample_bare (make bench)" >&2; exit 1; }
wl=$1; shift
WLARGS=$*
. "$TOP/bench/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/contend-bound.XXXXXX")
tcpd_pids=""
cleanup() {
	for p in $tcpd_pids; do kill "$p" 2>/dev/null; done
	[ -z "${LOAD:-}" ] || "$CONTEND" testbed --instance "$INST" unload >/dev/null 2>&1
	testbed_release "$INST"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
testbed_ensure "$INST" "$T"
hosts=$("$CONTEND" testbed --instance "$INST" status 2>/dev/null | awk '$2 ~ /^c[0-9]+ws[0-9]+$/ { print $2 }')
nws=$(echo "$hosts" | wc -w)
[ "$nws" -ge 2 ] || { echo "testbed $INST has $nws workstations" >&2; exit 1; }
launch() { "$CONTEND" testbed --instance "$INST" mpirun --tcp -np "$nws" -- "$@"; }

# Start tcpdump in every workstation; wait until each is capturing.
tcpd_start() {	# tcpd_start EXTRA-OPTIONS...
	tcpd_pids=""
	for w in $(seq 1 "$nws"); do
		"$CONTEND" testbed --instance "$INST" exec "ws$w" -- tcpdump -i eth0 -s 0 -B 32768 "$@" \
			-w "$T/ws$w.pcap" 2>"$T/ws$w.err" &
		tcpd_pids="$tcpd_pids $!"
	done
	for w in $(seq 1 "$nws"); do
		k=0
		while ! grep -q '^listening' "$T/ws$w.err" 2>/dev/null && [ $k -lt 50 ]; do
			sleep 0.1; k=$((k + 1))
		done
	done
}
tcpd_stop() {	# prints the kernel drops summed over the workstations; CPU ms to $T/obs.cpu
	tck=$(getconf CLK_TCK)
	for p in $tcpd_pids; do
		awk -v t="$tck" '{ sub(/.*\) /, ""); print "cpu_ms", ($12 + $13) * 1000 / t }' "/proc/$p/stat"
	done >>"$T/obs.cpu" 2>/dev/null
	for p in $tcpd_pids; do kill -INT "$p" 2>/dev/null; done
	for p in $tcpd_pids; do wait "$p" 2>/dev/null; done
	tcpd_pids=""
	cat "$T"/ws*.err | awk '/dropped by kernel/ { s += $1 } END { print s + 0 }'
	rm -f "$T"/ws*.pcap "$T"/ws*.err
}
agents_cpu() {	# the agents' CPU ms at the application's end, into $T/obs.cpu
	echo "cpu_ms $(meta_ms agent_utime_ns "$T"/run/meta/rank-*.tsv)" >>"$T/obs.cpu"
	echo "cpu_ms $(meta_ms agent_stime_ns "$T"/run/meta/rank-*.tsv)" >>"$T/obs.cpu"
}

load_on() {
	[ -n "${LOAD:-}" ] || return 0
	# shellcheck disable=SC2086
	"$CONTEND" testbed --instance "$INST" load $LOAD >/dev/null || { echo "testbed load $LOAD failed" >&2; exit 1; }
	sleep 0.3
}
load_on
variants=${VARIANTS:-base collect immed batch1s nocap tcpdump tcpdumpb}
for v in $variants; do : >"$T/$v.wall"; : >"$T/$v.life"; : >"$T/$v.skew"; : >"$T/$v.last"; : >"$T/$v.drop"; : >"$T/$v.cpu"; done
load0=$(cat /proc/loadavg)
i=0
while [ $i -lt "$N" ]; do
	if [ "${FRESH:-0}" = 1 ] && [ $i -gt 0 ]; then
		"$CONTEND" testbed --instance "$INST" down >/dev/null 2>&1
		testbed_ensure "$INST" "$T"
		load_on
	fi
	for v in $variants; do
		rm -rf "$T/run" "$T/life"
		mkdir -p "$T/life"
		: >"$T/obs.cpu"
		case $v in
		base|tcpdump|tcpdumpb) set -- ;;
		bare) set -- "$B/bench/sample_bare" -c "$T/obs.cpu" -- ;;
		*)	opts=$(collect_opts "$v") || { echo "unknown variant '$v'" >&2; exit 2; }
			# shellcheck disable=SC2086
			set -- "$CONTEND" collect -q $opts -o "$T/run" -- ;;
		esac
		[ $v = tcpdump ] && tcpd_start --immediate-mode
		[ $v = tcpdumpb ] && tcpd_start
		# shellcheck disable=SC2086
		launch "$@" sh "$TOP/bench/realapps/lifetime.sh" "$T/life" "$B/workloads/ompi/$wl" $WLARGS -q 2>/dev/null |
			awk '/^wall_s/ { print $2 }' >>"$T/$v.wall"
		longest_life "$T/life" "$nws" | awk '{ printf "%.6f\n", $1 / 1e9 }' >>"$T/$v.life"
		life_spread "$T/life" "$nws" | awk -v s="$T/$v.skew" -v l="$T/$v.last" \
			'{ printf "%.6f\n", $1 / 1e9 >>s; printf "%.6f\n", $2 / 1e9 >>l }'
		case $v in
		base) ;;
		tcpdump|tcpdumpb) tcpd_stop >>"$T/$v.drop" ;;
		bare) ;;
		nocap|nosock) agents_cpu ;;
		*)	meta_sum pcap_drop "$T"/run/meta/node-*.tsv >>"$T/$v.drop"
			agents_cpu ;;
		esac
		[ $v = base ] || awk '{ s += $2 } END { printf "%.0f\n", s }' "$T/obs.cpu" >>"$T/$v.cpu"
	done
	i=$((i + 1))
done
echo "workload: $wl $WLARGS, Open MPI on $nws testbed workstations (instance $INST), $N runs per variant, alternated${LOAD:+, beside 'testbed load $LOAD'}$( [ "${FRESH:-0}" = 1 ] && echo ", the testbed built again every round")"
b=$(median <"$T/base.wall")
bl=$(median <"$T/base.life")
# ratio: of the medians; paired: the median over rounds of the run's time over the base
# run's time of the same round (steadier when other jobs load the machine unevenly).
bk=$(median <"$T/base.last")
printf '%-9s %5s %10s %7s %7s %10s %7s %8s %10s %7s %12s %7s  %s\n' variant runs median_s ratio paired life_s \
	ratio skew_s last_s ratio kernel_drops cpu_ms all_runs_s
for v in $variants; do
	m=$(median <"$T/$v.wall")
	l=$(median <"$T/$v.life")
	k=$(median <"$T/$v.last")
	printf '%-9s %5s %10s %7s %7s %10s %7s %8s %10s %7s %12s %7s  %s\n' "$v" "$(wc -l <"$T/$v.wall")" "$m" \
		"$(ratio "$m" "$b")" "$(paired "$T/base.wall" "$T/$v.wall")" "$l" "$(ratio "$l" "$bl")" \
		"$(median <"$T/$v.skew")" "$k" "$(ratio "$k" "$bk")" \
		"$( [ -s "$T/$v.drop" ] && median <"$T/$v.drop" || echo -)" \
		"$( [ -s "$T/$v.cpu" ] && median <"$T/$v.cpu" || echo -)" "$(tr '\n' ' ' <"$T/$v.wall")"
done
echo "load before: $load0"
echo "load after:  $(cat /proc/loadavg)"
