/* infer: the `contend infer` command: the ENV logical network of a run (passive), by probing
 * (active), or re-exported from an edited DOT file. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "infer/graph.h"
#include "infer/passive.h"
#include "infer/probe.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "parse/pcapin.h"
#include "parse/pkt.h"

const char usage_infer[] =
	"usage: contend infer [OPTIONS] RUN\n"
	"       mpirun -np N contend infer --probe [OPTIONS] -o TOPO\n"
	"       contend infer --probe --testbed K [OPTIONS] -o TOPO\n"
	"       contend infer --from-dot FILE -o OUT\n"
	"\n"
	"Infer the ENV logical network (paper 001, Section 3): hosts grouped into local networks\n"
	"whose capacity they share, local networks joined by non-local links, each with bandwidth,\n"
	"latency and a confidence (or 'untested').\n"
	"\n"
	"Passive (default): from a run recorded by 'contend collect'. Hosts, addresses and MACs\n"
	"come from RUN/meta; same segment or behind a router from the frames' MACs, hop counts\n"
	"from TTLs, round trips from TCP handshakes and data/ACK pairs. ENV's shared-bottleneck\n"
	"test is done on the application's own transfers: wherever two transfers from one host,\n"
	"into one host, or between the same two local networks overlap, each one's rate during\n"
	"the overlap is compared with its rate while the other was idle. Pairs that never\n"
	"overlapped are reported untested, never guessed.\n"
	"\n"
	"Active (--probe): ENV's own procedure from a root host (rank 0): latency ping-pong, a\n"
	"transfer to each host alone, then every pair of hosts at once. Start one agent per host\n"
	"through the job's launcher; the agents meet through the shared directory TOPO. With\n"
	"--testbed K the agents are started in the workstations of testbed K.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR      where topology.{dot,pdf,svg,tsv} go (default: RUN)\n"
	"      --probe           measure actively (see above)\n"
	"      --testbed K       with --probe: run the agents in testbed K's workstations\n"
	"      --size BYTES      with --probe: first transfer size (default 1M; grown until a\n"
	"                        transfer lasts --min-time)\n"
	"      --min-time T      with --probe: least duration of a timed transfer (default 300ms)\n"
	"      --reps N          with --probe: repetitions of each measurement (default 3)\n"
	"      --timeout T       with --probe: how long to wait for the other agents (default 60s)\n"
	"      --from-dot FILE   read an (edited) topology.dot and write it again with the PDF,\n"
	"                        SVG and TSV\n"
	"      --no-render       write DOT and TSV only\n"
	"  -q, --quiet           only errors\n"
	"  -v, --verbose         also every pair test\n"
	"  -h, --help            this text\n"
	"\n"
	"output (docs/infer.md, docs/formats.md):\n"
	"  DIR/topology.dot      the ENV graph (cgraph DOT; edit it and use --from-dot)\n"
	"  DIR/topology.pdf/.svg the graph drawn with Graphviz dot\n"
	"  DIR/topology.tsv      the same links for 'contend predict'\n"
	"  DIR/topology-tests.tsv every shared-bottleneck test and its verdict\n"
	"\n"
	"examples:\n"
	"  contend infer run1\n"
	"  contend infer -o /tmp/t run1\n"
	"  mpirun -np 4 --host ws1,ws2,ws3,ws4 contend infer --probe -o topo1\n"
	"  contend infer --probe --testbed 2 -o topo2\n"
	"  contend infer --from-dot edited.dot -o topo3\n";

enum { OPT_PROBE = 256, OPT_TESTBED, OPT_SIZE, OPT_MIN_TIME, OPT_REPS, OPT_TIMEOUT, OPT_FROM_DOT,
       OPT_NO_RENDER };

struct opts {
	const char *run, *out, *from_dot;
	bool probe, no_render;
	int testbed;			/* -1: none */
	struct probe_opts po;
};

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
print_attr(const struct graph_attr *a)
{
	if (isnan(a->bw_Bps) || a->bw_Bps < 0)
		printf("bw unknown");
	else
		printf("bw %.4g MB/s", a->bw_Bps / 1e6);
	if (a->lat_ns >= 0)
		printf(", latency %.1f us", (double)a->lat_ns / 1e3);
	else
		printf(", latency unknown");
	if (a->confidence < 0)
		printf(", confidence untested");
	else
		printf(", confidence %.2f", a->confidence);
}

