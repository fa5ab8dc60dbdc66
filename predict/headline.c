/* headline: the scope rules' pick and its measured interval (see headline.h). */
#include "predict/headline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sortnum.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "predict/run001.h"

#define HL_MAX_RANKS 4096	/* ranks the dense pair matrix is built for */
#define HL_TALK_SHARE 0.01	/* a pair talks when it moves 1 % of the busiest pair's bytes */
#define HL_COMPUTE_MSGS 2.0	/* data messages per rank per second below which a run computes */
#define HL_COMPUTE_LINK 0.02	/* ... and share of the link's capacity its bytes need */
#define HL_BALANCED_CV 0.5	/* all pairs, bytes per pair within this variation: a collective */
#define HL_HALO_DEGREE 4	/* partners of a halo exchange at most (a 2-D grid) */
#define HL_DEFAULT_BW_Bps 117.5e6	/* gigabit Ethernet's TCP payload rate, without netparams */
#define HL_FARM_MIN_TASKS 2	/* point-to-point data messages each way per slave, at least (as p001) */
#define HL_COLL_SHARE 0.5	/* share of the messages between ranks that are collectives */

/* The order of the scope rules: the first that gives a number is the headline. */
static const char *const pick_order[] = { "p001", "replay", "p003", "p000", "p004", "p002", NULL };

static const char *const kind_names[HL_NKINDS] = { "halo", "collective", "p2p", "farm", "compute" };

/* bench/accuracy's workloads and their kinds. */
static const struct {
	const char *workload;
	int kind;
} workload_kinds[] = {
	{ "stencil", HL_HALO }, { "alltoall", HL_COLLECTIVE }, { "solver", HL_COLLECTIVE },
	{ "farm", HL_FARM }, { "compute", HL_COMPUTE }, { NULL, 0 },
};

/* bench/results/accuracy.tsv (bench/accuracy, 2026-11-27): workload, scenario, model,
 * predicted, measured median, fastest and slowest run, ns. test_headline checks that it
 * still matches the file. */
