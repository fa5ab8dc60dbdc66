/* scenario: what-if scenario files, parsed with inih (the only module that uses it). */
#include "predict/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

#define SCEN_MAX_FILE (1u << 20)	/* bytes in a scenario file */
#define SCEN_MAX_LINE 190		/* bytes in a line: inih's line buffer is 200 */

enum sect_kind { SECT_NONE, SECT_SCENARIO, SECT_NODE, SECT_LINK, SECT_POLICY, SECT_SELECT };

/* Parser state shared by the line reader and the inih handler. */
struct pctx {
	struct scen *s;
	const char *name;	/* the file, for messages */
	const char *text;	/* whole file, NUL-terminated */
	size_t pos;		/* next byte of text the reader hands to inih */
	int line;		/* line the reader handed out last (1-based) */
	int failed;		/* first error recorded */
	struct err *e;
	char cur[256];		/* current section name as inih gives it */
	enum sect_kind kind;
	int idx;		/* index in nodes/links for SECT_NODE/SECT_LINK */
	unsigned long long seen[4];	/* keys already set in the current section (bit per key) */
	int hdr_line;		/* line of the last '[section]' the reader handed out */
	bool in_hdr;		/* errors now are about the section header */
	bool new_hdr;		/* the reader passed a '[section]' line since the last key */
	int ncap, lcap;		/* allocated nodes, links */
};

/* ---- value parsers ---- */

/* A non-negative decimal number at v; *end after it. No sign, hex, inf or nan. */
static int
num(const char *v, double *out, const char **end)
{
	char *ep;
	double d;

	if (!(isdigit((unsigned char)v[0]) || (v[0] == '.' && isdigit((unsigned char)v[1]))))
		return -1;
	errno = 0;
	d = strtod(v, &ep);
	if (errno || ep == v || !isfinite(d) || d < 0)
		return -1;
	for (const char *p = v; p < ep; p++)
		if (!(isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
			return -1;
	while (*ep == ' ' || *ep == '\t')
		ep++;
	*out = d;
	*end = ep;
	return 0;
}

struct unit {
	const char *name;
	double mult;
};

/* Number followed by one of the units (exact match), or by nothing when bare_ok. */
static int
num_unit(const char *v, const struct unit *u, double bare_mult, double *out, const char *what,
	 const char *units, struct err *e)
{
	double d;
	const char *rest;

	if (num(v, &d, &rest) < 0)
		return err_set(e, E_FORMAT, "'%s' is not %s (a number and a unit: %s)", v, what, units);
	if (*rest == '\0') {
		if (bare_mult > 0) {
			*out = d * bare_mult;
			return 0;
		}
		return err_set(e, E_FORMAT, "'%s' has no unit (write it out: %s)", v, units);
	}
	for (; u->name != NULL; u++)
		if (strcmp(rest, u->name) == 0) {
			*out = d * u->mult;
			if (!isfinite(*out))
				return err_set(e, E_FORMAT, "'%s' is too large", v);
			return 0;
		}
	return err_set(e, E_FORMAT, "unknown unit '%s' in '%s' (use %s)", rest, v, units);
}

int
scen_parse_duration_ns(const char *v, int64_t *out, struct err *e)
{
	static const struct unit u[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 }, { NULL, 0 },
	};
	double d;
	int rc = num_unit(v, u, 0, &d, "a duration", "ns, us, ms, s, min", e);

	if (rc < 0)
		return rc;
	if (d > 9e18)
		return err_set(e, E_FORMAT, "'%s' is too long", v);
	*out = (int64_t)llround(d);
	return 0;
}

int
scen_parse_bw_Bps(const char *v, double *out, struct err *e)
{
	static const struct unit u[] = {
		{ "bit/s", 1.0 / 8 }, { "kbit/s", 1e3 / 8 }, { "Mbit/s", 1e6 / 8 }, { "Gbit/s", 1e9 / 8 },
		{ "B/s", 1 }, { "kB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 },
		{ "KiB/s", 1024.0 }, { "MiB/s", 1048576.0 }, { "GiB/s", 1073741824.0 },
		{ "Mword/s", 8e6 }, { NULL, 0 },
	};

	return num_unit(v, u, 0, out, "a bandwidth",
			"bit/s, kbit/s, Mbit/s, Gbit/s, B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, Mword/s", e);
}

int
scen_parse_bytes(const char *v, int64_t *out, struct err *e)
{
	static const struct unit u[] = {
		{ "B", 1 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 }, { "word", 8 },
		{ "words", 8 }, { NULL, 0 },
	};
	double d;
	int rc = num_unit(v, u, 0, &d, "a size", "B, kB, MB, GB, KiB, MiB, GiB, words", e);

	if (rc < 0)
		return rc;
	if (d > 9e18)
		return err_set(e, E_FORMAT, "'%s' is too large", v);
	*out = (int64_t)llround(d);
	return 0;
}

int
scen_parse_rate_per_s(const char *v, double *out, struct err *e)
{
	static const struct unit u[] = {
		{ "/s", 1 }, { "/min", 1.0 / 60 }, { "/h", 1.0 / 3600 }, { NULL, 0 },
	};

	return num_unit(v, u, 0, out, "a rate", "/s, /min, /h", e);
}

int
scen_parse_fraction(const char *v, double *out, struct err *e)
{
	double d;
	const char *rest;

	if (num(v, &d, &rest) < 0)
		return err_set(e, E_FORMAT, "'%s' is not a fraction (write 0.45 or 45%%)", v);
	if (strcmp(rest, "%") == 0) {
		if (d > 100)
			return err_set(e, E_FORMAT, "'%s' is more than 100%%", v);
		*out = d / 100;
		return 0;
	}
	if (*rest != '\0')
		return err_set(e, E_FORMAT, "'%s' is not a fraction (write 0.45 or 45%%)", v);
	if (d > 1)
		return err_set(e, E_FORMAT, "'%s' is more than 1 (write a percentage as 45%%)", v);
	*out = d;
	return 0;
}

static int
parse_real(const char *v, double min, double max, bool min_open, double *out, struct err *e)
{
	double d;
	const char *rest;

	if (num(v, &d, &rest) < 0 || *rest != '\0')
		return err_set(e, E_FORMAT, "'%s' is not a number", v);
	if (d < min || d > max || (min_open && d == min))
		return err_set(e, E_FORMAT, "%g is outside %c%g, %g]", d, min_open ? '(' : '[', min, max);
	*out = d;
	return 0;
}

static int
parse_count(const char *v, int max, int *out, struct err *e)
{
	double d;

	if (parse_real(v, 0, max, false, &d, e) < 0)
		return -E_FORMAT;
	if (d != floor(d))
		return err_set(e, E_FORMAT, "'%s' is not a whole number", v);
	*out = (int)d;
	return 0;
}

/* Split a comma list into at most max trimmed items in buf (modified). */
static int
split_list(char *buf, char **items, int max)
{
	int n = 0;
	char *p = buf;

	for (;;) {
		char *c = strchr(p, ',');
		char *end;

		if (c != NULL)
			*c = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strlen(p);
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (n == max)
			return -1;
		items[n++] = p;
		if (c == NULL)
			break;
		p = c + 1;
	}
	return n;
}

/* ---- sections ---- */

static void
node_init(struct scen_node *n)
{
	memset(n, 0, sizeof *n);
	n->rank = -1;
	n->cpu_procs = -1;
	n->load_avg = NAN;
	n->comm_bw_Bps = NAN;
	n->capacity = NAN;
	n->weight = NAN;
	n->serial_ns = -1;
	n->work_frac = NAN;
	n->lambda_per_s = NAN;
	n->service_mean_ns = -1;
	n->service_pa = NAN;
	n->service_a_ns = -1;
	n->service_b_ns = -1;
	n->speed = NAN;
	n->cost = NAN;
	for (int i = 0; i < SCEN_MAX_COMM; i++) {
		n->comm[i].comm_frac = NAN;
		n->comm[i].comp_frac = NAN;
		n->comm[i].burst_msgs = -1;
		n->comm[i].burst_bytes = -1;
	}
}

static bool
valid_host(const char *h)
{
	size_t n = strlen(h);

	if (n == 0 || n >= SCEN_MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)h[i]) || h[i] == '-' || h[i] == '.' || h[i] == '_'))
			return false;
	return true;
}

