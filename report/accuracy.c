/* accuracy: reading a bench/accuracy results directory and drawing its Figure 3 table, Figure 4
 * charts and error summary. */
#include "report/accuracy.h"
#include "report/data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tsv.h"
#include "lib/xalloc.h"

/* Fill patterns for the predicted bars that stay apart in black and white (dedicated is a
 * light solid grey, measured a dark one). */
static const int model_fills[ACC_MAX_MODEL] = { 4, 1, 5, 2, 6, 7, 0 };

/* ---------------------------------------------------------------- reading */

static void
damage(struct acc_data *d, const struct err *e)
{
	rep_damage(&d->damaged, d->first_damage, sizeof d->first_damage, e);
}

static int
next_row(struct acc_data *d, struct tsv_r *t)
{
	return rep_next_row(t, &d->damaged, d->first_damage, sizeof d->first_damage);
}

static int
bad_field(struct tsv_r *t, int col, const char *why, struct err *e)
{
	return err_set(e, E_FORMAT, "'%s' line %ld: column '%s': %s", t->path, t->line_no,
		       t->colnames[col], why);
}

/* A name column: non-empty, shorter than ACC_NAME_MAX, no control characters. */
static int
get_name(struct tsv_r *t, const char *col_name, char *dst, struct err *e)
{
	int col = tsv_r_col(t, col_name);
	const char *s = tsv_r_str(t, col);
	size_t n = strlen(s);

	if (n == 0)
		return bad_field(t, col, "empty", e);
	if (n >= ACC_NAME_MAX)
		return bad_field(t, col, "longer than 63 bytes", e);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return bad_field(t, col, "holds a control character", e);
	memcpy(dst, s, n + 1);
	return 0;
}

/* A number column: -1 unknown (NAN), else finite, >= lo (> lo when !lo_ok) and <= hi;
 * why names the range in the message of a bad field. */
static int
get_num(struct tsv_r *t, const char *col_name, double lo, bool lo_ok, double hi, const char *why,
	double *v, struct err *e)
{
	int col = tsv_r_col(t, col_name);

	if (tsv_r_f64(t, col, v, e) < 0)
		return -E_FORMAT;
	if (*v == -1) {
		*v = NAN;
		return 0;
	}
	if (!isfinite(*v) || *v < lo || (*v == lo && !lo_ok) || *v > hi)
		return bad_field(t, col, why, e);
	return 0;
}

/* A time or size: > 0 (>= 0 when zero_ok). */
static int
get_pos(struct tsv_r *t, const char *col_name, bool zero_ok, double *v, struct err *e)
{
	return get_num(t, col_name, 0, zero_ok, INFINITY,
		       zero_ok ? "neither -1 nor a finite number >= 0" : "neither -1 nor a finite number > 0", v, e);
}

/* A percentage of time: within [0, 100] (a little over for rounding). */
static int
get_pct(struct tsv_r *t, const char *col_name, double *v, struct err *e)
{
	return get_num(t, col_name, 0, true, 100.5, "not a percentage in [0, 100]", v, e);
}

static int
get_count(struct tsv_r *t, const char *col_name, int64_t min, int64_t *v, struct err *e)
{
	int col = tsv_r_col(t, col_name);

	if (tsv_r_i64(t, col, v, e) < 0)
		return -E_FORMAT;
	if (*v < min) {
		char why[64];

		snprintf(why, sizeof why, "less than %lld", (long long)min);
		return bad_field(t, col, why, e);
	}
	return 0;
}

/* Index of name in list (n entries), adding it when there is room; -1 past cap. */
static int
intern(char (*list)[ACC_NAME_MAX], int *n, int cap, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i], name) == 0)
			return i;
	if (*n >= cap)
		return -1;
	snprintf(list[*n], ACC_NAME_MAX, "%s", name);
	return (*n)++;
}

static int
find(const char (*list)[ACC_NAME_MAX], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return i;
	return -1;
}

/* A signed percentage as bench/accuracy prints it ("%+.1f": "+4.2", "-0.3"; a plain number
 * too). Strict: no blanks, the whole field, finite. Returns 0, or -E_FORMAT. */
static int
parse_pct(const char *s, double *v)
{
	const char *p = s[0] == '+' ? s + 1 : s;
	char *end;

	if (*p == '\0' || *p == '+' || *p == ' ' || *p == '\t' || strchr(p, ' ') != NULL)
		return -E_FORMAT;
	if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
		return -E_FORMAT;	/* no "nan", "inf", hex words */
	*v = strtod(p, &end);
	if (*end != '\0' || end == p || !isfinite(*v))
		return -E_FORMAT;
	return 0;
}

