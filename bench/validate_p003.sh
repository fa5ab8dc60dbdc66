#!/bin/sh
# Paper 003's Figure 4 experiment on the testbed: for each workload, a dedicated run is
# recorded with `contend collect` and parsed; each scenario (competitors on one node, a
# capped link, both, a load average) is predicted with `contend predict --model p003`, then
# actually run on the testbed under the same load and recorded the same way; the table
# gives predicted against measured time (the longest rank's exec time in both) and the error.
#
# Usage: BUILD=build-x sh bench/validate_p003.sh [-r REPS] [-w "stencil solver farm"]
#        [-s "cpu1 cpu2 link both load1.5"] [-k] [-o OUTDIR]
#   -r REPS  runs of each measured scenario (and of the dedicated one); the median is used
#   -k       keep OUTDIR (the runs, scenarios and predictions); default: a temporary one
# Environment: INSTANCE (testbed instance, default 4), NWS (workstations, default 4),
# PCT (CPU capacity of each workstation in % of a core, default 40), LINK (the capped
# rate, default 20mbit), LOADED (the loaded workstation, default 2).
#
# The machine is shared: while the experiment runs the instance's cgroup gets the largest
# cpu.shares so that other work on the machine does not take the workstations' quotas
# (each workstation is still capped at PCT % of a core). The testbed is always brought down.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
INST=${INSTANCE:-4}
NWS=${NWS:-4}
PCT=${PCT:-40}
LINK=${LINK:-20mbit}
LOADED=${LOADED:-2}
REPS=1
WORKLOADS="stencil solver farm"
SCENARIOS="cpu1 cpu2 link both load1.5"
KEEP=0
OUT=""
while getopts r:w:s:ko: c; do
	case $c in
	r) REPS=$OPTARG ;;
	w) WORKLOADS=$OPTARG ;;
	s) SCENARIOS=$OPTARG ;;
	k) KEEP=1 ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-r REPS] [-w WORKLOADS] [-s SCENARIOS] [-k] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
[ -x "$CONTEND" ] || { echo "no $CONTEND (make BUILD=...)" >&2; exit 1; }
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/validate-p003.XXXXXX)
mkdir -p "$OUT" || exit 1
TB="$CONTEND testbed --instance $INST"
halfload=""	# process group of the duty-cycled competitor (load averages)
cleanup() {
	[ -n "$halfload" ] && kill -TERM "-$halfload" 2>/dev/null
	$TB down >/dev/null 2>&1
	[ $KEEP -eq 1 ] || rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

$TB check >/dev/null || { $TB check; exit 1; }
$TB down >/dev/null 2>&1
$TB up -n "$NWS" --cpu-pct all="$PCT" >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log"; exit 1; }
G=/sys/fs/cgroup/cpu/contend-testbed-$INST
[ -w "$G/cpu.shares" ] && echo 262144 >"$G/cpu.shares"
WS=c${INST}ws$LOADED

args_of() {	# workload -> its arguments
	case $1 in
	stencil) echo "-n 512 -i 60 -c 20 -m 64k" ;;
	solver) echo "-n 100000 -i 60 -c 20 -m 64k" ;;
	farm) echo "-n 120 -c 20 -m 16k" ;;
	ring) echo "-i 40 -c 20 -m 64k" ;;
	*) echo "" ;;
	esac
}

# The competitors of a scenario: start / stop.
load_on() {	# scenario
	case $1 in
	cpu1 | both) $TB load "$WS" --cpu 1 >/dev/null ;;
	cpu2) $TB load "$WS" --cpu 2 >/dev/null ;;
	cpu3) $TB load "$WS" --cpu 3 >/dev/null ;;
	load1.5 | load0.5)
		# n spinners always there plus one on for 1 s of every 2 s: a load average of n + 0.5
		[ "$1" = load1.5 ] && $TB load "$WS" --cpu 1 >/dev/null
		setsid $TB exec "$WS" -- sh -c 'while :; do timeout 1 sh -c "while :; do :; done"; sleep 1; done' \
			>/dev/null 2>&1 &
		halfload=$!
		;;
	esac
	case $1 in
	link | both)
		$TB link "$WS" "$LINK" >/dev/null ;;
	esac
}
load_off() {
	[ -n "$halfload" ] && { kill -TERM "-$halfload" 2>/dev/null; halfload=""; }
	$TB unload >/dev/null 2>&1
	$TB link "$WS" off >/dev/null 2>&1
}

# The scenario file for predict (every host of the run's ranks on the loaded workstation).
scenario_ini() {	# scenario measured_run_or_empty -> stdout
	echo "[scenario]"
	echo "description = $1 on $WS"
	[ -n "$2" ] && echo "measured_run = $2"
	case $1 in
	cpu1 | both) printf '[node %s]\ncpu_procs = 1\n' "$WS" ;;
	cpu2) printf '[node %s]\ncpu_procs = 2\n' "$WS" ;;
	cpu3) printf '[node %s]\ncpu_procs = 3\n' "$WS" ;;
	load1.5) printf '[node %s]\nload_average = 1.5\n' "$WS" ;;
	load0.5) printf '[node %s]\nload_average = 0.5\n' "$WS" ;;
	esac
	case $1 in
	link | both)
		i=1
		while [ $i -le "$NWS" ]; do
			[ $i -ne "$LOADED" ] && printf '[link %s-c%dws%d]\nbandwidth = %s\n' "$WS" "$INST" $i \
				"$(echo "$LINK" | sed 's/mbit/ Mbit\/s/; s/kbit/ kbit\/s/; s/gbit/ Gbit\/s/')"
			i=$((i + 1))
		done ;;
	esac
}

