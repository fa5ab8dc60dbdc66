#!/bin/sh
# e2e: the testbed end to end: a killed `up` cleaned by `down`, `up` twice, Open MPI and MPICH
# workloads across three workstations, kernel counters showing bridged traffic between the
# namespaces, a capped link that is slower, a loaded workstation that is slower, a
# communicating competitor, an IPC namespace per workstation, and a `down` that leaves
# nothing behind.
# Uses its own testbed instance (TESTBED_E2E_INSTANCE, default 9) and never touches another.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
C=${CONTEND:-$TOP/$BUILD/contend}
K=${TESTBED_E2E_INSTANCE:-9}
WO=$TOP/$BUILD/workloads/ompi
WM=$TOP/$BUILD/workloads/mpich
STATE=/run/contend-testbed/$K
fail=0

tb() { "$C" testbed --instance "$K" "$@"; }
pass() { echo "PASS e2e/testbed/$1"; }
flunk() { echo "FAIL e2e/testbed/$1: $2"; fail=1; }

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
why=$("$C" testbed check 2>&1) || { echo "skipped: ${why#missing: }"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: Open MPI's mpirun is not installed"; exit 77; }
command -v mpiexec.mpich >/dev/null || { echo "skipped: MPICH's mpiexec.mpich is not installed"; exit 77; }
for w in "$WO/stencil" "$WO/ring" "$WM/ring" "$WM/compute"; do
	[ -x "$w" ] || { echo "FAIL e2e/testbed/workloads: '$w' is not built (make workloads)"; exit 1; }
done

# one run of this test at a time on the machine (other engineers run `make check` too)
mkdir -p /run/contend-testbed
exec 8>"/run/contend-testbed/e2e-$K.lock"
flock 8

cleanup() { tb down >/dev/null 2>&1; }
trap cleanup EXIT
trap 'exit 1' INT TERM

# Everything the instance could have left: prints one line per leftover, nothing when clean.
leftovers() {
	ip netns list 2>/dev/null | awk -v p="c${K}" 'index($1, p) == 1 && substr($1, length(p) + 1, 1) ~ /[a-z]/ { print "netns " $1 }'
	for l in /sys/class/net/c"$K"[a-z]*; do [ -e "$l" ] && echo "link ${l##*/}"; done
	for f in /run/contend-ipcns/c"$K"[a-z]*; do [ -e "$f" ] && echo "ipc namespace $f"; done
	grep " /run/contend-ipcns/c${K}[a-z]" /proc/self/mountinfo | sed 's/^/mount /'
	tc qdisc show 2>/dev/null | grep -E " dev c${K}[a-z]" | sed 's/^/qdisc /'
	for d in /sys/fs/cgroup/cpu/contend-testbed-"$K" /sys/fs/cgroup/cpuset/contend-testbed-"$K"; do
		[ -e "$d" ] && echo "cgroup $d"
	done
	grep -n "# contend-testbed $K\$" /etc/hosts | sed 's/^/hosts /'
	[ -e "$STATE" ] && echo "state $STATE"
	for p in $PIDS; do	# a zombie waiting for init to reap it is gone
		st=$(sed 's/.*) \(.\).*/\1/' "/proc/$p/stat" 2>/dev/null)
		[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && echo "process $p ($st)"
	done
	return 0
}
PIDS=

counter() { cat "/sys/class/net/$1/statistics/$2"; }
# seconds from a workload's output
wall() { sed -n 's/^wall_s //p' | tail -n 1; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
# A job with a time limit. MPICH's UCX tcp transport sometimes never returns from MPI_Finalize
# after the job's work is done (openucx/ucx#8738): a job that printed its result and then hung
# is stopped and noted, its processes are stopped by `down`; one without a result fails.
job() {
	limit=$1
	shift
	jout=$(timeout -k 5 "$limit" "$C" testbed --instance "$K" "$@" 2>&1)
	jrc=$?
	if [ $jrc = 124 ] || [ $jrc = 137 ]; then
		if echo "$jout" | grep -q '^wall_s '; then
			echo "    note: '$*' hung after its result (stopped after $limit s)" >&2
		else
			echo "$jout" | tail -n 3 >&2
		fi
	fi
	echo "$jout"
}

t_start=$(date +%s)
tb down >/dev/null 2>&1

# --- a killed `up` is cleaned by `down`
tb up -n 3 >/dev/null 2>&1 &
up_pid=$!
sleep 0.2
kill -9 "$up_pid" 2>/dev/null
wait "$up_pid" 2>/dev/null
if tb down >/dev/null 2>&1 && [ -z "$(leftovers)" ]; then
	pass killed-up-cleaned
else
	flunk killed-up-cleaned "$(leftovers | head -n 3 | tr '\n' ' ')"
fi

# --- up, and up again
if ! out=$(tb up -n 3 2>&1); then
	flunk up "$out"
	exit 1
fi
if out=$(tb up 2>&1) && [ "$(ip netns list | grep -c "^c${K}ws")" = 3 ] &&
	[ "$(grep -c "# contend-testbed $K\$" /etc/hosts)" = 3 ] && tb status | grep -q "c${K}ws3"; then
	pass up-idempotent
else
	flunk up-idempotent "$out"
fi
# a share below its cores is a quota over a 10 ms period; a share of all its cores is none
# (the cpuset bounds it, and a quota at the cpuset's size throttles at the accounting's edges)
q1=$(cat /sys/fs/cgroup/cpu/contend-testbed-$K/ws1/cpu.cfs_quota_us 2>&1)
p1=$(cat /sys/fs/cgroup/cpu/contend-testbed-$K/ws1/cpu.cfs_period_us 2>&1)
pct1=$(tb status | awk -v h="c${K}ws1" '$2 == h { print $5 }')
case $(nproc):$pct1 in
1:* | *:100) want=-1 ;;
*) want=$((pct1 * 100)) ;;
esac
if [ "$q1" = "$want" ] && [ "$p1" = 10000 ]; then
	pass cpu-quota
else
	flunk cpu-quota "ws1 at $pct1 %: quota '$q1' period '$p1', want quota $want"
fi
# each workstation has an IPC namespace of its own (UCX's shared memory stays within it)
ipc1=$(tb exec ws1 -- readlink /proc/self/ns/ipc 2>&1)
ipc1b=$(tb exec ws1 -- readlink /proc/self/ns/ipc 2>&1)
ipc2=$(tb exec ws2 -- readlink /proc/self/ns/ipc 2>&1)
if [ "$ipc1" = "$ipc1b" ] && [ "$ipc1" != "$ipc2" ] && [ "$ipc1" != "$(readlink /proc/self/ns/ipc)" ] &&
	case $ipc2 in ipc:*) true ;; *) false ;; esac; then
	pass ipc-namespace-per-workstation
