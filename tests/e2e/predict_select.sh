#!/bin/sh
# predict --select and the paper 001, 002, 004 models end to end: hand-built master/slave and
# stencil runs, then every recorded run in traces/ (parsed first when it has no profile).
# Prints PASS/FAIL/SKIP lines.
set -u
: "${CONTEND:?}" "${TOP:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS e2e/predict_select/$1"; }
fail() { echo "FAIL e2e/predict_select/$1: $2"; }

# master/slave: rank 0 hands 100-byte tasks to ranks 1-3 (10 ms each), 900-byte results
gen_ms() {
	mkdir -p "$1/profile"
	awk -v dir="$1/profile" '
BEGIN {
	OFS = "\t"; OFMT = "%.0f"; CONVFMT = "%.0f"; base = 1000000000000; ms = 1000000
	S = 3; N = 50; Ts = 10 * ms; Tm = 1 * ms; per = 12 * ms
	msgf = dir "/messages.tsv"; phf = dir "/phases.tsv"; rf = dir "/ranks.tsv"; lf = dir "/links.tsv"
	print "# contend-messages 1" > msgf
	print "t_first_ns", "t_last_ns", "src", "dst", "cid", "comm_src", "tag", "tag_name", "bytes", "wire_bytes", "mpi", "proto", "ranksrc", "flags", "conn" > msgf
	print "# contend-phases 1" > phf
	print "rank", "kind", "t_start_ns", "t_end_ns", "run_ns", "wait_ns" > phf
	for (s = 1; s <= S; s++)
		for (k = 0; k < N; k++) {
			t = base + k * per + (s - 1) * 3 * ms
			print t, t, 0, s, 0, 0, 1, "-", 100, 166, "ompi", "eager", "handshake", "-", s > msgf
			print s, "busy", t + 0.1 * ms, t + 0.1 * ms + Ts, Ts, 0 > phf
			r = t + 0.2 * ms + Ts
			print r, r, s, 0, 0, s, 2, "-", 900, 966, "ompi", "eager", "handshake", "-", s > msgf
			print 0, "busy", r + 0.05 * ms, r + 0.05 * ms + Tm, Tm, 0 > phf
			if (k == N - 1) print r + 2 * ms, r + 2 * ms, 0, s, 0, 0, 3, "-", 8, 74, "ompi", "eager", "handshake", "-", s > msgf
		}
	print "# contend-ranks 1" > rf
	print "rank", "host", "exec_ns", "comp_pct", "comm_pct", "idle_pct", "avg_busy_ns", "avg_idle_ns", "n_busy", "n_idle", "cpu_pct", "run_ns", "wait_ns", "msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv" > rf
	for (s = 0; s <= S; s++)
		print s, "ws" (s + 1), 1000000000, 80, 5, 15, 10000000, 2000000, N, N, 85, 800000000, 0, N, 900 * N, N, 100 * N > rf
	print "# contend-links 1" > lf
	print "src", "dst", "msgs", "bytes", "avg_bytes", "active_ns", "t_first_ns", "t_last_ns" > lf
	for (s = 1; s <= S; s++) {
		print 0, s, N + 1, 100 * N + 8, sprintf("%.6f", (100 * N + 8) / (N + 1)), 0, base, base + 1000000000 > lf
		print s, 0, N, 900 * N, 900, 0, base, base + 1000000000 > lf
	}
}
'
}
# stencil: 4 ranks, 40 iterations of 8 ms busy, a message to each ring neighbour
gen_st() {
	mkdir -p "$1/profile"
	awk -v dir="$1/profile" '
BEGIN {
	OFS = "\t"; OFMT = "%.0f"; CONVFMT = "%.0f"; base = 2000000000000; ms = 1000000
	P = 4; N = 40; B = 8 * ms; per = 10 * ms
	msgf = dir "/messages.tsv"; phf = dir "/phases.tsv"; rf = dir "/ranks.tsv"; lf = dir "/links.tsv"
	print "# contend-messages 1" > msgf
	print "t_first_ns", "t_last_ns", "src", "dst", "cid", "comm_src", "tag", "tag_name", "bytes", "wire_bytes", "mpi", "proto", "ranksrc", "flags", "conn" > msgf
	print "# contend-phases 1" > phf
	print "rank", "kind", "t_start_ns", "t_end_ns", "run_ns", "wait_ns" > phf
	for (k = 0; k < N; k++)
		for (r = 0; r < P; r++) {
			t = base + k * per
			print r, "busy", t, t + B, B, 0 > phf
			print r, "idle", t + B, t + per, 0, 0 > phf
			print t + B + 1000 * r, t + B + 1000 * r, r, (r + 1) % P, 0, r, 5, "-", 4000, 4066, "ompi", "eager", "handshake", "-", r > msgf
			print t + B + 1000 * r + 500, t + B + 1000 * r + 500, r, (r + P - 1) % P, 0, r, 5, "-", 4000, 4066, "ompi", "eager", "handshake", "-", r > msgf
		}
	print "# contend-ranks 1" > rf
	print "rank", "host", "exec_ns", "comp_pct", "comm_pct", "idle_pct", "avg_busy_ns", "avg_idle_ns", "n_busy", "n_idle", "cpu_pct", "run_ns", "wait_ns", "msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv" > rf
	for (r = 0; r < P; r++)
		print r, "ws" (r + 1), N * per + 100 * ms, 80, 0, 20, B, per - B, N, N, 80, N * B, 0, 2 * N, 8000 * N, 2 * N, 8000 * N > rf
	print "# contend-links 1" > lf
	print "src", "dst", "msgs", "bytes", "avg_bytes", "active_ns", "t_first_ns", "t_last_ns" > lf
	for (r = 0; r < P; r++) {
		print r, (r + 1) % P, N, 4000 * N, 4000, 0, base, base + N * per > lf
		print r, (r + P - 1) % P, N, 4000 * N, 4000, 0, base, base + N * per > lf
	}
	print "# contend-netparams 1" > (dir "/netparams.tsv")
	print "key", "value" > (dir "/netparams.tsv")
	print "lat_ns", 50000 > (dir "/netparams.tsv")
	print "bw_Bps", 12500000 > (dir "/netparams.tsv")
}
'
}

