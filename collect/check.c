/* check: `contend collect --check`, the run directory read back with distrust. */
#include "collect/check.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/runmeta.h"
#include "collect/sampler.h"
#include "collect/sockmap.h"
#include "lib/gzio.h"
#include "lib/rd.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "parse/phases.h"
#include "parse/pkt.h"
#include "parse/rankmap.h"

#define MAX_HOSTS 4096
#define MAX_RANKS 1000000
#define PCAP_MAX_RECORD (1u << 20)	/* larger records are "damaged or fuzzed" */

static void PRINTF(2, 3)
problem(struct check_report *r, const char *fmt, ...)
{
	va_list ap;
	char s[1024];

	if (r->nproblems >= CHECK_MAX_PROBLEMS) {
		r->more_problems++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	r->problems = xgrow(r->problems, &r->cap, r->nproblems + 1, sizeof *r->problems);
	r->problems[r->nproblems++] = xstrdup(s);
}

void
check_report_release(struct check_report *r)
{
	for (size_t i = 0; i < r->nproblems; i++)
		free(r->problems[i]);
	free(r->problems);
	memset(r, 0, sizeof *r);
}

/* Read exactly n bytes unless the stream ends: bytes read, or negative. */
static long
read_full(struct gzr *g, uint8_t *p, size_t n, struct err *e)
{
	size_t got = 0;

	while (got < n) {
		long k = gzr_read(g, p + got, n - got, e);

		if (k < 0)
			return k;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (long)got;
}

int
check_pcap(const char *path, long *packets, struct err *e)
{
	struct gzr *g = gzr_open(path, e);
	uint8_t hdr[24];
	uint8_t *skip;
	long n;
	bool le, nano;
	uint32_t magic, snaplen;
	int rc = 0;

	*packets = 0;
	if (g == NULL)
		return e ? e->code : -E_IO;
	n = read_full(g, hdr, sizeof hdr, e);
	if (n < 0 || n < (long)sizeof hdr) {
		gzr_close(g);
		if (n < 0 && n != -E_TRUNC)
			return (int)n;
		return err_set(e, n == -E_TRUNC ? E_TRUNC : E_FORMAT,
			       "'%s' is not a pcap file (%ld bytes, shorter than a file header)", path,
			       n < 0 ? 0 : n);
	}
	{
		struct rd r = rd_make(hdr, sizeof hdr);

		magic = rd_le32(&r);
	}
	le = magic == 0xa1b2c3d4 || magic == 0xa1b23c4d;
	if (!le && magic != 0xd4c3b2a1 && magic != 0x4d3cb2a1) {
		gzr_close(g);
		return err_set(e, E_FORMAT, "'%s' is not a pcap file (magic %08x)", path, magic);
	}
	nano = magic == 0xa1b23c4d || magic == 0x4d3cb2a1;
	{
		struct rd r = rd_make(hdr + 4, sizeof hdr - 4);
		uint16_t vmaj = le ? rd_le16(&r) : rd_be16(&r);
		uint32_t linktype;

		rd_skip(&r, 10);
		snaplen = le ? rd_le32(&r) : rd_be32(&r);
		linktype = (le ? rd_le32(&r) : rd_be32(&r)) & 0xffff;	/* upper bits: FCS flags */
		if (vmaj != 2) {
			gzr_close(g);
			return err_set(e, E_FORMAT, "'%s': pcap version %u, expected 2", path, vmaj);
		}
		/* the file holds LINKTYPE_ values; they equal DLT_ ones but for raw IP (101) */
		if (!pkt_linktype_known((int)linktype) && linktype != 101) {
			gzr_close(g);
			return err_set(e, E_UNSUP, "'%s': link type %u is not one parse decodes (Ethernet, "
				       "Linux cooked SLL and SLL2, BSD loopback, raw IP)", path, linktype);
		}
	}
	skip = xmalloc(PCAP_MAX_RECORD);
	for (;;) {
		uint8_t rh[16];
		uint32_t frac, incl, orig;
		struct rd r;

		n = read_full(g, rh, sizeof rh, e);
		if (n == 0)
			break;
		if (n == -E_TRUNC || (n > 0 && n < (long)sizeof rh)) {
			rc = err_set(e, E_TRUNC, "'%s' is truncated after %ld packets (a record header is cut)",
				     path, *packets);
			break;
		}
		if (n < 0) {
			rc = (int)n;
			break;
		}
		r = rd_make(rh, sizeof rh);
		(void)(le ? rd_le32(&r) : rd_be32(&r));
		frac = le ? rd_le32(&r) : rd_be32(&r);
		incl = le ? rd_le32(&r) : rd_be32(&r);
		orig = le ? rd_le32(&r) : rd_be32(&r);
		if (frac >= (nano ? 1000000000u : 1000000u) || incl > PCAP_MAX_RECORD ||
		    (snaplen > 0 && incl > snaplen && incl > 65535) || incl > orig) {
			rc = err_set(e, E_FORMAT, "'%s' is damaged after %ld packets (implausible record header)",
				     path, *packets);
			break;
		}
		n = read_full(g, skip, incl, e);
		if (n == -E_TRUNC || (n >= 0 && n < (long)incl)) {
			rc = err_set(e, E_TRUNC, "'%s' is truncated after %ld packets (a packet is cut)",
				     path, *packets);
			break;
		}
		if (n < 0) {
			rc = (int)n;
			break;
		}
		(*packets)++;
	}
	free(skip);
	gzr_close(g);
	return rc;
}

/* Check a TSV file row by row: every column an integer except those in strcols. */
static void
check_tsv(struct check_report *r, const char *path, const char *format, const char *const *cols,
	  const char *const *strcols, long *rows_out)
{
	struct tsv_r t;
	struct err e;
	int rc;
	long rows = 0, bad = 0;
	char first_bad[600] = "";

	r->files++;
	if (access(path, F_OK) != 0) {
		problem(r, "missing '%s'", path);
		return;
	}
	if (tsv_r_open(&t, path, format, 1, cols, &e) < 0) {
		problem(r, "%s", e.msg);
		return;
	}
	for (;;) {
		rc = tsv_r_next(&t, &e);
		if (rc == 0)
			break;
		if (rc == -E_IO || rc == -E_TRUNC) {
			problem(r, "%s (%ld good rows before)", e.msg, rows);
			break;
		}
		if (rc < 0) {
			if (bad++ == 0)
				snprintf(first_bad, sizeof first_bad, "%s", e.msg);
			if (rc != -E_FORMAT && rc != -E_LIMIT)
				break;
			continue;
		}
		for (int i = 0; cols[i] != NULL; i++) {
			int c = tsv_r_col(&t, cols[i]);
			bool is_str = false;
			int64_t v;

			for (int j = 0; strcols && strcols[j]; j++)
				is_str = is_str || strcmp(strcols[j], cols[i]) == 0;
			if (is_str)
				continue;
			if (tsv_r_i64(&t, c, &v, &e) < 0) {
				if (bad++ == 0)
					snprintf(first_bad, sizeof first_bad, "%s", e.msg);
				rows--;
				break;
			}
		}
		rows++;
	}
	if (bad > 0)
		problem(r, "%ld bad rows, the first: %s", bad, first_bad);
	tsv_r_close(&t);
	if (rows_out)
		*rows_out += rows;
}

static void
say_problem(void *r, const char *msg)
{
	problem(r, "%s", msg);
}

/* A rank's samples file read as parse reads it (parse/phases.c), within its run's window,
 * and judged by the same rule. */
static void
check_samples(struct check_report *r, const struct rankmap *rm, int32_t rank, const char *path)
{
	struct phases_opts po = { .busy_threshold = PHASES_THRESHOLD_DEFAULT, .count_system = true };
	struct rank_cpu rc;
	struct err e;
	int64_t t0, t1;

	r->files++;
	if (access(path, F_OK) != 0) {
		problem(r, "missing '%s'", path);
		return;
	}
	if (rankmap_run_window(rm, rank, &t0, &t1) == 0)
		phases_opts_window(&po, t0, t1);
	if (phases_from_samples_opt(path, &po, &rc, &e) < 0)
		problem(r, "%s", e.msg);
	else
		(void)phases_judge(&rc, path, rankmap_samples_taken(rm, rank), say_problem, r);
	r->sample_rows += (long)rc.rows;
	rank_cpu_release(&rc);
}

static int
count_rank_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int max = -1;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		int rk;
		char tail[8];

		if (sscanf(de->d_name, "rank-%d.ts%1s", &rk, tail) == 2 && rk > max && rk < MAX_RANKS)
			max = rk;
	}
	closedir(d);
	return max + 1;
}

