#!/bin/sh
# parse_parallel end to end: `contend parse -j N` writes the same profile, byte for byte,
# whatever N, and so does a parse in parts (--part NODE for every node, then --merge):
# every file of profile/ compared with cmp, on every run shipped in traces/, on a
# generated Open MPI run of 32 ranks on 8 nodes and an MPICH one of 16 on 4 (parse_gen -R:
# every connection in the captures of both its nodes), on three generated captures that
# share connections, and on a generated run of 128 ranks with more messages and ranks
# than the row threads hold at once (their batches and rank files are reused many times):
# -j 1, 2, 3, 4 and 7, and the merge of the parts with -j 1 and -j 3. Also a generated run
# placed round-robin with TCP within a node and barriers (parse_gen -P cyclic -T -B).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONTEND=${CONTEND:-$TOP/$BUILD/contend}
GEN=${GEN:-$TOP/$BUILD/bench/parse_gen}
E2E_NAME=parse_parallel
INST=${TESTBED_E2E_INSTANCE:-1}
. "$TOP/tests/e2e/checks.inc"

[ -x "$CONTEND" ] || { echo "skipped: no $CONTEND"; exit 77; }
e2e_workdir "${E2E_KEEP_DIR:-}" parse-parallel

runs=""
for r in "$TOP"/traces/*/; do
	[ -d "$r/capture" ] || continue
	n=$(basename "$r")
	cp -r "$r" "$T/$n" && rm -rf "$T/$n/profile" && runs="$runs $n"
done
if [ -x "$GEN" ]; then
	# n2 repeats the start of n1 (the same connections seen from both ends), n3 reuses
	# their addresses and ports with other sequence numbers
	mkdir -p "$T/gen/capture"
	"$GEN" -o "$T/gen/capture/n1.pcap" -s 8 -c 16 >/dev/null &&
		"$GEN" -o "$T/gen/capture/n2.pcap" -s 4 -c 16 >/dev/null &&
		"$GEN" -o "$T/gen/capture/n3.pcap" -s 4 -c 8 -m 4096 >/dev/null && runs="$runs gen"
	"$GEN" -R "$T/mpi32" -n 32 -N 8 -p irregular -t 1 >/dev/null && runs="$runs mpi32"
	"$GEN" -R "$T/mpich16" -n 16 -N 4 -p alltoall -t 1 -M mpich >/dev/null && runs="$runs mpich16"
	"$GEN" -R "$T/halo128" -n 128 -N 32 -p halo -t 8 >/dev/null && runs="$runs halo128"
	"$GEN" -R "$T/cyc32" -n 32 -N 4 -P cyclic -T -B -p alltoall -t 0.5 -i 50 >/dev/null && runs="$runs cyc32"
else
	fail gen "no $GEN (make bench)"
fi

# same A B: every file of profile A is in B with the same bytes, and B has no other
same() {
	[ "$(ls "$1")" = "$(ls "$2")" ] || return 1
	for f in "$1"/*; do cmp -s "$f" "$2/$(basename "$f")" || { echo "  differs: $f" >&2; return 1; }; done
}

for n in $runs; do
	R=$T/$n
	"$CONTEND" parse -q -j 1 -o "$T/$n-j1" "$R" 2>/dev/null
	check "$n/j1" '[ -s "$T/$n-j1/messages.tsv" ] && [ -s "$T/$n-j1/stats.tsv" ]' "no profile"
	for j in 2 3 4 7; do
		"$CONTEND" parse -q -j $j -o "$T/$n-j$j" "$R" 2>/dev/null
		check "$n/j$j" 'same "$T/$n-j1" "$T/$n-j$j"' "-j $j differs from -j 1"
	done
	for c in "$R"/capture/*.pcap*; do
		node=$(basename "$c"); node=${node%%.*}
		"$CONTEND" parse -q --part "$node" -o "$T/$n-parts" "$R" 2>/dev/null
	done
	np=$(ls "$T/$n-parts/parts" | grep -c '\.stats\.tsv$')
	check "$n/parts" '[ "$np" -eq "$(ls "$R"/capture | wc -l)" ]' "$np parts"
	for j in 1 3; do
		rm -rf "$T/$n-merge"
		mkdir -p "$T/$n-merge" && cp -r "$T/$n-parts/parts" "$T/$n-merge/"
		"$CONTEND" parse -q -j $j --merge -o "$T/$n-merge" "$R" 2>/dev/null
		rm -rf "$T/$n-merge/parts"
		check "$n/merge-j$j" 'same "$T/$n-j1" "$T/$n-merge"' "part+merge -j $j differs from one process"
	done
	rm -rf "$T/$n-parts" "$T/$n-merge"
done
# --times: one line of the steps' times on stderr, and the same profile
R=$T/halo128
if [ -d "$R" ]; then
	"$CONTEND" parse -q --times -j 2 -o "$T/times" "$R" 2>"$T/times.err"
	check times '[ "$(grep -c "^parse: times: parts [0-9.]* s (waited for), merge [0-9.]* s, samples [0-9.]* s, outputs [0-9.]* s, total [0-9.]* s$" "$T/times.err")" -eq 1 ] &&
		same "$T/halo128-j1" "$T/times"' "$(head -c 300 "$T/times.err")"
fi
m128=$(awk -F'\t' '$1 == "ompi_msgs" { print $2 }' "$T/halo128-j1/stats.tsv" 2>/dev/null)
p128=$(awk -F'\t' '$1 == "samples_files" { print $2 }' "$T/halo128-j1/stats.tsv" 2>/dev/null)
check halo128/size '[ "${m128:-0}" -gt 40000 ] && [ "${p128:-0}" -eq 128 ]' \
	"$m128 messages, $p128 samples files: fewer than the row threads' batches wrap at"
dups=$(awk -F'\t' '$1 == "streams_duplicate" { print $2 }' "$T/gen-j1/stats.tsv" 2>/dev/null)
check gen/duplicates '[ "${dups:-0}" -gt 0 ]' "no connection seen in two captures"

n32=$(awk -F'\t' '$1 == "ompi_msgs" { print $2 }' "$T/mpi32-j1/stats.tsv" 2>/dev/null)
c32=$(awk -F'\t' '$1 == "complete" { print $2 }' "$T/mpi32-j1/stats.tsv" 2>/dev/null)
check mpi32/decoded '[ "${n32:-0}" -gt 1000 ] && [ "$c32" = yes ]' "$n32 Open MPI messages, complete $c32"
# round-robin, TCP within a node, barriers: every pair talks (full coverage), 8 iterations
# of the all-to-all and two barriers of 5 rounds
st() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$T/$1-j1/stats.tsv" 2>/dev/null; }
bar=$(awk -F'\t' 'NR > 2 && $7 == -16' "$T/cyc32-j1/messages.tsv" 2>/dev/null | wc -l)
check cyc32/shape '[ "$(st cyc32 coverage)" = full ] && [ "$(st cyc32 ompi_msgs)" = $((32 * 31 * 8 + bar)) ] &&
	[ "$bar" -eq 320 ]' "coverage $(st cyc32 coverage), $(st cyc32 ompi_msgs) messages, $bar of the barriers"
n16=$(awk -F'\t' '$1 == "mpich_msgs" { print $2 }' "$T/mpich16-j1/stats.tsv" 2>/dev/null)
check mpich16/decoded '[ "${n16:-0}" -gt 1000 ]' "$n16 MPICH messages"

# a missing part is a warning, not a silent hole
R=$T/stencil-4ws
if [ -d "$R" ]; then
	"$CONTEND" parse -q --part c3ws1 -o "$T/miss" "$R" 2>/dev/null
	"$CONTEND" parse -q --merge -o "$T/miss" "$R" 2>"$T/miss.err"
	rc=$?
	check missing-part '[ $rc -eq 1 ] && grep -q "no part" "$T/miss.err" &&
		grep -q "complete	partial" "$T/miss/stats.tsv"' "rc=$rc, $(head -c 300 "$T/miss.err")"
fi

# a part cut short (a node that ran out of disk) is named and the result is partial
R=$T/stencil-4ws
if [ -d "$R" ]; then
	for c in "$R"/capture/*.pcap*; do
		node=$(basename "$c"); node=${node%%.*}
		"$CONTEND" parse -q --part "$node" -o "$T/cut" "$R" 2>/dev/null
	done
	f=$(ls "$T"/cut/parts/*.msgs.bin | head -n 1)
	head -c $(($(wc -c <"$f") - 10)) "$f" >"$f.tmp" && mv "$f.tmp" "$f"
	"$CONTEND" parse -q --merge -o "$T/cut" "$R" 2>"$T/cut.err"
	rc=$?
	check cut-part '[ $rc -eq 1 ] && grep -q "cut" "$T/cut.err" &&
		grep -q "complete	partial" "$T/cut/stats.tsv"' "rc=$rc, $(head -c 300 "$T/cut.err")"
fi

# parts made with other options than the merge's are refused, not mixed in
R=$T/stencil-4ws
if [ -d "$R" ]; then
	for c in "$R"/capture/*.pcap*; do
		node=$(basename "$c"); node=${node%%.*}
		"$CONTEND" parse -q --part "$node" --mpi generic -o "$T/opts" "$R" 2>/dev/null
	done
	"$CONTEND" parse -q --merge -o "$T/opts" "$R" 2>"$T/opts.err"
	rc=$?
	check other-options '[ $rc -eq 1 ] && grep -q "other parse options" "$T/opts.err"' \
		"rc=$rc, $(head -c 300 "$T/opts.err")"
	"$CONTEND" parse -q --force --merge --mpi generic -o "$T/opts" "$R" 2>/dev/null
	"$CONTEND" parse -q --mpi generic -o "$T/opts1" "$R" 2>/dev/null
	rm -rf "$T/opts/parts"
	check same-options 'same "$T/opts1" "$T/opts"' \
		"--mpi generic parts and merge differ from one --mpi generic parse"
fi
