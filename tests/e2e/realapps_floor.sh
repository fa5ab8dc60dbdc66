#!/bin/sh
# realapps_floor: bench/realapps/floor.sh on hand-built runs whose oracle errors are known:
# within a set each round from the others' slowdowns, across sets by ratio and by added
# seconds; unreadable, empty and headless input refused. No testbed. Prints PASS/FAIL lines.
set -u
: "${TOP:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
E2E_NAME=realapps_floor
. "$TOP/tests/e2e/checks.inc"
F=$TOP/bench/realapps/floor.sh
hdr() { printf '# contend-realapps-runs 1\nset\tround\torder\tcondition\twall_s\town_s\texit\n'; }
# set 1: bare 10 s in every round, cpu1 18, 20, 22 s; set 2: bare 20 s, cpu1 30 s
{ hdr; for r in 1 2 3; do
	printf 'p-2x1-ompi\t%d\t1\tbare\t10\t9\t0\n' $r
	printf 'p-2x1-ompi\t%d\t2\tcpu1\t%d\t9\t0\n' $r $((16 + 2 * r))
done; } >"$T/a.tsv"
{ hdr; for r in 1 2 3; do
	printf 'p-2x1-ompi\t%d\t1\tbare\t20\t9\t0\n' $r
	printf 'p-2x1-ompi\t%d\t2\tcpu1\t30\t9\t0\n' $r
done
printf 'p-2x1-ompi\t4\t1\tbare\tnan\t9\t0\n'; } >"$T/b.tsv"
sh "$F" "$T/a.tsv" "$T/b.tsv" >"$T/out" 2>"$T/err"
rc=$?
sec() { awk -v h="$1" 'index($0, h) == 1 { on = 1; next } on && /^$/ { exit } on' "$T/out"; }
# round 1: 10 x median(2.0, 2.2) = 21 against 18 (16.7 %); round 2: 20 against 20;
# round 3: 19 against 22 (13.6 %); the cell's error is the median, 13.6
got=$(sec "within a set (ratio)" | awk '$1 == "1" { print $2 }')
[ $rc -eq 0 ] && [ "$got" = "13.6" ] && pass within || fail within "exit $rc, set 1 '$got': $(cat "$T/err")"
# 1->2: 20 x 20 / 10 = 40 against 30 (33.3 %) by ratio, 20 + 10 = 30 (0) added;
# 2->1: 10 x 30 / 20 = 15 against 20 (25 %), 10 + 10 = 20 (0)
r12=$(sec "across sets (ratio)" | awk '$1 == "1->2" { print $2 }')
r21=$(sec "across sets (ratio)" | awk '$1 == "2->1" { print $2 }')
a12=$(sec "across sets (added)" | awk '$1 == "1->2" { print $2 }')
[ "$r12" = "33.3" ] && [ "$r21" = "25.0" ] && pass ratio || fail ratio "1->2 '$r12', 2->1 '$r21'"
[ "$a12" = "0.0" ] && pass added || fail added "1->2 '$a12'"
# the summary: the ratio oracle's two pairs, median 29.2, and one cell of each pair over 15 %
row=$(grep '^across sets, ratio' "$T/out")
case $row in *"29.2 (25.0-33.3)"*"2 of 2") pass summary ;; *) fail summary "'$row'" ;; esac
grep -q 'b.tsv: 1 runs without a wall time left out' "$T/err" && pass counted || fail counted "$(cat "$T/err")"
# one set: the within-set floor alone
sh "$F" "$T/a.tsv" >"$T/one" 2>&1
if [ $? -eq 0 ] && grep -q '^within a set, ratio' "$T/one" && ! grep -q '^across' "$T/one"; then
	pass one
else
	fail one "$(tail -n 3 "$T/one")"
fi
: >"$T/empty.tsv"
hdr >"$T/head.tsv"
for bad in missing.tsv empty.tsv head.tsv; do
	sh "$F" "$T/$bad" >/dev/null 2>"$T/berr"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$T/berr")" -eq 1 ]; then
		pass "refuses-$bad"
	else
		fail "refuses-$bad" "exit $rc: $(cat "$T/berr")"
	fi
done
sh "$F" >/dev/null 2>&1
[ $? -eq 2 ] && pass usage || fail usage "no arguments not refused with 2"
