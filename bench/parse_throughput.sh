#!/bin/sh
# parse_throughput: how fast `contend parse` reads captures, against the limits.
#
#   sh bench/parse_throughput.sh [CAPTURE]      (run from the top directory after `make bench`)
#
# Without CAPTURE a 600 MB synthetic capture is written by bench/parse_gen. All files are
# read once first so every run is from the page cache. Medians of RUNS (5) runs of:
#   - bench/pcap_loop (a bare libpcap pcap_next_ex loop: the limit)   target parse >= 70 %
#   - tshark -q -z conv,tcp (TSHARK_RUNS, default 3)                  target parse >= 20x
#   - the same capture gzip'ed: parse vs zcat > /dev/null             target parse >= 80 %
# and the peak RSS of parse on the capture and on one four times shorter (bounded by the
# concurrent streams, not the length). Figures are printed; nothing is asserted.
set -u
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
TSHARK_RUNS=${TSHARK_RUNS:-3}
CONTEND=${CONTEND:-$BUILD/contend}
work=${WORK:-$(mktemp -d /tmp/contend-bench.XXXXXX)}
cap=${1:-}
[ -x "$BUILD/bench/pcap_loop" ] && [ -x "$BUILD/bench/parse_gen" ] ||
	{ echo "parse_throughput: build first: make BUILD=$BUILD bench" >&2; exit 2; }
if [ -z "$cap" ]; then
	cap=$work/gen.pcap
	"$BUILD/bench/parse_gen" -o "$cap" -s 600 -c 64 >/dev/null || exit 1
fi
"$BUILD/bench/parse_gen" -o "$work/short.pcap" -s 150 -c 64 >/dev/null || exit 1
gzip -1 -c "$cap" >"$work/cap.pcap.gz"
cat "$cap" "$work/cap.pcap.gz" "$work/short.pcap" >/dev/null
size=$(stat -c %s "$cap")
gzsize=$(stat -c %s "$work/cap.pcap.gz")

# one timed run: prints "wall_s cpu_s maxrss_kb"
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
		{ echo "parse_throughput: failed: $* ($(tail -n 1 "$work/err"))" >&2; return 1; }
	awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$work/time"
}
# median of field $1 over runs of the rest
median() {
	f=$1 n=$2
	shift 2
	i=0
	: >"$work/runs"
	while [ $i -lt "$n" ]; do
		timed "$@" >>"$work/runs" || return 1
		i=$((i + 1))
	done
	sort -n -k"$f" "$work/runs" | awk -v k="$f" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'
}

loop=$(median 1 "$RUNS" "$BUILD/bench/pcap_loop" "$cap")
parse=$(median 1 "$RUNS" "$CONTEND" parse -q --force --pcap "$cap" -o "$work/out")
parse_cpu=$(median 2 "$RUNS" "$CONTEND" parse -q --force --pcap "$cap" -o "$work/out")
loop_cpu=$(median 2 "$RUNS" "$BUILD/bench/pcap_loop" "$cap")
zcat_t=$(median 1 "$RUNS" zcat "$work/cap.pcap.gz")
parse_gz=$(median 1 "$RUNS" "$CONTEND" parse -q --force --pcap "$work/cap.pcap.gz" -o "$work/out")
if command -v tshark >/dev/null 2>&1; then
	tshark_t=$(median 1 "$TSHARK_RUNS" tshark -r "$cap" -q -z conv,tcp)
else
	tshark_t=
fi
rss_long=$(timed "$CONTEND" parse -q --force --pcap "$cap" -o "$work/out" | awk '{ print $3 }')
rss_short=$(timed "$CONTEND" parse -q --force --pcap "$work/short.pcap" -o "$work/out" | awk '{ print $3 }')

awk -v size="$size" -v gzsize="$gzsize" -v loop="$loop" -v parse="$parse" -v pc="$parse_cpu" \
    -v lc="$loop_cpu" -v zc="$zcat_t" -v pg="$parse_gz" -v ts="$tshark_t" -v rl="$rss_long" \
    -v rs="$rss_short" -v runs="$RUNS" 'BEGIN {
	mb = size / 1e6
	printf "capture %.0f MB (gzip %.0f MB), medians of %d runs, wall seconds\n", mb, gzsize / 1e6, runs
	printf "pcap_loop        %7.2f s  %7.0f MB/s  (cpu %.2f s)\n", loop, mb / loop, lc
	printf "contend parse    %7.2f s  %7.0f MB/s  (cpu %.2f s)  %5.1f %% of pcap_loop (target >= 70 %%)\n",
	       parse, mb / parse, pc, 100 * loop / parse
	if (ts != "")
		printf "tshark conv,tcp  %7.2f s  %7.0f MB/s  parse is %.1fx faster (target >= 20x)\n", ts, mb / ts, ts / parse
	printf "zcat > /dev/null %7.2f s  %7.0f MB/s\n", zc, mb / zc
	printf "parse .pcap.gz   %7.2f s  %7.0f MB/s  %5.1f %% of zcat (target >= 80 %%)\n", pg, mb / pg, 100 * zc / pg
	printf "peak RSS: %.1f MB on %.0f MB, %.1f MB on a capture 4x shorter (same concurrency)\n",
	       rl / 1024, mb, rs / 1024
}'
[ -z "${WORK:-}" ] && rm -rf "$work"
exit 0