static const struct {
	const char *workload, *scenario, *model;
	double pred_ns, med_ns, min_ns, max_ns;
} builtin[] = {
	{ "stencil", "cpu1", "p003", 8127152031, 7610255872, 7593787904, 7654987520 },
	{ "stencil", "cpu1", "p000", 8173386036, 7610255872, 7593787904, 7654987520 },
	{ "stencil", "cpu1", "replay", 8197539114, 7610255872, 7593787904, 7654987520 },
	{ "stencil", "link", "p003", 7116123026, 6297141760, 6296868096, 6386298368 },
	{ "stencil", "link", "p000", 10402264705, 6297141760, 6296868096, 6386298368 },
	{ "stencil", "link", "replay", 6787535471, 6297141760, 6296868096, 6386298368 },
	{ "stencil", "both", "p003", 10743768232, 8392958464, 8318620928, 8669265920 },
	{ "stencil", "both", "p000", 14423220208, 8392958464, 8318620928, 8669265920 },
	{ "stencil", "both", "replay", 8899384920, 8392958464, 8318620928, 8669265920 },
	{ "stencil", "agg", "p000", 8255124343, 8038808832, 7680487168, 8721740032 },
	{ "stencil", "agg", "replay", 8187971809, 8038808832, 7680487168, 8721740032 },
	{ "alltoall", "cpu1", "p003", 5556183736, 5196941824, 5134814720, 5305716992 },
	{ "alltoall", "cpu1", "p000", 5799323685, 5196941824, 5134814720, 5305716992 },
	{ "alltoall", "cpu1", "replay", 5657698489, 5196941824, 5134814720, 5305716992 },
	{ "alltoall", "link", "p003", 4893000641, 4318457344, 4305741824, 4403357952 },
	{ "alltoall", "link", "p000", 7117556378, 4318457344, 4305741824, 4403357952 },
	{ "alltoall", "link", "replay", 4446393610, 4318457344, 4305741824, 4403357952 },
	{ "alltoall", "both", "p003", 6554261775, 5861008640, 5732895488, 5873811712 },
	{ "alltoall", "both", "p000", 9999686008, 5861008640, 5732895488, 5873811712 },
	{ "alltoall", "both", "replay", 6111491604, 5861008640, 5732895488, 5873811712 },
	{ "alltoall", "agg", "p000", 5834388108, 5330448128, 5275061760, 5347772672 },
	{ "alltoall", "agg", "replay", 5690774606, 5330448128, 5275061760, 5347772672 },
	{ "solver", "cpu1", "p003", 8487745299, 8139975936, 8117226240, 8300532480 },
	{ "solver", "cpu1", "p000", 8487292086, 8139975936, 8117226240, 8300532480 },
	{ "solver", "cpu1", "replay", 8578456447, 8139975936, 8117226240, 8300532480 },
	{ "solver", "link", "p003", 5937171780, 5057647104, 5049119232, 5164750336 },
	{ "solver", "link", "p000", 6714877418, 5057647104, 5049119232, 5164750336 },
	{ "solver", "link", "replay", 5026492295, 5057647104, 5049119232, 5164750336 },
	{ "solver", "both", "p003", 9315710513, 8863036928, 8761984512, 8902756352 },
	{ "solver", "both", "p000", 10680210911, 8863036928, 8761984512, 8902756352 },
	{ "solver", "both", "replay", 8840381997, 8863036928, 8761984512, 8902756352 },
	{ "solver", "agg", "p000", 9043917186, 8748834048, 8337870080, 8809585408 },
	{ "solver", "agg", "replay", 8930011902, 8748834048, 8337870080, 8809585408 },
	{ "farm", "cpu1", "p003", 6117062050, 4291974400, 4151807232, 4325401088 },
	{ "farm", "cpu1", "p000", 6259516949, 4291974400, 4151807232, 4325401088 },
	{ "farm", "cpu1", "replay", 6252458124, 4291974400, 4151807232, 4325401088 },
	{ "farm", "cpu1", "p001-u", 4127285276, 4291974400, 4151807232, 4325401088 },
	{ "farm", "link", "p003", 4211774326, 3620806144, 3562518784, 3831237376 },
	{ "farm", "link", "p000", 4331298878, 3620806144, 3562518784, 3831237376 },
	{ "farm", "link", "replay", 3728290514, 3620806144, 3562518784, 3831237376 },
	{ "farm", "link", "p001-u", 3627845303, 3620806144, 3562518784, 3831237376 },
	{ "farm", "both", "p003", 6319812918, 4382614784, 4250346752, 4583844096 },
	{ "farm", "both", "p000", 7392100504, 4382614784, 4250346752, 4583844096 },
	{ "farm", "both", "replay", 6286288985, 4382614784, 4250346752, 4583844096 },
	{ "farm", "both", "p001-u", 4367132570, 4382614784, 4250346752, 4583844096 },
	{ "farm", "agg", "p000", 4287461565, 4204864512, 4191891712, 4304238592 },
	{ "farm", "agg", "replay", 4404079633, 4204864512, 4191891712, 4304238592 },
	{ "compute", "cpu1", "p003", 7531293063, 7557616128, 7484999936, 7609102080 },
	{ "compute", "cpu1", "p000", 7712662268, 7557616128, 7484999936, 7609102080 },
	{ "compute", "cpu1", "replay", 7637775208, 7557616128, 7484999936, 7609102080 },
	{ "compute", "link", "p003", 3856331134, 3818139648, 3817918208, 3912579584 },
	{ "compute", "link", "p000", 3861722254, 3818139648, 3817918208, 3912579584 },
	{ "compute", "link", "replay", 3856331134, 3818139648, 3817918208, 3912579584 },
	{ "compute", "both", "p003", 7531293063, 7523152896, 7511123712, 7538326016 },
	{ "compute", "both", "p000", 7718053388, 7523152896, 7511123712, 7538326016 },
	{ "compute", "both", "replay", 7637775208, 7523152896, 7511123712, 7538326016 },
	{ "compute", "agg", "p000", 7674725239, 7624407808, 7591201536, 7649836032 },
	{ "compute", "agg", "replay", 7570521424, 7624407808, 7591201536, 7649836032 },
};

const char *
hl_kind_name(int kind)
{
	return kind >= 0 && kind < HL_NKINDS ? kind_names[kind] : "-";
}

