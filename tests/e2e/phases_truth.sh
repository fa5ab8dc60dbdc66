#!/bin/sh
# phases_truth: bench/phases_truth on a hand-made run (no MPI, no testbed): one rank whose
# phases, samples and PMPI intervals are known, the times and interval counts worked out
# by hand below, and its per-interval rows with the CPU of the samples; a rank without its
# truth file, and a v1 truth file, are errors.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
E2E_NAME=phases_truth
. "$TOP/tests/e2e/checks.inc"
PT=$TOP/$BUILD/bench/phases_truth
[ -x "$PT" ] || { echo "skipped: no $BUILD/bench/phases_truth (make bench)"; exit 77; }
T=$(mktemp -d /tmp/contend-e2e-ptruth.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# Times in ms after Z. Parse: busy 0-100, idle 100-200, busy 200-300 (samples every 20 ms).
# Truth: recv 45-150 (two calls joined in one row), wait 250-260, finalize from 290 on.
# In MPI over the window 0-300: 105 + 10 + 10 = 125, work 175; busy in MPI 55 + 10 + 10 = 75;
# idle that is work 100 - 50 = 50. Sample intervals at least half in MPI: 40-60 (15 of 20),
# 60-80, 80-100, 100-120, 120-140, 140-160 (10 of 20), 240-260, 280-300: 8, of them busy 5
# (40-100, 240, 280); work read idle: 160-180, 180-200.
Z=1700000000000000000
ms() { echo $((Z + $1 * 1000000)); }
mkdir -p "$T/run/profile" "$T/run/samples" "$T/truth"
{
	printf '# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n'
	printf '0\tbusy\t%s\t%s\t0\t0\n' "$(ms 0)" "$(ms 100)"
	printf '0\tidle\t%s\t%s\t0\t0\n' "$(ms 100)" "$(ms 200)"
	printf '0\tbusy\t%s\t%s\t0\t0\n' "$(ms 200)" "$(ms 300)"
} >"$T/run/profile/phases.tsv"
{
	# two threads: per interval 10 ms and 1 user tick, 1 ms and 1 system tick
	printf '# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\trun_ns\tutime_ticks\tstime_ticks\n'
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		printf '%d\t%s\t7\t7\t%d\t%d\t0\n' $i "$(ms $((i * 20)))" $((i * 10000000)) $i
		printf '%d\t%s\t7\t8\t%d\t0\t%d\n' $i "$(ms $((i * 20)))" $((i * 1000000)) $i
	done
} | gzip >"$T/run/samples/rank-0.tsv.gz"
{
	printf '# contend-pmpi 2\n# rank\t0\thost\tws1\tpid\t7\tworld_size\t1\n'
	printf 't_real_ns\tkind\tcall\tsrc\tdst\ttag\tcomm\tcomm_size\tbytes\troot\tt_exit_ns\tcalls\n'
	printf '%s\tp2p\tsend\t0\t1\t5\t0\t2\t8\t-1\t-1\t1\n' "$(ms 40)"
	printf '%s\tmpi\trecv\t0\t-1\t-1\t0\t2\t-1\t-1\t%s\t2\n' "$(ms 45)" "$(ms 150)"
	printf '%s\tmpi\twait\t0\t-1\t-1\t-1\t-1\t-1\t-1\t%s\t1\n' "$(ms 250)" "$(ms 260)"
	printf '%s\tmpi\tfinalize\t0\t-1\t-1\t-1\t-1\t-1\t-1\t-1\t1\n' "$(ms 290)"
	printf '# mpi_calls\t4\tmpi_rows\t3\n# end\n'
} >"$T/truth/rank-0.tsv"

"$PT" -c "$T/run" "$T/truth" >"$T/out" 2>"$T/err"
rc=$?
check exit "[ $rc -eq 0 ]" "exit $rc: $(head -n 1 "$T/err")"
check header "head -n 1 '$T/out' | grep -q '^rank	window_s	work_s	mpi_s	busy_s	idle_s	mpi_busy_s	work_idle_s	work_pct	busy_pct	ivls	ivls_mpi	ivls_mpi_busy	ivls_work_idle\$'" \
	"header: $(head -n 1 "$T/out")"
want='0	0.300	0.175	0.125	0.200	0.100	0.075	0.050	58.3	66.7	15	8	5	2'
got=$(awk 'NR == 2' "$T/out")
check rank-row "[ \"\$got\" = \"\$want\" ]" "got '$got', want '$want'"
check call-rows "grep -q '^call	0	recv	1	0.105	0.055\$' '$T/out' && grep -q '^call	0	wait	1	0.010	0.010\$' '$T/out' &&
	grep -q '^call	0	finalize	1	0.010	0.010\$' '$T/out'" "$(grep '^call' "$T/out" | tr '\t\n' ' |')"
check len-rows "grep -q '^len	0	>100ms	1	0.105	0.055\$' '$T/out' && grep -q '^len	0	1-20ms	1	0.010	0.010\$' '$T/out' &&
	grep -q '^len	0	<1ms	0	0.000	0.000\$' '$T/out'" "$(grep '^len' "$T/out" | tr '\t\n' ' |')"

# -w: the truth as parse's phases over the window: busy 0-45, idle 45-150 (recv), busy
# 150-250, idle 250-260 (wait), busy 260-290, idle 290-300 (finalize to the window's end)
"$PT" -w "$T/ph.tsv" "$T/run" "$T/truth" >/dev/null 2>&1
rc=$?
{
	printf '# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n'
	for p in busy:0:45 idle:45:150 busy:150:250 idle:250:260 busy:260:290 idle:290:300; do
		IFS=: read -r k a b <<EOF_P
$p
EOF_P
		printf '0\t%s\t%s\t%s\t-1\t-1\n' "$k" "$(ms "$a")" "$(ms "$b")"
	done
} >"$T/ph.want"
check write-phases "[ $rc -eq 0 ] && cmp -s '$T/ph.tsv' '$T/ph.want'" "exit $rc: $(diff "$T/ph.want" "$T/ph.tsv" 2>&1 | head -n 3 | tr '\n' ' ')"

"$PT" -i "$T/run" "$T/truth" >"$T/outi" 2>&1
check ivl-rows "[ \"\$(grep -c '^ivl	0	' '$T/outi')\" = 15 ] && grep -q \"^ivl	0	$(ms 40)	$(ms 60)	busy	0.750	11000000	1	1	-1\$\" '$T/outi' &&
	grep -q \"^ivl	0	$(ms 140)	$(ms 160)	idle	0.500	11000000	1	1	-1\$\" '$T/outi'" "$(grep '^ivl' "$T/outi" | sed -n 3p)"
# The trace: rank 0 sends at 30 and hears at 150 (a wait 30-150 for parse's polling rule;
# rank 1's message at 200 comes after another arrival: no wait, as rank 0 sends again at
# 260, so its trace does not end there). Intervals at least half inside it: 20-40 (10 of
# 20) to 140-160 (10 of 20), 7 of them.
{
	printf '# contend-messages 1\nt_first_ns\tt_last_ns\tsrc\tdst\tbytes\n'
	printf '%s\t%s\t0\t1\t8\n' "$(ms 30)" "$(ms 31)"
	printf '%s\t%s\t1\t0\t8\n' "$(ms 149)" "$(ms 150)"
	printf '%s\t%s\t1\t0\t8\n' "$(ms 199)" "$(ms 200)"
	printf '%s\t%s\t0\t1\t8\n' "$(ms 260)" "$(ms 261)"
	printf '%s\t%s\t-1\t0\t8\n' "$(ms 5)" "$(ms 6)"
} >"$T/run/profile/messages.tsv"
"$PT" -i "$T/run" "$T/truth" >"$T/outw" 2>&1
check ivl-in-wait "[ \"\$(awk -F'\t' '\$1 == \"ivl\" && \$10 == 1' '$T/outw' | wc -l)\" = 7 ] &&
	grep -q \"^ivl	0	$(ms 20)	$(ms 40)	busy	0.000	11000000	1	1	1\$\" '$T/outw' &&
	grep -q \"^ivl	0	$(ms 160)	$(ms 180)	idle	0.000	11000000	1	1	0\$\" '$T/outw'" "$(grep '^ivl' "$T/outw" | sed -n 2p)"

# a rank with phases and no truth: its error, the other rank still printed, exit 1
printf '1\tbusy\t%s\t%s\t0\t0\n' "$(ms 0)" "$(ms 300)" >>"$T/run/profile/phases.tsv"
"$PT" "$T/run" "$T/truth" >"$T/out2" 2>"$T/err2"
rc=$?
check missing-truth "[ $rc -eq 1 ] && grep -q 'rank 1: no truth file' '$T/err2' && [ \"\$(awk 'NR == 2' '$T/out2')\" = \"\$want\" ]" \
	"exit $rc: $(head -n 1 "$T/err2")"
# a v1 file has no intervals
sed -i '1s/.*/# contend-pmpi 1/' "$T/truth/rank-0.tsv"
"$PT" "$T/run" "$T/truth" >"$T/out3" 2>"$T/err3"
rc=$?
check v1-refused "[ $rc -eq 1 ] && grep -q 'not a pmpi v2 file' '$T/err3'" "exit $rc: $(head -n 1 "$T/err3")"
"$PT" "$T/run" >/dev/null 2>&1
rc=$?
check usage "[ $rc -eq 2 ]" "exit $rc without TRUTHDIR"
