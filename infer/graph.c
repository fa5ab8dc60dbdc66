/* graph: the ENV logical network, written and read as DOT with cgraph and drawn with gvc. */
#include "infer/graph.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "lib/clock.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"

#define ANCHOR_PREFIX "net:"
#define CLUSTER_PREFIX "cluster_"
#define NUM_MAX 40		/* longest formatted number */

/* Graphviz reports through a global hook; keep its first message of each call. */
static char gv_msg[256];

static int
gv_errf(char *msg)
{
	size_t n;

	if (gv_msg[0] != '\0' || msg == NULL)
		return 0;
	snprintf(gv_msg, sizeof gv_msg, "%s", msg);
	n = strlen(gv_msg);
	while (n > 0 && (gv_msg[n - 1] == '\n' || gv_msg[n - 1] == ' '))
		gv_msg[--n] = '\0';
	return 0;
}

static agusererrf
gv_hook(void)
{
	gv_msg[0] = '\0';
	agreseterrors();
	return agseterrf(gv_errf);
}

struct graph_attr
graph_attr_unknown(void)
{
	struct graph_attr a = { .bw_Bps = NAN, .cap_tps = NAN, .lat_ns = -1,
				.confidence = GRAPH_UNTESTED, .note = NULL };

	return a;
}

void
graph_init_empty(struct graph *g, int max_items)
{
	memset(g, 0, sizeof *g);
	g->max_items = max_items > 0 ? max_items : 100000;
}

void
graph_release(struct graph *g)
{
	if (g == NULL)
		return;
	for (int i = 0; i < g->nnet; i++) {
		free(g->nets[i].name);
		free(g->nets[i].attr.note);
	}
	for (int i = 0; i < g->nhost; i++) {
		free(g->hosts[i].name);
		free(g->hosts[i].note);
	}
	for (int i = 0; i < g->nrouter; i++) {
		free(g->routers[i].name);
		free(g->routers[i].note);
	}
	for (int i = 0; i < g->nlink; i++) {
		free(g->links[i].name);
		free(g->links[i].attr.note);
	}
	free(g->nets);
	free(g->hosts);
	free(g->routers);
	free(g->links);
	graph_init_empty(g, g->max_items);
}

static int
check_name(const char *what, const char *name, struct err *e)
{
	size_t n;

	if (name == NULL || name[0] == '\0')
		return err_set(e, E_USAGE, "%s name is empty", what);
	n = strlen(name);
	if (n > GRAPH_NAME_MAX)
		return err_set(e, E_USAGE, "%s name '%.40s...' is longer than %d bytes", what, name,
			       GRAPH_NAME_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20)
			return err_set(e, E_USAGE, "%s name '%s' has a control character", what, name);
	return 0;
}

static int
check_note(const char *what, const char *name, const char *note, struct err *e)
{
	if (note != NULL && strlen(note) > GRAPH_NOTE_MAX)
		return err_set(e, E_USAGE, "%s '%s': note is longer than %d bytes", what, name,
			       GRAPH_NOTE_MAX);
	return 0;
}

static int
check_attr(const char *what, const char *name, const struct graph_attr *a, struct err *e)
{
	if (!isnan(a->bw_Bps) && !(a->bw_Bps >= 0 && isfinite(a->bw_Bps)))
		return err_set(e, E_USAGE, "%s '%s': bandwidth %g is not a non-negative number", what,
			       name, a->bw_Bps);
	if (!isnan(a->cap_tps) && !(a->cap_tps >= 0 && isfinite(a->cap_tps)))
		return err_set(e, E_USAGE, "%s '%s': capacity %g is not a non-negative number", what,
			       name, a->cap_tps);
	if (a->lat_ns < -1)
		return err_set(e, E_USAGE, "%s '%s': latency %" PRId64 " ns is negative", what, name,
			       a->lat_ns);
	if (isnan(a->confidence) || a->confidence > 1)
		return err_set(e, E_USAGE, "%s '%s': confidence %g is not in [0, 1]", what, name,
			       a->confidence);
	return check_note(what, name, a->note, e);
}

static int
check_cap_tps(const char *what, const char *name, double v, struct err *e)
{
	if (!isnan(v) && !(v >= 0 && isfinite(v)))
		return err_set(e, E_USAGE, "%s '%s': work capacity %g is not a non-negative number",
			       what, name, v);
	return 0;
}

static struct graph_attr
attr_copy(const struct graph_attr *a)
{
	struct graph_attr c = *a;

	c.note = a->note ? xstrdup(a->note) : NULL;
	if (c.confidence < 0)
		c.confidence = GRAPH_UNTESTED;
	return c;
}

static int
room(struct graph *g, int n, const char *what, struct err *e)
{
	if (n >= g->max_items) {
		g->refused++;
		return err_set(e, E_LIMIT, "too many %s (limit %d)", what, g->max_items);
	}
	return 0;
}

int
graph_find_net(const struct graph *g, const char *name)
{
	for (int i = 0; i < g->nnet; i++)
		if (strcmp(g->nets[i].name, name) == 0)
			return i;
	return -1;
}

int
graph_find_host(const struct graph *g, const char *name)
{
	for (int i = 0; i < g->nhost; i++)
		if (strcmp(g->hosts[i].name, name) == 0)
			return i;
	return -1;
}