int
hl_kind_from_name(const char *name)
{
	for (int k = 0; k < HL_NKINDS; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return k;
	for (int i = 0; workload_kinds[i].workload != NULL; i++)
		if (strcmp(name, workload_kinds[i].workload) == 0)
			return workload_kinds[i].kind;
	return -1;
}

/* Whether the master hands every other rank HL_FARM_MIN_TASKS tasks or more: point-to-point
 * messages with data each way. A pattern made of collectives and empty messages (a barrier,
 * a broadcast or a gather at the start and the end of independent computations) is no farm.
 * From messages.tsv; from links.tsv (which cannot tell collectives apart) without it. */
static bool
farm_tasks(const struct prof *p, int master)
{
	int n = prof_rank_span(p);
	long *out = xcalloc((size_t)n + 1, sizeof *out), *in = xcalloc((size_t)n + 1, sizeof *in);
	bool ok = true;

	if (p->have_msgs) {
		for (long i = 0; i < p->nmsgs; i++) {
			const struct prof_msg *m = &p->msgs[i];

			if (m->ctrl || m->bytes <= 0 || m->name != 0 || m->src < 0 || m->dst < 0 || m->src >= n ||
			    m->dst >= n)
				continue;
			if (m->src == master)
				out[m->dst]++;
			else if (m->dst == master)
				in[m->src]++;
		}
	} else {
		for (int i = 0; i < p->nlinks; i++) {
			const struct prof_link *l = &p->links[i];

			if (l->bytes <= 0 || l->src < 0 || l->dst < 0 || l->src >= n || l->dst >= n)
				continue;
			if (l->src == master)
				out[l->dst] += l->msgs;
			else if (l->dst == master)
				in[l->src] += l->msgs;
		}
	}
	for (int i = 0; i < p->nranks; i++) {
		int r = p->ranks[i].rank;

		if (r != master && r < n && (out[r] < HL_FARM_MIN_TASKS || in[r] < HL_FARM_MIN_TASKS))
			ok = false;
	}
	free(out);
	free(in);
	return ok;
}

/* The share of the messages between ranks that an MPI collective sent (parse names its tag;
 * neighbourhood collectives, halo exchanges in disguise, do not count); 0 without
 * messages.tsv. */
static double
coll_share(const struct prof *p)
{
	long all = 0, coll = 0;

	for (long i = 0; p->have_msgs && i < p->nmsgs; i++) {
		const struct prof_msg *m = &p->msgs[i];

		if (m->ctrl || m->src < 0 || m->dst < 0 || m->src == m->dst)
			continue;
		all++;
		coll += m->name != 0 && strcmp(p->names[m->name - 1], "neighbor") != 0;
	}
	return all > 0 ? (double)coll / (double)all : 0;
}

int
hl_classify(const struct prof *p, char *why, size_t whylen)
{
	int n = prof_rank_span(p), master, maxdeg = 0, kind;
	double *B, total = 0, maxb = 0, data_msgs = 0, T_s, bw, mean = 0, var = 0;
	bool all_pairs = true, symmetric = true;
	long npairs = 0;
	char w[256];

	if (p->nranks >= 3 && run001_ms_pattern(p, &master, w, sizeof w) && farm_tasks(p, master)) {
		snprintf(why, whylen, "rank %d exchanges with every other rank, they hardly with each other", master);
		return HL_FARM;
	}
	if (p->nranks < 2 || n > HL_MAX_RANKS || (!p->have_links && !p->have_msgs)) {
		snprintf(why, whylen, p->nranks < 2 ? "a single rank" : n > HL_MAX_RANKS ? "too many ranks to tell" :
			 "no message counts");
		return p->nranks < 2 || (!p->have_links && !p->have_msgs) ? HL_COMPUTE : HL_P2P;
	}
#define AT(a, b) B[(size_t)(a) * (size_t)n + (size_t)(b)]
	B = xcalloc((size_t)n * (size_t)n, sizeof *B);
	if (p->have_links) {
		for (int i = 0; i < p->nlinks; i++) {
			const struct prof_link *l = &p->links[i];

			if (l->src >= 0 && l->dst >= 0 && l->src < n && l->dst < n && l->src != l->dst) {
				AT(l->src, l->dst) += (double)l->bytes;
				if (l->bytes > 0)
					data_msgs += (double)l->msgs;
			}
		}
	} else {
		for (long i = 0; i < p->nmsgs; i++) {
			const struct prof_msg *m = &p->msgs[i];

			if (m->src >= 0 && m->dst >= 0 && m->src < n && m->dst < n && m->src != m->dst) {
				AT(m->src, m->dst) += (double)m->bytes;
				data_msgs += m->bytes > 0;
			}
		}
	}
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
		total += B[i];
		maxb = fmax(maxb, B[i]);
	}
	T_s = (double)prof_dedicated_ns(p) / 1e9;
	bw = p->have_net && p->bw_Bps > 0 ? p->bw_Bps : HL_DEFAULT_BW_Bps;
	if (T_s <= 0 || (data_msgs / p->nranks / T_s < HL_COMPUTE_MSGS && total / (T_s * bw) < HL_COMPUTE_LINK)) {
		snprintf(why, whylen, "%.2g data messages per rank per second, %.2g %% of the link", T_s > 0 ?
			 data_msgs / p->nranks / T_s : 0, T_s > 0 ? 100 * total / (T_s * bw) : 0);
		free(B);
		return HL_COMPUTE;
	}
	if (coll_share(p) >= HL_COLL_SHARE) {
		snprintf(why, whylen, "%.0f %% of the messages between ranks are MPI collectives", 100 * coll_share(p));
		free(B);
		return HL_COLLECTIVE;
	}
	for (int a = 0; a < p->nranks; a++) {
		int ra = p->ranks[a].rank, deg = 0;

		for (int b = 0; b < p->nranks; b++) {
			int rb = p->ranks[b].rank;
			bool ab, ba;

			if (a == b || ra >= n || rb >= n)
				continue;
			ab = AT(ra, rb) >= HL_TALK_SHARE * maxb;
			ba = AT(rb, ra) >= HL_TALK_SHARE * maxb;
			deg += ab || ba;
			if (!ab && !ba)
				all_pairs = false;
			if (ab != ba)
				symmetric = false;
			mean += AT(ra, rb);
			npairs++;
		}
		maxdeg = deg > maxdeg ? deg : maxdeg;
	}
	mean /= (double)(npairs > 0 ? npairs : 1);
	for (int a = 0; a < p->nranks; a++)
		for (int b = 0; b < p->nranks; b++)
			if (a != b && p->ranks[a].rank < n && p->ranks[b].rank < n) {
				double d = AT(p->ranks[a].rank, p->ranks[b].rank) - mean;

				var += d * d;
			}
	var /= (double)(npairs > 0 ? npairs : 1);
	free(B);
#undef AT
	if (all_pairs && p->nranks >= 3) {
		double cv = mean > 0 ? sqrt(var) / mean : 0;

		kind = cv < HL_BALANCED_CV ? HL_COLLECTIVE : HL_P2P;
		snprintf(why, whylen, "every rank pair exchanges data, bytes per pair vary by %.2g", cv);
		return kind;
	}
	if (symmetric && maxdeg <= HL_HALO_DEGREE) {
		snprintf(why, whylen, "each rank exchanges both ways with at most %d partner%s", maxdeg,
			 maxdeg == 1 ? "" : "s");
		return HL_HALO;
	}
	snprintf(why, whylen, "%s, up to %d partner%s", symmetric ? "pairs exchange both ways" :
		 "some pairs send one way", maxdeg, maxdeg == 1 ? "" : "s");
	return HL_P2P;
}