gen_ms "$T/ms"
gen_st "$T/st"
cat >"$T/load.ini" <<'X'
[node ws3]
cpu_procs = 1
[node ws2]
lambda = 0.5 /s
service_mean = 1 s
X
# the CPU part alone: background arrivals are p004's only (the others refuse them)
cat >"$T/cpu.ini" <<'X'
[node ws3]
cpu_procs = 1
X
cat >"$T/pool.ini" <<'X'
[node ws2]
cpu_procs = 3
[node ws3]
cpu_procs = 3
[node ws1]
cost = 1
[node ws4]
cost = 1
[policy]
x = 0.001
budget = 1
X

out=$("$CONTEND" predict "$T/ms" --scenario "$T/load.ini" 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^p001 (paper 001): does not apply: the scenario changes background arrivals on a node, which p001 does not model' &&
   printf '%s\n' "$out" | grep -q '^answer: [0-9.]* s .*(p004, '; then
	pass background-is-p004s
else
	fail background-is-p004s "exit $rc: $(printf '%s\n' "$out" | grep '^answer\|^p00[14]')"
fi
out=$("$CONTEND" predict "$T/ms" --scenario "$T/cpu.ini" 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^p001 (paper 001): [0-9.]* s' &&
   printf '%s\n' "$out" | grep -q 'T_SlaveCPU 10.000 ms, T_MasterCPU 1.000 ms' &&
   printf '%s\n' "$out" | grep -q 'rate   master ws1 .* 250 ' &&
   printf '%s\n' "$out" | grep -q '^p002 (paper 002): ' && printf '%s\n' "$out" | grep -q '^p004 (paper 004): ' &&
   awk -F'\t' '$1=="p001" && $3=="total" && $5 > 945800000 {ok=1} END {exit !ok}' "$T/ms/predict/cpu.tsv" &&
   awk -F'\t' '$1=="p001" && $3=="util" && $5=="-" {ok=1} END {exit !ok}' "$T/ms/predict/cpu.tsv"; then
	pass master-slave
else
	fail master-slave "exit $rc: $out"
fi

out=$("$CONTEND" predict "$T/st" --scenario "$T/cpu.ini" 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^p001 (paper 001): does not apply: no master/slave pattern' &&
   printf '%s\n' "$out" | grep -q 'iterations .* I 40 ' &&
   printf '%s\n' "$out" | grep -q 'P_deg .* 3.2 '; then
	pass stencil
else
	fail stencil "exit $rc: $out"
fi

out=$("$CONTEND" predict --select "$T/ms" --model p001 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^  master ws1 ' && [ "$(printf '%s\n' "$out" | grep -c '^  slave ')" -eq 3 ] &&
   [ -s "$T/ms/predict/select-all.tsv" ]; then
	pass select-master
else
	fail select-master "exit $rc: $out"
fi

out=$("$CONTEND" predict --select "$T/st" --scenario "$T/pool.ini" --policy cost 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q 'policy cost: {ws2,ws3}, P = 2, predicted 2.740 s' &&
   printf '%s\n' "$out" | grep -q '^p001 (paper 001): ' && printf '%s\n' "$out" | grep -q 'does not apply: no master/slave'; then
	pass select-cost
else
	fail select-cost "exit $rc: $out"
fi

"$CONTEND" predict --select "$T/st" --policy fastest >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass usage-bad-policy || fail usage-bad-policy "exit $rc"
"$CONTEND" predict "$T/st" --scenario "$T/pool.ini" --policy cost >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass usage-policy-without-select || fail usage-policy-without-select "exit $rc"

# recorded runs
n=0
for run in "$TOP"/traces/*/; do
	[ -d "$run/meta" ] || [ -d "$run/profile" ] || continue
	run=${run%/}
	name=$(basename "$run")
	n=$((n + 1))
	if [ ! -s "$run/profile/ranks.tsv" ]; then
		cp -r "$run" "$T/$name" && run=$T/$name
		if ! "$CONTEND" parse "$run" >"$T/parse.out" 2>&1; then
			[ -s "$run/profile/ranks.tsv" ] || { fail "trace-$name" "parse failed: $(tail -n 2 "$T/parse.out")"; continue; }
		fi
	fi
	# load.ini on the run's own hosts (a scenario naming hosts it lacks predicts nothing)
	h2=$(awk -F'\t' '!/^#/ && NR > 2 { print $2 }' "$run/profile/ranks.tsv" | sort -u | sed -n 2p)
	h3=$(awk -F'\t' '!/^#/ && NR > 2 { print $2 }' "$run/profile/ranks.tsv" | sort -u | sed -n 3p)
	sed "s/^\[node ws3\]/[node ${h3:-$h2}]/; s/^\[node ws2\]/[node $h2]/" "$T/load.ini" >"$T/load-$name.ini"
	out=$("$CONTEND" predict "$run" --scenario "$T/load-$name.ini" 2>&1); rc=$?
	ok=1
	for m in p001 p002 p004; do
		printf '%s\n' "$out" | grep -q "^$m (paper " || ok=0
	done
	sel=$("$CONTEND" predict --select "$run" 2>&1); src=$?
	if [ $rc -le 1 ] && [ $src -le 1 ] && [ $ok -eq 1 ] && printf '%s\n' "$sel" | grep -q '^p004 (paper 004): '; then
		pass "trace-$name"
	else
		fail "trace-$name" "predict exit $rc, select exit $src: $(printf '%s\n' "$out" "$sel" | grep -i 'error\|contend:' | head -n 3)"
	fi
done
[ $n -gt 0 ] || echo "SKIP e2e/predict_select/traces: no recorded runs in traces/"
exit 0
