#!/bin/sh
# bench/scale_real.sh: a real 32-rank run on the testbed against the generated run of the
# same shape. The testbed comes up with 4 workstations; each case runs one of the
# project's workloads with NP ranks (NP/4 per workstation, placed round-robin) under
# `contend collect`, Open MPI:
#   halo-tcp   stencil (halo exchange with both row neighbours), --tcp: every message on
#              the wire, between ranks of one workstation on loopback
#   halo-shm   the same, Open MPI's defaults: shared memory within a workstation
#   a2a-tcp    alltoall -a (every rank to every other, nonblocking, per iteration), --tcp
#   a2a-shm    the same with the defaults
# Each real run is parsed, then `bench/parse_gen -R` writes a run of the same shape (ranks,
# workstations, round-robin placement, pattern, message size, messages per pair, the run's
# duration, the barriers around the timed part; -T for the --tcp cases) and both go through the stages, each under
# /usr/bin/time -v (wall seconds, peak RSS): parse -j 1, parse -j JOBS, predict (one
# CPU-bound competitor on the first workstation), explain, report. Prints per case the
# stages and what the two runs hold (real | generated): files, packets, connections,
# messages, pairs, messages per pair, samples, phases, how the messages spread in time.
#
#   make && make workloads bench && INSTANCE=44 sh bench/scale_real.sh
#   CASES=halo-tcp ITERS=20 sh bench/scale_real.sh        # the plumbing
#
# A 2-core machine runs 32 polling ranks slowly (each rank gets a few % of a core), so
# the programs do little work (ITERS iterations of CPU ms each). Environment: INSTANCE
# (testbed instance, default 15), CASES (the list above), NP (32), ITERS (halo 100, the
# all-to-all a fifth of it), CPU_MS (1), MSG (4096), JOBS (the CPUs), STAGES (parse-j1
# parse-jN predict explain report), TIMEOUT (seconds per MPI job, 300), WORK (scratch
# directory, default a fresh one in /tmp, removed), KEEP=1 (keep the testbed up), BUILD.
# Exit: 0 done, 1 a run failed, 2 usage or not built, 77 no testbed or no Open MPI.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
BUILD=${BUILD:-build}
CONTEND=$TOP/$BUILD/contend
GEN=$TOP/$BUILD/bench/parse_gen
WL=$TOP/$BUILD/workloads/ompi
INST=${INSTANCE:-15}
CASES=${CASES:-halo-tcp halo-shm a2a-tcp a2a-shm}
NP=${NP:-32}
ITERS=${ITERS:-100}
CPU_MS=${CPU_MS:-1}
MSG=${MSG:-4096}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
STAGES=${STAGES:-parse-j1 parse-jN predict explain report}
TIMEOUT=${TIMEOUT:-300}
TIME=/usr/bin/time
TB="$CONTEND testbed --instance $INST"
NWS=4

[ -x "$CONTEND" ] && [ -x "$GEN" ] && [ -x "$WL/stencil" ] && [ -x "$WL/alltoall" ] ||
	{ echo "bench/scale_real: make && make workloads bench first" >&2; exit 2; }
[ -x "$TIME" ] || { echo "bench/scale_real: needs $TIME (Debian package time)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "skipped: Open MPI's mpirun is not installed"; exit 77; }
$TB check >/dev/null 2>&1 || { echo "skipped: no testbed here: $($TB check 2>&1 | tail -n 1)"; exit 77; }
bench_workdir scale-real
trap 'testbed_release "$INST"; [ -n "${WORK:-}" ] || rm -rf "$W"' EXIT
trap 'exit 1' INT TERM HUP
$TB down >/dev/null 2>&1
$TB up -n $NWS >"$W/up.log" 2>&1 || { echo "bench/scale_real: testbed $INST: $(tail -n 1 "$W/up.log")" >&2; exit 1; }

# stage NAME RUN NODE: run one stage on RUN, append "NAME seconds peak_MB exit" to $W/st
stage() {
	case $1 in
	parse-j1) set -- "$1" parse -q --force -j 1 "$2" ;;
	parse-jN) set -- "$1" parse -q --force -j "$JOBS" "$2" ;;
	predict) printf '[scenario]\ndescription = one CPU-bound competitor\n[node %s]\ncpu_procs = 1\n' "$3" >"$W/load.ini"
		set -- "$1" predict "$2" --scenario "$W/load.ini" ;;
	explain) set -- "$1" explain "$2" ;;
	report) set -- "$1" report -q "$2" ;;
	*) echo "bench/scale_real: no stage '$1'" >&2; exit 2 ;;
	esac
	name=$1; shift
	$TIME -v -o "$W/t.out" "$CONTEND" "$@" >"$W/stage.out" 2>&1
	rc=$?
	awk -v s="$name" -v rc="$rc" '
		/Maximum resident set size/ { kb = $NF }
		/Elapsed \(wall clock\)/ { k = split($NF, t, ":"); w = 0
			for (i = 1; i <= k; i++) w = w * 60 + t[i] }
		END { printf "%s %.2f %.1f %s\n", s, w, kb / 1024, rc }' "$W/t.out" >>"$W/st"
}

