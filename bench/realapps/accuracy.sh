#!/bin/sh
# bench/realapps/accuracy.sh: how close `contend predict` comes on third-party MPI programs.
# For every program, layout and MPI, R alternated rounds; each round runs the dedicated
# program under `contend collect` (its defaults), the bare program (the observer's own
# effect) and every scenario for real, in an order reversed every other round so that drift
# and other work on the machine hit every condition alike. Then each dedicated run is parsed,
# the median one is predicted under every scenario (the other dedicated runs given with
# --dedicated), and every model's number and the headline answer are set against the
# measured median. The headline's pick and interval are scored leave-one-program-out: the
# error table they come from holds the other programs' cells only (docs/validation.md);
# bench/realapps/score.sh scores them again from the written accuracy-raw.tsv. Every cell is
# also scored paired by round (each round's dedicated run predicted against the same round's
# scenario run, the median over rounds), which takes out the machine's drift between rounds.
#
# Writes into RESULTS: accuracy.md (the tables, the summary, machine and commands),
# accuracy-raw.tsv (one row per cell and model, with the headline's interval),
# accuracy-paired.tsv (one row per cell and model, paired by round), runs.tsv
# (every timed run), accuracy.tsv (the contend-accuracy error table `contend predict` loads
# from bench/results/realapps/, with a kind column), fig3.tsv, scenario-*.ini and the Figure
# 4-style chart accuracy.pdf and summary.tsv from `contend report --accuracy`.
#
# With --from DIR nothing runs on the testbed: the runs kept in DIR by an earlier -k DIR
# are parsed again (into a scratch copy: DIR is only read) and predicted and scored again
# with the current build, from the same timed runs, scenario files and settings, so that a
# change to parse or to a model is judged in minutes (docs/validation.md).
#
# Usage: sh bench/realapps/accuracy.sh [-S] [-r R] [-o RESULTS] [-k DIR] [-q]
#        sh bench/realapps/accuracy.sh --from DIR [-o RESULTS] [-q]
#   -r R        alternated rounds (default 3)
#   -o RESULTS  results directory (default bench/results/realapps; for -S a directory
#               under /tmp, printed at the end)
#   -S          the small form of make check: lu, 4x1, Open MPI, short inputs, one round,
#               scenarios cpu1 and link (-r, PROGS, LAYOUTS, MPIS, SCENARIOS still apply)
#   -k DIR      keep every run (captures, profiles, predictions) in DIR, with DIR/runs.txt
#               (every timed run) and DIR/settings.txt (what the runs were made with)
#   --from DIR  re-parse, re-predict and re-score the runs kept in DIR (its runs.txt, run
#               directories, scenario files and settings.txt) with the current build; the
#               results go to RESULTS (default a directory under /tmp, printed at the end)
#   -q          print only the tables and errors
# Environment: PROGS (default "lammps lu qr mpb fel garli"), LAYOUTS (default 4x1; 4x2
# and 4x4 supported; 2x1 alone, with PCT=100 for a core per workstation and no quota), MPIS (default "ompi mpich": MPICH runs lu and qr only), SCENARIOS (default
# "cpu1 cpu2 link both agg strict"), INSTANCE (testbed instance, default 15), BUILD, PCT, LINK,
# BURST, STRICT_BURST, LOADED, TIMEOUT as for run.sh, DELAYCOMM (a delay_comm calibration for
# p000 and the replay, from `contend predict --calibrate-delay-comm`; default: measured on the
# testbed before the runs when agg is among the scenarios; agg's comm_bandwidth is its
# uncapped transfer's rate, and --from writes agg's scenario files again with it). With --from the programs,
# layouts, MPIs, scenarios and rounds are runs.txt's and PCT, LINK, BURST, STRICT_BURST and
# LOADED settings.txt's (the environment's when DIR has none); DELAYCOMM is the
# environment's when given, else settings.txt's. PARSEOPTS: options for `contend parse` of
# the dedicated runs (default none), with or without --from.
# WALL_OFFSET: how a prediction of the ranks' time becomes a job's wall time: launcher
# (default: the bare runs' median wall less their own ranks' time, run.sh's exec_s; runs
# kept without it fall back to bare), bare (the bare runs' median wall less the dedicated
# ranks' time) or dedicated (the dedicated run's own wall less its ranks' time, which holds
# collect's start and drain).
# Exit: 0 every cell has its numbers, 1 something failed (said on stderr), 2 usage, 77 a
# package or the testbed is missing (the line says which).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=$TOP/${BUILD:-build}
case ${BUILD:-build} in /*) B=$BUILD ;; esac
export CONTEND=${CONTEND:-$B/contend}
export INSTANCE=${INSTANCE:-15}
INST=$INSTANCE
PCT=${PCT:-50}
LINK=${LINK:-100mbit}
BURST=${BURST:-}
LOADED=${LOADED:-2}
export PCT LINK BURST LOADED
RUNSH=$TOP/bench/realapps/run.sh
. "$TOP/bench/lib.sh"
R="" RES="" SMALL=0 KEEPDIR="" QUIET=0 FROM="" SMALLOPT="" DC_KEPT=""
SCEN_GIVEN=false
[ -z "${SCENARIOS:-}" ] || SCEN_GIVEN=true
CMDLINE="sh bench/realapps/accuracy.sh $*"
usage() { sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
if [ "${1:-}" = --from ]; then
	[ $# -ge 2 ] && [ -n "$2" ] || usage
	FROM=$2
	shift 2
fi
while getopts r:o:Sk:qh c; do
	case $c in
	r) R=$OPTARG ;;
	o) RES=$OPTARG ;;
	S) SMALL=1 ;;
	k) KEEPDIR=$OPTARG ;;
	q) QUIET=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
if [ -n "$FROM" ]; then
	[ -z "$R" ] && [ $SMALL -eq 0 ] && [ -z "$KEEPDIR" ] ||
		{ echo "realapps-accuracy: --from takes only -o and -q (the runs are DIR's)" >&2; exit 2; }
	[ -r "$FROM/runs.txt" ] ||
		{ echo "realapps-accuracy: no $FROM/runs.txt (a directory kept with -k)" >&2; exit 1; }
	K=$(cd "$FROM" && pwd)
	# What the runs were made with: DIR/settings.txt (KEY<tab>value); the sets and the
	# scenarios from runs.txt, in the order they ran, when it has none (kept before it was
	# written: the rest then comes from the environment).
	setting() { [ -r "$K/settings.txt" ] && awk -F'\t' -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$K/settings.txt"; }
	firsts() { awk -F'\t' -v c="$1" '{ split($1, a, "-"); v = c ? a[c] : $4 }
		!c && (v == "ded" || v == "bare") { next } !(v in s) { s[v]; printf "%s%s", n++ ? " " : "", v }' "$K/runs.txt"; }
	PROGS=$(firsts 1) LAYOUTS=$(firsts 2) MPIS=$(firsts 3) SCENARIOS=$(firsts 0)
	R=$(awk -F'\t' '$2 > r { r = $2 } END { print r + 0 }' "$K/runs.txt")
	DC_GIVEN=${DELAYCOMM:-}
	for v in PCT LINK BURST LOADED STRICT_BURST DELAYCOMM INST LOAD0 SMALLOPT MEASURED_AT MEASURED_COMMIT \
		MEASURED_CONTEND MEASURED_CMDLINE MEASURED_SECS; do
		val=$(setting $v) && eval "$v=\$val"
	done
	# a calibration given now is used (the runs' own, if any, is said in accuracy.md)
	if [ -n "$DC_GIVEN" ]; then
		DC_KEPT=${DELAYCOMM:-none}
		DELAYCOMM=$DC_GIVEN
	fi
	[ -r "$K/settings.txt" ] ||
		echo "realapps-accuracy: no $K/settings.txt: PCT, LINK, BURST, LOADED, DELAYCOMM from the environment" >&2
fi
[ -n "$R" ] || { if [ $SMALL -eq 1 ]; then R=1; else R=3; fi; }
case $R in '' | *[!0-9]* | 0) echo "realapps-accuracy: -r must be a positive count" >&2; exit 2 ;; esac
if [ $SMALL -eq 1 ]; then
	PROGS=${PROGS:-lu} LAYOUTS=${LAYOUTS:-4x1} MPIS=${MPIS:-ompi} SCENARIOS=${SCENARIOS:-cpu1 link}
	SMALLOPT=--small
fi
PROGS=${PROGS:-lammps lu qr mpb fel garli}
LAYOUTS=${LAYOUTS:-4x1}
MPIS=${MPIS:-ompi mpich}
SCENARIOS=${SCENARIOS:-cpu1 cpu2 link both agg strict}
for sc in $SCENARIOS; do
	case $sc in cpu1 | cpu2 | link | both | agg | strict) ;;
	*) echo "realapps-accuracy: unknown scenario '$sc' (cpu1 cpu2 link both agg strict)" >&2; exit 2 ;; esac
done
# Scored besides the scenarios: bare, the program alone (a scenario without sections, the
# replay's dedicated run with collect's capture and agents taken out) against the bare runs every
# round has anyway: what predict leaves of collect's cost in the base it stretches.
SCORED="$SCENARIOS bare"
for l in $LAYOUTS; do
	case $l in 4x1 | 4x2 | 4x4) NWS=4 ;; 2x1) NWS=2 ;; *) echo "realapps-accuracy: unknown layout '$l' (4x1, 4x2, 4x4, 2x1)" >&2; exit 2 ;; esac
done
# 2x1 (two workstations: with PCT=100 a core each, no quota) runs alone: its testbed has two
# workstations, and agg needs four
case " $LAYOUTS " in *" 2x1 "*)
	[ "$LAYOUTS" = 2x1 ] || { echo "realapps-accuracy: layout 2x1 runs alone (LAYOUTS=2x1)" >&2; exit 2; }
	case " $SCENARIOS " in *" agg "*)
		! $SCEN_GIVEN || { echo "realapps-accuracy: agg needs 4 workstations, not layout 2x1" >&2; exit 2; }
		SCENARIOS=$(echo "$SCENARIOS" | sed 's/ *agg//') ;;
	esac ;;
esac
# The cells' program sets: PROG:LAYOUT:MPI
SETS=""
for p in $PROGS; do
	case $p in lammps | lu | qr | mpb | fel | garli) ;;
	*) echo "realapps-accuracy: unknown program '$p' (run.sh --list)" >&2; exit 2 ;; esac
	for l in $LAYOUTS; do
		for m in $MPIS; do
			case $m:$p in ompi:* | mpich:lu | mpich:qr) SETS="$SETS $p:$l:$m" ;;
			mpich:*) ;;
			*) echo "realapps-accuracy: unknown MPI '$m' (ompi, mpich)" >&2; exit 2 ;; esac
		done
	done
done
[ -n "$SETS" ] || { echo "realapps-accuracy: no program set to run" >&2; exit 2; }
[ -x "$CONTEND" ] || { echo "realapps-accuracy: no $CONTEND (make)" >&2; exit 1; }
say() { [ $QUIET -eq 1 ] || echo "realapps-accuracy: $*" >&2; }

if [ -n "$KEEPDIR" ]; then
	mkdir -p "$KEEPDIR" || exit 1
	W=$(cd "$KEEPDIR" && pwd)
else
	W=$(mktemp -d "${TMPDIR:-/tmp}/contend-realapps-acc.XXXXXX") || exit 1
fi
[ -n "$RES" ] || { if [ $SMALL -eq 1 ] || [ -n "$FROM" ]; then RES=$W/results; else RES=$TOP/bench/results/realapps; fi; }
mkdir -p "$RES" || exit 1
RES=$(cd "$RES" && pwd)
TB="$CONTEND testbed --instance $INST"
cleanup() {
	[ -n "$FROM" ] || { $TB unload >/dev/null 2>&1; $TB down >/dev/null 2>&1; }
	[ -n "$KEEPDIR" ] || [ $SMALL -eq 1 ] || [ -n "$FROM" ] || rm -rf "$W"
	[ -n "$KEEPDIR" ] || { [ $SMALL -eq 0 ] && [ -z "$FROM" ]; } ||
		find "$W" -mindepth 1 -maxdepth 1 ! -name results -exec rm -rf {} +
	[ -n "$KEEPDIR" ] || rmdir "$W" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

T0=$(date +%s)
[ -n "$FROM" ] || LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
RUNS=$W/runs.txt	# set round order condition wall_s own_s exit run load1 rivals throttled_ms exec_s
fail=0
COMMIT=$(git -C "$TOP" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
# delay_comm for the agg scenario (paper 000 eq. 2's communicating competitors): measured on
# this testbed, as paper 000 measures it on its own platform, unless DELAYCOMM names a file.
# Its transfers are uncapped and CPU-bound here, which the paper's curves (a 1990s Ethernet,
# where a transfer cost its host little CPU) do not say.
if [ -z "$FROM" ] && [ -z "${DELAYCOMM:-}" ]; then
	case " $SCENARIOS " in *" agg "*)
		say "calibrating delay_comm (paper 000 eq. 2) on testbed $INST"
		$TB down >/dev/null 2>&1
		if ! $TB up -n 4 --cpu-pct all="$PCT" >"$W/up.log" 2>&1; then
			echo "realapps-accuracy: testbed $INST: $(tail -n 1 "$W/up.log")" >&2
			exit 1
		elif calibrate_delay_comm "$INST" "$W" "$SMALL"; then
			DELAYCOMM=$W/delaycomm.tsv
			cp "$W/delaycomm.tsv" "$W/delaycomm.log" "$RES/"
		else
			echo "realapps-accuracy: delay_comm calibration failed ($(tail -n 1 "$W/delaycomm.log")); p000 and the replay use the paper's curves" >&2
		fi ;;
	esac
fi
# agg's parallel competitor sends over an uncapped link, as fast as its CPU lets it: the
# bandwidth its delay_comm is read at is the rate the calibration's uncapped transfer
# reached (bench/accuracy does the same). The dedicated run's own bandwidth estimate, used
# until 2026-11-26, is a number about the program's messages, not the competitor's link: it
# came out 22 MB/s to 1.66 GB/s on the same link, and with it delay_comm 0 to 3.77.
AGG_BW=""
[ -z "${DELAYCOMM:-}" ] || AGG_BW=$(calib_uncapped_Bps "$DELAYCOMM")
[ -n "$AGG_BW" ] || case " $SCENARIOS " in *" agg "*)
	echo "realapps-accuracy: no uncapped rate in the delay_comm calibration: agg's comm_bandwidth is each run's bandwidth estimate" >&2 ;;
esac
if [ -z "$FROM" ]; then
	: >"$RUNS"
	{
		printf 'MEASURED_AT\t%s\nMEASURED_COMMIT\t%s\nMEASURED_CONTEND\t%s\nMEASURED_CMDLINE\t%s\n' \
			"$(date -u '+%Y-%m-%d %H:%M UTC')" "$COMMIT" "$("$CONTEND" version 2>/dev/null | head -n 1)" "$CMDLINE"
		printf 'PCT\t%s\nLINK\t%s\nBURST\t%s\nLOADED\t%s\nSTRICT_BURST\t%s\nDELAYCOMM\t%s\n' \
			"$PCT" "$LINK" "$BURST" "$LOADED" "${STRICT_BURST:-}" "${DELAYCOMM:-}"
		printf 'INST\t%s\nLOAD0\t%s\nSMALLOPT\t%s\n' "$INST" "$LOAD0" "$SMALLOPT"
	} >"$W/settings.txt"
fi

# One timed run: set condition round order; appends to RUNS. Returns run.sh's status.
one() {
	p=${1%%:*} rest=${1#*:}
	l=${rest%%:*} m=${rest#*:}
	tag=$(echo "$1" | tr : -)
	opt=""
	case $2 in
	ded) opt="--collect '' --run $W/$tag-ded-$3" ;;
	bare) ;;
	*) opt="--scenario $2" ;;
	esac
	# shellcheck disable=SC2086
	out=$(eval sh "\"$RUNSH\"" "$p" "$l" "$m" $opt $SMALLOPT 2>"$W/run.err")
	rc=$?
	[ $rc -eq 77 ] && { echo "$out" | grep 'skipped:'; exit 77; }
	wall=$(echo "$out" | sed -n 's/.* wall_s=\([^ ]*\).*/\1/p')
	own=$(echo "$out" | sed -n 's/.* own_s=\([^ ]*\).*/\1/p')
	ex=$(echo "$out" | sed -n 's/.* exit=\([^ ]*\).*/\1/p')
	# a bare or scenario run's ranks' time (run.sh's exec_s), apart from mpirun's
	exs=$(echo "$out" | sed -n 's/.* exec_s=\([^ ]*\).*/\1/p')
	# other testbed instances with tasks around the run, and each workstation's time
	# throttled by its quota: a run beside a rival can be told from the model's error
	riv=$(echo "$out" | sed -n 's/.* rivals=\([^ ]*\).*/\1/p')
	thr=$(echo "$out" | sed -n 's/.* throttled_ms=\([^ ]*\).*/\1/p')
	if [ $rc -ne 0 ] || [ -z "$wall" ]; then
		echo "realapps-accuracy: $tag $2 round $3 failed: $(tail -n 3 "$W/run.err" | tr '\n' ' ')" >&2
		return 1
	fi
	run=-
	[ "$2" = ded ] && run=$W/$tag-ded-$3
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$3" "$4" "$2" "$wall" "${own:--}" "${ex:--}" "$run" \
		"$(cut -d' ' -f1 /proc/loadavg)" "${riv:--}" "${thr:--}" "${exs:--}" >>"$RUNS"
	say "$tag $2 round $3: wall $wall s, own ${own:--} s"
	return 0
}

