/* data: the report's reading of one run directory, through lib/tsv.h with every field checked. */
#include "report/data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/fsutil.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"

void
rep_damage(long *damaged, char *first, size_t cap, const struct err *e)
{
	if ((*damaged)++ == 0)
		snprintf(first, cap, "%s", e->msg);
}

int
rep_next_row(struct tsv_r *t, long *damaged, char *first, size_t cap)
{
	for (;;) {
		struct err e;
		long before = t->line_no;
		int rc = tsv_r_next(t, &e);

		if (rc >= 0)
			return rc;
		rep_damage(damaged, first, cap, &e);
		if ((rc != -E_FORMAT && rc != -E_LIMIT) || t->line_no == before)
			return 0;
	}
}

static void
damage(struct rep_run *r, const struct err *e)
{
	rep_damage(&r->damaged, r->first_damage, sizeof r->first_damage, e);
}

static int
next_row(struct rep_run *r, struct tsv_r *t)
{
	return rep_next_row(t, &r->damaged, r->first_damage, sizeof r->first_damage);
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A key/value file (format fmt, columns key value) into kv. Returns rows read, -1 when the
 * file is absent or not that format (the latter counted as damage). */
static int
read_kv(struct rep_run *r, const char *path, const char *fmt, struct rep_kv *kv, int max)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	struct err e;
	int n = 0;

	if (!exists(path))
		return -1;
	if (tsv_r_open(&t, path, fmt, 1, cols, &e) < 0) {
		damage(r, &e);
		return -1;
	}
	while (next_row(r, &t) > 0) {
		const char *k = tsv_r_str(&t, tsv_r_col(&t, "key"));
		const char *v;

		if (n >= max)
			continue;
		snprintf(kv[n].key, sizeof kv[n].key, "%.63s", k);
		v = tsv_r_str(&t, tsv_r_col(&t, "value"));
		snprintf(kv[n].value, sizeof kv[n].value, "%.255s", v);
		n++;
	}
	tsv_r_close(&t);
	return n;
}

/* profile/warnings.tsv: what parse warned about, the first REP_MAX_WARN kept. */
static void
read_warnings(struct rep_run *r)
{
	static const char *const cols[] = { "message", NULL };
	char *path = xasprintf("%s/profile/warnings.tsv", r->dir);
	struct tsv_r t;
	struct err e;

	if (exists(path) && tsv_r_open(&t, path, "warnings", 1, cols, &e) == 0) {
		int c = tsv_r_col(&t, "message");

		while (next_row(r, &t) > 0) {
			if (r->nwarn < REP_MAX_WARN)
				snprintf(r->warn[r->nwarn++], sizeof r->warn[0], "%s", tsv_r_str(&t, c));
			r->warn_total++;
		}
		tsv_r_close(&t);
	} else if (exists(path)) {
		damage(r, &e);
	}
	free(path);
}

