#!/bin/sh
# export end to end: every run shipped in traces/ is parsed (on a copy) and exported in the
# three formats, and each output is read back by tools that are not contend's: Python's
# json for the Perfetto file, otf2-print and the OTF2 Python bindings for the archive,
# SimGrid's SMPI replay for the time-independent traces (simulated against measured time,
# printed). Counts must equal the profile's messages and phases (tests/e2e/export_check.py).
# Also: a host name that needs JSON escaping, a damaged row, a missing profile, bad usage.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
TR=${TRACES:-$TOP/traces}
E2E_NAME=export
. "$TOP/tests/e2e/checks.inc"
T=$(mktemp -d /tmp/contend-e2e-export.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
# Debian's python3 has the otf2 module (python3-otf2); another python3 first in PATH may not
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
command -v "$PY" >/dev/null 2>&1 || { echo "skipped: no python3 to read the exports back"; exit 77; }
CHECK="$PY $TOP/tests/e2e/export_check.py"

for m in "$TR"/*/meta/run.tsv; do
	[ -f "$m" ] || continue
	r=$(basename "$(dirname "$(dirname "$m")")")
	cp -r "$TR/$r" "$T/$r"
	R=$T/$r
	"$CONTEND" parse -q "$R" >"$T/$r.parse" 2>&1
	"$CONTEND" export --format perfetto "$R" -o "$T/$r.json" >"$T/$r.out" 2>&1
	rc=$?
	check "$r-perfetto-exit" "[ $rc -eq 0 ]" "exit $rc: $(tail -n 1 "$T/$r.out")"
	[ $rc -eq 0 ] && $CHECK "$r" "$R" perfetto "$T/$r.json"
	"$CONTEND" export --format otf2 "$R" -o "$T/$r-otf2" >"$T/$r.out" 2>&1
	rc=$?
	check "$r-otf2-exit" "[ $rc -eq 0 ] && [ -f $T/$r-otf2/traces.otf2 ]" "exit $rc: $(tail -n 1 "$T/$r.out")"
	[ $rc -eq 0 ] && $CHECK "$r" "$R" otf2 "$T/$r-otf2"
	# a second export into the same directory replaces the archive
	"$CONTEND" export -q --format otf2 "$R" -o "$T/$r-otf2" >"$T/$r.out" 2>&1
	rc=$?
	check "$r-otf2-again" "[ $rc -eq 0 ]" "exit $rc: $(tail -n 1 "$T/$r.out")"
	"$CONTEND" export --format simgrid "$R" >"$T/$r.out" 2>&1
	rc=$?
	check "$r-simgrid-exit" "[ $rc -eq 0 ] && [ -f $R/export/simgrid/platform.xml ]" "exit $rc: $(tail -n 1 "$T/$r.out")"
	[ $rc -eq 0 ] && $CHECK "$r" "$R" simgrid "$R/export/simgrid"
	if [ $rc -eq 0 ] && command -v smpirun >/dev/null 2>&1; then
		timeout 300 sh "$R/export/simgrid/replay.sh" >"$T/$r.sg" 2>&1
		sim=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$T/$r.sg" | tail -n 1)
		meas=$(awk '$1 == "measured_s" { print $2 }' "$R/export/simgrid/README")
		check "$r-smpi-replay" "[ -n '$sim' ]" "no simulation time: $(tail -n 1 "$T/$r.sg")"
		if [ -n "$sim" ] && [ -n "$meas" ]; then
			echo "$r: SMPI replay simulated ${sim} s, measured ${meas} s" \
				"($(awk -v s="$sim" -v m="$meas" 'BEGIN { printf "%+.1f %%", 100 * (s - m) / m }'))"
			# a check of the export, not of SimGrid: the replay lands within a factor of two
			check "$r-smpi-replay-time" "awk -v s=$sim -v m=$meas 'BEGIN { exit !(s > m / 2 && s < m * 2) }'" \
				"simulated $sim s against measured $meas s"
		fi
	elif [ $rc -eq 0 ]; then
		echo "SKIP e2e/export/$r-smpi-replay: skipped: no smpirun (Debian libsimgrid-dev)"
	fi
done
[ -d "$T/stencil-4ws" ] || { echo "skipped: no traces/stencil-4ws"; exit 77; }

# a host name with a quote, a backslash, a control character and a byte that is not UTF-8:
# the JSON must still parse and keep the name (the bad byte as U+FFFD)
R=$T/hostile
mkdir -p "$R" && cp -r "$T/stencil-4ws/profile" "$R/"
# (rank 1's host is what SimGrid's name for rank 0's becomes: the two must stay apart)
awk -F'\t' 'BEGIN { OFS = "\t" } NR > 2 && $1 == "0" { $2 = "a\"b\\\\c\\t\377" }
	NR > 2 && $1 == "1" { $2 = "a_b_c__" } { print }' \
	"$T/stencil-4ws/profile/ranks.tsv" >"$R/profile/ranks.tsv"
"$CONTEND" export --format perfetto "$R" -o "$T/hostile.json" >"$T/h.out" 2>&1
rc=$?
check hostile-exit "[ $rc -eq 0 ]" "exit $rc: $(tail -n 1 "$T/h.out")"
name=$($PY -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
n = [e["args"]["name"] for e in d["traceEvents"] if e["name"] == "process_name"][0]
print("same" if n == "a\"b\\c\t\ufffd" else ascii(n))' "$T/hostile.json" 2>&1)
check hostile-escaped "[ '$name' = same ]" "host name read back as $name"
$CHECK hostile "$R" perfetto "$T/hostile.json" | grep -v -- '-tracks'
"$CONTEND" export -q --format otf2 "$R" -o "$T/hostile-otf2" >"$T/h.out" 2>&1
rc=$?
check hostile-otf2 "[ $rc -eq 0 ] && otf2-print $T/hostile-otf2/traces.otf2 >/dev/null 2>&1" "exit $rc: $(tail -n 1 "$T/h.out")"
"$CONTEND" export -q --format simgrid "$R" -o "$T/hostile-sg" >"$T/h.out" 2>&1
rc=$?
hosts=$(tr '\n' ' ' <"$T/hostile-sg/hostfile" 2>/dev/null)
check hostile-simgrid-names "[ $rc -eq 0 ] && [ '$hosts' = 'a_b_c__ a_b_c__-1 c3ws3 c3ws4 ' ]" "exit $rc, hostfile: $hosts"
if [ $rc -eq 0 ] && command -v smpirun >/dev/null 2>&1; then
	timeout 300 sh "$T/hostile-sg/replay.sh" >"$T/h.sg" 2>&1
	check hostile-smpi-replay "grep -q 'Simulation time' $T/h.sg" "$(tail -n 1 "$T/h.sg")"
fi

# a damaged message row is counted and skipped: exit 1, the rest written
printf '1\t2\tx\n' >>"$R/profile/messages.tsv"
"$CONTEND" export --format perfetto "$R" -o "$T/damaged.json" >"$T/d.out" 2>&1
rc=$?
check damaged-row "[ $rc -eq 1 ] && grep -q 'damaged' $T/d.out && [ -s $T/damaged.json ]" \
	"exit $rc: $(tail -n 1 "$T/d.out")"

# no profile: one line naming the fix; bad usage: exit 2
mkdir -p "$T/empty"
"$CONTEND" export --format otf2 "$T/empty" >"$T/e.out" 2>&1
rc=$?
check no-profile "[ $rc -eq 1 ] && [ \$(wc -l <$T/e.out) -eq 1 ] && grep -q 'contend parse' $T/e.out" \
	"exit $rc: $(cat "$T/e.out")"
"$CONTEND" export --format pdf "$T/stencil-4ws" >"$T/u.out" 2>&1
rc=$?
check bad-format "[ $rc -eq 2 ]" "exit $rc"
"$CONTEND" export "$T/stencil-4ws" >"$T/u.out" 2>&1
rc=$?
check no-format "[ $rc -eq 2 ]" "exit $rc"
"$CONTEND" export --help >"$T/u.out" 2>&1
rc=$?
check help "[ $rc -eq 0 ] && grep -q perfetto $T/u.out && grep -q otf2 $T/u.out && grep -q simgrid $T/u.out" "exit $rc"
# nothing was written into traces/
check traces-untouched "[ ! -e $TR/stencil-4ws/profile ] && [ ! -e $TR/stencil-4ws/export ]" "traces/ was written into"