# The runs: every round, each set, every condition; the order reverses every other round.
CONDS="ded bare $SCENARIOS"
RCONDS=$(echo "$CONDS" | awk '{ for (i = NF; i >= 1; i--) printf "%s%s", $i, (i > 1 ? " " : "") }')
round=1
while [ -z "$FROM" ] && [ $round -le "$R" ]; do
	for set in $SETS; do
		if [ $((round % 2)) -eq 1 ]; then order=$CONDS; else order=$RCONDS; fi
		k=1
		for cond in $order; do
			one "$set" "$cond" "$round" "$k" || fail=1
			k=$((k + 1))
		done
	done
	round=$((round + 1))
done
# --from: the kept timed runs, each dedicated run in a scratch directory of its own whose
# inputs (capture, samples, sockets, meta) are links to the kept ones: parse writes the new
# profile and predict its files there, and DIR stays as it was.
if [ -n "$FROM" ]; then
	awk -F'\t' -v OFS='\t' -v w="$W" '$8 != "-" { n = split($8, a, "/"); $8 = w "/" a[n] } { print }' \
		"$K/runs.txt" >"$RUNS"
	for run in $(awk -F'\t' '$4 == "ded" && $8 != "-" { print $8 }' "$RUNS"); do
		kept=$K/$(basename "$run")
		[ -d "$kept" ] || { echo "realapps-accuracy: no kept run $kept" >&2; fail=1; continue; }
		mkdir -p "$run" || exit 1
		for e in "$kept"/*; do
			case ${e##*/} in profile | predict) ;; *) ln -s "$e" "$run/${e##*/}" ;; esac
		done
	done
