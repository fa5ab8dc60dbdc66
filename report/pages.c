/* pages: the report's figures as gnuplot bodies: timeline, matrix, sizes, the Figure 3 table,
 * predicted vs measured, slowdown curves, speedup and efficiency, work rate per master, and
 * why the run was slow (explain). */
#include "report/pages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/attrib.h"
#include "explain/evidence.h"
#include "infer/graph.h"
#include "lib/xalloc.h"
#include "predict/p000.h"
#include "predict/p001.h"
#include "predict/p002.h"
#include "predict/p003.h"
#include "predict/run001.h"

/* Fill patterns and dash types that stay apart in black and white. */
static const int fills[] = { 1, 2, 4, 5, 6, 7, 3 };	/* pattern numbers for bars */
static const int dashes[] = { 1, 2, 3, 4, 5 };

static void
title(struct plot *p, const struct rep_run *r, const char *what)
{
	char t[300];		/* title text */
	char q[PLOT_Q_MAX];

	snprintf(t, sizeof t, "%.200s (run %.80s)", what, r->name);
	plot_cmd(p, "set title %s font 'Sans,13'", plot_quote(q, sizeof q, t));
}

static void
common(struct plot *p)
{
	plot_cmd(p, "set border lw 1");
	plot_cmd(p, "set key box opaque samplen 3 spacing 1.1");
	plot_cmd(p, "set grid lc rgb '#c0c0c0' lw 0.5 dt 3");
	plot_cmd(p, "set tics nomirror out");
}

static double
rel_s(const struct rep_run *r, int64_t t_ns)
{
	return (double)(t_ns - r->t0_ns) / 1e9;
}

static char *
rank_label(char *dst, size_t cap, const struct rep_run *r, int rank)
{
	char t[200];	/* "rank (host)" */
	char h[130];

	plot_clean(h, 40, rep_host(r, rank));
	snprintf(t, sizeof t, "%d %s", rank, h);
	return plot_quote_tic(dst, cap, t);
}

/* ---------------------------------------------------------------- rank groups */

/* Above PAGE_GROUP_ABOVE ranks the per-rank pages draw groups of ranks: one per node when
 * there are at most PAGE_GROUPS nodes and each node's ranks are consecutive rows of
 * ranks.tsv, else PAGE_GROUPS or fewer runs of G consecutive rows, G a power of two. Fills
 * g[0..n) (rows [lo, hi) of pf->ranks) and returns n; at or below the threshold one group
 * per rank (the first PAGE_GROUPS). g holds room for PAGE_GROUPS groups; *by_node says
 * which rule was taken. */
struct rgroup {
	int lo, hi;		/* rows of pf->ranks */
	char label[48];
};

