#!/bin/sh
# infer end to end on the testbed (instance 7): the routed layout with subnet 2's uplink capped
# (ws3 and ws4 share it) and a flat subnet with no cap, each inferred passively from a recorded
# MPI master/slave farm whose master hands out tasks concurrently (farm -a), and actively by
# probing; the routed case also from overlapping bulk transfers, and predict's p001 taking the
# inferred graph as its G; a capture without overlapping transfers (edges untested); the DOT
# read back, re-exported and drawn.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
FARM=$TOP/$BUILD/workloads/ompi/farm
INST=${INFER_E2E_INSTANCE:-7}
CAP_BPS=50000000			# the uplink cap, bit/s
# The farm: 18 tasks and results of 3 MB, 40 ms of CPU per task spread +-90 % so that the slaves
# drift apart (each transfer to ws3 and ws4 sometimes alone, sometimes together).
FARM_ARGS="-a -n 18 -c 40 -v 0.9 -m 3M -q"
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

pass() { echo "PASS e2e/infer/$1"; }
fail() { echo "FAIL e2e/infer/$1: $2"; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi; }
tb() { "$CONTEND" testbed --instance $INST "$@"; }

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: Open MPI's mpirun is not installed"; exit 77; }
[ -x "$FARM" ] || { echo "FAIL e2e/infer/workloads: '$FARM' is not built (make workloads)"; exit 1; }
tb check >"$T/check.log" 2>&1 || { echo "skipped: no testbed: $(tail -n 1 "$T/check.log")"; exit 77; }
TB=1

# The local network (net name) holding host $2 in topology.tsv $1, and a column of it.
net_of() { awk -F'\t' -v h="$2" '$1 == "member" && $2 == h { print $3 }' "$1"; }
net_col() {	# FILE NET COLUMN-NAME
	awk -F'\t' -v n="$2" -v c="$3" 'NR == 2 { for (i = 1; i <= NF; i++) k[$i] = i }
		NR > 2 && $1 == "net" && $2 == n { print $k[c] }' "$1"
}
# Relative error of a B/s figure against the cap, in percent.
err_pct() { awk -v b="$1" -v c="$CAP_BPS" 'BEGIN { x = (b - c / 8) / (c / 8) * 100; printf "%.1f", x }'; }
within() { awk -v e="$1" -v m="$2" 'BEGIN { if (e < 0) e = -e; exit !(e <= m) }'; }

# record RUN SECONDS: a run of `sleep` under collect on every workstation, with whatever
# transfers the testbed's load processes make meanwhile.
record() {
	tb mpirun -np "$NWS" -- "$CONTEND" collect -q -o "$1" -- sleep "$2" >"$1.log" 2>&1
}
# farm RUN: the farm under collect, one rank per workstation (rank 0, the master, on ws1).
farm() {
	tb mpirun -np "$NWS" -- "$CONTEND" collect -q -o "$1" -- "$FARM" $FARM_ARGS >"$1.log" 2>&1
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
	check $1/shared "echo '$note' | grep -q '^shared bottleneck'" "net $n3: $note"
	check $1/capacity "within $e 15" "capacity $bw B/s, error $e %"
}

t0=$(date +%s)
# ---- routed, uplink 2 capped ----------------------------------------------------------------
NWS=4
tb up -n 4 --routed --uplink 2=${CAP_BPS%000000}mbit >"$T/up.log" 2>&1 || { fail routed/up "$(tail -n 1 "$T/up.log")"; exit 1; }
farm "$T/routed"
"$CONTEND" infer -q "$T/routed" >"$T/routed.out" 2>&1
check routed/farm/runs "[ -s '$T/routed/topology.dot' ] && [ -s '$T/routed/topology.tsv' ] && [ -s '$T/routed/topology.pdf' ]" "$(tail -n 1 "$T/routed.log") $(tail -n 1 "$T/routed.out")"
routed_checks routed/farm "$T/routed"
cp "$T/routed/topology.dot" "$T/routed-passive.dot"

# predict's p001 takes the inferred graph as G (not the flat graph from netparams)
"$CONTEND" parse -q "$T/routed" >"$T/parse.out" 2>&1
"$CONTEND" predict "$T/routed" --scenario "$TOP/docs/scenarios/load-one-node.ini" --model p001 >"$T/p001.out" 2>"$T/p001.err"
rc=$?
check routed/farm/predict-p001 "[ $rc -eq 0 ] && grep -q \"graph G.*G from '$T/routed/topology.dot' (2 networks, 2 links)\" '$T/p001.out'" "exit $rc: $(grep -m 1 'graph G' "$T/p001.out") $(tail -n 1 "$T/p001.err")"

# the same from overlapping bulk transfers (no MPI)
tb load ws1 --comm ws3 --duty 0.6 --period 1s >/dev/null &&
tb load ws1 --comm ws4 --duty 0.6 --period 1.3s >/dev/null &&
tb load ws1 --comm ws2 --duty 0.1 --period 2s >/dev/null || fail routed/load "cannot start the transfers"
record "$T/bulk" 6
tb unload >/dev/null
"$CONTEND" infer -q "$T/bulk" >"$T/bulk.out" 2>&1
check routed/bulk/runs "[ -s '$T/bulk/topology.tsv' ]" "$(tail -n 1 "$T/bulk.out")"
routed_checks routed/bulk "$T/bulk"

