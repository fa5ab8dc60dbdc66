#!/bin/sh
# coverage_coloc: several ranks per workstation, every point-to-point message counted
# against the program's own record of its sends (the PMPI wrapper of tests/pmpi, compared
# by tests/pmpi/compare.sh). The all-to-all by hand (alltoall -a: every rank sends ITERS
# messages to every other) under
#   - MPICH, 2 ranks on each of 2 workstations, as users launch it (UCX's shared memory
#     between the ranks of one workstation): parse must say which 2 pairs were not seen,
#     the messages between workstations must be exactly those of the truth, and the two
#     same-node pairs' messages must be missing, not made up;
#   - the same recorded with `collect --see-local`: every message rebuilt, exactly;
#   - MPICH and Open MPI, 4 ranks on each of 2 workstations, with --see-local: every
#     message of the 28 pairs rebuilt, exactly.
# MPICH 4.0.2 over UCX often hangs in MPI_Finalize on the testbed (docs/testbed.md): the
# truth is written in the wrapper's MPI_Finalize before that, so a job whose program has
# printed its result is ended from outside a few seconds later. Instance 26
# (COLOC_E2E_INSTANCE); always brought down.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads
INST=${COLOC_E2E_INSTANCE:-26}
ITERS=20
E2E_NAME=coverage_coloc
. "$TOP/tests/e2e/checks.inc"
e2e_workdir "" coloc

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
for f in workloads/ompi/alltoall workloads/mpich/alltoall pmpi/ompi.so pmpi/mpich.so; do
	[ -e "$TOP/$BUILD/$f" ] || { echo "skipped: no $BUILD/$f (make workloads)"; exit 77; }
done
command -v mpirun >/dev/null || { echo "skipped: Open MPI's mpirun is not installed"; exit 77; }
command -v mpiexec.mpich >/dev/null || { echo "skipped: MPICH's mpiexec.mpich is not installed"; exit 77; }
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }
up=1
$TB down >/dev/null 2>&1
$TB up -n 2 >"$T/up" 2>&1 || { fail up "$(tail -n 2 "$T/up")"; exit 0; }

# record NAME MPI NP COLLECT-OPTIONS...: alltoall -a on NP ranks (round-robin: rank r on
# workstation r % 2 + 1) under MPI (ompi or mpich) with the PMPI wrapper writing
# T/NAME.truth, then parsed. 0 when the program printed its result and parse wrote
# messages. Up to 2 tries (a launch on a busy machine now and then fails).
record() {
	name=$1 mpi=$2 np=$3
	shift 3
	mo=""
	[ "$mpi" = mpich ] && mo=--mpich
	for try in 1 2; do
		rm -rf "${T:?}/$name" "$T/$name.truth"
		mkdir -p "$T/$name.truth"
		# shellcheck disable=SC2086
		timeout -k 5 60 $TB mpirun $mo -np "$np" -- "$CONTEND" collect -q -o "$T/$name" "$@" -- \
			env LD_PRELOAD="$TOP/$BUILD/pmpi/$mpi.so" PMPI_LOG_DIR="$T/$name.truth" \
			"$WL/$mpi/alltoall" -a -i $ITERS -c 2 -m 10k -q >"$T/$name.out" 2>&1 &
		job=$!
		# the result line, then 5 s to finish; a job still there is ended (MPICH's hang)
		k=0 left=-1
		while kill -0 $job 2>/dev/null && [ $k -lt 600 ]; do
			[ $left -lt 0 ] && grep -q '^wall_s' "$T/$name.out" 2>/dev/null && left=50
			[ $left -eq 0 ] && { kill -TERM $job 2>/dev/null; break; }
			[ $left -gt 0 ] && left=$((left - 1))
			sleep 0.1
			k=$((k + 1))
		done
		wait $job
		echo "exit $? (try $try)" >>"$T/$name.out"
		grep -q '^wall_s' "$T/$name.out" && [ "$(ls "$T/$name.truth" | wc -l)" = "$np" ] && break
	done
	grep -q '^wall_s' "$T/$name.out" || return 1
	# a job ended from outside may leave warnings (exit 1); its capture is closed and read
	"$CONTEND" parse "$T/$name" >"$T/$name.parse" 2>&1
	[ -s "$T/$name/profile/messages.tsv" ]
}
stat() { meta "$T/$1/profile/stats.tsv" "$2"; }
stats() { grep -E '^(pairs|coverage|see_local|local_path)' "$T/$1/profile/stats.tsv" | tr '\t\n' '= '; }
# cmp [-a] RUN TRUTH: compare.sh's summary line in $got, its exit status in $crc
cmp() {
	sh "$TOP/tests/pmpi/compare.sh" -q "$@" >"$T/cmp.out" 2>&1
	crc=$?
	got=$(tail -n 1 "$T/cmp.out")
}
# want NAME KIND N: the summary line compare.sh gives when N messages were sent of KIND
# (p2p_wire, p2p_all) and all of them were rebuilt
want() { printf '%s\tsent=%d\trebuilt=%d\tmatched=%d\trebuilt/sent=1.00000\n' "$1" "$2" "$2" "$2"; }

