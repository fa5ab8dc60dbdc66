/* rankmap: endpoint -> world rank from collect's socket map and rank meta files. */
#include "parse/rankmap.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/fsutil.h"
#include "lib/gzio.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"

struct ep {
	uint8_t af;
	uint8_t addr[16];
	uint16_t port;
	int32_t rank;		/* -2: claimed by two ranks */
};

struct rinfo {
	char *host;
	char *meta_path;	/* the meta file it came from, NULL when none */
	double cpu_capacity;	/* cores' worth of CPU the rank may use (meta), 0 unknown */
	int64_t start_mono_ns, end_mono_ns;	/* its run on CLOCK_MONOTONIC, 0 unknown */
	int64_t samples_taken;	/* samples its agent wrote (meta), -1 unknown */
	char how_ended[12];	/* meta how_ended, "" when absent or not a known word */
	char signal[16];	/* meta exit_signal_name when signaled, "" otherwise */
	struct ep *addrs;	/* the host's addresses (port 0) */
	size_t naddrs;
};

struct rankmap {
	struct ep *eps;
	size_t neps, cap;
	bool sorted;
	struct rinfo *ranks;	/* indexed by rank */
	size_t nranks;
	int32_t max_rank;
	int64_t nranks_run;	/* nranks of meta/run.tsv (or the rank files), 0 unknown */
	char **problems;	/* what validation found, each naming file and line */
	size_t nproblems, problems_cap;
	char first_bad_socket[ERR_MSG_MAX];	/* the first bad sockets row, "" none */
	struct rankmap_stats st;
};