/* One accuracy.tsv row into r. Returns 0, or -E_FORMAT with e set (the row is damaged). */
static int
parse_row(struct tsv_r *t, struct acc_row *r, bool *inconsistent, struct err *e)
{
	int ecol = tsv_r_col(t, "error_pct");
	const char *es;
	double file_err = NAN;

	*inconsistent = false;
	if (get_name(t, "workload", r->workload, e) < 0 || get_name(t, "scenario", r->scenario, e) < 0 ||
	    get_name(t, "model", r->model, e) < 0 ||
	    get_pos(t, "dedicated_ns", false, &r->dedicated_ns, e) < 0 ||
	    get_pos(t, "predicted_ns", false, &r->predicted_ns, e) < 0 ||
	    get_pos(t, "measured_ns", false, &r->measured_ns, e) < 0 ||
	    get_pos(t, "measured_min_ns", false, &r->measured_min_ns, e) < 0 ||
	    get_pos(t, "measured_max_ns", false, &r->measured_max_ns, e) < 0 ||
	    get_count(t, "reps", 0, &r->reps, e) < 0)
		return -E_FORMAT;
	es = tsv_r_str(t, ecol);
	if (strcmp(es, "-") != 0 && parse_pct(es, &file_err) < 0)
		return bad_field(t, ecol, "neither '-' nor a finite number", e);
	if (isfinite(r->measured_min_ns) && isfinite(r->measured_max_ns) &&
	    r->measured_min_ns > r->measured_max_ns)
		return bad_field(t, tsv_r_col(t, "measured_min_ns"), "larger than measured_max_ns", e);
	/* The measured time (a mean or median of the runs) lies between their extremes; allow 1 ns
	 * for rounding. */
	if (isfinite(r->measured_ns) && isfinite(r->measured_min_ns) && isfinite(r->measured_max_ns) &&
	    (r->measured_ns < r->measured_min_ns - 1 || r->measured_ns > r->measured_max_ns + 1))
		return bad_field(t, tsv_r_col(t, "measured_ns"), "outside [measured_min_ns, measured_max_ns]", e);
	snprintf(r->description, sizeof r->description, "%s", tsv_r_str(t, tsv_r_col(t, "description")));
	r->error_pct = NAN;
	if (isfinite(r->predicted_ns) && isfinite(r->measured_ns))
		r->error_pct = 100.0 * (r->predicted_ns - r->measured_ns) / r->measured_ns;
	if (isfinite(r->error_pct) != isfinite(file_err) ||
	    (isfinite(file_err) && fabs(file_err - r->error_pct) > ACC_ERR_TOL_PCT)) {
		*inconsistent = true;
		if (isfinite(r->error_pct))
			err_set(e, E_FORMAT, "'%s' line %ld: error_pct is %s, but predicted_ns and measured_ns give %.2f",
				t->path, t->line_no, es, r->error_pct);
		else
			err_set(e, E_FORMAT, "'%s' line %ld: error_pct is %s, but predicted_ns or measured_ns is unknown",
				t->path, t->line_no, es);
	}
	return 0;
}

static int
read_accuracy(struct acc_data *d, struct err *e)
{
	static const char *const cols[] = {
		"workload", "scenario", "model", "dedicated_ns", "predicted_ns", "measured_ns",
		"measured_min_ns", "measured_max_ns", "reps", "error_pct", "description", NULL,
	};
	char *path = xasprintf("%s/accuracy.tsv", d->dir);
	struct tsv_r t;
	size_t cap = 0;
	int rc;

	rc = tsv_r_open(&t, path, "accuracy", 1, cols, e);
	if (rc < 0) {
		free(path);
		return rc;
	}
	while (next_row(d, &t) > 0) {
		struct acc_row r;
		struct err re;
		bool inc;

		memset(&r, 0, sizeof r);
		if (parse_row(&t, &r, &inc, &re) < 0) {
			damage(d, &re);
			continue;
		}
		{
			bool dup = false;

			for (int i = 0; i < d->nrows && !dup; i++)
				dup = strcmp(d->rows[i].workload, r.workload) == 0 &&
				      strcmp(d->rows[i].scenario, r.scenario) == 0 &&
				      strcmp(d->rows[i].model, r.model) == 0;
			if (dup) {
				err_set(&re, E_FORMAT, "'%s' line %ld: a second row for workload '%s', scenario '%s', model '%s'",
					path, t.line_no, r.workload, r.scenario, r.model);
				damage(d, &re);
				continue;
			}
		}
		if (d->nrows >= ACC_MAX_ROWS ||
		    intern(d->scen, &d->nscen, ACC_MAX_SCEN, r.scenario) < 0 ||
		    intern(d->work, &d->nwork, ACC_MAX_WORK, r.workload) < 0 ||
		    intern(d->model, &d->nmodel, ACC_MAX_MODEL, r.model) < 0) {
			d->rows_dropped++;
			continue;
		}
		if (inc && d->inconsistent++ == 0)
			snprintf(d->first_inconsistent, sizeof d->first_inconsistent, "%s", re.msg);
		d->rows = xgrow(d->rows, &cap, (size_t)d->nrows + 1, sizeof *d->rows);
		d->rows[d->nrows++] = r;
	}
	tsv_r_close(&t);
	if (d->nrows == 0) {
		rc = err_set(e, E_FORMAT, "'%s' has no usable row (%ld damaged%s%s)", path, d->damaged,
			     d->damaged ? "; first: " : "", d->damaged ? d->first_damage : "");
		free(path);
		return rc;
	}
	free(path);
	return 0;
}