int
graph_find_router(const struct graph *g, const char *name)
{
	for (int i = 0; i < g->nrouter; i++)
		if (strcmp(g->routers[i].name, name) == 0)
			return i;
	return -1;
}

int
graph_find_link(const struct graph *g, const char *name)
{
	for (int i = 0; i < g->nlink; i++)
		if (strcmp(g->links[i].name, name) == 0)
			return i;
	return -1;
}

/* Host and router names share the node namespace with the anchors "net:<net>". */
static int
check_node_name(const struct graph *g, const char *what, const char *name, struct err *e)
{
	int rc = check_name(what, name, e);

	if (rc < 0)
		return rc;
	if (strncmp(name, ANCHOR_PREFIX, strlen(ANCHOR_PREFIX)) == 0)
		return err_set(e, E_USAGE, "%s name '%s' starts with '%s', kept for networks", what,
			       name, ANCHOR_PREFIX);
	if (graph_find_host(g, name) >= 0 || graph_find_router(g, name) >= 0)
		return err_set(e, E_USAGE, "duplicate node name '%s'", name);
	return 0;
}

int
graph_add_net(struct graph *g, const char *name, const struct graph_attr *attr, struct err *e)
{
	int rc;

	if ((rc = check_name("network", name, e)) < 0 || (rc = check_attr("network", name, attr, e)) < 0)
		return rc;
	if (graph_find_net(g, name) >= 0)
		return err_set(e, E_USAGE, "duplicate network name '%s'", name);
	if ((rc = room(g, g->nnet, "networks", e)) < 0)
		return rc;
	g->nets = xgrow(g->nets, &g->cap_net_, (size_t)g->nnet + 1, sizeof *g->nets);
	g->nets[g->nnet].name = xstrdup(name);
	g->nets[g->nnet].attr = attr_copy(attr);
	return g->nnet++;
}

int
graph_add_host(struct graph *g, const char *name, int net, double slave_tps, double master_tps,
	       const char *note, struct err *e)
{
	int rc;

	if ((rc = check_node_name(g, "host", name, e)) < 0)
		return rc;
	if (net < 0 || net >= g->nnet)
		return err_set(e, E_USAGE, "host '%s': no network with index %d", name, net);
	if ((rc = check_cap_tps("host", name, slave_tps, e)) < 0 ||
	    (rc = check_cap_tps("host", name, master_tps, e)) < 0 ||
	    (rc = check_note("host", name, note, e)) < 0)
		return rc;
	if ((rc = room(g, g->nhost, "hosts", e)) < 0)
		return rc;
	g->hosts = xgrow(g->hosts, &g->cap_host_, (size_t)g->nhost + 1, sizeof *g->hosts);
	g->hosts[g->nhost] = (struct graph_host){ .name = xstrdup(name), .net = net,
						  .slave_tps = slave_tps, .master_tps = master_tps,
						  .note = note ? xstrdup(note) : NULL };
	return g->nhost++;
}

int
graph_add_router(struct graph *g, const char *name, const char *note, struct err *e)
{
	int rc;

	if ((rc = check_node_name(g, "router", name, e)) < 0 ||
	    (rc = check_note("router", name, note, e)) < 0)
		return rc;
	if ((rc = room(g, g->nrouter, "routers", e)) < 0)
		return rc;
	g->routers = xgrow(g->routers, &g->cap_router_, (size_t)g->nrouter + 1, sizeof *g->routers);
	g->routers[g->nrouter] = (struct graph_router){ .name = xstrdup(name),
							.note = note ? xstrdup(note) : NULL };
	return g->nrouter++;
}

static bool
end_ok(const struct graph *g, struct graph_end end)
{
	if (end.kind == GRAPH_END_NET)
		return end.idx >= 0 && end.idx < g->nnet;
	if (end.kind == GRAPH_END_ROUTER)
		return end.idx >= 0 && end.idx < g->nrouter;
	return false;
}

const char *
graph_end_name(const struct graph *g, struct graph_end end)
{
	if (!end_ok(g, end))
		return "?";
	return end.kind == GRAPH_END_NET ? g->nets[end.idx].name : g->routers[end.idx].name;
}

int
graph_add_link(struct graph *g, const char *name, struct graph_end a, struct graph_end b,
	       const struct graph_attr *attr, struct err *e)
{
	int rc;

	if ((rc = check_name("link", name, e)) < 0 || (rc = check_attr("link", name, attr, e)) < 0)
		return rc;
	if (graph_find_link(g, name) >= 0)
		return err_set(e, E_USAGE, "duplicate link name '%s'", name);
	if (!end_ok(g, a) || !end_ok(g, b))
		return err_set(e, E_USAGE, "link '%s': an end is not a known network or router", name);
	if (a.kind == b.kind && a.idx == b.idx)
		return err_set(e, E_USAGE, "link '%s' joins '%s' to itself", name, graph_end_name(g, a));
	if ((rc = room(g, g->nlink, "links", e)) < 0)
		return rc;
	g->links = xgrow(g->links, &g->cap_link_, (size_t)g->nlink + 1, sizeof *g->links);
	g->links[g->nlink] = (struct graph_link){ .name = xstrdup(name), .a = a, .b = b,
						  .attr = attr_copy(attr) };
	return g->nlink++;
}

