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
#   --scenarios 'S...'  cpu1 link both none (default all four; none explains each dedicated
#                       run against the next round's, or alone with one round)
#   --rounds N          rounds of every case (default 3)
#   --layout L          4x1 (default: 4 workstations at half a core each, two of them on
#                       each core) or 2x1 (2 workstations, a whole core each, no quota:
#                       PCT defaults to 100 and LINK to 100mbit, bench/realapps' link
#                       cap: 20 Mbit/s would take LAMMPS' 2x1 input over a minute)
#   --small             realapps' short inputs (a plumbing check, not a measurement)
#   --out DIR           keep the runs and write DIR/explain.tsv (default: a temporary
#                       directory, removed at the end)
#   --reuse             with --out: run nothing, explain the runs an earlier --out kept
#                       there again (after a change to explain; the times are the runs')
#   --from DIR          run nothing, explain the runs an earlier --out kept in DIR again
#                       without writing there: each is explained in a copy made of links
#                       under --out DIR2 (or a temporary directory); the cases are those
#                       of the options, those DIR lacks are skipped
#   --summary TSV       run nothing: print the targets' counts of an explain.tsv this
#                       wrote (the lines it ends with)
# Environment: INSTANCE (the testbed instance, default 15), LINK (the link scenarios' cap,
# default 20mbit; 100mbit on 2x1), and the rest of bench/realapps/run.sh's.
# Exit: 0 every case ran, 1 a run or explain failed, 2 usage, 77 no testbed or package.
#
# A timing benchmark: run it on a quiet machine. The full form:
#   INSTANCE=15 sh bench/explain.sh --out bench/results/explain
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/${BUILD:-build}
CONTEND=${CONTEND:-$B/contend}
RUNSH=$TOP/bench/realapps/run.sh
PROGS="lammps lu qr" MPIS="ompi mpich" SCENS="cpu1 link both none" ROUNDS=3 SMALL="" OUT="" REUSE=0 FROM="" LAYOUT=4x1 SUMMARY=""
LINK_SET=${LINK:-}
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
	--layout) [ $# -ge 2 ] || usage; LAYOUT=$2; shift ;;
	--small) SMALL=--small ;;
	--out) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
	--reuse) REUSE=1 ;;
	--from) [ $# -ge 2 ] || usage; FROM=$2; shift ;;
	--summary) [ $# -ge 2 ] || usage; SUMMARY=$2; shift ;;
	*) usage ;;
	esac
	shift
done
# summarize TSV: the targets' counts. The injected cause first; with none, no cause above
# 5 %; the ideal run within 7 % of the median dedicated exec time of its program (and, as
# its floor, how often the round's own dedicated run is); the baseline and the causes
# within 5 % of the run's exec time.
summarize() {
	awk -F'\t' 'NR > 1 && $3 == "none" { nn++; nok += $7 == "yes" }
	NR > 1 && NF >= 16 { no++; ov[no] = $16 + 0 }
	NR > 1 && $3 != "none" {
		n++; ok += $7 == "yes"; if ($9 >= 0.5) { s += $8 / $9; m++ }
		k = $1 "\t" $2; ideal[n] = $13; key[n] = k; ex[n] = $12; b[n] = $14; c[n] = $15
		if (!((k, $4) in seen)) { seen[k, $4] = 1; d[k, ++nd[k]] = $14 }
	}
	END {
		if (n) printf "%d of %d cases with the injected cause first; attributed/measured cost %.2f (mean over the %d measured at 0.5 s or more)\n",
			ok, n, m ? s / m : 0, m
		if (nn) printf "%d of %d dedicated runs with no cause above 5 %% of the run\n", nok, nn
		if (no) { for (a = 2; a <= no; a++) for (z = a; z > 1 && ov[z - 1] > ov[z]; z--) { t = ov[z]; ov[z] = ov[z - 1]; ov[z - 1] = t }
			printf "collect'"'"'s own start-up beyond the baseline'"'"'s (not ranked among the causes): median %.3f s, %.3f to %.3f s over %d cases\n",
				no % 2 ? ov[(no + 1) / 2] : (ov[no / 2] + ov[no / 2 + 1]) / 2, ov[1], ov[no], no }
		for (i = 1; i <= n; i++) {
			k = key[i]; q = nd[k]
			for (a = 1; a <= q; a++) v[a] = d[k, a]
			for (a = 2; a <= q; a++) for (z = a; z > 1 && v[z - 1] > v[z]; z--) { t = v[z]; v[z] = v[z - 1]; v[z - 1] = t }
			med = q % 2 ? v[(q + 1) / 2] : (v[q / 2] + v[q / 2 + 1]) / 2
			if (med > 0) {
				in7 += (ideal[i] - med < 0 ? med - ideal[i] : ideal[i] - med) <= 0.07 * med; ni++
				own7 += (b[i] - med < 0 ? med - b[i] : b[i] - med) <= 0.07 * med
			}
			e = ex[i] - b[i] - c[i]
			if (ex[i] > 0 && b[i] != "nan") { in5 += (e < 0 ? -e : e) <= 0.05 * ex[i]; ns++ }
		}
		# the floor: what an ideal run equal to the dedicated run of its round would score
		if (ni) printf "%d of %d ideal runs within 7 %% of the median dedicated run (the rounds'"'"' own dedicated runs: %d)\n", in7, ni, own7
		if (ns) printf "%d of %d splits (the baseline and the causes) within 5 %% of the run\n", in5, ns
	}' "$1"
}
if [ -n "$SUMMARY" ]; then
	[ -r "$SUMMARY" ] || { echo "explain bench: cannot read '$SUMMARY'" >&2; exit 1; }
	head -n 1 "$SUMMARY" | grep -q '^prog	mpi	scenario	round	first	' ||
		{ echo "explain bench: '$SUMMARY' is no explain.tsv of this benchmark" >&2; exit 1; }
	summarize "$SUMMARY"
	exit 0