fi

# Parse every dedicated run (parse's defaults); keep its exec time (the longest rank's).
exec_ns() {
	awk -F'\t' 'NR > 2 && $1 !~ /^#/ && $3 + 0 > m { m = $3 + 0 } END { if (m > 0) printf "%.0f\n", m }' \
		"$1/profile/ranks.tsv" 2>/dev/null
}
DED=$W/ded.txt	# set round wall_ns exec_ns run
: >"$DED"
awk -F'\t' '$4 == "ded" { print $1, $2, $5, $8 }' "$RUNS" | while read -r tag rd wall run; do
	# shellcheck disable=SC2086
	"$CONTEND" parse -q ${PARSEOPTS:-} "$run" </dev/null >"$run.parse" 2>&1
	t=$(exec_ns "$run")
	# a partial parse (an MPICH job ended after its last line) still writes its profile
	if [ -z "$t" ]; then
		echo "realapps-accuracy: parse of $tag round $rd gave no exec time: $(tail -n 1 "$run.parse")" >&2
		continue
	fi
	[ -n "$KEEPDIR" ] || rm -rf "$run/capture"
	echo "$tag $rd $(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1e9 }') $t $run" >>"$DED"
done

ws() { echo "c${INST}ws$1"; }
rate_ini() { echo "$1" | sed 's/gbit$/ Gbit\/s/; s/mbit$/ Mbit\/s/; s/kbit$/ kbit\/s/'; }
# The link's token bucket in bytes, as the testbed builds it: BURST (k, M, G are 1024s), or
# 10 ms at the rate and at least 16 KiB (testbed/tb_net.c).
burst_ini() {
	awk -v r="$LINK" -v b="$BURST" 'function num(s, k,   v, u) { v = s + 0; u = s; sub(/^[0-9.]+/, "", u)
			u = tolower(substr(u, 1, 1)); return v * (u == "g" ? k * k * k : u == "m" ? k * k : u == "k" ? k : 1) }
		BEGIN { if (b != "") n = num(b, 1024); else { n = num(r, 1000) / 8 / 100; if (n < 16384) n = 16384 }
			printf "%.0f B\n", n }'
}
# The scenario given to predict: what run.sh's real run of the condition had.
scenario_ini() {	# scenario bw_Bps
	WS=$(ws "$LOADED")
	echo "[scenario]"
	case $1 in
	cpu1) echo "description = one CPU-bound competitor on $WS" ;;
	cpu2) echo "description = two CPU-bound competitors on $WS" ;;
	link) echo "description = $WS's link at $(rate_ini "$LINK")" ;;
	strict) echo "description = $WS's link at $(rate_ini "$LINK"), no burst (a ${STRICT_BURST:-3000} B bucket)" ;;
	both) echo "description = one CPU-bound competitor on $WS and its link at $(rate_ini "$LINK")" ;;
	agg) echo "description = a serial competitor on $(ws 1), a parallel one (bulk transfers half the time) on $(ws 3) and $(ws 4)" ;;
	bare) echo "description = the program alone, without collect" ;;
	esac
	case $1 in
	cpu1 | both) printf '[node %s]\ncpu_procs = 1\n' "$WS" ;;
	cpu2) printf '[node %s]\ncpu_procs = 2\n' "$WS" ;;
	agg)
		printf '[node %s]\ncpu_procs = 1\n' "$(ws 1)"
		for h in "$(ws 3)" "$(ws 4)"; do
			printf '[node %s]\ncomm_procs = 1\ncomm_fraction = 0.5\ncompute_fraction = 0\ncomm_bandwidth = %s B/s\n' "$h" "$2"
		done ;;
	esac
	case $1 in
	link | both | strict)
		b=$(burst_ini)
		[ "$1" = strict ] && b=$(BURST=${STRICT_BURST:-3000} burst_ini)
		for i in $(seq 1 "$NWS"); do
			[ $i -ne "$LOADED" ] && printf '[link %s-%s]\nbandwidth = %s\nburst = %s\n' "$WS" "$(ws $i)" \
				"$(rate_ini "$LINK")" "$b"
		done ;;
	esac
}

