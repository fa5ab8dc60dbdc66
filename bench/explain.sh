#!/bin/sh
# bench/explain.sh: does `contend explain` name causes it was not told of, at what they cost?
# Third-party MPI programs (bench/realapps) are run on the testbed dedicated and with a
# known cause injected on one workstation (ws2: a CPU-bound competitor, a capped link, or
# both); each loaded run is explained against the dedicated run of the same round. Per
# case, one line: whether the injected cause is ranked first (both causes the top two when
# two were injected), the cost explain attributed to it, and the measured cost: the loaded
# run's time minus the dedicated one's (run.sh's wall_s: for MPICH up to the program's last
# line, so a run whose MPI_Finalize hung does not count longer; explain itself reads the
# ranks' exec times, and sees such a hang as the dedicated run's finish).
#
# Usage: sh bench/explain.sh [OPTIONS]
#   --progs 'P...'      programs (default: lammps lu qr; see bench/realapps/run.sh --list)
#   --mpis 'M...'       ompi mpich (default both; a program built for one MPI skips the other)
#   --scenarios 'S...'  cpu1 link both (default all three)
#   --rounds N          rounds of every case (default 3)
#   --small             realapps' short inputs (a plumbing check, not a measurement)
#   --out DIR           keep the runs and write DIR/explain.tsv (default: a temporary
#                       directory, removed at the end)
#   --reuse             with --out: run nothing, explain the runs an earlier --out kept
#                       there again (after a change to explain; the times are the runs')
# Environment: INSTANCE (the testbed instance, default 15), LINK (the link scenarios' cap,
# default 20mbit), and the rest of bench/realapps/run.sh's.
# Exit: 0 every case ran, 1 a run or explain failed, 2 usage, 77 no testbed or package.
#
# A timing benchmark: run it on a quiet machine. The full form:
#   INSTANCE=15 sh bench/explain.sh --out bench/results/explain
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
RUNSH=$TOP/bench/realapps/run.sh
PROGS="lammps lu qr" MPIS="ompi mpich" SCENS="cpu1 link both" ROUNDS=3 SMALL="" OUT="" REUSE=0
export LINK="${LINK:-20mbit}"
LOADED=${LOADED:-2}
export LOADED

usage() { sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--progs) [ $# -ge 2 ] || usage; PROGS=$2; shift ;;
	--mpis) [ $# -ge 2 ] || usage; MPIS=$2; shift ;;
	--scenarios) [ $# -ge 2 ] || usage; SCENS=$2; shift ;;
	--rounds) [ $# -ge 2 ] || usage; ROUNDS=$2; shift ;;
	--small) SMALL=--small ;;
	--out) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
	--reuse) REUSE=1 ;;
	*) usage ;;
	esac
	shift
done
case $ROUNDS in '' | *[!0-9]*) usage ;; esac
[ $REUSE -eq 0 ] || [ -n "$OUT" ] || { echo "explain bench: --reuse needs --out DIR" >&2; exit 2; }
for s in $SCENS; do case $s in cpu1 | link | both) ;; *) echo "explain bench: unknown scenario '$s'" >&2; exit 2 ;; esac; done
[ -x "$CONTEND" ] || { echo "explain bench: no $CONTEND (make)" >&2; exit 1; }
if [ -n "$OUT" ]; then
	mkdir -p "$OUT" && W=$(cd "$OUT" && pwd) || exit 1
else
	W=$(mktemp -d "${TMPDIR:-/tmp}/contend-explain.XXXXXX") || exit 1
	trap 'rm -rf "$W"' EXIT
fi
trap 'exit 1' INT TERM HUP
INST=${INSTANCE:-15}
WS=c${INST}ws$LOADED

# record NAME PROG MPI SCEN: one collected and parsed run in $W/NAME; 0, or 1 (77 a skip)
record() {
	if [ $REUSE -eq 1 ]; then	# a kept run, as recorded and parsed
		[ -s "$W/$1/profile/ranks.tsv" ] && [ -s "$W/$1.run" ]
		return
	fi
	sh "$RUNSH" "$2" 4x1 "$3" --scenario "$4" --collect '' --run "$W/$1" $SMALL >"$W/$1.run" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 77 ] && cat "$W/$1.run"; return $rc; }
	"$CONTEND" parse "$W/$1" >"$W/$1.parse" 2>&1
	[ -s "$W/$1/profile/ranks.tsv" ]
}

