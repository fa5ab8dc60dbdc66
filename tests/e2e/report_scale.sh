#!/bin/sh
# report at scale, end to end: a generated 256-rank run (16 nodes, a halo with 300000 messages,
# more than the report keeps) is reported; the page count, the aggregation note of the table,
# the heat-map titles of the timeline and matrix, the busiest links with the rest summed, the
# explain page per node, --group-by N and its usage error. Prints PASS/FAIL/SKIP lines.
set -u
: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CONTEND:=$TOP/${BUILD:-build}/contend}"
for p in gnuplot pdfunite pdftoppm pdftotext pdfinfo; do
	command -v $p >/dev/null 2>&1 || { echo "skipped: $p is not installed"; exit 77; }
done
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT

ok() { echo "PASS report_scale/$1"; }
bad() { echo "FAIL report_scale/$1: $2"; }
pages_of() { pdfinfo "$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'; }
page_text() { pdftotext -f "$2" -l "$2" "$1" - 2>/dev/null | tr '\n' ' '; }
# has NAME PDF PAGE TEXT: the page holds TEXT
has() {
	case $(page_text "$2" "$3") in
	*"$4"*) ok "$1" ;;
	*) bad "$1" "page $3 of $2 lacks '$4'" ;;
	esac
}

# gen DIR NRANKS NMSGS RANKS_PER_NODE: a parsed run in the documented formats (docs/formats.md)
gen() {
	mkdir -p "$1/meta" "$1/profile"
	awk -v dir="$1" -v n="$2" -v nm="$3" -v rpn="$4" '
	BEGIN {
		t0 = 1700000000000000000; T = 60000000000; np = 40; ph = T / np
		f = dir "/meta/run.tsv"
		printf "# contend-meta 1\nkey\tvalue\ncommand\t./halo 100\nlauncher\tmpirun -np %d\nnranks\t%d\n" \
			"start_real_ns\t%.0f\n", n, n, t0 > f
		close(f)
		for (h = 0; h < n / rpn; h++) {
			f = sprintf("%s/meta/node-n%03d.tsv", dir, h)
			printf "# contend-meta 1\nkey\tvalue\nhost\tn%03d\npcap_recv\t1000\npcap_drop\t0\npcap_ifdrop\t0\n", h > f
			close(f)
		}
		split("1 -1 16 -16", nb, " ")
		mf = dir "/profile/messages.tsv"
		print "# contend-messages 1\nt_first_ns\tt_last_ns\tsrc\tdst\tcid\tcomm_src\ttag\ttag_name\tbytes\twire_bytes\tmpi\tproto\tranksrc\tflags\tconn" > mf
		for (i = 0; i < nm; i++) {
			s = i % n; k = 1 + int(i / n) % 4
			d = (s + nb[k] + n) % n
			by = k <= 2 ? 65536 : 8192
			if (s % 37 == 3) by *= 4
			tf = t0 + int(i / nm * T)
			printf "%.0f\t%.0f\t%d\t%d\t0\t%d\t7\t-\t%d\t%d\tompi\t%s\t%d\t-\t1\n", tf, tf + 200000, s, d, s, by,
				by + 64, (by > 16384 ? "rndv-put" : "eager"), s > mf
			sent[s]++; sb[s] += by; rc[d]++; rb[d] += by; lm[s " " d]++; lb[s " " d] += by
		}
		close(mf)
		pf = dir "/profile/phases.tsv"
		print "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns" > pf
		for (r = 0; r < n; r++)
			for (j = 0; j < np; j++) {
				a = t0 + j * ph; b = a + ph * (60 + (r * 7 + j) % 30) / 100
				printf "%d\tbusy\t%.0f\t%.0f\t%.0f\t0\n%d\tidle\t%.0f\t%.0f\t0\t0\n", r, a, b, b - a, r, b, a + ph > pf
			}
		close(pf)
		rf = dir "/profile/ranks.tsv"
		print "# contend-ranks 1\nrank\thost\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tn_busy\tn_idle\tcpu_pct\trun_ns\twait_ns\tmsgs_sent\tbytes_sent\tmsgs_recv\tbytes_recv" > rf
		for (r = 0; r < n; r++) {
			b = 60 + r % 30
			printf "%d\tn%03d\t%.0f\t%.3f\t%.3f\t%.3f\t%.0f\t%.0f\t%d\t%d\t%.3f\t%.0f\t0\t%d\t%.0f\t%d\t%.0f\n", r,
				int(r / rpn), T, b * 0.95, b * 0.05, 100 - b, ph * b / 100, ph * (100 - b) / 100, np, np, b,
				T * b / 100, sent[r], sb[r], rc[r], rb[r] > rf
		}
		close(rf)
		lf = dir "/profile/links.tsv"
		print "# contend-links 1\nsrc\tdst\tmsgs\tbytes\tavg_bytes\tactive_ns\tt_first_ns\tt_last_ns" > lf
		for (key in lm) {
			split(key, sd, " ")
			printf "%d\t%d\t%d\t%.0f\t%.9g\t%.0f\t%.0f\t%.0f\n", sd[1], sd[2], lm[key], lb[key], lb[key] / lm[key],
				lm[key] * 200000, t0, t0 + T > lf
		}
		close(lf)
		f = dir "/profile/netparams.tsv"
		print "# contend-netparams 1\nkey\tvalue\nlat_ns\t50000\nbw_Bps\t125000000" > f
		close(f)
		f = dir "/profile/stats.tsv"
		print "# contend-stats 1\nkey\tvalue\npackets\t" 3 * nm "\ncomplete\tyes" > f
		close(f)
	}'
}

