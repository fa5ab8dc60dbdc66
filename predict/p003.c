/* p003: CPU and link sharing from busy/idle phases and per-link message counts (paper 003). */
#include "predict/p003.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

double
p003_cpu_increase_awake(double busy_ns, double idle_ns, double k, double awake_frac)
{
	double cycle = busy_ns + idle_ns;
	double extra;

	if (!(k > 0) || !(cycle > 0))
		return 0;
	if (!(awake_frac > 0))
		awake_frac = 0;
	if (awake_frac > 1)
		awake_frac = 1;
	/* During an idle phase the k competitors run alone and bank idle_ns of CPU between them
	 * (idle_ns / k each); the application then runs alone until it has caught up and shares
	 * the rest of its busy phase k + 1 ways, so a cycle lasts max(busy + idle, (k+1) busy).
	 * Only sleep earns that catching up: idle time spent runnable was already charged to the
	 * application by the scheduler. */
	extra = k * busy_ns - (1 - awake_frac) * idle_ns;
	return extra > 0 ? extra / cycle : 0;
}

double
p003_cpu_increase(double busy_ns, double idle_ns, int k)
{
	return p003_cpu_increase_awake(busy_ns, idle_ns, k, 0);
}

double
p003_cpu_increase_load_awake(double busy_ns, double idle_ns, double load_avg, double awake_frac)
{
	double n, f;

	if (!(load_avg > 0))
		return 0;
	n = floor(load_avg);
	f = load_avg - n;
	if (n > 1e6)
		n = 1e6;
	return (1 - f) * p003_cpu_increase_awake(busy_ns, idle_ns, n, awake_frac) +
	       f * p003_cpu_increase_awake(busy_ns, idle_ns, n + 1, awake_frac);
}

double
p003_cpu_increase_load(double busy_ns, double idle_ns, double load_avg)
{
	return p003_cpu_increase_load_awake(busy_ns, idle_ns, load_avg, 0);
}

double
p003_link_added_ns(double nmsgs, double avg_bytes, double lat_ns, double bw_Bps, double new_lat_ns,
		   double new_bw_Bps)
{
	double before = lat_ns + avg_bytes / bw_Bps * 1e9;	/* L + avgmsgsize / B, ns */
	double after = new_lat_ns + avg_bytes / new_bw_Bps * 1e9;	/* newL + avgmsgsize / newB */

	return (after - before) * nmsgs;
}

static int
cmp_xfer(const void *a, const void *b)
{
	const struct p003_xfer *x = a, *y = b;

	if (x->t0_ns != y->t0_ns)
		return (x->t0_ns > y->t0_ns) - (x->t0_ns < y->t0_ns);
	return (x->t1_ns > y->t1_ns) - (x->t1_ns < y->t1_ns);
}

bool
p003_is_exchange(long lead_ab, long lead_ba)
{
	long n = lead_ab + lead_ba;

	if (lead_ab < 0 || lead_ba < 0 || n < 4)
		return false;
	return (double)(lead_ab < lead_ba ? lead_ab : lead_ba) >= P003_EXCHANGE_MIN_SHARE * (double)n;
}

double
p003_overlap_share(struct p003_xfer *xs, size_t n, double *added_ns, double *naive_ns)
{
	double added = 0, naive = 0;
	double on = 0, in = 0, oo = 0, io = 0;	/* the open group's sums, new and old */
	double xon = 0, xin = 0, xoo = 0, xio = 0;	/* the exchange group's */
	int64_t end = 0;			/* the open group's last byte */
	bool open = false;
	double share;

	if (n > 1)
		qsort(xs, n, sizeof *xs, cmp_xfer);
	for (size_t i = 0; i < n; i++) {
		const struct p003_xfer *x = &xs[i];

		naive += x->new_ns - x->old_ns;
		if (x->ex) {
			if (x->out) {
				xon += x->new_ns;
				xoo += x->old_ns;
			} else {
				xin += x->new_ns;
				xio += x->old_ns;
			}
			continue;
		}
		if (open && x->t0_ns > end) {	/* starts after the group ended: a new group */
			added += fmax(on, in) - fmax(oo, io);
			on = in = oo = io = 0;
			end = x->t1_ns;
		} else if (!open || x->t1_ns > end) {
			end = x->t1_ns;
		}
		open = true;
		if (x->out) {
			on += x->new_ns;
			oo += x->old_ns;
		} else {
			in += x->new_ns;
			io += x->old_ns;
		}
	}
	if (open)
		added += fmax(on, in) - fmax(oo, io);
	added += fmax(xon, xin) - fmax(xoo, xio);
	if (added_ns != NULL)
		*added_ns = added;
	if (naive_ns != NULL)
		*naive_ns = naive;
	if (n == 0 || !(fabs(naive) > 0))
		return 1;
	share = added / naive;
	return share > 1 ? 1 : share > 0 ? share : 0;
}