# --- MPICH, 2 per workstation, as users launch it: same-node pairs through shared memory
n=mpich-2-default
if record $n mpich 4; then
	check $n/stats '[ "$(stat $n pairs)" = 6 ] && [ "$(stat $n pairs_local)" = 2 ] &&
		[ "$(stat $n pairs_local_hidden)" = 2 ] && [ "$(stat $n pairs_remote_seen)" = 4 ] &&
		[ "$(stat $n coverage)" = partial ] && [ "$(stat $n local_path)" = "shared memory" ]' "stats.tsv: $(stats $n)"
	check $n/hidden-pairs \
		'[ "$(awk -F"\t" "NR > 2 && \$1 !~ /^#/ && \$7 == \"hidden\" { print \$1 \"-\" \$2 }" "$T/$n/profile/coverage.tsv" | tr "\n" " ")" = "0-2 1-3 " ]' \
		"coverage.tsv: $(tail -n +3 "$T/$n/profile/coverage.tsv" | tr '\t\n' ' ;')"
	check $n/stdout 'grep -q "^coverage partial: 2 of 6 rank pairs (33 %) share a node" "$T/$n.parse"' \
		"$(grep coverage "$T/$n.parse")"
	# between workstations: exactly the truth (8 pairs); over all pairs: those 160 and
	# nothing of the 80 same-node messages
	cmp "$T/$n" "$T/$n.truth"
	check $n/wire-exact '[ $crc = 0 ] && [ "$got" = "$(want p2p_wire $((8 * ITERS)))" ]' "$got"
	cmp -a "$T/$n" "$T/$n.truth"
	check $n/same-node-missing \
		'[ "$got" = "$(printf "p2p_all\tsent=%d\trebuilt=%d\tmatched=%d\trebuilt/sent=0.66667" $((12 * ITERS)) $((8 * ITERS)) $((8 * ITERS)))" ]' "$got"
else
	fail $n/run "$(tail -n 3 "$T/$n.out" "$T/$n.parse" 2>/dev/null | tr '\n' ' ')"
fi

# --- --see-local: MPICH (2 and 4 per workstation) and Open MPI (4 per workstation)
for c in "mpich 4 2 6" "mpich 8 12 28" "ompi 8 12 28"; do
	# shellcheck disable=SC2086
	set -- $c
	mpi=$1 np=$2 local=$3 pairs=$4
	n=$mpi-$((np / 2))-see-local
	if record $n "$mpi" "$np" --see-local; then
		check $n/coverage-full '[ "$(stat $n coverage)" = full ] && [ "$(stat $n see_local)" = 1 ] &&
			[ "$(stat $n pairs)" = '"$pairs"' ] && [ "$(stat $n pairs_local_seen)" = '"$local"' ] &&
			meta "$T/$n/meta/rank-0.tsv" capture_ifaces | grep -qw lo' "stats.tsv: $(stats $n)"
		cmp -a "$T/$n" "$T/$n.truth"
		check $n/every-message-exact '[ $crc = 0 ] && [ "$got" = "$(want p2p_all $((np * (np - 1) * ITERS)))" ]' "$got"
	else
		fail $n/run "$(tail -n 3 "$T/$n.out" "$T/$n.parse" 2>/dev/null | tr '\n' ' ')"
	fi
done
exit 0
