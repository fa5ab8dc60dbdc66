#!/bin/sh
# bench/realapps/overhead.sh: what `contend collect` costs third-party MPI programs. For
# each program, N rounds, each round every variant once in turn (alternated, so that drift
# and other jobs on the machine hit all alike; every other round in reverse order): the
# bare program, `contend collect` with its defaults, and the collect variants of VARIANTS
# (bench/lib.sh's collect_opts names: snap256, full, gzip1, ...; and `tcpdump`: the bare
# program with a plain `tcpdump -s 128` in every workstation, the least that capturing
# every packet's headers costs). Then one more run of every collect variant with the PMPI
# truth (tests/pmpi/pmpi_log.c), parsed and compared with tests/pmpi/compare.sh.
#
# Prints per program and variant: runs, the median time (the program's own timer where it
# has a fine one: lammps, lu, qr; the wall time for mpb, fel and garli, whose timers count
# whole seconds), the paired median ratio to bare over the rounds and its spread (min-max;
# for bare: its own run-to-run spread, min/median-max/median), the capture's bytes per
# byte of traffic (the capture files' bytes over the frames' wire lengths from parse's
# statistics), kernel drops, the agents' CPU (user + system, summed over
# ranks, from the rank metadata) and messages rebuilt / sent (point-to-point messages that
# crossed the wire, from the truth run).
#
# Usage: sh bench/realapps/overhead.sh [-S] [-o TSV] [N]
#   N        rounds (default 5)
#   -S       the small form for make check: lu with Open MPI and with MPICH, short inputs,
#            one round, VARIANTS=full (the default framed capture and a full-payload one,
#            both checked against the truth)
#   -o TSV   also write the table as TSV (format "realapps-overhead" v1, README.md)
# Environment: PROGS (default "lammps lu qr mpb fel garli"), LAYOUT (4x1, 4x2, 4x4 or 2x1, default
# 4x1), MPI (ompi or mpich, default ompi; MPICH runs only lu and qr), VARIANTS (extra
# collect variants, default none), INSTANCE (testbed instance, default 15), KEEP=1 (leave
# the testbed up), BUILD, PCT as for run.sh.
# Needs root and the packages of bench/realapps/setup.sh; a program whose package is missing
# is reported as skipped.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=$TOP/${BUILD:-build}
case ${BUILD:-build} in /*) B=$BUILD ;; esac
export CONTEND=${CONTEND:-$B/contend}
export INSTANCE=${INSTANCE:-15}
. "$TOP/bench/lib.sh"
RUNSH=$TOP/bench/realapps/run.sh
CMP=$TOP/tests/pmpi/compare.sh
SMALL=0 TSV=""
while getopts So: c; do
	case $c in
	S) SMALL=1 ;;
	o) TSV=$OPTARG ;;
	*) sed -n '/^# Usage:/,/^# Needs/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
N=${1:-5}
case $N in '' | *[!0-9]* | 0) echo "overhead: N must be a positive count" >&2; exit 2 ;; esac
LAYOUT=${LAYOUT:-4x1}
if [ $SMALL -eq 1 ]; then
	N=1
	SETS="lu:ompi lu:mpich"
	VARIANTS=${VARIANTS:-full}
	SMALLOPT=--small
else
	SETS=""
	for p in ${PROGS:-lammps lu qr mpb fel garli}; do
		case ${MPI:-ompi}:$p in mpich:lu | mpich:qr | ompi:*) SETS="$SETS $p:${MPI:-ompi}" ;; esac
	done
	VARIANTS=${VARIANTS:-}
	SMALLOPT=""
fi
for v in $VARIANTS; do
	[ "$v" = tcpdump ] && continue
	collect_opts "$v" >/dev/null || { echo "overhead: unknown collect variant '$v'" >&2; exit 2; }
done
ALL="bare collect $VARIANTS"
T=$(mktemp -d "${TMPDIR:-/tmp}/contend-realapps-oh.XXXXXX") || exit 1
cleanup() {
	testbed_release "$INSTANCE"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# field KEY LINE: the value of KEY=value among LINE's blank-separated fields
field() { echo "$2" | tr ' \t' '\n\n' | awk -v k="$1=" 'index($0, k) == 1 { print substr($0, length(k) + 1) }'; }
timer() { case $1 in lammps | lu | qr) echo own ;; *) echo wall ;; esac; }

# One run of PROG with MPI in VARIANT; appends its figures to T/PROG-MPI-VARIANT.*; the
# truth run (TRUTH=1) writes the comparison's summary instead. Status 77: skipped.
one() {	# prog mpi variant truth
	f=$T/$1-$2-$3
	set -- "$1" "$2" "$3" "$4" "$SMALLOPT"
	rm -rf "$T/run" "$T/truth"
	if [ "$3" = bare ]; then
		line=$(sh "$RUNSH" "$1" "$LAYOUT" "$2" $5 2>"$T/err")
	elif [ "$3" = tcpdump ]; then
		[ "$4" = 1 ] && return 0
		line=$(sh "$RUNSH" "$1" "$LAYOUT" "$2" $5 --tcpdump "-s 128" 2>"$T/err")
	else
		opts=$(collect_opts "$3")
		if [ "$4" = 1 ]; then
			line=$(sh "$RUNSH" "$1" "$LAYOUT" "$2" $5 --collect "$opts" --run "$T/run" --pmpi "$T/truth" 2>"$T/err")
		else
			line=$(sh "$RUNSH" "$1" "$LAYOUT" "$2" $5 --collect "$opts" --run "$T/run" 2>"$T/err")
		fi
	fi
	rc=$?
	[ $rc -eq 77 ] && { echo "$line" >"$T/skip"; return 77; }
	if [ $rc -ne 0 ]; then
		echo "overhead: $1 $2 $3 failed: $(tail -n 3 "$T/err" | tr '\n' ' ')" >&2
		return 1
	fi
	[ "$4" = 1 ] || field "$(timer "$1")_s" "$line" >>"$f.t"
	[ "$3" = bare ] && return 0
	if [ "$3" = tcpdump ]; then
		field tcpdump_drops "$line" >>"$f.drop"
		return 0
	fi
	# exit 1 is a partial result: an MPICH job ended after its last line leaves sample
	# files that end early, which parse says; only a missing result is a failure here
	timeout 600 "$CONTEND" parse -q "$T/run" >"$T/parse.out" 2>&1
	[ -s "$T/run/profile/messages.tsv" ] || echo "overhead: parse of $1 $2 $3: $(tail -n 1 "$T/parse.out")" >&2
	kc=$(awk -F'\t' '$1 == "kernel_cut" { print $2; exit }' "$T"/run/meta/node-*.tsv 2>/dev/null)
	[ -n "$kc" ] && echo "note: $1 $2 $3: kernel cut $kc, $(meta_sum kernel_cut_packets "$T"/run/meta/node-*.tsv) packets and $(meta_sum kernel_cut_bytes "$T"/run/meta/node-*.tsv) bytes left out in the kernel" >&2
	if [ "$4" = 1 ]; then
		sh "$CMP" -q "$T/run" "$T/truth" >"$f.cmp" 2>"$T/err" ||
			[ -s "$f.cmp" ] || echo "overhead: compare of $1 $2 $3: $(tail -n 1 "$T/err")" >&2
		rm -rf "$T/run" "$T/truth"
		return 0
	fi
	wire=$(awk -F'\t' '$1 == "bytes" { print $2 }' "$T/run/profile/stats.tsv" 2>/dev/null)
	# the files' sizes: an agent ended by a signal (MPICH jobs) may not have written
	# bytes_written into its node metadata
	ratio "$(find "$T/run/capture" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')" \
		"${wire:-0}" >>"$f.cap"
	echo >>"$f.cap"
	meta_sum pcap_drop "$T"/run/meta/node-*.tsv >>"$f.drop"
	awk -v u="$(meta_ms agent_utime_ns "$T"/run/meta/rank-*.tsv)" -v s="$(meta_ms agent_stime_ns "$T"/run/meta/rank-*.tsv)" \
		'BEGIN { printf "%.0f\n", u + s }' >>"$f.cpu"
	rm -rf "$T/run"
}

# spread BASE FILE: min-max of FILE's values over BASE's, round by round ("-" when none)
spread() {
	paste "$1" "$2" | awk 'NF == 2 && $1 > 0 { r = $2 / $1; if (n++ == 0 || r < lo) lo = r; if (r > hi) hi = r }
		END { if (n) printf "%.3f-%.3f", lo, hi; else print "-" }'
}
# own_spread FILE: min/median-max/median of FILE's values
own_spread() {
	m=$(median <"$1")
	awk -v m="$m" 'm > 0 { r = $1 / m; if (n++ == 0 || r < lo) lo = r; if (r > hi) hi = r }
		END { if (n) printf "%.3f-%.3f", lo, hi; else print "-" }' "$1"
}
medf() { if [ -s "$1" ]; then grep -v '^-*$' "$1" | median; else echo -; fi; }

[ -z "$TSV" ] || printf '# contend-realapps-overhead 1\nprog\tmpi\tlayout\tvariant\truns\ttimer\tmedian_s\tpaired\tspread\tcap_per_wire\tdrops\tagent_cpu_ms\tsent\trebuilt\tmatched\trebuilt_sent\n' >"$TSV"
rc=0
for set in $SETS; do
	prog=${set%:*} mpi=${set#*:}
	rm -f "$T/skip"
	i=0 skipped=0
	while [ $i -lt "$N" ] && [ $skipped -eq 0 ]; do
		# every other round in reverse order, so that no variant always follows another
		order=$ALL
		[ $((i % 2)) -eq 1 ] && order=$(echo "$ALL" | tr ' ' '\n' | sed '1!G;h;$!d' | tr '\n' ' ')
		for v in $order; do
			one "$prog" "$mpi" "$v" 0
			case $? in 77) skipped=1; break ;; 0) ;; *) rc=1 ;; esac
		done
		i=$((i + 1))
	done
	if [ $skipped -eq 1 ]; then
		echo "$prog ($mpi): $(cat "$T/skip")"
		echo
		continue
	fi
	for v in collect $VARIANTS; do one "$prog" "$mpi" "$v" 1 || rc=1; done
	echo "$prog: $LAYOUT, $mpi, $N rounds alternated, time = the $(timer "$prog") time (testbed $INSTANCE, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	printf '%-9s %4s %9s %7s %13s %9s %6s %9s %21s\n' variant runs median_s paired spread cap/wire drops agent_ms rebuilt/sent
	base=$T/$prog-$mpi-bare.t
	for v in $ALL; do
		f=$T/$prog-$mpi-$v
		[ -f "$f.t" ] || : >"$f.t"
		n=$(grep -c . "$f.t")
		med=$(medf "$f.t")
		if [ "$v" = bare ]; then pr=1.000 sp=$(own_spread "$f.t"); cap=- drop=- cpu=- rs=- sent=- rb=- mt=-
		else
			pr=$(paired "$base" "$f.t"); sp=$(spread "$base" "$f.t")
			cap=$(medf "$f.cap"); drop=$(medf "$f.drop"); cpu=$(medf "$f.cpu")
			s=$(tail -n 1 "$f.cmp" 2>/dev/null)
			sent=$(field sent "$s") rb=$(field rebuilt "$s") mt=$(field matched "$s") rs=$(field rebuilt/sent "$s")
			[ -n "$sent" ] || sent=- rb=- mt=- rs=-
		fi
		printf '%-9s %4s %9s %7s %13s %9s %6s %9s %21s\n' "$v" "$n" "$med" "$pr" "$sp" "$cap" "$drop" "$cpu" \
			"$( [ "$sent" = - ] && echo - || echo "$mt/$sent ($rs)")"
		[ -z "$TSV" ] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$prog" "$mpi" "$LAYOUT" \
			"$v" "$n" "$(timer "$prog")" "$med" "$pr" "$sp" "$cap" "$drop" "$cpu" "$sent" "$rb" "$mt" "$rs" >>"$TSV"
	done
	echo
done
exit $rc