static int
parse_fig3(struct tsv_r *t, struct acc_fig3 *f, struct err *e)
{
	if (get_name(t, "workload", f->workload, e) < 0 ||
	    get_pos(t, "exec_ns", false, &f->exec_ns, e) < 0 ||
	    get_pct(t, "comp_pct", &f->comp_pct, e) < 0 || get_pct(t, "comm_pct", &f->comm_pct, e) < 0 ||
	    get_pct(t, "idle_pct", &f->idle_pct, e) < 0 ||
	    get_pos(t, "avg_busy_ns", true, &f->avg_busy_ns, e) < 0 ||
	    get_pos(t, "avg_idle_ns", true, &f->avg_idle_ns, e) < 0 ||
	    get_count(t, "link_msgs", -1, &f->link_msgs, e) < 0 ||
	    get_pos(t, "link_avg_bytes", true, &f->link_avg_bytes, e) < 0 ||
	    get_count(t, "ranks", 1, &f->ranks, e) < 0)
		return -E_FORMAT;
	if (!isfinite(f->exec_ns))
		return bad_field(t, tsv_r_col(t, "exec_ns"), "unknown (-1): the row says nothing", e);
	return 0;
}

static void
read_fig3(struct acc_data *d)
{
	static const char *const cols[] = {
		"workload", "exec_ns", "comp_pct", "comm_pct", "idle_pct", "avg_busy_ns", "avg_idle_ns",
		"link_msgs", "link_avg_bytes", "ranks", NULL,
	};
	char *path = xasprintf("%s/fig3.tsv", d->dir);
	struct tsv_r t;
	struct err e;
	long damaged0 = d->damaged;

	d->fig3 = xcalloc(ACC_MAX_FIG3, sizeof *d->fig3);
	if (tsv_r_open(&t, path, "fig3", 1, cols, &e) < 0) {
		snprintf(d->fig3_why, sizeof d->fig3_why, "%s", e.msg);
		free(path);
		return;
	}
	while (next_row(d, &t) > 0) {
		struct acc_fig3 f;

		memset(&f, 0, sizeof f);
		if (parse_fig3(&t, &f, &e) < 0) {
			damage(d, &e);
			continue;
		}
		if (d->nfig3 >= ACC_MAX_FIG3) {
			d->fig3_dropped++;
			continue;
		}
		d->fig3[d->nfig3++] = f;
	}
	tsv_r_close(&t);
	if (d->nfig3 == 0)
		snprintf(d->fig3_why, sizeof d->fig3_why, "'%s' has no usable row (%ld damaged)", path,
			 d->damaged - damaged0);
	d->have_fig3 = d->nfig3 > 0;
	free(path);
}

int
acc_load(struct acc_data *d, const char *dir, struct err *e)
{
	int rc;

	memset(d, 0, sizeof *d);
	d->dir = xstrdup(dir);
	rc = read_accuracy(d, e);
	if (rc < 0)
		return rc;
	read_fig3(d);
	return 0;
}

void
acc_free(struct acc_data *d)
{
	free(d->dir);
	free(d->rows);
	free(d->fig3);
	memset(d, 0, sizeof *d);
}

/* ---------------------------------------------------------------- summary */

bool
acc_paper(const char *scenario, const char *model, double *avg_pct, double *max_pct)
{
	static const struct {
		const char *scenario, *model;
		double avg_pct, max_pct;
	} paper[] = {
		/* paper 003 Section 4 (NAS benchmarks, Figure 4) */
		{ "cpu1", "p003", 2.3, 7.8 },
		{ "link", "p003", 2.0, 7.4 },
		{ "both", "p003", 5.7, 11.8 },
		/* paper 000 Section 7: every modeled time within 15 % of the measured one */
		{ "agg", "p000", NAN, 15.0 },
	};

	for (size_t i = 0; i < sizeof paper / sizeof paper[0]; i++)
		if (strcmp(paper[i].scenario, scenario) == 0 && strcmp(paper[i].model, model) == 0) {
			*avg_pct = paper[i].avg_pct;
			*max_pct = paper[i].max_pct;
			return true;
		}
	*avg_pct = *max_pct = NAN;
	return false;
}

