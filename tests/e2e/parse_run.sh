#!/bin/sh
# parse_run: `contend parse RUN` on a run directory assembled from a real loopback capture,
# a socket map derived from it, rank meta files and synthetic CPU samples; then the same
# run with pieces missing or damaged (exit 1, results still written).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONTEND=${CONTEND:-$TOP/build/contend}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cap=$TOP/tests/golden/inputs/parse-ompi-ring-lo.pcap
ok() { echo "PASS parse_run/$1"; }
ko() { echo "FAIL parse_run/$1: $2"; }

# 1. ranks of the endpoints from Open MPI's handshakes
"$CONTEND" parse -q --force --pcap "$cap" -o "$tmp/auto" >/dev/null 2>&1 || ko auto "parse failed"
run=$tmp/RUN
mkdir -p "$run/capture" "$run/sockets" "$run/meta" "$run/samples"
cp "$cap" "$run/capture/lo.pcap"
t0=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && (m == "" || $19 < m) { m = $19 } END { print m }' "$tmp/auto/conns.tsv")
for r in 0 1 2; do
	{
		printf '# contend-sockets 1\nt_real_ns\trank\tpid\tlocal_ip\tlocal_port\tremote_ip\tremote_port\tstate\n'
		awk -F'\t' -v r=$r 'NR > 2 && $1 !~ /^#/ && $2 == "ompi" {
			if ($7 == r) printf "%s\t%d\t%d\t%s\t%s\t%s\t%s\tESTABLISHED\n", $19, r, 100 + r, $3, $4, $5, $6
			if ($8 == r) printf "%s\t%d\t%d\t%s\t%s\t%s\t%s\tESTABLISHED\n", $19, r, 100 + r, $5, $6, $3, $4
		}' "$tmp/auto/conns.tsv"
	} >"$run/sockets/rank-$r.tsv"
	printf '# contend-meta 1\nkey\tvalue\nrank\t%d\nhost\tnode%d\naddrs\t127.0.0.1,::1\n' $r $r >"$run/meta/rank-$r.tsv"
	# 20 ms samples for 2 s: busy 3 samples, idle 2, repeated; one thread
	awk -v t0="$t0" -v r=$r 'BEGIN {
		printf "# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\tstate\tutime_ticks\tstime_ticks\trun_ns\twait_ns\tvcsw\tivcsw\n"
		run = 0
		for (i = 0; i <= 100; i++) {
			if (i > 0 && (i % 5) < 3) run += 20000000
			printf "%.0f\t%.0f\t%d\t%d\tR\t0\t0\t%d\t%d\t0\t0\n", 1000000000 + i * 20000000, t0 - 500000000 + i * 20000000, 100 + r, 100 + r, run, i * 1000
		}
	}' | gzip >"$run/samples/rank-$r.tsv.gz"
done

# 2. the whole run, generic messages tied to ranks by the socket map
if "$CONTEND" parse --mpi generic "$run" >"$tmp/out" 2>"$tmp/err"; then ok run-exit; else ko run-exit "exit $?: $(tail -n 1 "$tmp/err")"; fi
for f in messages phases ranks links conns netparams stats; do
	[ -s "$run/profile/$f.tsv" ] || ko "run-files" "no $f.tsv"
done
ok run-files
n=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/' "$run/profile/ranks.tsv" | wc -l)
[ "$n" -eq 3 ] && ok ranks-rows || ko ranks-rows "$n rows in ranks.tsv, expected 3"
if awk -F'\t' 'NR > 2 && $1 !~ /^#/ {
	s = $4 + $5 + $6
	if (s < 99.9 || s > 100.1 || $2 !~ /^node/ || $9 < 1 || $10 < 1) bad = 1
	if ($11 < 55 || $11 > 65) bad = 1	# 3 busy of 5: about 60 % CPU
} END { exit bad }' "$run/profile/ranks.tsv"; then ok ranks-split; else ko ranks-split "$(cat "$run/profile/ranks.tsv")"; fi
tied=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $13 == "sockmap" && $3 >= 0 && $4 >= 0' "$run/profile/messages.tsv" | wc -l)
[ "$tied" -gt 0 ] && ok sockmap-ties || ko sockmap-ties "no message tied to ranks through the socket map"
# every rank pair Open MPI's decoder found is found by the generic decoder through the socket
# map too (generic also counts protocol-only bytes such as the handshake reply as messages)
pairs_auto=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $1 >= 0 && $2 >= 0 { print $1 "-" $2 }' "$tmp/auto/links.tsv" | sort | tr '\n' ' ')
pairs_gen=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $1 >= 0 && $2 >= 0 { print $1 "-" $2 }' "$run/profile/links.tsv" | sort | tr '\n' ' ')
missing=""
for p in $pairs_auto; do
	case " $pairs_gen " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