fi
case $ROUNDS in '' | *[!0-9]*) usage ;; esac
case $LAYOUT in
4x1) ;;
2x1) export PCT="${PCT:-100}"; [ -n "${LINK_SET:-}" ] || LINK=100mbit ;;
*) echo "explain bench: layout '$LAYOUT' is not 4x1 or 2x1" >&2; exit 2 ;;
esac
[ $REUSE -eq 0 ] || [ -n "$OUT" ] || { echo "explain bench: --reuse needs --out DIR" >&2; exit 2; }
if [ -n "$FROM" ]; then
	[ $REUSE -eq 0 ] || { echo "explain bench: --from and --reuse exclude each other" >&2; exit 2; }
	[ -d "$FROM" ] && FROM=$(cd "$FROM" && pwd) || { echo "explain bench: no directory '$FROM'" >&2; exit 2; }
fi
for s in $SCENS; do case $s in none | cpu1 | link | both) ;; *) echo "explain bench: unknown scenario '$s'" >&2; exit 2 ;; esac; done
[ -x "$CONTEND" ] || { echo "explain bench: no $CONTEND (make)" >&2; exit 1; }
if [ -n "$OUT" ]; then
	mkdir -p "$OUT" && W=$(cd "$OUT" && pwd) || exit 1
else
	W=$(mktemp -d "${TMPDIR:-/tmp}/contend-explain.XXXXXX") || exit 1
	trap 'rm -rf "$W"' EXIT
fi
trap 'exit 1' INT TERM HUP
INST=${INSTANCE:-15}

# record NAME PROG MPI SCEN: one collected and parsed run in $W/NAME; 0, or 1 (77 a skip)
record() {
	if [ $REUSE -eq 1 ]; then	# a kept run, as recorded and parsed
		[ -s "$W/$1/profile/ranks.tsv" ] && [ -s "$W/$1.run" ]
		return
	fi
	if [ -n "$FROM" ]; then	# a kept run elsewhere: linked, never written to
		[ -s "$FROM/$1/profile/ranks.tsv" ] && [ -s "$FROM/$1.run" ] || return 2
		[ "$FROM" != "$W" ] || { echo "explain bench: --from and --out name one directory" >&2; return 1; }
		rm -rf "${W:?}/$1" && mkdir "$W/$1" || return 1
		for f in "$FROM/$1"/*; do
			case ${f##*/} in explain.tsv) ;; *) ln -s "$f" "$W/$1/" || return 1 ;; esac
		done
		cp "$FROM/$1.run" "$W/$1.run"
		return
	fi
	sh "$RUNSH" "$2" "$LAYOUT" "$3" --scenario "$4" --collect '' --run "$W/$1" $SMALL >"$W/$1.run" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 77 ] && cat "$W/$1.run"; return $rc; }
	"$CONTEND" parse "$W/$1" >"$W/$1.parse" 2>&1
	[ -s "$W/$1/profile/ranks.tsv" ]
}

# verdict FILE SCEN: from an explain.tsv, the first two causes, whether the injected ones
# lead (none: whether no cause reached 5 % of the run), the cost explain put on the injected
# causes (the sum of their rows; none: the largest cause's), the run's exec time, the ideal
# run, the baseline's exec time (NAN without one), the sum of the causes with collect's own
# start-up (explain's observer row: not a cause of the program's, not ranked) and that, s
verdict() {
	awk -F'\t' -v scen="$2" -v ws="^c[0-9]+ws$LOADED\$" '
		function injected(k, h, h2) {
			if ((scen == "cpu1" || scen == "both") && k == "cpu" && h ~ ws) return 1
			if ((scen == "link" || scen == "both") && k == "link" && (h ~ ws || h2 ~ ws)) return 1
			return 0
		}
		BEGIN { B = "nan" }
		$1 == "measured" { T = $6 }
		$1 == "ideal" { I = $6 }
		$1 == "baseline" { B = $6 / 1e9 }
		$1 == "observer" { O = $6; sum += $6 }
		$1 ~ /^(cpu|link|imbalance|startup|finish)$/ {
			n++
			if (n <= 2) { top[n] = $1 "@" ($4 == "-" ? $3 : $3 "-" $4); inj[n] = injected($1, $3, $4) }
			if (injected($1, $3, $4)) cost += $6
			if (n == 1) most = $6
			sum += $6
		}
		END {
			want = scen == "both" ? 2 : 1
			ok = scen == "none" ? most <= 0.05 * T : inj[1] && (want == 1 || inj[2])
			printf "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%.3f\t%.3f\n", top[1] == "" ? "-" : top[1],
				top[2] == "" ? "-" : top[2], ok ? "yes" : "no", (scen == "none" ? most : cost) / 1e9,
				T / 1e9, I / 1e9, B, sum / 1e9, O / 1e9
		}' "$1"
}

