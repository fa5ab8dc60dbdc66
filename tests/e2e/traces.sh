#!/bin/sh
# traces end to end: every run shipped in traces/ reads back whole (`contend collect --check`)
# and, when `contend parse` is available, parses (on a copy) into messages between ranks and
# one ranks.tsv row per rank, with each workload's own structure visible: the stencil talks
# only to its neighbours, the farm only through its master (the loaded slave doing the
# fewest tasks), the MPICH all-to-all between every pair with rendezvous transfers.
# Nothing is written into traces/ (checked).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
TR=${TRACES:-$TOP/traces}
T=$(mktemp -d /tmp/contend-e2e-traces.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

pass() { echo "PASS e2e/traces/$1"; }
fail() { echo "FAIL e2e/traces/$1: $2"; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "$3"; fi; }

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
runs=$(for m in "$TR"/*/meta/run.tsv; do [ -f "$m" ] && basename "$(dirname "$(dirname "$m")")"; done)
[ -n "$runs" ] || { echo "skipped: no runs in $TR"; exit 77; }

# A fingerprint of traces/ (names, sizes, times) to show that nothing wrote into it.
fingerprint() { find "$TR" -type f -printf '%P %s %T@\n' | sort | cksum; }
before=$(fingerprint)

meta() { awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# tsv_col FILE NAME...: the named columns of a contend TSV file (comments and the header
# line dropped), tab-separated, in the order asked.
tsv_col() {
	f=$1; shift
	awk -F'\t' -v want="$*" '
		/^#/ { next }
		!hdr { hdr = 1; n = split(want, w, " "); for (i = 1; i <= NF; i++) col[$i] = i
		       for (j = 1; j <= n; j++) if (!(w[j] in col)) { print "no column " w[j] > "/dev/stderr"; exit 2 }
		       next }
		{ s = ""; for (j = 1; j <= n; j++) s = s (j > 1 ? "\t" : "") $(col[w[j]]); print s }' "$f"
}

total_kb=$(du -sk "$TR" | cut -f1)
check size-total "[ $total_kb -lt 15360 ]" "traces/ is $total_kb KiB (want < 15 MiB)"

parse_ok=0
if "$CONTEND" parse --help >/dev/null 2>&1; then
	parse_ok=1
else
	echo "SKIP e2e/traces/parse: skipped: 'contend parse --help' fails"
fi

for r in $runs; do
	R=$TR/$r
	kb=$(du -sk "$R" | cut -f1)
	check "$r-size" "[ $kb -lt 5120 ]" "$kb KiB (want < 5 MiB)"
	"$CONTEND" collect --check "$R" >"$T/$r.check" 2>&1
	rc=$?
	check "$r-collect-check" "[ $rc -eq 0 ]" "exit $rc: $(grep -m 3 problem "$T/$r.check")"
	n=$(meta "$R/meta/run.tsv" nranks)
	nrf=$(ls "$R"/meta/rank-*.tsv 2>/dev/null | wc -l)
	check "$r-rank-files" "[ -n '$n' ] && [ '$n' -ge 2 ] && [ $nrf -eq '$n' ]" "nranks '$n', $nrf rank files"
	[ $parse_ok -eq 1 ] || continue

	cp -r "$R" "$T/$r"
	"$CONTEND" parse "$T/$r" >"$T/$r.parse" 2>&1
	rc=$?
	check "$r-parse-exit" "[ $rc -eq 0 ]" "exit $rc: $(tail -n 3 "$T/$r.parse")"
	P=$T/$r/profile
	if [ ! -s "$P/messages.tsv" ] || [ ! -s "$P/ranks.tsv" ]; then
		fail "$r-parse-files" "no messages.tsv or ranks.tsv in RUN/profile"
		continue
	fi
	tsv_col "$P/messages.tsv" src dst tag bytes mpi proto >"$T/$r.msgs" || fail "$r-messages-columns" "see above"
	tsv_col "$P/ranks.tsv" rank >"$T/$r.ranks" || fail "$r-ranks-columns" "see above"
	# Messages with both ends known and different ranks.
	awk -F'\t' '$1 >= 0 && $2 >= 0 && $1 != $2' "$T/$r.msgs" >"$T/$r.inter"
	ninter=$(wc -l <"$T/$r.inter")
	check "$r-inter-rank-messages" "[ $ninter -ge 20 ]" "$ninter messages between ranks"
	rows=$(wc -l <"$T/$r.ranks")
	distinct=$(sort -un "$T/$r.ranks" | awk -v n="$n" '$1 >= 0 && $1 < n' | wc -l)
	check "$r-ranks-one-row-each" "[ $rows -eq '$n' ] && [ $distinct -eq '$n' ]" \
		"$rows rows, $distinct distinct ranks in 0..$((n - 1))"
	# Every rank sends and receives something.
	for k in $(seq 0 $((n - 1))); do
		s=$(awk -F'\t' -v k="$k" '$1 == k' "$T/$r.inter" | wc -l)
		d=$(awk -F'\t' -v k="$k" '$2 == k' "$T/$r.inter" | wc -l)
		[ "$s" -gt 0 ] && [ "$d" -gt 0 ] || fail "$r-rank$k-talks" "sent $s, received $d"
	done

	case $r in
	stencil-*)
		# Halo exchange: point-to-point traffic (tag >= 0) only between neighbours.
		far=$(awk -F'\t' '$3 >= 0 { d = $1 - $2; if (d != 1 && d != -1) print }' "$T/$r.inter" | wc -l)
		near=$(awk -F'\t' '$3 >= 0 { d = $1 - $2; if (d == 1 || d == -1) print }' "$T/$r.inter" | wc -l)
		check "$r-neighbours-only" "[ $far -eq 0 ] && [ $near -ge 50 ]" "$near neighbour, $far other point-to-point messages"
		# traces/README.md's numbers for it, with the default busy threshold (half of
		# what a rank under its 50 % quota could run, polling for a message idle): comp
		# 84-90 %, mean busy phases 0.36-0.5 s, idle ones 45-70 ms
		odd=$(awk -F'\t' '/^#/ { next } NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ if ($c["comp_pct"] < 84 || $c["comp_pct"] > 90 || $c["avg_busy_ns"] < 3.6e8 ||
			      $c["avg_busy_ns"] > 5e8 || $c["avg_idle_ns"] < 4.5e7 || $c["avg_idle_ns"] > 7e7)
				print "rank " $1 ": comp " $c["comp_pct"] " busy " $c["avg_busy_ns"] " idle " $c["avg_idle_ns"] }' \
			"$P/ranks.tsv")
		check "$r-readme-numbers" '[ -z "$odd" ]' "traces/README.md no longer holds: $odd"
		;;
	farm-*)
		# Point-to-point traffic only to and from the master; the loaded slave (the rank on
		# the workstation the recording loaded, ws3) gets the fewest tasks (tag 2).
		side=$(awk -F'\t' '$3 >= 0 && $1 != 0 && $2 != 0' "$T/$r.inter" | wc -l)
		check "$r-through-master" "[ $side -eq 0 ]" "$side point-to-point messages between slaves"
		loaded=$(grep -l 'host	c3ws3$' "$R"/meta/rank-*.tsv 2>/dev/null | head -n 1)
		if [ -n "$loaded" ]; then
			lr=$(meta "$loaded" rank)
			awk -F'\t' '$1 == 0 && $3 == 2 { t[$2]++ } END { for (k in t) print k, t[k] }' "$T/$r.inter" | sort -n >"$T/$r.tasks"
			lt=$(awk -v k="$lr" '$1 == k { print $2 }' "$T/$r.tasks")
			others=$(awk -v k="$lr" '$1 != k { print $2 }' "$T/$r.tasks" | sort -n | head -n 1)
			check "$r-loaded-slave-slower" "[ -n '$lt' ] && [ -n '$others' ] && [ $lt -lt $others ]" \
				"tasks per slave: $(tr '\n' ' ' <"$T/$r.tasks") (loaded rank $lr)"
		fi
		;;
	alltoall-*)
		pairs=$(awk -F'\t' '{ print $1 "-" $2 }' "$T/$r.inter" | sort -u | wc -l)
		check "$r-all-pairs" "[ $pairs -eq $((n * (n - 1))) ]" "$pairs directed pairs (want $((n * (n - 1))))"
		if [ "$(meta "$R/meta/run.tsv" launcher)" = mpich ]; then
			rndv=$(awk -F'\t' '$5 == "mpich" && $6 ~ /^rndv/' "$T/$r.inter" | wc -l)
			check "$r-mpich-rendezvous" "[ $rndv -ge 10 ]" "$rndv MPICH rendezvous messages"
		fi
		;;
	esac
done

after=$(fingerprint)
check traces-untouched "[ \"$before\" = \"$after\" ]" "files in $TR changed during the test"
exit 0
