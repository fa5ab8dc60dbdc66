#!/bin/sh
# parse_tail_testbed: a hung MPI_Finalize for real, on the testbed. tests/e2e/finalize_hang.c
# (Open MPI, 4 workstations, under `contend collect`) exchanges messages for a second or two,
# then every rank spins instead of finalizing, as MPICH 4.0.2 over UCX does here; 6 s after
# its last line the job is ended with SIGTERM (what a timeout or srun does). parse must cut
# each rank's end at the run's last message, with a warning each and the tail_* keys, and
# `--keep-tail` must keep the spinning. Then the same program spinning 6 s and exiting 0
# on its own (a final computation): nothing is cut. The hang again under MPICH, whose
# launcher's traffic at the end must not count as the run's last message. Instance TESTBED_E2E_INSTANCE
# (default 41); the testbed is always brought down. E2E_KEEP_DIR=DIR keeps the runs.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
INST=${TESTBED_E2E_INSTANCE:-41}
E2E_NAME=parse_tail_testbed
. "$TOP/tests/e2e/checks.inc"

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
command -v mpirun >/dev/null && command -v mpicc >/dev/null || { echo "skipped: Open MPI's mpirun or mpicc missing"; exit 77; }
e2e_workdir "${E2E_KEEP_DIR:-}" tail-tb
mpicc -O2 -o "$T/finalize_hang" "$TOP/tests/e2e/finalize_hang.c" >"$T/cc.log" 2>&1 ||
	{ echo "skipped: mpicc failed: $(tail -n 1 "$T/cc.log")"; exit 77; }
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }
up=1
$TB down >/dev/null 2>&1
$TB up -n 4 >"$T/up" 2>&1 || { fail up "$(tail -n 2 "$T/up")"; exit 0; }

exec_of() { awk -F'\t' -v r="$2" 'NR > 2 && $1 !~ /^#/ && $1 == r { print $3 }' "$1/ranks.tsv"; }

# hang_run NAME [--mpich] PROG: PROG's exchanges under collect into $T/NAME, then its
# spinning ended by SIGTERM 6 s after the program's last line (the machine may be loaded:
# the start is waited for, not timed)
hang_run() {
	n=$1
	shift
	timeout -k 10 180 $TB mpirun "$@" 20 50 >"$T/$n.out" 2>&1 &
	pid=$!
	k=0
	while kill -0 $pid 2>/dev/null && ! grep -q "done after" "$T/$n.out" && [ $k -lt 1200 ]; do
		sleep 0.1
		k=$((k + 1))
	done
	sleep 6
	kill -TERM $pid 2>/dev/null
	wait $pid
}

# 1. the hang under Open MPI
R=$T/hung
hang_run hung -np 4 -- "$CONTEND" collect -q -o "$R" -- "$T/finalize_hang"
# Open MPI's mpirun passes the SIGTERM on and follows with SIGKILL: on a loaded machine an
# agent may be killed before it writes the end (how_ended running, its samples cut short:
# parse then warns about those too and exits 1), and the rule holds for both
how=$(for r in 0 1 2 3; do meta "$R/meta/rank-$r.tsv" how_ended; done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
# shellcheck disable=SC2034 # want_rc is read by the check below (eval)
case $how in
" 4 signaled;") want_rc=0 ;;
*) want_rc=1 ;;
esac
check hung-killed 'echo "$how" | grep -qxE "( [1-4] (signaled|running);)+"' "how_ended: $how; $(tail -n 2 "$T/hung.out")"
"$CONTEND" parse -q -j 1 "$R" >/dev/null 2>"$T/parse.err"
rc=$?
check hung-parse '[ $rc -eq $want_rc ]' "exit $rc (how_ended:$how): $(tail -n 1 "$T/parse.err")"
check hung-warnings '[ "$(grep -cE "(was ended by SIGTERM|was still running when its agent was killed,) .* after the run.s last message.*cut at that message" "$T/parse.err")" -eq 4 ]' \
	"$(cat "$T/parse.err")"