const char *
hl_scen_class(const struct scen *s)
{
	unsigned c = pred_scen_changes(s);
	int loaded = 0;

	for (int i = 0; i < s->nnodes; i++)
		loaded += scen_node_loaded(&s->nodes[i]);
	if (c & SCOPE_QUEUE)
		return "queue";
	if ((c & SCOPE_COMM) || loaded > 1)
		return "agg";
	if ((c & SCOPE_CPU) && (c & SCOPE_LINK))
		return "both";
	if (c & SCOPE_CPU)
		return "cpu";
	if (c & SCOPE_LINK)
		return "link";
	return c & SCOPE_OBSERVER ? "bare" : "none";	/* bare: the program without collect */
}

const char *
hl_scen_class_of_name(const char *name)
{
	size_t i = 3;

	if (strcmp(name, "strict") == 0)	/* bench/realapps' link with no burst */
		return "link";
	if (strncmp(name, "cpu", 3) != 0)
		return name;
	while (name[i] >= '0' && name[i] <= '9')
		i++;
	return name[i] == '\0' ? "cpu" : name;
}

/* The model name a table row stands for, or NULL for rows the headline does not use. */
static const char *
table_model(const char *m)
{
	static const char *const known[] = { "p000", "p001", "p002", "p003", "p004", "replay", NULL };

	if (strcmp(m, "p001-u") == 0)
		return "p001";
	for (int i = 0; known[i] != NULL; i++)
		if (strcmp(m, known[i]) == 0)
			return known[i];
	return NULL;
}

/* Append a cell (med_ns <= 0: the mid-range); false (counted in skipped) for an unknown
 * model or implausible times. */