const char *
rep_kv_get(const struct rep_kv *kv, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

static int64_t
kv_i64(const struct rep_kv *kv, int n, const char *key)
{
	const char *v = rep_kv_get(kv, n, key);
	char *end;
	long long x;

	if (v == NULL || *v == '\0')
		return -1;
	x = strtoll(v, &end, 10);
	return *end == '\0' && x >= 0 ? (int64_t)x : -1;
}

/* Add a non-negative metadata number to *sum. */
static void
add_ns(int64_t *sum, const struct rep_kv *kv, int n, const char *key)
{
	int64_t v = kv_i64(kv, n, key);

	if (v > 0)
		*sum += v;
}

/* Sorted names of the entries in dir whose names start with prefix and end with suffix
 * (at most max); free with fs_list_free. An unreadable dir gives none. */
static char **
list_dir(const char *dir, const char *prefix, const char *suffix, size_t max, size_t *n)
{
	const struct fs_pattern pat = { .prefix = prefix, .suffix = suffix, .hidden = true };

	return fs_list(dir, &pat, max, n, NULL);
}

static void
read_meta(struct rep_run *r)
{
	char *path = xasprintf("%s/meta/run.tsv", r->dir);
	char *mdir = xasprintf("%s/meta", r->dir);
	char **names;
	size_t n;

	r->nrun_kv = read_kv(r, path, "meta", r->run_kv, REP_MAX_KV);
	r->have_meta = r->nrun_kv >= 0;
	if (r->nrun_kv < 0)
		r->nrun_kv = 0;
	free(path);

	r->start_real_ns = r->end_real_ns = -1;
	r->start_cost_ns = r->stop_cost_ns = -1;
	names = list_dir(mdir, "rank-", ".tsv", 1 << 20, &n);
	r->nrank_meta = (int)n;
	for (size_t i = 0; i < n; i++) {
		struct rep_kv kv[REP_MAX_KV];
		int m;
		int64_t s, en;

		path = xasprintf("%s/%s", mdir, names[i]);
		m = read_kv(r, path, "meta", kv, REP_MAX_KV);
		free(path);
		if (m <= 0)
			continue;
		s = kv_i64(kv, m, "start_real_ns");
		en = kv_i64(kv, m, "end_real_ns");
		if (s > 0 && (r->start_real_ns < 0 || s < r->start_real_ns))
			r->start_real_ns = s;
		if (en > 0 && en > r->end_real_ns)
			r->end_real_ns = en;
		add_ns(&r->observer_cpu_ns, kv, m, "agent_utime_ns");
		add_ns(&r->observer_cpu_ns, kv, m, "agent_stime_ns");
		add_ns(&r->app_cpu_ns, kv, m, "app_utime_ns");
		add_ns(&r->app_cpu_ns, kv, m, "app_stime_ns");
		s = kv_i64(kv, m, "start_cost_ns");
		if (s > r->start_cost_ns)
			r->start_cost_ns = s;
	}
	fs_list_free(names, n);

	names = list_dir(mdir, "node-", ".tsv", REP_MAX_NODES, &n);
	r->nodes = xcalloc(n + 1, sizeof *r->nodes);
	for (size_t i = 0; i < n; i++) {
		struct rep_kv kv[REP_MAX_KV];
		struct rep_node *nd = &r->nodes[r->nnodes];
		const char *h, *pl;
		int m;

		path = xasprintf("%s/%s", mdir, names[i]);
		m = read_kv(r, path, "meta", kv, REP_MAX_KV);
		free(path);
		if (m <= 0)
			continue;
		h = rep_kv_get(kv, m, "host");
		snprintf(nd->host, sizeof nd->host, "%.127s", h ? h : names[i] + 5);
		nd->pcap_recv = kv_i64(kv, m, "pcap_recv");
		nd->pcap_drop = kv_i64(kv, m, "pcap_drop");
		nd->pcap_ifdrop = kv_i64(kv, m, "pcap_ifdrop");
		pl = rep_kv_get(kv, m, "payload");
		snprintf(nd->payload, sizeof nd->payload, "%.15s", pl ? pl : "full");
		nd->bytes_captured = kv_i64(kv, m, "bytes_captured");
		nd->bytes_written = kv_i64(kv, m, "bytes_written");
		nd->framing_lost = kv_i64(kv, m, "framing_lost");
		nd->framing_gave_up = kv_i64(kv, m, "framing_gave_up");
		if (kv_i64(kv, m, "stop_cost_ns") > r->stop_cost_ns)
			r->stop_cost_ns = kv_i64(kv, m, "stop_cost_ns");
		r->nnodes++;
	}
	fs_list_free(names, n);
	free(mdir);
}

static void
span(struct rep_run *r, int64_t a, int64_t b)
{
	if (r->t0_ns == 0 || a < r->t0_ns)
		r->t0_ns = a;
	if (b > r->t1_ns)
		r->t1_ns = b;
}

static int
size_bin(int64_t bytes)
{
	int b = 0;

	if (bytes <= 0)
		return REP_SIZE_BINS - 1;
	while (b < REP_SIZE_BINS - 2 && (bytes >> (b + 1)) > 0)
		b++;
	return b;
}

/* Messages and phases come from the model's reader (r->prof), so the report and the models
 * parse them once, with one set of checks and caps. Sizes and the span count every message
 * kept; drawing gets an even sample of at most REP_MAX_MSGS. */
static void
from_profile(struct rep_run *r)
{
	const struct prof *p = &r->prof;

	if (!r->have_prof)
		return;
	r->have_msgs = p->have_msgs;
	r->msgs_total = p->nmsgs;
	r->msg_stride = 1;
	for (long i = 0; i < p->nmsgs; i++) {
		r->size_hist[p->msgs[i].proto][size_bin(p->msgs[i].bytes)]++;
		span(r, p->msgs[i].t_ns, p->msgs[i].t_last_ns);
	}
	while (p->nmsgs / r->msg_stride > REP_MAX_MSGS)
		r->msg_stride *= 2;
	if (r->msg_stride == 1) {
		r->msgs = p->msgs;
		r->nmsgs = p->nmsgs;
	} else {
		r->msgs_own = xcalloc((size_t)(p->nmsgs / r->msg_stride) + 1, sizeof *r->msgs_own);
		for (long i = 0; i < p->nmsgs; i += r->msg_stride)
			r->msgs_own[r->nmsgs++] = p->msgs[i];
		r->msgs = r->msgs_own;
	}
	r->have_phases = p->have_phases;
	r->nphases = p->nbusy + p->nidle;
	if (p->nbusy + p->nidle > 0)
		span(r, p->t_phase0_ns, p->t_phase1_ns);
}

static double
field_f64(struct rep_run *r, struct tsv_r *t, int col)
{
	const char *s = tsv_r_str(t, col);
	struct err e;
	double v;

	if (col < 0 || strcmp(s, "-") == 0 || *s == '\0')
		return NAN;
	if (tsv_r_f64(t, col, &v, &e) < 0) {
		damage(r, &e);
		return NAN;
	}
	return isfinite(v) && v >= 0 ? v : NAN;
}

static void
read_one_scen(struct rep_run *r, const char *path, struct rep_scen *sc)
{
	static const char *const cols[] = { "model", "item", "predicted_ns", "measured_ns", NULL };
	struct tsv_r t;
	struct err e;
	int c_model, c_paper, c_item, c_pred, c_meas, c_eq, c_detail;

	sc->dedicated_ns = NAN;
	sc->npred = 0;
	if (tsv_r_open(&t, path, "predict", 1, cols, &e) < 0) {
		damage(r, &e);
		return;
	}
	c_model = tsv_r_col(&t, "model");
	c_paper = tsv_r_col(&t, "paper");
	c_item = tsv_r_col(&t, "item");
	c_pred = tsv_r_col(&t, "predicted_ns");
	c_meas = tsv_r_col(&t, "measured_ns");
	c_eq = tsv_r_col(&t, "equation");
	c_detail = tsv_r_col(&t, "detail");
	while (next_row(r, &t) > 0) {
		char item[16];	/* copied: tsv_r_str's result lasts until its next call */
		struct rep_pred *p;

		snprintf(item, sizeof item, "%.15s", tsv_r_str(&t, c_item));

		if (strcmp(item, "dedicated") == 0) {
			sc->dedicated_ns = field_f64(r, &t, c_meas);
			continue;
		}
		if (strcmp(item, "total") != 0 && strcmp(item, "n/a") != 0)
			continue;
		if (sc->npred >= REP_MAX_PRED)
			continue;
		p = &sc->pred[sc->npred++];
		snprintf(p->model, sizeof p->model, "%s", tsv_r_str(&t, c_model));
		snprintf(p->paper, sizeof p->paper, "%s", tsv_r_str(&t, c_paper));
		p->na = item[0] == 'n';
		p->predicted_ns = p->na ? NAN : field_f64(r, &t, c_pred);
		p->measured_ns = field_f64(r, &t, c_meas);
		snprintf(p->equation, sizeof p->equation, "%s", tsv_r_str(&t, c_eq));
		snprintf(p->detail, sizeof p->detail, "%s", tsv_r_str(&t, c_detail));
		if (!p->na && isnan(p->predicted_ns)) {
			err_set(&e, E_FORMAT, "'%s' line %ld: a total without a prediction", path, t.line_no);
			damage(r, &e);
			sc->npred--;
		}
	}
	tsv_r_close(&t);
}

static void
read_predict(struct rep_run *r)
{
	char *pdir = xasprintf("%s/predict", r->dir);
	char **names;
	size_t n;

	names = list_dir(pdir, "", ".tsv", REP_MAX_SCEN, &n);
	r->scen = xcalloc(n + 1, sizeof *r->scen);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", pdir, names[i]);
		struct rep_scen *sc = &r->scen[r->nscen];
		size_t ln = strlen(names[i]) - 4;

		snprintf(sc->name, sizeof sc->name, "%.*s", (int)(ln < 127 ? ln : 127), names[i]);
		read_one_scen(r, path, sc);
		free(path);
		if (!isnan(sc->dedicated_ns) || sc->npred > 0)
			r->nscen++;
	}
	fs_list_free(names, n);
	free(pdir);
}

