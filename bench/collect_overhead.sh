#!/bin/sh
# Overhead of `contend collect` as issue-style figures: a compute-heavy and a
# communication-heavy Open MPI workload on the testbed (3 workstations, instance 10
# unless INST=K), each run N times with nothing, with contend collect, with collect's
# sampling alone, with the bare 20 ms sampler and with a bare tcpdump (the bounds), rounds
# alternated; medians, ratios and paired ratios, kernel drops and the observers' CPU, by
# bench/collect_bound.sh (VARIANTS="..." to choose others). Target: a median ratio of at
# most 1.02, or the bound where the bound itself is above it.
# Usage: BUILD=build-x sh bench/collect_overhead.sh [RUNS]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-5}
export VARIANTS="${VARIANTS:-base collect nocap bare tcpdumpb}"
rc=0
KEEP=1 sh "$TOP/bench/collect_bound.sh" "$N" compute -i 100 -c 20 || rc=1
echo
sh "$TOP/bench/collect_bound.sh" "$N" alltoall -i 200 -c 2 -m 256k || rc=1
exit $rc