int
p003_node(const struct p003_node_in *in, struct p003_node_out *out)
{
	double beta = in->comm_busy_frac;	/* share of added link time spent busy */
	double b1, d1, b2, cyc1, t1c;

	memset(out, 0, sizeof *out);
	if (!(in->t_ns >= 0) || !(in->busy_ns >= 0) || !(in->idle_ns >= 0) || !(in->n_busy >= 0) ||
	    !(in->n_idle >= 0) || !(beta >= 0 && beta <= 1) || !(in->capacity > 0 && in->capacity <= 1) ||
	    in->k < 0 || !isfinite(in->link_added_ns) || !(in->awake_frac >= 0 && in->awake_frac <= 1) ||
	    (in->shared && !(in->kx[0] >= 0 && in->kx[1] >= in->kx[0] && isfinite(in->kx[1]))))
		return -E_USAGE;
	/* Section 3.3, step 1: the link change alone; its added time lengthens the phases */
	out->t_link_ns = in->t_ns + in->link_added_ns;
	if (out->t_link_ns < 0)
		out->t_link_ns = 0;
	if (in->n_idle <= 0)
		beta = 1;	/* never idle: the added time can only be busy */
	if (in->n_busy <= 0)
		beta = 0;
	b1 = in->busy_ns + (in->n_busy > 0 ? beta * in->link_added_ns / in->n_busy : 0);
	d1 = in->idle_ns + (in->n_idle > 0 ? (1 - beta) * in->link_added_ns / in->n_idle : 0);
	if (b1 < 0)
		b1 = 0;
	if (d1 < 0)
		d1 = 0;
	out->busy_ns = b1;
	out->idle_ns = d1;
	cyc1 = b1 + d1;
	if (!(cyc1 > 0)) {	/* no phases: nothing for sharing to act on */
		out->t_ns = out->t_link_ns;
		return 0;
	}
	/* a smaller CPU share stretches every busy phase */
	b2 = b1 / in->capacity;
	t1c = out->t_link_ns * (b2 + d1) / cyc1;
	/* Section 3.3, step 2: CPU sharing on the changed pattern */
	if (in->shared) {
		/* beyond the paper (docs/predict.md, p003): a rank that shares its node meets the
		 * extra demand kx where Section 2.1 has n and n + 1 whole competitors; a load
		 * average blends the two as p003_cpu_increase_load does */
		double f = in->load_avg >= 0 ? in->load_avg - floor(in->load_avg) : 0;

		out->increase = (1 - f) * p003_cpu_increase_awake(b2, d1, in->kx[0], in->awake_frac) +
				(f > 0 ? f * p003_cpu_increase_awake(b2, d1, in->kx[1], in->awake_frac) : 0);
	} else if (in->load_avg >= 0) {
		out->increase = p003_cpu_increase_load_awake(b2, d1, in->load_avg, in->awake_frac);
	} else {
		out->increase = p003_cpu_increase_awake(b2, d1, in->k, in->awake_frac);
	}
	out->t_ns = t1c * (1 + out->increase);
	return 0;
}

int
p003_link_new(const struct scen_link *l, double lat_ns, double bw_Bps, double *nlat, double *nbw)
{
	*nlat = l->lat_ns >= 0 ? (double)l->lat_ns : lat_ns;
	*nbw = !isnan(l->bw_Bps) ? l->bw_Bps : bw_Bps;
	if (!isnan(l->competing_Bps))
		*nbw -= l->competing_Bps;
	if (l->competing_flows > 0)
		*nbw /= (double)(l->competing_flows + 1);	/* TCP's fair share */
	return *nbw > 0 ? 0 : -1;
}


void
p003_pair_order_add(struct p003_pair_order *q, int dir, int64_t t_first_ns, int64_t t_last_ns)
{
	int64_t gap_ns = q->dir < 0 ? INT64_MAX : t_first_ns - q->t_last_ns;
	bool turn = q->dir != dir || gap_ns > q->open_gap_ns;

	if (q->dir != dir)
		q->open_gap_ns = gap_ns;
	q->dir = (signed char)dir;
	q->t_last_ns = t_last_ns > t_first_ns ? t_last_ns : t_first_ns;
	if (!turn)
		return;
	if (q->last >= 0 && q->last != dir) {
		q->lead[q->last]++;	/* a pair: the next turn opens the next one */
		q->last = -1;
	} else {
		q->last = (signed char)dir;
	}
}

void
p003_pair_order_init(struct p003_pair_order *q)
{
	memset(q, 0, sizeof *q);
	q->last = -1;
	q->dir = -1;
}