else
	flunk ipc-namespace-per-workstation "ws1 '$ipc1' then '$ipc1b', ws2 '$ipc2', here '$(readlink /proc/self/ns/ipc)'"
fi

# --- Open MPI across the bridge: the veths' counters grow, the bridge's own much less
for i in 1 2 3; do eval "b_rx$i=\$(counter c${K}v$i rx_bytes) b_tx$i=\$(counter c${K}v$i tx_bytes)"; done
br0=$(( $(counter c${K}br0 rx_bytes) + $(counter c${K}br0 tx_bytes) ))
out=$(job 60 mpirun -np 3 -- "$WO/stencil" -n 1024 -i 50 -c 0 -q 2>&1)
w=$(echo "$out" | wall)
ok=1 why=
for i in 1 3; do	# the ranks at both ends each exchange 50 x 8 KB halos with rank 1 on ws2
	eval "drx=\$(( \$(counter c${K}v$i rx_bytes) - b_rx$i )) dtx=\$(( \$(counter c${K}v$i tx_bytes) - b_tx$i ))"
	if [ "$drx" -lt 400000 ] || [ "$dtx" -lt 400000 ]; then ok=0; why="$why ws$i rx+$drx tx+$dtx;"; fi
done
eval "d2=\$(( \$(counter c${K}v2 rx_bytes) - b_rx2 ))"
dbr=$(( $(counter c${K}br0 rx_bytes) + $(counter c${K}br0 tx_bytes) - br0 ))
if [ -n "$w" ] && [ $ok = 1 ] && [ "$d2" -gt $((4 * dbr)) ]; then
	pass ompi-stencil-across-bridge