# Stats of a list of numbers on stdin: "median min max n" (median of an even count: the mean
# of the middle two).
stats() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit 1
		printf "%.0f %.0f %.0f %d\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR], NR }'
}

# Pass 1: every model's number, from an empty error table (the numbers do not depend on it;
# the headline's pick and interval do: they come in pass 2).
EMPTY=$W/empty-errors.tsv
printf '# contend-accuracy 1\nworkload\tscenario\tmodel\tpredicted_ns\tmeasured_min_ns\tmeasured_max_ns\tkind\n' >"$EMPTY"
CELLS=$W/cells.txt	# tag prog kind scen med min max n ded_wall_ns offset_ns base desc
: >"$CELLS"
PRED=$W/pred.txt	# tag scen model predicted_wall_ns | n/a
: >"$PRED"
FIG3=$RES/fig3.tsv
printf '# contend-fig3 1\nworkload\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tlink_msgs\tlink_avg_bytes\tranks\n' >"$FIG3"
SPREAD=$W/spread.txt	# tag ded_med ded_min ded_max n bare_med bare_min bare_max n exec_med [bare_exec_med]
: >"$SPREAD"
rm -f "$RES"/scenario-*.ini
predict_cell() {	# base ini errors others... -> the predict TSV's path, or nothing
	b=$1 i=$2 e=$3
	shift 3
	dopt=""
	[ -n "${DELAYCOMM:-}" ] && dopt="--delay-comm $DELAYCOMM"
	for o in "$@"; do dopt="$dopt --dedicated $o"; done
	# shellcheck disable=SC2086
	"$CONTEND" predict "$b" --scenario "$i" --errors "$e" $dopt </dev/null >"$i.$(basename "$e").out" 2>&1
	n=$(basename "$i" .ini)
	[ -f "$b/predict/$n.tsv" ] && echo "$b/predict/$n.tsv"
}
for set in $SETS; do
	tag=$(echo "$set" | tr : -)
	prog=${set%%:*}
	# the base: the dedicated run of median exec time (the lower median); the others widen
	base=$(awk -v t="$tag" '$1 == t { print $4, $5 }' "$DED" | sort -n | awk '{ a[NR] = $2 } END { if (NR) print a[int((NR + 1) / 2)] }')
	[ -n "$base" ] || { echo "realapps-accuracy: $tag: no parsed dedicated run" >&2; fail=1; continue; }
	others=$(awk -v t="$tag" -v b="$base" '$1 == t && $5 != b { print $5 }' "$DED")
	echo "$base $others" >"$W/$tag.dedruns"
	bline=$(awk -v t="$tag" -v b="$base" '$1 == t && $5 == b { print $3, $4 }' "$DED")
	dstat=$(awk -F'\t' -v t="$tag" '$1 == t && $4 == "ded" { printf "%.0f\n", $5 * 1e9 }' "$RUNS" | stats)
	bstat=$(awk -F'\t' -v t="$tag" '$1 == t && $4 == "bare" { printf "%.0f\n", $5 * 1e9 }' "$RUNS" | stats)
	# The job's time outside its ranks (mpirun's start and end). The scenarios run bare,
	# and a bare run records its ranks' time (run.sh's exec_s): the offset is the median
	# over the bare runs of wall less exec, mpirun's part alone (WALL_OFFSET=launcher, the
	# default where the runs have it). The older readings: the bare runs' median wall less
	# the base's longest rank (bare), which also takes the observer's slowing of the base
	# off every prediction, hidden under a capped link's waits or not; and the dedicated
	# run's own wall less its ranks' (dedicated), which holds collect's start and drain.
	lstat=$(awk -F'\t' -v t="$tag" '$1 == t && $4 == "bare" && $12 + 0 > 0 { printf "%.0f\n", ($5 - $12) * 1e9 }' "$RUNS" | stats)
	xstat=$(awk -F'\t' -v t="$tag" '$1 == t && $4 == "bare" && $12 + 0 > 0 { printf "%.0f\n", $12 * 1e9 }' "$RUNS" | stats)
	ded_off=$(echo "$bline" | awk '{ printf "%.0f", $1 - $2 }')
	bare_off=$ded_off
	[ -z "$bstat" ] || bare_off=$(echo "$bline ${bstat%% *}" | awk '{ printf "%.0f", $3 - $2 }')
	case ${WALL_OFFSET:-launcher} in
	launcher) offset=${lstat%% *}; [ -n "$lstat" ] || offset=$bare_off ;;
	bare) offset=$bare_off ;;
	*) offset=$ded_off ;;
	esac
	emed=$(awk -v t="$tag" '$1 == t { print $4 }' "$DED" | stats | cut -d' ' -f1)
	echo "$tag ${dstat:-- - - 0} ${bstat:-- - - 0} ${emed:--}${xstat:+ ${xstat%% *}}" >>"$SPREAD"
	awk -F'\t' -v wl="$tag" '
		FNR == 1 { f++ } FNR <= 2 || /^#/ { next }
		f == 1 { n++; if ($3 > ex) ex = $3; cp += $4; cm += $5; id += $6
			if ($7 >= 0) { bu += $7; nb++ } if ($8 >= 0) { il += $8; ni++ } }
		f == 2 && $3 + 0 > lm { lm = $3 + 0; la = $5 + 0 }
		END { if (!n) exit 1
			printf "%s\t%.0f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%d\t%.0f\t%d\n", wl, ex, cp / n, cm / n, id / n,
				nb ? bu / nb : -1, ni ? il / ni : -1, lm, la, n }' \
		"$base/profile/ranks.tsv" "$base/profile/links.tsv" >>"$FIG3" 2>/dev/null
	bw=$(awk -F'\t' '$1 == "bw_Bps" { printf "%.0f", $2 }' "$base/profile/netparams.tsv" 2>/dev/null)
	for sc in $SCORED; do
		mstat=$(awk -F'\t' -v t="$tag" -v s="$sc" '$1 == t && $4 == s { printf "%.0f\n", $5 * 1e9 }' "$RUNS" | stats)
		[ -n "$mstat" ] || { echo "realapps-accuracy: $tag $sc: no measured run" >&2; fail=1; continue; }
		ini=$W/$tag-$sc.ini
		# --from: the scenario file the runs were predicted with; agg's written again when
		# the calibration has its uncapped rate (a kept one may hold the run's estimate)
		if [ -n "$FROM" ] && [ -f "$K/$tag-$sc.ini" ] && ! { [ "$sc" = agg ] && [ -n "$AGG_BW" ]; }; then
			cp "$K/$tag-$sc.ini" "$ini"
		else
			scenario_ini "$sc" "${AGG_BW:-${bw:-125000000}}" >"$ini"
		fi
		cp "$ini" "$RES/scenario-$tag-$sc.ini"
		# shellcheck disable=SC2086
		tsv=$(predict_cell "$base" "$ini" "$EMPTY" $others)
		[ -n "$tsv" ] || { echo "realapps-accuracy: predict $tag $sc: $(tail -n 1 "$ini.$(basename "$EMPTY").out")" >&2; fail=1; continue; }
		cp "$tsv" "$W/$tag-$sc.pass1.tsv"
		kind=$(awk -F'\t' '$3 == "headline" && $4 != "none" { split($10, a, " "); print a[1]; exit }' "$tsv")
		desc=$(sed -n 's/^description = //p' "$ini")
		echo "$tag $prog ${kind:--} $sc $mstat $(echo "$dstat" | cut -d' ' -f1) $offset $base $desc" >>"$CELLS"
		# every model's number in wall terms (+ offset: mpirun's start and end around the
		# ranks), and the headline's ("contend")
		awk -F'\t' -v t="$tag" -v s="$sc" -v off="$offset" '
			NR <= 2 || /^#/ || $1 == "-" { next }
			$3 == "n/a" { print t, s, $1, "n/a"; next }
			$3 == "total" && $4 == "total" && $5 + 0 > 0 { printf "%s %s %s %.0f\n", t, s, $1, $5 + off }
			$3 == "headline" && $4 == "predicted" && $5 + 0 > 0 { printf "%s %s contend %.0f\n", t, s, $5 + off }' \
			"$tsv" >>"$PRED"
	done