[ -n "$pairs_auto" ] && [ -z "$missing" ] && ok same-links || ko same-links "auto: $pairs_auto, generic: $pairs_gen"
grep -q "^node0 *\|^ *0 node0" "$tmp/out" && ok summary || ko summary "no row for rank 0 on stdout"

# 2b. a node under a CPU quota (collect's cpu_capacity 0.5): a rank computing flat out runs
# only 8 ms of each 20 ms sample, in user mode (so it is not taken for polling); the default busy threshold is scaled by the capacity, so
# those intervals are busy (about 60 %), and without the capacity they are not
cp "$run/samples/rank-0.tsv.gz" "$tmp/rank0.keep"
awk -v t0="$t0" 'BEGIN {
	printf "# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\tstate\tutime_ticks\tstime_ticks\trun_ns\twait_ns\tvcsw\tivcsw\n"
	run = 0; ut = 0
	for (i = 0; i <= 100; i++) {
		if (i > 0 && (i % 5) < 3) { run += 8000000; ut += 1 }	# computing: user time
		printf "%.0f\t%.0f\t100\t100\tR\t%d\t0\t%d\t0\t0\t0\n", 1000000000 + i * 20000000, t0 - 500000000 + i * 20000000, ut, run
	}
}' | gzip >"$run/samples/rank-0.tsv.gz"
busy0() { awk -F'\t' 'NR > 2 && $1 == 0 { print $4 + $5 }' "$1/profile/ranks.tsv"; }
cp "$run/meta/rank-0.tsv" "$tmp/meta0.keep"
printf 'cpu_capacity\t0.500\n' >>"$run/meta/rank-0.tsv"
"$CONTEND" parse -q --force --mpi generic "$run" >/dev/null 2>&1
with=$(busy0 "$run")
cp "$tmp/meta0.keep" "$run/meta/rank-0.tsv"
"$CONTEND" parse -q --force --mpi generic "$run" >/dev/null 2>&1
without=$(busy0 "$run")
if awk -v a="$with" -v b="$without" 'BEGIN { exit !(a > 55 && a < 65 && b < 5) }'; then
	ok busy-scaled-by-capacity
else
	ko busy-scaled-by-capacity "busy % of rank 0: $with with cpu_capacity 0.5, $without without (expected ~60 and ~0)"
fi
cp "$tmp/rank0.keep" "$run/samples/rank-0.tsv.gz"
"$CONTEND" parse -q --force --mpi generic "$run" >/dev/null 2>&1

# 3. an existing profile is kept unless --force
if "$CONTEND" parse -q "$run" >/dev/null 2>"$tmp/err"; then ko no-force "overwrote without --force"; else ok no-force; fi

# 4. a samples file cut short, another missing: exit 1, the rest still written
head -c 300 "$run/samples/rank-1.tsv.gz" >"$tmp/cut.gz" && mv "$tmp/cut.gz" "$run/samples/rank-1.tsv.gz"
rm "$run/samples/rank-2.tsv.gz"
rm -rf "$run/profile"
"$CONTEND" parse -q "$run" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && ok damaged-exit || ko damaged-exit "exit $rc"
grep -q "rank-1" "$tmp/err" && ok damaged-message || ko damaged-message "$(cat "$tmp/err")"
[ -s "$run/profile/ranks.tsv" ] && [ -s "$run/profile/messages.tsv" ] && ok damaged-written || ko damaged-written "outputs missing"

# 5. no samples at all, no captures at all
rm -rf "$run/samples" "$run/profile"
"$CONTEND" parse -q "$run" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "no samples" "$tmp/err" && ok no-samples || ko no-samples "$(cat "$tmp/err")"
rm -rf "$run/capture" "$run/profile"
"$CONTEND" parse -q "$run" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "no captures" "$tmp/err" && [ -s "$run/profile/stats.tsv" ] && ok no-captures || ko no-captures "$(cat "$tmp/err")"
