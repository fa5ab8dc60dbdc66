# bench/lib.sh: helpers shared by the benchmarks (sourced, not run).
# The collect helpers need CONTEND set by the caller.

# W: the scratch directory, $WORK (made when missing) or a fresh /tmp/contend-NAME.XXXXXX
# removed when the script ends.
bench_workdir() {
	if [ -n "${WORK:-}" ]; then
		W=$WORK; mkdir -p "$W" || exit 1
	else
		W=$(mktemp -d "/tmp/contend-$1.XXXXXX") || exit 1
		trap 'rm -rf "$W"' EXIT INT TERM
	fi
}

# The median of the numbers on stdin (the lower one of an even count); "-" when none.
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }

# range FILE: the smallest and the largest number in FILE, on one line.
range() { sort -n "$1" | sed -n '1p;$p' | tr '\n' ' '; }

# paired BASE_FILE FILE: the median over rounds of FILE's value over BASE_FILE's value of
# the same round (line by line; the mean of the two middle ones for an even count).
paired() {
	paste "$1" "$2" | awk 'NF == 2 && $1 > 0 { print $2 / $1 }' | sort -n |
		awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) printf "%.3f", a[(NR + 1) / 2];
			else printf "%.3f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B to three decimals, "-" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "-") printf "%.3f", a / b; else print "-" }'; }

# meta_ms KEY FILES...: a run metadata key summed over files, nanoseconds as milliseconds.
meta_ms() {
	k=$1; shift
	cat "$@" 2>/dev/null | awk -F'\t' -v k="$k" '$1 == k { s += $2 } END { printf "%.1f", s / 1e6 }'
}

# meta_sum KEY FILES...: a run metadata key summed over files.
meta_sum() {
	k=$1; shift
	cat "$@" 2>/dev/null | awk -F'\t' -v k="$k" '$1 == k { s += $2 } END { print s + 0 }'
}

# longest_life DIR NP: the longest rank life in ns among the DIR/life-* files that
# bench/realapps/lifetime.sh wrote; nothing unless all NP ranks wrote theirs.
longest_life() {
	cat "$1"/life-* 2>/dev/null | awk -v np="$2" 'NF == 2 { d = $2 - $1; if (d > m) m = d; n++ }
		END { if (n == np && m > 0) printf "%.0f\n", m }'
}

# life_spread DIR NP: "SKEW LAST" in ns from the same files: how far apart the ranks
# started, and the time from the last rank's start to the last end (what contend predict
# counts as the run time, docs/predict.md); nothing unless all NP ranks wrote theirs.
life_spread() {
	cat "$1"/life-* 2>/dev/null | awk -v np="$2" 'NF == 2 { n++
			if (n == 1 || $1 < s0) s0 = $1; if (n == 1 || $1 > s1) s1 = $1; if ($2 > e1) e1 = $2 }
		END { if (n == np && e1 > s1) printf "%.0f %.0f\n", s1 - s0, e1 - s1 }'
}

