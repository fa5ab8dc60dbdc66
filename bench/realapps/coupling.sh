#!/bin/sh
# bench/realapps/coupling.sh: how much of a program's time on a testbed layout is the
# testbed's own coupling of its workstations. The testbed emulates N workstations on the
# machine's cores: on the 4x1 and 4x2 layouts two workstations share each core (their CPU
# quotas are halves of it), so a rank that polls while it waits (Open MPI's and MPICH's
# default) holds a core that another workstation's rank needs to answer it; separate
# machines do not do that. Each round runs every program bare twice, alternated (every
# other round in reverse): with Open MPI's default progress (polling) and with
# `mpi_yield_when_idle` (a waiting rank gives its core away at every turn of its progress
# loop). Where the two differ, the difference is the coupling; on whole cores (LAYOUT=2x1
# PCT=100) they should not.
#
# Prints per program: the median of each condition (bench/lib.sh's: the lower middle one
# of an even count; the program's own timer where it has a fine one: lammps, lu, qr; the
# wall time for mpb, fel and garli), its min-max, and the ratio of the medians (polling /
# yielding).
#
# Usage: sh bench/realapps/coupling.sh [-o TSV] [N]
#   N        rounds (default 3)
#   -o TSV   also write every run as TSV (prog, round, condition, own_s, wall_s, rivals)
# Environment: PROGS (default "lammps lu qr mpb fel garli"), LAYOUT (default 4x1), INSTANCE
# (default 15), PCT, BUILD as for run.sh. Open MPI only: MPICH 4.0 over UCX has no
# yield-when-idle setting for its progress loop.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export CONTEND=${CONTEND:-$TOP/${BUILD:-build}/contend}
. "$TOP/bench/lib.sh"
RUNSH=$TOP/bench/realapps/run.sh
TSV=""
while getopts o: c; do
	case $c in
	o) TSV=$OPTARG ;;
	*) sed -n '/^# Usage:/,/^# (default 15)/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
N=${1:-3}
case $N in '' | *[!0-9]* | 0) echo "coupling: N must be a positive count" >&2; exit 2 ;; esac
LAYOUT=${LAYOUT:-4x1}
export INSTANCE=${INSTANCE:-15}
W=$(mktemp -d "${TMPDIR:-/tmp}/contend-coupling.XXXXXX") || exit 1
trap 'rm -rf "$W"; testbed_release "$INSTANCE"' EXIT
trap 'exit 1' INT TERM
ALL=$W/runs.tsv
: >"$ALL"
echo "coupling: $LAYOUT, Open MPI, $N rounds alternated (testbed $INSTANCE, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
for r in $(seq 1 "$N"); do
	conds="poll yield"
	[ $((r % 2)) -eq 0 ] && conds="yield poll"
	for p in ${PROGS:-lammps lu qr mpb fel garli}; do
		for c in $conds; do
			y=0; [ "$c" = yield ] && y=1
			out=$(OMPI_MCA_mpi_yield_when_idle=$y KEEP=1 sh "$RUNSH" "$p" "$LAYOUT" ompi 2>"$W/err")
			rc=$?
			[ $rc -eq 77 ] && { echo "$p: skipped: $(echo "$out" | tail -n 1)"; continue 2; }
			line=$(echo "$out" | tail -n 1)
			own=$(echo "$line" | sed -n 's/.* own_s=\([^ ]*\).*/\1/p')
			wall=$(echo "$line" | sed -n 's/.* wall_s=\([^ ]*\).*/\1/p')
			riv=$(echo "$line" | sed -n 's/.* rivals=\([^ ]*\).*/\1/p')
			if [ $rc -ne 0 ] || [ -z "$wall" ]; then
				echo "coupling: $p $c round $r failed: $(tail -n 2 "$W/err" | tr '\n' ' ')" >&2
				continue
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$r" "$c" "${own:--}" "$wall" "${riv:--}" >>"$ALL"
		done
	done
done
printf '%-7s %-6s %4s %9s %17s %9s %17s %8s\n' prog time runs poll_s "poll min-max" yield_s "yield min-max" ratio
# per program, the own timer where it is fine-grained (lammps, lu, qr), else the wall time
for p in $(awk -F'\t' '!s[$1]++ { print $1 }' "$ALL"); do
	case $p in lammps | lu | qr) col=4 kind=own ;; *) col=5 kind=wall ;; esac
	for c in poll yield; do
		awk -F'\t' -v p="$p" -v c="$c" -v k=$col '$1 == p && $3 == c && $k != "-" { print $k }' "$ALL" >"$W/$c"
	done
	[ -s "$W/poll" ] && [ -s "$W/yield" ] || continue
	mp=$(median <"$W/poll") my=$(median <"$W/yield")
	printf '%-7s %-6s %4d %9.2f %17s %9.2f %17s %8s\n' "$p" $kind "$(wc -l <"$W/poll")" "$mp" \
		"$(range "$W/poll" | awk '{ printf "%.2f-%.2f", $1, $2 }')" "$my" \
		"$(range "$W/yield" | awk '{ printf "%.2f-%.2f", $1, $2 }')" "$(ratio "$mp" "$my")"
done
if [ -n "$TSV" ]; then
	{ printf 'prog\tround\tcondition\town_s\twall_s\trivals\n'; cat "$ALL"; } >"$TSV" || exit 1
	echo "runs: $TSV"
fi
exit 0
