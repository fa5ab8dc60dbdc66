#!/bin/sh
# bench/realapps/lifetime.sh DIR PROG [ARGS]: run one rank's program as a child and write
# its start and end (ns of the real-time clock) to DIR/life-RANK, so that a run without
# contend collect still has its ranks' time (what a prediction is in) apart from the
# launcher's. The shell only waits: a parent doing nothing costs a rank nothing measurable
# (bench/results/realapps/overhead.md, "Why ScaLAPACK runs faster under collect").
# A TERM (mpiexec ending a job) is passed to the program and the end still written.
d=$1
shift
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-$$}}
s=$(date +%s%N)
"$@" &
c=$!
trap 'kill -TERM "$c" 2>/dev/null' TERM INT
wait "$c"
rc=$?
# a wait cut short by the trap: wait again for the program's own end
while kill -0 "$c" 2>/dev/null; do wait "$c"; rc=$?; done
echo "$s $(date +%s%N)" >"$d/life-$r"
exit $rc
