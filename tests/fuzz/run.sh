#!/bin/sh
# Run the built libFuzzer targets, each for SECONDS (default 60), one after the other.
# Usage: BUILD=build sh tests/fuzz/run.sh [SECONDS] [TARGET...]   (build them with `make fuzz`)
# Seeds are read from tests/fuzz/corpus/<target>/; new inputs go to $BUILD/fuzz/work/<target>/
# and those that add coverage are merged back into the seed directory at the end.
# A crash, leak or timeout input is written to tests/fuzz/crashes/<target>-<kind>-<hash>.
# Prints one line per target: "<target>: <runs> runs in <s> s, <n> new crashes" and exits 1
# when any target found a crash.
set -u
BUILD=${BUILD:-build}
SECONDS_EACH=${1:-60}
[ $# -gt 0 ] && shift
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CRASHES="$TOP/tests/fuzz/crashes"
mkdir -p "$CRASHES"
case $SECONDS_EACH in
''|*[!0-9]*) echo "run.sh: seconds must be a whole number, not '$SECONDS_EACH'" >&2; exit 2 ;;
esac

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(cd "$TOP/$BUILD/fuzz" 2>/dev/null && ls fuzz_* 2>/dev/null)
fi
if [ -z "$targets" ]; then
	echo "run.sh: no fuzz targets in $BUILD/fuzz (run 'make BUILD=$BUILD fuzz')" >&2
	exit 2
fi

status=0
for t in $targets; do
	bin="$TOP/$BUILD/fuzz/$t"
	if [ ! -x "$bin" ]; then
		echo "run.sh: no target '$bin'" >&2
		status=1
		continue
	fi
	seeds="$TOP/tests/fuzz/corpus/$t"
	work="$TOP/$BUILD/fuzz/work/$t"
	log="$TOP/$BUILD/fuzz/$t.log"
	mkdir -p "$seeds" "$work"
	before=$(ls "$CRASHES" | grep -c "^$t-")
	dict=""
	[ -f "$TOP/tests/fuzz/$t.dict" ] && dict="-dict=$TOP/tests/fuzz/$t.dict"
	# -fork would survive crashes but hides exec counts; stop at the first crash instead.
	"$bin" $dict -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$CRASHES/$t-" "$work" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	after=$(ls "$CRASHES" | grep -c "^$t-")
	new=$((after - before))
	echo "$t: ${runs:-?} runs in $SECONDS_EACH s, $new new crashes (log $BUILD/fuzz/$t.log)"
	if [ $rc -ne 0 ] || [ $new -gt 0 ]; then
		status=1
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 5 | sed 's/^/    | /'
	fi
	# Keep only the inputs that add coverage in the seed directory.
	"$bin" -merge=1 "$seeds" "$work" >"$log.merge" 2>&1 || true
done
exit $status
