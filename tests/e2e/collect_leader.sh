#!/bin/sh
# collect under a launcher that gives no node-local rank (PMIx's PMIX_RANK alone): two
# agents of one job on one node elect the node's leader through RUN/meta/leader-HOST-JOB.
# Exactly one takes the capture and the node's samples; the other records local rank -1;
# the leader keeps the node's files open until the other rank has ended; the run reads
# back whole. Started by hand with the variables such a launcher sets.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
T=$(mktemp -d /tmp/contend-e2e-leader.XXXXXX)
trap 'rm -rf "$T"' EXIT

E2E_NAME=collect_leader
. "$TOP/tests/e2e/checks.inc"

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
R=$T/run
# rank 0 starts first and ends first; rank 1 runs on for a second
env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID PMIX_RANK=0 PMIX_NAMESPACE=job7 \
	"$CONTEND" collect -q -o "$R" -- sleep 0.3 >"$T/r0.out" 2>&1 &
p0=$!
sleep 0.3
env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID PMIX_RANK=1 PMIX_NAMESPACE=job7 \
	"$CONTEND" collect -q -o "$R" -- sleep 1.2 >"$T/r1.out" 2>&1
rc1=$?
wait $p0
rc0=$?
check both-exit "[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ]" "exit $rc0 and $rc1: $(cat "$T/r0.out" "$T/r1.out" | head -n 2)"
# rank 0 is the leader unless it took over 0.3 s to start; either way exactly one
lr="$(meta "$R/meta/rank-0.tsv" local_rank) $(meta "$R/meta/rank-1.tsv" local_rank)"
check one-leader "[ \"$lr\" = '0 -1' ] || [ \"$lr\" = '-1 0' ]" "local ranks of ranks 0 and 1: $lr"
leader=$(cat "$R"/meta/leader-*-job7 2>/dev/null)
check leader-file "[ \"$(meta "$R/meta/rank-${leader:-x}.tsv" local_rank 2>/dev/null)\" = 0 ]" \
	"leader file says '${leader:-}'; $(ls "$R/meta" | tr '\n' ' ')"
nn=$(ls "$R"/samples/node-*.tsv.gz 2>/dev/null | wc -l)
check one-node-file "[ $nn -eq 1 ]" "$nn node sample files"
# the leader's node file closes after the other rank's end
end1=$(meta "$R/meta/rank-$((1 - ${leader:-0})).tsv" end_real_ns)
closed=$(stat -c %.9Y "$R"/samples/node-*.tsv.gz 2>/dev/null | head -n 1)
check leader-waits "awk -v c='$closed' -v e='$end1' 'BEGIN { exit !(c * 1e9 >= e) }'" \
	"node samples closed at $closed s, the other rank ended at $end1 ns"
"$CONTEND" collect --check "$R" >"$T/check" 2>&1
check reads-back "[ $? -eq 0 ]" "$(head -n 2 "$T/check")"

# A launcher that gives node-local ranks (Open MPI's variables): the other agent of the
# node starts first and waits for the leader's capture before it starts its application,
# so the application's first packets are not missed.
R2=$T/run2
ompi() { r=$1; shift
	env -u PMI_RANK -u SLURM_PROCID OMPI_COMM_WORLD_RANK="$r" OMPI_COMM_WORLD_SIZE=2 \
		OMPI_COMM_WORLD_LOCAL_RANK="$r" OMPI_COMM_WORLD_LOCAL_SIZE=2 OMPI_MCA_ess_base_jobid=77 \
		"$CONTEND" collect -q -o "$R2" -- "$@"; }
ompi 1 sh -c "date +%s%N >'$T/app1'" >"$T/o1.out" 2>&1 &
p1=$!
sleep 0.5
ompi 0 sleep 0.3 >"$T/o0.out" 2>&1
rc0=$?
wait $p1
rc1=$?
check ompi-both-exit "[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ]" "exit $rc0 and $rc1: $(cat "$T/o0.out" "$T/o1.out" | head -n 2)"
start0=$(meta "$R2/meta/rank-0.tsv" start_real_ns)
app1=$(cat "$T/app1" 2>/dev/null)
check waits-for-capture "[ '$(meta "$R2/meta/rank-1.tsv" capture_wait)' = done ] &&
	awk -v a='${app1:-0}' -v s='${start0:-x}' 'BEGIN { exit !(a > s) }'" \
	"rank 1: capture_wait $(meta "$R2/meta/rank-1.tsv" capture_wait) $(meta "$R2/meta/rank-1.tsv" capture_wait_ns) ns; its application at $app1, the leader's agent from $start0"