int
acc_summarize(const struct acc_data *d, struct acc_sum *out, int cap)
{
	int n = 0;

	for (int s = 0; s < d->nscen; s++)
		for (int m = 0; m < d->nmodel && n < cap; m++) {
			struct acc_sum *o = &out[n];
			double sum = 0;

			memset(o, 0, sizeof *o);
			o->max_abs_pct = 0;
			for (int i = 0; i < d->nrows; i++) {
				const struct acc_row *r = &d->rows[i];

				if (strcmp(r->scenario, d->scen[s]) != 0 || strcmp(r->model, d->model[m]) != 0)
					continue;
				o->nrows++;
				if (!isfinite(r->error_pct))
					continue;
				o->n++;
				sum += fabs(r->error_pct);
				if (fabs(r->error_pct) > o->max_abs_pct)
					o->max_abs_pct = fabs(r->error_pct);
			}
			if (o->nrows == 0)
				continue;
			snprintf(o->scenario, sizeof o->scenario, "%s", d->scen[s]);
			snprintf(o->model, sizeof o->model, "%s", d->model[m]);
			o->avg_abs_pct = o->n > 0 ? sum / o->n : NAN;
			if (o->n == 0)
				o->max_abs_pct = NAN;
			acc_paper(o->scenario, o->model, &o->paper_avg_pct, &o->paper_max_pct);
			n++;
		}
	return n;
}

static void
w_pct(struct tsv_w *t, double v)
{
	if (isfinite(v))
		tsv_w_f64(t, v);
	else
		tsv_w_str(t, "-");
}

int
acc_write_summary(const char *path, const struct acc_sum *s, int n, struct err *e)
{
	static const char *const cols[] = {
		"scenario", "model", "n", "avg_abs_error_pct", "max_abs_error_pct", "paper_avg_pct",
		"paper_max_pct", NULL,
	};
	struct tsv_w t;
	int rc;

	rc = tsv_w_open(&t, path, "accuracy-summary", 1, cols, false, true, e);
	if (rc < 0)
		return rc;
	for (int i = 0; i < n && rc == 0; i++) {
		tsv_w_str(&t, s[i].scenario);
		tsv_w_str(&t, s[i].model);
		tsv_w_i64(&t, s[i].n);
		w_pct(&t, s[i].avg_abs_pct);
		w_pct(&t, s[i].max_abs_pct);
		w_pct(&t, s[i].paper_avg_pct);
		w_pct(&t, s[i].paper_max_pct);
		rc = tsv_w_end(&t, e);
	}
	if (rc < 0) {
		tsv_w_close(&t, NULL);
		return rc;
	}
	return tsv_w_close(&t, e);
}

void
acc_scen_stem(const struct acc_data *d, int i, char *dst, size_t cap)
{
	size_t o;

	if (cap == 0)
		return;
	o = (size_t)snprintf(dst, cap, "fig4-");
	for (const char *c = d->scen[i]; *c != '\0' && o + 1 < cap; c++) {
		bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || *c == '-' || *c == '_';

		dst[o++] = plain ? *c : '_';
	}
	if (o < cap)
		dst[o] = '\0';
	else
		dst[cap - 1] = '\0';
}

/* ---------------------------------------------------------------- pages */

static void
page_title(struct plot *p, const char *text)
{
	char q[PLOT_Q_MAX];

	plot_cmd(p, "set title %s font 'Sans,13'", plot_quote(q, sizeof q, text));
}

/* Start a table page: its title, and two bold header rows of nc cells (the first nleft
 * left-aligned) from screen height y, then a rule. Returns the height of the second row. */
static double
table_page(struct plot *p, const char *title, const double *x, const char *const *head1,
	   const char *const *head2, int nc, int nleft, double y, double dy)
{
	page_title(p, title);
	plot_table_begin(p);
	plot_table_row(p, y, x, head1, nc, nleft, true, 9);
	y -= dy * 0.8;
	plot_table_row(p, y, x, head2, nc, nleft, true, 9);
	plot_table_rule(p, 0.03, 0.98, y - dy / 2);
	return y;
}

/* A line of small text at screen (x, y), left-aligned. */
static void
note_line(struct plot *p, double x, double y, int font_pt, const char *text)
{
	char q[PLOT_Q_MAX];

	plot_cmd(p, "set label %s at screen %.4f,%.4f left font 'Sans,%d'", plot_quote(q, sizeof q, text),
		 x, y, font_pt);
}

/* v with the given decimals, or "-" when unknown. */
static void
fmt_num(char *dst, size_t cap, int decimals, double v)
{
	if (isfinite(v))
		snprintf(dst, cap, "%.*f", decimals, v);
	else
		snprintf(dst, cap, "-");
}

