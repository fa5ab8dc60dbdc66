/* front: the report's front page: what was run, where, when, how well it was recorded and
 * parsed, and which pages the report holds or leaves out. */
#include "report/pages.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"

#define FRONT_VALUE_MAX 125	/* characters of one value on the page */

struct front {
	struct plot *p;
	double y;		/* next line, screen fraction from the bottom */
	double dy;		/* line height */
};

static void
line(struct front *f, double x, const char *key, const char *value)
{
	char q1[PLOT_Q_MAX], q2[PLOT_Q_MAX];
	char v[FRONT_VALUE_MAX + 4];
	const char *s = value;

	{
		char k[40];	/* the key column is narrow */

		plot_clean(k, 26, key);
		if (strlen(key) > strlen(k))
			memcpy(k + strlen(k), "...", 4);
		plot_cmd(f->p, "set label %s at screen %.3f,%.4f left font 'Sans Bold,9'",
			 plot_quote(q1, sizeof q1, k), x, f->y);
	}
	/* Long values wrap at a blank, up to three lines; the rest is cut with "...". */
	for (int n = 0; n < 3; n++) {
		size_t len = strlen(s);

		if (len >= FRONT_VALUE_MAX && n < 2) {
			size_t cut = FRONT_VALUE_MAX - 1;

			while (cut > FRONT_VALUE_MAX / 2 && s[cut] != ' ')
				cut--;
			if (s[cut] != ' ')
				cut = FRONT_VALUE_MAX - 1;
			memcpy(v, s, cut);
			v[cut] = '\0';
			s += cut + (s[cut] == ' ');
		} else {
			plot_clean(v, FRONT_VALUE_MAX, s);
			if (len >= FRONT_VALUE_MAX - 1)
				memcpy(v + strlen(v), "...", 4);
			len = 0;
		}
		{
			char w[FRONT_VALUE_MAX + 4];

			plot_clean(w, sizeof w, v);
			plot_cmd(f->p, "set label %s at screen %.3f,%.4f left font 'Sans,9'",
				 plot_quote(q2, sizeof q2, w), x + 0.16, f->y);
		}
		f->y -= f->dy;
		if (len == 0 || *s == '\0')
			break;
	}
}

static void
heading(struct front *f, const char *text)
{
	char q[PLOT_Q_MAX];

	f->y -= f->dy * 0.4;
	plot_cmd(f->p, "set label %s at screen 0.05,%.4f left font 'Sans Bold,11'",
		 plot_quote(q, sizeof q, text), f->y);
	f->y -= f->dy * 1.1;
}

static const char *
kv(const struct rep_run *r, const char *key)
{
	const char *v = rep_kv_get(r->run_kv, r->nrun_kv, key);

	return v != NULL && *v != '\0' ? v : "-";
}

