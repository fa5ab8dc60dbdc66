#!/bin/sh
# record.sh: re-record the runs shipped in traces/ with `contend collect` on the testbed.
#
# Usage (root, from the top directory, after `make` and `make workloads`):
#   sh traces/record.sh [NAME...]        NAME: stencil-4ws farm-4ws-loaded alltoall-mpich-3ws
# Environment: BUILD (default build), INSTANCE (testbed instance, default 3),
#   OUT (where the runs go, default traces), SHARES (cpu.shares given to the testbed's
#   cgroup while recording, default 32768; 0 leaves it alone).
#
# Each run replaces OUT/NAME. The testbed instance is brought up for each run and always
# brought down again (also on an error or a signal). On a machine that is busy with other
# work, the testbed's workstations would get much less than their capacity; SHARES gives
# the instance's parent cgroup a large CPU weight for the few seconds of a run so that each
# workstation gets its configured capacity (the per-workstation quotas still cap it).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads
INSTANCE=${INSTANCE:-3}
OUT=${OUT:-$TOP/traces}
SHARES=${SHARES:-32768}
TB="$CONTEND testbed --instance $INSTANCE"
TMP=$(mktemp -d /tmp/contend-record.XXXXXX)

cleanup() {
	$TB down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "record.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (the testbed does)"
[ -x "$CONTEND" ] || die "no '$CONTEND' (make BUILD=$BUILD)"
for w in ompi/stencil ompi/farm mpich/alltoall; do
	[ -x "$WL/$w" ] || die "no '$WL/$w' (make BUILD=$BUILD workloads)"
done
$TB check >/dev/null 2>&1 || die "the testbed cannot run here: $($TB check 2>&1 | tail -n 1)"

# up ARGS...: a fresh testbed with this layout.
up() {
	$TB down >/dev/null 2>&1
	$TB up "$@" >"$TMP/up.log" 2>&1 || die "testbed up failed: $(tail -n 1 "$TMP/up.log")"
	if [ "$SHARES" -gt 0 ]; then
		echo "$SHARES" >"/sys/fs/cgroup/cpu/contend-testbed-$INSTANCE/cpu.shares" ||
			die "cannot set cpu.shares of contend-testbed-$INSTANCE"
	fi
}

# finish NAME: check the run, move it into OUT/NAME, print its summary.
finish() {
	"$CONTEND" collect --check "$TMP/$1" || die "'$1' does not pass collect --check"
	rm -rf "${OUT:?}/$1"
	mkdir -p "$OUT"
	mv "$TMP/$1" "$OUT/$1"
	echo "$1: $(du -sk "$OUT/$1" | cut -f1) KiB, recorded $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

record_stencil() {	# Open MPI, 4 dedicated workstations (50 % of a core each)
	up -n 4
	$TB mpirun -np 4 -- "$CONTEND" collect -q --compress -o "$TMP/stencil-4ws" -- \
		"$WL/ompi/stencil" -n 1024 -i 50 -c 30 || die "stencil failed"
	finish stencil-4ws
}

record_farm() {		# Open MPI, 4 workstations, ws3 shared with one CPU-bound competitor
	up -n 4
	$TB load ws3 --cpu 1 >/dev/null || die "load failed"
	$TB mpirun -np 4 -- "$CONTEND" collect -q --compress -o "$TMP/farm-4ws-loaded" -- \
		"$WL/ompi/farm" -n 100 -c 40 -p 2 -m 16k || die "farm failed"
	$TB unload >/dev/null
	finish farm-4ws-loaded
}

record_alltoall() {	# MPICH, 3 workstations, ws3's link capped at 20 Mbit/s
	# MPICH 4.0.2 over UCX 1.13 (Debian 12) often hangs in MPI_Finalize on the testbed,
	# with or without collect: two ranks wait in UCX progress for their endpoint
	# disconnects while the third waits in the PMI barrier. UCX_TLS=tcp (MPICH handles
	# self-messages itself) makes it rarer; an attempt that still hangs is stopped after
	# 60 s, thrown away, and the run recorded again.
	try=1
	while :; do
		up -n 3
		$TB link ws3 20mbit >/dev/null || die "link cap failed"
		rm -rf "$TMP/alltoall-mpich-3ws"
		if timeout 60 $TB mpirun --mpich -np 3 -- -genv UCX_TLS tcp "$CONTEND" collect -q --compress \
			-o "$TMP/alltoall-mpich-3ws" -- "$WL/mpich/alltoall" -i 24 -c 30 -m 64k; then
			break
		fi
		[ $try -lt 10 ] || die "alltoall did not end cleanly in 10 attempts"
		echo "alltoall attempt $try did not end cleanly; again" >&2
		try=$((try + 1))
	done
	finish alltoall-mpich-3ws
}

[ $# -gt 0 ] || set -- stencil-4ws farm-4ws-loaded alltoall-mpich-3ws
for name in "$@"; do
	case $name in
	stencil-4ws) record_stencil ;;
	farm-4ws-loaded) record_farm ;;
	alltoall-mpich-3ws) record_alltoall ;;
	*) die "unknown run '$name' (stencil-4ws, farm-4ws-loaded, alltoall-mpich-3ws)" ;;
	esac
done