int
acc_page_fig3(const struct acc_data *d, struct plot *p, char *why, size_t cap)
{
	enum { NC = 10, SHOWN_MAX = 22 };
	static const double x[NC] = { 0.04, 0.21, 0.31, 0.43, 0.56, 0.63, 0.73, 0.82, 0.895, 0.97 };
	static const char *const head1[NC] = {
		"", "", "dedicated", "%", "%", "%", "avg busy", "avg idle", "msgs on", "avg size",
	};
	static const char *const head2[NC] = {
		"workload", "ranks", "exec (s)", "computation", "communication", "idle", "phase (ms)",
		"phase (ms)", "one link", "(KiB)",
	};
	int shown = d->nfig3 < SHOWN_MAX ? d->nfig3 : SHOWN_MAX;
	double y = 0.86, dy = 0.032;

	if (!d->have_fig3) {
		snprintf(why, cap, "%s", d->fig3_why);
		return 0;
	}
	y = table_page(p, "Execution characteristics of the workloads (paper 003, Figure 3)", x, head1,
		       head2, NC, 1, y, dy);
	for (int i = 0; i < shown; i++) {
		const struct acc_fig3 *f = &d->fig3[i];
		char cell[NC][64];
		const char *cells[NC];
		char h[ACC_NAME_MAX];

		snprintf(cell[0], 64, "%s", plot_clean(h, 40, f->workload));
		snprintf(cell[1], 64, "%lld", (long long)f->ranks);
		fmt_num(cell[2], 64, 3, f->exec_ns / 1e9);
		fmt_num(cell[3], 64, 1, f->comp_pct);
		fmt_num(cell[4], 64, 1, f->comm_pct);
		fmt_num(cell[5], 64, 1, f->idle_pct);
		fmt_num(cell[6], 64, 1, f->avg_busy_ns / 1e6);
		fmt_num(cell[7], 64, 1, f->avg_idle_ns / 1e6);
		if (f->link_msgs >= 0)
			snprintf(cell[8], 64, "%lld", (long long)f->link_msgs);
		else
			snprintf(cell[8], 64, "-");
		fmt_num(cell[9], 64, f->link_avg_bytes < 10240 ? 2 : 1, f->link_avg_bytes / 1024);
		for (int j = 0; j < NC; j++)
			cells[j] = cell[j];
		y -= dy;
		plot_table_row(p, y, x, cells, NC, 1, false, 9);
	}
	y -= dy;
	if (d->nfig3 > shown || d->fig3_dropped > 0) {
		char t[160];

		snprintf(t, sizeof t, "... and %ld more workloads (in fig3.tsv)",
			 (long)(d->nfig3 - shown) + d->fig3_dropped);
		note_line(p, 0.04, y, 8, t);
		y -= dy;
	}
	note_line(p, 0.04, y - dy * 0.5, 8,
		  "Each workload's dedicated run (no competing load), mean over its ranks; the link columns "
		  "give the busiest link (most messages). '-': unknown.");
	plot_table_end(p);
	return 1;
}

/* What one workload shows in one scenario. */
struct group {
	int work;		/* index in d->work */
	double dedicated_ns, measured_ns, min_ns, max_ns;	/* NAN unknown */
	int64_t reps;
	double predicted_ns[ACC_MAX_MODEL];	/* per model of d->model, NAN unknown or no row */
	bool has_row[ACC_MAX_MODEL];
};

static void
first_known(double *dst, double v)
{
	if (!isfinite(*dst) && isfinite(v))
		*dst = v;
}

/* Append text to the note line being built, if it fits. */
static void
note_add(char *dst, size_t cap, const char *text)
{
	size_t o = strlen(dst);

	if (o + strlen(text) + 3 < cap)
		snprintf(dst + o, cap - o, "%s%s", o ? "; " : "", text);
}

/* One scenario's page while it is drawn: the workloads that have rows in it, the models
 * drawn (those with a row for at least one workload), the bars' geometry and the counts of
 * the optional datablocks' rows (an empty block is left out of the plot). */
struct scen_page {
	const char *scen, *desc;
	struct group g[ACC_MAX_WORK];
	int ng, models[ACC_MAX_MODEL], nm, nseries;
	int nwhisk, nerr, nna;
	int64_t reps_lo, reps_hi;	/* -1 no measured bar */
	double width;
	char notes[400];		/* what was left out, "; "-separated */
};

/* Bar x of group k, series j (0 dedicated, 1..nm the models, nm+1 measured). */
static double
bar_x(const struct scen_page *s, int k, int j)
{
	return k - 0.4 + s->width * (j + 0.5);
}

/* The workloads with a row in s->scen and the models drawn; returns how many workloads. */
static int
page_groups(const struct acc_data *d, struct scen_page *s)
{
	for (int w = 0; w < d->nwork; w++) {
		struct group *gr = &s->g[s->ng];
		bool any = false;

		memset(gr, 0, sizeof *gr);
		gr->work = w;
		gr->dedicated_ns = gr->measured_ns = gr->min_ns = gr->max_ns = NAN;
		for (int m = 0; m < ACC_MAX_MODEL; m++)
			gr->predicted_ns[m] = NAN;
		for (int i = 0; i < d->nrows; i++) {
			const struct acc_row *r = &d->rows[i];
			int m;

			if (strcmp(r->scenario, s->scen) != 0 || strcmp(r->workload, d->work[w]) != 0)
				continue;
			m = find(d->model, d->nmodel, r->model);
			if (m < 0)
				continue;
			any = true;
			if (*s->desc == '\0')
				s->desc = r->description;
			first_known(&gr->dedicated_ns, r->dedicated_ns);
			if (!isfinite(gr->measured_ns) && isfinite(r->measured_ns)) {
				gr->measured_ns = r->measured_ns;
				gr->min_ns = r->measured_min_ns;
				gr->max_ns = r->measured_max_ns;
				gr->reps = r->reps;
			}
			gr->predicted_ns[m] = r->predicted_ns;
			gr->has_row[m] = true;
		}
		if (any)
			s->ng++;
	}
	for (int m = 0; m < d->nmodel; m++)
		for (int k = 0; k < s->ng; k++)
			if (s->g[k].has_row[m]) {
				s->models[s->nm++] = m;
				break;
			}
	s->nseries = s->nm + 2;	/* dedicated, the models, measured */
	s->width = 0.8 / s->nseries;
	return s->ng;
}