static void
add_i64(int64_t *sum, const struct runmeta *m, const char *key)
{
	int64_t v;

	if (runmeta_get_i64(m, key, &v) == 0 && v >= 0)
		*sum += v;
}

static void
max_i64(int64_t *max, const struct runmeta *m, const char *key)
{
	int64_t v;

	if (runmeta_get_i64(m, key, &v) == 0 && v >= 0 && v > *max)
		*max = v;
}

/* A rank's observer and application CPU time, and its agent's start. */
static void
add_cost(struct check_report *r, const struct runmeta *m)
{
	const char *ch = runmeta_get(m, "observer_charged");

	max_i64(&r->start_cost_ns, m, "start_cost_ns");

	add_i64(&r->observer_cpu_ns, m, "agent_utime_ns");
	add_i64(&r->observer_cpu_ns, m, "agent_stime_ns");
	add_i64(&r->app_cpu_ns, m, "app_utime_ns");
	add_i64(&r->app_cpu_ns, m, "app_stime_ns");
	if (ch != NULL)
		r->observer_recorded++;
	if (ch != NULL && strncmp(ch, "no", 2) != 0)
		r->observer_charged++;
}

/* What a node's capture kept. */
static void
add_kept(struct check_report *r, const struct runmeta *m)
{
	const char *p = runmeta_get(m, "payload");
	const char *kc = runmeta_get(m, "kernel_cut");
	int64_t cap, wr;

	if (p == NULL)
		p = "full";	/* written before payload was recorded */
	if (strstr(r->payload, p) == NULL) {
		size_t n = strlen(r->payload);

		snprintf(r->payload + n, sizeof r->payload - n, "%s%s", n ? "," : "", p);
	}
	if (runmeta_get_i64(m, "bytes_written", &wr) == 0 && r->bytes_written >= 0)
		r->bytes_written += wr;
	else
		r->bytes_written = -1;
	if (runmeta_get_i64(m, "bytes_captured", &cap) == 0 && r->bytes_captured >= 0)
		r->bytes_captured += cap;
	else
		r->bytes_captured = -1;
	add_i64(&r->framing_lost, m, "framing_lost");
	add_i64(&r->framing_found, m, "framing_found");
	add_i64(&r->framing_gave_up, m, "framing_gave_up");
	if (kc != NULL && strcmp(kc, "-") != 0) {
		size_t w = strcspn(kc, ":"), n = strlen(r->kernel_cut);	/* the word before the why */
		char word[24];

		snprintf(word, sizeof word, "%.*s", (int)(w < sizeof word ? w : sizeof word - 1), kc);
		if (strstr(r->kernel_cut, word) == NULL)
			snprintf(r->kernel_cut + n, sizeof r->kernel_cut - n, "%s%s", n ? "," : "",
				 word);
	}
	add_i64(&r->kernel_cut_packets, m, "kernel_cut_packets");
	add_i64(&r->kernel_cut_bytes, m, "kernel_cut_bytes");
	add_i64(&r->kernel_cut_mismatch, m, "kernel_cut_mismatch");
}

