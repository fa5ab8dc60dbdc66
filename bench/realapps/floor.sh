#!/bin/sh
# bench/realapps/floor.sh: how close can any prediction get to these measurements? The
# noise floor of bench/realapps, from the measured runs alone, no model involved.
#
# A model is scored against the median of a cell's three runs on a machine whose speed
# drifts. Two oracles that know the answer from other measurements of the same cells show
# how far such a median moves on its own:
#   across sets   another full set (same layout, programs, scenarios, inputs) gives the
#                 cell's measured slowdown, scenario median over bare median, and this set's
#                 bare median times it "predicts" this set's scenario median (ratio); or
#                 the other set's added seconds on this set's bare median (added).
#                 Every ordered pair of the sets given; per scenario the mean |error| over
#                 the cells, then the median and the range over the pairs.
#   within a set  each round predicted from the other rounds of the same set: its bare run
#                 times the median of their scenario / bare ratios, against its own
#                 scenario run; a cell's error is the median over its rounds (as the paired
#                 scoring of accuracy.sh takes it). Per scenario the mean |error| over the
#                 cells of each set.
# A model's mean |error| below these is within the measurement's own noise; a target below
# them cannot be shown with this many rounds on this machine (docs/validation.md, "The
# measurements' own floor").
#
# Usage: sh bench/realapps/floor.sh RUNS...
#   RUNS  runs.tsv of accuracy.sh (or runs.txt of a set kept with -k); give two or more
#         for the across-sets floor, one is enough for the within-set one
# Exit: 0 printed, 1 an unreadable or empty file, 2 usage.
set -u
[ $# -ge 1 ] || { sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
for f in "$@"; do
	case $f in -*) sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
	[ -r "$f" ] || { echo "realapps-floor: cannot read '$f'" >&2; exit 1; }
	[ -s "$f" ] || { echo "realapps-floor: '$f' is empty" >&2; exit 1; }
done