static bool
add_cell(struct hl_table *t, int kind, const char *wl, const char *scen, const char *model, double pred_ns,
	 double med_ns, double min_ns, double max_ns, double ded_spread)
{
	const char *m = table_model(model);
	struct hl_cell *c;

	if (!(med_ns > 0))
		med_ns = (min_ns + max_ns) / 2;
	if (m == NULL || !(pred_ns > 0) || !(min_ns > 0) || !(max_ns >= min_ns) || !isfinite(max_ns) ||
	    !isfinite(pred_ns) || !(med_ns >= min_ns - 1 && med_ns <= max_ns + 1) || t->n >= HL_MAX_CELLS) {
		t->skipped++;
		return false;
	}
	if (t->n == t->cap) {
		size_t cap = (size_t)t->cap;

		t->cells = xgrow(t->cells, &cap, (size_t)t->n + 1, sizeof *t->cells);
		t->cap = (int)cap;
	}
	c = &t->cells[t->n++];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	snprintf(c->workload, sizeof c->workload, "%s", wl);
	snprintf(c->prog, sizeof c->prog, "%.*s", (int)strcspn(wl, "-"), wl);
	snprintf(c->sname, sizeof c->sname, "%s", scen);
	snprintf(c->scen, sizeof c->scen, "%s", hl_scen_class_of_name(scen));
	snprintf(c->model, sizeof c->model, "%s", m);
	c->pred_ns = pred_ns;
	c->med_ns = med_ns;
	c->min_ns = min_ns;
	c->max_ns = max_ns;
	c->ded_spread = ded_spread >= 0 && isfinite(ded_spread) ? ded_spread : -1;
	return true;
}

static int
key_cmp(const struct hl_cell *x, const struct hl_cell *y)
{
	int d = strcmp(x->workload, y->workload);

	if (d == 0)
		d = strcmp(x->sname, y->sname);
	return d != 0 ? d : strcmp(x->model, y->model);
}

static int
key_cmp_p(const void *a, const void *b)
{
	return key_cmp(*(const struct hl_cell *const *)a, *(const struct hl_cell *const *)b);
}

/* The cells by key, so that a model's twin of a cell is a binary search away. */
static void
index_cells(struct hl_table *t)
{
	free(t->by_key);
	t->by_key = xmallocarray((size_t)t->n + 1, sizeof *t->by_key);
	for (int i = 0; i < t->n; i++)
		t->by_key[i] = &t->cells[i];
	qsort(t->by_key, (size_t)t->n, sizeof *t->by_key, key_cmp_p);
}

int
hl_table_load(struct hl_table *t, const char *path, struct err *e)
{
	static const char *const cols[] = { "workload", "scenario", "model", "predicted_ns", "measured_min_ns",
					    "measured_max_ns", NULL };
	struct tsv_r r;
	int c_wl, c_sc, c_m, c_p, c_lo, c_hi, c_kind, c_med, c_ds, rc;

	memset(t, 0, sizeof *t);
	if ((rc = tsv_r_open(&r, path, "accuracy", 1, cols, e)) < 0)
		return rc;
	snprintf(t->source, sizeof t->source, "%s", path);
	c_wl = tsv_r_col(&r, "workload");
	c_sc = tsv_r_col(&r, "scenario");
	c_m = tsv_r_col(&r, "model");
	c_p = tsv_r_col(&r, "predicted_ns");
	c_lo = tsv_r_col(&r, "measured_min_ns");
	c_hi = tsv_r_col(&r, "measured_max_ns");
	c_kind = tsv_r_col(&r, "kind");
	c_med = tsv_r_col(&r, "measured_ns");
	c_ds = tsv_r_col(&r, "dedicated_spread");
	for (;;) {
		double pr, lo, hi, med = -1, ds = -1;
		char sc[16], m[16];
		int kind;
		struct err e2;

		rc = tsv_r_next(&r, &e2);
		if (rc == 0)
			break;
		if (rc < 0) {
			t->skipped++;
			if (rc == -E_FORMAT || rc == -E_LIMIT)
				continue;
			break;	/* truncated or unreadable: keep the rows before */
		}
		if (tsv_r_f64(&r, c_p, &pr, &e2) < 0 || tsv_r_f64(&r, c_lo, &lo, &e2) < 0 ||
		    tsv_r_f64(&r, c_hi, &hi, &e2) < 0) {
			t->skipped++;
			continue;
		}
		if ((c_med >= 0 && tsv_r_f64(&r, c_med, &med, &e2) < 0) ||
		    (c_ds >= 0 && strcmp(tsv_r_str(&r, c_ds), "-") != 0 && tsv_r_f64(&r, c_ds, &ds, &e2) < 0)) {
			t->skipped++;
			continue;
		}
		kind = c_kind >= 0 ? hl_kind_from_name(tsv_r_str(&r, c_kind)) : -1;
		if (kind < 0)
			kind = hl_kind_from_name(tsv_r_str(&r, c_wl));
		snprintf(sc, sizeof sc, "%s", tsv_r_str(&r, c_sc));
		snprintf(m, sizeof m, "%s", tsv_r_str(&r, c_m));
		add_cell(t, kind, tsv_r_str(&r, c_wl), sc, m, pr, med, lo, hi, ds);
	}
	tsv_r_close(&r);
	index_cells(t);
	return 0;
}