int
rep_run_load(struct rep_run *r, const char *dir, struct err *e)
{
	struct stat st;
	struct err pe;
	const char *base;
	size_t len;
	char *path;

	memset(r, 0, sizeof *r);
	r->dir = xstrdup(dir);
	len = strlen(r->dir);
	while (len > 1 && r->dir[len - 1] == '/')
		r->dir[--len] = '\0';
	base = strrchr(r->dir, '/');
	snprintf(r->name, sizeof r->name, "%s", base ? base + 1 : r->dir);
	if (stat(r->dir, &st) < 0)
		return err_sys(e, E_IO, "cannot open run '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return err_set(e, E_IO, "run '%s' is not a directory", dir);
	read_meta(r);
	path = xasprintf("%s/profile/stats.tsv", r->dir);
	r->nstats = read_kv(r, path, "stats", r->stats, REP_MAX_KV);
	free(path);
	r->have_stats = r->nstats >= 0;
	if (r->nstats < 0)
		r->nstats = 0;
	if (r->have_stats) {
		const char *v = rep_kv_get(r->stats, r->nstats, "complete");

		r->partial = v != NULL && strcmp(v, "yes") != 0;
	}
	read_warnings(r);
	if (prof_load(&r->prof, r->dir, &pe) == 0) {
		r->have_prof = true;	/* its own damage count is r->prof.damaged */
	} else {
		snprintf(r->prof_why, sizeof r->prof_why, "%s", pe.msg);
		prof_free(&r->prof);	/* its contract: also after a failure */
	}
	from_profile(r);
	read_predict(r);
	path = xasprintf("%s/topology.pdf", r->dir);
	r->have_topo_pdf = exists(path);
	free(path);
	path = xasprintf("%s/topology.dot", r->dir);
	r->have_topo_dot = exists(path);
	free(path);
	return 0;
}

void
rep_run_free(struct rep_run *r)
{
	if (r == NULL)
		return;
	if (r->have_prof)
		prof_free(&r->prof);
	free(r->dir);
	free(r->nodes);
	free(r->msgs_own);
	free(r->scen);
	memset(r, 0, sizeof *r);
}

int
rep_nranks(const struct rep_run *r)
{
	const char *v = rep_kv_get(r->run_kv, r->nrun_kv, "nranks");

	if (r->have_prof && r->prof.nranks > 0)
		return r->prof.ranks[r->prof.nranks - 1].rank + 1;
	if (v != NULL) {
		long x = strtol(v, NULL, 10);

		if (x > 0 && x <= PROF_MAX_RANKS)
			return (int)x;
	}
	return 0;	/* messages and phases come with the profile: nothing else names ranks */
}

const char *
rep_host(const struct rep_run *r, int rank)
{
	const struct prof_rank *pr;

	if (!r->have_prof)
		return "?";
	pr = prof_rank(&r->prof, rank);
	return pr != NULL ? pr->host : "?";
}