/* Error at the current line, naming the key when there is one. */
PRINTF(3, 4) static int
perr(struct pctx *c, const char *key, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	if (c->failed)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (key != NULL)
		err_set(c->e, E_FORMAT, "'%s' line %d: key '%s' in [%s]: %s", c->name, c->line, key, c->cur, msg);
	else
		err_set(c->e, E_FORMAT, "'%s' line %d: %s", c->name, c->in_hdr ? c->hdr_line : c->line, msg);
	c->failed = 1;
	return 0;
}

/* Enter the section named sect (as written between the brackets). */
static int
enter_section(struct pctx *c, const char *sect)
{
	char a[256], b[256];
	struct scen *s = c->s;

	snprintf(c->cur, sizeof c->cur, "%s", sect);
	memset(c->seen, 0, sizeof c->seen);
	c->idx = -1;
	if (strcmp(sect, "scenario") == 0) {
		c->kind = SECT_SCENARIO;
		return 1;
	}
	if (strcmp(sect, "policy") == 0) {
		c->kind = SECT_POLICY;
		return 1;
	}
	if (strcmp(sect, "select") == 0) {
		c->kind = SECT_SELECT;
		return 1;
	}
	if (strncmp(sect, "node ", 5) == 0 || strncmp(sect, "rank ", 5) == 0) {
		struct scen_node *n;
		bool is_rank = sect[0] == 'r';
		const char *arg = sect + 5;

		while (*arg == ' ')
			arg++;
		if (s->nnodes == SCEN_MAX_NODES)
			return perr(c, NULL, "more than %d node sections", SCEN_MAX_NODES);
		if (s->nnodes == c->ncap) {
			size_t cap = (size_t)c->ncap;

			s->nodes = xgrow(s->nodes, &cap, (size_t)s->nnodes + 1, sizeof *s->nodes);
			c->ncap = (int)cap;
		}
		n = &s->nodes[s->nnodes];
		node_init(n);
		n->line = c->hdr_line;
		if (is_rank) {
			int r;
			struct err e2;

			if (parse_count(arg, 1 << 20, &r, &e2) < 0)
				return perr(c, NULL, "section [%s]: '%s' is not a rank number", sect, arg);
			n->rank = r;
		} else {
			if (!valid_host(arg))
				return perr(c, NULL, "section [%s]: '%s' is not a host name", sect, arg);
			memcpy(n->host, arg, strlen(arg) + 1);	/* valid_host: fits */
		}
		for (int i = 0; i < s->nnodes; i++)
			if (s->nodes[i].rank == n->rank && strcmp(s->nodes[i].host, n->host) == 0)
				return perr(c, NULL, "section [%s] appears twice (first at line %d)", sect,
					    s->nodes[i].line);
		c->idx = s->nnodes++;
		c->kind = SECT_NODE;
		return 1;
	}
	if (strncmp(sect, "link ", 5) == 0) {
		struct scen_link *l;
		const char *arg = sect + 5;
		const char *sp, *dash;

		while (*arg == ' ')
			arg++;
		sp = strchr(arg, ' ');
		dash = strchr(arg, '-');
		if (sp != NULL) {		/* [link A B] */
			const char *q = sp;

			while (*q == ' ')
				q++;
			snprintf(a, sizeof a, "%.*s", (int)(sp - arg), arg);
			snprintf(b, sizeof b, "%s", q);
		} else if (dash != NULL && strchr(dash + 1, '-') == NULL) {	/* [link A-B] */
			snprintf(a, sizeof a, "%.*s", (int)(dash - arg), arg);
			snprintf(b, sizeof b, "%s", dash + 1);
		} else {
			return perr(c, NULL, "section [%s]: write a link as [link HOST1-HOST2], or "
				    "[link HOST1 HOST2] when a name has a '-'", sect);
		}
		if (!valid_host(a) || !valid_host(b) || strchr(b, ' ') != NULL)
			return perr(c, NULL, "section [%s]: '%s' and '%s' are not two host names", sect, a, b);
		if (strcmp(a, b) == 0)
			return perr(c, NULL, "section [%s]: a link joins two different hosts", sect);
		if (s->nlinks == SCEN_MAX_LINKS)
			return perr(c, NULL, "more than %d link sections", SCEN_MAX_LINKS);
		for (int i = 0; i < s->nlinks; i++) {
			struct scen_link *o = &s->links[i];

			if ((strcmp(o->a, a) == 0 && strcmp(o->b, b) == 0) ||
			    (strcmp(o->a, b) == 0 && strcmp(o->b, a) == 0))
				return perr(c, NULL, "section [%s] names the same link as line %d", sect, o->line);
		}
		if (s->nlinks == c->lcap) {
			size_t cap = (size_t)c->lcap;

			s->links = xgrow(s->links, &cap, (size_t)s->nlinks + 1, sizeof *s->links);
			c->lcap = (int)cap;
		}
		l = &s->links[s->nlinks];
		memset(l, 0, sizeof *l);
		memcpy(l->a, a, strlen(a) + 1);	/* valid_host: shorter than SCEN_MAX_NAME */
		memcpy(l->b, b, strlen(b) + 1);
		l->line = c->hdr_line;
		l->bw_Bps = NAN;
		l->lat_ns = -1;
		l->competing_flows = -1;
		l->burst_bytes = -1;
		l->competing_Bps = NAN;
		l->mss_bytes = -1;
		l->overhead_bytes = -1;
		l->payload_share = 1;
		l->line_Bps = NAN;
		c->idx = s->nlinks++;
		c->kind = SECT_LINK;
		return 1;
	}
	return perr(c, NULL, "unknown section [%s] (use [scenario], [node HOST], [rank R], "
		    "[link HOST1-HOST2], [policy] or [select])", sect);
}