void
hl_table_builtin(struct hl_table *t)
{
	memset(t, 0, sizeof *t);
	snprintf(t->source, sizeof t->source, "built in: bench/results/accuracy.tsv of 2026-11-27");
	for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
		add_cell(t, hl_kind_from_name(builtin[i].workload), builtin[i].workload, builtin[i].scenario,
			 builtin[i].model, builtin[i].pred_ns, builtin[i].med_ns, builtin[i].min_ns, builtin[i].max_ns,
			 -1);
	index_cells(t);
}

void
hl_table_free(struct hl_table *t)
{
	if (t == NULL)
		return;
	free(t->cells);
	free(t->by_key);
	memset(t, 0, sizeof *t);
}

/* Whether cell c counts for a run of kind run_kind: not of program leave_out, of class
 * scen_class (NULL: any), of kind `kind` (< 0: every kind, the master/slave one only for a
 * master/slave run: work that moves says nothing about a fixed-work program). */
static bool
in_scope(const struct hl_cell *c, const char *leave_out, const char *scen_class, int kind, int run_kind)
{
	if (leave_out != NULL && strcmp(c->prog, leave_out) == 0)
		return false;
	if (scen_class != NULL && strcmp(c->scen, scen_class) != 0)
		return false;
	return kind >= 0 ? c->kind == kind : !(c->kind == HL_FARM && run_kind != HL_FARM);
}

/* The signed error of a cell, log(measured median / predicted). */
static double
log_err(const struct hl_cell *c)
{
	return log(c->med_ns / c->pred_ns);
}

