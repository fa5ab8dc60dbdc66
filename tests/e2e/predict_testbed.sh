#!/bin/sh
# Prediction tracks reality on the testbed (paper 003, Figure 4, one case): a stencil is
# recorded dedicated and parsed, p003 predicts it with one CPU-bound competitor on ws2, the
# same run is then made with that competitor and recorded; the prediction must be within
# 25 % of the measured time, and above the dedicated time. Instance 6 (override with
# PREDICT_E2E_INSTANCE); the testbed is always brought down.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
WL=$TOP/$BUILD/workloads/ompi/stencil
INST=${PREDICT_E2E_INSTANCE:-6}
TOL=25		# % error allowed
PCT=40		# capacity of each workstation, % of a core
T=$(mktemp -d /tmp/contend-e2e-predtb.XXXXXX)
TB="$CONTEND testbed --instance $INST"
up=0
cleanup() {
	[ $up -eq 1 ] && $TB down >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

pass() { echo "PASS e2e/predict_testbed/$1"; }
fail() { echo "FAIL e2e/predict_testbed/$1: $2"; }

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
[ -x "$WL" ] || { echo "skipped: workloads not built (make workloads)"; exit 77; }
$TB check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }
up=1
$TB up -n 3 --cpu-pct all=$PCT >"$T/up" 2>&1 || { fail up "$(tail -n 2 "$T/up")"; exit 0; }
# the machine may be busy with other work: keep the workstations' quotas theirs
G=/sys/fs/cgroup/cpu/contend-testbed-$INST
[ -w "$G/cpu.shares" ] && echo 262144 >"$G/cpu.shares"

record() {	# dir
	$TB mpirun -np 3 -- "$CONTEND" collect -q -o "$1" -- "$WL" -n 256 -i 40 -c 20 -q >"$1.out" 2>&1 &&
		"$CONTEND" parse -b "$(awk -v p=$PCT 'BEGIN { print p / 200 }')" "$1" >"$1.parse" 2>&1
	# predict reads lat_ns as integer nanoseconds
	np=$1/profile/netparams.tsv
	[ -f "$np" ] && awk -F'\t' -v OFS='\t' '$1 == "lat_ns" { $2 = sprintf("%.0f", $2) } { print }' "$np" >"$np.t" && mv "$np.t" "$np"
	[ -s "$1/profile/ranks.tsv" ]
}

record "$T/ded" || { fail dedicated-run "$(tail -n 3 "$T/ded.out" "$T/ded.parse")"; exit 0; }
$TB load ws2 --cpu 1 >/dev/null || { fail load "cannot start the competitor"; exit 0; }
sleep 0.3
record "$T/cpu1"
rc=$?
$TB unload >/dev/null 2>&1
[ $rc -eq 0 ] || { fail loaded-run "$(tail -n 3 "$T/cpu1.out" "$T/cpu1.parse")"; exit 0; }

printf '[scenario]\nmeasured_run = %s\n[node c%dws2]\ncpu_procs = 1\n' "$T/cpu1" "$INST" >"$T/cpu1.ini"
"$CONTEND" predict "$T/ded" --scenario "$T/cpu1.ini" --model p003 --sleep-credit 0 >"$T/pred" 2>&1
tsv=$T/ded/predict/cpu1.tsv
line=$(awk -F'\t' '$1 == "p003" && $3 == "total" { print $5, $7 }' "$tsv" 2>/dev/null)
ded=$(awk -F'\t' '$3 == "dedicated" { print $5 }' "$tsv" 2>/dev/null)
set -- $line
if [ $# -eq 2 ] && [ -n "$ded" ]; then
	msg=$(awk -v p="$1" -v m="$2" -v d="$ded" 'BEGIN { printf "dedicated %.2f s, predicted %.2f s, measured %.2f s, error %+.1f%%", d / 1e9, p / 1e9, m / 1e9, 100 * (p - m) / m }')
	echo "note: $msg"
	if awk -v p="$1" -v m="$2" -v t=$TOL 'BEGIN { e = 100 * (p - m) / m; exit !(e <= t && e >= -t) }'; then
		pass cpu1-within-${TOL}pct
	else
		fail cpu1-within-${TOL}pct "$msg"
	fi
	if awk -v p="$1" -v d="$ded" -v m="$2" 'BEGIN { exit !(p > d && m > d) }'; then
		pass cpu1-slower-than-dedicated
	else
		fail cpu1-slower-than-dedicated "$msg"
	fi
else
	fail predict "$(cat "$T/pred")"
fi
exit 0