done

# The error table predict loads: every model's cells, wall terms, the program's kind.
ACC=$RES/accuracy.tsv
acc_table() {	# [program to leave out]
	printf '# contend-accuracy 1\nworkload\tscenario\tmodel\tdedicated_ns\tpredicted_ns\tmeasured_ns\tmeasured_min_ns\tmeasured_max_ns\treps\terror_pct\tdescription\tkind\n'
	awk -v out="${1:-}" '
		FNR == NR { c = $1 " " $4; prog[c] = $2; kind[c] = $3; med[c] = $5; mn[c] = $6; mx[c] = $7; n[c] = $8
			ded[c] = $9; d = ""; for (i = 12; i <= NF; i++) d = d (i > 12 ? " " : "") $i; desc[c] = d; next }
		$4 == "n/a" { next }
		{ c = $1 " " $2; if (!(c in med) || prog[c] == out) next
		  printf "%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%+.1f\t%s\t%s\n", $1, $2, $3, ded[c] + 0, $4,
			med[c], mn[c], mx[c], n[c], 100 * ($4 - med[c]) / med[c], desc[c], kind[c] }' "$CELLS" "$PRED"
}
acc_table >"$ACC"

# Pass 2: the headline's pick and interval, leave-one-program-out: each program's cells are
# predicted with an error table of the other programs' cells only.
HL=$W/hl.txt	# tag scen lo_wall hi_wall pred_wall
: >"$HL"
for p in $(awk '{ print $2 }' "$CELLS" | sort -u); do
	acc_table "$p" >"$W/lopo-$p.tsv"
	awk -v p="$p" '$2 == p { print $1, $4, $10, $11 }' "$CELLS" | while read -r tag sc off base; do
		# shellcheck disable=SC2046
		tsv=$(predict_cell "$base" "$W/$tag-$sc.ini" "$W/lopo-$p.tsv" $(cut -d' ' -f2- "$W/$tag.dedruns"))
		[ -n "$tsv" ] || { echo "realapps-accuracy: predict $tag $sc (leave $p out) failed" >&2; continue; }
		cp "$tsv" "$W/$tag-$sc.lopo.tsv"
		awk -F'\t' -v t="$tag" -v s="$sc" -v off="$off" '
			$3 == "headline" && $5 + 0 > 0 { v[$4] = $5 + off }
			END { if (("lo" in v) && ("hi" in v) && ("predicted" in v))
				printf "%s %s %.0f %.0f %.0f\n", t, s, v["lo"], v["hi"], v["predicted"] }' "$tsv" >>"$HL"
	done
done
# The headline's number is pass 2's: its pick, like its interval, comes from the other
# programs' cells (pass 1 had no table: the rules alone). The error table gets it too.
awk -v hlf="$HL" 'FILENAME == hlf { p[$1 " " $2] = $5; next }
	$3 == "contend" && (($1 " " $2) in p) { $4 = p[$1 " " $2] } { print }' "$HL" "$PRED" >"$PRED.2" &&
	mv "$PRED.2" "$PRED"
acc_table >"$ACC"

