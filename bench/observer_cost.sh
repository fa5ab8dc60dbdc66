#!/bin/sh
# bench/observer_cost.sh: what collect's capture costs a rank per packet on this machine.
# A token of -m bytes goes back and forth between two testbed workstations with a core each
# and no quota (bench/realapps's 2x1 layout), -i round trips, bare and under the default
# `contend collect`, alternated (the order reversed every other round). Every packet is on
# the token's path, so the paired difference of the two runs' own time, divided by the
# packets the capture saw, is the cost of one packet to the ranks: the kernel handing it
# to the capture (on the testbed both workstations' taps run on the sending CPU) and the
# agents' share of the cores. `contend predict` reads the figure (--observer-cost).
#
# Prints each round, then the medians, the paired difference with its spread, the packets
# and the cost per packet; with -o FILE writes a contend-observer-cost table there.
#
# Usage: sh bench/observer_cost.sh [-r ROUNDS] [-i TRIPS] [-m BYTES] [-o FILE]
#   -r ROUNDS  alternated rounds (default 8)
#   -i TRIPS   round trips per run (default 100000)
#   -m BYTES   token size (default 1k: one packet each way, as ScaLAPACK's messages)
#   -o FILE    write the result (e.g. bench/results/observer-cost.tsv)
# Environment: BUILD (default build), INSTANCE (testbed instance, default 18), KEEP=1 keeps
# the testbed up.
# Exit: 0 a figure, 1 a run failed, 2 usage, 77 no testbed here.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
case ${BUILD:-build} in /*) B=$BUILD ;; esac
CONTEND=${CONTEND:-$B/contend}
INST=${INSTANCE:-18}
. "$TOP/bench/lib.sh"
R=8 TRIPS=100000 MSG=1k OUT=""
usage() { sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts r:i:m:o:h c; do
	case $c in
	r) R=$OPTARG ;;
	i) TRIPS=$OPTARG ;;
	m) MSG=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $R$TRIPS in *[!0-9]* | '') usage ;; esac
[ -x "$CONTEND" ] || { echo "observer-cost: no $CONTEND (make)" >&2; exit 1; }
WL=$B/workloads/ompi/ring
[ -x "$WL" ] || { echo "observer-cost: no $WL (make workloads)" >&2; exit 1; }
TB="$CONTEND testbed --instance $INST"
$TB check >/dev/null 2>&1 || { echo "skipped: no testbed here: $($TB check 2>&1 | tail -n 1)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/contend-obscost.XXXXXX") || exit 1
cleanup() {
	[ "${KEEP:-0}" = 1 ] || $TB down >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Two workstations with a core each, no quota; their cgroup ahead of other work
$TB down >/dev/null 2>&1
$TB up -n 2 --cpu-pct all=100 >"$T/up.log" 2>&1 || { echo "observer-cost: testbed $INST: $(tail -n 1 "$T/up.log")" >&2; exit 1; }
G=/sys/fs/cgroup/cpu/contend-testbed-$INST
[ -w "$G/cpu.shares" ] && echo 262144 >"$G/cpu.shares"

# one run: bare or collect; its own time (the workload's wall_s) to $T/V.s
one() {
	if [ "$1" = collect ]; then rm -rf "$T/run"; set -- "$CONTEND" collect -q -o "$T/run" --
	else set --; fi
	s=$($TB mpirun --tcp -np 2 -- "$@" "$WL" -i "$TRIPS" -m "$MSG" -q 2>"$T/err" | awk '/^wall_s/ { print $2 }')
	[ -n "$s" ] || { echo "observer-cost: run failed: $(tail -n 1 "$T/err")" >&2; exit 1; }
	echo "$s"
}
: >"$T/pairs"
i=1
while [ $i -le "$R" ]; do
	if [ $((i % 2)) -eq 1 ]; then b=$(one bare); c=$(one collect)
	else c=$(one collect); b=$(one bare); fi
	echo "$b $c" >>"$T/pairs"
	printf 'round %d: bare %s s, collect %s s\n' "$i" "$b" "$c"
	i=$((i + 1))
done
# the packets the capture saw, from the last collected run: every packet of the job's
# connections between ranks, both directions (conns.tsv)
"$CONTEND" parse -q "$T/run" >"$T/parse.log" 2>&1 || { echo "observer-cost: parse: $(tail -n 1 "$T/parse.log")" >&2; exit 1; }
pk=$(awk -F'\t' 'NR == 2 { for (j = 1; j <= NF; j++) c[$j] = j; next }
	NR > 2 && $c["rank0"] >= 0 && $c["rank1"] >= 0 { s += $c["pkts0"] + $c["pkts1"] } END { print s + 0 }' "$T/run/profile/conns.tsv")
[ "$pk" -gt 0 ] || { echo "observer-cost: no packets between ranks in the capture" >&2; exit 1; }
awk -v pk="$pk" -v trips="$TRIPS" -v msg="$MSG" -v r="$R" -v out="$OUT" -v kern="$(uname -sr)" \
	-v when="$(date -u "+%Y-%m-%d %H:%M UTC")" -v cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" -v ncpu="$(nproc)" '
	function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	{ n++; b[n] = $1; c[n] = $2; d[n] = $2 - $1 }
	END {
		mb = med(b, n); mc = med(c, n); md = med(d, n); lo = d[1]; hi = d[n]
		ns = md * 1e9 / pk
		printf "bare %.3f s, collect %.3f s (medians of %d); paired difference %.3f s (%.3f to %.3f)\n", mb, mc, n, md, lo, hi
		printf "%d packets between the ranks in a collected run (%d round trips of %s)\n", pk, trips, msg
		printf "cost per packet: %.0f ns (%.0f to %.0f)\n", ns, lo * 1e9 / pk, hi * 1e9 / pk
		if (out != "") {
			printf "# contend-observer-cost 1\nkey\tvalue\n" > out
			printf "ns_per_packet\t%.0f\nns_per_packet_lo\t%.0f\nns_per_packet_hi\t%.0f\n", ns, lo * 1e9 / pk, hi * 1e9 / pk > out
			printf "packets\t%d\nrounds\t%d\ntrips\t%d\nmsg_bytes\t%s\nbare_s\t%.6f\ncollect_s\t%.6f\n", pk, n, trips, msg, mb, mc > out
			printf "kernel\t%s\ncpu\t%s\ncpus\t%d\nmeasured_at\t%s\n", kern, cpu, ncpu, when > out
		}
	}' "$T/pairs"
