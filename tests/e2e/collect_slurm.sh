#!/bin/sh
# collect under Slurm's srun: a one-node Slurm (munged, slurmctld and slurmd of our own, in
# a scratch directory, on ports of our own) runs MPICH over srun's PMI-2 and Open MPI over
# srun's PMIx with `contend collect` as the task; each agent must take its rank, node-local
# rank and job from Slurm's variables, the runs must read back whole, and parse must tie
# the Open MPI messages to ranks. The daemons are stopped by the PIDs recorded here.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads
T=$(mktemp -d /tmp/contend-e2e-slurm.XXXXXX)
daemons=""
cleanup() {
	for p in $daemons; do kill "$p" 2>/dev/null; done
	for p in $daemons; do
		k=0
		while kill -0 "$p" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { echo "PASS e2e/collect_slurm/$1"; }
fail() { echo "FAIL e2e/collect_slurm/$1: $2"; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi; }
meta() { awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1"; }

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (the Slurm daemons run as root here)"; exit 77; }
for c in munged slurmctld slurmd srun sinfo; do
	command -v "$c" >/dev/null || { echo "skipped: $c missing (apt-get install slurmd slurmctld slurm-client munge)"; exit 77; }
done
[ -x "$WL/ompi/ring" ] && [ -x "$WL/mpich/ring" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }

# --- a one-node Slurm ---------------------------------------------------------------------
H=$(hostname -s)
mkdir -p "$T/state" "$T/spool" "$T/log"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$T/munge.key"
munged --foreground --force --key-file="$T/munge.key" --socket="$T/munge.sock" \
	--pid-file="$T/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munge.seed" \
	>"$T/log/munged.out" 2>&1 &
daemons="$!"
port=$((20000 + $$ % 20000))
cat >"$T/slurm.conf" <<EOF
ClusterName=contend
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
NodeName=$H CPUs=8 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
k=0
while [ ! -S "$T/munge.sock" ] && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
daemons="$daemons $!"
slurmd -D -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 &
daemons="$daemons $!"
k=0
while ! sinfo -h -o %t 2>/dev/null | grep -q idle && [ $k -lt 150 ]; do sleep 0.2; k=$((k + 1)); done
if ! sinfo -h -o %t 2>/dev/null | grep -q idle; then
	echo "skipped: the one-node Slurm did not come up: $(tail -n 1 "$T/log/slurmctld.log" 2>/dev/null)"
	exit 77
fi
echo "note: one-node Slurm on $H, ports $port-$((port + 1))"

ranks_ok() {	# ranks_ok RUN: ranks 0..2, node-local ranks 0..2, launcher slurm, a step job id
	[ "$(meta "$1/meta/run.tsv" launcher)" = slurm ] || return 1
	meta "$1/meta/run.tsv" job_id | grep -Eq '^[0-9]+\.[0-9]+$' || return 1
	for r in 0 1 2; do
		[ "$(meta "$1/meta/rank-$r.tsv" rank)" = "$r" ] || return 1
		[ "$(meta "$1/meta/rank-$r.tsv" how_ended)" = exited ] || return 1
	done
	[ "$(cat "$1"/meta/rank-*.tsv | awk -F'\t' '$1 == "local_rank" { print $2 }' | sort | tr '\n' ' ')" = "0 1 2 " ]
}

# --- MPICH over srun's PMI-2 ----------------------------------------------------------------
R=$T/mpich
timeout -k 5 60 srun --mpi=pmi2 -n 3 "$CONTEND" collect -q -o "$R" -- \
	"$WL/mpich/ring" -i 20 -c 5 -m 200k -q >"$T/mpich.out" 2>&1
rc=$?
check mpich-exit "[ $rc -eq 0 ]" "exit $rc: $(tail -n 2 "$T/mpich.out")"
check mpich-ranks "ranks_ok '$R'" "launcher $(meta "$R/meta/run.tsv" launcher), local ranks $(cat "$R"/meta/rank-*.tsv 2>/dev/null | awk -F'\t' '$1 == "local_rank" { print $2 }' | tr '\n' ' ')"
"$CONTEND" collect --check "$R" >"$T/mpich.check" 2>&1
check mpich-check "[ $? -eq 0 ] && [ \$(ls '$R'/capture | wc -l) -eq 1 ]" "$(head -n 2 "$T/mpich.check"); captures: $(ls "$R"/capture 2>/dev/null | tr '\n' ' ')"

# --- Open MPI over srun's PMIx (TCP between the ranks, so the capture has them) -------------
R=$T/ompi
timeout -k 5 60 srun --mpi=pmix -n 3 "$CONTEND" collect -q -o "$R" -- \
	env OMPI_MCA_btl=tcp,self "$WL/ompi/ring" -i 20 -c 5 -m 200k -q >"$T/ompi.out" 2>&1
rc=$?
check ompi-exit "[ $rc -eq 0 ]" "exit $rc: $(tail -n 2 "$T/ompi.out")"
check ompi-ranks "ranks_ok '$R'" "launcher $(meta "$R/meta/run.tsv" launcher)"
"$CONTEND" collect --check "$R" >"$T/ompi.check" 2>&1
check ompi-check "[ $? -eq 0 ]" "$(head -n 2 "$T/ompi.check")"
"$CONTEND" parse -q "$R" >"$T/ompi.parse" 2>&1
# ring -i 20 on 3 ranks: every rank sends 20 messages to the next
tied=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $11 == "ompi" && $3 >= 0 && $4 >= 0 && $9 >= 200000' "$R/profile/messages.tsv" 2>/dev/null | wc -l)
check ompi-messages-tied "[ $tied -ge 60 ]" "$tied Open MPI messages of 200k tied to ranks, want 60"