/* Mark key number k of the current section as set; 0 if it was already. */
static int
once(struct pctx *c, int k)
{
	unsigned long long bit = 1ull << (k % 64);

	if (c->seen[k / 64] & bit)
		return 0;
	c->seen[k / 64] |= bit;
	return 1;
}

/* Look a key up in a NULL-terminated table; its index or -1. */
static int
key_index(const char *const *keys, const char *name)
{
	for (int i = 0; keys[i] != NULL; i++)
		if (strcmp(keys[i], name) == 0)
			return i;
	return -1;
}

static const char *const scenario_keys[] = {
	"description", "partitioning", "delay_comm", "comm_busy_fraction", "measured_time",
	"measured_run", NULL,
};
static const char *const node_keys[] = {
	"cpu_procs", "load_average", "comm_procs", "comm_fraction", "compute_fraction", "burst",
	"comm_bandwidth", "capacity", "weight", "serial_time", "work_fraction", "lambda",
	"service_mean", "service_p", "service_mean_a", "service_mean_b", "speed", "cost", NULL,
};
static const char *const link_keys[] = {
	"bandwidth", "latency", "competing_flows", "competing_traffic", "burst", "mss", "frame_overhead",
	NULL,
};
static const char *const policy_keys[] = { "x", "deadline", "budget", "max_procs", NULL };
static const char *const select_keys[] = { "candidates", "master", NULL };