/* The dedicated bars ($ded); returns how many were drawn. */
static int
page_dedicated(const struct acc_data *d, struct scen_page *s, struct plot *p)
{
	int ndrawn = 0;

	plot_begin_data(p, "ded");
	for (int k = 0; k < s->ng; k++) {
		char t[160];

		if (isfinite(s->g[k].dedicated_ns)) {
			plot_row(p, "%.4f 100 %.4f", bar_x(s, k, 0), s->width);
			ndrawn++;
			continue;
		}
		snprintf(t, sizeof t, "%.40s: no dedicated time, nothing drawn", d->work[s->g[k].work]);
		note_add(s->notes, sizeof s->notes, t);
	}
	plot_end_data(p);
	return ndrawn;
}

/* The predicted bars ($m0...), the measured ones ($meas) and their whiskers ($whisk). */
static void
page_bars(const struct acc_data *d, struct scen_page *s, struct plot *p)
{
	const struct group *g = s->g;
	int rows = 0;

	for (int j = 0; j < s->nm; j++) {
		char name[16];

		rows = 0;
		snprintf(name, sizeof name, "m%d", j);
		plot_begin_data(p, name);
		for (int k = 0; k < s->ng; k++) {
			double v = g[k].predicted_ns[s->models[j]];

			if (!isfinite(g[k].dedicated_ns) || !isfinite(v))
				continue;
			plot_row(p, "%.4f %.4f %.4f", bar_x(s, k, j + 1), 100.0 * v / g[k].dedicated_ns, s->width);
			rows++;
		}
		if (rows == 0)
			plot_row(p, "nan nan nan");
		plot_end_data(p);
	}
	rows = 0;
	plot_begin_data(p, "meas");
	for (int k = 0; k < s->ng; k++) {
		if (!isfinite(g[k].dedicated_ns))
			continue;
		if (!isfinite(g[k].measured_ns)) {
			char t[160];

			snprintf(t, sizeof t, "%.40s: not measured", d->work[g[k].work]);
			note_add(s->notes, sizeof s->notes, t);
			continue;
		}
		plot_row(p, "%.4f %.4f %.4f", bar_x(s, k, s->nm + 1), 100.0 * g[k].measured_ns / g[k].dedicated_ns,
			 s->width);
		rows++;
		if (s->reps_lo < 0 || g[k].reps < s->reps_lo)
			s->reps_lo = g[k].reps;
		if (g[k].reps > s->reps_hi)
			s->reps_hi = g[k].reps;
	}
	if (rows == 0)
		plot_row(p, "nan nan nan");
	plot_end_data(p);
	plot_begin_data(p, "whisk");
	for (int k = 0; k < s->ng; k++) {
		double ded = g[k].dedicated_ns;

		if (!isfinite(ded) || !isfinite(g[k].measured_ns) || !isfinite(g[k].min_ns) ||
		    !isfinite(g[k].max_ns))
			continue;
		plot_row(p, "%.4f %.4f %.4f %.4f", bar_x(s, k, s->nm + 1), 100.0 * g[k].measured_ns / ded,
			 100.0 * g[k].min_ns / ded, 100.0 * g[k].max_ns / ded);
		s->nwhisk++;
	}
	plot_end_data(p);
}

/* Labels: the error on each predicted bar ($err), "n/a" where the model gave no prediction
 * ($na). The label sits above the bar or its neighbouring whisker, whichever is higher. */
static void
page_labels(const struct acc_data *d, struct scen_page *s, struct plot *p)
{
	const struct group *g = s->g;

	plot_begin_data(p, "err");
	for (int k = 0; k < s->ng; k++) {
		double ded = g[k].dedicated_ns;

		if (!isfinite(ded))
			continue;
		for (int j = 0; j < s->nm; j++) {
			double v = g[k].predicted_ns[s->models[j]];

			if (!isfinite(v) || !isfinite(g[k].measured_ns))
				continue;
			plot_row(p, "%.4f %.4f %.2f", bar_x(s, k, j + 1), 100.0 * v / ded,
				 100.0 * (v - g[k].measured_ns) / g[k].measured_ns);
			s->nerr++;
		}
	}
	plot_end_data(p);
	plot_begin_data(p, "na");
	for (int k = 0; k < s->ng; k++) {
		if (!isfinite(g[k].dedicated_ns))
			continue;
		for (int j = 0; j < s->nm; j++) {
			char t[160];

			if (isfinite(g[k].predicted_ns[s->models[j]]))
				continue;
			plot_row(p, "%.4f 0", bar_x(s, k, j + 1));
			s->nna++;
			snprintf(t, sizeof t, "%.40s, %.40s: %s", d->work[g[k].work], d->model[s->models[j]],
				 g[k].has_row[s->models[j]] ? "no prediction" : "no row");
			note_add(s->notes, sizeof s->notes, t);
		}
	}
	plot_end_data(p);
}