/* RUN/meta/run.tsv: the number of ranks (counted from the rank files when it does not say)
 * and whether a capture was asked for. */
static int64_t
check_run_file(struct check_report *r, const char *run, bool *capture_on)
{
	struct runmeta run_meta;
	char *path = xasprintf("%s/meta/run.tsv", run);
	int64_t nranks = -1;
	struct err pe;
	const char *cap;

	r->files++;
	if (access(path, F_OK) != 0) {
		problem(r, "missing '%s'", path);
		runmeta_init(&run_meta);
	} else if (runmeta_read(&run_meta, path, &pe) < 0) {
		problem(r, "%s", pe.msg);
	}
	free(path);
	if (runmeta_get_i64(&run_meta, "nranks", &nranks) < 0 || nranks <= 0 || nranks > MAX_RANKS) {
		path = xasprintf("%s/meta", run);
		nranks = count_rank_files(path);
		free(path);
	}
	cap = runmeta_get(&run_meta, "capture");
	*capture_on = cap == NULL || strcmp(cap, "off") != 0;
	runmeta_release(&run_meta);
	if (nranks <= 0)
		problem(r, "no rank files in '%s/meta'", run);
	return nranks;
}

/* parse's checks of the meta and sockets files, word for word. Returns the rank map. */
static struct rankmap *
check_rankmap(struct check_report *r, const char *run)
{
	struct rankmap *rm = rankmap_new();
	const char *const *pm;
	struct err pe;
	size_t np;

	if (rankmap_load_run(rm, run, &pe) < 0)
		problem(r, "%s", pe.msg);
	np = rankmap_problems(rm, &pm);
	for (size_t i = 0; i < np; i++)
		problem(r, "%s", pm[i]);
	if (rankmap_first_bad_socket(rm) != NULL)
		problem(r, "%llu bad rows in '%s/sockets' (first: %s)",
			(unsigned long long)rankmap_stats(rm)->bad_rows, run, rankmap_first_bad_socket(rm));
	return rm;
}