else
	flunk ompi-stencil-across-bridge "wall '$w';$why ws2 rx+$d2, bridge itself +$dbr; $(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi

# --- the launcher shares the cores fairly: `testbed mpirun` execs mpirun in the instance's
# launchers' cgroup (a weight given to the instance must not starve it beside a competitor)
"$C" testbed --instance "$K" mpirun -np 1 --hosts ws1 -- sleep 2 >/dev/null 2>&1 &
lpid=$!
sleep 0.5
cg=$(grep -E '^[0-9]+:cpu(,[a-z]+)*:' /proc/$lpid/cgroup 2>/dev/null)
cs=$(grep -E '^[0-9]+:cpuset:' /proc/$lpid/cgroup 2>/dev/null)
comm=$(cat /proc/$lpid/comm 2>/dev/null)
wait $lpid 2>/dev/null
if [ "$comm" = mpirun ] && [ "${cg##*:}" = "/contend-testbed-$K/launch" ] &&
	[ "${cs##*:}" = "/contend-testbed-$K/launch" ]; then
	pass launcher-in-its-cgroup
else
	flunk launcher-in-its-cgroup "pid $lpid '$comm': cpu '$cg', cpuset '$cs'"
fi

# --- MPICH across the bridge
b=$(counter c${K}v3 tx_bytes)
out=$(job 20 mpirun --mpich -np 3 -- "$WM/ring" -i 20 -m 64k -q 2>&1)
w=$(echo "$out" | wall)
d=$(( $(counter c${K}v3 tx_bytes) - b ))
if [ -n "$w" ] && [ "$d" -gt $((20 * 65536)) ]; then
	pass mpich-ring-across-bridge
else
	flunk mpich-ring-across-bridge "wall '$w', ws3 received $d bytes; $(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi

# --- a capped link is slower: 2 round trips of 1 MB, ws1-ws2 free, ws1-ws3 capped at 20 Mbit/s
free=$(job 60 mpirun -np 2 --hosts ws1,ws2 -- "$WO/ring" -i 2 -m 1M -q 2>&1 | wall)
tb link ws3 20mbit >/dev/null
capped=$(job 60 mpirun -np 2 --hosts ws1,ws3 -- "$WO/ring" -i 2 -m 1M -q 2>&1 | wall)
# 4 MB at 2.5 MB/s take at least 1.6 s
if [ -n "$free" ] && [ -n "$capped" ] && tc qdisc show dev c${K}v3 | grep -q tbf &&
	gt "$capped" 1.3 && gt "$capped" "$(awk -v f="$free" 'BEGIN { print f * 5 }')"; then
	pass capped-link-slower
else
	flunk capped-link-slower "free ${free:-?} s, capped ${capped:-?} s"
fi
echo "    capped link: ring 2 x 1 MB free $free s, at 20 Mbit/s $capped s"

# --- the cap's token bucket: 10 ms at the rate by default (25 KB at 20 Mbit/s), or --burst,
# on both ends of the link, kept across an 'up' that reapplies the layout
b_def=$(tc qdisc show dev c${K}v3 | grep -o 'burst [0-9]*[KMb]*')
tb link ws3 20mbit --burst 3k >/dev/null
b_set=$(tc qdisc show dev c${K}v3 | grep -o 'burst [0-9]*[KMb]*')
b_in=$(tc -n c${K}ws3 qdisc show dev eth0 | grep -o 'burst [0-9]*[KMb]*')
if [ "$b_set" = "burst 3Kb" ] && [ "$b_in" = "burst 3Kb" ] && [ -n "$b_def" ] && [ "$b_def" != "$b_set" ]; then
	pass link-burst
else
	flunk link-burst "default '$b_def', with --burst 3k '$b_set' outside, '$b_in' inside"