int
graph_net_path(const struct graph *g, int net_a, int net_b, int *links_out, int max)
{
	/* Breadth-first search over the places (nets then routers) joined by links. */
	int nplace = g->nnet + g->nrouter;
	int *prev_link, *queue, head = 0, tail = 0, n = 0, at;

	if (net_a < 0 || net_a >= g->nnet || net_b < 0 || net_b >= g->nnet)
		return -1;
	if (net_a == net_b)
		return 0;
	prev_link = xmallocarray((size_t)nplace, sizeof *prev_link);
	queue = xmallocarray((size_t)nplace, sizeof *queue);
	for (int i = 0; i < nplace; i++)
		prev_link[i] = -2;
	prev_link[net_a] = -1;
	queue[tail++] = net_a;
	while (head < tail && prev_link[net_b] == -2) {
		int u = queue[head++];

		for (int l = 0; l < g->nlink; l++) {
			const struct graph_link *k = &g->links[l];
			int pa = k->a.kind == GRAPH_END_NET ? k->a.idx : g->nnet + k->a.idx;
			int pb = k->b.kind == GRAPH_END_NET ? k->b.idx : g->nnet + k->b.idx;
			int v = pa == u ? pb : pb == u ? pa : -1;

			if (v < 0 || prev_link[v] != -2)
				continue;
			prev_link[v] = l;
			queue[tail++] = v;
		}
	}
	if (prev_link[net_b] == -2) {
		n = -1;
		goto out;
	}
	for (at = net_b; at != net_a; n++) {
		const struct graph_link *k = &g->links[prev_link[at]];
		int pa = k->a.kind == GRAPH_END_NET ? k->a.idx : g->nnet + k->a.idx;
		int pb = k->b.kind == GRAPH_END_NET ? k->b.idx : g->nnet + k->b.idx;

		at = pa == at ? pb : pa;
	}
	if (n > max) {
		n = -1;
		goto out;
	}
	at = net_b;
	for (int i = n - 1; i >= 0; i--) {
		const struct graph_link *k = &g->links[prev_link[at]];
		int pa = k->a.kind == GRAPH_END_NET ? k->a.idx : g->nnet + k->a.idx;
		int pb = k->b.kind == GRAPH_END_NET ? k->b.idx : g->nnet + k->b.idx;

		links_out[i] = prev_link[at];
		at = pa == at ? pb : pa;
	}
out:
	free(prev_link);
	free(queue);
	return n;
}

/* ---- numbers as text ---- */

/* Shortest %g form that reads back to the same double; "" for NAN (unknown). */
static void
fmt_num(char *out, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(out, len, "%s", "");
		return;
	}
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(out, len, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

static void
fmt_human_rate(char *out, size_t len, double bw_Bps)
{
	static const char *const units[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
	int u = 0;

	while (bw_Bps >= 1000 && u < 4) {
		bw_Bps /= 1000;
		u++;
	}
	snprintf(out, len, "%.3g %s", bw_Bps, units[u]);
}

static void
fmt_human_lat(char *out, size_t len, int64_t lat_ns)
{
	if (lat_ns < 1000)
		snprintf(out, len, "%" PRId64 " ns", lat_ns);
	else if (lat_ns < 1000000)
		snprintf(out, len, "%.3g us", (double)lat_ns / 1e3);
	else if (lat_ns < NS_PER_S)
		snprintf(out, len, "%.3g ms", (double)lat_ns / 1e6);
	else
		snprintf(out, len, "%.3g s", (double)lat_ns / 1e9);
}

/* "name\n50 tasks/s, 12.5 MB/s, 100 us, conf 0.9" with the parts that are known. */
static char *
human_label(const char *name, const struct graph_attr *a)
{
	char parts[4][64];
	int n = 0;
	char *s;

	if (!isnan(a->cap_tps))
		snprintf(parts[n++], sizeof parts[0], "%.4g tasks/s", a->cap_tps);
	if (!isnan(a->bw_Bps))
		fmt_human_rate(parts[n++], sizeof parts[0], a->bw_Bps);
	if (a->lat_ns >= 0)
		fmt_human_lat(parts[n++], sizeof parts[0], a->lat_ns);
	if (a->confidence >= 0)
		snprintf(parts[n++], sizeof parts[0], "conf %.2g", a->confidence);
	else
		snprintf(parts[n++], sizeof parts[0], "untested");
	s = xasprintf("%s\n%s%s%s%s%s%s%s", name, parts[0], n > 1 ? ", " : "", n > 1 ? parts[1] : "",
		      n > 2 ? ", " : "", n > 2 ? parts[2] : "", n > 3 ? ", " : "", n > 3 ? parts[3] : "");
	return s;
}

/* ---- building the cgraph graph ---- */

static void
set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)(value ? value : ""), "");
}

static void
set_num(void *obj, const char *name, double v)
{
	char buf[NUM_MAX];

	fmt_num(buf, sizeof buf, v);
	set(obj, name, buf);
}

static void
set_attr(void *obj, const struct graph_attr *a)
{
	char buf[NUM_MAX];

	set_num(obj, "bw_Bps", a->bw_Bps);
	set_num(obj, "cap_tps", a->cap_tps);
	if (a->lat_ns >= 0)
		snprintf(buf, sizeof buf, "%" PRId64, a->lat_ns);
	else
		buf[0] = '\0';
	set(obj, "lat_ns", buf);
	if (a->confidence >= 0)
		fmt_num(buf, sizeof buf, a->confidence);
	else
		snprintf(buf, sizeof buf, "untested");
	set(obj, "confidence", buf);
	set(obj, "note", a->note);
}