/* Node keys that take comma lists for the communicating competitors. */
static int
node_comm_list(struct pctx *c, struct scen_node *n, const char *key, const char *value, int which)
{
	char buf[256];
	char *items[SCEN_MAX_COMM + 1];
	int k;
	struct err e2;

	snprintf(buf, sizeof buf, "%s", value);
	k = split_list(buf, items, SCEN_MAX_COMM);
	if (k < 0)
		return perr(c, key, "more than %d communicating competitors", SCEN_MAX_COMM);
	for (int i = 0; i < k; i++) {
		struct scen_comm *m = &n->comm[i];

		if (which == 0 || which == 1) {
			double f;

			if (scen_parse_fraction(items[i], &f, &e2) < 0)
				return perr(c, key, "%s", e2.msg);
			if (which == 0)
				m->comm_frac = f;
			else
				m->comp_frac = f;
		} else {	/* burst: "1000 x 2000 B" */
			char *x = strstr(items[i], " x ");
			double d;
			const char *rest;

			if (x == NULL)
				return perr(c, key, "'%s' is not a burst (write MESSAGES x SIZE, e.g. "
					    "'1000 x 2000 words')", items[i]);
			*x = '\0';
			if (num(items[i], &d, &rest) < 0 || *rest != '\0' || d != floor(d) || d < 1 || d > 1e12)
				return perr(c, key, "'%s' is not a message count", items[i]);
			m->burst_msgs = (int64_t)d;
			if (scen_parse_bytes(x + 3, &m->burst_bytes, &e2) < 0)
				return perr(c, key, "%s", e2.msg);
		}
	}
	return k;
}

static int
set_node(struct pctx *c, const char *key, const char *v)
{
	struct scen_node *n = &c->s->nodes[c->idx];
	int k = key_index(node_keys, key);
	struct err e2;
	int rc = 0;

	if (k < 0)
		return perr(c, key, "unknown key (known: cpu_procs, load_average, comm_procs, "
			    "comm_fraction, compute_fraction, burst, comm_bandwidth, capacity, weight, "
			    "serial_time, work_fraction, lambda, service_mean, service_p, service_mean_a, "
			    "service_mean_b, speed, cost)");
	if (!once(c, k))
		return perr(c, key, "set twice in one section");
	switch (k) {
	case 0: rc = parse_count(v, 1000, &n->cpu_procs, &e2); break;
	case 1: rc = parse_real(v, 0, 1000, false, &n->load_avg, &e2); break;
	case 2: {
		int cnt;

		rc = parse_count(v, SCEN_MAX_COMM, &cnt, &e2);
		if (rc == 0)
			n->ncomm = -cnt - 1;	/* "given explicitly"; validate decodes it */
		break;
	}
	case 3: case 4: case 5: {
		int got = node_comm_list(c, n, key, v, k - 3);

		if (c->failed)
			return 0;
		n->nlist[k - 3] = got;
		return 1;
	}
	case 6: rc = scen_parse_bw_Bps(v, &n->comm_bw_Bps, &e2); break;
	case 7:
		rc = scen_parse_fraction(v, &n->capacity, &e2);
		if (rc == 0 && n->capacity <= 0)
			return perr(c, key, "a node needs some CPU capacity (more than 0)");
		break;
	case 8: rc = parse_real(v, 0, 1e9, true, &n->weight, &e2); break;
	case 9: rc = scen_parse_duration_ns(v, &n->serial_ns, &e2);
		if (rc == 0 && n->serial_ns <= 0)
			return perr(c, key, "a benchmark time must be more than 0");
		break;
	case 10: rc = scen_parse_fraction(v, &n->work_frac, &e2); break;
	case 11: rc = scen_parse_rate_per_s(v, &n->lambda_per_s, &e2); break;
	case 12: rc = scen_parse_duration_ns(v, &n->service_mean_ns, &e2); break;
	case 13: rc = scen_parse_fraction(v, &n->service_pa, &e2); break;
	case 14: rc = scen_parse_duration_ns(v, &n->service_a_ns, &e2); break;
	case 15: rc = scen_parse_duration_ns(v, &n->service_b_ns, &e2); break;
	case 16: rc = parse_real(v, 0, 1e9, true, &n->speed, &e2); break;
	case 17: rc = parse_real(v, 0, 1e18, false, &n->cost, &e2); break;
	default: BUG("node key %d", k);
	}
	if (rc < 0)
		return perr(c, key, "%s", e2.msg);
	return 1;
}