# Paired by round: the machine drifts over minutes (a round of a long program can run
# 40 % slower than the one before, every condition alike), which the medians above do not
# cancel: the dedicated run predicted from and the measured scenario median may come from
# rounds of different speed. So every round's dedicated run is also predicted on its own
# (the other dedicated runs widening, the same leave-one-out table) and set against the
# same round's scenario run, its wall offset the same round's bare run less its ranks'
# time; a cell's paired error is the median over rounds. Both are reported.
PAIRED=$W/paired.txt	# tag scen round model pred_wall meas_wall lo_wall hi_wall
: >"$PAIRED"
awk '{ print $1, $2, $4, $5 }' "$DED" | while read -r tag rd ex run; do
	prog=${tag%%-*}
	[ -f "$W/lopo-$prog.tsv" ] || continue
	bw=$(awk -F'\t' -v t="$tag" -v r="$rd" '$1 == t && $2 == r && $4 == "bare" { printf "%.0f", $5 * 1e9 }' "$RUNS")
	[ -n "$bw" ] || continue
	off=$((bw - ex))
	# with the bare run's ranks' time, mpirun's part alone (as for the medians above)
	bx=$(awk -F'\t' -v t="$tag" -v r="$rd" '$1 == t && $2 == r && $4 == "bare" && $12 + 0 > 0 { printf "%.0f", $12 * 1e9 }' "$RUNS")
	[ "${WALL_OFFSET:-launcher}" = launcher ] && [ -n "$bx" ] && off=$((bw - bx))
	others=$(awk -v t="$tag" -v b="$run" '$1 == t && $5 != b { print $5 }' "$DED")
	for sc in $SCORED; do
		mw=$(awk -F'\t' -v t="$tag" -v r="$rd" -v s="$sc" '$1 == t && $2 == r && $4 == s { printf "%.0f", $5 * 1e9 }' "$RUNS")
		[ -n "$mw" ] && [ -f "$W/$tag-$sc.ini" ] || continue
		# shellcheck disable=SC2086
		tsv=$(predict_cell "$run" "$W/$tag-$sc.ini" "$W/lopo-$prog.tsv" $others)
		[ -n "$tsv" ] || { echo "realapps-accuracy: predict $tag $sc from round $rd failed" >&2; fail=1; continue; }
		awk -F'\t' -v t="$tag" -v s="$sc" -v r="$rd" -v off="$off" -v mw="$mw" '
			NR <= 2 || /^#/ || $1 == "-" { next }
			$3 == "total" && $4 == "total" && $5 + 0 > 0 { printf "%s %s %s %s %.0f %s - -\n", t, s, r, $1, $5 + off, mw }
			$3 == "headline" && $5 + 0 > 0 { v[$4] = $5 + off }
			END { if (("lo" in v) && ("hi" in v) && ("predicted" in v))
				printf "%s %s %s contend %.0f %s %.0f %.0f\n", t, s, r, v["predicted"], mw, v["lo"], v["hi"] }' \
			"$tsv" >>"$PAIRED"
	done
done
# One row per cell and model: the median over rounds of the round's error, the rounds'
# errors, and for the headline how many rounds fell inside that round's interval.
PRAW=$RES/accuracy-paired.tsv
{
	printf '# contend-realapps-paired 1\n'
	printf 'prog\tlayout\tmpi\tscenario\tmodel\trounds\terror_pct\tround_errors_pct\tinside\n'
	sort -k1,1 -k2,2 -k4,4 -k3,3n "$PAIRED" | awk -v OFS='\t' '
		function flush(   i, j, t, v, m) { if (!n) return
			for (i = 1; i <= n; i++) v[i] = e[i]
			for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
			m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			split(key, a, " "); split(a[1], b, "-")
			print b[1], b[2], b[3], a[2], a[3], n, sprintf("%+.2f", m), list, a[3] == "contend" ? ins "/" n : "-"
			n = 0; list = ""; ins = 0 }
		{ k = $1 " " $2 " " $4; if (k != key) { flush(); key = k }
		  e[++n] = 100 * ($5 - $6) / $6; list = list (n > 1 ? "," : "") sprintf("%+.1f", e[n])
		  if ($4 == "contend") ins += ($7 <= $6 && $6 <= $8) }
		END { flush() }'
} >"$PRAW"

# The raw table: one row per cell and model (the headline as "contend", with its interval).
RAW=$RES/accuracy-raw.tsv
{
	printf '# contend-realapps-accuracy 1\n'
	printf 'prog\tlayout\tmpi\tkind\tscenario\tmodel\tdedicated_ns\tpredicted_ns\tmeasured_ns\tmeasured_min_ns\tmeasured_max_ns\treps\terror_pct\tlo_ns\thi_ns\tinside\twidth_pct\n'
	awk -v OFS='\t' -v cells="$CELLS" -v hlf="$HL" '
		FILENAME == cells { c = $1 " " $4; kind[c] = $3; med[c] = $5; mn[c] = $6; mx[c] = $7; n[c] = $8; ded[c] = $9; next }
		FILENAME == hlf { c = $1 " " $2; lo[c] = $3; hi[c] = $4; next }
		{ c = $1 " " $2; if (!(c in med)) next
		  split($1, a, "-")
		  if ($4 == "n/a") { print a[1], a[2], a[3], kind[c], $2, $3, ded[c], "n/a", med[c], mn[c], mx[c], n[c], "-", "-", "-", "-", "-"; next }
		  e = sprintf("%+.2f", 100 * ($4 - med[c]) / med[c])
		  if ($3 == "contend" && (c in lo))
			print a[1], a[2], a[3], kind[c], $2, $3, ded[c], $4, med[c], mn[c], mx[c], n[c], e, lo[c], hi[c],
				(lo[c] <= med[c] && med[c] <= hi[c]) ? "yes" : "no", sprintf("%.2f", 100 * (hi[c] - lo[c]) / $4)
		  else
			print a[1], a[2], a[3], kind[c], $2, $3, ded[c], $4, med[c], mn[c], mx[c], n[c], e, "-", "-", "-", "-" }' \
		"$CELLS" "$HL" "$PRED"
} >"$RAW"
{
	printf '# contend-realapps-runs 1\nset\tround\torder\tcondition\twall_s\town_s\texit\tload1\trivals\tthrottled_ms\texec_s\n'
	# runs kept before rivals, throttled_ms and exec_s were recorded: '-'
	awk -F'\t' -v OFS='\t' '{ print $1, $2, $3, $4, $5, $6, $7, $9, (NF >= 10 ? $10 : "-"), (NF >= 11 ? $11 : "-"), (NF >= 12 ? $12 : "-") }' "$RUNS"
} >"$RES/runs.tsv"

# Figure 4 through contend report (and summary.tsv).
"$CONTEND" report --accuracy "$RES" -q >"$W/report.log" 2>&1 ||
	{ echo "realapps-accuracy: contend report --accuracy failed: $(tail -n 1 "$W/report.log")" >&2; fail=1; }

# Every cell must have the headline with its interval.
ncell=$(wc -l <"$CELLS")
nhl=$(awk -F'\t' 'NR > 2 && $6 == "contend" && $16 != "-"' "$RAW" | wc -l)
[ "$ncell" -gt 0 ] && [ "$nhl" -eq "$ncell" ] ||
	{ echo "realapps-accuracy: $nhl of $ncell cells have the headline and its interval" >&2; fail=1; }