# collect_opts VARIANT: the `contend collect` options of a named variant on stdout; status
# 1 when the variant is not a collect variant.
#   collect, plain  the defaults (batch capture, framed payload cut in the kernel too,
#                   plain pcap)
#   full            --payload full (every byte of every packet)
#   batch           --batch, said explicitly
#   batch1s         --batch-timeout 1s
#   immed           --immediate
#   gzip1, gzip6    --compress-level 1, --compress (level 6)
#   immedgz1        --immediate --compress-level 1
#   snap256         --snaplen 256
#   nokcut          --no-kernel-cut (the framed cut in the capture thread alone)
#   nocap           --no-capture (sampling alone)
#   nosock          --no-capture --sockets 60s (sampling without socket map scans)
#   sock1s          --sockets 1s (the first socket scan at 250 ms, not 62 ms)
#   i25             -i 25ms (samples every 25 ms: not a multiple of a 10 ms quota period)
#   noalign         --no-align (samples and capture reads on each agent's own clock)
#   align           --align (the shared grid even under a CPU quota)
#   seelocal        --see-local (node-local messages over TCP, loopback captured)
#   preempt         --preempt (the agent at the application's scheduling policy, not
#                   SCHED_BATCH: its wake-ups preempt the ranks)
#   nocappre        --no-capture --preempt
collect_opts() {
	case $1 in
	collect|plain) echo "" ;;
	full) echo "--payload full" ;;
	batch) echo "--batch" ;;
	batch1s) echo "--batch-timeout 1s" ;;
	immed) echo "--immediate" ;;
	gzip1) echo "--compress-level 1" ;;
	gzip6) echo "--compress" ;;
	immedgz1) echo "--immediate --compress-level 1" ;;
	snap256) echo "--snaplen 256" ;;
	nokcut) echo "--no-kernel-cut" ;;
	nocap) echo "--no-capture" ;;
	nosock) echo "--no-capture --sockets 60s" ;;
	sock1s) echo "--sockets 1s" ;;
	i25) echo "-i 25ms" ;;
	noalign) echo "--no-align" ;;
	align) echo "--align" ;;
	seelocal) echo "--see-local" ;;
	preempt) echo "--preempt" ;;
	nocappre) echo "--no-capture --preempt" ;;
	*) return 1 ;;
	esac
}

# testbed_ensure INST LOGDIR: bring testbed INST up with 3 workstations unless it is up
# already; on failure print its last line and exit 1.
testbed_ensure() {
	"$CONTEND" testbed --instance "$1" status 2>&1 | grep -q "^testbed $1: down" || return 0
	"$CONTEND" testbed --instance "$1" up -n 3 >"$2/up.log" 2>&1 && return 0
	echo "testbed $1: $(tail -n 1 "$2/up.log")" >&2
	exit 1
}

# testbed_release INST: take testbed INST down, unless KEEP=1.
testbed_release() {
	[ "${KEEP:-0}" = 1 ] || "$CONTEND" testbed --instance "$1" down >/dev/null 2>&1
}

# calibrate_delay_comm INST DIR SMALL: paper 000's delay_comm curves measured on testbed INST
# (its ws1 and ws2 up), as the paper obtains them by benchmark on its own platform; writes
# DIR/delaycomm.tsv and DIR/delaycomm.log. SMALL=1: fewer, shorter points. Returns 1 when
# the calibration failed (DIR/delaycomm.log's last line says why).
calibrate_delay_comm() {
	if [ "$3" = 1 ]; then set -- "$1" "$2" --points 4 --competitors 1 --probe-ms 100
	else set -- "$1" "$2" --points 4 --competitors 2; fi
	_inst=$1 _dir=$2
	shift 2
	"$CONTEND" predict --calibrate-delay-comm --instance "$_inst" -o "$_dir/delaycomm.tsv" "$@" \
		>"$_dir/delaycomm.log" 2>&1
}

# uncapped_Bps LOG: the rate one uncapped transfer reached in a calibration's log, in B/s
# (nothing when the log has none).
uncapped_Bps() {
	sed -n 's/^uncapped: one transfer reached \([0-9.]*\) MB\/s.*/\1/p' "$1" | awk '{ printf "%.0f", $1 * 1e6 }'
}

# calib_uncapped_Bps TSV: the same rate for a delay_comm calibration file: its largest k_max
# (format delaycomm v2) in B/s, else the log written beside it (TSV's name with .log),
# else nothing.
calib_uncapped_Bps() {
	_r=$(awk -F'\t' 'FNR == 2 { for (c = 1; c <= NF; c++) { if ($c == "k_max") m = c; if ($c == "k_unit_Bps") u = c } next }
		/^#/ || !m || !u { next } $m * $u > r { r = $m * $u } END { if (r > 0) printf "%.0f", r }' "$1" 2>/dev/null)
	[ -n "$_r" ] || _r=$(uncapped_Bps "${1%.tsv}.log" 2>/dev/null)
	echo "$_r"
}