/* Title, description, axes, the workloads' tics and the note of what was left out. */
static void
page_frame(const struct acc_data *d, const struct scen_page *s, struct plot *p)
{
	char t[480], c[200], q[PLOT_Q_MAX];

	snprintf(t, sizeof t, "Predicted and measured run time, scenario '%.60s' (paper 003 Figure 4; dedicated = 100)",
		 plot_clean(c, 61, s->scen));
	/* Title and description as labels: `set title` moves with the top margin. */
	plot_cmd(p, "set label %s at screen 0.5,0.965 center font 'Sans,13'", plot_quote(q, sizeof q, t));
	if (*s->desc != '\0') {
		plot_clean(c, 160, s->desc);
		plot_cmd(p, "set label %s at screen 0.5,0.925 center font 'Sans,10'", plot_quote(q, sizeof q, c));
	}
	plot_cmd(p, "set border lw 1");
	plot_cmd(p, "set grid ytics lc rgb '#c0c0c0' lw 0.5 dt 3");
	plot_cmd(p, "set tics nomirror out");
	plot_cmd(p, "set tmargin 6");
	plot_cmd(p, "set bmargin 9");
	plot_cmd(p, "set key at screen 0.5,0.045 center bottom horizontal box opaque samplen 3 spacing 1.1");
	plot_cmd(p, "set ylabel 'run time (dedicated run = 100)'");
	plot_cmd(p, "set xlabel 'workload (on predicted bars: error against the measured time)'");
	plot_cmd(p, "set xrange [-0.6:%d.6]", s->ng - 1);
	plot_cmd(p, "set yrange [0:*]");
	plot_cmd(p, "set offsets 0,0,graph 0.15,0");
	plot_cmd(p, "set xtics (%s 0)", plot_quote_tic(q, sizeof q, d->work[s->g[0].work]));
	for (int k = 1; k < s->ng; k++)
		plot_cmd(p, "set xtics add (%s %d)", plot_quote_tic(q, sizeof q, d->work[s->g[k].work]), k);
	if (s->notes[0] != '\0') {
		snprintf(t, sizeof t, "Left out: %s", s->notes);
		note_line(p, 0.02, 0.02, 8, t);
	}
}

/* The plot command over the datablocks; returns -E_LIMIT when it does not fit. */
static int
page_plot(const struct acc_data *d, const struct scen_page *s, struct plot *p)
{
	char line[4096], t[160], q[PLOT_Q_MAX];
	double width = s->width;
	size_t o = (size_t)snprintf(line, sizeof line,
				    "plot $ded using 1:2:3 with boxes fs solid 0.15 border lc rgb 'black' "
				    "lc rgb 'black' title 'dedicated'");

	for (int j = 0; j < s->nm; j++) {
		snprintf(t, sizeof t, "predicted: %.60s", d->model[s->models[j]]);
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $m%d using 1:2:3 with boxes fs pattern %d border lc rgb 'black' "
				      "lc rgb 'black' title %s", j, model_fills[s->models[j]], plot_quote(q, sizeof q, t));
		if (o >= sizeof line)
			break;
	}
	if (s->reps_lo >= 0 && s->reps_lo == s->reps_hi)
		snprintf(t, sizeof t, "measured, %lld runs (bar: fastest-slowest)", (long long)s->reps_lo);
	else if (s->reps_lo >= 0)
		snprintf(t, sizeof t, "measured, %lld-%lld runs (bar: fastest-slowest)",
			 (long long)s->reps_lo, (long long)s->reps_hi);
	else
		snprintf(t, sizeof t, "measured (bar: fastest-slowest)");
	if (o < sizeof line)
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $meas using 1:2:3 with boxes fs solid 0.45 border lc rgb 'black' "
				      "lc rgb 'black' title %s", plot_quote(q, sizeof q, t));
	/* Empty datablocks are left out of the plot: gnuplot 5.4 crashes drawing labels from a
	 * block with no valid point. */
	if (o < sizeof line && s->nwhisk > 0)
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $whisk using 1:3:(0):($4-$3) with vectors nohead lw 1.5 lc rgb 'black' notitle"
				      ", $whisk using ($1-%.4f):3:(%.4f):(0) with vectors nohead lw 1.5 lc rgb 'black' notitle"
				      ", $whisk using ($1-%.4f):4:(%.4f):(0) with vectors nohead lw 1.5 lc rgb 'black' notitle",
				      width / 4, width / 2, width / 4, width / 2);
	if (o < sizeof line && s->nerr > 0)
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $err using 1:2:(sprintf('%%+.1f%%%%', $3)) with labels left rotate by 90 "
				      "offset 0,0.5 font 'Sans,%d' notitle", s->nseries > 5 ? 7 : 8);
	if (o < sizeof line && s->nna > 0)
		o += (size_t)snprintf(line + o, sizeof line - o,
				      ", $na using 1:2:('n/a') with labels left rotate by 90 offset 0,0.5 "
				      "font 'Sans,8' notitle");
	if (o >= sizeof line)
		return -E_LIMIT;
	plot_cmd(p, "%s", line);
	return 0;
}

