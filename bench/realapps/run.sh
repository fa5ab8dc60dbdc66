#!/bin/sh
# bench/realapps/run.sh: one run of a third-party MPI program from Debian on the testbed,
# bare, under `contend collect`, with the PMPI message truth, under a scenario's load.
# Prints one line of key=value fields:
#   prog=P layout=L mpi=M scenario=S own_s=T wall_s=W exit=E throttled_ms=A/B/C/D rivals=N [run=DIR] [truth=DIR]
#   [exec_s=X]
# exec_s, for a run without --collect: the longest rank's life from its start to its end, the
# ranks' time apart from mpirun's start and end (bench/realapps/lifetime.sh wraps each rank).
# own_s is the program's own timer (see README.md for which one), wall_s the launcher's
# wall time (for MPICH, up to the program's last line: MPICH 4.0.2 over UCX can hang in
# MPI_Finalize on the testbed, so the job is ended once the program has printed it).
#
# Usage: sh bench/realapps/run.sh PROG LAYOUT MPI [OPTIONS]
#   PROG     lammps lu qr mpb fel garli (see `run.sh --list`)
#   LAYOUT   4x1 (4 workstations, 1 rank each), 4x2 (2 ranks each: 8 ranks), 4x4 (4 ranks
#            each: 16 ranks; GARLI not: one replicate a rank) or 2x1 (2
#            workstations, 1 rank each: with PCT=100 a core each and no quota)
#   MPI      ompi or mpich
#   --collect 'OPTS'   wrap every rank in `contend collect -q OPTS -o RUN --`
#   --pmpi DIR         write the PMPI truth of every rank into DIR (tests/pmpi/pmpi_log.c)
#   --scenario S       none (default), cpu1, cpu2, link, both, agg: bench/accuracy's loads;
#                      strict: the link cap with a bucket of STRICT_BURST (default 3000 B,
#                      two full frames), as a NIC of that speed passes no burst
#   --run DIR          the collect run directory (default: a new one under the work dir)
#   --tcpdump 'OPTS'   run the program bare with a plain `tcpdump -i eth0 -B 32768 OPTS` in
#                      every workstation of the layout (the least a capture of every
#                      packet costs, for bench/realapps/overhead.sh); the line gains
#                      tcpdump_drops=N
#   --small            the short inputs of the make check form
#   --ucx              Open MPI over UCX (pml ucx) on UCX's TCP transport, not ob1
#   --keep             keep the testbed up and the work directory
#   --inputs DIR       write the program's inputs for LAYOUT into DIR and exit (no testbed)
#   --list             the programs, their packages and what they exercise
# Environment: BUILD (default build), INSTANCE (testbed instance, default 15), PCT (each
# workstation's CPU capacity in % of a core, default 50), LINK (the link scenarios' cap,
# default 100mbit), BURST (its token bucket as `testbed link --burst` takes it, default
# the testbed's: 10 ms at LINK, 125 kB at 100mbit), LOADED (the loaded workstation,
# default 2), TIMEOUT (seconds a run may take, default 300).
# Exit: 0 a run and its times, 1 the run failed, 2 usage, 77 a package or the testbed
# is missing (the message says which, and `sh bench/realapps/setup.sh` installs them).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=$TOP/${BUILD:-build}
case ${BUILD:-build} in /*) B=$BUILD ;; esac
CONTEND=${CONTEND:-$B/contend}
INST=${INSTANCE:-15}
PCT=${PCT:-50}
LINK=${LINK:-100mbit}
BURST=${BURST:-}
LOADED=${LOADED:-2}
TIMEOUT=${TIMEOUT:-300}
IN=$TOP/bench/realapps/inputs
SCALA=/usr/lib/x86_64-linux-gnu/scalapack
TB="$CONTEND testbed --instance $INST"

usage() { sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
list() {
	cat <<'EOF'
prog    package              MPIs        exercises
lammps  lammps               ompi        halo exchange: LAMMPS's Lennard-Jones melt, ghost atoms to the 6 neighbours every step
lu      scalapack-mpi-test   ompi mpich  irregular point-to-point: ScaLAPACK's LU test (xdlu), data-dependent pivot row swaps between grid rows, panel broadcasts
qr      scalapack-mpi-test   ompi mpich  collectives: ScaLAPACK's QR with column pivoting (xdqr), an allreduce of column norms per column, broadcasts
mpb     mpb-mpi              ompi        collectives: MPB's eigensolver, FFTW-MPI transposes (all-to-all) and an allreduce per dot product
fel     hyphy-mpi            ompi        task farm: HyPhy's FEL, the master hands one site fit at a time to the workers
garli   garli-mpi            ompi        near-pure compute: GARLI's independent search replicates, one per rank, results gathered at the end
EOF
	exit 0
}

[ "${1:-}" = --list ] && list
[ $# -ge 3 ] || usage
PROG=$1 LAYOUT=$2 MPI=$3
shift 3
COLLECT="" USECOLLECT=0 TCPD="" USETCPD=0 PMPI="" SCEN=none RUN="" SMALL=0 KEEP=0 LOPT="" INPUTS=""
while [ $# -gt 0 ]; do
	case $1 in
	--collect) [ $# -ge 2 ] || usage; COLLECT=$2; USECOLLECT=1; shift ;;
	--pmpi) [ $# -ge 2 ] || usage; PMPI=$2; shift ;;
	--tcpdump) [ $# -ge 2 ] || usage; TCPD=$2; USETCPD=1; shift ;;
	--scenario) [ $# -ge 2 ] || usage; SCEN=$2; shift ;;
	--run) [ $# -ge 2 ] || usage; RUN=$2; shift ;;
	--small) SMALL=1 ;;
	--ucx) LOPT="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0" ;;
	--keep) KEEP=1 ;;
	--inputs) [ $# -ge 2 ] || usage; INPUTS=$2; shift ;;
	--list) list ;;
	*) usage ;;
	esac
	shift
done
case $LAYOUT in 4x1) NP=4 NWS=4 ;; 4x2) NP=8 NWS=4 ;; 4x4) NP=16 NWS=4 ;; 2x1) NP=2 NWS=2 ;;
*) echo "realapps: unknown layout '$LAYOUT' (4x1, 4x2, 4x4, 2x1)" >&2; exit 2 ;; esac
case $MPI in ompi) MPIOPT="" ;; mpich) MPIOPT=--mpich ;; *) echo "realapps: unknown MPI '$MPI' (ompi, mpich)" >&2; exit 2 ;; esac
# MPICH 4.0.2 over UCX 1.13 left to choose its transports hangs in MPI_Finalize on the
# testbed once the program is done, and the ranks' exec time (what a prediction starts
# from) then holds seconds of polling. With one rank per workstation UCX carries every
# message over TCP anyway, so 4x1 forces it (as the testbed did before workstations had
# IPC namespaces of their own); 4x2 and 4x4 keep shared memory between a workstation's ranks.
[ "$MPI" = mpich ] && [ $NP -eq $NWS ] && MPIOPT="--mpich --tcp"
[ -z "$LOPT" ] || [ "$MPI" = ompi ] || { echo "realapps: --ucx is for Open MPI (MPICH runs over UCX always)" >&2; exit 2; }
case $SCEN in none | cpu1 | cpu2 | link | both | agg | strict) ;; *) echo "realapps: unknown scenario '$SCEN'" >&2; exit 2 ;; esac
[ $USECOLLECT -eq 1 ] && [ $USETCPD -eq 1 ] && { echo "realapps: --tcpdump is for a bare run, not with --collect" >&2; exit 2; }
[ "$SCEN" = agg ] && [ $NWS -lt 4 ] && { echo "realapps: agg needs 4 workstations (layout $LAYOUT has $NWS)" >&2; exit 2; }
[ "$LOADED" -ge 1 ] && [ "$LOADED" -le $NWS ] 2>/dev/null || { echo "realapps: LOADED=$LOADED is not a workstation of layout $LAYOUT" >&2; exit 2; }
skip() { echo "skipped: $*"; [ -n "${W:-}" ] && rm -rf "$W"; exit 77; }

W=$(mktemp -d "${TMPDIR:-/tmp}/contend-realapps.XXXXXX") || exit 1
# The program: its command (after the prefix), the file its output goes to, the line that
# ends it, and how its own time is read.
#   need PATH PACKAGE   the program's file, or skip
need() { [ -x "$1" ] || skip "no $1 (apt-get install $2, or sh bench/realapps/setup.sh)"; }
case $PROG in
lammps)
	need /usr/bin/lmp lammps
	[ "$MPI" = ompi ] || { echo "realapps: Debian's lammps is built for Open MPI only" >&2; exit 2; }
	steps=150; [ $SMALL -eq 1 ] && steps=30; [ $SMALL -eq 0 ] && [ "$LAYOUT" = 2x1 ] && steps=900
	[ $SMALL -eq 0 ] && [ "$LAYOUT" = 4x4 ] && steps=50
	set -- /usr/bin/lmp -in "$IN/lammps-lj.in" -var steps $steps -log none
	END="^Total wall time" ;;
lu | qr)
	d=openmpi-tests; [ "$MPI" = mpich ] && d=mpich-tests
	need "$SCALA/$d/xd$PROG" scalapack-mpi-test
	set -- "$SCALA/$d/xd$PROG"
	END="^END OF TESTS" ;;
mpb)
	need /usr/bin/mpb-mpi mpb-mpi
	[ "$MPI" = ompi ] || { echo "realapps: Debian's mpb-mpi is built for Open MPI only" >&2; exit 2; }
	set -- /usr/bin/mpb-mpi mpb.ctl
	END="^total elapsed time for run" ;;
fel)
	need /usr/lib/hyphy/bin/HYPHYMPI hyphy-mpi
	[ "$MPI" = ompi ] || { echo "realapps: Debian's hyphy-mpi is built for Open MPI only" >&2; exit 2; }
	# the plain binary: /usr/bin/HYPHYMPI passes its arguments on as one word; paths are
	# absolute, HyPhy takes relative ones from its library directory
	set -- /usr/lib/hyphy/bin/HYPHYMPI LIBPATH=/usr/share/hyphy fel --alignment "$W/codons.nex" --output "$W/fel.json"
	END="" ;;
garli)
	need /usr/lib/garli/bin/Garli-mpi garli-mpi
	[ "$MPI" = ompi ] || { echo "realapps: Debian's garli-mpi is built for Open MPI only" >&2; exit 2; }
	[ $NP -le 8 ] || { echo "realapps: GARLI runs one replicate a rank: at most 8 ranks (layout $LAYOUT has $NP)" >&2; exit 2; }
	set -- /usr/lib/garli/bin/Garli-mpi -$NP garli.conf
	END="" ;;
*) echo "realapps: unknown program '$PROG' (run.sh --list)" >&2; exit 2 ;;
esac
[ -x "$CONTEND" ] || { echo "realapps: no $CONTEND (make)" >&2; rm -rf "$W"; exit 1; }
[ -z "$PMPI" ] || [ -f "$B/pmpi/$MPI.so" ] || { echo "realapps: no $B/pmpi/$MPI.so (make workloads)" >&2; exit 1; }
[ -n "$INPUTS" ] || $TB check >/dev/null 2>&1 || skip "no testbed here: $($TB check 2>&1 | tail -n 1)"

PID="" TCPD_PIDS=""
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	for p in $TCPD_PIDS; do kill -INT "$p" 2>/dev/null; done
	if [ "$SCEN" != none ]; then
		$TB unload >/dev/null 2>&1
		$TB link "ws$LOADED" off >/dev/null 2>&1
	fi
	[ $KEEP -eq 1 ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The testbed: the layout's workstations at PCT % of a core, up once and kept for the next
# run (brought up again when it has another count or share); other work on the machine must
# not take the workstations' quotas.
if [ -z "$INPUTS" ] && { [ "$($TB status 2>/dev/null | awk -v p="$PCT" '$2 ~ /^c[0-9]+ws[0-9]+$/ && $5 == p' | wc -l)" -ne $NWS ] ||
	[ "$($TB status 2>/dev/null | awk '$2 ~ /^c[0-9]+ws[0-9]+$/' | wc -l)" -ne $NWS ]; }; then
	$TB down >/dev/null 2>&1
	$TB up -n $NWS --cpu-pct all="$PCT" >"$W/up.log" 2>&1 || { echo "realapps: testbed $INST: $(tail -n 1 "$W/up.log")" >&2; exit 1; }
fi
G=/sys/fs/cgroup/cpu/contend-testbed-$INST
[ -w "$G/cpu.shares" ] && echo 262144 >"$G/cpu.shares"

# The program's inputs, in its working directory (the ranks start in the launcher's).
[ -z "$INPUTS" ] || mkdir -p "$INPUTS" || exit 1
cd "${INPUTS:-$W}" || exit 1
case $PROG in
lu | qr)
	dat=$(echo "$PROG" | tr a-z A-Z).dat
	case $NP in 2) P=1 Q=2 ;; 4) P=2 Q=2 ;; 8) P=2 Q=4 ;; *) P=4 Q=4 ;; esac
	# the size is the file's, 200 for the short form; on 2x1 (whole cores, no quota: the
	# file's problem takes 0.02 s there) K problems of size N, the largest the test's
	# memory takes on two ranks
	n='\1' k=1 nb=""
	[ $SMALL -eq 1 ] && n=200
	# 4x4: 16 ranks at an eighth of a core each (LU's N = 500 took 61 s there)
	[ $SMALL -eq 0 ] && [ "$LAYOUT" = 4x4 ] && { [ "$PROG" = lu ] && n=256 || n=200; }
	if [ $SMALL -eq 0 ] && [ "$LAYOUT" = 2x1 ]; then
		k=20 nb="32 64"
		if [ "$PROG" = lu ]; then n=800; else n=400 nb="16 32"; fi
	fi
	vals=$n	# (the file's own: a sed back-reference, which awk -v would turn into \001)
	[ "$k" -eq 1 ] || vals=$(awk -v n="$n" -v k="$k" 'BEGIN { for (i = 1; i <= k; i++) printf "%s%s", n, (i < k ? " " : "") }')
	# and two block sizes (nb) on 2x1
	sed "s/^1\( *number of problems sizes\)/$k\1/; s/^\([0-9]*\)\( *values of [MN]\)\$/$vals\2/
		s/^2\( *values of P\)/$P\1/; s/^2\( *values of Q\)/$Q\1/" "$IN/$dat" >"$dat"
	[ -z "$nb" ] || sed -i "s/^1\( *number of NB's\)/2\1/; s/^1\( *number of blocking sizes\)/2\1/
		s/^[0-9]*\( *values of [M]*NB\)\$/$nb\1/; s/^[0-9]*\( *values of MB\)\$/$nb\1/" "$dat" ;;
mpb)	cp "$IN/mpb-sphere.ctl" mpb.ctl
	[ $SMALL -eq 1 ] && sed -i 's/resolution 12/resolution 8/' mpb.ctl
	[ $SMALL -eq 0 ] && [ "$LAYOUT" = 2x1 ] && sed -i "s/resolution 12/resolution 24/" mpb.ctl ;;
fel)	c=100; [ $SMALL -eq 1 ] && c=30
	awk -v N=8 -v C=$c -f "$IN/hyphy-codons.awk" >codons.nex ;;
garli)	c=400; [ $SMALL -eq 1 ] && c=100
	awk -v N=12 -v C=$c -f "$IN/hyphy-codons.awk" >data.nex
	# GARLI hands its NP replicates to whichever rank asks first, and rank r asks 2r s
	# after the start: a replicate shorter than the last rank's wait goes to a rank that
	# already did one (500 generations took 3-4 s on 4x1, and rank 0 ran two replicates,
	# rank 3 none). The file's 1500 generations outlast the stagger on every layout; the
	# short form keeps 500 (it checks numbers, not one replicate per rank).
	sed "s/^stopgen = .*/stopgen = $([ $SMALL -eq 1 ] && echo 500 || echo 1500)/" "$IN/garli.conf" >garli.conf ;;