static void
declare(Agraph_t *G)
{
	static const char *const graph_attrs[] = { "contend_topology", "kind", "label", "bw_Bps",
		"cap_tps", "lat_ns", "confidence", "note", "style", "color", "fontsize", NULL };
	static const char *const node_attrs[] = { "kind", "label", "shape", "slave_tps",
		"master_tps", "note", "width", "height", "style", NULL };
	static const char *const edge_attrs[] = { "kind", "name", "label", "bw_Bps", "cap_tps",
		"lat_ns", "confidence", "note", "style", "penwidth", "fontsize", NULL };

	for (int i = 0; graph_attrs[i]; i++)
		agattr(G, AGRAPH, (char *)graph_attrs[i], "");
	for (int i = 0; node_attrs[i]; i++)
		agattr(G, AGNODE, (char *)node_attrs[i], "");
	for (int i = 0; edge_attrs[i]; i++)
		agattr(G, AGEDGE, (char *)edge_attrs[i], "");
}

static Agnode_t *
end_node(Agraph_t *G, const struct graph *g, struct graph_end end)
{
	char *name;
	Agnode_t *n;

	if (end.kind == GRAPH_END_ROUTER)
		return agnode(G, g->routers[end.idx].name, 0);
	name = xasprintf(ANCHOR_PREFIX "%s", g->nets[end.idx].name);
	n = agnode(G, name, 0);
	free(name);
	return n;
}

/* Object IDs in creation order. cgraph's default IDs for named objects are the addresses of
 * their interned names, and agwrite puts subgraphs in ID order, so the clusters would come
 * out in an order that depends on the heap; with sequential IDs (names kept in cgraph's
 * internal map) they come out in the order build creates them, and a DOT file read back and
 * written again is the same file. */
static void *
seqid_open(Agraph_t *G, Agdisc_t *disc)
{
	IDTYPE *next = xcalloc(1, sizeof *next);

	(void)G;
	(void)disc;
	*next = 1;
	return next;
}

static long
seqid_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	IDTYPE *next = state;

	(void)objtype;
	if (str != NULL || !createflag)
		return 0;	/* names: cgraph's internal map */
	*id = *next;
	*next += 2;
	return 1;
}

static long
seqid_alloc(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
	return 0;
}

static void
seqid_free(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
}

static char *
seqid_print(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
	return NULL;
}

static void
seqid_close(void *state)
{
	free(state);
}

static void
seqid_register(void *state, int objtype, void *obj)
{
	(void)state;
	(void)objtype;
	(void)obj;
}

static Agiddisc_t seqid_disc = { seqid_open, seqid_map, seqid_alloc, seqid_free, seqid_print,
				 seqid_close, seqid_register };

/* Build the cgraph form of g; agclose the result. NULL with e set on failure. */
static Agraph_t *
build(const struct graph *g, struct err *e)
{
	static Agdisc_t disc;
	Agraph_t *G;

	disc.mem = &AgMemDisc;
	disc.id = &seqid_disc;
	disc.io = &AgIoDisc;
	G = agopen("contend", Agundirected, &disc);

	if (G == NULL) {
		err_set(e, E_IO, "cannot create graph: %s", gv_msg[0] ? gv_msg : "graphviz failed");
		return NULL;
	}
	declare(G);
	set(G, "contend_topology", "1");
	set(G, "fontsize", "10");
	for (int i = 0; i < g->nnet; i++) {
		const struct graph_net *net = &g->nets[i];
		char *sname = xasprintf(CLUSTER_PREFIX "%s", net->name);
		char *aname = xasprintf(ANCHOR_PREFIX "%s", net->name);
		char *label = human_label(net->name, &net->attr);
		Agraph_t *sub = agsubg(G, sname, 1);
		Agnode_t *anchor = agnode(sub, aname, 1);

		set(sub, "kind", "net");
		set(sub, "label", label);
		set(sub, "style", "rounded");
		set_attr(sub, &net->attr);
		set(anchor, "kind", "anchor");
		set(anchor, "shape", "point");
		set(anchor, "label", "");
		for (int h = 0; h < g->nhost; h++) {
			const struct graph_host *host = &g->hosts[h];
			Agnode_t *hn;
			Agedge_t *me;
			char *hl;

			if (host->net != i)
				continue;
			hn = agnode(sub, host->name, 1);
			set(hn, "kind", "host");
			set(hn, "shape", "ellipse");
			set_num(hn, "slave_tps", host->slave_tps);
			set_num(hn, "master_tps", host->master_tps);
			set(hn, "note", host->note);
			if (!isnan(host->slave_tps) || !isnan(host->master_tps)) {
				char s[NUM_MAX], m[NUM_MAX];

				snprintf(s, sizeof s, "%.4g", host->slave_tps);
				snprintf(m, sizeof m, "%.4g", host->master_tps);
				hl = xasprintf("%s\nslave %s\nmaster %s tasks/s", host->name,
					       isnan(host->slave_tps) ? "?" : s,
					       isnan(host->master_tps) ? "?" : m);
			} else {
				hl = xstrdup(host->name);
			}
			set(hn, "label", hl);
			free(hl);
			me = agedge(sub, hn, anchor, NULL, 1);
			set(me, "kind", "member");
			set(me, "style", "dotted");
		}
		free(label);
		free(aname);
		free(sname);
	}
	for (int r = 0; r < g->nrouter; r++) {
		Agnode_t *rn = agnode(G, g->routers[r].name, 1);

		set(rn, "kind", "router");
		set(rn, "shape", "diamond");
		set(rn, "note", g->routers[r].note);
	}
	for (int l = 0; l < g->nlink; l++) {
		const struct graph_link *k = &g->links[l];
		Agnode_t *na = end_node(G, g, k->a), *nb = end_node(G, g, k->b);
		Agedge_t *ed;
		char *label;

		if (na == NULL || nb == NULL) {
			agclose(G);
			err_set(e, E_USAGE, "link '%s': an end is missing", k->name);
			return NULL;
		}
		ed = agedge(G, na, nb, k->name, 1);
		label = human_label(k->name, &k->attr);
		set(ed, "kind", "link");
		set(ed, "name", k->name);
		set(ed, "label", label);
		set(ed, "penwidth", "2");
		set(ed, "fontsize", "10");
		set_attr(ed, &k->attr);
		free(label);
	}
	return G;
}