MODELS="contend replay p003 p000 p001 p002 p004"
# The summary, one line per scenario: average |error| of the headline and each model (cells
# with a number), the largest headline cell, coverage and median width.
summary() {
	awk -F'\t' -v models="$MODELS" '
		NR <= 2 || $8 == "n/a" { next }
		{ s = $5; m = $6; e = $13 + 0; if (e < 0) e = -e
		  if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
		  sum[s, m] += e; cnt[s, m]++
		  if (m == "contend") {
			if (e >= big[s]) { big[s] = e; bigc[s] = $1 " " $2 " " $3 " " $13 "%" }
			cov[s] += $16 == "yes"; ncov[s]++; w[s, ncov[s]] = $17 + 0
			allcov += $16 == "yes"; nall++; aw[nall] = $17 + 0 } }
		function med(a, k, n,   i, j, t, v) { for (i = 1; i <= n; i++) v[i] = (k == "" ? a[i] : a[k, i])
			for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
		END { nm = split(models, M, " ")
			printf "| scenario |"; for (i = 1; i <= nm; i++) printf " %s |", M[i]
			printf " largest headline cell | inside the interval | median width |\n|---|"
			for (i = 1; i <= nm + 3; i++) printf "---|"; printf "\n"
			for (k = 1; k <= ns; k++) { s = order[k]; printf "| %s |", s
				for (i = 1; i <= nm; i++) printf " %s |", cnt[s, M[i]] ? sprintf("%.1f %% (%d)", sum[s, M[i]] / cnt[s, M[i]], cnt[s, M[i]]) : "-"
				printf " %s | %d of %d (%.0f %%) | %.1f %% |\n", bigc[s], cov[s], ncov[s], ncov[s] ? 100 * cov[s] / ncov[s] : 0, med(w, s, ncov[s]) }
			if (nall) printf "\nall cells: the measured median inside the headline interval in %d of %d (%.0f %%), median width %.1f %% of the prediction\n", allcov, nall, 100 * allcov / nall, med(aw, "", nall) }' "$RAW"
}

# The paired summary: per scenario, each model's average |paired error| and the headline's
# largest cell and rounds inside their own interval.
paired_summary() {
	awk -F'\t' -v models="$MODELS" -v scens="$SCORED" '
		BEGIN { ns = split(scens, order, " ") }
		NR <= 2 { next }
		{ s = $4; m = $5; e = $7 + 0; if (e < 0) e = -e
		  sum[s, m] += e; cnt[s, m]++
		  if (m == "contend") { if (e >= big[s]) { big[s] = e; bigc[s] = $1 " " $2 " " $3 " " $7 "%" }
			split($9, a, "/"); cin[s] += a[1]; cn[s] += a[2] } }
		END { nm = split(models, M, " ")
			printf "| scenario |"; for (i = 1; i <= nm; i++) printf " %s |", M[i]
			printf " largest headline cell | rounds inside their interval |\n|---|"
			for (i = 1; i <= nm + 2; i++) printf "---|"; printf "\n"
			for (k = 1; k <= ns; k++) { s = order[k]; printf "| %s |", s
				for (i = 1; i <= nm; i++) printf " %s |", cnt[s, M[i]] ? sprintf("%.1f %% (%d)", sum[s, M[i]] / cnt[s, M[i]], cnt[s, M[i]]) : "-"
				printf " %s | %d of %d |\n", bigc[s], cin[s], cn[s] } }' "$PRAW"
}
# The paired headline per cell: one line per program, set and scenario.
paired_table() {
	awk -F'\t' -v scens="$SCORED" 'BEGIN { ns = split(scens, sc, " ") }
		NR <= 2 || $5 != "contend" { next }
		{ c = $1 " | " $2 " | " $3; if (!(c in seen)) { seen[c] = 1; order[++n] = c }
		  v[c, $4] = $7 "% (" $8 ")" }
		END { printf "| program | layout | MPI |"; for (i = 1; i <= ns; i++) printf " %s |", sc[i]
			printf "\n|---|---|---|"; for (i = 1; i <= ns; i++) printf "---|"; printf "\n"
			for (k = 1; k <= n; k++) { printf "| %s |", order[k]
				for (i = 1; i <= ns; i++) printf " %s |", ((order[k] SUBSEP sc[i]) in v) ? v[order[k], sc[i]] : "-"
				printf "\n" } }' "$PRAW"
}

# One table per scenario: measured median (spread), every model's error, the headline with
# its interval.
scen_table() {	# scenario
	awk -F'\t' -v sc="$1" -v models="$MODELS" '
		NR <= 2 || $5 != sc { next }
		{ c = $1 " " $2 " " $3; if (!(c in seen)) { seen[c] = 1; order[++n] = c; kind[c] = $4
			meas[c] = sprintf("%.2f (%.2f-%.2f, %d)", $9 / 1e9, $10 / 1e9, $11 / 1e9, $12); ded[c] = sprintf("%.2f", $7 / 1e9) }
		  err[c, $6] = $8 == "n/a" ? "n/a" : $13 "%"
		  if ($6 == "contend") hl[c] = sprintf("%.2f [%.2f, %.2f] %s, %s %%", $8 / 1e9, $14 / 1e9, $15 / 1e9, $16 == "yes" ? "in" : "out", $17) }
		END { nm = split(models, M, " ")
			printf "| program | layout | MPI | kind | dedicated s | measured s (min-max, n) | headline s [interval], measured in?, width |"
			for (i = 1; i <= nm; i++) printf " %s |", M[i]; printf "\n|"
			for (i = 1; i <= nm + 7; i++) printf "---|"; printf "\n"
			for (k = 1; k <= n; k++) { c = order[k]; split(c, a, " ")
				printf "| %s | %s | %s | %s | %s | %s | %s |", a[1], a[2], a[3], kind[c], ded[c], meas[c], (c in hl) ? hl[c] : "-"
				for (i = 1; i <= nm; i++) printf " %s |", ((c SUBSEP M[i]) in err) ? err[c, M[i]] : "-"
				printf "\n" } }' "$RAW"
}

{
	echo "# contend predict on third-party MPI programs"
	echo
	echo "Written by \`$CMDLINE\` ($(date -u '+%Y-%m-%d %H:%M UTC'), $(( $(date +%s) - T0 )) s); the method is in"
	echo "[docs/validation.md](../../../docs/validation.md) (\"bench/realapps: accuracy on third-party"
	echo "programs\"). Chart: [accuracy.pdf](accuracy.pdf) (paper 003 Figure 4 style, one page per"
	echo "scenario); raw: [accuracy-raw.tsv](accuracy-raw.tsv), every run in [runs.tsv](runs.tsv)."
	echo
	if [ -n "$FROM" ]; then
		echo "**Re-predicted from kept runs**: nothing ran on the testbed. The runs kept in $K"
		echo "were measured ${MEASURED_AT:-at a time not recorded}${MEASURED_CMDLINE:+ by \`$MEASURED_CMDLINE\`}"
		echo "(commit ${MEASURED_COMMIT:-not recorded}); their dedicated runs were parsed again and every"
		echo "scenario predicted and scored again with commit $COMMIT ($("$CONTEND" version 2>/dev/null | head -n 1))."
		echo "The measured times are the kept ones."
		echo
	fi
	echo "Times are wall-clock seconds of the whole job. Measured: the median of the alternated"
	echo "runs (fastest-slowest, n). A model's prediction is of the ranks' run time; the job's"
	if [ "${WALL_OFFSET:-launcher}" = launcher ] && awk -F'\t' '$4 == "bare" && $12 + 0 > 0 { f = 1 } END { exit !f }' "$RUNS"; then
		echo "wall time adds mpirun's start and end: the median over the bare runs of their wall time"
		echo "minus their longest rank's life (bench/realapps/lifetime.sh), added to every model's"
		echo "number and interval; paired by round, that round's bare run's."
	elif [ "${WALL_OFFSET:-launcher}" != dedicated ]; then
		echo "wall time adds mpirun's start and end: the bare runs' median wall time minus the longest"
		echo "rank's exec time in the dedicated run the prediction came from (the scenarios run bare,"
		echo "without collect's start and drain), added to every model's number and interval."
	else
		echo "wall time adds mpirun's start and end, taken from the dedicated run the prediction came"
		echo "from (its wall time minus its longest rank's exec time: collect's start and drain"
		echo "included), added to every model's number and interval (WALL_OFFSET=dedicated)."
	fi
	echo "Error = (predicted - measured median) / measured median. contend:"
	echo "the headline answer \`contend predict\` leads with (the scope rules' pick, or the model"
	echo "closer on enough measured cells); its pick and interval come from an error table of the"
	echo "*other* programs only (leave one program out), so the errors and the coverage below are"
	echo "not scored on the cells they were taken from."
	echo
	echo "## The dedicated runs"
	echo
	echo "| set | dedicated under collect s (min-max, n) | bare s (min-max, n) | observer's effect | ranks' exec s (median) | bare ranks' exec s (median) | observer's effect on the ranks |"
	echo "|---|---|---|---|---|---|---|"
	awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1,
		$2 == "-" ? "-" : sprintf("%.2f (%.2f-%.2f, %d)", $2 / 1e9, $3 / 1e9, $4 / 1e9, $5),
		$6 == "-" ? "-" : sprintf("%.2f (%.2f-%.2f, %d)", $6 / 1e9, $7 / 1e9, $8 / 1e9, $9),
		$2 == "-" || $6 == "-" ? "-" : sprintf("%+.1f %%", 100 * ($2 - $6) / $6),
		$10 == "-" ? "-" : sprintf("%.2f", $10 / 1e9),
		NF < 11 ? "-" : sprintf("%.2f", $11 / 1e9),
		NF < 11 || $10 == "-" ? "-" : sprintf("%+.1f %%", 100 * ($10 - $11) / $11) }' "$SPREAD"
	echo
	for sc in $SCORED; do
		echo "## $sc: $(sed -n 's/^description = //p' "$W/$(echo "$SETS" | awk '{ print $1 }' | tr : -)-$sc.ini" 2>/dev/null)"
		echo
		scen_table "$sc"
		echo
	done
	echo "## Summary"
	echo
	echo "Average |error| per scenario over the cells where the model gives a number (n); the"
	echo "headline's interval coverage, leave-one-program-out."
	echo
	summary
	echo
	echo "## Paired by round"
	echo
	echo "The machine drifts over minutes, every condition of a round alike (the dedicated"
	echo "runs' spread above). Here every round's dedicated run is predicted on its own and set"
	echo "against the same round's scenario run (its wall offset: the same round's bare run less"
	echo "its ranks' time); a cell's error is the median over rounds, the rounds' own errors in"
	echo "brackets. Raw: [accuracy-paired.tsv](accuracy-paired.tsv)."
	echo
	paired_summary
	echo
	paired_table
	echo
	echo "## Machine and commands"
	echo
	echo '```'
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), $(( $(date +%s) - T0 )) s"
	echo "command: $CMDLINE"
	[ -z "$FROM" ] || echo "re-predicted from: $K (measured ${MEASURED_AT:-at a time not recorded}, commit ${MEASURED_COMMIT:-not recorded}, ${MEASURED_CONTEND:-contend version not recorded}; now commit $COMMIT)"
	echo "environment: PROGS=\"$PROGS\" LAYOUTS=\"$LAYOUTS\" MPIS=\"$MPIS\" SCENARIOS=\"$SCENARIOS\" INSTANCE=$INST PCT=$PCT LINK=$LINK BURST=${BURST:-default} LOADED=$LOADED"
	echo "contend: $("$CONTEND" version 2>/dev/null | head -n 1)"
	echo "kernel: $(uname -sr)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores"
	echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "mpi: $(mpirun --version 2>/dev/null | head -n 1); $(mpiexec.mpich --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -n 1 | sed 's/^/MPICH /')"
	echo "machine load (1, 5, 15 min): before ${LOAD0:-not kept}, after $(if [ -n "$FROM" ]; then echo "not kept"; else cut -d' ' -f1-3 /proc/loadavg; fi); 1 min after each run: $(awk -F'\t' '{ v[NR] = $9 } END { if (NR) { min = max = v[1]; for (i = 1; i <= NR; i++) { if (v[i] < min) min = v[i]; if (v[i] > max) max = v[i] } printf "%s-%s", min, max } }' "$RUNS") (runs.tsv)"
	echo "runs beside another testbed instance (run.sh's rivals): $(awk -F'\t' 'NF < 10 || $10 == "-" { u++; next } $10 > 0 { n++; s = s sprintf("%s%s %s r%s", n > 1 ? ", " : "", $1, $4, $2) } END { if (u == NR) print "not recorded"; else printf "%d of %d%s\n", n, NR - u, n ? " (" s ")" : "" }' "$RUNS")"
	echo "testbed: $NWS workstations at $PCT % of a core each (run.sh); the loaded one $(ws "$LOADED"), link cap $LINK"
	echo "rounds: $R, conditions per round: $CONDS (reversed every other round)"
	echo "runs: sh bench/realapps/run.sh PROG LAYOUT MPI [--collect '' --run DIR | --scenario S]${SMALLOPT:+ --small}"
	if [ -n "${PARSEOPTS:-}" ]; then echo "parse: contend parse -q $PARSEOPTS DIR (PARSEOPTS)"
	else echo "parse: contend parse -q DIR (defaults)"; fi
	echo "predict: contend predict MEDIAN_DEDICATED --scenario scenario-SET-S.ini --dedicated OTHER... --errors TABLE"
	echo "  numbers: TABLE empty; intervals: TABLE = these cells without the program's own (leave one out)"
	echo "  p000's and the replay's delay_comm: ${DELAYCOMM:-the paper's curves (no calibration)}${DC_KEPT:+ (given to --from; the kept runs': $DC_KEPT)}; agg's comm_bandwidth: $(if [ -n "$AGG_BW" ]; then echo "the calibration's uncapped rate, $AGG_BW B/s"; else echo "the run's netparams bw_Bps (no uncapped rate calibrated)"; fi)"
	echo "report: contend report --accuracy $RES"
	echo '```'
} >"$RES/accuracy.md"

if [ $QUIET -eq 0 ] || [ $fail -eq 0 ]; then
	for sc in $SCORED; do echo "$sc:"; scen_table "$sc"; done
	summary
	echo "paired by round:"
	paired_summary
fi
# --from without -o: the results' directory is new, so it is said even with -q
if [ -n "$FROM" ] && [ "$RES" = "$W/results" ]; then
	echo "realapps-accuracy: results in $RES ($(( $(date +%s) - T0 )) s)" >&2
else
	say "results in $RES ($(( $(date +%s) - T0 )) s)"
fi
exit $fail
