/* models_fixture: hand-built run profiles for the model adapter tests (test_models_*.c).
 *
 * ms_profile: a master/slave run, rank 0 (ws1) the master, ranks 1..3 (ws2..ws4) slaves; each
 * slave does 50 tasks: a 100-byte hand-out, 10 ms busy, a 900-byte result, then 1 ms busy on
 * the master; cycles every 12 ms, slaves 3 ms apart; a stop message at the end. No netparams
 * (the flat network does not constrain). Every rank's exec_ns is 1 s.
 * stencil_profile: 4 ranks on ws1..ws4, 40 iterations of 8 ms busy then a 4000-byte message
 * to each ring neighbour, 10 ms per iteration; exec_ns 0.5 s; netparams 50 us, 12.5 MB/s. */
#ifndef TESTS_UNIT_MODELS_FIXTURE_H
#define TESTS_UNIT_MODELS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "predict/models.h"
#include "predict/profile.h"
#include "predict/scenario.h"
#include "tests/unit/check.h"

#define FX_BASE_NS 1000000000000LL
#define FX_MS 1000000LL

__attribute__((unused)) static FILE *
fx_open(const char *dir, const char *name, const char *header)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/profile", dir);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/profile/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(2);
	}
	fputs(header, f);
	return f;
}

/* RUN/meta/NAME opened for writing, a key/value meta file's header written: the caller
 * writes its key<TAB>value lines and closes it. */
__attribute__((unused)) static FILE *
fx_meta_open(const char *run, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/meta", run);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/meta/%s", run, name);
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(2);
	}
	fputs("# contend-meta 1\nkey\tvalue\n", f);
	return f;
}

/* Writes a key/value meta file RUN/meta/NAME with one key. */
__attribute__((unused)) static void
fx_meta(const char *run, const char *name, const char *key, const char *value)
{
	FILE *f = fx_meta_open(run, name);

	fprintf(f, "%s\t%s\n", key, value);
	fclose(f);
}

#define FX_MSG_HDR "# contend-messages 1\nt_first_ns\tt_last_ns\tsrc\tdst\tcid\tcomm_src\ttag\ttag_name\tbytes\twire_bytes\tmpi\tproto\tranksrc\tflags\tconn\n"
#define FX_PH_HDR "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n"
#define FX_RANK_HDR "# contend-ranks 1\nrank\thost\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tn_busy\tn_idle\tcpu_pct\trun_ns\twait_ns\tmsgs_sent\tbytes_sent\tmsgs_recv\tbytes_recv\n"
#define FX_LINK_HDR "# contend-links 1\nsrc\tdst\tmsgs\tbytes\tavg_bytes\tactive_ns\tt_first_ns\tt_last_ns\n"

__attribute__((unused)) static void
fx_msg(FILE *f, long long t, int src, int dst, long long bytes)
{
	fprintf(f, "%lld\t%lld\t%d\t%d\t0\t%d\t1\t-\t%lld\t%lld\tompi\teager\thandshake\t-\t0\n", t, t, src, dst,
		src, bytes, bytes + 66);
}

__attribute__((unused)) static void
fx_phase(FILE *f, int rank, const char *kind, long long t0, long long t1)
{
	fprintf(f, "%d\t%s\t%lld\t%lld\t%lld\t0\n", rank, kind, t0, t1, t1 - t0);
}

__attribute__((unused)) static void
fx_ranks(const char *dir, int n, long long exec_ns)
{
	FILE *f = fx_open(dir, "ranks.tsv", FX_RANK_HDR);

	for (int r = 0; r < n; r++)
		fprintf(f, "%d\tws%d\t%lld\t80\t0\t20\t8000000\t2000000\t40\t40\t80\t1\t0\t1\t1\t1\t1\n", r, r + 1,
			exec_ns);
	fclose(f);
}

/* ms_profile; with split, every hand-out and result is two messages 20 us apart, an 8-byte
 * length and then the data (HyPhy's MPI farm). */