check hung-stats '[ "$(meta "$R/profile/stats.tsv" tail_cut_ranks)" = 4 ]' "$(grep -E "^tail" "$R/profile/stats.tsv")"
cut_at=$(meta "$R/profile/stats.tsv" tail_cut_at_ns)
# each rank's phases end within a second of the cut (one 20 ms interval, stretched by load)
late=$(awk -F'\t' -v c="${cut_at:-0}" 'NR > 2 && $1 !~ /^#/ && $4 > e[$1] { e[$1] = $4 }
	END { for (r in e) if (e[r] > c + 1e9 || e[r] < c - 60e9) print r }' "$R/profile/phases.tsv")
check hung-phases-end-at-cut '[ -n "$cut_at" ] && [ -z "$late" ]' "ranks ending far from $cut_at: $late"
"$CONTEND" parse -q -j 1 --keep-tail -o "$T/kept" "$R" >/dev/null 2>"$T/kept.err"
bad=""
for r in 0 1 2 3; do
	c=$(exec_of "$R/profile" $r) k=$(exec_of "$T/kept" $r)
	awk -v c="$c" -v k="$k" 'BEGIN { exit !(c > 0 && k > c + 4e9) }' || bad="$bad $r:$c/$k"
done
check keep-tail-keeps '[ -z "$bad" ] && [ "$(meta "$T/kept/stats.tsv" tail_cut_ranks)" = 0 ] &&
	[ "$(grep -c "kept (--keep-tail)" "$T/kept.err")" -eq 4 ]' "rank:cut/kept exec_ns$bad; $(tail -n 1 "$T/kept.err")"

# 2. the hang under MPICH: when the job is ended its launcher's teardown traffic reaches
# every rank (messages with one end unknown), which is not MPI activity
if command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$T/finalize_hang_mpich" \
	"$TOP/tests/e2e/finalize_hang.c" >"$T/cc.log" 2>&1; then
	R=$T/mpich
	hang_run mpich --mpich -np 4 -- "$CONTEND" collect -q -o "$R" -- "$T/finalize_hang_mpich"
	"$CONTEND" parse -q -j 1 "$R" >/dev/null 2>"$T/mpich.err"
	bad=""
	for r in 0 1 2 3; do
		c=$(exec_of "$R/profile" $r)
		awk -v c="$c" 'BEGIN { exit !(c > 0 && c < 5e9) }' || bad="$bad $r:$c"
	done
	check mpich-cut '[ "$(meta "$R/profile/stats.tsv" tail_cut_ranks)" = 4 ] && [ -z "$bad" ]' \
		"rank:exec_ns$bad; $(grep "^tail" "$R/profile/stats.tsv"; tail -n 1 "$T/mpich.err")"
else
	echo "SKIP e2e/$E2E_NAME/mpich-cut: skipped: no MPICH compiler (mpicc.mpich)"
fi

# 3. the same exchanges, then 6 s of spinning and MPI_Finalize: every rank exits 0
R=$T/exited
timeout -k 10 180 $TB mpirun -np 4 -- "$CONTEND" collect -q -o "$R" -- "$T/finalize_hang" 20 50 6 \
	>"$T/exited.out" 2>&1
rc=$?
how=$(for r in 0 1 2 3; do meta "$R/meta/rank-$r.tsv" how_ended; done | sort | uniq -c | tr -s ' ')
check exited-run '[ $rc -eq 0 ] && [ "$how" = " 4 exited" ]' "exit $rc, how_ended: $how; $(tail -n 2 "$T/exited.out")"
"$CONTEND" parse -q -j 1 "$R" >/dev/null 2>"$T/exited.err"
check exited-not-cut '! grep -q "last message" "$T/exited.err" && ! grep -q "^tail_" "$R/profile/stats.tsv"' \
	"$(cat "$T/exited.err")"
