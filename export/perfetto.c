/* perfetto: write a run as Chrome trace event JSON ("Trace Event Format", Google, the
 * document of 2016 that chrome://tracing and ui.perfetto.dev both read). */
#include "export/perfetto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

#define PF_TID(rank) ((rank) + 1)	/* a rank's thread id: no thread has id 0 */
#define PF_MAX_CELLS (1L << 22)	/* throughput bins over all host pairs */
#define PF_MAX_PAIRS 65536	/* hosts squared: more hosts get no throughput counters */

/* Length of the UTF-8 sequence at s (1-4), or 0 when it is not valid UTF-8. */
static int
utf8_len(const unsigned char *s)
{
	int n;
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three- and four-byte forms, surrogates and code points past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

void
perfetto_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");

	putc('"', f);
	while (*p != '\0') {
		int n = utf8_len(p);

		if (*p == '"' || *p == '\\') {
			putc('\\', f);
			putc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else {
			fwrite(p, 1, (size_t)n, f);
			p += n;
		}
	}
	putc('"', f);
}

/* Microseconds since the trace's origin, with nanosecond digits. */
static void
put_ts(FILE *f, const struct xtrace *x, const char *key, int64_t t_ns)
{
	int64_t d = t_ns - x->t0_ns;
	uint64_t a = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;

	fprintf(f, ",\"%s\":%s%" PRIu64 ".%03" PRIu64, key, d < 0 ? "-" : "", a / 1000, a % 1000);
}

static void
metadata(FILE *f, const struct xtrace *x)
{
	for (int h = 0; h < x->nhosts; h++) {
		/* the first event of the array: every later one starts with its comma */
		fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":",
			h == 0 ? "\n" : ",\n", h + 1);
		perfetto_json_str(f, x->hosts[h]);
		fprintf(f, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,"
			   "\"args\":{\"sort_index\":%d}}", h + 1, h);
	}
	for (int i = 0; i < x->p.nranks; i++) {
		int r = x->p.ranks[i].rank;

		fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
			   "\"args\":{\"name\":\"rank %d\"}}", x->host_of[i] + 1, PF_TID(r), r);
		fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,"
			   "\"args\":{\"sort_index\":%d}}", x->host_of[i] + 1, PF_TID(r), r);
	}
}

static void
phases(FILE *f, const struct xtrace *x, struct perfetto_stats *st)
{
	for (long k = 0; k < x->nph; k++) {
		const struct xt_phase *ph = &x->ph[k];

		fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"cpu\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d",
			ph->busy ? "busy" : "idle", xtrace_host(x, ph->rank) + 1, PF_TID(ph->rank));
		put_ts(f, x, "ts", ph->t0_ns);
		fprintf(f, ",\"dur\":%" PRId64 ".%03" PRId64 ",\"args\":{\"run_ns\":%" PRId64 "}}",
			(ph->t1_ns - ph->t0_ns) / 1000, (ph->t1_ns - ph->t0_ns) % 1000, ph->run_ns);
		st->slices++;
	}
}

/* One end of a message: its slice and the flow event bound to it (same cat, pid, tid, ts). */
static void
msg_end(FILE *f, const struct xtrace *x, const struct prof_msg *m, long id, bool send)
{
	int rank = send ? m->src : m->dst, peer = send ? m->dst : m->src;
	int64_t t = send ? m->t_ns : m->t_last_ns;
	const char *coll = m->name > 0 ? x->p.names[m->name - 1] : NULL;
	int pid = xtrace_host(x, rank) + 1;

	fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"mpi\",\"name\":\"%s%s%s%s\",\"pid\":%d,\"tid\":%d", send ? "send" : "recv",
		coll != NULL ? " (" : "", coll != NULL ? coll : "", coll != NULL ? ")" : "", pid, PF_TID(rank));
	put_ts(f, x, "ts", t);
	fprintf(f, ",\"dur\":0,\"args\":{\"%s\":%d,\"bytes\":%" PRId64, send ? "to" : "from", peer, m->bytes);
	if (m->have_tag)
		fprintf(f, ",\"tag\":%d", (int)m->tag);
	if (m->cid >= 0)
		fprintf(f, ",\"comm\":%d", (int)m->cid);
	fprintf(f, ",\"wire_ns\":%" PRId64 "}}", m->t_last_ns - m->t_ns);
	fprintf(f, ",\n{\"ph\":\"%s\",\"cat\":\"mpi\",\"name\":\"message\",\"id\":%ld,\"pid\":%d,\"tid\":%d%s",
		send ? "s" : "f", id, pid, PF_TID(rank), send ? "" : ",\"bp\":\"e\"");
	put_ts(f, x, "ts", t);
	fputc('}', f);
}

static void
messages(FILE *f, const struct xtrace *x, struct perfetto_stats *st)
{
	for (long k = 0; k < x->nmsgs; k++) {
		const struct prof_msg *m = &x->p.msgs[x->msgs[k]];

		msg_end(f, x, m, k + 1, true);
		msg_end(f, x, m, k + 1, false);
		st->sends++;
		st->recvs++;
	}
}

