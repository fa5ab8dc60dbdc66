#!/bin/sh
# infer_passive: how fast `contend infer` infers the logical network from a recorded run.
#
#   sh bench/infer_passive.sh [RUN]      (run from the top directory after `make bench`)
#
# RUN defaults to the run under traces/*/ with the largest capture; when there is none, a
# fresh one is recorded on testbed instance INFER_BENCH_INSTANCE (default 8): the routed
# layout with subnet 2's uplink at 50 Mbit/s and the concurrent master/slave farm, the
# testbed brought down afterwards. The captures are read once first so every run is from
# the page cache. Medians of RUNS (5) runs of `contend infer --no-render -o TMP RUN` (and,
# for scale, of bench/pcap_loop over the same captures, the bare libpcap limit). Prints the
# packets (TCP segments as infer counts them; offloaded segments of tens of kB count once)
# per second and capture MB per second, plus the peak RSS. Nothing is asserted.
set -u
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
CONTEND=${CONTEND:-$BUILD/contend}
INST=${INFER_BENCH_INSTANCE:-8}
work=${WORK:-$(mktemp -d /tmp/contend-bench-infer.XXXXXX)}
run=${1:-}
[ -x "$CONTEND" ] || { echo "infer_passive: build first: make BUILD=$BUILD bench" >&2; exit 2; }

capsize() {	# total bytes of RUN's captures
	cat "$1"/capture/*.pcap* 2>/dev/null | wc -c
}
if [ -z "$run" ]; then
	best=0
	for d in traces/*/; do
		[ -d "$d/capture" ] || continue
		s=$(capsize "$d")
		if [ "$s" -gt "$best" ]; then
			best=$s
			run=${d%/}
		fi
	done
fi
if [ -z "$run" ]; then
	farm=$BUILD/workloads/ompi/farm
	[ -x "$farm" ] || { echo "infer_passive: no run under traces/ and no '$farm' to record one (make bench)" >&2; exit 2; }
	echo "no run under traces/: recording one on testbed instance $INST"
	tb() { "$CONTEND" testbed --instance "$INST" "$@"; }
	trap 'tb down >/dev/null 2>&1' EXIT INT TERM
	tb up -n 4 --routed --uplink 2=50mbit >"$work/up.log" 2>&1 ||
		{ echo "infer_passive: testbed: $(tail -n 1 "$work/up.log")" >&2; exit 1; }
	run=$work/run
	tb mpirun --tcp -np 4 -- "$PWD/$CONTEND" collect -q -o "$run" -- "$PWD/$farm" -a -n 30 -c 40 -v 0.9 -m 4M -q \
		>"$work/record.log" 2>&1 || { echo "infer_passive: recording failed: $(tail -n 1 "$work/record.log")" >&2; exit 1; }
	tb down >/dev/null 2>&1
	trap - EXIT INT TERM
fi
[ -d "$run/capture" ] || { echo "infer_passive: '$run' has no capture/" >&2; exit 2; }
size=$(capsize "$run")
cat "$run"/capture/* >/dev/null

# one timed run: prints "wall_s cpu_s maxrss_kb"
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" ||
		{ echo "infer_passive: failed: $* ($(tail -n 1 "$work/err"))" >&2; return 1; }
	awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$work/time"
}
# "median-wall median-cpu max-rss" over RUNS runs of the command
medians() {
	i=0
	: >"$work/runs"
	while [ $i -lt "$RUNS" ]; do
		timed "$@" >>"$work/runs" || return 1
		i=$((i + 1))
	done
	w=$(sort -n -k1 "$work/runs" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	c=$(sort -n -k2 "$work/runs" | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }')
	r=$(sort -n -k3 "$work/runs" | tail -n 1 | awk '{ print $3 }')
	echo "$w $c $r"
}

inf=$(medians "$CONTEND" infer --no-render -o "$work/topo" "$run") || exit 1
# the counts from the last run's summary line: "N TCP segments"
segs=$(sed -n 's/.*; \([0-9]*\) TCP segments.*/\1/p' "$work/err" | head -n 1)
[ -n "$segs" ] || segs=$(grep -o '[0-9]* TCP segments' "$work/out" | head -n 1 | cut -d' ' -f1)
loop=
if [ -x "$BUILD/bench/pcap_loop" ]; then
	# pcap_loop reads one file; time all plain captures one after another
	printf '#!/bin/sh\nfor f in "$@"; do "%s" "$f" || exit 1; done\n' "$BUILD/bench/pcap_loop" >"$work/loop.sh"
	set -- "$run"/capture/*.pcap
	[ -f "$1" ] && loop=$(medians sh "$work/loop.sh" "$@")
fi

echo "run $run: $(ls "$run"/capture | wc -l) captures, $(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }') MB, ${segs:-?} TCP segments"
awk -v size="$size" -v inf="$inf" -v loop="$loop" -v segs="${segs:-0}" -v runs="$RUNS" 'BEGIN {
	split(inf, a, " ")
	mb = size / 1e6
	printf "medians of %d runs\n", runs
	printf "contend infer --no-render  %7.2f s wall  %7.2f s cpu  %9.0f packets/s  %7.1f MB/s  peak RSS %.1f MB\n",
	       a[1], a[2], segs / a[1], mb / a[1], a[3] / 1024
	if (loop != "") {
		split(loop, b, " ")
		printf "pcap_loop (libpcap limit)  %7.2f s wall  %7.2f s cpu  %9.0f packets/s  %7.1f MB/s  infer at %.0f %% of it\n",
		       b[1], b[2], segs / b[1], mb / b[1], 100 * b[1] / a[1]
	}
}'
[ -z "${WORK:-}" ] && rm -rf "$work"
exit 0