# stat RUN KEY: a value of RUN's profile/stats.tsv (0 when missing)
stat() { awk -F'\t' -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$1/profile/stats.tsv"; }

# shape RUN TAGS: what RUN holds, one "key value" a line. TAGS: a regular expression
# matching the workload's own tags (its messages give the pairs and the timing).
shape() {
	r=$1 p=$r/profile
	echo "capture_MB $(du -sk "$r/capture" | awk '{ printf "%.2f", $1 / 1024 }')"
	echo "samples_MB $(du -sk "$r/samples" | awk '{ printf "%.2f", $1 / 1024 }')"
	echo "profile_MB $(du -sk "$p" | awk '{ printf "%.2f", $1 / 1024 }')"
	echo "duration_s $(awk -F'\t' '$1 == "start_real_ns" { a = $2 } $1 == "end_real_ns" { b = $2 }
		END { printf "%.2f", (b - a) / 1e9 }' "$r/meta/run.tsv")"
	for k in packets streams streams_midstream ompi_streams non_mpi_streams retransmissions \
		msgs_unknown_rank samples_polling; do
		echo "$k $(stat "$r" "$k")"
	done
	echo "conns_none $(awk -F'\t' 'NR > 2 && $2 == "none"' "$p/conns.tsv" | wc -l)"
	echo "samples_rows $(for f in "$r"/samples/rank-*.tsv.gz; do zcat "$f"; done | grep -vc -e '^#' -e '^t_mono_ns')"
	echo "samples_missed $(meta_sum samples_missed "$r"/meta/rank-*.tsv)"
	echo "phases_rows $(grep -vc '^#' "$p/phases.tsv" | awk '{ print $1 - 1 }')"
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ { print $11 }' "$p/ranks.tsv" |
		awk '{ s += $1; n++ } END { printf "cpu_pct_mean %.1f\n", n ? s / n : 0 }'
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ { print $6 }' "$p/ranks.tsv" |
		awk '{ s += $1; n++ } END { printf "idle_pct_mean %.1f\n", n ? s / n : 0 }'
	echo "messages $(grep -vc '^#' "$p/messages.tsv" | awk '{ print $1 - 1 }')"
	# the workload's messages: pairs, per pair, and their spread in time (the span from the
	# first to the last, the share of 10 ms windows in it holding one, the median gap
	# between one message and the next in microseconds)
	awk -F'\t' -v tag="$2" 'NR > 2 && $1 !~ /^#/ && $3 >= 0 && $4 >= 0 && $7 ~ tag {
			n[$3 " " $4]++; m++; t[m] = $1; b += $9 }
		END {
			for (k in n) { p++; c = n[k]; if (!lo || c < lo) lo = c; if (c > hi) hi = c }
			printf "msgs_workload %d\npairs %d\nper_pair_min %d\nper_pair_max %d\nmsg_bytes_mean %.0f\n",
				m, p, lo, hi, m ? b / m : 0
		}' "$p/messages.tsv"
	awk -F'\t' -v tag="$2" 'NR > 2 && $1 !~ /^#/ && $3 >= 0 && $4 >= 0 && $7 ~ tag { print $1 }' \
		"$p/messages.tsv" | sort -n >"$W/times"
	awk 'NR == 1 { a = $1 } { w[int(($1 - a) / 1e7)] = 1; b = $1 }
		END { for (k in w) nw++; span = b - a
			printf "span_s %.2f\nwindows_pct %.1f\n", span / 1e9, NR ? 100 * nw / (span / 1e7 + 1) : 0 }' "$W/times"
	awk 'NR > 1 { print $1 - p } { p = $1 }' "$W/times" | median | awk '{ printf "gap_med_us %.1f\n", $1 / 1e3 }'
	echo "coverage $(awk -F'\t' '$1 == "coverage" { print $2 }' "$p/stats.tsv")"
}

