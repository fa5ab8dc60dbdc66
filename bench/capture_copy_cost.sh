#!/bin/sh
# What a packet capture's kernel side costs the ranks: the CPU time of both ends of a TCP
# bulk transfer between two testbed workstations (bench/bulk_tcp, getrusage), with no
# capture, a full-payload capture and a 256-byte capture running in the sending
# workstation (tcpdump -w /dev/null, stopped by its recorded PID), alternated, N rounds.
# The kernel copies each captured packet's first snaplen bytes into the capture's ring in
# the softirq of the sender's transmit (this kernel has no IRQ time accounting, so that
# time is charged to the task that runs it); the framed capture takes whole packets from
# the kernel and cuts them in user space, so this is the part of its cost an in-kernel cut
# (an eBPF socket filter) could save. Prints per variant the median and range of the two
# ends' system CPU seconds per GB.
# Usage: sh bench/capture_copy_cost.sh [ROUNDS] [BYTES]   (INST=K testbed instance, default 11)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
INST=${INST:-11}
N=${1:-5}
BYTES=${2:-2147483648}
[ -x "$B/bench/bulk_tcp" ] || { echo "no $B/bench/bulk_tcp (make bench)" >&2; exit 1; }
command -v tcpdump >/dev/null || { echo "no tcpdump" >&2; exit 1; }
. "$TOP/bench/lib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/contend-copy.XXXXXX")
tp=""
cleanup() {
	[ -n "$tp" ] && kill -INT "$tp" 2>/dev/null
	testbed_release "$INST"
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
testbed_ensure "$INST" "$T"
addr=$(getent hosts "c${INST}ws2" | awk '{ print $1 }')
for v in none full snap256; do : >"$T/$v"; done
i=0
while [ $i -lt "$N" ]; do
	for v in none full snap256; do
		tp=""
		case $v in
		full) s=0 ;;
		snap256) s=256 ;;
		*) s="" ;;
		esac
		if [ -n "$s" ]; then
			"$CONTEND" testbed --instance "$INST" exec ws1 -- tcpdump -i eth0 -s "$s" -B 32768 \
				-w /dev/null tcp 2>"$T/td.err" &
			tp=$!
			k=0
			while ! grep -q '^listening' "$T/td.err" 2>/dev/null && [ $k -lt 50 ]; do
				sleep 0.1
				k=$((k + 1))
			done
		fi
		"$CONTEND" testbed --instance "$INST" exec ws2 -- "$B/bench/bulk_tcp" recv 5001 >"$T/recv" &
		rp=$!
		sleep 0.3
		"$CONTEND" testbed --instance "$INST" exec ws1 -- "$B/bench/bulk_tcp" send "$addr" 5001 "$BYTES" >"$T/send"
		wait "$rp"
		if [ -n "$tp" ]; then
			kill -INT "$tp"
			wait "$tp" 2>/dev/null
			tp=""
		fi
		awk -v b="$BYTES" '{ s += $5 } END { printf "%.4f\n", s / (b / 1e9) }' "$T/send" "$T/recv" >>"$T/$v"
	done
	i=$((i + 1))
done
echo "TCP bulk transfer of $BYTES bytes ws1 -> ws2 (testbed instance $INST), $N rounds alternated"
printf '%-8s %14s %20s\n' capture sys_s_per_GB range
for v in none full snap256; do
	printf '%-8s %14s %20s\n' "$v" "$(median <"$T/$v")" "$(range "$T/$v")"
done
echo "load: $(cat /proc/loadavg)"
