/* coverage: which rank pairs' messages a run's capture could see, and which it saw. */
#include "parse/coverage.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

struct placed {
	const char *host;
	int32_t rank;
};

static int
placed_cmp(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static int
pair_cmp(const void *a, const void *b)
{
	const struct cov_pair *x = a, *y = b;

	if (x->r0 != y->r0)
		return (x->r0 > y->r0) - (x->r0 < y->r0);
	return (x->r1 > y->r1) - (x->r1 < y->r1);
}

static const char *
host_of(int32_t nranks, const char *const *host, int32_t r)
{
	return r >= 0 && r < nranks ? host[r] : NULL;
}

/* The links as unordered pairs, both directions summed, sorted; caller frees. */
static struct cov_pair *
merge_links(const struct cov_link *links, size_t nlinks, size_t *n)
{
	struct cov_pair *v = xmallocarray(nlinks ? nlinks : 1, sizeof *v);
	size_t k = 0, w = 0;

	for (size_t i = 0; i < nlinks; i++) {
		const struct cov_link *l = &links[i];

		if (l->src < 0 || l->dst < 0 || l->src == l->dst || l->msgs == 0)
			continue;
		v[k++] = (struct cov_pair){ l->src < l->dst ? l->src : l->dst,
					    l->src < l->dst ? l->dst : l->src, false, l->msgs, COV_SEEN };
	}
	qsort(v, k, sizeof *v, pair_cmp);
	for (size_t i = 0; i < k; i++) {
		if (w > 0 && v[w - 1].r0 == v[i].r0 && v[w - 1].r1 == v[i].r1)
			v[w - 1].msgs += v[i].msgs;
		else
			v[w++] = v[i];
	}
	*n = w;
	return v;
}

void
cov_compute(int32_t nranks, const char *const *host, const struct cov_link *links, size_t nlinks,
	    bool see_local, struct cov_stats *s, struct cov_pair **rows, size_t *nrows)
{
	struct placed *pl = xmallocarray(nranks > 0 ? (size_t)nranks : 1, sizeof *pl);
	struct cov_pair *seen, *out = NULL;
	size_t np = 0, nseen, nout = 0, cap = 0;
	bool local_tcp;

	memset(s, 0, sizeof *s);
	for (int32_t r = 0; r < nranks; r++)
		if (host[r] != NULL)
			pl[np++] = (struct placed){ host[r], r };
	qsort(pl, np, sizeof *pl, placed_cmp);
	s->ranks = np;
	s->pairs = (uint64_t)np * (np ? np - 1 : 0) / 2;
	for (size_t i = 0, j; i < np; i = j) {
		for (j = i + 1; j < np && strcmp(pl[j].host, pl[i].host) == 0; j++)
			;
		s->hosts++;
		s->pairs_local += (uint64_t)(j - i) * (j - i - 1) / 2;
	}
	s->pairs_remote = s->pairs - s->pairs_local;

	seen = merge_links(links, nlinks, &nseen);
	for (size_t i = 0; i < nseen; i++) {
		const char *h0 = host_of(nranks, host, seen[i].r0), *h1 = host_of(nranks, host, seen[i].r1);

		if (h0 == NULL || h1 == NULL) {
			s->msgs_unplaced += seen[i].msgs;
			continue;
		}
		seen[i].same_node = strcmp(h0, h1) == 0;
		if (seen[i].same_node) {
			s->pairs_local_seen++;
			s->msgs_local += seen[i].msgs;
		} else {
			s->pairs_remote_seen++;
			s->msgs_remote += seen[i].msgs;
		}
		if (nout < COV_MAX_ROWS) {
			out = xgrow(out, &cap, nout + 1, sizeof *out);
			out[nout++] = seen[i];
		} else {
			s->rows_capped++;
		}
	}
	/* One node's pairs talk over TCP when the run asked for it or when some did. */
	local_tcp = see_local || s->pairs_local_seen > 0;
	s->local_path = s->pairs_local == 0 ? "none" : local_tcp ? "tcp" : "shared memory";
	if (!local_tcp)
		s->pairs_local_hidden = s->pairs_local;
	for (size_t i = 0, j; i < np; i = j) {
		for (j = i + 1; j < np && strcmp(pl[j].host, pl[i].host) == 0; j++)
			;
		for (size_t a = i; a < j; a++) {
			for (size_t b = a + 1; b < j; b++) {
				struct cov_pair key = { pl[a].rank < pl[b].rank ? pl[a].rank : pl[b].rank,
							pl[a].rank < pl[b].rank ? pl[b].rank : pl[a].rank,
							true, 0, local_tcp ? COV_QUIET : COV_HIDDEN };

				if (bsearch(&key, seen, nseen, sizeof *seen, pair_cmp) != NULL)
					continue;
				if (nout >= COV_MAX_ROWS) {
					s->rows_capped++;
					continue;
				}
				out = xgrow(out, &cap, nout + 1, sizeof *out);
				out[nout++] = key;
			}
		}
	}
	if (nout > 0)
		qsort(out, nout, sizeof *out, pair_cmp);
	s->coverage = np == 0 ? "unknown" : s->pairs_local_hidden > 0 ? "partial" : "full";
	free(seen);
	free(pl);
	*rows = out;
	*nrows = nout;
}

void
cov_note(const struct cov_stats *s, bool see_local, char *out, size_t len)
{
	if (s->ranks == 0)
		snprintf(out, len, "unknown: no rank's node is known (no RUN/meta/rank-R.tsv), so "
			 "whether ranks shared a node cannot be told");
	else if (s->pairs_local_hidden > 0)
		snprintf(out, len, "partial: %" PRIu64 " of %" PRIu64 " rank pairs (%.0f %%) share a node; "
			 "their messages went through shared memory and are not in this trace "
			 "(collect --see-local records them)", s->pairs_local_hidden, s->pairs,
			 100.0 * (double)s->pairs_local_hidden / (double)s->pairs);
	else if (s->pairs_local == 0)
		snprintf(out, len, "full: one rank per node (%" PRIu64 " ranks), every message crosses a "
			 "network interface", s->ranks);
	else
		snprintf(out, len, "full: %" PRIu64 " of %" PRIu64 " rank pairs share a node and %s over "
			 "TCP, captured on loopback", s->pairs_local, s->pairs,
			 see_local ? "were told to talk (collect --see-local)" : "their MPI talked");
}

const char *
cov_state_name(enum cov_state st)
{
	switch (st) {
	case COV_SEEN: return "seen";
	case COV_QUIET: return "quiet";
	case COV_HIDDEN: return "hidden";
	}
	return "?";
}
