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
# Prints per program: the median of each condition (the program's own timer where it has
# a fine one: lammps, lu, qr; the wall time for mpb, fel and garli), its min-max, and the
# ratio of the medians (polling / yielding).
#
# Usage: sh bench/realapps/coupling.sh [-o TSV] [N]
#   N        rounds (default 3)
#   -o TSV   also write every run as TSV (prog, round, condition, own_s, wall_s, rivals)
# Environment: PROGS (default "lammps lu qr mpb fel garli"), LAYOUT (default 4x1), INSTANCE
# (default 15), PCT, BUILD as for run.sh. Open MPI only: MPICH 4.0 over UCX has no
# yield-when-idle setting for its progress loop.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
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
trap 'rm -rf "$W"; [ "${KEEP:-0}" = 1 ] || "${CONTEND:-$TOP/${BUILD:-build}/contend}" testbed --instance "$INSTANCE" down >/dev/null 2>&1' EXIT
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
awk -F'\t' '
	function med(k, c,   n, i, j, t, v) {
		n = cnt[k, c]
		for (i = 1; i <= n; i++) v[i] = val[k, c, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		lo[k, c] = v[1]; hi[k, c] = v[n]
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{
		# own timer where it is fine-grained; wall where the program counts whole seconds
		fine = ($1 == "lammps" || $1 == "lu" || $1 == "qr")
		v = fine ? $4 : $5
		if (v == "-") next
		if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1; kind[$1] = fine ? "own" : "wall" }
		val[$1, $3, ++cnt[$1, $3]] = v
	}
	END {
		for (i = 1; i <= np; i++) {
			k = order[i]
			if (!cnt[k, "poll"] || !cnt[k, "yield"]) continue
			a = med(k, "poll"); b = med(k, "yield")
			printf "%-7s %-6s %4d %9.2f %8.2f-%-8.2f %9.2f %8.2f-%-8.2f %8.2f\n", k, kind[k], cnt[k, "poll"],
				a, lo[k, "poll"], hi[k, "poll"], b, lo[k, "yield"], hi[k, "yield"], (b > 0 ? a / b : 0)
		}
	}' "$ALL"
if [ -n "$TSV" ]; then
	{ printf 'prog\tround\tcondition\town_s\twall_s\trivals\n'; cat "$ALL"; } >"$TSV" || exit 1
	echo "runs: $TSV"
fi
exit 0