run=$tmpd/big256
gen "$run" 256 300000 16
t0=$(date +%s)
"$CONTEND" report -q --no-png "$run" >"$tmpd/out" 2>&1
rc=$?
t1=$(date +%s)
pdf=$run/report.pdf
if [ $rc -ne 0 ] || [ ! -s "$pdf" ]; then
	bad run "exit $rc: $(head -3 "$tmpd/out")"
	exit 0
fi
ok run
[ $((t1 - t0)) -lt 60 ] && ok bounded-time || bad bounded-time "$((t1 - t0)) s for 256 ranks"
# front, timeline, matrix, sizes, table, slowdown, explain
n=$(pages_of "$pdf")
[ "${n:-0}" -eq 7 ] && ok pages || bad pages "$n pages, expected 7"
has timeline-heat "$pdf" 2 "Busy share per rank and time bin: 256 ranks"
has matrix-heat "$pdf" 3 "Communication matrix (heat map, 4 ranks per cell)"
has table-groups "$pdf" 5 "256 ranks in 16 groups"
has table-note "$pdf" 5 "Above 64 ranks, one row per node"
has table-node "$pdf" 5 "n015"
has links-top "$pdf" 5 "Messages per link (busiest first)"
# 1024 links (four neighbours per rank): the busiest listed, the others summed in one row
page_text "$pdf" 5 | grep -Eq "the other 10[0-9][0-9] links: [0-9]+ messages" && ok links-rest ||
	bad links-rest "page 5 has no 'the other N links' row"
has explain-node "$pdf" 7 "per node (256 ranks)"
has front-all "$pdf" 1 "300000 messages"

"$CONTEND" report -q --no-png --group-by 32 "$run" >"$tmpd/out" 2>&1 || bad group-by "exit $?: $(head -1 "$tmpd/out")"
has group-by-table "$pdf" 5 "256 ranks in 8 groups"
has group-by-label "$pdf" 5 "224-255"
has group-by-explain "$pdf" 7 "per group of ranks"

"$CONTEND" report --group-by 0 "$run" >"$tmpd/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "group-by" "$tmpd/out" && ok group-by-usage || bad group-by-usage "exit $rc: $(head -1 "$tmpd/out")"
exit 0