static int
set_link(struct pctx *c, const char *key, const char *v)
{
	struct scen_link *l = &c->s->links[c->idx];
	int k = key_index(link_keys, key);
	struct err e2;
	int rc = 0;

	if (k < 0)
		return perr(c, key, "unknown key (known: bandwidth, latency, competing_flows, competing_traffic, "
			    "burst, mss, frame_overhead)");
	if (!once(c, k))
		return perr(c, key, "set twice in one section");
	switch (k) {
	case 0:
		rc = scen_parse_bw_Bps(v, &l->bw_Bps, &e2);
		if (rc == 0 && l->bw_Bps <= 0)
			return perr(c, key, "a bandwidth must be more than 0");
		break;
	case 1: rc = scen_parse_duration_ns(v, &l->lat_ns, &e2); break;
	case 2: rc = parse_count(v, 100000, &l->competing_flows, &e2); break;
	case 3: rc = scen_parse_bw_Bps(v, &l->competing_Bps, &e2); break;
	case 4: rc = scen_parse_bytes(v, &l->burst_bytes, &e2); break;
	case 5:
		rc = scen_parse_bytes(v, &l->mss_bytes, &e2);
		if (rc == 0 && l->mss_bytes <= 0)
			return perr(c, key, "a segment's payload must be more than 0 bytes");
		break;
	case 6: rc = scen_parse_bytes(v, &l->overhead_bytes, &e2); break;
	default: BUG("link key %d", k);
	}
	if (rc < 0)
		return perr(c, key, "%s", e2.msg);
	return 1;
}

static int
set_scenario(struct pctx *c, const char *key, const char *v)
{
	struct scen *s = c->s;
	int k = key_index(scenario_keys, key);
	struct err e2;
	int rc = 0;

	if (k < 0)
		return perr(c, key, "unknown key (known: description, partitioning, delay_comm, "
			    "comm_busy_fraction, measured_time, measured_run)");
	if (!once(c, k))
		return perr(c, key, "set twice in one section");
	switch (k) {
	case 0: s->description = xstrdup(v); break;
	case 1:
		if (strcmp(v, "load-dependent") == 0)
			s->part = SCEN_PART_LOAD;
		else if (strcmp(v, "constraint-based") == 0)
			s->part = SCEN_PART_CONSTRAINT;
		else if (strcmp(v, "uniform") == 0)
			s->part = SCEN_PART_UNIFORM;
		else
			return perr(c, key, "'%s' is not a policy (use load-dependent, constraint-based "
				    "or uniform)", v);
		break;
	case 2:
		if (strcmp(v, "alphafarm") == 0) {
			s->delay = SCEN_DELAY_ALPHAFARM;
		} else if (strcmp(v, "nondedicated") == 0) {
			s->delay = SCEN_DELAY_NONDEDICATED;
		} else if (strncmp(v, "constant ", 9) == 0) {
			s->delay = SCEN_DELAY_CONSTANT;
			rc = parse_real(v + 9, 0, 1000, false, &s->delay_const, &e2);
		} else if (strncmp(v, "file ", 5) == 0 && v[5] != '\0') {
			s->delay = SCEN_DELAY_FILE;
			s->delay_file = xstrdup(v + 5);
		} else {
			return perr(c, key, "'%s' is not a delay_comm source (use alphafarm, nondedicated, "
				    "constant X or file PATH)", v);
		}
		break;
	case 3:
		if (strcmp(v, "measured") == 0)
			s->comm_busy_frac = NAN;
		else
			rc = scen_parse_fraction(v, &s->comm_busy_frac, &e2);
		break;
	case 4: rc = scen_parse_duration_ns(v, &s->measured_ns, &e2); break;
	case 5: s->measured_run = xstrdup(v); break;
	default: BUG("scenario key %d", k);
	}
	if (rc < 0)
		return perr(c, key, "%s", e2.msg);
	return 1;
}

static int
set_policy(struct pctx *c, const char *key, const char *v)
{
	struct scen *s = c->s;
	int k = key_index(policy_keys, key);
	struct err e2;
	int rc = 0;

	if (k < 0)
		return perr(c, key, "unknown key (known: x, deadline, budget, max_procs)");
	if (!once(c, k))
		return perr(c, key, "set twice in one section");
	switch (k) {
	case 0: rc = parse_real(v, 0, 1e18, false, &s->x, &e2); break;
	case 1: rc = scen_parse_duration_ns(v, &s->deadline_ns, &e2); break;
	case 2: rc = parse_real(v, 0, 1e18, false, &s->budget, &e2); break;
	case 3: rc = parse_count(v, 1 << 20, &s->max_procs, &e2); break;
	default: BUG("policy key %d", k);
	}
	if (rc < 0)
		return perr(c, key, "%s", e2.msg);
	return 1;
}