fail=0
for c in $CASES; do
	case $c in
	halo-*) prog=stencil pat=halo tag='^[01]$' it=$ITERS
		set -- "$WL/stencil" -n 512 -i "$it" -c "$CPU_MS" -m "$MSG" -q ;;
	a2a-*) prog=alltoall pat=alltoall tag='^5$' it=$((ITERS / 5))
		[ "$it" -ge 1 ] || it=1
		set -- "$WL/alltoall" -a -i "$it" -c "$CPU_MS" -m "$MSG" -q ;;
	*) echo "bench/scale_real: no case '$c'" >&2; exit 2 ;;
	esac
	case $c in *-tcp) tcp=--tcp T=-T ;; *-shm) tcp="" T="" ;; *) echo "bench/scale_real: no case '$c'" >&2; exit 2 ;; esac
	R=$W/real-$c G=$W/gen-$c
	rm -rf "$R" "$G"
	# shellcheck disable=SC2086
	timeout -k 5 "$TIMEOUT" $TB mpirun $tcp -np "$NP" -- "$CONTEND" collect -q -o "$R" -- "$@" >"$W/$c.out" 2>&1
	rc=$?
	wall=$(awk '$1 == "wall_s" { printf "%.2f", $2 }' "$W/$c.out")
	if [ $rc -ne 0 ] || [ -z "$wall" ]; then
		echo "bench/scale_real: $c: the MPI job failed (exit $rc): $(tail -n 2 "$W/$c.out" | tr '\n' ' ')" >&2
		fail=1; continue
	fi
	: >"$W/st"
	for s in $STAGES; do stage "$s" "$R" "c${INST}ws1"; done
	mv "$W/st" "$W/st-real"
	[ -f "$R/profile/messages.tsv" ] || "$CONTEND" parse -q --force "$R" >/dev/null 2>&1
	shape "$R" "$tag" >"$W/sh-real"
	# the same shape: messages per pair from the real run, spread over its duration
	dur=$(awk '$1 == "duration_s" { print $2 }' "$W/sh-real")
	per=$(awk '$1 == "per_pair_max" { print $2 }' "$W/sh-real")
	[ "$per" -ge 1 ] || per=$it
	iter=$(awk -v d="$dur" -v n="$per" 'BEGIN { printf "%.3f", (d - 0.1) * 1000 / (n - 0.5) }')
	# shellcheck disable=SC2086
	"$GEN" -R "$G" -n "$NP" -N $NWS -P cyclic -B $T -p "$pat" -t "$dur" -i "$iter" -m "$MSG" >"$W/gen.out" ||
		{ echo "bench/scale_real: parse_gen failed for $c" >&2; exit 1; }
	: >"$W/st"
	for s in $STAGES; do stage "$s" "$G" gn0; done
	mv "$W/st" "$W/st-gen"
	[ -f "$G/profile/messages.tsv" ] || "$CONTEND" parse -q --force "$G" >/dev/null 2>&1
	shape "$G" '^1[0-9][0-9]$' >"$W/sh-gen"

	echo "== $c: $prog, $NP ranks on $NWS workstations${tcp:+ ($tcp)}, $it iterations, -m $MSG; the job's own time ${wall} s"
	echo "   generated: parse_gen -R RUN -n $NP -N $NWS -P cyclic -B $T -p $pat -t $dur -i $iter -m $MSG"
	printf '%-16s %10s %10s   %10s %10s\n' stage real_s gen_s real_MB gen_MB
	awk 'NR == FNR { g[$1] = $0; next } { split(g[$1], x)
		printf "%-16s %10.2f %10.2f   %10.1f %10.1f%s\n", $1, $2, x[2], $3, x[3],
			($4 != 0 || x[4] != 0) ? "   exit " $4 "/" x[4] : "" }' "$W/st-gen" "$W/st-real"
	printf '%-16s %10s %10s\n' what real gen
	awk 'NR == FNR { g[$1] = $2; next } { printf "%-16s %10s %10s\n", $1, $2, g[$1] }' "$W/sh-gen" "$W/sh-real"
	echo
	[ -n "${WORK:-}" ] || rm -rf "$R" "$G"
done
exit $fail