/* A host's name once in hosts[] (at most MAX_HOSTS). */
static void
add_host(const char *safe, char ***hosts, size_t *nhosts, size_t *cap)
{
	for (size_t i = 0; i < *nhosts; i++)
		if (strcmp((*hosts)[i], safe) == 0)
			return;
	if (*nhosts < MAX_HOSTS) {
		*hosts = xgrow(*hosts, cap, *nhosts + 1, sizeof **hosts);
		(*hosts)[(*nhosts)++] = xstrdup(safe);
	}
}

/* One rank: its meta file (the keys parse needs, how it ended, its cost), its samples and
 * its sockets. Its host goes into hosts[]. */
static void
check_rank(struct check_report *r, struct rankmap *rm, const char *run, int64_t rank, char ***hosts,
	   size_t *nhosts, size_t *hosts_cap)
{
	static const char *const need[] = { "rank", "local_rank", "host", "agent_pid", "app_pid",
		"start_real_ns", "start_mono_ns", "clk_tck", "interval_ns", "how_ended", NULL };
	static const char *const strs[] = { "local_ip", "remote_ip", "state", NULL };
	char *path = xasprintf("%s/meta/rank-%lld.tsv", run, (long long)rank);
	struct runmeta m;
	const char *host, *how;
	struct err pe;

	r->files++;
	if (access(path, F_OK) != 0) {
		problem(r, "missing '%s'", path);
		free(path);
		return;
	}
	if (runmeta_read(&m, path, &pe) < 0) {
		problem(r, "%s", pe.msg);
		runmeta_release(&m);
		free(path);
		return;
	}
	for (int i = 0; need[i]; i++)
		if (runmeta_get(&m, need[i]) == NULL)
			problem(r, "'%s' has no key '%s'", path, need[i]);
	how = runmeta_get(&m, "how_ended");
	if (how != NULL && strcmp(how, "running") == 0)
		problem(r, "rank %lld: its agent did not finish (killed?); files end at their last flush",
			(long long)rank);
	else if (how != NULL && strcmp(how, "not-started") == 0)
		problem(r, "rank %lld: the application did not start: %s", (long long)rank,
			runmeta_get(&m, "error") ? runmeta_get(&m, "error") : "?");
	if (runmeta_get(&m, "write_error") && strcmp(runmeta_get(&m, "write_error"), "-") != 0)
		problem(r, "rank %lld: write error: %s", (long long)rank, runmeta_get(&m, "write_error"));
	add_cost(r, &m);
	host = runmeta_get(&m, "host");
	if (host != NULL) {
		char safe[256];

		runmeta_safe_name(host, safe, sizeof safe);
		if (strcmp(safe, host) != 0)
			problem(r, "'%s': host '%s' is not a safe file name", path, host);
		add_host(safe, hosts, nhosts, hosts_cap);
	}
	runmeta_release(&m);
	free(path);
	path = xasprintf("%s/samples/rank-%lld.tsv.gz", run, (long long)rank);
	check_samples(r, rm, (int32_t)rank, path);
	free(path);
	path = xasprintf("%s/sockets/rank-%lld.tsv", run, (long long)rank);
	check_tsv(r, path, "sockets", sockmap_cols, strs, NULL);
	free(path);
}

