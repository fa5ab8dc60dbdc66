#!/bin/sh
# infer end to end on the testbed (instance 7): the routed layout with subnet 2's uplink capped
# (ws3 and ws4 share it) and a flat subnet with no cap, each inferred passively from a recorded
# MPI master/slave farm whose master hands out tasks concurrently (farm -a), and actively by
# probing; the routed case also from overlapping bulk transfers, and predict's p001 taking the
# inferred graph as its G; a capture without overlapping transfers (edges untested); a DOT
# read back, re-exported and drawn, and a bad edit of it refused.
#
# What keeps it from depending on luck: the farm's transfers across the cap last about a second
# (6 MB at 6.25 MB/s) and the slaves' compute varies by +-90 % of about as long, so the two
# slaves behind the cap drift in and out of step and their transfers overlap for a while and
# run alone for a while in every run; the master has a core of its own and no workstation is
# throttled by a quota (busy-polling MPI ranks under a 50 % quota stall for tens of ms at a
# time); the testbed's cgroup weighs like one process per workstation against the rest of the
# machine; and a farm run whose transfers across the cap never overlapped long enough for a
# decision is recorded once more (said so in a "note:" line) before the checks are made.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
FARM=$TOP/$BUILD/workloads/ompi/farm
INST=${INFER_E2E_INSTANCE:-7}
CAP_BPS=50000000			# the uplink cap, bit/s
# The farm: 18 tasks and results of 6 MB (about 1 s each across the cap), 100 ms of CPU per
# task spread +-90 % (fixed per task) so that the slaves drift apart: each transfer to and from
# ws3 and ws4 is sometimes alone, sometimes with the other's.
FARM_ARGS="-a -n 18 -c 100 -v 0.9 -m 6M -q"
T=$(mktemp -d /tmp/contend-e2e-infer.XXXXXX)
TB=0
cleanup() {
	if [ $TB -eq 1 ]; then
		"$CONTEND" testbed --instance $INST unload >/dev/null 2>&1
		"$CONTEND" testbed --instance $INST down >/dev/null 2>&1
	fi
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

E2E_NAME=infer
. "$TOP/tests/e2e/checks.inc"
tb() { "$CONTEND" testbed --instance $INST "$@"; }

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: Open MPI's mpirun is not installed"; exit 77; }
[ -x "$FARM" ] || { echo "FAIL e2e/infer/workloads: '$FARM' is not built (make workloads)"; exit 1; }
tb check >"$T/check.log" 2>&1 || { echo "skipped: no testbed: $(tail -n 1 "$T/check.log")"; exit 77; }
TB=1
# the master's core and the slaves' core (one core: both on it)
C0=0
C1=1
[ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" -ge 2 ] || C1=0

# The local network (net name) holding host $2 in topology.tsv $1, and a column of it.
net_of() { awk -F'\t' -v h="$2" '$1 == "member" && $2 == h { print $3 }' "$1"; }
net_col() {	# FILE NET COLUMN-NAME
	awk -F'\t' -v n="$2" -v c="$3" 'NR == 2 { for (i = 1; i <= NF; i++) k[$i] = i }
		NR > 2 && $1 == "net" && $2 == n { print $k[c] }' "$1"
}
# Relative error of a B/s figure against the cap, in percent.
err_pct() { awk -v b="$1" -v c="$CAP_BPS" 'BEGIN { x = (b - c / 8) / (c / 8) * 100; printf "%.1f", x }'; }
within() { awk -v e="$1" -v m="$2" 'BEGIN { if (e < 0) e = -e; exit !(e <= m) }'; }
# The pair tests of a run (topology-tests.tsv) on one line: flows, overlap and time alone (s),
# ratios, verdict.
tests_seen() {
	[ -s "$1/topology-tests.tsv" ] || { echo "no topology-tests.tsv"; return; }
	awk -F'\t' 'NR > 2 { sub(/^c[0-9]+/, "", $1); sub(/^c[0-9]+/, "", $2); sub(/^c[0-9]+/, "", $3)
		sub(/^c[0-9]+/, "", $4)
		printf "%s%s>%s+%s>%s overlap %.2f s alone %.2f/%.2f s ratios %.2f/%.2f %s", n++ ? "; " : "",
			$1, $2, $3, $4, $5 / 1e9, $6 / 1e9, $7 / 1e9, $12, $13, $14 }' "$1/topology-tests.tsv"
}
# Decided tests (shared or independent) of two transfers to or from ws3 and ws4, behind the cap.
decided_behind_cap() {
	awk -F'\t' -v a="c${INST}ws3" -v b="c${INST}ws4" 'NR > 2 && ($14 == "shared" || $14 == "independent") &&
		((($1 == a || $2 == a) && ($3 == b || $4 == b)) || (($1 == b || $2 == b) && ($3 == a || $4 == a))) { n++ }
		END { print n + 0 }' "$1/topology-tests.tsv" 2>/dev/null || echo 0
}
# The testbed's cgroup holds one busy-polling rank per workstation: give it the weight of as
# many processes against the rest of the machine (a busy shared machine would starve it).
weigh() {
	w=/sys/fs/cgroup/cpu/contend-testbed-$INST/cpu.shares
	[ -w "$w" ] && echo $((1024 * $1)) >"$w" 2>/dev/null
	echo "note: testbed cpu.shares $(cat "$w" 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# record RUN SECONDS: a run of `sleep` under collect on every workstation, with whatever
# transfers the testbed's load processes make meanwhile.
record() {
	tb mpirun -np "$NWS" -- "$CONTEND" collect -q -o "$1" -- sleep "$2" >"$1.log" 2>&1
}
# farm RUN: the farm under collect, one rank per workstation (rank 0, the master, on ws1),
# then infer.
farm() {
	rm -rf "$1"
	tb mpirun -np "$NWS" -- "$CONTEND" collect -q -o "$1" -- "$FARM" $FARM_ARGS >"$1.log" 2>&1
	"$CONTEND" infer -q "$1" >"$1.out" 2>&1
	echo "note: $2: farm $(grep -h '^wall_s' "$1.log" | tail -n 1 || true); tests: $(tests_seen "$1")"
}

# routed_checks NAME RUN: two clusters {ws1, ws2} and {ws3, ws4}; ws3's marked as the shared
# bottleneck with a capacity within 15 % of the cap.
routed_checks() {
	tsv=$2/topology.tsv
	n1=$(net_of "$tsv" c${INST}ws1)
	n2=$(net_of "$tsv" c${INST}ws2)
	n3=$(net_of "$tsv" c${INST}ws3)
	n4=$(net_of "$tsv" c${INST}ws4)
	check $1/two-clusters "[ -n '$n3' ] && [ '$n3' = '$n4' ] && [ '$n1' = '$n2' ] && [ '$n1' != '$n3' ]" "clusters ws1:$n1 ws2:$n2 ws3:$n3 ws4:$n4"
	bw=$(net_col "$tsv" "$n3" bw_Bps)
	note=$(net_col "$tsv" "$n3" note)
	e=$(err_pct "${bw:-0}")
	echo "note: $1: shared capacity $bw B/s for a cap of $((CAP_BPS / 8)) B/s: error $e %"
	check $1/shared "echo '$note' | grep -q '^shared bottleneck'" "net of ws3 '$n3': $note; tests: $(tests_seen "$2")"
	check $1/capacity "[ -n '$bw' ] && within $e 15" "capacity '$bw' B/s for a cap of $((CAP_BPS / 8)) B/s: error $e % (at most 15 %); $note"
}

t0=$(date +%s)
# ---- routed, uplink 2 capped ----------------------------------------------------------------
NWS=4
# The master alone on one core, the slaves on the other; no quota throttles anyone. ws2's own
# link runs at 200 Mbit/s: uncapped, a veth moves as fast as the CPU lets it (hundreds of MB/s,
# varying with whatever else the machine runs), and the probe would read that variation as
# sharing; at 25 MB/s it is steady and still four times the cap.
tb up -n 4 --routed --uplink 2=${CAP_BPS%000000}mbit --rate 2=200mbit --cpus 1=$C0 --cpus 2=$C1 \
	--cpus 3=$C1 --cpus 4=$C1 --cpu-pct all=100 >"$T/up.log" 2>&1 || { fail routed/up "$(tail -n 1 "$T/up.log")"; exit 1; }
weigh $NWS
farm "$T/routed" "routed"
d=$(decided_behind_cap "$T/routed")
if [ "$d" -eq 0 ]; then
	echo "note: routed: the transfers to and from ws3 and ws4 never overlapped long enough for a decision: recording the farm once more"
	mv "$T/routed" "$T/routed-1"
	farm "$T/routed" "routed, second recording"
	d=$(decided_behind_cap "$T/routed")
fi
check routed/farm/runs "[ -s '$T/routed/topology.dot' ] && [ -s '$T/routed/topology.tsv' ] && [ -s '$T/routed/topology.pdf' ]" "$(tail -n 1 "$T/routed.log") $(tail -n 1 "$T/routed.out")"
check routed/farm/decided "[ $d -gt 0 ]" "no decided test of two transfers behind the cap (at least 200 ms of overlap and of each alone are needed): $(tests_seen "$T/routed")"
routed_checks routed/farm "$T/routed"
cp "$T/routed/topology.dot" "$T/routed-passive.dot"

# predict's p001 takes the inferred graph as G (not the flat graph from netparams)
# the three slaves share one core with no quota, so each runs about a third of every 20 ms
# sample while it computes: a busy threshold of 0.15 sees their task phases (the default
# 0.5 would call them idle and p001 would find no slave CPU time)
"$CONTEND" parse -q -b 0.15 "$T/routed" >"$T/parse.out" 2>&1
printf '[scenario]\ndescription = one CPU-bound competitor on a slave\n[node c%dws2]\ncpu_procs = 1\n' $INST >"$T/load-ws2.ini"
"$CONTEND" predict "$T/routed" --scenario "$T/load-ws2.ini" --model p001 >"$T/p001.out" 2>"$T/p001.err"
rc=$?
check routed/farm/predict-p001 "[ $rc -eq 0 ] && grep -q \"graph G.*G from '$T/routed/topology.dot' (2 networks, 2 links)\" '$T/p001.out'" "exit $rc: $(grep -m 1 'graph G' "$T/p001.out") $(tail -n 1 "$T/p001.err")"

# the same from overlapping bulk transfers (no MPI): on for half of periods of 2 s and 3 s, so
# they overlap and run alone by construction. A source stops writing after its on-time, but
# what its socket buffer holds (up to 4 MB: 0.65 s at the cap, longer when shared) still
# drains: off-times of 1 s or more leave each one really idle for a while.
tb load ws1 --comm ws3 --duty 0.5 --period 2s >/dev/null &&
tb load ws1 --comm ws4 --duty 0.5 --period 3s >/dev/null &&
tb load ws1 --comm ws2 --duty 0.1 --period 2s >/dev/null || fail routed/load "cannot start the transfers"
record "$T/bulk" 8
"$CONTEND" infer -q "$T/bulk" >"$T/bulk.out" 2>&1
# the periods' phases and the socket buffers' drain decide how long each transfer ran
# alone; when no test behind the cap got its 200 ms of each, record once more (as the farm)
if [ "$(decided_behind_cap "$T/bulk")" -eq 0 ]; then
	echo "note: routed/bulk: the transfers to ws3 and ws4 never ran alone long enough for a decision: recording once more"
	mv "$T/bulk" "$T/bulk-1"
	record "$T/bulk" 8
	"$CONTEND" infer -q "$T/bulk" >"$T/bulk.out" 2>&1
fi
tb unload >/dev/null
echo "note: routed/bulk: tests: $(tests_seen "$T/bulk")"
check routed/bulk/runs "[ -s '$T/bulk/topology.tsv' ]" "$(tail -n 1 "$T/bulk.log") $(tail -n 1 "$T/bulk.out")"
routed_checks routed/bulk "$T/bulk"

"$CONTEND" infer -q --probe --testbed $INST -o "$T/probe-routed" --min-time 250ms >"$T/pr.out" 2>&1
check routed/probe/runs "[ -s '$T/probe-routed/topology.tsv' ]" "$(tail -n 1 "$T/pr.out")"
p3=$(net_of "$T/probe-routed/topology.tsv" c${INST}ws3)
p4=$(net_of "$T/probe-routed/topology.tsv" c${INST}ws4)
p2=$(net_of "$T/probe-routed/topology.tsv" c${INST}ws2)
bw=$(net_col "$T/probe-routed/topology.tsv" "$p3" bw_Bps)
e=$(err_pct "${bw:-0}")
echo "note: routed probe: shared capacity $bw B/s for a cap of $((CAP_BPS / 8)) B/s: error $e %"
check routed/probe/shared "[ -n '$p3' ] && [ '$p3' = '$p4' ] && [ '$p2' != '$p3' ]" "networks ws2:$p2 ws3:$p3 ws4:$p4; $(awk -F'\t' '$1 == "net" { printf "%s %s B/s: %s; ", $2, $4, $8 }' "$T/probe-routed/topology.tsv" 2>/dev/null)"
check routed/probe/capacity "[ -n '$bw' ] && within $e 15" "capacity '$bw' B/s for a cap of $((CAP_BPS / 8)) B/s: error $e % (at most 15 %)"

# ---- no overlapping transfers: untested -------------------------------------------------------
tb load ws1 --comm ws3 --duty 0.6 --period 1s >/dev/null
record "$T/solo" 4
tb unload >/dev/null
"$CONTEND" infer -q "$T/solo" >"$T/solo.out" 2>&1
check solo/untested "[ -s '$T/solo/topology.tsv' ] && awk -F'\t' 'NR > 2 && (\$1 == \"net\" || \$1 == \"link\") && \$6 != \"untested\" { bad = 1 } END { exit bad }' '$T/solo/topology.tsv'" "a tested value without overlapping transfers: $(cut -f1-7 "$T/solo/topology.tsv" 2>/dev/null | tr '\n' ' ') $(tail -n 1 "$T/solo.out")"
check solo/says-so "grep -q 'untested' '$T/solo/topology.dot'" "no 'untested' note in the DOT: $(grep -o 'note="[^"]*"' "$T/solo/topology.dot" 2>/dev/null | head -n 2 | tr '\n' ' ')"
tb down >/dev/null 2>&1

# ---- flat, no cap ------------------------------------------------------------------------------
NWS=3
# the master's workstation gets a core of its own: a CPU-starved master slows its transfers
# as a shared network would (docs/infer.md, Limits); no quota throttles the slaves
tb up -n 3 --cpus 1=$C1 --cpus 2=$C0 --cpus 3=$C0 --cpu-pct all=100 >"$T/up2.log" 2>&1 || { fail flat/up "$(tail -n 1 "$T/up2.log")"; exit 1; }
weigh $NWS
farm "$T/flat" "flat"
check flat/farm/runs "[ -s '$T/flat/topology.tsv' ]" "$(tail -n 1 "$T/flat.log") $(tail -n 1 "$T/flat.out")"
check flat/farm/one-cluster "[ \$(awk -F'\t' '\$1 == \"net\"' '$T/flat/topology.tsv' | wc -l) -eq 1 ]" "networks: $(awk -F'\t' '$1 == "net" { print $2 }' "$T/flat/topology.tsv" | tr '\n' ' ')"
check flat/farm/no-shared "! grep -q 'shared bottleneck' '$T/flat/topology.tsv'" "$(grep 'shared bottleneck' "$T/flat/topology.tsv" | cut -f2,4,8 | tr '\n' ' '); tests: $(tests_seen "$T/flat")"
# the probe's transfers are plain blocking TCP; on bare veths they run at hundreds of MB/s to
# GB/s, bound by CPU: ws2 and ws3 share a core, so two transfers into them halve together
# because the core is shared, which ENV's test cannot tell from a shared network. Each host's
# own access link is therefore given a rate (200 Mbit/s, ws2 and ws3 only: the root's link
# stays free, so the root can feed both at once). No link is shared by two hosts: the subnet
# itself has no cap, and the right answer stays "independent".
tb link ws2 200mbit >/dev/null && tb link ws3 200mbit >/dev/null || fail flat/link "cannot cap the access links"
"$CONTEND" infer -q --probe --testbed $INST -o "$T/probe-flat" --min-time 250ms >"$T/pf.out" 2>&1
check flat/probe/runs "[ -s '$T/probe-flat/topology.tsv' ]" "$(tail -n 1 "$T/pf.out")"
check flat/probe/no-shared "[ \$(awk -F'\t' '\$1 == \"net\"' '$T/probe-flat/topology.tsv' | wc -l) -eq 1 ]" "$(awk -F'\t' '$1 == "net" { printf "%s %s B/s: %s; ", $2, $4, $8 }' "$T/probe-flat/topology.tsv")"
tb down >/dev/null 2>&1
TB=0

# ---- the DOT reads back, re-exports identically and renders ------------------------------------
"$CONTEND" infer -q --from-dot "$T/routed-passive.dot" -o "$T/again" >"$T/again.out" 2>&1
check dot/roundtrip "cmp -s '$T/routed-passive.dot' '$T/again/topology.dot'" "re-exported DOT differs: $(diff "$T/routed-passive.dot" "$T/again/topology.dot" 2>&1 | head -n 3 | tr '\n' ' ') $(tail -n 1 "$T/again.out")"
check dot/renders "[ -s '$T/again/topology.pdf' ] && head -c 5 '$T/again/topology.pdf' | grep -q '%PDF' && grep -q '<svg' '$T/again/topology.svg'" "no PDF or SVG: $(ls "$T/again" 2>&1 | tr '\n' ' ') $(tail -n 1 "$T/again.out")"
# a hand-made graph: read, written by infer, then one value it holds made bad
cat >"$T/hand.dot" <<'EOF'
graph contend {
	graph [contend_topology=1];
	subgraph cluster_fast {
		graph [kind=net, bw_Bps=12500000, lat_ns=50000, confidence=0.9, note="hand-made"];
		"net:fast" [kind=anchor];
		h1 [kind=host];
		h2 [kind=host];
		h1 -- "net:fast" [kind=member];
		h2 -- "net:fast" [kind=member];
	}
	subgraph cluster_slow {
		graph [kind=net, bw_Bps=1250000, lat_ns=2000000, confidence=untested, note="hand-made"];
		"net:slow" [kind=anchor];
		h3 [kind=host];
		h3 -- "net:slow" [kind=member];
	}
	r1 [kind=router];
	"net:fast" -- r1 [kind=link, bw_Bps=1250000, lat_ns=1000000, confidence=0.5];
	"net:slow" -- r1 [kind=link, bw_Bps=1250000, lat_ns=1000000, confidence=0.5];
}
EOF
"$CONTEND" infer -q --from-dot "$T/hand.dot" -o "$T/hand" >"$T/hand.out" 2>&1
rc=$?
check dot/hand-made "[ $rc -eq 0 ] && [ \$(awk -F'\t' '\$1 == \"net\" && \$2 == \"fast\" { print \$4 }' '$T/hand/topology.tsv') = 12500000 ]" "exit $rc: $(tail -n 1 "$T/hand.out"); nets: $(awk -F'\t' '$1 == "net" { printf "%s %s; ", $2, $4 }' "$T/hand/topology.tsv" 2>/dev/null)"
# the first bw_Bps in the file infer wrote is cluster_fast's
sed '0,/bw_Bps=[^,]*,/s//bw_Bps=fast,/' "$T/hand/topology.dot" >"$T/bad.dot"
"$CONTEND" infer -q --from-dot "$T/bad.dot" -o "$T/bad" >"$T/bad.out" 2>&1
rc=$?
check dot/bad-edit "grep -q 'bw_Bps=fast' '$T/bad.dot' && [ $rc -eq 1 ] && [ \$(wc -l <'$T/bad.out') -eq 1 ] && grep -q \"cluster_fast.*bw_Bps.*fast\" '$T/bad.out'" "edited: $(grep -c 'bw_Bps=fast' "$T/bad.dot") line(s); exit $rc (want 1), $(wc -l <"$T/bad.out") line(s) (want 1 naming cluster_fast, bw_Bps, 'fast'): $(head -n 3 "$T/bad.out" | tr '\n' ' ')"
echo "note: infer e2e took $(($(date +%s) - t0)) s"
if [ -n "${INFER_E2E_KEEP:-}" ]; then
	mkdir -p "$INFER_E2E_KEEP" && cp -r "$T"/* "$INFER_E2E_KEEP"/
fi
exit 0