fi
tb link ws3 20mbit --burst 1k >/dev/null 2>&1 && flunk link-burst-too-small "--burst 1k accepted" ||
	pass link-burst-too-small

# --- a loaded workstation is slower, and the load runs inside it
free=$(job 20 mpirun --mpich -np 1 --hosts ws2 -- "$WM/compute" -i 10 -c 20 -q 2>&1 | wall)
tb load ws2 --cpu 1 >/dev/null
spin=$(awk '$3 == "spin" { print $1 }' "$STATE/procs.tsv" | head -n 1)
PIDS="$PIDS $spin"
loaded=$(job 20 mpirun --mpich -np 1 --hosts ws2 -- "$WM/compute" -i 10 -c 20 -q 2>&1 | wall)
in_ns=0
[ -n "$spin" ] && [ "$(readlink "/proc/$spin/ns/net")" = "net:[$(stat -L -c %i /run/netns/c${K}ws2)]" ] &&
	grep -q "cpuset:/contend-testbed-$K/ws2\$" "/proc/$spin/cgroup" && in_ns=1
if [ $in_ns = 1 ] && [ -n "$free" ] && [ -n "$loaded" ] &&
	gt "$loaded" "$(awk -v f="$free" 'BEGIN { print f * 1.4 }')"; then
	pass loaded-workstation-slower
else
	flunk loaded-workstation-slower "in namespace and cgroup: $in_ns, free ${free:-?} s, loaded ${loaded:-?} s"
fi
echo "    loaded ws: compute 10 x 20 ms free $free s, with one spinner $loaded s"

# --- a communicating competitor sends to its peer; unload stops it
b=$(counter c${K}v3 tx_bytes)
tb load ws1 --comm ws3 --duty 0.5 --period 200ms >/dev/null
PIDS="$PIDS $(awk '$3 == "sink" || $3 == "source" { print $1 }' "$STATE/procs.tsv" | tr '\n' ' ')"
sleep 1
d=$(( $(counter c${K}v3 tx_bytes) - b ))
tb unload ws1 >/dev/null
alive=0
for p in $(awk '$3 == "sink" || $3 == "source" { print $1 }' "$STATE/procs.tsv"); do alive=1; done
if [ "$d" -gt 200000 ] && [ $alive = 0 ] && [ -d "/proc/$spin" ]; then
	pass comm-load
else
	flunk comm-load "ws3 received $d bytes; sink/source still recorded: $alive"
fi

# --- a workstation with a whole core has no quota: up again with 2 at 100 %
if [ "$(nproc)" -ge 2 ]; then
	if out=$(tb down 2>&1) && out=$(tb up -n 2 --cpu-pct all=100 2>&1) &&
		[ "$(cat /sys/fs/cgroup/cpu/contend-testbed-$K/ws1/cpu.cfs_quota_us)" = -1 ] &&
		[ "$(cat /sys/fs/cgroup/cpu/contend-testbed-$K/ws2/cpu.cfs_quota_us)" = -1 ]; then
		pass whole-core-no-quota
	else
		flunk whole-core-no-quota "$out; quotas $(cat /sys/fs/cgroup/cpu/contend-testbed-$K/ws*/cpu.cfs_quota_us 2>&1 | tr '\n' ' ')"
	fi
else
	echo "skipped: e2e/testbed/whole-core-no-quota: one CPU"
fi

# --- down leaves nothing: namespaces, links, qdiscs, cgroups, hosts lines, state, processes
tb exec ws1 -- sleep 600 >/dev/null 2>&1 &
sleep 0.3
PIDS="$PIDS $(cat /sys/fs/cgroup/cpuset/contend-testbed-$K/ws1/cgroup.procs 2>/dev/null | tr '\n' ' ')"
out=$(tb down 2>&1)
rc=$?
wait 2>/dev/null
left=$(leftovers)
if [ $rc = 0 ] && [ -z "$left" ]; then
	pass down-leaves-nothing
else
	flunk down-leaves-nothing "exit $rc: $out; left: $(echo "$left" | head -n 5 | tr '\n' ' ')"
fi
echo "    ($(( $(date +%s) - t_start )) s)"
exit $fail