int
graph_write_dot(const struct graph *g, const char *path, struct err *e)
{
	agusererrf old = gv_hook();
	Agraph_t *G = build(g, e);
	FILE *f;
	int rc = 0;

	if (G == NULL) {
		agseterrf(old);
		return e ? e->code : -E_IO;
	}
	f = fopen(path, "w");
	if (f == NULL) {
		rc = err_sys(e, E_IO, "cannot create '%s'", path);
	} else {
		if (agwrite(G, f) != 0)
			rc = err_set(e, E_IO, "cannot write '%s'%s%s", path, gv_msg[0] ? ": " : "", gv_msg);
		if (fclose(f) != 0 && rc == 0)
			rc = err_sys(e, E_IO, "cannot write '%s'", path);
	}
	agclose(G);
	agseterrf(old);
	return rc;
}

int
graph_render(const struct graph *g, const char *format, const char *path, struct err *e)
{
	/* One context for the process: Graphviz 2.43's text layout keeps a pointer into the font
	 * cache of the context that last measured text, so a second context would read freed
	 * memory. Created before the graph, as gvc must see graphs being created. */
	static GVC_t *gvc;
	agusererrf old = gv_hook();
	Agraph_t *G;
	int rc = 0;

	if (gvc == NULL)
		gvc = gvContext();
	if (gvc == NULL) {
		agseterrf(old);
		return err_set(e, E_IO, "cannot start graphviz");
	}
	G = build(g, e);
	if (G == NULL) {
		rc = e ? e->code : -E_IO;
	} else if (gvLayout(gvc, G, "dot") != 0) {
		rc = err_set(e, E_IO, "cannot lay out the topology%s%s", gv_msg[0] ? ": " : "", gv_msg);
	} else {
		if (gvRenderFilename(gvc, G, format, path) != 0)
			rc = err_set(e, E_IO, "cannot draw '%s' as %s%s%s", path, format,
				     gv_msg[0] ? ": " : "", gv_msg);
		gvFreeLayout(gvc, G);
	}
	if (G != NULL)
		agclose(G);
	agseterrf(old);
	return rc;
}

/* ---- reading ---- */

/* The value of attribute name on obj, or "" when it is not declared. */
static const char *
get(void *obj, const char *name)
{
	const char *v = agget(obj, (char *)name);

	return v ? v : "";
}

static const char *
blank_to_empty(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return strcmp(s, "-") == 0 ? "" : s;
}

/* A non-negative real, "" (or "-") for unknown (NAN). */
static int
parse_real(const char *what, const char *attr, const char *s, double *out, struct err *e)
{
	char *end;
	double v;

	s = blank_to_empty(s);
	if (*s == '\0') {
		*out = NAN;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	while (*end == ' ')
		end++;
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || v < 0)
		return err_set(e, E_FORMAT, "%s: attribute '%s': '%s' is not a non-negative number",
			       what, attr, s);
	*out = v;
	return 0;
}

static int
parse_attr(const char *what, void *obj, struct graph_attr *a, struct err *e)
{
	const char *lat = blank_to_empty(get(obj, "lat_ns"));
	const char *conf = blank_to_empty(get(obj, "confidence"));
	const char *note = get(obj, "note");
	int rc;

	*a = graph_attr_unknown();
	if ((rc = parse_real(what, "bw_Bps", get(obj, "bw_Bps"), &a->bw_Bps, e)) < 0 ||
	    (rc = parse_real(what, "cap_tps", get(obj, "cap_tps"), &a->cap_tps, e)) < 0)
		return rc;
	if (*lat != '\0') {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(lat, &end, 10);
		if (end == lat || *end != '\0' || errno == ERANGE || v < 0)
			return err_set(e, E_FORMAT,
				       "%s: attribute 'lat_ns': '%s' is not a non-negative integer", what, lat);
		a->lat_ns = v;
	}
	if (*conf != '\0' && strcmp(conf, "untested") != 0) {
		char *end;
		double v;

		v = strtod(conf, &end);
		if (end == conf || *end != '\0' || !(v >= 0 && v <= 1))
			return err_set(e, E_FORMAT,
				       "%s: attribute 'confidence': '%s' is neither a number in [0, 1] nor 'untested'",
				       what, conf);
		a->confidence = v;
	}
	if (strlen(note) > GRAPH_NOTE_MAX)
		return err_set(e, E_FORMAT, "%s: attribute 'note' is longer than %d bytes", what,
			       GRAPH_NOTE_MAX);
	a->note = note[0] ? xstrdup(note) : NULL;
	return 0;
}