/* Print a one-screen summary of g. */
static void
print_graph(const struct graph *g)
{
	for (int i = 0; i < g->nnet; i++) {
		const struct graph_net *n = &g->nets[i];

		printf("net %s:", n->name);
		for (int h = 0; h < g->nhost; h++)
			if (g->hosts[h].net == i)
				printf(" %s", g->hosts[h].name);
		printf("\n    ");
		print_attr(&n->attr);
		printf("\n    %s\n", n->attr.note ? n->attr.note : "");
	}
	for (int i = 0; i < g->nlink; i++) {
		const struct graph_link *l = &g->links[i];

		printf("link %s: ", l->name);
		print_attr(&l->attr);
		printf("\n    %s\n", l->attr.note ? l->attr.note : "");
	}
}

/* Write DIR/topology.{dot,tsv} and, unless no_render, .pdf and .svg. */
static int
write_outputs(const struct graph *g, const char *dir, bool no_render)
{
	static const char *const fmts[] = { "pdf", "svg" };
	struct err e;
	char *path;
	int rc = 0;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("infer: cannot create '%s': %s", dir, strerror(errno));
	path = xasprintf("%s/topology.dot", dir);
	if (graph_write_dot(g, path, &e) < 0)
		die("infer: %s", e.msg);
	free(path);
	path = xasprintf("%s/topology.tsv", dir);
	if (graph_write_tsv(g, path, &e) < 0)
		die("infer: %s", e.msg);
	free(path);
	for (size_t i = 0; i < 2 && !no_render; i++) {
		path = xasprintf("%s/topology.%s", dir, fmts[i]);
		if (graph_render(g, fmts[i], path, &e) < 0) {
			warnx_("infer: drawing '%s': %s", path, e.msg);
			rc = 1;
		}
		free(path);
	}
	note("infer: wrote %s/topology.dot, topology.tsv%s", dir, no_render ? "" : ", topology.pdf, topology.svg");
	return rc;
}

