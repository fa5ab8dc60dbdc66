#!/bin/sh
# bench/coverage.sh [INSTANCE]: what a capture holds with several ranks per node. Two
# workstations, 2 and 4 ranks on each, launched as users launch and with
# `collect --see-local`: per MPI, the rank pairs, those sharing a workstation, those parse
# reports hidden, its coverage, and the point-to-point messages rebuilt against those sent.
# Truth: alltoall -a's own pattern (ITERS messages, tag 5, from every rank to every other),
# and for LAMMPS (Open MPI, when installed) tests/e2e/pmpi_count.c preloaded under it.
# Testbed INSTANCE (default 8) is brought up with 2 workstations and down at the end.
# MPIS="mpich" (default "ompi mpich") makes only those MPIs' rows (LAMMPS's need ompi).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
CONTEND=${CONTEND:-$TOP/build/contend}
WL=$TOP/build/workloads
INST=${1:-8}
ITERS=20
W=$(mktemp -d /tmp/contend-bench-coverage.XXXXXX)
TB="$CONTEND testbed --instance $INST"
trap '$TB down >/dev/null 2>&1; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM HUP

$TB up -n 2 >"$W/up.log" 2>&1 || { tail -n 1 "$W/up.log" >&2; exit 1; }
cat >"$W/in.lj" <<'LJ'
units		lj
atom_style	atomic
lattice		fcc 0.8442
region		box block 0 12 0 12 0 12
create_box	1 box
create_atoms	1 box
mass		1 1.0
velocity	all create 3.0 87287 loop geom
pair_style	lj/cut 2.5
pair_coeff	1 1 1.0 1.0 2.5
neighbor	0.3 bin
neigh_modify	every 20 delay 0 check no
fix		1 all nve
thermo		50
run		100
LJ
lammps=0
command -v lmp >/dev/null && mpicc -shared -fPIC -O2 -o "$W/pmpi.so" "$TOP/tests/e2e/pmpi_count.c" 2>/dev/null &&
	lammps=1

# row PROGRAM MPI RANKS-PER-WS MODE: record, parse and print one line of the table
row() {
	prog=$1 mpi=$2 rpw=$3 mode=$4
	np=$((2 * rpw)) R=$W/$prog-$mpi-$rpw-$mode mo="" opt="" to=120
	[ "$mpi" = mpich ] && mo=--mpich to=30	# MPICH's Finalize may hang here (docs/testbed.md)
	[ "$prog" = lammps ] && to=300	# 8 ranks on 2 cores: minutes on a busy machine
	[ "$mode" = see-local ] && opt=--see-local
	mkdir -p "$R.truth"
	if [ "$prog" = lammps ]; then
		set -- env LD_PRELOAD="$W/pmpi.so" PMPI_COUNT_DIR="$R.truth" lmp -in "$W/in.lj" -log none -screen none
	else
		set -- "$WL/$mpi/alltoall" -a -i $ITERS -c 2 -m 10k -q
	fi
	# MPICH over UCX may also hang before the end: a run counts once the program printed
	# its result (alltoall's wall_s; LAMMPS's truth files), else it is made again (3 tries)
	for try in 1 2 3; do
		rm -rf "$R" "$R.truth"/*
		# shellcheck disable=SC2086
		timeout -k 5 $to $TB mpirun $mo -np $np -- "$CONTEND" collect -q $opt -o "$R" -- "$@" >"$R.out" 2>&1
		grep -q '^wall_s' "$R.out" || [ -s "$R.truth/rank-0.tsv" ] && break
	done
	if ! grep -q '^wall_s' "$R.out" && ! [ -s "$R.truth/rank-0.tsv" ]; then
		printf '%-8s %-6s %4s  %-10s did not finish in 3 tries\n' "$prog" "$mpi" "$rpw" "$mode"
		return
	fi
	"$CONTEND" parse -q "$R" >/dev/null 2>&1
	st=$R/profile/stats.tsv
	if [ "$prog" = lammps ]; then
		sent=$(cat "$R.truth"/rank-*.tsv 2>/dev/null | awk '{ s += $3 } END { print s + 0 }')
		got=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $11 == "ompi" && $7 >= 0 && $3 >= 0 && $4 >= 0' \
			"$R/profile/messages.tsv" | wc -l)
	else
		sent=$((ITERS * np * (np - 1)))
		got=$(awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $7 == 5 && $3 >= 0 && $4 >= 0' "$R/profile/messages.tsv" | wc -l)
	fi
	printf '%-8s %-6s %4s  %-10s %5s %5s %6s  %-8s %7s %7s %6s\n' "$prog" "$mpi" "$rpw" "$mode" \
		"$(awk -F'\t' '$1 == "pairs" { print $2 }' "$st")" \
		"$(awk -F'\t' '$1 == "pairs_local" { print $2 }' "$st")" \
		"$(awk -F'\t' '$1 == "pairs_local_hidden" { print $2 }' "$st")" \
		"$(awk -F'\t' '$1 == "coverage" { print $2 }' "$st")" "$got" "$sent" \
		"$(awk -v g="$got" -v s="$sent" 'BEGIN { if (s > 0) printf "%.0f %%", 100 * g / s; else print "-" }')"
}

printf '%-8s %-6s %4s  %-10s %5s %5s %6s  %-8s %7s %7s %6s\n' program mpi r/ws collect pairs local hidden \
	coverage rebuilt sent share
for mpi in ${MPIS:-ompi mpich}; do
	for rpw in 2 4; do
		for mode in default see-local; do row alltoall $mpi $rpw $mode; done
	done
done
case " ${MPIS:-ompi} " in *" ompi "*) ;; *) lammps=2 ;; esac
if [ $lammps = 1 ]; then
	for rpw in 2 4; do
		for mode in default see-local; do row lammps ompi $rpw $mode; done
	done
elif [ $lammps = 0 ]; then
	echo "LAMMPS (lmp) or mpicc missing: its rows left out"
fi