/* Read at most GRAPH_DOT_MAX_BYTES of path into a NUL-terminated buffer. */
static char *
slurp(const char *path, struct err *e)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0;
	char *p = NULL;

	if (f == NULL) {
		err_sys(e, E_IO, "cannot open '%s'", path);
		return NULL;
	}
	for (;;) {
		size_t got;

		p = xgrow(p, &cap, n + 65536, 1);
		got = fread(p + n, 1, cap - n - 1, f);
		n += got;
		if (n > GRAPH_DOT_MAX_BYTES) {
			err_set(e, E_LIMIT, "'%s' is larger than %u bytes", path, GRAPH_DOT_MAX_BYTES);
			goto fail;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		err_sys(e, E_IO, "cannot read '%s'", path);
		goto fail;
	}
	fclose(f);
	p[n] = '\0';
	if (strlen(p) != n) {
		err_set(e, E_FORMAT, "'%s' has a NUL byte: not a DOT file", path);
		free(p);
		return NULL;
	}
	return p;
fail:
	fclose(f);
	free(p);
	return NULL;
}

/* A refused addition while reading is a damaged file, except a reached cap. */
static int
as_format(int rc, struct err *e)
{
	if (rc == -E_LIMIT)
		return rc;
	if (e != NULL)
		e->code = -E_FORMAT;
	return -E_FORMAT;
}

struct cluster {
	Agraph_t *sub;
	const char *net;	/* name after the prefix, borrowed from cgraph */
	int idx;		/* index in g->nets, -1 until added */
};