static void PRINTF(2, 3)
problem(struct rankmap *m, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	m->st.problems++;
	if (m->nproblems >= RANKMAP_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	m->problems = xgrow(m->problems, &m->problems_cap, m->nproblems + 1, sizeof *m->problems);
	m->problems[m->nproblems++] = xstrdup(msg);
}

/* The rank in a file name ".../rank-<R>.tsv[.gz]", or -1. */
static int64_t
rank_of_name(const char *path)
{
	const char *b = strrchr(path, '/');
	char *end;
	long long v;

	b = b ? b + 1 : path;
	if (strncmp(b, "rank-", 5) != 0 || b[5] < '0' || b[5] > '9')
		return -1;
	v = strtoll(b + 5, &end, 10);
	if (strncmp(end, ".tsv", 4) != 0 || v >= RANKMAP_MAX_RANKS)
		return -1;
	return v;
}

struct rankmap *
rankmap_new(void)
{
	struct rankmap *m = xcalloc(1, sizeof *m);

	m->max_rank = -1;
	m->sorted = true;
	return m;
}

static int
ep_cmp(const void *a, const void *b)
{
	const struct ep *x = a, *y = b;
	int c = (int)x->af - (int)y->af;

	if (c)
		return c;
	c = memcmp(x->addr, y->addr, 16);
	if (c)
		return c;
	return (int)x->port - (int)y->port;
}

static void
note_rank(struct rankmap *m, int32_t rank)
{
	if (rank > m->max_rank)
		m->max_rank = rank;
}

void
rankmap_add(struct rankmap *m, int af, const uint8_t addr[16], uint16_t port, int32_t rank)
{
	struct ep *e;

	if (m->neps >= RANKMAP_MAX_ENDPOINTS) {
		m->st.over_cap++;
		return;
	}
	m->eps = xgrow(m->eps, &m->cap, m->neps + 1, sizeof *m->eps);
	e = &m->eps[m->neps++];
	memset(e, 0, sizeof *e);
	e->af = (uint8_t)af;
	memcpy(e->addr, addr, af == AF_INET ? 4 : 16);
	e->port = port;
	e->rank = rank;
	m->sorted = false;
	note_rank(m, rank);
	m->st.rows++;
}

/* Text address to (af, 16 bytes); IPv4-mapped IPv6 becomes IPv4. */
static bool
parse_addr(const char *s, int *af, uint8_t out[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(out, 0, 16);
	if (inet_pton(AF_INET, s, out) == 1) {
		*af = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, out) == 1) {
		*af = AF_INET6;
		if (memcmp(out, mapped, 12) == 0) {
			memmove(out, out + 12, 4);
			memset(out + 4, 0, 12);
			*af = AF_INET;
		}
		return true;
	}
	return false;
}

static void
sort_eps(struct rankmap *m)
{
	size_t i, o = 0;

	if (m->sorted || m->neps == 0)
		return;
	qsort(m->eps, m->neps, sizeof *m->eps, ep_cmp);
	/* merge duplicates; two ranks on one endpoint make it ambiguous */
	for (i = 0; i < m->neps; i++) {
		if (o > 0 && ep_cmp(&m->eps[o - 1], &m->eps[i]) == 0) {
			if (m->eps[o - 1].rank != m->eps[i].rank && m->eps[o - 1].rank != -2) {
				m->eps[o - 1].rank = -2;
				m->st.conflicts++;
			}
			continue;
		}
		m->eps[o++] = m->eps[i];
	}
	m->neps = o;
	m->sorted = true;
}

int
rankmap_load_sockets(struct rankmap *m, const char *path, struct err *e)
{
	static const char *const req[] = { "rank", "local_ip", "local_port", NULL };
	struct tsv_r t;
	int rc, c_rank, c_ip, c_port;
	int64_t file_rank = rank_of_name(path);	/* -1: a name without a rank */

	rc = tsv_r_open(&t, path, "sockets", 1, req, e);
	if (rc < 0) {
		m->st.file_errors++;
		return rc;
	}
	m->st.files++;
	c_rank = tsv_r_col(&t, "rank");
	c_ip = tsv_r_col(&t, "local_ip");
	c_port = tsv_r_col(&t, "local_port");
	for (;;) {
		int64_t rank, port;
		uint8_t a[16];
		int af;
		struct err fe;

		rc = tsv_r_next(&t, &fe);
		if (rc == 0)
			break;
		if (rc == -E_IO || rc == -E_TRUNC || gzr_damage(t.r) != NULL) {
			m->st.file_errors++;
			if (e != NULL)
				*e = fe;
			break;
		}
		if (rc < 0)
			;
		else if (tsv_r_i64(&t, c_rank, &rank, &fe) < 0 || tsv_r_i64(&t, c_port, &port, &fe) < 0)
			;
		else if (rank < 0 || rank >= (m->nranks_run > 0 ? m->nranks_run : RANKMAP_MAX_RANKS))
			err_set(&fe, E_FORMAT, "'%s' line %ld: rank %" PRId64 " is outside [0, %" PRId64
				")", path, t.line_no, rank, m->nranks_run > 0 ? m->nranks_run :
				(int64_t)RANKMAP_MAX_RANKS);
		else if (file_rank >= 0 && rank != file_rank)
			err_set(&fe, E_FORMAT, "'%s' line %ld: rank %" PRId64 " in the file of rank %"
				PRId64, path, t.line_no, rank, file_rank);
		else if (port < 0 || port > 65535 || !parse_addr(tsv_r_str(&t, c_ip), &af, a))
			err_set(&fe, E_FORMAT, "'%s' line %ld: bad address or port", path, t.line_no);
		else
			fe.code = 0;
		if (rc < 0 || fe.code != 0) {
			if (m->st.bad_rows++ == 0)
				snprintf(m->first_bad_socket, sizeof m->first_bad_socket, "%s", fe.msg);
			continue;
		}
		rankmap_add(m, af, a, (uint16_t)port, (int32_t)rank);
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

/* What one rank meta file says, before it is checked against the run. */
struct metafile {
	const char *path;
	int64_t rank;		/* -1 when missing or damaged */
	long rank_line;		/* its line, 0 when absent */
	int64_t nranks;		/* 0 when absent */
	char *host, *addrs;
	double capacity;	/* 0 when absent or rejected */
	int64_t start_mono_ns, end_mono_ns;	/* 0 when absent */
	int64_t samples_taken;	/* -1 when absent */
	char how_ended[12];	/* "" when absent or not a known word */
	char signal[16];	/* exit_signal_name, "" when absent or too long */
};

/* how_ended's value into out when it is one collect writes (docs/formats.md), else "". */
static void
how_ended_word(char *out, size_t len, const char *v)
{
	static const char *const words[] = { "running", "exited", "signaled", "not-started" };

	out[0] = '\0';
	for (size_t i = 0; v != NULL && i < sizeof words / sizeof words[0]; i++)
		if (strcmp(v, words[i]) == 0)
			snprintf(out, len, "%s", v);
}

/* exit_signal_name's value into out when it looks like one (SIG and capitals, short),
 * else "": it is printed in a warning. */
static void
signal_word(char *out, size_t len, const char *v)
{
	size_t n = v != NULL ? strlen(v) : 0;

	out[0] = '\0';
	if (n < 4 || n >= len || strncmp(v, "SIG", 3) != 0)
		return;
	for (size_t i = 3; i < n; i++)
		if (!((v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '+'))
			return;
	memcpy(out, v, n + 1);
}

/* A number from a meta value: the whole field, finite. */
static bool
meta_num(struct tsv_r *t, double *v)
{
	struct err fe;

	return tsv_r_f64(t, 1, v, &fe) == 0 && isfinite(*v);
}

/* cpu_capacity at line: it must be in (0, cpus_allowed] and agree with the quota. */
static double
check_capacity(struct rankmap *m, const char *path, long line, const char *text, double cap,
	       double cpus, double quota_us, double period_us)
{
	double most = cpus > 0 ? cpus : 4096;	/* a rank uses at most its allowed CPUs */

	if (!(cap > 0 && cap <= most)) {
		problem(m, "'%s' line %ld: cpu_capacity '%s' is not a number in (0, %g] (its allowed "
			"CPUs); taken as unknown", path, line, text, most);
		return 0;
	}
	if (quota_us > 0 && period_us > 0) {
		double want = quota_us / period_us;

		if (cpus > 0 && cpus < want)
			want = cpus;
		/* collect writes it with three decimals */
		if (fabs(cap - want) > 0.0015) {
			problem(m, "'%s' line %ld: cpu_capacity '%s' disagrees with cpu_quota_us / "
				"cpu_period_us (%.3f); taken as unknown", path, line, text, want);
			return 0;
		}
		return want;	/* the quota's own value, not its rounding */
	}
	return cap;
}

/* Read path into mf (its strings owned by mf). 0, or negative with e set. */
static int
read_meta(struct rankmap *m, const char *path, struct metafile *mf, struct err *e)
{
	static const char *const req[] = { "key", "value", NULL };
	struct tsv_r t;
	int rc;
	double cap = NAN, cpus = 0, quota = 0, period = 0;	/* the CPU keys, as found */
	long cap_line = 0;
	char cap_text[32] = "";	/* cpu_capacity as written, for messages */

	memset(mf, 0, sizeof *mf);
	mf->path = path;
	mf->rank = -1;
	mf->samples_taken = -1;
	rc = tsv_r_open(&t, path, "meta", 1, req, e);
	if (rc < 0) {
		m->st.file_errors++;
		return rc;
	}
	m->st.files++;
	while ((rc = tsv_r_next(&t, e)) != 0) {
		const char *k;
		double v;

		if (rc == -E_IO || rc == -E_TRUNC || (rc < 0 && gzr_damage(t.r) != NULL))
			break;
		if (rc < 0) {
			m->st.bad_rows++;
			continue;
		}
		k = tsv_r_str(&t, 0);
		if (strcmp(k, "rank") == 0) {
			struct err fe;

			mf->rank_line = t.line_no;
			if (tsv_r_i64(&t, 1, &mf->rank, &fe) < 0 || mf->rank < 0)
				mf->rank = -1;
		} else if (strcmp(k, "nranks") == 0) {
			struct err fe;

			if (tsv_r_i64(&t, 1, &mf->nranks, &fe) < 0 || mf->nranks <= 0 ||
			    mf->nranks > RANKMAP_MAX_RANKS)
				mf->nranks = 0;
		} else if (strcmp(k, "host") == 0) {
			free(mf->host);
			mf->host = xstrdup(tsv_r_str(&t, 1));
		} else if (strcmp(k, "addrs") == 0) {
			free(mf->addrs);
			mf->addrs = xstrdup(tsv_r_str(&t, 1));
		} else if (strcmp(k, "cpu_capacity") == 0) {
			cap_line = t.line_no;
			snprintf(cap_text, sizeof cap_text, "%s", tsv_r_str(&t, 1));
			if (!meta_num(&t, &cap))
				cap = NAN;
		} else if (strcmp(k, "cpus_allowed") == 0 && meta_num(&t, &v) && v > 0) {
			cpus = v;
		} else if (strcmp(k, "cpu_quota_us") == 0 && meta_num(&t, &v) && v > 0) {
			quota = v;
		} else if (strcmp(k, "cpu_period_us") == 0 && meta_num(&t, &v) && v > 0) {
			period = v;
		} else if (strcmp(k, "start_mono_ns") == 0 && meta_num(&t, &v) && v > 0 && v < 9e18) {
			mf->start_mono_ns = (int64_t)v;
		} else if (strcmp(k, "end_mono_ns") == 0 && meta_num(&t, &v) && v > 0 && v < 9e18) {
			mf->end_mono_ns = (int64_t)v;
		} else if (strcmp(k, "samples_taken") == 0 && meta_num(&t, &v) && v >= 0 && v < 9e18) {
			mf->samples_taken = (int64_t)v;
		} else if (strcmp(k, "how_ended") == 0) {
			how_ended_word(mf->how_ended, sizeof mf->how_ended, tsv_r_str(&t, 1));
		} else if (strcmp(k, "exit_signal_name") == 0) {
			signal_word(mf->signal, sizeof mf->signal, tsv_r_str(&t, 1));
		}
	}
	tsv_r_close(&t);
	if (cap_line > 0)
		mf->capacity = check_capacity(m, path, cap_line, cap_text, cap, cpus, quota, period);
	if (mf->end_mono_ns < mf->start_mono_ns) {
		problem(m, "'%s': end_mono_ns is before start_mono_ns; the run's window is unknown",
			path);
		mf->start_mono_ns = mf->end_mono_ns = 0;
	}
	return rc < 0 ? rc : 0;
}

static void
metafile_release(struct metafile *mf)
{
	free(mf->host);
	free(mf->addrs);
}

/* Make mf the meta of its rank (checked by the caller). */
static void
commit_meta(struct rankmap *m, struct metafile *mf)
{
	struct rinfo *ri;
	size_t rank = (size_t)mf->rank;

	if (rank >= m->nranks) {
		size_t n = m->nranks;

		m->ranks = xgrow(m->ranks, &n, rank + 1, sizeof *m->ranks);
		memset(m->ranks + m->nranks, 0, (n - m->nranks) * sizeof *m->ranks);
		m->nranks = n;
	}
	ri = &m->ranks[rank];
	free(ri->host);
	free(ri->meta_path);
	ri->meta_path = xstrdup(mf->path);
	ri->host = mf->host;
	mf->host = NULL;
	ri->cpu_capacity = mf->capacity;
	ri->start_mono_ns = mf->start_mono_ns;
	ri->end_mono_ns = mf->end_mono_ns;
	ri->samples_taken = mf->samples_taken;
	memcpy(ri->how_ended, mf->how_ended, sizeof ri->how_ended);
	memcpy(ri->signal, mf->signal, sizeof ri->signal);
	note_rank(m, (int32_t)rank);
	if (mf->addrs != NULL) {
		char *s = mf->addrs, *comma;

		for (;;) {
			struct ep ep;
			int af;
			size_t cap = ri->naddrs;

			comma = strchr(s, ',');
			if (comma)
				*comma = '\0';
			memset(&ep, 0, sizeof ep);
			if (parse_addr(s, &af, ep.addr) && ri->naddrs < 256) {
				ep.af = (uint8_t)af;
				ri->addrs = xgrow(ri->addrs, &cap, ri->naddrs + 1, sizeof *ri->addrs);
				ri->addrs[ri->naddrs++] = ep;
			}
			if (!comma)
				break;
			s = comma + 1;
		}
	}
}

/* Check mf against the run: its rank in [0, nranks), matching its file name, not
 * already given by another file. True when it may be used. */
static bool
meta_fits(struct rankmap *m, const struct metafile *mf)
{
	int64_t nranks = m->nranks_run > 0 ? m->nranks_run : RANKMAP_MAX_RANKS;
	int64_t named = rank_of_name(mf->path);

	if (mf->rank < 0) {
		if (mf->rank_line > 0)
			problem(m, "'%s' line %ld: 'rank' is not a rank number; file not used", mf->path,
				mf->rank_line);
		else
			problem(m, "'%s': no 'rank'; file not used", mf->path);
		return false;
	}
	if (mf->rank >= nranks) {
		problem(m, "'%s' line %ld: rank %" PRId64 " is outside [0, %" PRId64 ")%s; file not "
			"used", mf->path, mf->rank_line, mf->rank, nranks,
			m->nranks_run > 0 ? " (nranks of the run)" : "");
		return false;
	}
	if (named >= 0 && named != mf->rank) {
		problem(m, "'%s' line %ld: rank %" PRId64 " in the file of rank %" PRId64 "; file not "
			"used", mf->path, mf->rank_line, mf->rank, named);
		return false;
	}
	if ((size_t)mf->rank < m->nranks && m->ranks[mf->rank].meta_path != NULL) {
		problem(m, "'%s' line %ld: rank %" PRId64 " already has '%s'; file not used",
			mf->path, mf->rank_line, mf->rank, m->ranks[mf->rank].meta_path);
		return false;
	}
	return true;
}

int
rankmap_load_meta(struct rankmap *m, const char *path, struct err *e)
{
	struct metafile mf;
	int rc = read_meta(m, path, &mf, e);

	if (meta_fits(m, &mf))
		commit_meta(m, &mf);
	metafile_release(&mf);
	return rc;
}

/* The run's nranks from RUN/meta/run.tsv, 0 when unknown. */
static int64_t
run_nranks(const char *run_dir)
{
	static const char *const req[] = { "key", "value", NULL };
	char *path = xasprintf("%s/meta/run.tsv", run_dir);
	struct tsv_r t;
	struct err fe;
	int64_t n = 0;
	int rc;

	if (tsv_r_open(&t, path, "meta", 1, req, &fe) == 0) {
		while ((rc = tsv_r_next(&t, &fe)) != 0) {
			if (rc == -E_IO || rc == -E_TRUNC || (rc < 0 && gzr_damage(t.r) != NULL))
				break;
			if (rc > 0 && strcmp(tsv_r_str(&t, 0), "nranks") == 0 &&
			    (tsv_r_i64(&t, 1, &n, &fe) < 0 || n <= 0 || n > RANKMAP_MAX_RANKS))
				n = 0;
		}
		tsv_r_close(&t);
	}
	free(path);
	return n;
}

/* The rank-*.tsv[.gz] files of dir ("dir/name"), sorted (so messages come in a stable
 * order); free with fs_list_free. NULL with e set when dir cannot be opened. */
static char **
rank_files(const char *dir, size_t *n, struct err *e)
{
	const struct fs_pattern pat = { .prefix = "rank-", .infix = ".tsv", .paths = true };

	return fs_list(dir, &pat, RANKMAP_MAX_RANKS, n, e);
}

int
rankmap_load_run(struct rankmap *m, const char *run_dir, struct err *e)
{
	char *sd = xasprintf("%s/sockets", run_dir), *md = xasprintf("%s/meta", run_dir);
	struct metafile *mfs;
	char **socks, **metas;
	size_t nsocks, nmetas, i;
	int first = 0;
	struct err fe;

	m->nranks_run = run_nranks(run_dir);
	metas = rank_files(md, &nmetas, &fe);
	if (metas == NULL)
		first = fe.code, *e = fe;
	/* Meta files first: without meta/run.tsv their nranks bound the sockets' ranks. */
	mfs = xcalloc(nmetas ? nmetas : 1, sizeof *mfs);
	for (i = 0; i < nmetas; i++) {
		if (read_meta(m, metas[i], &mfs[i], &fe) < 0 && first == 0)
			first = fe.code, *e = fe;
		if (m->nranks_run == 0 && mfs[i].nranks > 0)
			m->nranks_run = mfs[i].nranks;
	}
	for (i = 0; i < nmetas; i++) {
		/* a rank-N.tsv not named for N is only used when no file named for it exists */
		int64_t named = rank_of_name(metas[i]);

		if ((named < 0 || named == mfs[i].rank) && meta_fits(m, &mfs[i]))
			commit_meta(m, &mfs[i]);
	}
	for (i = 0; i < nmetas; i++) {
		int64_t named = rank_of_name(metas[i]);

		if (!(named < 0 || named == mfs[i].rank) && meta_fits(m, &mfs[i]))
			commit_meta(m, &mfs[i]);
		metafile_release(&mfs[i]);
		free(metas[i]);
	}
	free(mfs);
	free(metas);
	if (nmetas > 0 || m->nranks_run > 0) {
		int64_t missing = 0, first_missing = -1;

		for (int64_t r = 0; r < m->nranks_run; r++) {
			if ((size_t)r < m->nranks && m->ranks[r].meta_path != NULL)
				continue;
			if (missing++ == 0)
				first_missing = r;
		}
		if (missing > 0)
			problem(m, "'%s': %" PRId64 " of %" PRId64 " ranks have no usable meta file "
				"(first: rank %" PRId64 "); their hosts, addresses and CPU capacity are "
				"unknown", md, missing, m->nranks_run, first_missing);
	}
	socks = rank_files(sd, &nsocks, &fe);
	if (socks == NULL && first == 0)
		first = fe.code, *e = fe;
	for (i = 0; i < nsocks; i++) {
		if (rankmap_load_sockets(m, socks[i], &fe) < 0 && first == 0)
			first = fe.code, *e = fe;
		free(socks[i]);
	}
	free(socks);
	free(sd);
	free(md);
	sort_eps(m);
	return first;
}

size_t
rankmap_problems(const struct rankmap *m, const char *const **msgs)
{
	*msgs = (const char *const *)m->problems;
	return m->nproblems;
}

const char *
rankmap_first_bad_socket(const struct rankmap *m)
{
	return m->first_bad_socket[0] ? m->first_bad_socket : NULL;
}

int
rankmap_run_window(const struct rankmap *m, int32_t rank, int64_t *start_mono_ns,
		   int64_t *end_mono_ns)
{
	if (m == NULL || rank < 0 || (size_t)rank >= m->nranks ||
	    m->ranks[rank].end_mono_ns <= 0)
		return -1;
	*start_mono_ns = m->ranks[rank].start_mono_ns;
	*end_mono_ns = m->ranks[rank].end_mono_ns;
	return 0;
}

int64_t
rankmap_samples_taken(const struct rankmap *m, int32_t rank)
{
	if (m == NULL || rank < 0 || (size_t)rank >= m->nranks || m->ranks[rank].meta_path == NULL)
		return -1;
	return m->ranks[rank].samples_taken;
}

const char *
rankmap_how_ended(const struct rankmap *m, int32_t rank, const char **signal_name)
{
	const struct rinfo *ri;

	if (signal_name != NULL)
		*signal_name = NULL;
	if (m == NULL || rank < 0 || (size_t)rank >= m->nranks || m->ranks[rank].meta_path == NULL)
		return NULL;
	ri = &m->ranks[rank];
	if (signal_name != NULL && ri->signal[0] != '\0')
		*signal_name = ri->signal;
	return ri->how_ended[0] != '\0' ? ri->how_ended : NULL;
}

int64_t
rankmap_nranks(const struct rankmap *m)
{
	return m->nranks_run;
}

int32_t
rankmap_lookup(const struct rankmap *cm, int af, const uint8_t addr[16], uint16_t port)
{
	struct rankmap *m = (struct rankmap *)cm;	/* sorting on first use is not a visible change */
	struct ep key, *hit;
	int32_t found = -1;
	size_t r, i;

	sort_eps(m);
	if (m->neps == 0)
		return -1;	/* bsearch may not be given a NULL array */
	memset(&key, 0, sizeof key);
	key.af = (uint8_t)af;
	memcpy(key.addr, addr, af == AF_INET ? 4 : 16);
	key.port = port;
	hit = bsearch(&key, m->eps, m->neps, sizeof *m->eps, ep_cmp);
	if (hit != NULL)
		return hit->rank >= 0 ? hit->rank : -1;
	/* a wildcard listener (0.0.0.0 or ::) of a rank that owns the address */
	memset(key.addr, 0, 16);
	hit = bsearch(&key, m->eps, m->neps, sizeof *m->eps, ep_cmp);
	if (hit == NULL || hit->rank < 0)
		return -1;
	r = (size_t)hit->rank;
	if (r >= m->nranks || m->ranks[r].naddrs == 0)
		return hit->rank;	/* no addresses to check against */
	for (i = 0; i < m->ranks[r].naddrs; i++) {
		const struct ep *a = &m->ranks[r].addrs[i];

		if (a->af == af && memcmp(a->addr, addr, af == AF_INET ? 4 : 16) == 0)
			found = hit->rank;
	}
	return found;
}

const char *
rankmap_host(const struct rankmap *m, int32_t rank)
{
	if (rank < 0 || (size_t)rank >= m->nranks)
		return NULL;
	return m->ranks[rank].host;
}

int32_t
rankmap_max_rank(const struct rankmap *m)
{
	return m->max_rank;
}

const struct rankmap_stats *
rankmap_stats(const struct rankmap *m)
{
	return &m->st;
}

void
rankmap_free(struct rankmap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nranks; i++) {
		free(m->ranks[i].host);
		free(m->ranks[i].meta_path);
		free(m->ranks[i].addrs);
	}
	for (i = 0; i < m->nproblems; i++)
		free(m->problems[i]);
	free(m->problems);
	free(m->ranks);
	free(m->eps);
	free(m);
}

double
rankmap_cpu_capacity(const struct rankmap *m, int32_t rank)
{
	if (m == NULL || rank < 0 || (size_t)rank >= m->nranks)
		return 0;
	return m->ranks[rank].cpu_capacity;
}