# verdict FILE SCEN: from an explain.tsv, the first two causes, whether the injected ones
# lead, and the cost explain put on the injected causes (the sum of their rows), s
verdict() {
	awk -F'\t' -v scen="$2" -v ws="$WS" '
		function injected(k, h, h2) {
			if ((scen == "cpu1" || scen == "both") && k == "cpu" && h == ws) return 1
			if ((scen == "link" || scen == "both") && k == "link" && (h == ws || h2 == ws)) return 1
			return 0
		}
		$1 == "measured" { T = $6 }
		$1 ~ /^(cpu|link|imbalance|startup|finish)$/ {
			n++
			if (n <= 2) { top[n] = $1 "@" ($4 == "-" ? $3 : $3 "-" $4); inj[n] = injected($1, $3, $4) }
			if (injected($1, $3, $4)) cost += $6
		}
		END {
			want = scen == "both" ? 2 : 1
			ok = inj[1] && (want == 1 || inj[2])
			printf "%s\t%s\t%s\t%.3f\t%.3f\n", top[1] == "" ? "-" : top[1], top[2] == "" ? "-" : top[2],
				ok ? "yes" : "no", cost / 1e9, T / 1e9
		}' "$1"
}

# wall FILE: the wall_s of a run.sh line
wall() { sed -n 's/.* wall_s=\([0-9.]*\) .*/\1/p' "$1" | tail -n 1; }

TSV=$W/explain.tsv
printf 'prog\tmpi\tscenario\tround\tfirst\tsecond\tinjected_first\tattributed_s\tmeasured_s\tloaded_s\tdedicated_s\texec_s\n' >"$TSV"
printf '%-7s %-6s %-9s %5s  %-22s %-22s %6s %12s %10s\n' prog mpi scenario round first second "first?" "attributed s" "measured s"
fails=0
for prog in $PROGS; do
	for mpi in $MPIS; do
		case $prog:$mpi in lammps:mpich | mpb:mpich | fel:mpich | garli:mpich) continue ;; esac
		r=1
		while [ "$r" -le "$ROUNDS" ]; do
			base=$prog-$mpi-none-$r
			record "$base" "$prog" "$mpi" none
			rc=$?
			[ $rc -eq 77 ] && exit 77
			if [ $rc -ne 0 ]; then
				echo "explain bench: $base failed: $(tail -n 2 "$W/$base.run" "$W/$base.parse" 2>/dev/null | tr '\n' ' ')" >&2
				fails=$((fails + 1)); r=$((r + 1)); continue
			fi
			ded=$(wall "$W/$base.run")
			for scen in $SCENS; do
				run=$prog-$mpi-$scen-$r
				if ! record "$run" "$prog" "$mpi" "$scen"; then
					echo "explain bench: $run failed: $(tail -n 2 "$W/$run.run" "$W/$run.parse" 2>/dev/null | tr '\n' ' ')" >&2
					fails=$((fails + 1)); continue
				fi
				if ! "$CONTEND" explain "$W/$run" --baseline "$W/$base" >"$W/$run.explain" 2>&1; then
					echo "explain bench: explain $run: $(tail -n 1 "$W/$run.explain")" >&2
					fails=$((fails + 1)); continue
				fi
				v=$(verdict "$W/$run/explain.tsv" "$scen")
				set -- $v
				loaded=$(wall "$W/$run.run")
				meas=$(awk -v a="$loaded" -v b="$ded" 'BEGIN { printf "%.3f", a - b }')
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$prog" "$mpi" "$scen" "$r" "$1" "$2" "$3" "$4" "$meas" "$loaded" "$ded" "$5" >>"$TSV"
				printf '%-7s %-6s %-9s %5s  %-22s %-22s %6s %12s %10s\n' "$prog" "$mpi" "$scen" "$r" "$1" "$2" "$3" "$4" "$meas"
			done
			r=$((r + 1))
		done
	done
done
[ $REUSE -eq 1 ] || "$CONTEND" testbed --instance "$INST" down >/dev/null 2>&1
awk -F'\t' 'NR > 1 { n++; ok += $7 == "yes"; if ($9 > 0) { s += $8 / $9; m++ } }
	END { if (n) printf "%d of %d cases with the injected cause first; attributed/measured cost %.2f (mean over %d)\n",
		ok, n, m ? s / m : 0, m }' "$TSV"
[ -n "$OUT" ] && echo "results: $TSV"
[ $fails -eq 0 ] || exit 1
exit 0