/* The one cluster holding node n: index into cl, -1 none, -2 several. */
static int
cluster_of(struct cluster *cl, int ncl, Agnode_t *n)
{
	int found = -1;

	for (int i = 0; i < ncl; i++) {
		if (agsubnode(cl[i].sub, n, 0) == NULL)
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

static int
add_cluster_net(struct graph *g, struct cluster *c, struct err *e)
{
	struct graph_attr a;
	char *what;
	int rc;

	if (c->idx >= 0)
		return 0;
	what = xasprintf("cluster '" CLUSTER_PREFIX "%s'", c->net);
	rc = parse_attr(what, c->sub, &a, e);
	free(what);
	if (rc < 0)
		return rc;
	rc = graph_add_net(g, c->net, &a, e);
	free(a.note);
	if (rc < 0)
		return as_format(rc, e);
	c->idx = rc;
	return 0;
}

static int
read_nodes(struct graph *g, Agraph_t *G, struct cluster *cl, int ncl, struct err *e)
{
	for (Agnode_t *n = agfstnode(G); n; n = agnxtnode(G, n)) {
		const char *name = agnameof(n);
		const char *kind = get(n, "kind");
		int c = cluster_of(cl, ncl, n), rc;

		if (c == -2)
			return err_set(e, E_FORMAT, "node '%s' is in more than one cluster", name);
		if (c >= 0 && (rc = add_cluster_net(g, &cl[c], e)) < 0)
			return rc;
		if (strcmp(kind, "anchor") == 0) {
			if (c < 0 || strncmp(name, ANCHOR_PREFIX, strlen(ANCHOR_PREFIX)) != 0 ||
			    strcmp(name + strlen(ANCHOR_PREFIX), cl[c].net) != 0)
				return err_set(e, E_FORMAT,
					       "node '%s': attribute 'kind': an anchor must be named '"
					       ANCHOR_PREFIX "<net>' inside 'cluster_<net>'", name);
		} else if (strcmp(kind, "host") == 0) {
			double s, m;
			char *what = xasprintf("node '%s'", name);
			const char *note = get(n, "note");

			if (c < 0)
				rc = err_set(e, E_FORMAT, "node '%s': a host must be inside a cluster_<net> subgraph", name);
			else if ((rc = parse_real(what, "slave_tps", get(n, "slave_tps"), &s, e)) == 0 &&
				 (rc = parse_real(what, "master_tps", get(n, "master_tps"), &m, e)) == 0)
				rc = graph_add_host(g, name, cl[c].idx, s, m, note[0] ? note : NULL, e);
			free(what);
			if (rc < 0)
				return as_format(rc, e);
		} else if (strcmp(kind, "router") == 0) {
			const char *note = get(n, "note");

			if (c >= 0)
				return err_set(e, E_FORMAT, "node '%s': a router must be outside every cluster", name);
			rc = graph_add_router(g, name, note[0] ? note : NULL, e);
			if (rc < 0)
				return as_format(rc, e);
		} else {
			return err_set(e, E_FORMAT,
				       "node '%s': attribute 'kind': '%s' is not host, anchor or router", name, kind);
		}
	}
	return 0;
}

static int
resolve_end(const struct graph *g, Agnode_t *n, struct graph_end *end)
{
	const char *name = agnameof(n);

	if (strcmp(get(n, "kind"), "anchor") == 0) {
		end->kind = GRAPH_END_NET;
		end->idx = graph_find_net(g, name + strlen(ANCHOR_PREFIX));
	} else if (strcmp(get(n, "kind"), "router") == 0) {
		end->kind = GRAPH_END_ROUTER;
		end->idx = graph_find_router(g, name);
	} else {
		return -1;
	}
	return end->idx >= 0 ? 0 : -1;
}

static int
cmp_edge_seq(const void *x, const void *y)
{
	Agedge_t *const *a = x, *const *b = y;
	uint64_t sa = AGSEQ(*a), sb = AGSEQ(*b);

	return sa < sb ? -1 : sa > sb;
}

static int
read_link(struct graph *g, Agedge_t *ed, struct err *e)
{
	const char *ta = agnameof(agtail(ed)), *hb = agnameof(aghead(ed));
	struct graph_end a, b;
	struct graph_attr attr;
	char *what = xasprintf("edge '%s' -- '%s'", ta, hb), *name;
	int rc;

	if (resolve_end(g, agtail(ed), &a) < 0 || resolve_end(g, aghead(ed), &b) < 0) {
		rc = err_set(e, E_FORMAT, "%s: a link must join network anchors or routers", what);
		free(what);
		return rc;
	}
	if ((rc = parse_attr(what, ed, &attr, e)) < 0) {
		free(what);
		return rc;
	}
	name = get(ed, "name")[0] ? xstrdup(get(ed, "name")) :
	       agnameof(ed) && agnameof(ed)[0] ? xstrdup(agnameof(ed)) :
	       xasprintf("%s--%s", graph_end_name(g, a), graph_end_name(g, b));
	rc = graph_add_link(g, name, a, b, &attr, e);
	if (rc < 0 && rc != -E_LIMIT) {
		rc = as_format(rc, e);
		err_prefix(e, "%s", what);
	}
	free(attr.note);
	free(name);
	free(what);
	return rc < 0 ? rc : 0;
}

/* Links in file order (cgraph sequence numbers), members skipped, anything else refused. */
static int
read_edges(struct graph *g, Agraph_t *G, struct err *e)
{
	Agedge_t **eds = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;

	for (Agnode_t *nd = agfstnode(G); nd && rc == 0; nd = agnxtnode(G, nd)) {
		for (Agedge_t *ed = agfstout(G, nd); ed; ed = agnxtout(G, ed)) {
			const char *kind = get(ed, "kind");

			if (strcmp(kind, "member") == 0)
				continue;
			if (strcmp(kind, "link") != 0) {
				rc = err_set(e, E_FORMAT,
					     "edge '%s' -- '%s': attribute 'kind': '%s' is not link or member",
					     agnameof(agtail(ed)), agnameof(aghead(ed)), kind);
				break;
			}
			eds = xgrow(eds, &cap, n + 1, sizeof *eds);
			eds[n++] = ed;
		}
	}
	if (n > 1)
		qsort(eds, n, sizeof *eds, cmp_edge_seq);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = read_link(g, eds[i], e);
	free(eds);
	return rc;
}

int
graph_read_dot(struct graph *g, const char *path, int max_items, struct err *e)
{
	agusererrf old;
	Agraph_t *G;
	struct cluster *cl = NULL;
	size_t cap = 0;
	int ncl = 0, rc = 0;
	char *text;

	graph_init_empty(g, max_items);
	text = slurp(path, e);
	if (text == NULL)
		return e ? e->code : -E_IO;
	old = gv_hook();
	G = agmemread(text);
	free(text);
	if (G == NULL) {
		rc = err_set(e, E_FORMAT, "'%s' is not a DOT graph%s%s", path, gv_msg[0] ? ": " : "", gv_msg);
		goto out;
	}
	if (strcmp(get(G, "contend_topology"), "1") != 0) {
		rc = err_set(e, E_FORMAT, "'%s': graph attribute 'contend_topology' is not '1': not a contend topology",
			     path);
		goto out;
	}
	for (Agraph_t *sub = agfstsubg(G); sub; sub = agnxtsubg(sub)) {
		const char *sname = agnameof(sub);

		if (sname == NULL || strncmp(sname, CLUSTER_PREFIX, strlen(CLUSTER_PREFIX)) != 0)
			continue;
		cl = xgrow(cl, &cap, (size_t)ncl + 1, sizeof *cl);
		cl[ncl++] = (struct cluster){ .sub = sub, .net = sname + strlen(CLUSTER_PREFIX), .idx = -1 };
	}
	if ((rc = read_nodes(g, G, cl, ncl, e)) < 0)
		goto out;
	for (int i = 0; i < ncl; i++)	/* clusters without nodes */
		if ((rc = add_cluster_net(g, &cl[i], e)) < 0)
			goto out;
	rc = read_edges(g, G, e);
out:
	if (rc < 0 && e != NULL && strstr(e->msg, path) == NULL)
		err_prefix(e, "'%s'", path);
	free(cl);
	if (G != NULL)
		agclose(G);
	agseterrf(old);
	return rc;
}

/* ---- TSV ---- */

static void
tsv_num(struct tsv_w *t, double v)
{
	if (isnan(v))
		tsv_w_str(t, NULL);
	else
		tsv_w_f64(t, v);
}

static void
tsv_attr(struct tsv_w *t, const struct graph_attr *a)
{
	tsv_num(t, a->bw_Bps);
	if (a->lat_ns >= 0)
		tsv_w_i64(t, a->lat_ns);
	else
		tsv_w_str(t, NULL);
	if (a->confidence >= 0)
		tsv_w_f64(t, a->confidence);
	else
		tsv_w_str(t, "untested");
	if (isnan(a->bw_Bps) && a->lat_ns < 0)
		tsv_w_str(t, "unknown");
	else
		tsv_w_str(t, a->confidence >= 0 ? "tested" : "untested");
	tsv_w_str(t, a->note);
}

int
graph_write_tsv(const struct graph *g, const char *path, struct err *e)
{
	static const char *const cols[] = { "kind", "a", "b", "bw_Bps", "lat_ns", "confidence",
					    "status", "note", "name", "cap_tps", NULL };
	struct tsv_w t;
	int rc;

	if ((rc = tsv_w_open(&t, path, "topology", 1, cols, false, true, e)) < 0)
		return rc;
	for (int i = 0; rc == 0 && i < g->nnet; i++) {
		tsv_w_str(&t, "net");
		tsv_w_str(&t, g->nets[i].name);
		tsv_w_str(&t, NULL);
		tsv_attr(&t, &g->nets[i].attr);
		tsv_w_str(&t, g->nets[i].name);
		tsv_num(&t, g->nets[i].attr.cap_tps);
		rc = tsv_w_end(&t, e);
	}
	for (int i = 0; rc == 0 && i < g->nhost; i++) {
		const struct graph_host *h = &g->hosts[i];

		tsv_w_str(&t, "member");
		tsv_w_str(&t, h->name);
		tsv_w_str(&t, g->nets[h->net].name);
		for (int k = 0; k < 4; k++)
			tsv_w_str(&t, NULL);
		tsv_w_str(&t, h->note);
		tsv_w_str(&t, h->name);
		tsv_w_str(&t, NULL);
		rc = tsv_w_end(&t, e);
	}
	for (int i = 0; rc == 0 && i < g->nlink; i++) {
		const struct graph_link *k = &g->links[i];

		tsv_w_str(&t, "link");
		tsv_w_str(&t, graph_end_name(g, k->a));
		tsv_w_str(&t, graph_end_name(g, k->b));
		tsv_attr(&t, &k->attr);
		tsv_w_str(&t, k->name);
		tsv_num(&t, k->attr.cap_tps);
		rc = tsv_w_end(&t, e);
	}
	if (rc < 0) {
		tsv_w_close(&t, NULL);
		return rc;
	}
	return tsv_w_close(&t, e);
}

/* ---- comparison ---- */

static bool
num_eq(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

static bool
str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool
attr_eq(const struct graph_attr *a, const struct graph_attr *b)
{
	return num_eq(a->bw_Bps, b->bw_Bps) && num_eq(a->cap_tps, b->cap_tps) &&
	       a->lat_ns == b->lat_ns && (a->confidence < 0) == (b->confidence < 0) &&
	       (a->confidence < 0 || num_eq(a->confidence, b->confidence)) && str_eq(a->note, b->note);
}

#define DIFFER(...) do { if (why) snprintf(why, why_len, __VA_ARGS__); return false; } while (0)

static bool
end_eq(const struct graph *a, struct graph_end x, const struct graph *b, struct graph_end y)
{
	return x.kind == y.kind && strcmp(graph_end_name(a, x), graph_end_name(b, y)) == 0;
}

bool
graph_equal(const struct graph *a, const struct graph *b, char *why, size_t why_len)
{
	if (a->nnet != b->nnet || a->nhost != b->nhost || a->nrouter != b->nrouter ||
	    a->nlink != b->nlink)
		DIFFER("counts differ: %d/%d/%d/%d networks/hosts/routers/links vs %d/%d/%d/%d",
		       a->nnet, a->nhost, a->nrouter, a->nlink, b->nnet, b->nhost, b->nrouter, b->nlink);
	for (int i = 0; i < a->nnet; i++) {
		int j = graph_find_net(b, a->nets[i].name);

		if (j < 0 || !attr_eq(&a->nets[i].attr, &b->nets[j].attr))
			DIFFER("network '%s' differs", a->nets[i].name);
	}
	for (int i = 0; i < a->nhost; i++) {
		const struct graph_host *x = &a->hosts[i], *y;
		int j = graph_find_host(b, x->name);

		if (j < 0)
			DIFFER("host '%s' is missing", x->name);
		y = &b->hosts[j];
		if (strcmp(a->nets[x->net].name, b->nets[y->net].name) != 0 ||
		    !num_eq(x->slave_tps, y->slave_tps) || !num_eq(x->master_tps, y->master_tps) ||
		    !str_eq(x->note, y->note))
			DIFFER("host '%s' differs", x->name);
	}
	for (int i = 0; i < a->nrouter; i++) {
		int j = graph_find_router(b, a->routers[i].name);

		if (j < 0 || !str_eq(a->routers[i].note, b->routers[j].note))
			DIFFER("router '%s' differs", a->routers[i].name);
	}
	for (int i = 0; i < a->nlink; i++) {
		const struct graph_link *x = &a->links[i], *y;
		int j = graph_find_link(b, x->name);

		if (j < 0)
			DIFFER("link '%s' is missing", x->name);
		y = &b->links[j];
		if (!((end_eq(a, x->a, b, y->a) && end_eq(a, x->b, b, y->b)) ||
		      (end_eq(a, x->a, b, y->b) && end_eq(a, x->b, b, y->a))) ||
		    !attr_eq(&x->attr, &y->attr))
			DIFFER("link '%s' differs", x->name);
	}
	return true;
}
