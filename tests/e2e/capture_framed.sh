#!/bin/sh
# capture_framed: what a framed capture keeps gives parse the same messages as the full
# capture, on real Open MPI and MPICH captures (the shipped runs, the golden inputs, the
# reference loopback captures), and on a capture that starts mid-stream (framing found
# again, counted). `contend trim` applies the same cut as the live capture.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
E2E_NAME=capture_framed
. "$TOP/tests/e2e/checks.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# messages without the columns that depend on the bytes captured (none expected) or
# on the connection's file order: the whole rows, sorted
msgs() { awk -F'\t' 'NR > 2 && $1 !~ /^#/' "$1/messages.tsv" | sort; }
size() { wc -c <"$1" | tr -d ' '; }
npkts() { gzip -cdf "$1" | tcpdump -nr - 2>/dev/null | wc -l; }

# same_as_full NAME CAPTURE: trim it, parse both, compare every message
same_as_full() {
	name=$1 in=$2
	out=$tmp/$name.pcap
	if ! "$CONTEND" trim "$in" "$out" >"$tmp/$name.trim" 2>&1; then
		fail "$name/trim" "exit $?: $(tail -n 1 "$tmp/$name.trim")"
		return
	fi
	"$CONTEND" parse -q --force --pcap "$in" -o "$tmp/$name.full" >/dev/null 2>&1
	"$CONTEND" parse -q --force --pcap "$out" -o "$tmp/$name.cut" >/dev/null 2>&1
	n=$(msgs "$tmp/$name.full" | wc -l)
	if [ "$n" -eq 0 ]; then
		fail "$name/messages" "no message parsed from the full capture"
		return
	fi
	if msgs "$tmp/$name.full" | cmp -s - "$tmp/$name.cut.sorted" 2>/dev/null ||
	   { msgs "$tmp/$name.cut" >"$tmp/$name.cut.sorted"; msgs "$tmp/$name.full" | cmp -s - "$tmp/$name.cut.sorted"; }; then
		pass "$name/same-$n-messages"
	else
		fail "$name/messages" "$(msgs "$tmp/$name.full" | diff - "$tmp/$name.cut.sorted" | head -n 4 | tr '\n' ' ')"
	fi
	check "$name/conns" "cmp -s '$tmp/$name.full/conns.tsv' '$tmp/$name.cut/conns.tsv'" \
		"conns.tsv differs"
	# the pcap is valid for other readers: tcpdump reads every packet
	a=$(npkts "$in")
	b=$(npkts "$out")
	check "$name/tcpdump-reads" "[ '$a' -eq '$b' ] && [ '$a' -gt 0 ]" "tcpdump read $a and $b packets"
}

command -v tcpdump >/dev/null || { echo "SKIP e2e/$E2E_NAME: skipped: no tcpdump"; exit 0; }
for f in "$TOP"/traces/*/capture/*.pcap.gz; do
	run=$(basename "$(dirname "$(dirname "$f")")")
	same_as_full "$run-$(basename "$f" .pcap.gz)" "$f"
done
for f in mpi-known-ompi.pcap.gz mpi-known-mpich.pcap.gz parse-ompi-ring-lo.pcap \
	parse-mpich-ring-lo.pcap parse-ompi-ring-lo.pcapng; do
	same_as_full "golden-$(echo "$f" | sed 's/\.gz$//; s/\./-/g')" "$TOP/tests/golden/inputs/$f"
done
ref=$TOP/../shared/reference/captures
if [ -d "$ref" ]; then
	for f in "$ref"/*.pcap; do
		same_as_full "ref-$(basename "$f" .pcap)" "$f"
	done
else
	echo "SKIP e2e/$E2E_NAME/reference: skipped: no $ref"
fi

# large messages: the cut keeps a few percent of the bytes
ref_ompi=$ref/ompi-4.1.4-btl-tcp-lo.pcap
if [ -f "$ref_ompi" ]; then
	full=$(size "$ref_ompi") cut=$(size "$tmp/ref-ompi-4.1.4-btl-tcp-lo.pcap")
	check ref-ompi-small "[ $((cut * 100)) -lt $((full * 10)) ]" "kept $cut of $full bytes"
fi

# a capture that starts late, inside the MPI streams: their framing is searched for, found
# and counted, and the messages equal those parsed from the same late capture in full
late() {	# NAME CAPTURE: from its middle packet on
	name=late-$1
	total=$(capinfos -Mc "$2" 2>/dev/null | awk '/Number of packets/ { print $NF }')
	editcap -F pcap -r "$2" "$tmp/$name.in.pcap" "$((total / 2))-$total" 2>/dev/null
	same_as_full "$name" "$tmp/$name.in.pcap"
	found=$(sed -n 's/.*found \([0-9]*\),.*/\1/p' "$tmp/$name.trim")
	lost=$(sed -n 's/.*framing lost \([0-9]*\),.*/\1/p' "$tmp/$name.trim")
	check "$name/framing-found" "[ '${found:-0}' -ge 1 ] && [ '${lost:-0}' -ge '${found:-0}' ]" \
		"framing lost ${lost:-?}, found ${found:-?}: $(tail -n 1 "$tmp/$name.trim")"
}
if ! command -v editcap >/dev/null || ! command -v capinfos >/dev/null; then
	echo "SKIP e2e/$E2E_NAME/late: skipped: no editcap/capinfos (tshark)"
elif [ -d "$ref" ]; then
	late ompi "$ref/ompi-4.1.4-btl-tcp-lo.pcap"
	late mpich "$ref/mpich-4.0.2-ucx-1.13.1-tcp-lo.pcap"
else
	echo "SKIP e2e/$E2E_NAME/late: skipped: no $ref"
fi

# bad input: a clear error, and what came before damage is kept
"$CONTEND" trim "$TOP/tests/golden/inputs/parse-not-a-capture.pcap" "$tmp/x.pcap" >"$tmp/out" 2>"$tmp/err"
rc=$?
check bad-input "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q '^contend: trim:' '$tmp/err' && [ ! -s '$tmp/out' ]" \
	"exit $rc, stderr: $(cat "$tmp/err")"
"$CONTEND" trim "$TOP/tests/golden/inputs/parse-ompi-ring-lo.pcap" "$tmp/golden-parse-ompi-ring-lo-pcap.pcap" >/dev/null 2>&1
rc=$?
check no-overwrite "[ $rc -ne 0 ]" "an existing output was replaced without --force"
"$CONTEND" trim "$TOP/tests/golden/inputs/parse-ompi-ring-lo-cut.pcap" "$tmp/cut-in.pcap" >/dev/null 2>&1
rc=$?
n=$(npkts "$tmp/cut-in.pcap")
check damaged-kept "[ $rc -eq 1 ] && [ $n -gt 0 ]" "exit $rc, $n packets kept from a cut file"
