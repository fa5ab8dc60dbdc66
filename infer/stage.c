/* infer stage: the ENV logical network of a run (passive), by probing (active), or written
 * again from an edited DOT file (the logic of `contend infer`). */
#include "infer/stage.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infer/graph.h"
#include "infer/passive.h"
#include "infer/probe.h"
#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "parse/pcapin.h"
#include "parse/pkt.h"

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read one "meta" key/value file: calls fn for every pair. */
static int
read_meta(const char *path, void (*fn)(void *, const char *, const char *), void *arg,
	  struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	int rc;

	if ((rc = tsv_r_open(&t, path, "meta", 1, cols, e)) < 0)
		return rc;
	while ((rc = tsv_r_next(&t, e)) != 0) {
		char *k;

		if (rc < 0) {
			if (rc == -E_FORMAT || rc == -E_LIMIT)
				continue;
			break;
		}
		k = xstrdup(tsv_r_str(&t, tsv_r_col(&t, "key")));
		fn(arg, k, tsv_r_str(&t, tsv_r_col(&t, "value")));
		free(k);
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

struct kv {
	char host[GRAPH_NAME_MAX + 1];
	char addrs[4096], macs[4096], capture[512], rank[32];
};

static void
kv_take(void *arg, const char *k, const char *v)
{
	struct kv *kv = arg;

	if (strcmp(k, "host") == 0)
		snprintf(kv->host, sizeof kv->host, "%s", v);
	else if (strcmp(k, "addrs") == 0)
		snprintf(kv->addrs, sizeof kv->addrs, "%s", v);
	else if (strcmp(k, "macs") == 0)
		snprintf(kv->macs, sizeof kv->macs, "%s", v);
	else if (strcmp(k, "capture") == 0)
		snprintf(kv->capture, sizeof kv->capture, "%s", v);
	else if (strcmp(k, "rank") == 0)
		snprintf(kv->rank, sizeof kv->rank, "%s", v);
}

/* Add every item of a comma list ("eth0=aa:bb:..." for MACs) to host h. Bad items are
 * counted in *bad. */
static void
add_list(struct pasv *p, int h, const char *list, bool macs, long *bad)
{
	char *s = xstrdup(list), *next;

	for (char *it = s; it; it = next) {
		char *v = it;
		struct err e;

		next = strchr(it, ',');
		if (next)
			*next++ = '\0';

		if (strcmp(it, "-") == 0 || it[0] == '\0')
			continue;
		if (macs && strchr(it, '='))
			v = strchr(it, '=') + 1;
		if ((macs ? pasv_add_mac(p, h, v, &e) : pasv_add_addr(p, h, v, &e)) < 0)
			(*bad)++;
	}
	free(s);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct capfile {
	int host;
	char *path;
};

/* Hosts from RUN/meta: nodes (with captures, addresses, MACs), then ranks. */
static int
load_hosts(const char *run, struct pasv *p, struct capfile *caps, int *ncap, long *bad,
	   struct err *e)
{
	char *dir = xasprintf("%s/meta", run);
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;
	char **names = NULL;
	size_t n = 0, cap = 0;

	*ncap = 0;
	if (d == NULL) {
		rc = err_sys(e, E_IO, "cannot open '%s'", dir);
		free(dir);
		return rc;
	}
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 4, ".tsv") != 0)
			continue;
		if (strncmp(de->d_name, "node-", 5) != 0 && strncmp(de->d_name, "rank-", 5) != 0)
			continue;
		names = xgrow(names, &cap, n + 1, sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	/* nodes first ("node-" sorts before "rank-") so hosts with captures come in order */
	qsort(names, n, sizeof *names, cmp_name);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		struct kv kv;
		bool node = strncmp(names[i], "node-", 5) == 0;
		int h;
		struct err e2;

		memset(&kv, 0, sizeof kv);
		if (read_meta(path, kv_take, &kv, &e2) < 0 || kv.host[0] == '\0') {
			(*bad)++;
			free(path);
			continue;
		}
		free(path);
		h = pasv_find_host(p, kv.host);
		if (h < 0) {
			h = pasv_add_host(p, kv.host, false, e);
			if (h < 0) {
				rc = h;
				break;
			}
		}
		add_list(p, h, kv.addrs, false, bad);
		if (node) {
			add_list(p, h, kv.macs, true, bad);
			if (kv.capture[0] && strcmp(kv.capture, "-") != 0 && *ncap < PASV_MAX_HOSTS) {
				caps[*ncap].host = h;
				caps[*ncap].path = xasprintf("%s/capture/%s", run, kv.capture);
				(*ncap)++;
				p->hosts[h].has_capture = true;
			}
		} else if (kv.rank[0]) {
			struct pasv_host *ho = &p->hosts[h];
			size_t l = strlen(ho->ranks);

			if (l + strlen(kv.rank) + 2 < sizeof ho->ranks)
				snprintf(ho->ranks + l, sizeof ho->ranks - l, "%s%s", l ? "," : "", kv.rank);
			if (strcmp(kv.rank, "0") == 0)
				p->root = h;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	if (rc == 0 && p->nhost == 0)
		rc = err_set(e, E_FORMAT, "'%s/meta' describes no hosts (is it a run of 'contend collect'?)", run);
	return rc;
}

static int
read_capture(struct pasv *p, const struct capfile *c, uint64_t *decoded, long *warnings)
{
	struct err e;
	struct pcapin *in = pcapin_open(c->path, &e);
	struct pcapin_pkt pk;
	int rc;

	if (in == NULL) {
		warnx_("infer: %s", e.msg);
		(*warnings)++;
		return -1;
	}
	while ((rc = pcapin_next(in, &pk, &e)) == 1) {
		struct pkt k;

		if (pkt_decode(pk.linktype, pk.data, pk.caplen, pk.origlen, &k) != PKT_TCP) {
			p->not_tcp++;
			continue;
		}
		(*decoded)++;
		pasv_packet(p, c->host, &k, pk.t_ns);
	}
	if (rc < 0) {
		warnx_("infer: '%s': %s (packets before it are used)", c->path, e.msg);
		(*warnings)++;
	}
	pcapin_close(in);
	return 0;
}

static int
write_tests(const struct pasv *p, const char *path, struct err *e)
{
	static const char *const cols[] = { "src_a", "dst_a", "src_b", "dst_b", "overlap_ns",
		"solo_a_ns", "solo_b_ns", "rate_a_overlap_Bps", "rate_a_solo_Bps", "rate_b_overlap_Bps",
		"rate_b_solo_Bps", "ratio_a", "ratio_b", "verdict", "confidence", "why", NULL };
	struct tsv_w t;
	int rc;

	if ((rc = tsv_w_open(&t, path, "envtests", 1, cols, false, true, e)) < 0)
		return rc;
	for (int i = 0; i < p->npair && rc == 0; i++) {
		const struct pasv_pair *r = &p->pairs[i];
		const struct pasv_flow *f = &p->flows[r->f], *g = &p->flows[r->g];

		tsv_w_str(&t, p->hosts[f->src].name);
		tsv_w_str(&t, p->hosts[f->dst].name);
		tsv_w_str(&t, p->hosts[g->src].name);
		tsv_w_str(&t, p->hosts[g->dst].name);
		tsv_w_i64(&t, r->overlap_ns);
		tsv_w_i64(&t, r->solo_f_ns);
		tsv_w_i64(&t, r->solo_g_ns);
		tsv_w_f64(&t, r->rate_f_overlap_Bps);
		tsv_w_f64(&t, r->rate_f_solo_Bps);
		tsv_w_f64(&t, r->rate_g_overlap_Bps);
		tsv_w_f64(&t, r->rate_g_solo_Bps);
		tsv_w_f64(&t, r->ratio_f);
		tsv_w_f64(&t, r->ratio_g);
		tsv_w_str(&t, pasv_verdict_name(r->verdict));
		if (r->confidence < 0)
			tsv_w_str(&t, "untested");
		else
			tsv_w_f64(&t, r->confidence);
		tsv_w_str(&t, r->why ? r->why : "-");
		rc = tsv_w_end(&t, e);
	}
	if (tsv_w_close(&t, rc == 0 ? e : NULL) < 0 && rc == 0)
		rc = -E_IO;
	return rc;
}

/* "bw 12.5 MB/s, latency 4.5 us, confidence 0.90", "unknown" and "untested" for what is not
 * known (never "nan"). */
static void
print_attr(FILE *f, const struct graph_attr *a)
{
	if (isnan(a->bw_Bps) || a->bw_Bps < 0)
		fprintf(f, "bw unknown");
	else
		fprintf(f, "bw %.4g MB/s", a->bw_Bps / 1e6);
	if (a->lat_ns >= 0)
		fprintf(f, ", latency %.1f us", (double)a->lat_ns / 1e3);
	else
		fprintf(f, ", latency unknown");
	if (a->confidence < 0)
		fprintf(f, ", confidence untested");
	else
		fprintf(f, ", confidence %.2f", a->confidence);
}

/* A one-screen summary of g on f (nothing when f is NULL). */
static void
print_graph(FILE *f, const struct graph *g)
{
	if (f == NULL)
		return;
	for (int i = 0; i < g->nnet; i++) {
		const struct graph_net *n = &g->nets[i];

		fprintf(f, "net %s:", n->name);
		for (int h = 0; h < g->nhost; h++)
			if (g->hosts[h].net == i)
				fprintf(f, " %s", g->hosts[h].name);
		fprintf(f, "\n    ");
		print_attr(f, &n->attr);
		fprintf(f, "\n    %s\n", n->attr.note ? n->attr.note : "");
	}
	for (int i = 0; i < g->nlink; i++) {
		const struct graph_link *l = &g->links[i];

		fprintf(f, "link %s: ", l->name);
		print_attr(f, &l->attr);
		fprintf(f, "\n    %s\n", l->attr.note ? l->attr.note : "");
	}
}

/* Write DIR/topology.{dot,tsv} and, unless no_render, .pdf and .svg. Returns 0, 1 when a
 * drawing failed (said), or negative with e set. */
static int
write_outputs(const struct graph *g, const char *dir, bool no_render, struct err *e)
{
	static const char *const fmts[] = { "pdf", "svg" };
	struct err de;
	char *path;
	int rc = 0;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return err_set(e, E_IO, "cannot create '%s': %s", dir, strerror(errno));
	path = xasprintf("%s/topology.dot", dir);
	rc = graph_write_dot(g, path, e);
	free(path);
	if (rc < 0)
		return rc;
	path = xasprintf("%s/topology.tsv", dir);
	rc = graph_write_tsv(g, path, e);
	free(path);
	if (rc < 0)
		return rc;
	rc = 0;
	for (size_t i = 0; i < 2 && !no_render; i++) {
		path = xasprintf("%s/topology.%s", dir, fmts[i]);
		if (graph_render(g, fmts[i], path, &de) < 0) {
			warnx_("infer: drawing '%s': %s", path, de.msg);
			rc = 1;
		}
		free(path);
	}
	note("infer: wrote %s/topology.dot, topology.tsv%s", dir, no_render ? "" : ", topology.pdf, topology.svg");
	return rc;
}

static int
run_passive(const struct infer_opts *o, struct err *e)
{
	struct pasv p;
	struct capfile caps[PASV_MAX_HOSTS];
	struct graph g;
	struct err te;
	int ncap = 0, status = 0, decided = 0;
	long bad = 0, warnings = 0;
	uint64_t decoded = 0;
	const char *out = o->out ? o->out : o->run;
	char *path;

	if (!is_dir(o->run))
		return err_set(e, E_IO, "cannot open run '%s': not a directory", o->run);
	pasv_init(&p, NULL);
	if ((status = load_hosts(o->run, &p, caps, &ncap, &bad, e)) < 0) {
		for (int i = 0; i < ncap; i++)
			free(caps[i].path);
		pasv_release(&p);
		return status;
	}
	if (bad > 0)
		warnx_("infer: '%s/meta': %ld unreadable files or values skipped", o->run, bad);
	if (ncap == 0)
		warnx_("infer: '%s': no captures, so no traffic: every link is untested", o->run);
	for (int i = 0; i < ncap; i++) {
		verbose("infer: reading '%s'", caps[i].path);
		read_capture(&p, &caps[i], &decoded, &warnings);
		free(caps[i].path);
	}
	if ((status = pasv_build_graph(&p, &g, e)) < 0) {
		pasv_release(&p);
		return status;
	}
	print_graph(o->graph, &g);
	for (int i = 0; i < p.npair; i++)
		decided += p.pairs[i].verdict == PASV_SHARED || p.pairs[i].verdict == PASV_INDEPENDENT;
	note("infer: %d hosts, %d local networks, %d links; %" PRIu64 " TCP segments, %d transfers, %d pair "
	     "tests (%d decided), %" PRIu64 " round-trip samples; %" PRIu64 " segments of unknown "
	     "hosts skipped", g.nhost, g.nnet, g.nlink, decoded, p.nflow, p.npair, decided,
	     p.rtt_samples, p.unknown_addr);
	if (p.over_cap)
		warnx_("infer: %" PRIu64 " items over a cap were not kept", p.over_cap);
	status = write_outputs(&g, out, o->no_render, e);
	if (status < 0) {
		graph_release(&g);
		pasv_release(&p);
		return status;
	}
	path = xasprintf("%s/topology-tests.tsv", out);
	if (write_tests(&p, path, &te) < 0) {
		warnx_("infer: %s", te.msg);
		status = 1;
	}
	for (int i = 0; i < p.npair && err_verbosity >= 2; i++) {
		const struct pasv_pair *r = &p.pairs[i];

		fprintf(stderr, "  %s>%s & %s>%s: overlap %.2fs ratio %.2f %.2f %s\n",
			p.hosts[p.flows[r->f].src].name, p.hosts[p.flows[r->f].dst].name,
			p.hosts[p.flows[r->g].src].name, p.hosts[p.flows[r->g].dst].name,
			(double)r->overlap_ns / 1e9, r->ratio_f, r->ratio_g, pasv_verdict_name(r->verdict));
	}
	free(path);
	graph_release(&g);
	pasv_release(&p);
	return status || warnings ? 1 : 0;
}

static int
run_from_dot(const struct infer_opts *o, struct err *e)
{
	struct graph g;
	int rc;

	if ((rc = graph_read_dot(&g, o->from_dot, 0, e)) < 0) {
		graph_release(&g);
		return rc;
	}
	print_graph(o->graph, &g);
	rc = write_outputs(&g, o->out, o->no_render, e);
	graph_release(&g);
	return rc;
}

static int
run_probe(const struct infer_opts *o, struct err *e)
{
	struct graph g;
	int rc;

	if (o->testbed >= 0)
		return probe_on_testbed(o->testbed, o->out, &o->po, e);
	rc = probe_agent(o->out, &o->po, &g, e);
	if (rc <= 0)		/* an error, or not the root: nothing to write */
		return rc;
	print_graph(o->graph, &g);
	rc = write_outputs(&g, o->out, o->no_render, e);
	graph_release(&g);
	return rc;
}

void
infer_opts_init(struct infer_opts *o)
{
	memset(o, 0, sizeof *o);
	o->testbed = -1;
	o->po = probe_opts_default();
}

int
infer_run(const struct infer_opts *o, struct err *e)
{
	if (o->from_dot != NULL)
		return run_from_dot(o, e);
	if (o->probe)
		return run_probe(o, e);
	return run_passive(o, e);
}