/* A node's capture, as its node file names it: readable, what it kept, kernel drops. */
static void
check_capture(struct check_report *r, const char *run, const char *host, const char *path,
	      const struct runmeta *m, bool capture_on)
{
	const char *cap = runmeta_get(m, "capture");
	const char *st = runmeta_get(m, "capture_status");
	int64_t drop = 0;
	struct err pe;

	if (capture_on && (cap == NULL || strcmp(cap, "-") == 0)) {
		problem(r, "node '%s': no capture (%s)", host, st ? st : "no status");
		return;
	}
	if (cap == NULL || strcmp(cap, "-") == 0)
		return;
	if (strchr(cap, '/') != NULL || strcmp(cap, "..") == 0) {
		problem(r, "'%s': bad capture name '%s'", path, cap);
	} else {
		char *cpath = xasprintf("%s/capture/%s", run, cap);
		long pk = 0;

		r->files++;
		if (check_pcap(cpath, &pk, &pe) < 0)
			problem(r, "%s", pe.msg);
		r->packets += pk;
		free(cpath);
	}
	add_kept(r, m);
	if (runmeta_get_i64(m, "pcap_drop", &drop) == 0 && drop > 0)
		problem(r, "node '%s': the kernel dropped %lld packets", host, (long long)drop);
}

/* One node: its node file, its capture and its load samples. */
static void
check_node(struct check_report *r, const char *run, const char *host, bool capture_on)
{
	static const char *const strs[] = { "load1", "load5", "load15", NULL };
	char *path = xasprintf("%s/meta/node-%s.tsv", run, host);
	struct runmeta m;
	struct err pe;

	r->files++;
	if (access(path, F_OK) != 0) {
		problem(r, "missing '%s'", path);
	} else if (runmeta_read(&m, path, &pe) < 0) {
		problem(r, "%s", pe.msg);
		runmeta_release(&m);
	} else {
		check_capture(r, run, host, path, &m, capture_on);
		max_i64(&r->stop_cost_ns, &m, "stop_cost_ns");
		runmeta_release(&m);
	}
	free(path);
	path = xasprintf("%s/samples/node-%s.tsv.gz", run, host);
	check_tsv(r, path, "nodeload", sampler_node_cols, strs, NULL);
	free(path);
}

int
check_run(const char *run, struct check_report *r, struct err *e)
{
	char **hosts = NULL;	/* distinct hosts of the ranks */
	size_t nhosts = 0, hosts_cap = 0;
	int64_t nranks;
	bool capture_on = true;
	struct rankmap *rm;

	memset(r, 0, sizeof *r);
	r->start_cost_ns = r->stop_cost_ns = -1;
	if (access(run, R_OK | X_OK) != 0)
		return err_sys(e, E_IO, "cannot read the run directory '%s'", run);
	nranks = check_run_file(r, run, &capture_on);
	r->nranks = (int)nranks;
	rm = check_rankmap(r, run);
	for (int64_t rank = 0; rank < nranks; rank++)
		check_rank(r, rm, run, rank, &hosts, &nhosts, &hosts_cap);
	r->nnodes = (int)nhosts;
	for (size_t i = 0; i < nhosts; i++) {
		check_node(r, run, hosts[i], capture_on);
		free(hosts[i]);
	}
	free(hosts);
	rankmap_free(rm);
	return 0;
}