static void
fmt_time(char *dst, size_t cap, int64_t t_ns)
{
	time_t t = (time_t)(t_ns / NS_PER_S);
	struct tm tm;

	if (t_ns <= 0 || gmtime_r(&t, &tm) == NULL || strftime(dst, cap, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(dst, cap, "unknown");
}

/* "ws1: 0-3, ws2: 4-7": the ranks of each host, in rank order. */
static void
hosts_line(const struct rep_run *r, char *dst, size_t cap)
{
	size_t o = 0;

	dst[0] = '\0';
	if (!r->have_prof)
		return;
	for (int i = 0; i < r->prof.nranks && o + 1 < cap; i++) {
		const struct prof_rank *k = &r->prof.ranks[i];
		int j = i;

		if (i > 0 && strcmp(r->prof.ranks[i - 1].host, k->host) == 0)
			continue;
		while (j + 1 < r->prof.nranks && strcmp(r->prof.ranks[j + 1].host, k->host) == 0)
			j++;
		if (j > i)
			o += (size_t)snprintf(dst + o, cap - o, "%s%.60s: %d-%d", o ? ", " : "", k->host,
					      k->rank, r->prof.ranks[j].rank);
		else
			o += (size_t)snprintf(dst + o, cap - o, "%s%.60s: %d", o ? ", " : "", k->host, k->rank);
	}
}

/* What the observation kept and cost: how much a reader should trust that it did not
 * disturb the run (docs/collect.md). */
static void
observation_lines(struct front *f, const struct rep_run *r)
{
	char v[512], kinds[64] = "";
	int64_t cap = 0, wr = 0, gave_up = 0;
	bool sizes = r->nnodes > 0;

	for (int i = 0; i < r->nnodes; i++) {
		const struct rep_node *n = &r->nodes[i];
		size_t k = strlen(kinds);

		if (strstr(kinds, n->payload) == NULL)
			snprintf(kinds + k, sizeof kinds - k, "%s%s", k ? "," : "", n->payload);
		if (n->bytes_captured < 0 || n->bytes_written < 0)
			sizes = false;
		cap += n->bytes_captured;
		wr += n->bytes_written;
		gave_up += n->framing_gave_up > 0 ? n->framing_gave_up : 0;
	}
	if (kinds[0] != '\0') {
		if (sizes && cap > 0)
			snprintf(v, sizeof v, "%s: %.1f MB written of %.1f MB captured (%.2f %%)%s", kinds,
				 (double)wr / 1e6, (double)cap / 1e6, 100.0 * (double)wr / (double)cap,
				 strstr(kinds, "framed") && gave_up > 0 ? "; framing given up on some streams" : "");
		else
			snprintf(v, sizeof v, "%s", kinds);
		line(f, 0.05, "capture kept", v);
	}
	if (r->app_cpu_ns > 0) {
		snprintf(v, sizeof v, "%.3f s, %.2f %% of the applications' %.3f s (agents and captures)",
			 (double)r->observer_cpu_ns / 1e9,
			 100.0 * (double)r->observer_cpu_ns / (double)r->app_cpu_ns,
			 (double)r->app_cpu_ns / 1e9);
		line(f, 0.05, "observer CPU", v);
	}
	if (r->nrank_meta > 0 && r->start_cost_ns >= 0 && r->stop_cost_ns >= 0) {
		snprintf(v, sizeof v, "%.3f s before the applications, %.3f s after them (wall time "
			 "collect added)", (double)r->start_cost_ns / 1e9,
			 (double)r->stop_cost_ns / 1e9);
		line(f, 0.05, "start and stop", v);
	}
}

/* The numbers below rest on damaged or missing input: say so first, in a box. */
static void
front_warning(struct front *f, const struct rep_run *r)
{
	struct plot *p = f->p;
	char v[1024], q[PLOT_Q_MAX];
	double top, bottom;

	if (!(r->partial || r->warn_total > 0))
		return;
	top = f->y + 0.01;
	f->y -= f->dy * 0.4;
	snprintf(v, sizeof v, "Warning: this run's profile is %s: parse gave %ld warning%s",
		 r->partial ? "partial" : "from damaged input", r->warn_total,
		 r->warn_total == 1 ? "" : "s");
	plot_cmd(p, "set label %s at screen 0.06,%.4f left font 'Sans Bold,11' tc rgb '#a01010'",
		 plot_quote(q, sizeof q, v), f->y);
	f->y -= f->dy * 1.1;
	for (int i = 0; i < r->nwarn; i++)
		line(f, 0.06, i == 0 ? "what parse found" : "", r->warn[i]);
	if (r->warn_total > r->nwarn) {
		snprintf(v, sizeof v, "%ld more in profile/warnings.tsv", r->warn_total - r->nwarn);
		line(f, 0.06, "", v);
	}
	bottom = f->y + f->dy * 0.4;
	plot_cmd(p, "set object 1 rectangle from screen 0.04,%.4f to screen 0.96,%.4f behind "
		 "fillcolor rgb '#fde8e6' fillstyle solid 1.0 border lc rgb '#a01010' lw 1.5",
		 bottom, top);
	f->y -= f->dy * 0.3;
}

/* The run: where, what, on which hosts, when, how long, with which versions. */
static void
front_run(struct front *f, const struct rep_run *r)
{
	char v[1024];
	int64_t start = r->start_real_ns, end = r->end_real_ns;

	heading(f, "Run");
	line(f, 0.05, "directory", r->dir);
	line(f, 0.05, "command", kv(r, "command"));
	line(f, 0.05, "launcher", kv(r, "launcher"));
	hosts_line(r, v, sizeof v);
	{
		char t[1100];

		snprintf(t, sizeof t, "%d ranks on %d hosts%s%.900s%s", rep_nranks(r),
			 r->have_prof ? prof_nhosts(&r->prof) : r->nnodes, v[0] ? " (" : "", v, v[0] ? ")" : "");
		line(f, 0.05, "ranks and hosts", t);
	}
	if (start <= 0) {
		const char *s = rep_kv_get(r->run_kv, r->nrun_kv, "start_real_ns");

		start = s ? strtoll(s, NULL, 10) : r->t0_ns;
	}
	if (start <= 0)
		start = r->t0_ns;
	fmt_time(v, sizeof v, start);
	line(f, 0.05, "date", v);
	if (end > start && start > 0)
		snprintf(v, sizeof v, "%.3f s (first agent start to last agent end)", (double)(end - start) / 1e9);
	else if (r->t1_ns > r->t0_ns)
		snprintf(v, sizeof v, "%.3f s (first to last event in the profile)", (double)(r->t1_ns - r->t0_ns) / 1e9);
	else
		snprintf(v, sizeof v, "unknown");
	line(f, 0.05, "job duration", v);
	if (r->have_prof && prof_dedicated_ns(&r->prof) > 0) {
		/* the time predict calls dedicated: say it is another measure than the above */
		snprintf(v, sizeof v, "%.3f s (the longest rank's, from its CPU samples; predict's "
			 "dedicated time)", (double)prof_dedicated_ns(&r->prof) / 1e9);
		line(f, 0.05, "run time", v);
	}
	snprintf(v, sizeof v, "contend %.40s (recorded with %.40s), kernel %.80s, MPI %.60s", CONTEND_VERSION,
		 kv(r, "contend_version"), kv(r, "kernel"), kv(r, "mpi"));
	line(f, 0.05, "versions", v);
	if (!r->have_meta)
		line(f, 0.05, "meta", "meta/run.tsv is missing: run facts unknown");
}

/* What the capture kept and lost and what parse read, damaged or capped. */
static void
front_capture(struct front *f, const struct rep_run *r)
{
	char v[1024];

	heading(f, "Capture and parse");
	if (r->nnodes == 0)
		line(f, 0.05, "capture drops", "unknown (no meta/node-HOST.tsv)");
	for (int i = 0; i < r->nnodes && i < 6; i++) {
		const struct rep_node *n = &r->nodes[i];
		char k[160];

		snprintf(k, sizeof k, "drops on %.60s", n->host);
		snprintf(v, sizeof v, "%" PRId64 " dropped by the kernel, %" PRId64 " by the interface, of %" PRId64 " received",
			 n->pcap_drop, n->pcap_ifdrop, n->pcap_recv);
		line(f, 0.05, k, v);
	}
	if (r->nnodes > 6) {
		snprintf(v, sizeof v, "%d more nodes in meta/", r->nnodes - 6);
		line(f, 0.05, "", v);
	}
	observation_lines(f, r);
	if (r->have_stats) {
		const char *cov = rep_kv_get(r->stats, r->nstats, "coverage_note");

		line(f, 0.05, "coverage", cov ? cov : "not in profile/stats.tsv (parsed by an older contend)");
	}
	if (r->have_stats && rep_kv_get(r->stats, r->nstats, "tail_hung") != NULL) {
		/* a rank killed long after the run's last message (docs/parse.md, "A hung end") */
		const char *cut = rep_kv_get(r->stats, r->nstats, "tail_cut_ranks");

		snprintf(v, sizeof v, "rank=seconds %.120s after the run's last message until killed; "
			 "exec time %s", rep_kv_get(r->stats, r->nstats, "tail_hung"),
			 cut != NULL && strcmp(cut, "0") != 0 ? "cut at that message" :
			 "kept (parse --keep-tail)");
		line(f, 0.05, "hung end", v);
	}
	if (r->have_stats) {
		size_t o = 0;
		int shown = 0;

		v[0] = '\0';
		for (int i = 0; i < r->nstats && o + 1 < sizeof v; i++) {
			o += (size_t)snprintf(v + o, sizeof v - o, "%s%.40s %.30s", o ? ", " : "", r->stats[i].key,
					      r->stats[i].value);
			if (o > FRONT_VALUE_MAX - 20 || i + 1 == r->nstats) {
				line(f, 0.05, shown++ ? "" : "parse statistics", v);
				o = 0;
				v[0] = '\0';
				if (shown >= 4)
					break;
			}
		}
	} else {
		line(f, 0.05, "parse statistics", "profile/stats.tsv is missing");
	}
	snprintf(v, sizeof v, "%ld messages, %ld phases, %d scenarios predicted", r->msgs_total,
		 r->nphases, r->nscen);
	line(f, 0.05, "read", v);
	if (r->msg_stride > 1) {	/* caps said, never silent */
		snprintf(v, sizeof v, "every message counted (sizes, matrix from links.tsv); 1 message in %ld kept "
			 "for drawing, evenly over the file (cap %d)", r->msg_stride, REP_MAX_MSGS);
		line(f, 0.05, "sampled", v);
	}
	if (r->have_prof && r->prof.capped > 0) {
		snprintf(v, sizeof v, "%ld messages or phases past the profile reader's caps, left out of "
			 "every page", r->prof.capped);
		line(f, 0.05, "capped", v);
	}
	if (r->damaged > 0) {
		snprintf(v, sizeof v, "%ld skipped (first: %.300s)", r->damaged, r->first_damage);
		line(f, 0.05, "damaged rows", v);
	}
	if (r->have_prof && r->prof.damaged > 0) {
		snprintf(v, sizeof v, "%ld skipped by the model reader (first: %.300s)", r->prof.damaged,
			 r->prof.first_damage);
		line(f, 0.05, "damaged rows", v);
	}
}

/* The pages in this report and why the others were left out. */
static void
front_pages(struct front *f, const int *included, const char *const *why)
{
	char v[1024];

	heading(f, "Pages");
	{
		size_t o = 0;

		v[0] = '\0';
		for (int i = 0; pages[i].id != NULL; i++)
			if (included[i])
				o += (size_t)snprintf(v + o, sizeof v - o, "%s%d %s", o ? ", " : "", i + 2,
						      pages[i].title);
		line(f, 0.05, "in this report", o ? v : "the front page only");
		f->y -= 0.3 * f->dy;
		for (int i = 0; pages[i].id != NULL; i++) {
			if (included[i])
				continue;
			snprintf(v, sizeof v, "%.60s: %.300s", pages[i].title, why[i] ? why[i] : "left out");
			line(f, 0.05, "left out", v);
		}
	}
}

int
page_front(const struct page_ctx *c, struct plot *p, const int *included, const char *const *why,
	   char *err_why, size_t err_cap)
{
	const struct rep_run *r = c->run;
	struct front f = { p, 0.86, 0.026 };
	char v[1024], q[PLOT_Q_MAX];

	(void)err_why;
	(void)err_cap;
	snprintf(v, sizeof v, "contend report: %.200s", r->name);
	plot_cmd(p, "set label %s at screen 0.05,0.93 left font 'Sans Bold,16'", plot_quote(q, sizeof q, v));
	plot_cmd(p, "unset border");
	plot_cmd(p, "unset tics");
	plot_cmd(p, "unset key");

	front_warning(&f, r);
	front_run(&f, r);
	front_capture(&f, r);
	front_pages(&f, included, why);
	plot_cmd(p, "plot [0:1][0:1] NaN notitle");
	return 1;
}