int
acc_page_scenario(const struct acc_data *d, int si, struct plot *p, char *why, size_t cap)
{
	struct scen_page page = { 0 }, *s = &page;
	int rc = 1;

	s->scen = d->scen[si];
	s->desc = "";
	s->reps_lo = s->reps_hi = -1;
	if (page_groups(d, s) == 0) {
		snprintf(why, cap, "no row for scenario '%.100s'", s->scen);
		rc = 0;
	} else if (page_dedicated(d, s, p) == 0) {
		snprintf(why, cap, "no workload has a dedicated time in scenario '%.100s'", s->scen);
		rc = 0;
	} else {
		page_bars(d, s, p);
		page_labels(d, s, p);
		page_frame(d, s, p);
		if (page_plot(d, s, p) < 0) {
			snprintf(why, cap, "too many models to draw");
			rc = -E_LIMIT;
		}
	}
	return rc;
}

int
acc_page_summary(const struct acc_data *d, const struct acc_sum *s, int n, struct plot *p, char *why,
		 size_t cap)
{
	enum { NC = 7, SHOWN_MAX = 20 };
	static const double x[NC] = { 0.04, 0.20, 0.42, 0.55, 0.68, 0.82, 0.95 };
	static const char *const head1[NC] = {
		"", "", "workloads", "average", "largest", "paper:", "paper:",
	};
	static const char *const head2[NC] = {
		"scenario", "model", "(with error)", "|error| (%)", "|error| (%)", "average (%)", "largest (%)",
	};
	int shown = n < SHOWN_MAX ? n : SHOWN_MAX;
	double y = 0.86, dy = 0.032;

	if (n == 0) {
		snprintf(why, cap, "no scenario with rows");
		return 0;
	}
	y = table_page(p, "Prediction error per scenario and model, against the papers", x, head1, head2,
		       NC, 2, y, dy);
	for (int i = 0; i < shown; i++) {
		char cell[NC][64];
		const char *cells[NC];
		char h[ACC_NAME_MAX];

		snprintf(cell[0], 64, "%s", plot_clean(h, sizeof h, s[i].scenario));
		snprintf(cell[1], 64, "%s", plot_clean(h, sizeof h, s[i].model));
		snprintf(cell[2], 64, "%d of %d", s[i].n, s[i].nrows);
		fmt_num(cell[3], 64, 1, s[i].avg_abs_pct);
		fmt_num(cell[4], 64, 1, s[i].max_abs_pct);
		fmt_num(cell[5], 64, 1, s[i].paper_avg_pct);
		fmt_num(cell[6], 64, 1, s[i].paper_max_pct);
		for (int j = 0; j < NC; j++)
			cells[j] = cell[j];
		y -= dy;
		plot_table_row(p, y, x, cells, NC, 2, false, 9);
	}
	y -= dy;
	if (n > shown) {
		char t[128];

		snprintf(t, sizeof t, "... and %d more (all in summary.tsv)", n - shown);
		note_line(p, 0.04, y, 8, t);
		y -= dy;
	}
	y -= dy * 0.5;
	note_line(p, 0.04, y, 8, "error = 100 (predicted - measured) / measured, measured over the scenario's runs. "
		  "Paper 003 (NAS benchmarks, Section 4): one compute load 2.3 % average (0-7.8 %),");
	y -= dy * 0.7;
	note_line(p, 0.04, y, 8, "one busy link 2.0 % (0.7-7.4 %), both 5.7 % (0.9-11.8 %). "
		  "Paper 000 (aggregate slowdown on a time-shared cluster): every modeled time within 15 %.");
	y -= dy * 1.2;
	/* The scenarios in words, from the descriptions in accuracy.tsv. */
	for (int sc = 0; sc < d->nscen && y > 0.04; sc++) {
		const char *desc = "";
		char t[300], c1[ACC_NAME_MAX], c2[200];

		for (int i = 0; i < d->nrows && *desc == '\0'; i++)
			if (strcmp(d->rows[i].scenario, d->scen[sc]) == 0)
				desc = d->rows[i].description;
		snprintf(t, sizeof t, "%s: %s", plot_clean(c1, sizeof c1, d->scen[sc]),
			 *desc ? plot_clean(c2, 160, desc) : "(no description)");
		note_line(p, 0.04, y, 8, t);
		y -= dy * 0.7;
	}
	plot_table_end(p);
	return 1;
}
