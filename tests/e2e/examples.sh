#!/bin/sh
# examples: every example of `contend COMMAND --help` and of README.md's sh blocks that names
# only what is shipped (traces/, docs/) is run, in order, in a scratch copy of traces/, and
# must exit 0; a scenario example must name hosts of the run it is given (no x1.000 from a
# scenario that changes nothing). Every path an example names under traces/ or docs/ must
# exist. Examples with placeholders (RUN, run1, FILE) or that need the testbed or a launcher
# (mpirun, srun, testbed) are counted, not run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
E2E_NAME=examples
. "$TOP/tests/e2e/checks.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: gnuplot is not installed (report examples)"; exit 77; }
cp -r "$TOP/traces" "$tmp/traces"
rm -rf "$tmp"/traces/*/profile "$tmp"/traces/*/topology.* "$tmp"/traces/*/predict "$tmp"/traces/*/report.pdf \
	"$tmp"/traces/*/figures
ln -s "$TOP/docs" "$tmp/docs"

# The examples, one per line: "SOURCE<TAB>command line", in the order a reader meets them.
for c in collect parse infer predict report analyze testbed version help; do
	"$CONTEND" "$c" --help 2>/dev/null | sed -n '/^examples:/,$p' | sed -n 's/^  //p' |
		sed "s/^/--help of $c	/"
done >"$tmp/list"
awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on && /^contend / { print "README.md\t" $0 }' \
	"$TOP/README.md" >>"$tmp/list"

n_run=0 n_skip=0
while IFS='	' read -r src line; do
	cmd=${line%%#*}	# no trailing comment
	# every traces/ or docs/ path must exist
	for w in $cmd; do
		case $w in
		traces/*|docs/*)
			check "exists: $w" '[ -e "$TOP/$w" ]' "$src names '$w', which is not shipped" ;;
		esac
	done
	case $cmd in
	contend\ *) ;;
	*) n_skip=$((n_skip + 1)); continue ;;
	esac
	runnable=1
	for w in $cmd; do
		case $w in
		RUN|RUN1|RUN2|FILE|run[0-9]*|*run-[0-9]ws*|out|/tmp/*|*.pcap*|*.pcapng|*.dot|topo*|dc.tsv|edited*|testbed|collect|--probe|--calibrate-delay-comm|\&\&)
			runnable=0 ;;
		esac
	done
	if [ $runnable -eq 0 ]; then
		n_skip=$((n_skip + 1))
		continue
	fi
	n_run=$((n_run + 1))
	# shellcheck disable=SC2086
	(cd "$tmp" && "$CONTEND" ${cmd#contend } >"$tmp/out" 2>"$tmp/err")
	rc=$?
	check "$src: $cmd" '[ $rc -eq 0 ]' "exit $rc: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
	case $cmd in
	*--scenario*)
		check "$src: $cmd: an answer" '! grep -q "changes nothing\|ran no rank" "$tmp/err"' \
			"the scenario does not name the run's hosts: $(head -n 1 "$tmp/err")" ;;
	esac
done <"$tmp/list"
# bare contend: the usage on stderr, nothing on stdout, exit 2 (as git does)
"$CONTEND" >"$tmp/out" 2>"$tmp/err"
rc=$?
check bare-contend '[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "^usage: contend COMMAND" "$tmp/err"' \
	"exit $rc, stdout $(wc -c <"$tmp/out") bytes"
check ran-some '[ $n_run -ge 8 ]' "only $n_run examples could be run"
echo "examples: $n_run run, $n_skip not runnable here (placeholders, launcher or testbed)"
