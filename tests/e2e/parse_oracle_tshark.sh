#!/bin/sh
# parse_oracle_tshark: per-connection packet and byte counts of `contend parse` (conns.tsv)
# against `tshark -q -z conv,tcp` on the same captures. Frames must match exactly; bytes
# exactly when tshark prints bytes, to its rounding when it prints kB or MB.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
command -v tshark >/dev/null 2>&1 || { echo "skipped: tshark is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
caps="$TOP/tests/golden/inputs/parse-ompi-ring-lo.pcap $TOP/tests/golden/inputs/parse-mpich-ring-lo.pcap"
for r in "$TOP"/../shared/reference/captures/*.pcap; do
	[ -f "$r" ] && caps="$caps $r"
done
for cap in $caps; do
	name=$(basename "$cap")
	if ! "$CONTEND" parse -q --force --pcap "$cap" -o "$tmp/out" >/dev/null 2>"$tmp/err"; then
		echo "FAIL parse_oracle_tshark/$name: contend parse failed: $(tail -n 1 "$tmp/err")"
		continue
	fi
	tshark -r "$cap" -q -z conv,tcp 2>/dev/null | grep '<->' >"$tmp/conv"
	# ours: one line per direction "src dst frames bytes", ports kept with the address
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ {
		a = $3 ":" $4; b = $5 ":" $6
		f[a " " b] += $11; by[a " " b] += $12; f[b " " a] += $15; by[b " " a] += $16
	} END { for (k in f) print k, f[k], by[k] }' "$tmp/out/conns.tsv" >"$tmp/ours"
	if awk -v ours="$tmp/ours" '
	function val(n, unit) {
		if (unit == "bytes") return n
		if (unit == "kB") return n * 1000
		if (unit == "MB") return n * 1000000
		return -1
	}
	function near(want, unit, got) {
		if (unit == "bytes") return want == got
		return got >= val(want - 0.5, unit) && got <= val(want + 0.5, unit) + 1000
	}
	BEGIN { while ((getline l < ours) > 0) { split(l, x, " "); F[x[1] " " x[2]] = x[3]; B[x[1] " " x[2]] = x[4] } }
	{
		a = $1; b = $3
		# $4 $5 $6: frames, bytes, unit from b to a; $7 $8 $9 from a to b
		n++
		if (F[b " " a] + 0 != $4 || F[a " " b] + 0 != $7 || !near($5, $6, B[b " " a] + 0) ||
		    !near($8, $9, B[a " " b] + 0)) {
			bad++
			if (bad <= 3)
				printf "    %s <-> %s: tshark %s/%s %s, %s/%s %s; ours %d/%d, %d/%d\n", a, b, $4, $5, $6,
				       $7, $8, $9, F[b " " a], B[b " " a], F[a " " b], B[a " " b]
		}
	}
	END { printf "    %d conversations, %d differ\n", n, bad; exit(bad > 0 || n == 0) }' "$tmp/conv" >"$tmp/cmp"; then
		echo "PASS parse_oracle_tshark/$name"
	else
		echo "FAIL parse_oracle_tshark/$name: per-connection counts differ from tshark"
		cat "$tmp/cmp"
	fi
done
