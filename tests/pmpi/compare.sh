#!/bin/sh
# compare.sh: contend's rebuilt point-to-point messages of a run against the ground truth
# the PMPI wrapper (tests/pmpi/pmpi_log.c) wrote for the same run.
#
# Usage: sh tests/pmpi/compare.sh [-q] [-a] RUN TRUTHDIR
#   RUN       a run directory `contend parse` has written RUN/profile/messages.tsv into
#   TRUTHDIR  the PMPI_LOG_DIR of the run: rank-R.tsv, format "pmpi" v1 or v2 (its "mpi"
#             rows, the intervals inside MPI, are not used here)
#   -q        only the summary lines
#   -a        every message, also between ranks of one host (a run recorded with
#             `collect --see-local`, or one whose MPI was kept to TCP)
#
# Without -a only messages that crossed the wire count: sender and receiver on different
# hosts (the hosts from RUN/meta/rank-R.tsv, else from the truth files' own header). A rebuilt
# message is point-to-point when Open MPI's decoder gave it a non-negative tag or MPICH's
# an even (point-to-point) context id; control frames (proto ctrl) are not messages.
# A truth send and a rebuilt message match when source, destination, tag and bytes are
# equal (as many matches per key as the smaller of the two counts).
#
# Prints one row per rank pair (src dst sent rebuilt matched), the collective calls of the
# truth by name (calls, bytes summed over ranks), then
#   p2p_wire	sent=N rebuilt=M matched=K rebuilt/sent=K/N   (p2p_all with -a)
# and exits 0 when every truth send was matched and nothing extra was rebuilt (also when
# there were none), 1 when not,
# 2 on unusable input.
set -u
quiet=0 all=0
while :; do
	case ${1:-} in
	-q) quiet=1; shift ;;
	-a) all=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { sed -n 's/^# \{0,1\}//; /^Usage:/,/^$/p' "$0" >&2; exit 2; }
run=$1 truth=$2
msgs=$run/profile/messages.tsv
[ -r "$msgs" ] || { echo "compare: no '$msgs' (contend parse RUN first)" >&2; exit 2; }
set -- "$truth"/rank-*.tsv
[ -r "$1" ] || { echo "compare: no truth files '$truth/rank-*.tsv'" >&2; exit 2; }

# rank -> host, from the run's metadata (files of the form "# contend-meta 1")
hosts=$(for m in "$run"/meta/rank-*.tsv; do
	[ -r "$m" ] && awk -F'\t' '$1 == "rank" { r = $2 } $1 == "host" { h = $2 } END { if (r != "" && h != "") print r "\t" h }' "$m"
done)

printf '%s\n' "$hosts" | awk -F'\t' -v quiet=$quiet -v all=$all -v msgs="$msgs" '
function bad(why) { print "compare: " why > "/dev/stderr"; failed = 2; exit 2 }
FILENAME == "-" { if (NF == 2) host[$1] = $2; next }
# truth files
FNR == 1 { if ($0 !~ /^# contend-pmpi [12]$/) bad("\"" FILENAME "\" is not a pmpi v1 or v2 file"); next }
/^# rank\t/ { if (!(($2) in host)) host[$2] = $4; next }
/^#/ || $1 == "t_real_ns" { next }
NF != 10 && NF != 12 { bad("\"" FILENAME "\" line " FNR ": " NF " columns, expected 10 or 12") }
$2 == "p2p" { tp[$4 SUBSEP $5 SUBSEP $6 SUBSEP $9]++; sends[$4 SUBSEP $5]++; next }
$2 == "coll" { cn[$3]++; cb[$3] += $9; next }
END {
	if (failed) exit failed
	# rebuilt messages
	while ((getline line < msgs) > 0) {
		n = split(line, f, "\t")
		if (line ~ /^#/) continue
		if (!ncol) { for (i = 1; i <= n; i++) col[f[i]] = i; ncol = n
			for (k = split("src dst cid tag bytes mpi proto", need, " "); k > 0; k--)
				if (!(need[k] in col)) bad("\"" msgs "\" has no column " need[k])
			continue }
		s = f[col["src"]]; d = f[col["dst"]]; mpi = f[col["mpi"]]; tag = f[col["tag"]]
		if (s < 0 || d < 0 || f[col["proto"]] == "ctrl") continue
		if (mpi == "ompi" && !(tag >= 0 && tag != "-")) continue
		if (mpi == "mpich" && f[col["cid"]] % 2 != 0) continue
		if (mpi == "generic") { generic++; continue }
		rb[s SUBSEP d SUBSEP tag SUBSEP f[col["bytes"]]]++
		got[s SUBSEP d]++
	}
	close(msgs)
	for (k in tp) {
		split(k, a, SUBSEP)
		if (!(a[1] in host) || !(a[2] in host) || a[2] < 0) { unplaced += tp[k]; continue }
		if (!all && host[a[1]] == host[a[2]]) continue
		p = a[1] SUBSEP a[2]
		sent[p] += tp[k]; S += tp[k]
		m = (k in rb) ? (rb[k] < tp[k] ? rb[k] : tp[k]) : 0
		matched[p] += m; K += m
		pairs[p] = 1
	}
	for (k in rb) {
		split(k, a, SUBSEP)
		if (!all && (a[1] in host) && (a[2] in host) && host[a[1]] == host[a[2]]) continue
		p = a[1] SUBSEP a[2]
		rebuilt[p] += rb[k]; M += rb[k]
		pairs[p] = 1
	}
	if (!quiet) {
		printf "%5s %5s %-12s %-12s %9s %9s %9s\n", "src", "dst", "src_host", "dst_host", "sent", "rebuilt", "matched"
		np = 0
		for (p in pairs) order[++np] = p
		for (i = 2; i <= np; i++) for (j = i; j > 1; j--) {	# by src, then dst
			split(order[j - 1], x, SUBSEP); split(order[j], y, SUBSEP)
			if (x[1] + 0 > y[1] + 0 || (x[1] == y[1] && x[2] + 0 > y[2] + 0)) { t = order[j]; order[j] = order[j - 1]; order[j - 1] = t } else break
		}
		for (i = 1; i <= np; i++) {
			split(order[i], x, SUBSEP)
			printf "%5d %5d %-12s %-12s %9d %9d %9d\n", x[1], x[2], host[x[1]], host[x[2]], sent[order[i]], rebuilt[order[i]], matched[order[i]]
		}
		for (c in cn) printf "collective\t%s\tcalls=%d\tbytes=%.0f\n", c, cn[c], cb[c]
		if (generic) printf "note\t%d messages of the generic decoder not compared\n", generic
		if (unplaced) printf "note\t%d truth sends to or from a rank of unknown host\n", unplaced
	}
	printf "%s\tsent=%d\trebuilt=%d\tmatched=%d\trebuilt/sent=%s\n", all ? "p2p_all" : "p2p_wire", S, M, K, S ? sprintf("%.5f", K / S) : "-"
	exit (K == S && M == S) ? 0 : 1
}' - "$@"
