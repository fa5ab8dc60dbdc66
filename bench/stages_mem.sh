#!/bin/sh
# bench/stages_mem.sh: peak memory and time of every stage on generated runs. For each
# size "RANKS:SECONDS[:ITER_MS]" a run is generated with `parse_gen -R` (RANKS ranks on
# RANKS/4 nodes, halo pattern, Open MPI framing, an exchange every ITER_MS, default 10:
# halve it for twice the messages with the same phases) and taken through the stages, each under
# /usr/bin/time -v (maximum resident set size, wall time):
#   parse-j1, parse-jN   contend parse -j 1 / -j JOBS RUN
#   predict-p000         contend predict RUN --scenario S --model p000 (aggregates only)
#   predict-replay       contend predict RUN --scenario S --model replay (the trace)
#   predict              contend predict RUN --scenario S (every model)
#   explain              contend explain RUN
#   report               contend report RUN
# with S one CPU-bound competitor on the first node. Prints one row per size and stage:
# ranks, messages, stage, seconds, peak MB, exit status.
#
#   make bench && sh bench/stages_mem.sh    # 256:80, 256:80:5, 1024:20, 1024:40 (1 or 2 M msgs)
#   SIZES="16:2" sh bench/stages_mem.sh                 # the plumbing
#
# Environment: SIZES, JOBS (the CPUs), STAGES (the list above), WORK (scratch directory,
# default a fresh one in /tmp, removed), BUILD (build).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
BUILD=${BUILD:-build}
CONTEND=$TOP/$BUILD/contend
GEN=$TOP/$BUILD/bench/parse_gen
SIZES=${SIZES:-256:80 256:80:5 1024:20 1024:40}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
STAGES=${STAGES:-parse-j1 parse-jN predict-p000 predict-replay predict explain report}
TIME=/usr/bin/time

[ -x "$CONTEND" ] && [ -x "$GEN" ] || { echo "bench/stages_mem: make bench first" >&2; exit 2; }
[ -x "$TIME" ] || { echo "bench/stages_mem: needs $TIME (Debian package time)" >&2; exit 2; }
bench_workdir stages
printf '[scenario]\ndescription = one CPU-bound competitor on gn0\n[node gn0]\ncpu_procs = 1\n' >"$W/load.ini"

printf '%6s %7s %9s %-15s %8s %8s %4s\n' ranks seconds msgs stage wall_s peak_MB exit
for size in $SIZES; do
	n=${size%%:*}
	secs=${size#*:}
	iter=10
	case $secs in *:*) iter=${secs#*:}; secs=${secs%%:*} ;; esac
	nodes=$n
	[ "$n" -gt 16 ] && nodes=$((n / 4))
	R=$W/run-$n
	rm -rf "$R"
	"$GEN" -R "$R" -n "$n" -N "$nodes" -p halo -t "$secs" -i "$iter" >/dev/null || {
		echo "bench/stages_mem: parse_gen failed at $n ranks" >&2; exit 1; }
	msgs=-
	for s in $STAGES; do
		case $s in
		parse-j1) set -- parse -q --force -j 1 "$R" ;;
		parse-jN) set -- parse -q --force -j "$JOBS" "$R" ;;
		predict-p000) set -- predict "$R" --scenario "$W/load.ini" --model p000 ;;
		predict-replay) set -- predict "$R" --scenario "$W/load.ini" --model replay ;;
		predict) set -- predict "$R" --scenario "$W/load.ini" ;;
		explain) set -- explain "$R" ;;
		report) set -- report -q "$R" ;;
		*) echo "bench/stages_mem: no stage '$s'" >&2; exit 2 ;;
		esac
		$TIME -v -o "$W/t.out" "$CONTEND" "$@" >"$W/out" 2>"$W/err"
		rc=$?
		[ "$msgs" = - ] && [ -f "$R/profile/messages.tsv" ] &&
			msgs=$(($(grep -vc '^#' "$R/profile/messages.tsv") - 1))
		awk -v n="$n" -v d="$secs" -v m="$msgs" -v s="$s" -v rc="$rc" '
			/Maximum resident set size/ { kb = $NF }
			/Elapsed \(wall clock\)/ { k = split($NF, t, ":"); w = 0
				for (i = 1; i <= k; i++) w = w * 60 + t[i] }
			END { printf "%6s %7s %9s %-15s %8.2f %8.1f %4s\n", n, d, m, s, w, kb / 1024, rc }' "$W/t.out"
	done
	rm -rf "$R"
done