static int
set_select(struct pctx *c, const char *key, const char *v)
{
	struct scen *s = c->s;
	int k = key_index(select_keys, key);

	if (k < 0)
		return perr(c, key, "unknown key (known: candidates, master)");
	if (!once(c, k))
		return perr(c, key, "set twice in one section");
	if (k == 0) {
		char buf[256];
		char *items[SCEN_MAX_CAND];
		int n;

		snprintf(buf, sizeof buf, "%s", v);
		n = split_list(buf, items, SCEN_MAX_CAND);
		if (n < 0)
			return perr(c, key, "more than %d candidates", SCEN_MAX_CAND);
		for (int i = 0; i < n; i++) {
			if (!valid_host(items[i]))
				return perr(c, key, "'%s' is not a host name", items[i]);
			for (int j = 0; j < s->ncand; j++)
				if (strcmp(s->cand[j], items[i]) == 0)
					return perr(c, key, "'%s' is listed twice", items[i]);
			s->cand[s->ncand++] = xstrdup(items[i]);
		}
	} else {
		if (!valid_host(v))
			return perr(c, key, "'%s' is not a host name", v);
		s->master = xstrdup(v);
	}
	return 1;
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct pctx *c = user;

	if (c->failed)
		return 1;	/* keep inih quiet; the first error is already recorded */
	if (c->new_hdr || strcmp(section, c->cur) != 0 || c->kind == SECT_NONE) {
		c->new_hdr = false;
		if (section[0] == '\0')
			return perr(c, name, "keys must be inside a section such as [scenario]");
		c->in_hdr = true;
		enter_section(c, section);
		c->in_hdr = false;
		if (c->failed)
			return 0;
	}
	if (value == NULL || value[0] == '\0')
		return perr(c, name, "has no value");
	switch (c->kind) {
	case SECT_SCENARIO: return set_scenario(c, name, value) && !c->failed;
	case SECT_NODE: return set_node(c, name, value) && !c->failed;
	case SECT_LINK: return set_link(c, name, value) && !c->failed;
	case SECT_POLICY: return set_policy(c, name, value) && !c->failed;
	case SECT_SELECT: return set_select(c, name, value) && !c->failed;
	case SECT_NONE: break;
	}
	BUG("section kind %d", (int)c->kind);
}

/* fgets-style reader over the text, counting lines so messages can name them. */
static char *
reader(char *str, int num_bytes, void *stream)
{
	struct pctx *c = stream;
	const char *p = c->text + c->pos;
	const char *nl;
	size_t len;

	if (*p == '\0')
		return NULL;
	nl = strchr(p, '\n');
	len = nl ? (size_t)(nl - p) + 1 : strlen(p);
	c->line++;
	if (len > SCEN_MAX_LINE || (int)len >= num_bytes) {
		if (!c->failed) {
			err_set(c->e, E_FORMAT, "'%s' line %d: line longer than %d bytes", c->name, c->line,
				SCEN_MAX_LINE);
			c->failed = 1;
		}
		str[0] = '\n';	/* hand inih an empty line instead */
		str[1] = '\0';
		c->pos += len;
		return str;
	}
	memcpy(str, p, len);
	str[len] = '\0';
	c->pos += len;
	{
		const char *q = str;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '[') {
			c->hdr_line = c->line;
			c->new_hdr = true;
		}
	}
	return str;
}

/* Cross-key checks once the whole file is read. */
/* Rates and the bucket of l in bytes of TCP payload (struct scen_link): every full segment
 * of mss bytes takes mss + overhead on the wire. */
/* l's segment payload and frame overhead, the defaults where the file gives none. */
static void
link_frame(const struct scen_link *l, double *mss, double *over)
{
	*mss = l->mss_bytes > 0 ? (double)l->mss_bytes : SCEN_MSS;
	*over = l->overhead_bytes >= 0 ? (double)l->overhead_bytes : SCEN_FRAME_OVERHEAD;
}

static void
link_payload(struct scen_link *l)
{
	double mss, over;

	link_frame(l, &mss, &over);
	l->payload_share = mss / (mss + over);
	l->line_Bps = l->bw_Bps;
	l->bw_Bps *= l->payload_share;
	l->competing_Bps *= l->payload_share;
	if (l->burst_bytes > 0)
		l->burst_bytes = (int64_t)llround((double)l->burst_bytes * l->payload_share);
}

double
scen_link_wire_bytes(const struct scen_link *l, double wire)
{
	double mss, over;

	link_frame(l, &mss, &over);
	return (wire + fmax(1, ceil(wire / mss)) * over) * mss / (mss + over);
}