static int
run_passive(const struct opts *o)
{
	struct pasv p;
	struct capfile caps[PASV_MAX_HOSTS];
	struct graph g;
	struct err e;
	int ncap = 0, status = 0, decided = 0;
	long bad = 0, warnings = 0;
	uint64_t decoded = 0;
	const char *out = o->out ? o->out : o->run;
	char *path;

	if (!is_dir(o->run))
		die("infer: cannot open run '%s': not a directory", o->run);
	pasv_init(&p, NULL);
	if (load_hosts(o->run, &p, caps, &ncap, &bad, &e) < 0)
		die("infer: %s", e.msg);
	if (bad > 0)
		warnx_("infer: '%s/meta': %ld unreadable files or values skipped", o->run, bad);
	if (ncap == 0)
		warnx_("infer: '%s': no captures, so no traffic: every link is untested", o->run);
	for (int i = 0; i < ncap; i++) {
		verbose("infer: reading '%s'", caps[i].path);
		read_capture(&p, &caps[i], &decoded, &warnings);
		free(caps[i].path);
	}
	if (pasv_build_graph(&p, &g, &e) < 0)
		die("infer: %s", e.msg);
	if (err_verbosity >= 1)
		print_graph(&g);
	for (int i = 0; i < p.npair; i++)
		decided += p.pairs[i].verdict == PASV_SHARED || p.pairs[i].verdict == PASV_INDEPENDENT;
	note("infer: %d hosts, %d local networks, %d links; %" PRIu64 " TCP segments, %d transfers, %d pair "
	     "tests (%d decided), %" PRIu64 " round-trip samples; %" PRIu64 " segments of unknown "
	     "hosts skipped", g.nhost, g.nnet, g.nlink, decoded, p.nflow, p.npair, decided,
	     p.rtt_samples, p.unknown_addr);
	if (p.over_cap)
		warnx_("infer: %" PRIu64 " items over a cap were not kept", p.over_cap);
	status = write_outputs(&g, out, o->no_render);
	path = xasprintf("%s/topology-tests.tsv", out);
	if (write_tests(&p, path, &e) < 0) {
		warnx_("infer: %s", e.msg);
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
run_from_dot(const struct opts *o)
{
	struct graph g;
	struct err e;
	int rc;

	if (o->out == NULL)
		die_usage("infer: --from-dot needs -o OUT");
	if (graph_read_dot(&g, o->from_dot, 0, &e) < 0) {
		graph_release(&g);
		die("infer: %s", e.msg);
	}
	if (err_verbosity >= 1)
		print_graph(&g);
	rc = write_outputs(&g, o->out, o->no_render);
	graph_release(&g);
	return rc;
}

static int
run_probe(const struct opts *o)
{
	struct graph g;
	struct err e;
	int rc;

	if (o->out == NULL)
		die_usage("infer: --probe needs -o TOPO (a directory every agent can reach)");
	if (o->testbed >= 0) {
		rc = probe_on_testbed(o->testbed, o->out, &o->po, &e);
		if (rc < 0)
			die("infer: %s", e.msg);
		return rc;
	}
	rc = probe_agent(o->out, &o->po, &g, &e);
	if (rc < 0)
		die("infer: %s", e.msg);
	if (rc == 0)		/* not the root: nothing to write */
		return 0;
	if (err_verbosity >= 1)
		print_graph(&g);
	rc = write_outputs(&g, o->out, o->no_render);
	graph_release(&g);
	return rc;
}

int
cmd_infer(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "probe", no_argument, NULL, OPT_PROBE },
		{ "testbed", required_argument, NULL, OPT_TESTBED },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "min-time", required_argument, NULL, OPT_MIN_TIME },
		{ "reps", required_argument, NULL, OPT_REPS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "from-dot", required_argument, NULL, OPT_FROM_DOT },
		{ "no-render", no_argument, NULL, OPT_NO_RENDER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opts o = { .testbed = -1, .po = probe_opts_default() };
	int c;

	while ((c = cli_getopt(argc, argv, "ho:qv", longopts, usage_infer)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case OPT_PROBE: o.probe = true; break;
		case OPT_TESTBED: o.testbed = (int)cli_i64(optarg, "--testbed", 0, 99); break;
		case OPT_SIZE: o.po.size_bytes = cli_bytes(optarg, "--size"); break;
		case OPT_MIN_TIME: o.po.min_time_ns = cli_duration_ns(optarg, "--min-time", 1000000); break;
		case OPT_REPS: o.po.reps = (int)cli_i64(optarg, "--reps", 1, 100); break;
		case OPT_TIMEOUT: o.po.timeout_ns = cli_duration_ns(optarg, "--timeout", NS_PER_S); break;
		case OPT_FROM_DOT: o.from_dot = optarg; break;
		case OPT_NO_RENDER: o.no_render = true; break;
		case 'q': err_verbosity = 0; break;
		case 'v': err_verbosity = 2; break;
		}
	}
	if (o.po.size_bytes < 1024 || o.po.size_bytes > (1LL << 32))
		die_usage("infer: --size must be between 1k and 4G");
	if (o.from_dot) {
		if (optind != argc || o.probe)
			die_usage("infer: --from-dot takes no RUN and no --probe");
		return run_from_dot(&o);
	}
	if (o.probe) {
		if (optind != argc)
			die_usage("infer: --probe takes no RUN (give -o TOPO)");
		return run_probe(&o);
	}
	if (o.testbed >= 0)
		die_usage("infer: --testbed needs --probe");
	if (optind + 1 != argc)
		die_usage("infer: give one RUN directory (see 'contend infer --help')");
	o.run = argv[optind];
	return run_passive(&o);
}