esac

[ -z "$INPUTS" ] || exit 0

# The scenario's competing load and link cap (as bench/accuracy makes them).
ws() { echo "c${INST}ws$1"; }
case $SCEN in
cpu1 | both) $TB load "$(ws "$LOADED")" --cpu 1 >/dev/null || exit 1 ;;
cpu2) $TB load "$(ws "$LOADED")" --cpu 2 >/dev/null || exit 1 ;;
agg)	$TB load "$(ws 1)" --cpu 1 >/dev/null || exit 1
	$TB load "$(ws 3)" --comm "$(ws 4)" --duty 0.5 --period 1s >/dev/null || exit 1 ;;
esac
case $SCEN in
link | both) $TB link "$(ws "$LOADED")" "$LINK" ${BURST:+--burst "$BURST"} >/dev/null || exit 1 ;;
strict) $TB link "$(ws "$LOADED")" "$LINK" --burst "${STRICT_BURST:-3000}" >/dev/null || exit 1 ;;
esac
[ "$SCEN" = none ] || sleep 0.3

# What wraps the program inside each rank.
PRE=""
if [ -n "$PMPI" ]; then
	mkdir -p "$PMPI" && PMPI=$(cd "$PMPI" && pwd) || exit 1
	rm -f "$PMPI"/rank-*.tsv
	PRE="env LD_PRELOAD=$B/pmpi/$MPI.so PMPI_LOG_DIR=$PMPI"