awk -F '\t' '
function median(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	if (n == 0)
		return ""
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function abs(x) { return x < 0 ? -x : x }
# Set i, scenario s: the mean over its cells of the median over rounds of |error| of a round
# predicted from the other rounds (m 1: their median slowdown, 2: their median added time).
function within_set(i, s, m,    e, ck, c, set, nr, rr, a, b, r, q, seen, seen2, others, errs, p, sum, n) {
	sum = 0; n = 0
	for (ck in cells) {
		split(ck, c, SUBSEP)
		if (c[1] != i) continue
		set = c[2]
		nr = split(rounds[i, set], rr, " ")
		delete seen; errs = ""
		for (a = 1; a <= nr; a++) {
			r = rr[a]
			if (r in seen) continue
			seen[r] = 1
			if (!((i, set, s, r) in run) || !((i, set, "bare", r) in run) || run[i, set, s, r] <= 0) continue
			others = ""
			delete seen2
			for (b = 1; b <= nr; b++) {
				q = rr[b]
				if (q == r || (q in seen2)) continue
				seen2[q] = 1
				if (!((i, set, s, q) in run) || !((i, set, "bare", q) in run) || run[i, set, "bare", q] <= 0) continue
				others = others " " (m == 1 ? run[i, set, s, q] / run[i, set, "bare", q] : run[i, set, s, q] - run[i, set, "bare", q])
			}
			if (others == "") continue
			p = m == 1 ? run[i, set, "bare", r] * median(others) : run[i, set, "bare", r] + median(others)
			errs = errs " " abs(p / run[i, set, s, r] - 1) * 100
		}
		if (errs == "") continue
		e = median(errs)
		sum += e; n++
		cellsn[m]++
		if (e > 15) cellsover[m]++
	}
	return n ? sum / n : ""
}
# The floor per scenario: median and range over the sets (within) or the pairs (across).
function summary(    m, j, v, n, vv, lo, hi, q) {
	printf "\nfloor, median (min-max) over the sets or pairs, mean |error| %%\n"
	printf "%-22s", "oracle"
	for (j = 1; j <= ns; j++) printf " %17s", order[j]
	printf " %14s\n", "cells > 15 %"
	for (m = 1; m <= (nf > 1 ? 4 : 2); m++) {
		printf "%-22s", m == 1 ? "within a set, ratio" : (m == 2 ? "within a set, added" : (m == 3 ? "across sets, ratio" : "across sets, added"))
		for (j = 1; j <= ns; j++) {
			v = m <= 2 ? within[m, j] : across[m - 2, j]
			n = split(v, vv, " ")
			if (!n) { printf " %17s", "-"; continue }
			lo = vv[1]; hi = vv[1]
			for (q = 2; q <= n; q++) { if (vv[q] < lo) lo = vv[q]; if (vv[q] > hi) hi = vv[q] }
			printf " %17s", sprintf("%.1f (%.1f-%.1f)", median(v), lo, hi)
		}
		printf " %14s\n", sprintf("%d of %d", cellsover[m], cellsn[m])
	}
}
FNR == 1 { nf++; name[nf] = FILENAME }
/^#/ || $1 == "set" || NF < 5 { next }
$5 !~ /^[0-9.]+$/ { bad[nf]++; next }
{
	k = nf SUBSEP $1 SUBSEP $4
	walls[k] = walls[k] " " $5
	run[nf, $1, $4, $2] = $5
	rounds[nf, $1] = rounds[nf, $1] " " $2
	cells[nf, $1] = 1
	if ($4 != "ded" && $4 != "bare")
		scen[$4] = 1
	got[nf]++
}
END {
	for (i = 1; i <= nf; i++) {
		if (!got[i]) { printf "realapps-floor: no runs in %s\n", name[i] > "/dev/stderr"; exit 1 }
		if (bad[i])
			printf "realapps-floor: %s: %d runs without a wall time left out\n", name[i], bad[i] > "/dev/stderr"
	}
	for (k in walls)
		med[k] = median(walls[k])
	ns = 0
	for (s in scen) order[++ns] = s
	# accuracy.sh'"'"'s order, anything else after it by name
	nk = split("cpu1 cpu2 link both agg strict", known, " ")
	for (i = 1; i <= nk; i++) rank[known[i]] = i
	for (i = 1; i <= ns; i++) key[order[i]] = (order[i] in rank) ? sprintf("%02d", rank[order[i]]) : "99" order[i]
	for (i = 2; i <= ns; i++)
		for (j = i; j > 1 && key[order[j - 1]] > key[order[j]]; j--) { t = order[j]; order[j] = order[j - 1]; order[j - 1] = t }

	print "sets:"
	for (i = 1; i <= nf; i++)
		printf "  %d  %s (%d runs)\n", i, name[i], got[i]

	# Within a set: each round from the others.
	for (m = 1; m <= 2; m++) {
		printf "\nwithin a set (%s): each round from the other rounds%s, mean |error| %%\n",
			m == 1 ? "ratio" : "added", m == 1 ? "'"'"' slowdowns" : "'"'"' added seconds"
		printf "%-4s", "set"
		for (j = 1; j <= ns; j++) printf " %8s", order[j]
		printf "\n"
		for (i = 1; i <= nf; i++) {
			printf "%-4d", i
			for (j = 1; j <= ns; j++) {
				v = within_set(i, order[j], m)
				if (v != "") { printf " %8.1f", v; within[m, j] = within[m, j] " " v }
				else printf " %8s", "-"
			}
			printf "\n"
		}
	}
	if (nf < 2) {
		summary()
		exit 0
	}

	# Across sets: every ordered pair.
	for (m = 1; m <= 2; m++) {
		how = m == 1 ? "ratio" : "added"
		printf "\nacross sets (%s): set A%s on set B'"'"'s bare median, mean |error| %%\n", how,
			m == 1 ? "'"'"'s slowdown" : "'"'"'s added seconds"
		printf "%-6s", "A->B"
		for (j = 1; j <= ns; j++) printf " %8s", order[j]
		printf "\n"
		for (a = 1; a <= nf; a++)
			for (b = 1; b <= nf; b++) {
				if (a == b) continue
				printf "%-6s", a "->" b
				for (j = 1; j <= ns; j++) {
					s = order[j]; sum = 0; n = 0
					for (ck in cells) {
						split(ck, c, SUBSEP)
						if (c[1] != b) continue
						set = c[2]
						kb = b SUBSEP set SUBSEP s; kbb = b SUBSEP set SUBSEP "bare"
						ka = a SUBSEP set SUBSEP s; kab = a SUBSEP set SUBSEP "bare"
						if (!(kb in med) || !(kbb in med) || !(ka in med) || !(kab in med)) continue
						if (med[kab] <= 0 || med[kb] <= 0) continue
						if (m == 1) p = med[kbb] * med[ka] / med[kab]
						else p = med[kbb] + med[ka] - med[kab]
						e = abs(p / med[kb] - 1) * 100
						sum += e; n++
						cellsn[m + 2]++
						if (e > 15) cellsover[m + 2]++
					}
					if (n) { printf " %8.1f", sum / n; across[m, j] = across[m, j] " " sum / n }
					else printf " %8s", "-"
				}
				printf "\n"
			}
	}

	summary()
}' "$@"