static int
validate(struct scen *s, struct err *e)
{
	for (int i = 0; i < s->nnodes; i++) {
		struct scen_node *n = &s->nodes[i];
		char where[200];
		int given = n->ncomm < 0 ? -n->ncomm - 1 : -1;	/* comm_procs, if set */
		static const char *const lname[3] = { "comm_fraction", "compute_fraction", "burst" };

		if (n->rank >= 0)
			snprintf(where, sizeof where, "'%s' line %d: [rank %d]", s->path, n->line, n->rank);
		else
			snprintf(where, sizeof where, "'%s' line %d: [node %s]", s->path, n->line, n->host);
		if (given < 0)	/* no comm_procs: the comm_fraction list says how many */
			given = n->nlist[0];
		for (int l = 0; l < 3; l++)
			if (n->nlist[l] > 1 && n->nlist[l] != given)
				return err_set(e, E_FORMAT, "%s: %s lists %d competitors, comm_procs says %d "
					       "(give one value for all, or one per competitor)", where,
					       lname[l], n->nlist[l], given);
		n->ncomm = given;
		if (given > 0 && n->nlist[0] == 0)
			return err_set(e, E_FORMAT, "%s: comm_procs needs comm_fraction", where);
		if (given == 0 && (n->nlist[1] > 0 || n->nlist[2] > 0 || !isnan(n->comm_bw_Bps)))
			return err_set(e, E_FORMAT, "%s: compute_fraction, burst and comm_bandwidth describe "
				       "communicating competitors, but there are none (set comm_procs "
				       "or comm_fraction)", where);
		for (int j = 0; j < given; j++) {
			struct scen_comm *m = &n->comm[j];
			const struct scen_comm *first = &n->comm[0];

			/* a single value applies to every competitor */
			if (n->nlist[0] == 1)
				m->comm_frac = first->comm_frac;
			if (n->nlist[1] == 1)
				m->comp_frac = first->comp_frac;
			else if (n->nlist[1] == 0)
				m->comp_frac = 1 - m->comm_frac;
			if (n->nlist[2] == 1) {
				m->burst_msgs = first->burst_msgs;
				m->burst_bytes = first->burst_bytes;
			}
			if (m->comm_frac + m->comp_frac > 1 + 1e-9)
				return err_set(e, E_FORMAT, "%s: competitor %d computes %g and communicates %g "
					       "of its time, more than all of it", where, j + 1, m->comp_frac,
					       m->comm_frac);
		}
		if (n->cpu_procs >= 0 && !isnan(n->load_avg))
			return err_set(e, E_FORMAT, "%s: give cpu_procs or load_average, not both", where);
		if (!isnan(n->weight) && n->serial_ns >= 0)
			return err_set(e, E_FORMAT, "%s: give weight or serial_time, not both", where);
		if (given > 0 && isnan(n->comm_bw_Bps) && s->delay == SCEN_DELAY_ALPHAFARM)
			return err_set(e, E_FORMAT, "%s: communicating competitors with the alphafarm "
				       "delay_comm curves need comm_bandwidth", where);
		if (n->service_mean_ns >= 0 && (!isnan(n->service_pa) || n->service_a_ns >= 0 || n->service_b_ns >= 0))
			return err_set(e, E_FORMAT, "%s: give service_mean (exponential) or service_p, "
				       "service_mean_a and service_mean_b (hyperexponential), not both", where);
		if ((!isnan(n->service_pa) || n->service_a_ns >= 0 || n->service_b_ns >= 0) &&
		    (isnan(n->service_pa) || n->service_a_ns <= 0 || n->service_b_ns <= 0))
			return err_set(e, E_FORMAT, "%s: a hyperexponential service needs service_p, "
				       "service_mean_a and service_mean_b (more than 0)", where);
		if (!isnan(n->lambda_per_s) && n->service_mean_ns < 0 && isnan(n->service_pa))
			return err_set(e, E_FORMAT, "%s: lambda needs a service time (service_mean, or "
				       "service_p with service_mean_a and service_mean_b)", where);
		if (n->service_mean_ns == 0)
			return err_set(e, E_FORMAT, "%s: service_mean must be more than 0", where);
	}
	for (int i = 0; i < s->nlinks; i++) {
		struct scen_link *l = &s->links[i];

		if (!isnan(l->competing_Bps) && !isnan(l->bw_Bps) && l->competing_Bps >= l->bw_Bps)
			return err_set(e, E_FORMAT, "'%s' line %d: [link %s-%s]: competing traffic leaves "
				       "no bandwidth", s->path, l->line, l->a, l->b);
		if (isnan(l->bw_Bps) && l->lat_ns < 0 && l->competing_flows < 0 && isnan(l->competing_Bps))
			return err_set(e, E_FORMAT, "'%s' line %d: [link %s-%s] changes nothing (set bandwidth, "
				       "latency, competing_flows or competing_traffic)", s->path, l->line,
				       l->a, l->b);
	}
	if (s->measured_ns >= 0 && s->measured_run != NULL)
		return err_set(e, E_FORMAT, "'%s': give measured_time or measured_run, not both", s->path);
	return 0;
}

static char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".ini") == 0)
		n -= 4;
	return xstrndup(b, n);
}

/* FNV-1a of a host name. */
static uint64_t
name_hash(const char *h)
{
	uint64_t v = 0xcbf29ce484222325ULL;

	for (; *h != '\0'; h++)
		v = (v ^ (unsigned char)*h) * 0x100000001b3ULL;
	return v;
}

/* The key of an unordered host pair in s->link_at: the same whichever end comes first. */
static uint64_t
pair_hash(const char *h1, const char *h2)
{
	uint64_t a = name_hash(h1), b = name_hash(h2);

	return (a < b ? a : b) * 0x9e3779b97f4a7c15ULL ^ (a < b ? b : a);
}

/* s->link_at from SCEN_LINK_INDEX links on; left empty (scen_link_for searches) when two
 * links share a key: a hash collision (validate refuses a pair written twice). */
static void
index_links(struct scen *s)
{
	for (int i = 0; i < s->nlinks && s->nlinks >= SCEN_LINK_INDEX; i++)
		if (u64map_put(&s->link_at, pair_hash(s->links[i].a, s->links[i].b), i) != i) {
			u64map_release(&s->link_at);
			return;
		}
}