fi
LIFE=""
if [ $USECOLLECT -eq 1 ]; then
	[ -n "$RUN" ] || { RUN=$W/run; KEEP=1; }
	rm -rf "$RUN"
	# shellcheck disable=SC2086
	set -- "$CONTEND" collect -q $COLLECT -o "$RUN" -- $PRE "$@"
else
	# each rank's start and end, for the ranks' time apart from the launcher's (a
	# collected run has its own, from the samples)
	LIFE=$W/life
	mkdir -p "$LIFE" || exit 1
	# shellcheck disable=SC2086
	set -- sh "$TOP/bench/realapps/lifetime.sh" "$LIFE" $PRE "$@"
fi

now() { date +%s.%N; }
# --tcpdump: a plain capture in each workstation, started before the job (each one
# capturing before it starts) and stopped by its PID after it.
if [ $USETCPD -eq 1 ]; then
	for i in $(seq 1 $NWS); do
		# shellcheck disable=SC2086
		$TB exec "$(ws "$i")" -- tcpdump -i eth0 -B 32768 $TCPD -w "$W/ws$i.pcap" 2>"$W/ws$i.tcpd" &
		TCPD_PIDS="$TCPD_PIDS $!"
	done
	for i in $(seq 1 $NWS); do
		k=0
		while ! grep -q 'listening on' "$W/ws$i.tcpd" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
		grep -q 'listening on' "$W/ws$i.tcpd" || { echo "realapps: tcpdump in $(ws "$i"): $(tail -n 1 "$W/ws$i.tcpd")" >&2; exit 1; }
	done