"$CONTEND" infer -q --probe --testbed $INST -o "$T/probe-routed" --min-time 250ms >"$T/pr.out" 2>&1
check routed/probe/runs "[ -s '$T/probe-routed/topology.tsv' ]" "$(tail -n 1 "$T/pr.out")"
p3=$(net_of "$T/probe-routed/topology.tsv" c${INST}ws3)
p4=$(net_of "$T/probe-routed/topology.tsv" c${INST}ws4)
p2=$(net_of "$T/probe-routed/topology.tsv" c${INST}ws2)
bw=$(net_col "$T/probe-routed/topology.tsv" "$p3" bw_Bps)
e=$(err_pct "${bw:-0}")
echo "note: routed probe: shared capacity $bw B/s for a cap of $((CAP_BPS / 8)) B/s: error $e %"
check routed/probe/shared "[ -n '$p3' ] && [ '$p3' = '$p4' ] && [ '$p2' != '$p3' ]" "ws2:$p2 ws3:$p3 ws4:$p4"
check routed/probe/capacity "within $e 15" "capacity $bw B/s, error $e %"

# ---- no overlapping transfers: untested -------------------------------------------------------
tb load ws1 --comm ws3 --duty 0.6 --period 1s >/dev/null
record "$T/solo" 4
tb unload >/dev/null
"$CONTEND" infer -q "$T/solo" >"$T/solo.out" 2>&1
check solo/untested "awk -F'\t' 'NR > 2 && (\$1 == \"net\" || \$1 == \"link\") && \$6 != \"untested\" { bad = 1 } END { exit bad }' '$T/solo/topology.tsv'" "a tested value without overlapping transfers: $(cut -f1-7 "$T/solo/topology.tsv" | tr '\n' ' ')"
check solo/says-so "grep -q 'untested' '$T/solo/topology.dot'" "no 'untested' note in the DOT"
tb down >/dev/null 2>&1

# ---- flat, no cap ------------------------------------------------------------------------------
NWS=3
# the master's workstation gets a core of its own: a CPU-starved master slows its transfers
# as a shared network would (docs/infer.md, Limits)
tb up -n 3 --cpus 1=1 --cpus 2=0 --cpus 3=0 --cpu-pct 1=100 >"$T/up2.log" 2>&1 || { fail flat/up "$(tail -n 1 "$T/up2.log")"; exit 1; }
farm "$T/flat"
"$CONTEND" infer -q "$T/flat" >"$T/flat.out" 2>&1
check flat/farm/runs "[ -s '$T/flat/topology.tsv' ]" "$(tail -n 1 "$T/flat.log") $(tail -n 1 "$T/flat.out")"
check flat/farm/one-cluster "[ \$(awk -F'\t' '\$1 == \"net\"' '$T/flat/topology.tsv' | wc -l) -eq 1 ]" "$(awk -F'\t' '$1 == "net" { print $2 }' "$T/flat/topology.tsv" | tr '\n' ' ')"
check flat/farm/no-shared "! grep -q 'shared bottleneck' '$T/flat/topology.tsv'" "$(grep 'shared bottleneck' "$T/flat/topology.tsv" | cut -f2,8)"
"$CONTEND" infer -q --probe --testbed $INST -o "$T/probe-flat" --min-time 250ms >"$T/pf.out" 2>&1
check flat/probe/runs "[ -s '$T/probe-flat/topology.tsv' ]" "$(tail -n 1 "$T/pf.out")"
check flat/probe/no-shared "[ \$(awk -F'\t' '\$1 == \"net\"' '$T/probe-flat/topology.tsv' | wc -l) -eq 1 ]" "$(awk -F'\t' '$1 == "net" { print $2, $4, $8 }' "$T/probe-flat/topology.tsv")"
tb down >/dev/null 2>&1
TB=0

# ---- the DOT reads back, re-exports identically and renders ------------------------------------
"$CONTEND" infer -q --from-dot "$T/routed-passive.dot" -o "$T/again" >"$T/again.out" 2>&1
check dot/roundtrip "cmp -s '$T/routed-passive.dot' '$T/again/topology.dot'" "re-exported DOT differs: $(diff "$T/routed-passive.dot" "$T/again/topology.dot" | head -n 3 | tr '\n' ' ')"
check dot/renders "[ -s '$T/again/topology.pdf' ] && head -c 5 '$T/again/topology.pdf' | grep -q '%PDF' && grep -q '<svg' '$T/again/topology.svg'" "no PDF or SVG"
sed 's/bw_Bps=[0-9.e+]*/bw_Bps=fast/' "$T/routed-passive.dot" >"$T/bad.dot"
"$CONTEND" infer -q --from-dot "$T/bad.dot" -o "$T/bad" >"$T/bad.out" 2>&1
rc=$?
check dot/bad-edit "[ $rc -eq 1 ] && [ \$(wc -l <'$T/bad.out') -eq 1 ] && grep -q bw_Bps '$T/bad.out'" "exit $rc: $(cat "$T/bad.out")"
echo "note: infer e2e took $(($(date +%s) - t0)) s"
if [ -n "${INFER_E2E_KEEP:-}" ]; then
	mkdir -p "$INFER_E2E_KEEP" && cp -r "$T"/* "$INFER_E2E_KEEP"/
fi
exit 0