int
scen_load_string(struct scen *s, const char *text, const char *name, struct err *e)
{
	struct pctx c;
	int rc;

	memset(s, 0, sizeof *s);
	s->path = xstrdup(name);
	s->name = base_name(name);
	s->comm_busy_frac = NAN;
	s->measured_ns = -1;
	s->x = NAN;
	s->deadline_ns = -1;
	s->budget = NAN;
	s->max_procs = -1;
	s->sleep_credit = 1;
	s->observer_ns_per_pkt = 0;
	memset(&c, 0, sizeof c);
	c.s = s;
	c.name = name;
	c.text = text;
	c.e = e;
	c.kind = SECT_NONE;
	c.cur[0] = '\x01';	/* no section yet: differs from every name inih gives */
	if (strlen(text) != strcspn(text, "\r") && strstr(text, "\r\n") == NULL) {
		err_set(e, E_FORMAT, "'%s': bare carriage returns", name);
		scen_free(s);
		return -E_FORMAT;
	}
	ini_allow_multiline = false;	/* an indented line is an error, not a continuation */
	rc = ini_parse_stream(reader, &c, handler, &c);
	if (!c.failed && rc > 0) {
		err_set(e, E_FORMAT, "'%s' line %d: expected '[section]' or 'key = value'", name, rc);
		c.failed = 1;
	} else if (!c.failed && rc < 0) {
		err_set(e, E_IO, "'%s': the INI reader failed (%d)", name, rc);
		c.failed = 1;
	}
	if (!c.failed && validate(s, e) < 0)
		c.failed = 1;
	if (c.failed) {
		int code = e ? e->code : -E_FORMAT;

		scen_free(s);
		return code ? code : -E_FORMAT;
	}
	for (int i = 0; i < s->nlinks; i++)
		link_payload(&s->links[i]);
	index_links(s);
	return 0;
}

int
scen_load(struct scen *s, const char *path, struct err *e)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int rc;

	memset(s, 0, sizeof *s);
	if (f == NULL)
		return err_sys(e, E_IO, "cannot open scenario '%s'", path);
	text = xmalloc(SCEN_MAX_FILE + 1);
	n = fread(text, 1, SCEN_MAX_FILE + 1, f);
	if (ferror(f)) {
		rc = err_sys(e, E_IO, "cannot read scenario '%s'", path);
		fclose(f);
		free(text);
		return rc;
	}
	fclose(f);
	if (n > SCEN_MAX_FILE) {
		free(text);
		return err_set(e, E_LIMIT, "scenario '%s' is larger than %u bytes", path, SCEN_MAX_FILE);
	}
	text[n] = '\0';
	if (strlen(text) != n) {
		free(text);
		return err_set(e, E_FORMAT, "scenario '%s' has a NUL byte", path);
	}
	rc = scen_load_string(s, text, path, e);
	free(text);
	return rc;
}

void
scen_free(struct scen *s)
{
	if (s == NULL)
		return;
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->delay_file);
	free(s->measured_run);
	free(s->master);
	for (int i = 0; i < s->ncand; i++)
		free(s->cand[i]);
	free(s->nodes);
	free(s->links);
	u64map_release(&s->link_at);
	memset(s, 0, sizeof *s);
}

const struct scen_node *
scen_node_for(const struct scen *s, int rank, const char *host)
{
	const struct scen_node *byhost = NULL;

	for (int i = 0; i < s->nnodes; i++) {
		const struct scen_node *n = &s->nodes[i];

		if (n->rank >= 0 && n->rank == rank)
			return n;
		if (n->rank < 0 && host != NULL && strcmp(n->host, host) == 0)
			byhost = n;
	}
	return byhost;
}

static bool
link_is(const struct scen_link *l, const char *h1, const char *h2)
{
	return (strcmp(l->a, h1) == 0 && strcmp(l->b, h2) == 0) || (strcmp(l->a, h2) == 0 && strcmp(l->b, h1) == 0);
}

/* With the index, the one link under the pair's key is the only one that can be the pair
 * (no two links share a key, or there is no index). */
const struct scen_link *
scen_link_for(const struct scen *s, const char *h1, const char *h2)
{
	long j;

	if (s->link_at.n > 0) {
		j = u64map_get(&s->link_at, pair_hash(h1, h2));
		return j >= 0 && link_is(&s->links[j], h1, h2) ? &s->links[j] : NULL;
	}
	for (int i = 0; i < s->nlinks; i++)
		if (link_is(&s->links[i], h1, h2))
			return &s->links[i];
	return NULL;
}

bool
scen_node_loaded(const struct scen_node *n)
{
	return n != NULL && (n->cpu_procs > 0 || (!isnan(n->load_avg) && n->load_avg > 0) ||
			     n->ncomm > 0 || (!isnan(n->capacity) && n->capacity < 1));
}

const char *
scen_part_name(enum scen_part p)
{
	switch (p) {
	case SCEN_PART_LOAD: return "load-dependent";
	case SCEN_PART_CONSTRAINT: return "constraint-based";
	case SCEN_PART_UNIFORM: return "uniform";
	case SCEN_PART_UNSET: break;
	}
	return "unset";
}