fi
# What disturbed the run, for people reading its line: each workstation's time throttled
# by its CPU quota (cgroup v1 cpu.stat throttled_time), and how many other testbed
# instances had tasks on the same cores, at the same priority, at its start or end.
throttled() { for i in 1 2 3 4; do awk '$1 == "throttled_time" { print $2 }' "$G/ws$i/cpu.stat" 2>/dev/null || echo 0; done | tr '\n' ' '; }
rivals() { for d in /sys/fs/cgroup/cpu/contend-testbed-*; do [ "$d" = "$G" ] || [ -z "$(cat "$d"/tasks "$d"/*/tasks 2>/dev/null)" ] || echo "$d"; done; }
thr0=$(throttled)
riv=$(rivals)
t0=$(now)
# shellcheck disable=SC2086
$TB mpirun $MPIOPT -np $NP -- $LOPT "$@" >"$W/out" 2>&1 &
PID=$!
# Wait for the job to end; an MPICH job that printed its last line gets 5 s to finish, then
# it is ended (SIGTERM to mpiexec, which passes it to the ranks and the agents).
t1="" rc=""
k=0
while kill -0 "$PID" 2>/dev/null; do
	if [ -n "$END" ] && [ -z "$t1" ] && grep -q "$END" "$W/out"; then t1=$(now); fi
	if [ -n "$t1" ] && [ "$MPI" = mpich ] &&
		awk -v a="$t1" -v b="$(now)" 'BEGIN { exit !(b - a > 5) }'; then
		kill "$PID" 2>/dev/null; rc=ended; break
	fi
	k=$((k + 1))
	if [ $k -gt $((TIMEOUT * 10)) ]; then kill "$PID" 2>/dev/null; rc=timeout; break; fi
	sleep 0.1
