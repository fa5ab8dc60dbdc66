#!/bin/sh
# pmpi_truth: the PMPI wrapper (tests/pmpi/pmpi_log.c) logs what test programs send, for
# Open MPI and MPICH, on this machine (no testbed): every kind of C send with its world
# ranks (also on a reordered communicator), tag and bytes, persistent sends once per
# MPI_Start, nothing for MPI_PROC_NULL, collectives with their root's world rank; and the
# Fortran bindings, which in Open MPI bypass the C layer ("use mpi" and "use mpi_f08");
# and the intervals inside MPI ("mpi" rows, format v2): per rank the calls expected, each
# interval's enter <= exit, the intervals in time order without overlap, MPI_Init first and
# MPI_Finalize last.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
E2E_NAME=pmpi_truth
. "$TOP/tests/e2e/checks.inc"
T=$(mktemp -d /tmp/contend-e2e-pmpi.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
S=$TOP/tests/pmpi
for m in ompi mpich; do
	[ -f "$TOP/$BUILD/pmpi/$m.so" ] || { echo "skipped: no $BUILD/pmpi/$m.so (make workloads)"; exit 77; }
done
command -v mpicc >/dev/null && command -v mpicc.mpich >/dev/null || { echo "skipped: no mpicc and mpicc.mpich"; exit 77; }

# The rows every rank must have written: "rank kind call dst tag bytes root", sorted.
cat >"$T/want" <<'EOF'
0 coll allreduce -1 -1 16 -1
0 coll barrier -1 -1 0 -1
0 coll bcast -1 -1 32 0
0 p2p bsend 1 13 12 -1
0 p2p isend 2 14 256 -1
0 p2p send 1 11 40 -1
0 p2p sendrecv 3 31 8 -1
0 p2p ssend 1 12 16 -1
1 coll allreduce -1 -1 16 -1
1 coll barrier -1 -1 0 -1
1 coll bcast -1 -1 32 0
1 p2p sendrecv 0 31 8 -1
2 coll allreduce -1 -1 16 -1
2 coll barrier -1 -1 0 -1
2 coll bcast -1 -1 32 0
2 p2p send_init 3 21 20 -1
2 p2p send_init 3 21 20 -1
2 p2p send_init 3 21 20 -1
2 p2p sendrecv 1 31 8 -1
3 coll allreduce -1 -1 16 -1
3 coll barrier -1 -1 0 -1
3 coll bcast -1 -1 32 0
3 p2p sendrecv 2 31 8 -1
EOF
cat >"$T/want.f" <<'EOF'
0 coll allreduce -1 -1 4 -1
0 p2p send 1 7 40 -1
1 coll allreduce -1 -1 4 -1
EOF
# The distinct calls with an interval, per rank: "rank call call ...".
cat >"$T/want.mpi" <<'EOF'
0 allreduce barrier bcast bsend comm_split finalize init isend send sendrecv ssend wait
1 allreduce barrier bcast comm_split finalize init recv sendrecv
2 allreduce barrier bcast comm_split finalize init recv sendrecv start wait
3 allreduce barrier bcast comm_split finalize init recv sendrecv
EOF
cat >"$T/want.fmpi" <<'EOF'
0 allreduce finalize init send
1 allreduce finalize init recv
EOF
rows() { cat "$1"/rank-*.tsv 2>/dev/null | awk -F'\t' '$2 == "p2p" || $2 == "coll" { print $4, $2, $3, $5, $6, $9, $10 }' | sort; }
calls() { cat "$1"/rank-*.tsv 2>/dev/null | awk -F'\t' '$2 == "mpi" { print $4, $3 }' | sort -u |
	awk '!n || $1 != r { if (n++) print l; r = $1; l = $1 } { l = l " " $2 } END { if (n) print l }'; }
# Every rank's intervals: 12 columns, enter <= exit, each starting after the previous one
# ended, "init" first and "finalize" (exit -1) last; prints what is wrong, nothing when sane.
sane() {
	for lf in "$1"/rank-*.tsv; do
		awk -F'\t' -v f="${lf##*/}" '
		$2 != "mpi" { next }
		NF != 12 { print f ": " NF " columns"; exit }
		{ n++; if (first == "") first = $3; last = $3; lastx = $11 }
		$3 != "finalize" && ($11 < $1 || $12 < 1) { print f ": " $3 " ends before it starts"; exit }
		prev != "" && $1 < prev { print f ": " $3 " starts before the previous interval ends"; exit }
		{ prev = $11 }
		END { if (n && (first != "init" || last != "finalize" || lastx != -1)) print f ": not init ... finalize" }' "$lf"
	done
}
ended() { n=0; for f in "$1"/rank-*.tsv; do tail -n 1 "$f" | grep -q '^# end$' && n=$((n + 1)); done; echo $n; }

# launch MPI NP DIR PROGRAM: the program on NP local ranks with the wrapper, its log in DIR
launch() {
	mkdir -p "$3"
	if [ "$1" = ompi ]; then
		set -- mpirun --allow-run-as-root --oversubscribe -np "$2" env LD_PRELOAD="$TOP/$BUILD/pmpi/ompi.so" PMPI_LOG_DIR="$3" "$4"
	else
		set -- mpiexec.mpich -np "$2" env LD_PRELOAD="$TOP/$BUILD/pmpi/mpich.so" PMPI_LOG_DIR="$3" "$4"
	fi
	timeout -k 5 60 "$@" >>"$T/run.log" 2>&1
}

for m in ompi mpich; do
	cc=mpicc; fc=mpif90
	[ $m = mpich ] && cc=mpicc.mpich fc=mpif90.mpich
	if ! $cc -o "$T/sends-$m" "$S/sends.c" 2>"$T/cc.err"; then
		fail "$m-c-build" "$(tail -n 1 "$T/cc.err")"; continue
	fi
	launch $m 4 "$T/log-$m" "$T/sends-$m"
	rows "$T/log-$m" >"$T/got-$m"
	check "$m-c-rows" "cmp -s '$T/want' '$T/got-$m'" "rows differ: $(diff "$T/want" "$T/got-$m" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
	check "$m-c-finalized" "[ \"\$(ended '$T/log-$m')\" = 4 ]" "not every rank's log ends with '# end'"
	calls "$T/log-$m" >"$T/calls-$m"
	check "$m-c-intervals" "cmp -s '$T/want.mpi' '$T/calls-$m'" "calls differ: $(diff "$T/want.mpi" "$T/calls-$m" | grep '^[<>]' | head -n 2 | tr '\n' ' ')"
	sane "$T/log-$m" >"$T/sane-$m"
	check "$m-c-intervals-sane" "[ ! -s '$T/sane-$m' ]" "$(head -n 1 "$T/sane-$m")"

	if ! command -v $fc >/dev/null; then echo "SKIP e2e/pmpi_truth/$m-fortran: skipped: no $fc"; continue; fi
	for f in sends sends_f08; do
		[ $m = mpich ] && [ $f = sends_f08 ] && continue	# the C layer serves MPICH's f08 too
		if ! $fc -o "$T/$f-$m" "$S/$f.f90" 2>"$T/fc.err"; then
			fail "$m-$f-build" "$(tail -n 1 "$T/fc.err")"; continue
		fi
		launch $m 2 "$T/flog-$m-$f" "$T/$f-$m"
		rows "$T/flog-$m-$f" >"$T/fgot"
		check "$m-$f-rows" "cmp -s '$T/want.f' '$T/fgot'" "rows differ: $(diff "$T/want.f" "$T/fgot" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
		calls "$T/flog-$m-$f" >"$T/fcalls"
		check "$m-$f-intervals" "cmp -s '$T/want.fmpi' '$T/fcalls'" "calls differ: $(diff "$T/want.fmpi" "$T/fcalls" | grep '^[<>]' | head -n 2 | tr '\n' ' ')"
		sane "$T/flog-$m-$f" >"$T/fsane"
		check "$m-$f-intervals-sane" "[ ! -s '$T/fsane' ]" "$(head -n 1 "$T/fsane")"
	done
done