static int
rank_groups(const struct prof *pf, struct rgroup *g, int group_by, bool *by_node)
{
	int n = 0, size = 1;

	*by_node = false;
	if (pf->nranks <= PAGE_GROUP_ABOVE && group_by == 0) {
		for (int i = 0; i < pf->nranks && i < PAGE_GROUPS; i++) {
			g[n].lo = i;
			g[n].hi = i + 1;
			snprintf(g[n++].label, sizeof g[0].label, "%d", pf->ranks[i].rank);
		}
		return n;
	}
	if (group_by <= 0) {		/* by node, when that gives few enough groups */
		bool ok = true;

		for (int i = 0; i < pf->nranks && ok; i++) {
			if (i > 0 && strcmp(pf->ranks[i].host, pf->ranks[i - 1].host) == 0)
				continue;
			for (int j = 0; j < n && ok; j++)	/* a node met again: not consecutive */
				ok = strcmp(pf->ranks[g[j].lo].host, pf->ranks[i].host) != 0;
			if (n == PAGE_GROUPS)
				ok = false;
			if (!ok)
				break;
			if (n > 0)
				g[n - 1].hi = i;
			g[n].lo = i;
			plot_clean(g[n].label, sizeof g[0].label, pf->ranks[i].host);
			n++;
		}
		if (ok && n > 0) {
			g[n - 1].hi = pf->nranks;
			*by_node = true;
			return n;
		}
		n = 0;
	}
	if (group_by > 0)
		size = group_by;
	while ((pf->nranks + size - 1) / size > PAGE_GROUPS)
		size *= 2;
	for (int i = 0; i < pf->nranks; i += size) {
		g[n].lo = i;
		g[n].hi = i + size < pf->nranks ? i + size : pf->nranks;
		snprintf(g[n].label, sizeof g[0].label, "%d-%d", pf->ranks[g[n].lo].rank,
			 pf->ranks[g[n].hi - 1].rank);
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- timeline */

static int
timeline_heat(const struct rep_run *r, struct plot *p, int nranks)
{
	enum { TBINS = 200 };
	int g = (nranks + 255) / 256;		/* ranks per row */
	int rows = (nranks + g - 1) / g;
	double span_ns = (double)(r->t1_ns - r->t0_ns);
	double *busy = xcalloc((size_t)rows * TBINS, sizeof *busy);	/* busy ns per cell */
	double bin_ns = span_ns / TBINS;

	for (long i = 0; i < r->prof.nbusy; i++) {
		const struct prof_busy *ph = &r->prof.busy[i];
		double a, b;
		int row;

		if (ph->rank >= nranks)
			continue;
		row = ph->rank / g;
		a = (double)(ph->t_start_ns - r->t0_ns);
		b = (double)(ph->t_end_ns - r->t0_ns);
		for (int k = (int)(a / bin_ns); k < TBINS && k * bin_ns < b; k++) {
			double lo = fmax(a, k * bin_ns), hi = fmin(b, (k + 1) * bin_ns);

			if (k >= 0 && hi > lo)
				busy[row * TBINS + k] += hi - lo;
		}
	}
	plot_begin_data(p, "heat");
	for (int row = 0; row < rows; row++) {
		for (int k = 0; k < TBINS; k++)
			plot_row(p, "%.6f %d %.4f", (k + 0.5) * bin_ns / 1e9, row * g,
				 100.0 * busy[row * TBINS + k] / (bin_ns * g));
		plot_blank(p);
	}
	plot_end_data(p);
	free(busy);
	plot_cmd(p, "set palette gray negative");
	plot_cmd(p, "set cbrange [0:100]");
	plot_cmd(p, "set cblabel 'busy (%% of the bin)'");
	plot_cmd(p, "set xlabel 'time since the first sample (s)'");
	plot_cmd(p, "set ylabel 'rank%s'", g > 1 ? " (groups)" : "");
	plot_cmd(p, "set yrange [%d:-0.5]", nranks);
	plot_cmd(p, "set xrange [0:%.6f]", span_ns / 1e9);
	plot_cmd(p, "plot $heat using 1:2:3 with image notitle");
	return 1;
}

static int
page_timeline(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	int nranks = rep_nranks(r);
	long stride = 1, drawn = 0;
	char q[PLOT_Q_MAX];

	if (!r->have_phases || r->nphases == 0) {
		snprintf(why, cap, "no CPU phases (profile/phases.tsv missing or empty)");
		return 0;
	}
	if (r->t1_ns <= r->t0_ns || nranks <= 0) {
		snprintf(why, cap, "the phases span no time");
		return 0;
	}
	common(p);
	if (nranks > PAGE_TIMELINE_MAX_RANKS || r->nphases > PAGE_TIMELINE_MAX_PHASES) {
		char t[200];

		if (nranks > 256)	/* timeline_heat's rows */
			snprintf(t, sizeof t, "Busy share per group of %d ranks and time bin: %d ranks, %ld phases",
				 (nranks + 255) / 256, nranks, r->nphases);
		else
			snprintf(t, sizeof t, "Busy share per rank and time bin: %d ranks, %ld phases",
				 nranks, r->nphases);
		title(p, r, t);
		return timeline_heat(r, p, nranks);
	}
	plot_begin_data(p, "busy");
	for (long i = 0; i < r->prof.nbusy; i++) {
		const struct prof_busy *ph = &r->prof.busy[i];

		plot_row(p, "%.6f %d %.6f %.6f %.2f %.2f", rel_s(r, ph->t_start_ns), ph->rank,
			 rel_s(r, ph->t_start_ns), rel_s(r, ph->t_end_ns), ph->rank - 0.32, ph->rank + 0.32);
	}
	plot_end_data(p);
	plot_begin_data(p, "idle");
	for (long i = 0; i < r->prof.nidle; i++) {
		const struct prof_busy *ph = &r->prof.idle[i];

		plot_row(p, "%.6f %d %.6f %.6f %.2f %.2f", rel_s(r, ph->t_start_ns), ph->rank,
			 rel_s(r, ph->t_start_ns), rel_s(r, ph->t_end_ns), ph->rank - 0.12, ph->rank + 0.12);
	}
	plot_end_data(p);
	{
		long n = 0;

		for (long i = 0; i < r->nmsgs; i++)
			if (r->msgs[i].src >= 0 && r->msgs[i].dst >= 0 && r->msgs[i].src != r->msgs[i].dst)
				n++;
		if (n > PAGE_TIMELINE_MAX_ARROWS)
			stride = (n + PAGE_TIMELINE_MAX_ARROWS - 1) / PAGE_TIMELINE_MAX_ARROWS;
		plot_begin_data(p, "msg");
		n = 0;
		for (long i = 0; i < r->nmsgs; i++) {
			const struct prof_msg *m = &r->msgs[i];

			if (m->src < 0 || m->dst < 0 || m->src == m->dst)
				continue;
			if (n++ % stride != 0)
				continue;
			plot_row(p, "%.6f %d %.6f %d", rel_s(r, m->t_ns), m->src,
				 (double)(m->t_last_ns - m->t_ns) / 1e9, m->dst - m->src);
			drawn++;
		}
		if (drawn == 0)
			plot_row(p, "nan nan nan nan");
		plot_end_data(p);
	}
	{
		char t[256];

		if (stride * r->msg_stride > 1)
			snprintf(t, sizeof t, "Per-rank timeline: busy and idle phases, messages (1 in %ld drawn, %ld in all)",
				 stride * r->msg_stride, r->msgs_total);
		else
			snprintf(t, sizeof t, "Per-rank timeline: busy and idle phases, %ld messages", drawn);
		title(p, r, t);
	}
	plot_cmd(p, "set xlabel 'time since the first sample (s)'");
	plot_cmd(p, "set ylabel 'rank and host'");
	plot_cmd(p, "set yrange [%d.6:-0.6]", nranks - 1);
	plot_cmd(p, "set xrange [0:%.6f]", (double)(r->t1_ns - r->t0_ns) / 1e9);
	plot_cmd(p, "set bmargin 6");
	plot_cmd(p, "set key at screen 0.5,0.015 center bottom horizontal");
	plot_cmd(p, "set grid noytics");
	if (nranks > 24)
		plot_cmd(p, "set ytics font 'Sans,%d'", nranks > 48 ? 5 : 7);
	plot_cmd(p, "set ytics (%s 0)", rank_label(q, sizeof q, r, 0));
	for (int i = 1; i < nranks; i++)
		plot_cmd(p, "set ytics add (%s %d)", rank_label(q, sizeof q, r, i), i);
	plot_cmd(p, "plot $busy using 1:2:3:4:5:6 with boxxyerror fs solid 0.55 border lc rgb 'black' "
		 "lc rgb '#606060' title 'busy (CPU)', \\");
	plot_cmd(p, "  $idle using 1:2:3:4:5:6 with boxxyerror fs empty border lc rgb '#909090' "
		 "lc rgb '#909090' title 'idle', \\");
	plot_cmd(p, "  $msg using 1:2:3:4 with vectors head size screen 0.005,20 filled lw %s dt 1 "
		 "lc rgb '#303030' title 'message (send to receive)'", drawn > 200 ? "0.3" : "0.6");
	return 1;
}

/* ---------------------------------------------------------------- matrix */

static int
page_matrix(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	int nranks = rep_nranks(r);
	int g, cells;
	double *bytes, *msgs;
	bool any = false, sampled = false;
	int lab_pt;		/* font size of the numbers in the cells */
	char q[PLOT_Q_MAX];

	if (nranks < 2) {
		snprintf(why, cap, "fewer than two ranks");
		return 0;
	}
	if ((!r->have_prof || !r->prof.have_links) && !r->have_msgs) {
		snprintf(why, cap, "no messages (profile/links.tsv and messages.tsv missing)");
		return 0;
	}
	g = (nranks + PAGE_MATRIX_MAX_CELLS - 1) / PAGE_MATRIX_MAX_CELLS;
	cells = (nranks + g - 1) / g;
	bytes = xcalloc((size_t)cells * (size_t)cells, sizeof *bytes);
	msgs = xcalloc((size_t)cells * (size_t)cells, sizeof *msgs);
	if (r->have_prof && r->prof.have_links) {
		for (int i = 0; i < r->prof.nlinks; i++) {
			const struct prof_link *l = &r->prof.links[i];

			if (l->src < 0 || l->dst < 0 || l->src >= nranks || l->dst >= nranks)
				continue;
			bytes[(l->src / g) * cells + l->dst / g] += (double)l->bytes;
			msgs[(l->src / g) * cells + l->dst / g] += (double)l->msgs;
			any = true;
		}
	} else {
		sampled = r->msg_stride > 1;
		for (long i = 0; i < r->nmsgs; i++) {
			const struct prof_msg *m = &r->msgs[i];

			if (m->src < 0 || m->dst < 0 || m->src >= nranks || m->dst >= nranks)
				continue;
			bytes[(m->src / g) * cells + m->dst / g] += (double)m->bytes;
			msgs[(m->src / g) * cells + m->dst / g] += 1;
			any = true;
		}
	}
	if (!any) {
		free(bytes);
		free(msgs);
		snprintf(why, cap, "no message between known ranks");
		return 0;
	}
	plot_begin_data(p, "m");
	for (int s = 0; s < cells; s++)
		for (int d = 0; d < cells; d++) {
			double b = bytes[s * cells + d], n = msgs[s * cells + d];

			/* no traffic, or messages of no payload: blank cell (log scale) */
			if (n > 0 && b > 0)
				plot_row(p, "%d %d %.0f %.0f", d * g, s * g, b, n);
			else if (n > 0)
				plot_row(p, "%d %d nan %.0f", d * g, s * g, n);
			else
				plot_row(p, "%d %d nan nan", d * g, s * g);
		}
	plot_end_data(p);
	plot_begin_data(p, "lab");	/* the cells that have traffic, for the numbers */
	for (int s = 0; s < cells; s++)
		for (int d = 0; d < cells; d++)
			if (msgs[s * cells + d] > 0)
				plot_row(p, "%d %d %.0f %.0f", d * g, s * g, bytes[s * cells + d], msgs[s * cells + d]);
	plot_end_data(p);
	free(bytes);
	free(msgs);
	common(p);
	{
		char t[200];
		size_t o = (size_t)snprintf(t, sizeof t, "Communication matrix");

		if (g > 1)
			o += (size_t)snprintf(t + o, sizeof t - o, " (heat map, %d ranks per cell)", g);
		if (sampled)
			snprintf(t + o, sizeof t - o, ", from 1 message in %ld of %ld (no links.tsv)", r->msg_stride,
				 r->msgs_total);
		plot_cmd(p, "set multiplot layout 1,2 title %s font 'Sans,13'", plot_quote(q, sizeof q, t));
	}
	plot_cmd(p, "set palette gray negative");
	plot_cmd(p, "set style textbox opaque noborder margins 0.5,0.5");
	plot_cmd(p, "set size ratio -1");
	plot_cmd(p, "unset key");
	plot_cmd(p, "set grid noxtics noytics");
	plot_cmd(p, "set xrange [-0.5:%g] noreverse", nranks - 0.5);
	plot_cmd(p, "set yrange [%g:-0.5]", nranks - 0.5);
	plot_cmd(p, "set xlabel 'destination rank'");
	plot_cmd(p, "set ylabel 'source rank'");
	if (cells <= 16) {
		plot_cmd(p, "set xtics 1");
		plot_cmd(p, "set ytics 1");
	}
	lab_pt = cells <= 4 ? 11 : cells <= 8 ? 9 : 7;
	plot_cmd(p, "set logscale cb");
	plot_cmd(p, "set cbrange [1:*]");
	plot_cmd(p, "set format cb '%%.0s %%cB'");
	plot_cmd(p, "set title 'payload bytes sent (shade: log scale)'");
	if (cells <= 16)
		plot_cmd(p, "plot $m using 1:2:3 with image, $lab using 1:2:($3 > 0 ? gprintf('%%.1s %%cB', $3) : '0 B') "
			 "with labels boxed font 'Sans,%d'", lab_pt);
	else
		plot_cmd(p, "plot $m using 1:2:3 with image");
	plot_cmd(p, "set format cb '%%.0f'");
	plot_cmd(p, "set title 'messages sent (shade: log scale)'");
	if (cells <= 16)
		plot_cmd(p, "plot $m using 1:2:4 with image, $lab using 1:2:(sprintf('%%.0f', $4)) "
			 "with labels boxed font 'Sans,%d'", lab_pt);
	else
		plot_cmd(p, "plot $m using 1:2:4 with image");
	plot_cmd(p, "unset multiplot");
	return 1;
}

/* ---------------------------------------------------------------- sizes */

static int
page_sizes(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	int lo = -1, hi = -1, used[PROF_NPROTO], nused = 0;
	bool zero = false;
	char q[PLOT_Q_MAX];

	if (!r->have_msgs || r->msgs_total == 0) {
		snprintf(why, cap, "no messages (profile/messages.tsv missing or empty)");
		return 0;
	}
	for (int k = 0; k < PROF_NPROTO; k++) {
		bool any = false;

		for (int b = 0; b < REP_SIZE_BINS; b++) {
			if (r->size_hist[k][b] == 0)
				continue;
			any = true;
			if (b == REP_SIZE_BINS - 1) {
				zero = true;
				continue;
			}
			if (lo < 0 || b < lo)
				lo = b;
			if (b > hi)
				hi = b;
		}
		if (any)
			used[nused++] = k;
	}
	if (lo < 0)
		lo = hi = 0;
	plot_begin_data(p, "h");
	if (zero) {
		char line[512];
		size_t o = (size_t)snprintf(line, sizeof line, "%d", -1);

		for (int i = 0; i < nused; i++) {
			int64_t v = r->size_hist[used[i]][REP_SIZE_BINS - 1];

			o += (size_t)snprintf(line + o, sizeof line - o, v ? " %lld" : " nan", (long long)v);
		}
		plot_row(p, "%s", line);
	}
	for (int b = lo; b <= hi; b++) {
		char line[512];
		size_t o = (size_t)snprintf(line, sizeof line, "%d", b);

		for (int i = 0; i < nused && o < sizeof line; i++) {
			int64_t v = r->size_hist[used[i]][b];

			o += (size_t)snprintf(line + o, sizeof line - o, v ? " %lld" : " nan", (long long)v);
		}
		plot_row(p, "%s", line);
	}
	plot_end_data(p);
	common(p);
	title(p, r, "Message size distribution per protocol");
	plot_cmd(p, "set style data histograms");
	plot_cmd(p, "set style histogram clustered gap 1");
	plot_cmd(p, "set style fill pattern 1 border lc rgb 'black'");
	plot_cmd(p, "set logscale y");
	plot_cmd(p, "set yrange [0.8:*]");
	plot_cmd(p, "set xlabel 'payload size (bytes, power-of-two bins: [2^i, 2^(i+1)))'");
	plot_cmd(p, "set ylabel 'messages (log scale)'");
	plot_cmd(p, "set xtics rotate by -45 nomirror");
	plot_cmd(p, "set key top right");
	/* Tic labels are built here from numbers only. */
	plot_cmd(p, "lbl(b) = b < 0 ? '0' : b < 10 ? sprintf('%%d', 2**b) : b < 20 ? sprintf('%%dKi', 2**(b-10)) : "
		 "b < 30 ? sprintf('%%dMi', 2**(b-20)) : sprintf('%%dGi', 2**(b-30))");
	{
		char line[2048];	/* the plot command */
		size_t o = (size_t)snprintf(line, sizeof line, "plot");

		for (int i = 0; i < nused; i++) {
			o += (size_t)snprintf(line + o, sizeof line - o,
					      "%s $h using %d%s fs pattern %d lc rgb 'black' title %s",
					      i ? "," : "", i + 2, i == 0 ? ":xtic(lbl($1))" : "",
					      fills[i % 7], plot_quote(q, sizeof q, prof_proto_names[used[i]]));
			if (o >= sizeof line)
				break;
		}
		plot_cmd(p, "%s", line);
	}
	return 1;
}

/* ---------------------------------------------------------------- Figure 3 table */

static void
fmt_ms(char *dst, size_t cap, double ns)
{
	if (!isfinite(ns))
		snprintf(dst, cap, "-");
	else
		snprintf(dst, cap, "%.1f", ns / 1e6);
}

static void
fmt_bytes(char *dst, size_t cap, double b)
{
	if (!isfinite(b))
		snprintf(dst, cap, "-");
	else if (b >= 1048576)
		snprintf(dst, cap, "%.1f MiB", b / 1048576);
	else if (b >= 1024)
		snprintf(dst, cap, "%.1f KiB", b / 1024);
	else
		snprintf(dst, cap, "%.0f B", b);
}

/* One row of the table: cells at the given screen x positions (rank and host left-aligned). */
static void
table_row(struct plot *p, double y, const double *x, const char *const *cells, int n, bool head)
{
	plot_table_row(p, y, x, cells, n, 2, head, 8);
}

static int
cmp_link_msgs(const void *a, const void *b)
{
	const struct prof_link *x = *(const struct prof_link *const *)a;
	const struct prof_link *y = *(const struct prof_link *const *)b;

	return (y->msgs > x->msgs) - (y->msgs < x->msgs);
}

/* One row of the characteristics table for ranks g->lo..hi-1: means over the group, sums of
 * counts, the group's longest exec time. */
static void
table_group_row(struct plot *p, const struct prof *pf, const struct rgroup *g, bool grouped, double y)
{
	static const double x[] = { 0.04, 0.08, 0.28, 0.35, 0.42, 0.49, 0.59, 0.69, 0.77, 0.87, 0.97 };
	double exec_ns = 0, comp = 0, comm = 0, idle = 0, busy_ns = 0, idle_ns = 0;
	int64_t sent = 0, bsent = 0, recv = 0;
	int k = g->hi - g->lo;
	char cell[11][64];
	const char *cells[11];
	char h[64];

	for (int i = g->lo; i < g->hi; i++) {
		const struct prof_rank *rk = &pf->ranks[i];

		exec_ns = fmax(exec_ns, (double)rk->exec_ns);
		comp += rk->comp_pct / k;
		comm += rk->comm_pct / k;
		idle += rk->idle_pct / k;
		busy_ns += rk->avg_busy_ns / k;
		idle_ns += rk->avg_idle_ns / k;
		sent += rk->msgs_sent;
		bsent += rk->bytes_sent;
		recv += rk->msgs_recv;
	}
	if (grouped) {
		snprintf(cell[0], 64, "%d", k);
		snprintf(cell[1], 64, "%s", g->label);
	} else {
		snprintf(cell[0], 64, "%d", pf->ranks[g->lo].rank);
		snprintf(cell[1], 64, "%s", plot_clean(h, 28, pf->ranks[g->lo].host));
	}
	snprintf(cell[2], 64, "%.3f", exec_ns / 1e9);
	snprintf(cell[3], 64, "%.1f", comp);
	snprintf(cell[4], 64, "%.1f", comm);
	snprintf(cell[5], 64, "%.1f", idle);
	fmt_ms(cell[6], 64, busy_ns);
	fmt_ms(cell[7], 64, idle_ns);
	snprintf(cell[8], 64, "%lld", (long long)sent);
	fmt_bytes(cell[9], 64, sent > 0 ? (double)bsent / (double)sent : NAN);
	snprintf(cell[10], 64, "%lld", (long long)recv);
	for (int j = 0; j < 11; j++)
		cells[j] = cell[j];
	table_row(p, y, x, cells, 11, false);
}

/* Labels right-aligned at lx[j] + 0.04 in the given font. */
static void
right_labels(struct plot *p, const double *lx, const char *const *text, int n, double y, const char *font)
{
	for (int j = 0; j < n; j++) {
		char q[PLOT_Q_MAX];

		plot_cmd(p, "set label %s at screen %.4f,%.4f right font '%s'", plot_quote(q, sizeof q, text[j]),
			 lx[j] + 0.04, y, font);
	}
}

/* The busiest links below the table, as many as fit above y = 0.04, and the rest summed.
 * Returns the y of the last line. */
static double
table_links(struct plot *p, const struct prof *pf, double y, double dy)
{
	static const double lx[] = { 0.04, 0.12, 0.22, 0.32, 0.42 };
	static const char *const lh[] = { "src", "dst", "messages", "avg size", "bytes" };
	const struct prof_link **v = xcalloc((size_t)pf->nlinks, sizeof *v);
	char q[PLOT_Q_MAX];
	int room, shown = 0;

	for (int i = 0; i < pf->nlinks; i++)
		v[i] = &pf->links[i];
	qsort(v, (size_t)pf->nlinks, sizeof *v, cmp_link_msgs);
	y -= 1.5 * dy;
	plot_cmd(p, "set label %s at screen 0.04,%.4f left font 'Sans Bold,9'",
		 plot_quote(q, sizeof q, "Messages per link (busiest first)"), y);
	y -= dy;
	right_labels(p, lx, lh, 5, y, "Sans Bold,8");
	room = (int)((y - 0.04) / dy) - 1;	/* a row for the rest */
	if (room > PAGE_TOP_LINKS)
		room = PAGE_TOP_LINKS;
	for (int i = 0; i < pf->nlinks && shown < room; i++, shown++) {
		char cell[5][64];
		const char *cells[5] = { cell[0], cell[1], cell[2], cell[3], cell[4] };

		snprintf(cell[0], 64, "%d", v[i]->src);
		snprintf(cell[1], 64, "%d", v[i]->dst);
		snprintf(cell[2], 64, "%lld", (long long)v[i]->msgs);
		fmt_bytes(cell[3], 64, v[i]->avg_bytes);
		fmt_bytes(cell[4], 64, (double)v[i]->bytes);
		y -= dy;
		right_labels(p, lx, cells, 5, y, "Sans,8");
	}
	if (shown < pf->nlinks) {	/* the rest, summed */
		int64_t msgs = 0, bytes = 0;
		char t[200], b1[32], b2[32];

		for (int i = shown; i < pf->nlinks; i++) {
			msgs += v[i]->msgs;
			bytes += v[i]->bytes;
		}
		fmt_bytes(b1, sizeof b1, msgs > 0 ? (double)bytes / (double)msgs : NAN);
		fmt_bytes(b2, sizeof b2, (double)bytes);
		snprintf(t, sizeof t, "the other %d links: %lld messages, avg size %s, %s", pf->nlinks - shown,
			 (long long)msgs, b1, b2);
		y -= dy;
		plot_cmd(p, "set label %s at screen 0.04,%.4f left font 'Sans,8'", plot_quote(q, sizeof q, t), y);
	}
	free(v);
	return y;
}

static int
page_table(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	static const double x[] = { 0.04, 0.08, 0.28, 0.35, 0.42, 0.49, 0.59, 0.69, 0.77, 0.87, 0.97 };
	static const char *const head[] = {
		"rank", "host", "exec (s)", "% comp", "% comm", "% idle", "avg busy (ms)",
		"avg idle (ms)", "msgs sent", "avg size", "msgs recv",
	};
	static const char *const ghead[] = {
		"ranks", "node or ranks", "exec (s)", "% comp", "% comm", "% idle", "avg busy (ms)",
		"avg idle (ms)", "msgs sent", "avg size", "msgs recv",
	};
	const struct rep_run *r = c->run;
	const struct prof *pf = &r->prof;
	struct rgroup *g;
	int ng;
	bool grouped, by_node;
	double y = 0.88, dy;

	if (!r->have_prof) {
		snprintf(why, cap, "no per-rank summary (%.200s)", r->prof_why);
		return 0;
	}
	g = xcalloc(PAGE_GROUPS, sizeof *g);
	ng = rank_groups(pf, g, c->group_by, &by_node);
	grouped = ng > 0 && g[0].hi - g[0].lo > 1;
	if (grouped) {
		char t[200];

		snprintf(t, sizeof t, "Execution characteristics (paper 003, Figure 3): %d ranks in %d groups", pf->nranks,
			 ng);
		title(p, r, t);
	} else {
		title(p, r, "Execution characteristics (paper 003, Figure 3)");
	}
	plot_table_begin(p);
	dy = ng > 20 ? 0.018 : 0.03;
	table_row(p, y, x, grouped ? ghead : head, 11, true);
	plot_table_rule(p, 0.03, 0.98, y - dy / 2);
	for (int gi = 0; gi < ng; gi++) {
		y -= dy;
		table_group_row(p, pf, &g[gi], grouped, y);
	}
	if (grouped || pf->nranks > ng) {
		char t[300], q[PLOT_Q_MAX];

		y -= dy;
		if (grouped)
			snprintf(t, sizeof t, "Above %d ranks, one row per %s (exec: the group's longest; %%: means; "
				 "messages: sums). Every rank is in profile/ranks.tsv", PAGE_GROUP_ABOVE,
				 by_node ? "node" : "group of consecutive ranks");
		else
			snprintf(t, sizeof t, "... and %d more ranks (all in profile/ranks.tsv)", pf->nranks - ng);
		plot_cmd(p, "set label %s at screen 0.04,%.4f left font 'Sans,8'", plot_quote(q, sizeof q, t), y);
	}
	free(g);
	if (pf->have_links && pf->nlinks > 0 && y > 0.25)
		table_links(p, pf, y, dy);
	plot_table_end(p);
	return 1;
}

/* ---------------------------------------------------------------- predicted vs measured */

/* The models drawn on the predicted-vs-measured page and the bars' geometry. */
struct pred_page {
	char names[REP_MAX_PRED][48];	/* the models drawn, in order of first appearance */
	int nmodels, nseries;		/* nseries: the models, and measured when have_meas */
	bool have_meas;
	double width;			/* of one bar */
};

/* Whether scenario sc is drawn (a dedicated time and a prediction); *meas (may be NULL)
 * the measured time in % of the dedicated one, NAN when none. */
static bool
pred_scen_drawn(const struct rep_scen *sc, double *meas)
{
	bool used = false;

	if (meas != NULL)
		*meas = NAN;
	if (!(sc->dedicated_ns > 0))
		return false;
	for (int i = 0; i < sc->npred; i++)
		if (!sc->pred[i].na) {
			used = true;
			if (meas != NULL && sc->pred[i].measured_ns > 0)
				*meas = 100.0 * sc->pred[i].measured_ns / sc->dedicated_ns;
		}
	return used;
}

/* The index of model name in pp->names (pp->nmodels when not there). */
static int
pred_model_index(const struct pred_page *pp, const char *name)
{
	int m;

	for (m = 0; m < pp->nmodels; m++)
		if (strcmp(pp->names[m], name) == 0)
			break;
	return m;
}

/* The models drawn; returns the scenarios drawn. */
static int
pred_models(const struct rep_run *r, struct pred_page *pp)
{
	int nscen = 0;

	for (int s = 0; s < r->nscen; s++) {
		const struct rep_scen *sc = &r->scen[s];

		if (!pred_scen_drawn(sc, NULL))
			continue;
		nscen++;
		for (int i = 0; i < sc->npred; i++) {
			const struct rep_pred *pr = &sc->pred[i];

			if (pr->na)
				continue;
			if (pr->measured_ns > 0)
				pp->have_meas = true;
			if (pred_model_index(pp, pr->model) == pp->nmodels && pp->nmodels < REP_MAX_PRED)
				snprintf(pp->names[pp->nmodels++], sizeof pp->names[0], "%s", pr->model);
		}
	}
	pp->nseries = pp->nmodels + (pp->have_meas ? 1 : 0);
	pp->width = 0.8 / (pp->nseries + 1);
	return nscen;
}

/* Series 0: dedicated (100); 1: measured; then the models. One datablock per series. */
static void
pred_bars(const struct rep_run *r, const struct pred_page *pp, struct plot *p)
{
	for (int series = 0; series <= pp->nseries; series++) {
		char name[16];
		int x = 0, mi = series - 1 - (pp->have_meas ? 1 : 0);

		snprintf(name, sizeof name, "s%d", series);
		plot_begin_data(p, name);
		for (int s = 0; s < r->nscen; s++) {
			const struct rep_scen *sc = &r->scen[s];
			double v = NAN, meas;

			if (!pred_scen_drawn(sc, &meas))
				continue;
			for (int i = 0; i < sc->npred && mi >= 0; i++)
				if (!sc->pred[i].na && strcmp(sc->pred[i].model, pp->names[mi]) == 0)
					v = 100.0 * sc->pred[i].predicted_ns / sc->dedicated_ns;
			if (series == 0)
				v = 100;
			else if (pp->have_meas && series == 1)
				v = meas;
			plot_row(p, "%.4f %.4f %.4f", x - 0.4 + pp->width * (series + 0.5), v, pp->width);
			x++;
		}
		plot_end_data(p);
	}
}

/* The error labels (from numbers only, after the datablocks), the x range and the
 * scenarios' tics. */
static void
pred_labels(const struct rep_run *r, const struct pred_page *pp, struct plot *p)
{
	char q[PLOT_Q_MAX];
	int x = 0;

	for (int s = 0; s < r->nscen; s++) {
		const struct rep_scen *sc = &r->scen[s];
		double meas;

		if (!pred_scen_drawn(sc, &meas))
			continue;
		for (int i = 0; i < sc->npred; i++) {
			const struct rep_pred *pr = &sc->pred[i];
			double v, xc;
			char t[64];

			if (pr->na)
				continue;
			v = 100.0 * pr->predicted_ns / sc->dedicated_ns;
			xc = x - 0.4 + pp->width * (pred_model_index(pp, pr->model) + 1 + (pp->have_meas ? 1 : 0) + 0.5);
			if (isfinite(meas))
				snprintf(t, sizeof t, "%+.1f%%", 100.0 * (v - meas) / meas);
			else
				snprintf(t, sizeof t, "%.0f", v);
			plot_cmd(p, "set label %s at first %.4f,%.4f center rotate by 90 offset 0,%s font 'Sans,8'",
				 plot_quote(q, sizeof q, t), xc, v, pp->nseries > 4 ? "1.6" : "1.3");
		}
		if (isfinite(meas)) {
			char t[64];

			snprintf(t, sizeof t, "%.0f", meas);
			plot_cmd(p, "set label %s at first %.4f,%.4f center offset 0,0.7 font 'Sans,8'",
				 plot_quote(q, sizeof q, t), x - 0.4 + pp->width * 1.5, meas);
		}
		x++;
	}
	plot_cmd(p, "set xrange [-0.6:%d.6]", x - 1);
	x = 0;
	for (int s = 0; s < r->nscen; s++) {
		if (!pred_scen_drawn(&r->scen[s], NULL))
			continue;
		plot_cmd(p, "set xtics %s(%s %d)", x ? "add " : "", plot_quote_tic(q, sizeof q, r->scen[s].name), x);
		x++;
	}
}

static int
page_predict(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	struct pred_page pp = { .nmodels = 0 };
	char line[8192], q[PLOT_Q_MAX];
	size_t o;

	if (pred_models(r, &pp) == 0) {
		snprintf(why, cap, r->nscen ? "no scenario in predict/ has a prediction and a dedicated time"
					    : "no predictions (run 'contend predict RUN --scenario S')");
		return 0;
	}
	pred_bars(r, &pp, p);
	pred_labels(r, &pp, p);
	common(p);
	title(p, r, "Predicted and measured run time per scenario (dedicated = 100)");
	plot_cmd(p, "set grid noxtics");
	plot_cmd(p, "set ylabel 'run time (dedicated run = 100)'");
	plot_cmd(p, "set xlabel 'scenario (numbers on bars: prediction error vs measured, or the predicted value)'");
	plot_cmd(p, "set yrange [0:*]");
	plot_cmd(p, "set offsets 0,0,graph 0.12,0");
	plot_cmd(p, "set bmargin 6");
	plot_cmd(p, "set key at screen 0.5,0.015 center bottom horizontal");
	plot_cmd(p, "set style fill pattern border lc rgb 'black'");
	o = (size_t)snprintf(line, sizeof line,
			     "plot $s0 using 1:2:3 with boxes fs solid 0.15 lc rgb 'black' title 'dedicated'");
	if (pp.have_meas)
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $s1 using 1:2:3 with boxes fs solid 0.75 lc rgb 'black' title 'measured'");
	for (int m = 0; m < pp.nmodels && o < sizeof line; m++) {
		char t[96];

		snprintf(t, sizeof t, "predicted: %.80s", pp.names[m]);
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $s%d using 1:2:3 with boxes fs pattern %d lc rgb 'black' title %s",
				      m + 1 + (pp.have_meas ? 1 : 0), fills[m % 6 + 1], plot_quote(q, sizeof q, t));
	}
	if (o >= sizeof line) {
		snprintf(why, cap, "too many models to draw");
		return -E_LIMIT;
	}
	plot_cmd(p, "%s", line);
	return 1;
}

/* ---------------------------------------------------------------- slowdown curves */

double
page_cpu_slowdown(double busy_ns, double idle_ns, int k)
{
	return 1.0 + p003_cpu_increase(busy_ns, idle_ns, k);
}

static int
page_slowdown(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	const struct prof_rank *slow = NULL;
	struct p000_delay d;
	static const double fr[] = { 0.25, 0.5, 0.75, 1.0 };	/* competitor's communicating share */
	char q[PLOT_Q_MAX];

	if (!r->have_prof || r->prof.nranks == 0) {
		snprintf(why, cap, "no per-rank summary (%.200s)", r->prof_why);
		return 0;
	}
	for (int i = 0; i < r->prof.nranks; i++)
		if (slow == NULL || r->prof.ranks[i].exec_ns > slow->exec_ns)
			slow = &r->prof.ranks[i];
	p000_delay_alphafarm(&d);
	/* (a) paper 000 eq. 2 with one competitor communicating a share f of its time. */
	plot_begin_data(p, "bw");
	for (int i = 0; i <= 120; i++) {
		double mbs = 0.5 * i;		/* available bandwidth, MB/s */
		double sd[4];

		for (int j = 0; j < 4; j++) {
			double comp = 1 - fr[j], comm = fr[j], pp[2], pm[2], delay[2];

			if (p000_pp_pm(1, &comp, &comm, pp, pm) < 0)
				return snprintf(why, cap, "p000_pp_pm refused its input"), -E_USAGE;
			delay[0] = 0;
			delay[1] = p000_delay_comm(&d, 1, mbs * 1e6, NULL);
			sd[j] = p000_local_sd(1, pp, pm, delay);
		}
		plot_row(p, "%.3f %.5f %.5f %.5f %.5f", mbs, sd[0], sd[1], sd[2], sd[3]);
	}
	plot_end_data(p);
	/* (b) against competing CPU-bound processes: paper 003 for this run's ranks, paper 000. */
	plot_begin_data(p, "k");
	for (int k = 0; k <= 8; k++) {
		double worst = 0, mean = 0;

		for (int i = 0; i < r->prof.nranks; i++) {
			const struct prof_rank *rk = &r->prof.ranks[i];
			double t = (double)rk->exec_ns * page_cpu_slowdown(rk->avg_busy_ns, rk->avg_idle_ns, k);

			if (t > worst)
				worst = t;
			mean += page_cpu_slowdown(rk->avg_busy_ns, rk->avg_idle_ns, k);
		}
		mean /= r->prof.nranks;
		plot_row(p, "%d %.5f %.5f %.5f", k, slow->exec_ns > 0 ? worst / (double)slow->exec_ns : NAN,
			 mean, 1.0 + k);
	}
	plot_end_data(p);
	common(p);
	{
		char t[300];

		snprintf(t, sizeof t, "Slowdown curves (run %s)", r->name);
		plot_cmd(p, "set multiplot layout 1,2 title %s font 'Sans,13'", plot_quote(q, sizeof q, t));
	}
	plot_cmd(p, "set title %s", plot_quote(q, sizeof q, "one competing application (paper 000, eq. 2)"));
	plot_cmd(p, "set xlabel 'bandwidth available to the competitor (MB/s)'");
	plot_cmd(p, "set ylabel 'slowdown (time / dedicated time)'");
	plot_cmd(p, "set key top right title 'competitor communicates'");
	plot_cmd(p, "set yrange [1:*]");
	{
		char line[2048];
		size_t o = (size_t)snprintf(line, sizeof line, "plot");

		for (int j = 0; j < 4; j++)
			o += (size_t)snprintf(line + o, sizeof line - o,
					      "%s $bw using 1:%d with lines dt %d lw 2 lc rgb 'black' title '%.0f%% of its time'",
					      j ? "," : "", j + 2, dashes[j], 100 * fr[j]);
		plot_cmd(p, "%s", line);
	}
	plot_cmd(p, "set title %s", plot_quote(q, sizeof q, "competing CPU-bound processes"));
	plot_cmd(p, "set xlabel 'competing CPU-bound processes per node'");
	plot_cmd(p, "set key top left title ''");
	plot_cmd(p, "set xtics 1");
	plot_cmd(p, "plot $k using 1:2 with linespoints dt 1 pt 7 lw 2 lc rgb 'black' title 'this run, slowest rank (paper 003, Sec. 2.1)', \\");
	plot_cmd(p, "  $k using 1:3 with linespoints dt 2 pt 6 lw 2 lc rgb 'black' title 'this run, mean over ranks (paper 003)', \\");
	plot_cmd(p, "  $k using 1:4 with lines dt 3 lw 2 lc rgb 'black' title 'CPU-bound application (paper 000, eq. 2)'");
	plot_cmd(p, "unset multiplot");
	return 1;
}

/* ---------------------------------------------------------------- speedup and efficiency */

static const char *
run_command(const struct rep_run *r)
{
	const char *v = rep_kv_get(r->run_kv, r->nrun_kv, "command");

	return v != NULL ? v : "";
}

/* The program's name: the first word of the command that does not look like a launcher
 * option, without its directory. */
static void
program_of(const struct rep_run *r, char *dst, size_t cap)
{
	const char *s = run_command(r);
	const char *end, *slash;

	while (*s == ' ')
		s++;
	end = strchr(s, ' ');
	if (end == NULL)
		end = s + strlen(s);
	slash = s;
	for (const char *c = s; c < end; c++)
		if (*c == '/')
			slash = c + 1;
	snprintf(dst, cap, "%.*s", (int)(end - slash), slash);
}

struct sp_point {
	int m;			/* workstations (ranks) */
	double t_ns;		/* T(A, HN) */
	double pdeg, h, sp_model, sp_work, eff_model;
};

static int
sp_point_of(const struct rep_run *r, struct sp_point *pt)
{
	const struct prof *pf = &r->prof;
	int m = pf->nranks;
	double *comp = xcalloc((size_t)m, sizeof *comp), *w = xcalloc((size_t)m, sizeof *w);
	int64_t *act = xcalloc((size_t)m, sizeof *act);
	int rc = -1;

	pt->m = m;
	pt->t_ns = (double)prof_dedicated_ns(pf);
	for (int i = 0; i < m; i++)
		comp[i] = (double)pf->ranks[i].exec_ns * pf->ranks[i].comp_pct / 100.0;
	if (pt->t_ns > 0 && r->t1_ns > r->t0_ns &&
	    p002_active_ns(pf->busy, (size_t)pf->nbusy, m, r->t0_ns, r->t1_ns, act, NULL) == 0 &&
	    p002_weights_from_time(comp, m, w) == 0) {
		pt->pdeg = p002_pdeg(act, m, (double)(r->t1_ns - r->t0_ns));
		pt->h = p002_heterogeneity(w, m);
		pt->sp_model = p002_speedup_model(pt->pdeg, pt->h);
		pt->sp_work = p002_speedup_work(w, act, m, (double)(r->t1_ns - r->t0_ns));
		pt->eff_model = p002_efficiency_dedicated(pt->sp_model, w, m);
		rc = 0;
	}
	free(comp);
	free(w);
	free(act);
	return rc;
}

static int
cmp_sp(const void *a, const void *b)
{
	const struct sp_point *x = a, *y = b;

	return (x->m > y->m) - (x->m < y->m);
}

static int
page_speedup(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	char prog[256], other[256];
	struct sp_point *pts;
	int n = 0;
	double t1 = NAN;	/* a one-workstation run's time */

	if (c->nall < 2) {
		snprintf(why, cap, "needs several runs of one application (contend report RUN1 RUN2 ...)");
		return 0;
	}
	program_of(r, prog, sizeof prog);
	pts = xcalloc((size_t)c->nall, sizeof *pts);
	for (int i = 0; i < c->nall; i++) {
		const struct rep_run *o = c->all[i];

		program_of(o, other, sizeof other);
		if (strcmp(prog, other) != 0 || !o->have_prof || !o->have_phases || o->prof.nranks < 1)
			continue;
		if (sp_point_of(o, &pts[n]) == 0)
			n++;
	}
	if (n < 2) {
		free(pts);
		snprintf(why, cap, "fewer than two of the runs given are of program '%s' with a profile", prog);
		return 0;
	}
	qsort(pts, (size_t)n, sizeof *pts, cmp_sp);
	if (pts[0].m == 1)
		t1 = pts[0].t_ns;
	plot_begin_data(p, "sp");
	for (int i = 0; i < n; i++)
		plot_row(p, "%d %.5f %.5f %.5f %.5f %.5f %.4f", pts[i].m, pts[i].sp_model, pts[i].sp_work,
			 isfinite(t1) ? t1 / pts[i].t_ns : NAN, pts[i].eff_model,
			 isfinite(t1) ? (t1 / pts[i].t_ns) / pts[i].m : NAN, pts[i].h);
	plot_end_data(p);
	free(pts);
	common(p);
	{
		char t[300];

		snprintf(t, sizeof t, "Speedup and efficiency of '%.100s' against workstations (paper 002)", prog);
		title(p, r, t);
	}
	plot_cmd(p, "set xlabel 'workstations (ranks)'");
	plot_cmd(p, "set ylabel 'speedup'");
	plot_cmd(p, "set y2label 'efficiency'");
	plot_cmd(p, "set y2tics");
	plot_cmd(p, "set ytics nomirror");
	plot_cmd(p, "set yrange [0:*]");
	plot_cmd(p, "set y2range [0:1.2]");
	plot_cmd(p, "set xtics 1");
	plot_cmd(p, "set key top left");
	plot_cmd(p, "plot $sp using 1:2 with linespoints dt 1 pt 7 lw 2 lc rgb 'black' title 'speedup, model SP = P_deg (1 - H) (eq. 6)', \\");
	plot_cmd(p, "  $sp using 1:3 with linespoints dt 2 pt 5 lw 2 lc rgb 'black' title 'speedup, work identity sum W_j T_j / T', \\");
	plot_cmd(p, "  $sp using 1:4 with points pt 9 ps 2 lc rgb 'black' title 'speedup, measured (one-workstation run / run)', \\");
	plot_cmd(p, "  $sp using 1:5 axes x1y2 with linespoints dt 4 pt 6 lw 2 lc rgb '#505050' title 'efficiency, model (eq. 14)', \\");
	plot_cmd(p, "  $sp using 1:6 axes x1y2 with points pt 8 ps 2 lc rgb '#505050' title 'efficiency, measured'");
	return 1;
}

/* ---------------------------------------------------------------- work rate per master */

static int
page_masters(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	struct p001_derived d;
	struct p001_app app;
	struct p001_caps caps;
	struct p001_masters flow, greedy;
	struct graph g;
	struct err e;
	int nranks = rep_nranks(r), rc, master_host;
	char reason[300];
	char *path;
	char q[PLOT_Q_MAX];
	double measured_s;

	if (!r->have_topo_dot) {
		snprintf(why, cap, "no topology (run 'contend infer RUN')");
		return 0;
	}
	if (!r->have_msgs || !r->have_phases || nranks < 3 || !r->have_prof) {
		snprintf(why, cap, "needs messages, phases and at least three ranks");
		return 0;
	}
	if (r->prof.capped > 0) {
		/* the hand-out/result cycles need every message and phase */
		snprintf(why, cap, "more than %ld messages or phases (past the profile reader's caps)",
			 PROF_MAX_MSGS);
		return 0;
	}
	/* the model's own test, so the page never analyses as a farm a run paper 001 refuses */
	rc = run001_derive(&r->prof, &d, reason, sizeof reason, &e);
	if (rc <= 0) {
		snprintf(why, cap, "not a master/slave run (%.200s)", rc < 0 ? e.msg : reason);
		return 0;
	}
	app.t_slave_s = d.t_slave_s;
	app.t_master_s = d.t_master_s;
	app.size_taskxfer_bytes = d.size_taskxfer_bytes;
	app.out_fraction = d.out_fraction;
	path = xasprintf("%s/topology.dot", r->dir);
	rc = graph_read_dot(&g, path, 0, &e);
	free(path);
	memset(&caps, 0, sizeof caps);
	memset(&flow, 0, sizeof flow);
	memset(&greedy, 0, sizeof greedy);
	if (rc == 0)
		rc = p001_caps_init(&caps, &g, &app, NULL, &e);
	if (rc == 0)
		rc = p001_select_master(&g, &caps, P001_MAXFLOW, &flow, &e);
	if (rc == 0)
		rc = p001_select_master(&g, &caps, P001_GREEDY, &greedy, &e);
	if (rc < 0) {
		snprintf(why, cap, "work rates: %.200s", e.msg);
		goto out;
	}
	master_host = graph_find_host(&g, rep_host(r, d.master));
	measured_s = (double)(r->t1_ns - r->t0_ns) / 1e9;
	plot_begin_data(p, "w");
	for (int h = 0; h < g.nhost; h++) {
		double f = flow.per_master[h].app_rate_tps, gr = greedy.per_master[h].app_rate_tps;

		plot_row(p, "%d %.6g %.6g %.6g", h, p001_exec_time_s((double)d.tasks, f),
			 p001_exec_time_s((double)d.tasks, gr), h == master_host ? measured_s : NAN);
	}
	plot_end_data(p);
	plot_cmd(p, "set xtics (%s 0)", plot_quote_tic(q, sizeof q, g.hosts[0].name));
	for (int h = 1; h < g.nhost; h++)
		plot_cmd(p, "set xtics add (%s %d)", plot_quote_tic(q, sizeof q, g.hosts[h].name), h);
	common(p);
	{
		char t[300];

		snprintf(t, sizeof t, "Execution time per candidate master, %lld tasks (paper 001; best: %.60s)",
			 (long long)d.tasks, g.hosts[flow.best].name);
		title(p, r, t);
	}
	plot_cmd(p, "set grid noxtics");
	plot_cmd(p, "set xlabel 'master host (all other hosts are slaves)'");
	plot_cmd(p, "set ylabel 'execution time (s) = tasks / AppRate'");
	plot_cmd(p, "set xrange [-0.6:%d.6]", g.nhost - 1);
	plot_cmd(p, "set yrange [0:*]");
	plot_cmd(p, "set bmargin 6");
	plot_cmd(p, "set key at screen 0.5,0.015 center bottom horizontal");
	plot_cmd(p, "set boxwidth 0.27");
	plot_cmd(p, "set offsets 0,0,graph 0.08,0");
	plot_cmd(p, "plot $w using ($1-0.28):2 with boxes fs solid 0.15 border lc rgb 'black' lc rgb 'black' title 'work-flow model (max flow, eqs. 1-5)', \\");
	plot_cmd(p, "  $w using ($1):3 with boxes fs pattern 2 border lc rgb 'black' lc rgb 'black' title 'greedy selection (Figure 2)', \\");
	plot_cmd(p, "  $w using ($1+0.28):4 with boxes fs solid 0.8 border lc rgb 'black' lc rgb 'black' title 'measured (this run)'");
	rc = 1;
out:
	p001_masters_release(&flow);
	p001_masters_release(&greedy);
	p001_caps_release(&caps);
	graph_release(&g);
	p001_derived_release(&d);
	return rc < 0 ? 0 : rc;
}

/* ---------------------------------------------------------------- why slow (explain) */

#define PAGE_EXPLAIN_CAUSES 5		/* causes written out */

/* Each rank's time as a stacked bar (start-up, computing, CPU taken by others, waiting on
 * the network, waiting on other ranks) and the top causes in words, from explain/attrib.h. */
static int
page_explain(const struct page_ctx *c, struct plot *p, char *why, size_t cap)
{
	const struct rep_run *r = c->run;
	static const char *const parts[] = { "start-up", "computing", "CPU taken by others",
					     "waiting on the network", "waiting on other ranks" };
	struct attr_result a;
	struct evid v;
	struct err e;
	char q[PLOT_Q_MAX], line[1024];
	int n, shown = 0;
	struct rgroup *g;
	bool grouped, by_node;

	if (!r->have_prof || !r->have_msgs || !r->have_phases) {
		snprintf(why, cap, "needs the run's profile, messages and phases");
		return 0;
	}
	evid_load(&v, &r->prof);
	if (attr_explain(&r->prof, &v, NULL, NULL, &a, &e) < 0) {
		snprintf(why, cap, "%s", e.msg);
		evid_free(&v);
		return -1;
	}
	evid_free(&v);
	g = xcalloc(PAGE_GROUPS, sizeof *g);
	n = rank_groups(&r->prof, g, c->group_by, &by_node);
	grouped = n > 0 && g[0].hi - g[0].lo > 1;
	plot_begin_data(p, "x");
	for (int i = 0; i < n; i++) {	/* attr ranks follow ranks.tsv rows; a group's means */
		double x[5] = { 0 };
		int lo = g[i].lo, hi = g[i].hi < a.nranks ? g[i].hi : a.nranks;

		for (int j = lo; j < hi; j++) {
			const struct attr_rank *k = &a.ranks[j];

			x[0] += k->startup_ns / (hi - lo);
			x[1] += k->work_ns / (hi - lo);
			x[2] += k->cpu_wait_ns / (hi - lo);
			x[3] += k->net_ns / (hi - lo);
			x[4] += k->others_ns / (hi - lo);
		}
		plot_row(p, "%d %.6f %.6f %.6f %.6f %.6f", i, x[0] / 1e9, x[1] / 1e9, x[2] / 1e9, x[3] / 1e9,
			 x[4] / 1e9);
	}
	plot_end_data(p);
	common(p);
	if (grouped)
		snprintf(line, sizeof line, "Why the run took %.2f s: mean time of a rank, per %s (%d ranks)",
			 a.measured_ns / 1e9, by_node ? "node" : "group of ranks", a.nranks);
	else
		snprintf(line, sizeof line, "Why the run took %.2f s: each rank's time%s", a.measured_ns / 1e9,
			 n < a.nranks ? " (the first ranks)" : "");
	title(p, r, line);
	plot_cmd(p, "set xtics rotate by 45 right font 'Sans,%d'", n > 16 ? 6 : 8);
	plot_cmd(p, "set xtics (%s 0)", plot_quote_tic(q, sizeof q, g[0].label));
	for (int i = 1; i < n; i++)
		plot_cmd(p, "set xtics add (%s %d)", plot_quote_tic(q, sizeof q, g[i].label), i);
	free(g);
	/* the top causes, in words, under the bars */
	plot_cmd(p, "set bmargin %d", 8 + 2 * (PAGE_EXPLAIN_CAUSES + 1));
	for (int i = 0; i < a.n && shown < PAGE_EXPLAIN_CAUSES; i++) {
		const struct attr_cause *x = &a.c[i];
		char where[120];

		if (x->cost_ns < 0.005 * a.measured_ns)
			continue;
		plot_clean(where, sizeof where, x->where);
		snprintf(line, sizeof line, "%d. %s %s: %.2f s (%.1f %% of the run)%s", shown + 1,
			 x->kind == ATTR_CPU ? "CPU taken by others on" : x->kind == ATTR_LINK ? "slow link" :
			 x->kind == ATTR_IMBALANCE ? "imbalance, late" : x->kind == ATTR_STARTUP ? "start-up," :
			 "finish,", where, x->cost_ns / 1e9, 100 * x->cost_ns / a.measured_ns,
			 x->uncertain ? ", uncertain: the trace is partial there" : "");
		plot_cmd(p, "set label %d %s at screen 0.08, screen %.3f left font 'Sans,10'", 100 + shown,
			 plot_quote(q, sizeof q, line), 0.20 - 0.032 * shown);
		shown++;
	}
	if (shown == 0)
		plot_cmd(p, "set label 100 %s at screen 0.08, screen 0.20 left font 'Sans,10'",
			 plot_quote(q, sizeof q, "no cause cost the run 0.5 % or more"));
	if (a.observer_evidence[0] != '\0' && fabs(a.observer_ns) >= 0.005 * a.measured_ns)
		snprintf(line, sizeof line, "without every cause %.2f s; collect's own start-up %.2f s (not the "
			 "program's); residual %.2f s", a.ideal_ns / 1e9, a.observer_ns / 1e9, a.residual_ns / 1e9);
	else
		snprintf(line, sizeof line, "without every cause %.2f s; residual %.2f s (communication at the "
			 "links' references, latency, unexplained)", a.ideal_ns / 1e9, a.residual_ns / 1e9);
	plot_cmd(p, "set label 99 %s at screen 0.08, screen %.3f left font 'Sans,9'", plot_quote(q, sizeof q, line),
		 0.20 - 0.032 * (shown > 0 ? shown : 1));
	plot_cmd(p, "set style data histograms");
	plot_cmd(p, "set style histogram rowstacked");
	plot_cmd(p, "set style fill pattern 1 border lc rgb 'black'");
	plot_cmd(p, "set boxwidth 0.7");
	plot_cmd(p, "set xlabel %s", grouped ? (by_node ? "'node'" : "'ranks'") : "'rank'");
	plot_cmd(p, "set ylabel 'time (s)'");
	plot_cmd(p, "set yrange [0:*]");
	plot_cmd(p, "set key outside right top");
	{
		size_t o = (size_t)snprintf(line, sizeof line, "plot");

		for (int k = 0; k < 5 && o < sizeof line; k++)
			o += (size_t)snprintf(line + o, sizeof line - o, "%s $x using %d%s fs pattern %d lc rgb 'black' title %s",
					      k ? "," : "", k + 2, "", fills[k % 7],
					      plot_quote(q, sizeof q, parts[k]));
		plot_cmd(p, "%s", line);
	}
	attr_result_free(&a);
	return 1;
}

const struct page pages[] = {
	{ "02-timeline", "per-rank timeline", page_timeline },
	{ "03-matrix", "communication matrix", page_matrix },
	{ "04-sizes", "message size distribution", page_sizes },
	{ "05-table", "execution characteristics (paper 003 Figure 3)", page_table },
	{ "06-predicted", "predicted vs measured (paper 003 Figure 4)", page_predict },
	{ "07-slowdown", "slowdown curves (paper 000)", page_slowdown },
	{ "08-speedup", "speedup and efficiency (paper 002)", page_speedup },
	{ "09-topology", "topology graph", NULL },
	{ "10-masters", "work rate per candidate master (paper 001)", page_masters },
	{ "11-explain", "why the run was slow (explain)", page_explain },
	{ NULL, NULL, NULL },
};