exec_ns() {	# run -> the longest rank's exec_ns
	awk -F'\t' 'NR > 1 && $1 !~ /^#/ && $1 != "rank" { if ($3 > m) m = $3 } END { printf "%.0f\n", m }' "$1/profile/ranks.tsv"
}

# One recorded run: collect + parse; prints its run directory; the busy threshold is half
# the workstation's capacity (a rank computing flat out runs PCT % of each sample interval).
record() {	# name workload
	r=$OUT/$1
	rm -rf "$r"
	# shellcheck disable=SC2046
	$TB mpirun --tcp -np "$NWS" -- "$CONTEND" collect -q -o "$r" -- "$B/workloads/ompi/$2" $(args_of "$2") -q \
		>"$r.out" 2>&1 || { echo "run '$1' failed: $(tail -n 2 "$r.out")" >&2; return 1; }
	"$CONTEND" parse -b "$(awk -v p="$PCT" 'BEGIN { print p / 200 }')" "$r" >"$r.parse" 2>&1
	# predict reads lat_ns as integer nanoseconds (docs/formats.md); round what parse wrote
	np=$r/profile/netparams.tsv
	[ -f "$np" ] && awk -F'\t' -v OFS='\t' '$1 == "lat_ns" { $2 = sprintf("%.0f", $2) } { print }' "$np" >"$np.tmp" &&
		mv "$np.tmp" "$np"
	echo "$r"
}

median_run() {	# prefix workload -> the run directory with the median exec time of REPS runs
	i=1
	: >"$OUT/$1.list"
	while [ $i -le "$REPS" ]; do
		d=$(record "$1-$i" "$2") && echo "$(exec_ns "$d") $d" >>"$OUT/$1.list"
		i=$((i + 1))
	done
	sort -n "$OUT/$1.list" | awk '{ a[NR] = $2 } END { if (NR) print a[int((NR + 1) / 2)] }'
}

printf '%-8s %-8s %9s %9s %9s %7s %9s %7s\n' workload scenario dedicated predicted measured error "pred(c=0)" error
for wl in $WORKLOADS; do
	ded=$(median_run "$wl-ded" "$wl")
	[ -n "$ded" ] || continue
	for sc in $SCENARIOS; do
		load_on "$sc"
		sleep 0.5
		m=$(median_run "$wl-$sc" "$wl")
		load_off
		scenario_ini "$sc" "$m" >"$OUT/$wl-$sc.ini"
		# Linux (EEVDF) keeps no credit for sleep: the second prediction
		"$CONTEND" predict "$ded" --scenario "$OUT/$wl-$sc.ini" --model p003 --sleep-credit 0 >"$OUT/$wl-$sc.pred0" 2>&1
		cp "$ded/predict/$wl-$sc.tsv" "$OUT/$wl-$sc.c0.tsv" 2>/dev/null
		"$CONTEND" predict "$ded" --scenario "$OUT/$wl-$sc.ini" --model p003 >"$OUT/$wl-$sc.pred" 2>&1
		c0=$(awk -F'\t' '$1 == "p003" && $3 == "total" { print $5 }' "$OUT/$wl-$sc.c0.tsv" 2>/dev/null)
		awk -F'\t' -v wl="$wl" -v sc="$sc" -v c0="${c0:-0}" '
			$1 == "-" && $3 == "dedicated" { ded = $5 }
			$1 == "p003" && $3 == "total" { pr = $5; me = $7 }
			$1 == "p003" && $3 == "n/a" { na = $10; me = $7 }
			END {
				if (na != "") { printf "%-8s %-8s %9.3f %9s %9.3f %7s  (%s)\n", wl, sc, ded / 1e9, "n/a", me / 1e9, "-", na; exit }
				printf "%-8s %-8s %9.3f %9.3f %9.3f %+6.1f%% %9.3f %+6.1f%%\n", wl, sc, ded / 1e9, pr / 1e9, me / 1e9, 100 * (pr - me) / me, c0 / 1e9, 100 * (c0 - me) / me
			}' "$ded/predict/$wl-$sc.tsv"
	done
done | tee "$OUT/table.txt"
awk 'function ab(x) { sub(/%/, "", x); x = x + 0; return x < 0 ? -x : x }
	$6 ~ /%$/ { e = ab($6); f = ab($8); s[$2] += e; t[$2] += f; n[$2]++; if (e > mx[$2]) mx[$2] = e; if (f > my[$2]) my[$2] = f; S += e; U += f; N++ }
	END { for (k in s) printf "scenario %-8s avg |error| %5.1f%% max %5.1f%%   sleep credit 0: avg %5.1f%% max %5.1f%%  (%d workloads)\n", k, s[k] / n[k], mx[k], t[k] / n[k], my[k], n[k];
	      if (N) printf "all: avg |error| %.1f%% (sleep credit 0: %.1f%%) over %d predictions\n", S / N, U / N, N }' "$OUT/table.txt"
echo "machine load: $(cat /proc/loadavg); workstations at $PCT % of a core; runs in $OUT$([ $KEEP -eq 1 ] || echo ' (removed)')"