static void
load_counters(FILE *f, const struct xtrace *x, struct perfetto_stats *st)
{
	for (long k = 0; k < x->nload; k++) {
		const struct xt_load *l = &x->load[k];

		fprintf(f, ",\n{\"ph\":\"C\",\"name\":\"foreign CPU load\",\"pid\":%d", l->host + 1);
		put_ts(f, x, "ts", l->t0_ns);
		fprintf(f, ",\"args\":{\"CPUs\":%.4f}}", l->foreign_cpus);
		fprintf(f, ",\n{\"ph\":\"C\",\"name\":\"node CPU load\",\"pid\":%d", l->host + 1);
		put_ts(f, x, "ts", l->t0_ns);
		fprintf(f, ",\"args\":{\"CPUs\":%.4f}}", l->busy_cpus);
		st->counters += 2;
	}
}

/* One counter series per directed host pair with messages: bytes per bin, each message's
 * bytes spread evenly over its time on the wire, written as MB/s with a 0 after the last
 * bin. The bin grows until pairs x bins fits PF_MAX_CELLS. */
static void
link_counters(FILE *f, const struct xtrace *x, int64_t bin_ns, struct perfetto_stats *st)
{
	int64_t span = x->t1_ns - x->t0_ns + 1;
	size_t nh = (size_t)x->nhosts;
	int *pair;		/* [nh * nh]: series index of a host pair, -1 none */
	int npairs = 0;
	long nbins;
	double *bytes;

	if (nh * nh > PF_MAX_PAIRS)
		return;
	pair = xmallocarray(nh * nh, sizeof *pair);
	for (size_t k = 0; k < nh * nh; k++)
		pair[k] = -1;
	for (long k = 0; k < x->nmsgs; k++) {
		const struct prof_msg *m = &x->p.msgs[x->msgs[k]];
		size_t a = (size_t)xtrace_host(x, m->src), b = (size_t)xtrace_host(x, m->dst);

		if (a != b && pair[a * nh + b] < 0)
			pair[a * nh + b] = npairs++;
	}
	if (bin_ns <= 0)
		bin_ns = span / 500 > 1000000 ? span / 500 : 1000000;
	if (npairs > 0 && (span / bin_ns + 1) * npairs > PF_MAX_CELLS)
		bin_ns = span / (PF_MAX_CELLS / npairs - 1) + 1;
	nbins = (long)(span / bin_ns + 1);
	bytes = xcalloc((size_t)nbins * (size_t)npairs + 1, sizeof *bytes);
	for (long k = 0; k < x->nmsgs; k++) {
		const struct prof_msg *m = &x->p.msgs[x->msgs[k]];
		size_t a = (size_t)xtrace_host(x, m->src), b = (size_t)xtrace_host(x, m->dst);
		int64_t t0 = m->t_ns - x->t0_ns, t1 = m->t_last_ns - x->t0_ns;
		double *row;

		if (a == b)
			continue;
		row = bytes + (size_t)pair[a * nh + b] * (size_t)nbins;
		if (t1 == t0) {
			row[t0 / bin_ns] += (double)m->bytes;
			continue;
		}
		for (long i = (long)(t0 / bin_ns); i <= (long)(t1 / bin_ns); i++) {
			int64_t lo = i * bin_ns > t0 ? i * bin_ns : t0;
			int64_t hi = (i + 1) * bin_ns < t1 ? (i + 1) * bin_ns : t1;

			if (hi > lo)
				row[i] += (double)m->bytes * (double)(hi - lo) / (double)(t1 - t0);
		}
	}
	for (size_t a = 0; a < nh; a++) {
		for (size_t b = 0; b < nh; b++) {
			char name[2 * PROF_HOST_MAX + 16];
			const double *row;

			if (pair[a * nh + b] < 0)
				continue;
			row = bytes + (size_t)pair[a * nh + b] * (size_t)nbins;
			snprintf(name, sizeof name, "link %s -> %s", x->hosts[a], x->hosts[b]);
			for (long i = 0; i <= nbins; i++) {
				fputs(",\n{\"ph\":\"C\",\"name\":", f);
				perfetto_json_str(f, name);
				fprintf(f, ",\"pid\":%zu", a + 1);
				put_ts(f, x, "ts", x->t0_ns + i * bin_ns);
				fprintf(f, ",\"args\":{\"MB/s\":%.4f}}",
					i < nbins ? row[i] / 1e6 / ((double)bin_ns / 1e9) : 0.0);
				st->counters++;
			}
		}
	}
	free(bytes);
	free(pair);
}

int
perfetto_write(const struct xtrace *x, const char *path, int64_t bin_ns, struct perfetto_stats *st,
	       struct err *e)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;

	memset(st, 0, sizeof *st);
	if (f == NULL) {
		rc = err_sys(e, E_IO, "cannot create '%s'", tmp);
		free(tmp);
		return rc;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"contend " CONTEND_VERSION "\",\"run\":", f);
	perfetto_json_str(f, x->p.run);
	fprintf(f, ",\"origin_real_ns\":%" PRId64 ",\"messages_left_out\":%ld},\n\"traceEvents\":[",
		x->t0_ns, x->msgs_unknown + x->msgs_ctrl);
	metadata(f, x);
	phases(f, x, st);
	messages(f, x, st);
	load_counters(f, x, st);
	link_counters(f, x, bin_ns, st);
	fputs("\n]}\n", f);
	if (ferror(f) | (fclose(f) != 0))
		rc = err_sys(e, E_IO, "cannot write '%s'", tmp);
	else if (rename(tmp, path) < 0)
		rc = err_sys(e, E_IO, "cannot rename '%s' to '%s'", tmp, path);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}
