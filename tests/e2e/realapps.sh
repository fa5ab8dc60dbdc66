#!/bin/sh
# realapps: bench/realapps in its small form on a third-party program (ScaLAPACK's LU test
# from Debian's scalapack-mpi-test), with Open MPI and with MPICH: every figure of the
# overhead table is produced and finite, and contend's rebuilt point-to-point messages of
# the default (framed) capture and of a full-payload capture both equal the PMPI truth of
# the program's own calls, message for message (source, destination, tag, bytes), while
# the framed capture keeps less than half the bytes of the full one. Instance 16 (REALAPPS_E2E_INSTANCE); the
# benchmark brings its testbed down.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
INST=${REALAPPS_E2E_INSTANCE:-16}
E2E_NAME=realapps
. "$TOP/tests/e2e/checks.inc"
T=$(mktemp -d /tmp/contend-e2e-realapps.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || { echo "skipped: not root"; exit 77; }
[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
for m in ompi mpich; do
	[ -f "$TOP/$BUILD/pmpi/$m.so" ] || { echo "skipped: no $BUILD/pmpi/$m.so (make workloads)"; exit 77; }
done
for d in openmpi-tests mpich-tests; do
	[ -x "/usr/lib/x86_64-linux-gnu/scalapack/$d/xdlu" ] ||
		{ echo "skipped: no scalapack-mpi-test (sh bench/realapps/setup.sh)"; exit 77; }
done
"$CONTEND" testbed --instance "$INST" check >"$T/check" 2>&1 || { echo "skipped: $(tail -n 1 "$T/check")"; exit 77; }

INSTANCE=$INST BUILD=$BUILD CONTEND=$CONTEND timeout -k 10 400 \
	sh "$TOP/bench/realapps/overhead.sh" -S -o "$T/oh.tsv" >"$T/out" 2>"$T/err"
rc=$?
check exit "[ $rc -eq 0 ]" "overhead.sh -S exit $rc: $(tail -n 3 "$T/err" | tr '\n' ' ')"
# A skip inside (a package gone between the checks above and the run) is a skip here too.
if grep -q 'skipped:' "$T/out"; then echo "skipped: $(grep -m 1 'skipped:' "$T/out" | sed 's/.*skipped: *//')"; exit 77; fi

num='^[0-9]+(\.[0-9]+)?$'
for m in ompi mpich; do
	for v in bare collect full; do
		row=$(awk -F'\t' -v m="$m" -v v="$v" '$1 == "lu" && $2 == m && $4 == v' "$T/oh.tsv")
		check "$m-$v-row" "[ -n \"\$row\" ]" "no row for lu $m $v in the table"
		[ -n "$row" ] || continue
		bad=$(echo "$row" | awk -F'\t' -v v="$v" -v re="$num" '{
			if ($5 != 1) print "runs " $5
			if ($7 !~ re || $7 <= 0) print "median_s " $7
			if ($8 !~ re || $8 <= 0) print "paired " $8
			if ($9 !~ /^[0-9.]+-[0-9.]+$/) print "spread " $9
			if (v != "bare") {
				if ($10 !~ re || $10 <= 0) print "cap_per_wire " $10
				if ($11 !~ /^[0-9]+$/) print "drops " $11
				if ($12 !~ /^[0-9]+$/) print "agent_cpu_ms " $12
				if ($13 !~ /^[0-9]+$/ || $14 !~ /^[0-9]+$/ || $15 !~ /^[0-9]+$/ || $16 !~ re) print "messages " $13 "/" $14 "/" $15 "/" $16
			}
		}' | tr '\n' ' ')
		check "$m-$v-finite" "[ -z \"\$bad\" ]" "not a finite figure: $bad"
	done
	# the default (framed) capture and the full one both rebuild every message the truth has
	for v in collect full; do
		got=$(awk -F'\t' -v m="$m" -v v="$v" '$1 == "lu" && $2 == m && $4 == v { print $13, $14, $15 }' "$T/oh.tsv")
		sent=${got%% *} rest=${got#* }
		check "$m-$v-truth-exact" "echo \"\$got\" | grep -Eq '^[0-9]+ [0-9]+ [0-9]+\$' && [ \"\$sent\" -gt 100 ] && [ \"\$rest\" = \"\$sent \$sent\" ]" \
			"$v capture: sent/rebuilt/matched = ${got:-none} (the PMPI truth and parse differ)"
	done
	# the default capture had the kernel cut too, where eBPF can be loaded
	kc=$(grep -m 1 "^note: lu $m collect: kernel cut" "$T/err")
	echo "${kc:-note: lu $m collect: no kernel cut line}"
	case $kc in
	*"kernel cut unavailable"*) ;;
	*) check "$m-kernel-cut" "echo \"\$kc\" | grep -q 'kernel cut yes'" "${kc:-no kernel cut line}" ;;
	esac
	# and the framed capture keeps a small part of what the full one keeps
	fr=$(awk -F'\t' -v m="$m" '$1 == "lu" && $2 == m && $4 == "collect" { print $10 }' "$T/oh.tsv")
	fu=$(awk -F'\t' -v m="$m" '$1 == "lu" && $2 == m && $4 == "full" { print $10 }' "$T/oh.tsv")
	check "$m-framed-smaller" "awk -v a='$fr' -v b='$fu' 'BEGIN { exit !(a > 0 && b > 0 && a < b / 2) }'" \
		"capture bytes per wire byte: framed $fr, full $fu"
done
