#!/bin/sh
# damaged_runs: a corpus of damaged copies of traces/stencil-4ws, each made by one recipe
# below, and what contend must do with it: never a confident wrong answer. A damaged run
# either gives exit status 1 with the damage named on stderr (file, and line or byte), or
# exit 0 with exactly the numbers of the undamaged run. Where the damage leaves something
# usable (a capture or samples file damaged near its end), what came before is kept.
# Usage: sh tests/e2e/damaged_runs.sh [CASE...]
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
E2E_NAME=damaged_runs
. "$TOP/tests/e2e/checks.inc"
SRC=$TOP/traces/stencil-4ws
[ -d "$SRC" ] || { echo "skipped: no $SRC"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The undamaged run's per-rank table (ranks.tsv without its comment line).
"$CONTEND" parse -q -o "$tmp/ref" "$SRC" >/dev/null 2>&1 || fail reference "parse of $SRC failed"
grep -v '^#' "$tmp/ref/ranks.tsv" >"$tmp/ref.ranks"
cp -r "$SRC" "$tmp/ref-run" && "$CONTEND" parse -q "$tmp/ref-run" >/dev/null 2>&1 || fail reference "parse of a copy of $SRC failed"

# fresh NAME: a copy of the run in $tmp/NAME, echoed
fresh() { rm -rf "${tmp:?}/$1"; cp -r "$SRC" "$tmp/$1"; echo "$tmp/$1"; }
# stat_of DIR KEY: a value of DIR/profile/stats.tsv
stat_of() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1/profile/stats.tsv" 2>/dev/null; }
# rank_col DIR RANK COL: a column of one rank's row of ranks.tsv (empty when absent)
rank_col() {
	awk -F'\t' -v r="$2" -v c="$3" '/^#/ { next } NR == 2 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == r { print $k }' "$1/profile/ranks.tsv" 2>/dev/null
}
# samples_edit DIR RANK AWK: rewrite a samples file through an awk program (rows NR > 3)
samples_edit() {
	f=$1/samples/rank-$2.tsv.gz
	zcat "$f" | awk -F'\t' -v OFS='\t' "$3" | gzip -n >"$f.new" && mv "$f.new" "$f"
}
# meta_set DIR FILE KEY VALUE: set (or with VALUE "-DELETE-" remove) a key of a meta file
meta_set() {
	awk -F'\t' -v OFS='\t' -v k="$3" -v v="$4" '$1 == k { if (v == "-DELETE-") next; $2 = v } { print }' \
		"$1/meta/$2" >"$1/meta/$2.new" && mv "$1/meta/$2.new" "$1/meta/$2"
}
# parse_case NAME DIR: parse DIR, keep exit status in $rc and stderr in $tmp/NAME.err
parse_case() {
	"$CONTEND" parse -q "$2" >"$tmp/$1.out" 2>"$tmp/$1.err"
	rc=$?
}
# damaged NAME PATTERN: exit 1 and stderr matching PATTERN (an extended regexp)
damaged() {
	cn=$1 pat=$2
	check "$cn/exit" '[ "$rc" = 1 ]' "exit $rc, expected 1 (damage must not pass as a clean run)"
	check "$cn/named" 'grep -Eq -- "$pat" "$tmp/$cn.err"' \
		"stderr does not match '$pat': $(head -c 300 "$tmp/$cn.err")"
}
# same_or_failed NAME DIR: exit 0 implies the undamaged run's numbers
same_or_failed() {
	if [ "$rc" = 0 ]; then
		cn=$1
		grep -v '^#' "$2/profile/ranks.tsv" >"$tmp/$cn.ranks"
		check "$cn/exit0-same" 'cmp -s "$tmp/ref.ranks" "$tmp/$cn.ranks"' "exit 0 with other numbers"
	fi
}
want() { [ $# -eq 0 ] && return 0; for w in $WANT; do [ "$w" = "$1" ] && return 0; done; return 1; }
WANT=${*:-}
sel() { [ -z "$WANT" ] || want "$1"; }

# 1. A gzip capture with 16 bytes damaged near its end: the packets before it are kept.
if sel gzip-capture; then
	d=$(fresh gzip-capture)
	f=$d/capture/c3ws2.pcap.gz
	sz=$(wc -c <"$f")
	printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of="$f" bs=1 seek=$((sz - 48640)) conv=notrunc 2>/dev/null
	parse_case gzip-capture "$d"
	damaged gzip-capture "c3ws2.pcap.gz' is damaged at compressed byte [0-9]+.*packets before it are kept"
	n=$(stat_of "$d" packets)
	check gzip-capture/kept '[ "${n:-0}" -ge 1200 ]' "only ${n:-0} packets kept of 1418 (1247 lie before the damage)"
	check gzip-capture/counted '[ "$(stat_of "$d" pcap_damaged)" = 1 ]' "pcap_damaged is not 1"
fi

# 2. A samples file whose gzip data is damaged: its rows before the damage are kept.
if sel gzip-samples; then
	d=$(fresh gzip-samples)
	printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of="$d/samples/rank-1.tsv.gz" bs=1 seek=3127 conv=notrunc 2>/dev/null
	parse_case gzip-samples "$d"
	damaged gzip-samples "rank-1.tsv.gz' is damaged at compressed byte [0-9]+.*rows before it are kept"
	check gzip-samples/rank-kept '[ -n "$(rank_col "$d" 1 exec_ns)" ]' "rank 1 dropped from ranks.tsv"
	check gzip-samples/counted '[ "$(stat_of "$d" samples_damaged)" = 1 ]' "samples_damaged is not 1"
fi

# 3. One sample row with t_mono_ns = INT64_MAX: named, skipped, rank 1 keeps its exec time.
if sel tmono-max; then
	d=$(fresh tmono-max)
	samples_edit "$d" 1 'NR == 100 { $1 = "9223372036854775807" } { print }'
	parse_case tmono-max "$d"
	damaged tmono-max "rank-1.tsv.gz' line 100: t_mono_ns 9223372036854775807 is outside the rank's run"
	want_exec=$(awk -F'\t' '$1 == 1 { print $3 }' "$tmp/ref.ranks")
	check tmono-max/exec '[ "$(rank_col "$d" 1 exec_ns)" = "$want_exec" ]' \
		"rank 1 exec_ns $(rank_col "$d" 1 exec_ns), undamaged $want_exec"
	"$CONTEND" report -q --no-png "$d" 2>"$tmp/tmono-report.err"
	rc=$?
	damaged tmono-report "the profile rests on damaged input \(1 parse warning;"
	# predict says its answer rests on a partial profile, and exits 1
	"$CONTEND" predict "$d" --scenario "$TOP/traces/scenarios/stencil-load-c3ws2.ini" >/dev/null \
		2>"$tmp/tmono-predict.err"
	rc=$?
	damaged tmono-predict "profile' is partial .*the predictions rest on what parse could read"
	# analyze never takes the partial profile for a complete one
	"$CONTEND" analyze "$d" >/dev/null 2>"$tmp/tmono-analyze.err"
	rc=$?
	damaged tmono-analyze "profile' is not a complete parse"
	check tmono-max/counted '[ "$(stat_of "$d" samples_out_of_run)" = 1 ]' "samples_out_of_run is not 1"
fi

# 4. Shuffled rows: most go backwards in time; the rank's CPU phases are not used.
if sel shuffled; then
	d=$(fresh shuffled)
	f=$d/samples/rank-1.tsv.gz
	{ zcat "$f" | head -n 3; zcat "$f" | tail -n +4 | awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' |
		sort -k1,1 | cut -f2-; } | gzip -n >"$f.new" && mv "$f.new" "$f"
	parse_case shuffled "$d"
	damaged shuffled "rank-1.tsv.gz': [0-9]+ of [0-9]+ rows are bad \(first: .*line [0-9]+.*not used"
	# stdout and stderr to one file: in the order written (the table, then what it left
	# out), every message on a line of its own
	"$CONTEND" parse -f "$d" >"$tmp/shuffled-both" 2>&1
	check shuffled/in-order 'awk "/exec_s/ { t = NR } /left out of ranks.tsv/ { w = NR } END { exit !(t && w > t) }" "$tmp/shuffled-both"' \
		"the warning about the table comes before the table: $(head -c 400 "$tmp/shuffled-both")"
	check shuffled/no-interleave '! grep -q ".contend: " "$tmp/shuffled-both"' \
		"a message starts mid-line: $(grep ".contend: " "$tmp/shuffled-both" | head -n 1)"
	check shuffled/not-used '[ -z "$(rank_col "$d" 1 exec_ns)" ]' "rank 1 still in ranks.tsv from a few rows"
fi

# 5. A third of the rows non-numeric or negative: named and counted, the rest used.
if sel nonnumeric; then
	d=$(fresh nonnumeric)
	samples_edit "$d" 1 'NR > 3 && NR % 6 == 0 { $8 = "x" } NR > 3 && NR % 6 == 3 { $9 = "-5" } { print }'
	parse_case nonnumeric "$d"
	damaged nonnumeric "rank-1.tsv.gz': [0-9]+ of [0-9]+ rows are bad and skipped \(first: .*line [0-9]+.*rest on the other"
	n=$(stat_of "$d" samples_bad_rows)
	check nonnumeric/counted '[ "${n:-0}" -gt 100 ]' "samples_bad_rows ${n:-0}"
fi

# 6. meta/rank-N.tsv: a rank outside [0, nranks), not a number, missing, or two files for one.
for v in 999999 -1 1e20 -DELETE-; do
	name=meta-rank$v
	sel "$name" || continue
	d=$(fresh "$name")
	meta_set "$d" rank-1.tsv rank "$v"
	parse_case "$name" "$d"
	damaged "$name" "meta/rank-1.tsv'.*(rank|'rank').*not used"
	check "$name/missing" 'grep -q "ranks have no usable meta file (first: rank 1)" "$tmp/$name.err"' \
		"rank 1's missing meta not reported"
done
if sel meta-duplicate; then
	d=$(fresh meta-duplicate)
	meta_set "$d" rank-2.tsv rank 1
	parse_case meta-duplicate "$d"
	damaged meta-duplicate "meta/rank-2.tsv' line [0-9]+: rank 1 in the file of rank 2"
	check meta-duplicate/host '[ "$(rank_col "$d" 1 host)" = c3ws2 ]' "rank 1's host taken from the wrong file"
fi
if sel meta-no-file; then
	d=$(fresh meta-no-file)
	rm "$d/meta/rank-3.tsv"
	parse_case meta-no-file "$d"
	damaged meta-no-file "1 of 4 ranks have no usable meta file \(first: rank 3\)"
fi

# 7. cpu_capacity outside (0, cpus_allowed], not finite, or not what the quota says.
for v in 0.01 -3 nan inf 7; do
	name=meta-capacity$v
	sel "$name" || continue
	d=$(fresh "$name")
	meta_set "$d" rank-1.tsv cpu_capacity "$v"
	parse_case "$name" "$d"
	damaged "$name" "meta/rank-1.tsv' line [0-9]+: cpu_capacity .*taken as unknown"
	check "$name/counted" '[ "$(stat_of "$d" meta_problems)" = 1 ]' "meta_problems is not 1"
done

# 7b. A samples file that lost its last 40 lines at line boundaries: no bad row, but fewer
# samples than its agent took.
if sel samples-short; then
	d=$(fresh samples-short)
	f=$d/samples/rank-0.tsv.gz
	zcat "$f" | head -n -40 | gzip -n >"$f.new" && mv "$f.new" "$f"
	parse_case samples-short "$d"
	damaged samples-short "rank-0.tsv.gz': [0-9]+ samples, but its agent took 203 \(meta samples_taken\)"
fi

# 7c. cpu_capacity written with other rounding than collect's: the quota's value is used.
if sel capacity-rounding; then
	d=$(fresh capacity-rounding)
	meta_set "$d" rank-1.tsv cpu_capacity 0.5009
	parse_case capacity-rounding "$d"
	check capacity-rounding/exit '[ "$rc" = 0 ]' "exit $rc: $(head -c 300 "$tmp/capacity-rounding.err")"
	same_or_failed capacity-rounding "$d"
fi

# 8. A sockets row naming a rank outside the run.
if sel sockets-rank; then
	d=$(fresh sockets-rank)
	awk -F'\t' -v OFS='\t' 'NR == 4 { $2 = 7 } { print }' "$d/sockets/rank-0.tsv" >"$d/s" && mv "$d/s" "$d/sockets/rank-0.tsv"
	parse_case sockets-rank "$d"
	damaged sockets-rank "sockets/rank-0.tsv' line 4: rank 7 is outside \[0, 4\)"
fi

# 9. A capture of a link type parse does not decode (147, DLT_USER0): an error, not 0 messages.
if sel linktype; then
	d=$(fresh linktype)
	zcat "$d/capture/c3ws1.pcap.gz" >"$d/capture/c3ws1.pcap" && rm "$d/capture/c3ws1.pcap.gz"
	printf '\223\000\000\000' | dd of="$d/capture/c3ws1.pcap" bs=1 seek=20 conv=notrunc 2>/dev/null
	parse_case linktype "$d"
	damaged linktype "c3ws1.pcap': link type 147 is not one parse decodes.*its [0-9]+ packets are not read"
fi

# 10. An empty directory is not a run: an error, and no profile/ written into it.
if sel empty; then
	mkdir -p "$tmp/empty"
	parse_case empty "$tmp/empty"
	damaged empty "is not a run directory"
	check empty/nothing-written '[ ! -e "$tmp/empty/profile" ]' "profile/ created in an empty directory"
fi

# 11. A run whose samples only lost their final newline is not damaged: exit 0, same numbers.
if sel harmless; then
	d=$(fresh harmless)
	f=$d/samples/rank-2.tsv.gz
	zcat "$f" | head -c -1 | gzip -n >"$f.new" && mv "$f.new" "$f"
	parse_case harmless "$d"
	check harmless/exit '[ "$rc" = 0 ]' "exit $rc: $(head -c 300 "$tmp/harmless.err")"
	same_or_failed harmless "$d"
fi

# 12. A node's load samples replaced by garbage: parse does not read them (exit 0, same
# numbers); explain, which takes the node's CPU use from them, names the file in a warning
# and goes on without that evidence, with the same first cause as the undamaged run.
if sel node-samples; then
	d=$(fresh node-samples)
	printf '\037\213\010\000garbage, not gzip at all' >"$d/samples/node-c3ws2.tsv.gz"
	parse_case node-samples "$d"
	check node-samples/parse-exit '[ "$rc" = 0 ]' "exit $rc: $(head -c 300 "$tmp/node-samples.err")"
	same_or_failed node-samples "$d"
	"$CONTEND" explain "$d" >"$tmp/node-samples.explain" 2>"$tmp/node-samples.explain.err"
	rc=$?
	check node-samples/explain-warns '[ "$rc" = 0 ] && grep -q "1 evidence file unreadable and left out (first: .*node-c3ws2.tsv.gz" "$tmp/node-samples.explain.err"' \
		"explain: exit $rc: $(head -c 300 "$tmp/node-samples.explain.err")"
	"$CONTEND" export --format perfetto -o "$tmp/node-samples.pf" "$d" >/dev/null 2>"$tmp/node-samples.export.err"
	rc=$?
	check node-samples/export-warns '[ "$rc" = 1 ] && [ -s "$tmp/node-samples.pf" ] && grep -q "1 node sample file unreadable, its load left out (first: .*node-c3ws2.tsv.gz" "$tmp/node-samples.export.err"' \
		"export: exit $rc: $(head -c 300 "$tmp/node-samples.export.err"); $(ls "$tmp/node-samples.pf" 2>&1 | head -n 3 | tr '\n' ' ')"
	"$CONTEND" explain "$tmp/ref-run" >"$tmp/ref-run.explain" 2>/dev/null
	first() { awk '$1 == "cause" { getline; print $1, $2; exit }' "$1"; }
	check node-samples/explain-same-first '[ -n "$(first "$tmp/ref-run.explain")" ] && [ "$(first "$tmp/ref-run.explain")" = "$(first "$tmp/node-samples.explain")" ]' \
		"first cause '$(first "$tmp/node-samples.explain")', undamaged '$(first "$tmp/ref-run.explain")'"
fi

# collect --check runs parse's checks: every damaged run above is caught before analysis.
"$CONTEND" collect --check "$SRC" >"$tmp/check-ref.out" 2>&1
rc=$?
check check/undamaged '[ "$rc" = 0 ]' "collect --check of the undamaged run: exit $rc: $(tail -n 2 "$tmp/check-ref.out")"
for d in "$tmp"/*/; do
	name=$(basename "$d")
	case $name in ref|ref-run|empty|harmless|capacity-rounding) continue ;; esac
	[ -d "$d/meta" ] || continue
	"$CONTEND" collect --check "$d" >"$tmp/check-$name.out" 2>&1
	rc=$?
	check "$name/collect-check" '[ "$rc" = 1 ] && ! grep -q " 0 problems" "$tmp/check-$name.out"' \
		"collect --check: exit $rc: $(tail -n 1 "$tmp/check-$name.out")"
done

# Every case: exit 0 only with the undamaged numbers.
for d in "$tmp"/*/; do
	name=$(basename "$d")
	[ "$name" = ref ] && continue
	[ -f "$d/profile/ranks.tsv" ] || continue
	if [ "$(stat_of "$d" complete)" = yes ]; then
		grep -v '^#' "$d/profile/ranks.tsv" >"$tmp/$name.ranks"
		check "$name/complete-same" 'cmp -s "$tmp/ref.ranks" "$tmp/$name.ranks"' \
			"profile marked complete with numbers unlike the undamaged run's"
	fi
done