done
wait "$PID"
st=$?
PID=""
t2=$(now)
[ -n "$rc" ] || rc=$st
tdrops=""
if [ $USETCPD -eq 1 ]; then
	for p in $TCPD_PIDS; do kill -INT "$p" 2>/dev/null; done
	for p in $TCPD_PIDS; do wait "$p" 2>/dev/null; done
	TCPD_PIDS=""
	tdrops=$(cat "$W"/ws*.tcpd | awk '/dropped by kernel/ { s += $1 } END { print s + 0 }')
	rm -f "$W"/ws*.pcap
fi
# MPICH's wall time ends at the program's last line; Open MPI's when mpirun returns.
if [ "$MPI" = mpich ] && [ -n "$t1" ]; then t2=$t1; fi
wall=$(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.3f", b - a }')
# The ranks' time without collect: the longest rank's life (an MPICH rank's up to the
# program's last line, where its wall time ends too); '-' unless every rank wrote its own.
exs=""
if [ -n "$LIFE" ]; then
	cut=""
	[ "$MPI" = mpich ] && cut=$t1
	exs=$(cat "$LIFE"/life-* 2>/dev/null | awk -v cut="$cut" -v np=$NP '
		NF == 2 { e = $2 / 1e9; if (cut != "" && e > cut + 0) e = cut + 0
			d = e - $1 / 1e9; if (d > m) m = d; n++ }
		END { if (n == np) printf "%.3f", m; else printf "-" }')
fi
thr=$(echo "$thr0 $(throttled)" | awk '{ for (i = 1; i <= 4; i++) printf "%s%.0f", (i > 1 ? "/" : ""), ($(i + 4) - $i) / 1e6 }')
riv=$(printf '%s\n%s\n' "$riv" "$(rivals)" | sort -u | grep -c .)

# The program's own time, in seconds.
case $PROG in
lammps) own=$(awk '/^Loop time of/ { print $4; exit }' "$W/out") ;;
# ScaLAPACK's WALL lines: LU time and solve time; QR's factorization time
lu) own=$(awk '$1 == "WALL" && NF >= 12 { s += $9 + $10; n++ } END { if (n) printf "%.2f", s }' "$W/out") ;;
qr) own=$(awk '$1 == "WALL" && NF >= 10 { s += $8; n++ } END { if (n) printf "%.2f", s }' "$W/out") ;;
mpb) own=$(awk '/^total elapsed time for run:/ { print $6; exit }' "$W/out") ;;
fel) own=$(tr -d ' \n' <fel.json 2>/dev/null | sed -n 's/.*"Totaltime":{[^}]*"timer":\([0-9.]*\).*/\1/p') ;;
# the longest replicate's "Time used = H hours, M minutes and S seconds"
garli) own=$(cat garli.run*.screen.log 2>/dev/null | awk '/^Time used =/ { t = $4 * 3600 + $6 * 60 + $9; if (t > m) m = t; n++ } END { if (n) print m }') ;;
esac
[ -n "$own" ] || own=-
case $rc in 0 | ended) ok=1 ;; *) ok=0 ;; esac
[ "$own" = - ] && ok=0
line="prog=$PROG layout=$LAYOUT mpi=$MPI scenario=$SCEN own_s=$own wall_s=$wall exit=$rc throttled_ms=$thr rivals=$riv"
[ $USECOLLECT -eq 1 ] && line="$line run=$RUN"
[ -n "$PMPI" ] && line="$line truth=$PMPI"
[ -n "$tdrops" ] && line="$line tcpdump_drops=$tdrops"
[ -n "$exs" ] && line="$line exec_s=$exs"
echo "$line"
if [ $ok -eq 0 ]; then
	echo "realapps: $PROG failed (exit $rc); its last lines:" >&2
	grep -v setpgid "$W/out" | tail -n 8 | sed 's/^/  | /' >&2
	exit 1
fi
exit 0