/* Model m's cell of the same workload and scenario as c (the first of duplicates), or NULL. */
static const struct hl_cell *
twin(const struct hl_table *t, const struct hl_cell *c, const char *m)
{
	struct hl_cell key;
	int lo = 0, hi = t->n;

	if (t->by_key == NULL)
		return NULL;
	memcpy(key.workload, c->workload, sizeof key.workload);
	memcpy(key.sname, c->sname, sizeof key.sname);
	snprintf(key.model, sizeof key.model, "%s", m);
	while (lo < hi) {	/* the first cell not below key */
		int mid = lo + (hi - lo) / 2;

		if (key_cmp(t->by_key[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && key_cmp(t->by_key[lo], &key) == 0 ? t->by_key[lo] : NULL;
}

/* Whether model i may head a run of kind `kind`: it gave a number, and p001 only for a farm. */
static bool
pickable(const struct model *const *ms, const struct pred_result *rs, int i, int kind)
{
	return rs[i].status == PRED_OK && isfinite(rs[i].predicted_ns) && rs[i].predicted_ns > 0 &&
	       (kind == HL_FARM || strcmp(ms[i]->name, "p001") != 0);
}

int
hl_pick(const struct model *const *ms, const struct pred_result *rs, int nm, int kind)
{
	for (int o = 0; pick_order[o] != NULL; o++)
		for (int i = 0; i < nm; i++)
			if (strcmp(ms[i]->name, pick_order[o]) == 0 && pickable(ms, rs, i, kind))
				return i;
	return -1;
}

int
hl_pick_data(const struct hl_table *t, const char *leave_out, int kind, const char *scen_class,
	     const struct model *const *ms, const struct pred_result *rs, int nm, int rule, int *ncmp, bool *own)
{
	int nrule = 0, best = rule;
	double best_mean = INFINITY;

	*ncmp = 0;
	*own = false;
	if (t == NULL || rule < 0)
		return rule;
	/* the kind's own cells only: a model's error on one kind of program says little about
	 * another (p000 is within 3 % of GARLI's CPU cells and 24-52 % above LU's) */
	if (kind < 0)
		return rule;
	for (int k = 0; k < t->n; k++)
		nrule += strcmp(t->cells[k].model, ms[rule]->name) == 0 &&
			 in_scope(&t->cells[k], leave_out, scen_class, kind, kind);
	if (nrule < HL_PICK_MIN)
		return rule;
	for (int i = 0; i < nm; i++) {
		double sum_i = 0, sum_r = 0;
		int n = 0, wins = 0;

		if (i == rule || !pickable(ms, rs, i, kind))
			continue;
		for (int k = 0; k < t->n; k++) {
			const struct hl_cell *c = &t->cells[k], *d;

			if (strcmp(c->model, ms[rule]->name) != 0 || !in_scope(c, leave_out, scen_class, kind, kind) ||
			    (d = twin(t, c, ms[i]->name)) == NULL)
				continue;
			sum_r += fabs(log_err(c));
			sum_i += fabs(log_err(d));
			wins += fabs(log_err(d)) < fabs(log_err(c));
			n++;
		}
		if (n >= HL_PICK_MIN && wins >= HL_PICK_WIN * n && sum_i < sum_r && sum_i / n < best_mean) {
			best = i;
			best_mean = sum_i / n;
		}
	}
	*ncmp = nrule;
	*own = true;
	return best;
}

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The HL_COVER central quantiles of model's signed errors over the cells in scope, as
 * order statistics of split conformal prediction: the floor((n + 1) a)-th smallest below
 * and the ceil((n + 1) (1 - a))-th above (a = (1 - HL_COVER) / 2), clamped to the sample.
 * Returns the cells, 0 leaving lo and hi alone; *nprog (when not NULL) gets how many
 * programs they come from. */
static int
quantiles(const struct hl_table *t, const char *leave_out, const char *model, const char *scen_class, int kind,
	  int run_kind, double *lo, double *hi, int *nprog)
{
	double *v = xmallocarray((size_t)t->n + 1, sizeof *v), a = (1 - HL_COVER) / 2;
	const char **pg = xmallocarray((size_t)t->n + 1, sizeof *pg);
	int n = 0, k;

	for (int i = 0; i < t->n; i++)
		if (strcmp(t->cells[i].model, model) == 0 && in_scope(&t->cells[i], leave_out, scen_class, kind, run_kind)) {
			pg[n] = t->cells[i].prog;
			v[n++] = log_err(&t->cells[i]);
		}
	if (nprog != NULL) {
		*nprog = 0;
		qsort(pg, (size_t)n, sizeof *pg, cmp_str);
		for (int i = 0; i < n; i++)
			*nprog += i == 0 || strcmp(pg[i], pg[i - 1]) != 0;
	}
	if (n > 0) {
		qsort(v, (size_t)n, sizeof *v, sortnum_cmp_f64);
		/* 1e-9: (n + 1) a is an integer for n = 9, 19, ... which rounding must not move */
		k = (int)floor((n + 1) * a + 1e-9);
		*lo = v[k < 1 ? 0 : k - 1];
		k = (int)ceil((n + 1) * (1 - a) - 1e-9);
		*hi = v[k > n ? n - 1 : k - 1];
	}
	free(pg);
	free(v);
	return n;
}

/* Shrink (*lo, *hi) toward the quantiles (lo2, hi2) of n cells: weight n / (n + HL_SHRINK). */
static void
shrink(double *lo, double *hi, double lo2, double hi2, int n)
{
	double w = n / (n + HL_SHRINK);

	*lo = w * lo2 + (1 - w) * *lo;
	*hi = w * hi2 + (1 - w) * *hi;
}

/* The measured noise: the median over the cells in scope of (slowest - fastest) / 2 / median. */
static double
noise(const struct hl_table *t, const char *leave_out, const char *scen_class, int run_kind)
{
	double *v = xmallocarray((size_t)t->n + 1, sizeof *v), r = 0;
	int n = 0;

	for (int i = 0; i < t->n; i++)
		if (in_scope(&t->cells[i], leave_out, scen_class, -1, run_kind))
			v[n++] = (t->cells[i].max_ns - t->cells[i].min_ns) / 2 / t->cells[i].med_ns;
	if (n > 0)
		r = sortnum_median(v, (size_t)n);
	free(v);
	return r;
}

void
hl_answer(const struct hl_table *t, const char *leave_out, int kind, const char *scen_class,
	  const struct model *const *ms, const struct pred_result *rs, int nm, const double *ded_ns, int nded,
	  struct hl_answer *a)
{
	double *v, P, down, up, lo = 0, hi = 0;
	int nv = 0;

	memset(a, 0, sizeof *a);
	a->rule = hl_pick(ms, rs, nm, kind);
	a->pick = hl_pick_data(t, leave_out, kind, scen_class, ms, rs, nm, a->rule, &a->ncmp, &a->cmp_own);
	a->nded = nded;
	if (a->pick < 0) {
		a->pred_ns = a->lo_ns = a->hi_ns = NAN;
		return;
	}
	P = a->pred_ns = rs[a->pick].predicted_ns;
	if (t != NULL && (a->nall = quantiles(t, leave_out, ms[a->pick]->name, NULL, -1, kind, &lo, &hi, NULL)) > 0) {
		double l2 = 0, h2 = 0;

		if ((a->nclass = quantiles(t, leave_out, ms[a->pick]->name, scen_class, -1, kind, &l2, &h2, NULL)) > 0)
			shrink(&lo, &hi, l2, h2, a->nclass);
		/* a program's cells of one class are near copies of one error (cpu1 and cpu2, its
		 * MPIs), so the kind's quantiles count only over enough programs */
		a->nkind = quantiles(t, leave_out, ms[a->pick]->name, scen_class, kind, kind, &l2, &h2,
				     &a->nkind_progs);
		if (a->nkind_progs >= HL_MIN_PROGS)
			shrink(&lo, &hi, l2, h2, a->nkind);
		a->err_lo = fmax(0, -lo);
		a->err_hi = fmax(0, hi);
		a->noise = noise(t, leave_out, a->nclass > 0 ? scen_class : NULL, kind);
	}
	if (nded >= 2) {
		v = xmallocarray((size_t)nded, sizeof *v);
		memcpy(v, ded_ns, (size_t)nded * sizeof *v);
		{
			double med = sortnum_median(v, (size_t)nded);

			a->spread = med > 0 ? (v[nded - 1] - v[0]) / 2 / med : 0;
		}
		free(v);
	}
	v = xmallocarray((size_t)nm + 1, sizeof *v);
	for (int i = 0; i < nm; i++)
		if (i != a->pick && rs[i].status == PRED_OK && isfinite(rs[i].predicted_ns) && rs[i].predicted_ns > 0)
			v[nv++] = rs[i].predicted_ns;
	a->nother = nv;
	if (nv > 0) {
		double d = (sortnum_median(v, (size_t)nv) - P) / P / 2;

		if (d > 0)
			a->dis_hi = d;
		else
			a->dis_lo = -d;
	}
	free(v);
	if (a->nall > 0) {	/* measured errors: the disagreement is no calibrated spread */
		down = sqrt(a->err_lo * a->err_lo + a->spread * a->spread + a->noise * a->noise);
		up = sqrt(a->err_hi * a->err_hi + a->spread * a->spread + a->noise * a->noise);
		a->lo_ns = P * exp(-down);
		a->hi_ns = P * exp(up);
	} else {
		down = sqrt(a->spread * a->spread + a->dis_lo * a->dis_lo);
		up = sqrt(a->spread * a->spread + a->dis_hi * a->dis_hi);
		a->lo_ns = P * fmax(0, 1 - down);
		a->hi_ns = P * (1 + up);
	}
}

void
hl_race(struct hl_answer *a, double race_ns)
{
	if (a->pick < 0 || !(race_ns > 0) || !(a->pred_ns > 0))
		return;
	a->race = race_ns / a->pred_ns;
	a->hi_ns = fmax(a->hi_ns, a->pred_ns + race_ns);
}

int
hl_score(const struct hl_table *t, FILE *out)
{
	const struct model *ms[32];
	struct pred_result rs[32];
	int scored = 0;

	fprintf(out, "workload\tscenario\tkind\tpick\trule\tpredicted_ns\tlo_ns\thi_ns\tmeasured_ns\tinside\t"
		"width_pct\terror_pct\n");
	/* by_key holds each workload and scenario's cells together */
	for (int g = 0; t->by_key != NULL && g < t->n;) {
		const struct hl_cell *c = t->by_key[g];
		struct hl_answer a;
		double ded[2] = { 1, 1 };
		int nm = 0;

		while (g < t->n && strcmp(t->by_key[g]->workload, c->workload) == 0 &&
		       strcmp(t->by_key[g]->sname, c->sname) == 0)
			g++;
		/* the cell's models, each once, in models[] order */
		for (const struct model *m = models; m->name != NULL && nm < 32; m++) {
			const struct hl_cell *d = twin(t, c, m->name);

			if (d == NULL)
				continue;
			ms[nm] = m;
			pred_result_init(&rs[nm]);
			rs[nm].status = PRED_OK;
			rs[nm].predicted_ns = d->pred_ns;
			nm++;
		}
		if (c->ded_spread > 0)	/* two runs at median (1 -+ s) have spread s */
			ded[0] = 1 - c->ded_spread, ded[1] = 1 + c->ded_spread;
		hl_answer(t, c->prog, c->kind, c->scen, ms, rs, nm, ded, 2, &a);
		if (a.pick >= 0) {
			fprintf(out, "%s\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%.2f\t%+.2f\n", c->workload, c->sname,
				hl_kind_name(c->kind), ms[a.pick]->name, ms[a.rule]->name, a.pred_ns, a.lo_ns, a.hi_ns,
				c->med_ns, a.lo_ns <= c->med_ns && c->med_ns <= a.hi_ns ? "yes" : "no",
				100 * (a.hi_ns - a.lo_ns) / a.pred_ns, 100 * (a.pred_ns - c->med_ns) / c->med_ns);
			scored++;
		}
		for (int k = 0; k < nm; k++)
			pred_result_free(&rs[k]);
	}
	return scored;
}
