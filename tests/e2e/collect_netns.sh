#!/bin/sh
# collect's socket map from both of its sources: an Open MPI job over loopback in the
# agent's own network namespace (read through sock_diag netlink) and the same job started
# in a network namespace of its own with `unshare -n` (netlink would answer for the wrong
# namespace, so /proc/PID/net/tcp is read). Each run's map must hold both ends of every
# connection between the job's processes, and say which source it used.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads
T=$(mktemp -d /tmp/contend-e2e-netns.XXXXXX)
trap 'rm -rf "$T"' EXIT

E2E_NAME=collect_netns
. "$TOP/tests/e2e/checks.inc"

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x "$WL/ompi/ring" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: mpirun missing"; exit 77; }

JOB="mpirun --allow-run-as-root -np 2 --mca btl tcp,self --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo $WL/ompi/ring -i 20 -c 20 -m 100k -q"

# both_ends RUN: the established connections whose two ends the map holds, and those it
# holds one end of ("a:p>b:p" each), as "PAIRED ONE-SIDED"
both_ends() {
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $8 == "ESTABLISHED" { print $4 ":" $5 ">" $6 ":" $7 }' \
		"$1"/sockets/rank-*.tsv | sort -u >"$1.est"
	awk -F'[:>]' '{ print $3 ":" $4 ">" $1 ":" $2 }' "$1.est" | sort -u >"$1.rev"
	echo "$(comm -12 "$1.est" "$1.rev" | wc -l) $(comm -23 "$1.est" "$1.rev" | wc -l)"
}

# case NAME SOURCE CMD...: collect CMD, then check its exit, the map's source and both ends
case_() {
	name=$1 want=$2
	shift 2
	R=$T/$name
	timeout -k 5 60 "$CONTEND" collect --no-capture -q -o "$R" -- "$@" >"$T/$name.out" 2>&1
	rc=$?
	check "$name-exit" "[ $rc -eq 0 ]" "exit $rc: $(tail -n 2 "$T/$name.out")"
	check "$name-source" "[ \"$(meta "$R/meta/rank-0.tsv" sockets_source)\" = $want ]" \
		"sockets_source $(meta "$R/meta/rank-0.tsv" sockets_source)"
	# shellcheck disable=SC2046
	set -- $(both_ends "$R")
	check "$name-both-ends" "[ $1 -ge 2 ] && [ $2 -eq 0 ]" "$1 ends paired, $2 with one end only"
}

# the agent's namespace: netlink
# shellcheck disable=SC2086
case_ same netlink $JOB

# a namespace of its own: /proc
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	echo "skipped: the other-namespace case needs root and unshare"
	exit 0
fi
case_ other proc unshare -n sh -c "ip link set lo up && exec $JOB"