# wall FILE: the wall_s of a run.sh line
wall() { sed -n 's/.* wall_s=\([0-9.]*\) .*/\1/p' "$1" | tail -n 1; }

# case PROG MPI SCEN ROUND RUN BASE: explain RUN against BASE (none: alone), one line each
# to the table and the terminal; measured is RUN's wall time less BASE's (none: 0)
case_line() {
	if [ -n "$6" ]; then
		"$CONTEND" explain "$W/$5" --baseline "$W/$6" >"$W/$5.explain" 2>&1
	else
		"$CONTEND" explain "$W/$5" >"$W/$5.explain" 2>&1
	fi || {
		echo "explain bench: explain $5: $(tail -n 1 "$W/$5.explain")" >&2
		fails=$((fails + 1)); return
	}
	v=$(verdict "$W/$5/explain.tsv" "$3")
	loaded=$(wall "$W/$5.run")
	ded=$loaded
	[ -z "$6" ] || ded=$(wall "$W/$6.run")
	set -- "$@" $v
	meas=$(awk -v a="$loaded" -v b="$ded" 'BEGIN { printf "%.3f", a - b }')
	# the split: the baseline and the causes against the run's exec time, % of it
	split=$(awk -v T="${11}" -v B="${13}" -v C="${14}" 'BEGIN { if (B == "nan") print "-"; else printf "%.1f", 100 * (T - B - C) / T }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$7" "$8" "$9" "${10}" \
		"$meas" "$loaded" "$ded" "${11}" "${12}" "${13}" "${14}" "${15}" >>"$TSV"
	printf '%-7s %-6s %-9s %5s  %-22s %-22s %6s %12s %10s %8s %7s\n' "$1" "$2" "$3" "$4" "$7" "$8" "$9" "${10}" \
		"$meas" "${12}" "$split"
}

TSV=$W/explain.tsv
printf 'prog\tmpi\tscenario\tround\tfirst\tsecond\tinjected_first\tattributed_s\tmeasured_s\tloaded_s\tdedicated_s\texec_s\tideal_s\tbaseline_exec_s\tcauses_s\tobserver_s\n' >"$TSV"
printf '%-7s %-6s %-9s %5s  %-22s %-22s %6s %12s %10s %8s %7s\n' prog mpi scenario round first second "first?" "attributed s" "measured s" "ideal s" "split %"
fails=0
for prog in $PROGS; do
	for mpi in $MPIS; do
		case $prog:$mpi in lammps:mpich | mpb:mpich | fel:mpich | garli:mpich) continue ;; esac
		r=1 rounds=""
		while [ "$r" -le "$ROUNDS" ]; do
			base=$prog-$mpi-none-$r
			record "$base" "$prog" "$mpi" none
			rc=$?
			[ $rc -eq 77 ] && exit 77
			[ $rc -eq 2 ] && { r=$((r + 1)); continue; }	# --from: not kept
			if [ $rc -ne 0 ]; then
				echo "explain bench: $base failed: $(tail -n 2 "$W/$base.run" "$W/$base.parse" 2>/dev/null | tr '\n' ' ')" >&2
				fails=$((fails + 1)); r=$((r + 1)); continue
			fi
			rounds="$rounds $r"
			for scen in $SCENS; do
				[ "$scen" = none ] && continue
				run=$prog-$mpi-$scen-$r
				record "$run" "$prog" "$mpi" "$scen"
				rc=$?
				[ $rc -eq 2 ] && continue
				if [ $rc -ne 0 ]; then
					echo "explain bench: $run failed: $(tail -n 2 "$W/$run.run" "$W/$run.parse" 2>/dev/null | tr '\n' ' ')" >&2
					fails=$((fails + 1)); continue
				fi
				case_line "$prog" "$mpi" "$scen" "$r" "$run" "$base"
			done
			r=$((r + 1))
		done
		# no cause: each dedicated run against the next round's (the last against the
		# first), or alone when there is one round
		case " $SCENS " in *" none "*) ;; *) continue ;; esac
		set -- $rounds
		first=${1:-}
		while [ $# -gt 0 ]; do
			next=${2:-$first}
			b=$prog-$mpi-none-$next
			[ "$next" != "$1" ] || b=""
			case_line "$prog" "$mpi" none "$1" "$prog-$mpi-none-$1" "$b"
			shift
		done
	done
done
[ $REUSE -eq 1 ] || [ -n "$FROM" ] || "$CONTEND" testbed --instance "$INST" down >/dev/null 2>&1
summarize "$TSV"
[ -n "$OUT" ] && echo "results: $TSV"
[ $fails -eq 0 ] || exit 1
exit 0