__attribute__((unused)) static void
fx_ms_profile(const char *dir, int split)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	FILE *l = fx_open(dir, "links.tsv", FX_LINK_HDR);
	long long d = split ? FX_MS / 50 : 0;	/* the data after its length */

	for (int s = 1; s <= 3; s++) {
		for (int k = 0; k < 50; k++) {
			long long t = FX_BASE_NS + k * 12 * FX_MS + (s - 1) * 3 * FX_MS;
			long long res = t + FX_MS / 5 + 10 * FX_MS;

			if (split)
				fx_msg(m, t, 0, s, 8);
			fx_msg(m, t + d, 0, s, 100);
			fx_phase(ph, s, "busy", t + FX_MS / 10, t + FX_MS / 10 + 10 * FX_MS);
			if (split)
				fx_msg(m, res, s, 0, 8);
			fx_msg(m, res + d, s, 0, 900);
			fx_phase(ph, 0, "busy", res + FX_MS / 20, res + FX_MS / 20 + FX_MS);
			if (k == 49)
				fx_msg(m, res + 2 * FX_MS, 0, s, 8);
		}
		fprintf(l, "0\t%d\t%d\t%d\t%f\t0\t0\t1\n%d\t0\t%d\t%d\t%f\t0\t0\t1\n", s, split ? 101 : 51,
			split ? 5408 : 5008, split ? 5408 / 101.0 : 5008 / 51.0, s, split ? 100 : 50, split ? 45400 : 45000,
			split ? 454.0 : 900.0);
	}
	fclose(m);
	fclose(ph);
	fclose(l);
	fx_ranks(dir, 4, 1000000000LL);
}

__attribute__((unused)) static void
ms_profile(const char *dir)
{
	fx_ms_profile(dir, 0);
}

__attribute__((unused)) static void
stencil_profile(const char *dir)
{
	FILE *m = fx_open(dir, "messages.tsv", FX_MSG_HDR), *ph = fx_open(dir, "phases.tsv", FX_PH_HDR);
	FILE *l = fx_open(dir, "links.tsv", FX_LINK_HDR);
	FILE *np = fx_open(dir, "netparams.tsv", "# contend-netparams 1\nkey\tvalue\nlat_ns\t50000\nbw_Bps\t12500000\n");

	for (int k = 0; k < 40; k++)
		for (int r = 0; r < 4; r++) {
			long long t = FX_BASE_NS + k * 10 * FX_MS;

			fx_phase(ph, r, "busy", t, t + 8 * FX_MS);
			fx_phase(ph, r, "idle", t + 8 * FX_MS, t + 10 * FX_MS);
			fx_msg(m, t + 8 * FX_MS + 1000 * r, r, (r + 1) % 4, 4000);
			fx_msg(m, t + 8 * FX_MS + 1000 * r + 500, r, (r + 3) % 4, 4000);
		}
	for (int r = 0; r < 4; r++)
		fprintf(l, "%d\t%d\t40\t160000\t4000\t0\t0\t1\n%d\t%d\t40\t160000\t4000\t0\t0\t1\n", r, (r + 1) % 4,
			r, (r + 3) % 4);
	fclose(m);
	fclose(ph);
	fclose(l);
	fclose(np);
	fx_ranks(dir, 4, 500000000LL);
}

/* The first breakdown row of a kind and name, or NULL. */
#define FX_ITEM(r, kind_, name_) fx_item((r), (kind_), (name_))
__attribute__((unused)) static const struct pred_item *
fx_item(const struct pred_result *r, const char *kind, const char *name)
{
	for (int i = 0; i < r->nitems; i++)
		if (strcmp(r->items[i].kind, kind) == 0 && strcmp(r->items[i].name, name) == 0)
			return &r->items[i];
	return NULL;
}

/* Name a run directory under the test's scratch directory (into path) and build its
 * profile there with build (NULL: only the directory name). */
__attribute__((unused)) static void
fx_build(char *path, size_t len, const char *name, void (*build)(const char *dir))
{
	snprintf(path, len, "%s/%s", check_tmpdir(), name);
	if (build != NULL)
		build(path);
}

/* Run a model's predict function on run under the scenario text ini, into r (initialised
 * here; the caller frees it). Returns what predict returned, or -1 when the run or the
 * scenario did not load (the reason printed as a comment line). */
__attribute__((unused)) static int
fx_predict_observed(const char *run, const char *ini, double ns_per_pkt, struct pred_result *r,
		    int (*predict)(const struct prof *, const struct scen *, struct pred_result *, struct err *))
{
	struct prof p;
	struct scen s;
	struct err e = { 0 };
	int rc = -1;

	pred_result_init(r);
	if (prof_load(&p, run, &e) == 0 && scen_load_string(&s, ini, "t.ini", &e) == 0) {
		s.observer_ns_per_pkt = ns_per_pkt;	/* predict --observer-cost */
		rc = predict(&p, &s, r, &e);
		scen_free(&s);
	}
	if (rc < 0)
		printf("# %s\n", e.msg);
	prof_free(&p);
	return rc;
}

__attribute__((unused)) static int
fx_predict(const char *run, const char *ini, struct pred_result *r,
	   int (*predict)(const struct prof *, const struct scen *, struct pred_result *, struct err *))
{
	return fx_predict_observed(run, ini, 0, r, predict);
}

#endif
