/* report stage: each run's RUN/report.pdf and RUN/figures/, or the validation report of a
 * bench/accuracy results directory (the logic of `contend report`). */
#include "report/stage.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/xalloc.h"
#include "report/accuracy.h"
#include "report/data.h"
#include "report/pages.h"
#include "report/pdf.h"
#include "report/plot.h"

static int
ensure_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* One run's report. Returns 0, or 1 when something failed (already said). */
static int
report_one(const struct page_ctx *c, bool png)
{
	const struct rep_run *r = c->run;
	int npages = 0;
	int included[32] = { 0 };
	char whybuf[32][ERR_MSG_MAX];
	const char *why[32] = { 0 };
	const char *inputs[PDF_MAX_PAGES];
	char *paths[PDF_MAX_PAGES] = { 0 };
	int ninputs = 0, failed = 0, left = 0;
	char *figdir = xasprintf("%s/figures", r->dir);
	char *out;
	struct err e;

	if (ensure_dir(figdir) < 0) {
		warnx_("report: cannot create '%s': %s", figdir, strerror(errno));
		free(figdir);
		return 1;
	}
	for (int i = 0; pages[i].id != NULL; i++) {
		char *pdf = xasprintf("%s/%s.pdf", figdir, pages[i].id);
		char *pngp = xasprintf("%s/%s.png", figdir, pages[i].id);
		struct plot p;
		int rc;

		npages++;
		whybuf[i][0] = '\0';
		if (pages[i].fn == NULL) {	/* the topology page: infer's own drawing */
			char *topo = xasprintf("%s/topology.pdf", r->dir);

			if (!r->have_topo_pdf) {
				snprintf(whybuf[i], sizeof whybuf[i], "no topology.pdf (run 'contend infer RUN')");
				rc = 0;
			} else if (pdf_copy(topo, pdf, &e) < 0 || (png && pdf_to_png(pdf, pngp, 80, &e) < 0)) {
				snprintf(whybuf[i], sizeof whybuf[i], "%s", e.msg);
				rc = -1;
			} else {
				rc = 1;
			}
			free(topo);
		} else {
			plot_init(&p);
			rc = pages[i].fn(c, &p, whybuf[i], sizeof whybuf[i]);
			if (rc > 0 && plot_render(&p, pdf, png ? pngp : NULL, &e) < 0) {
				snprintf(whybuf[i], sizeof whybuf[i], "%s", e.msg);
				rc = -1;
			}
			plot_release(&p);
		}
		if (rc > 0) {
			included[i] = 1;
			paths[ninputs + 1] = pdf;
			ninputs++;
			verbose("report: %s: page '%s' drawn", r->name, pages[i].id);
		} else {
			if (rc < 0) {
				warnx_("report: %s: page '%s' failed: %s", r->name, pages[i].id, whybuf[i]);
				failed++;
			} else {
				verbose("report: %s: page '%s' left out: %s", r->name, pages[i].id, whybuf[i]);
			}
			left++;
			why[i] = whybuf[i];
			unlink(pdf);	/* no stale figure from an earlier report */
			unlink(pngp);
			free(pdf);
		}
		free(pngp);
	}
	(void)npages;
	{
		char *pdf = xasprintf("%s/01-front.pdf", figdir);
		char *pngp = xasprintf("%s/01-front.png", figdir);
		struct plot p;
		char ew[ERR_MSG_MAX];

		plot_init(&p);
		if (page_front(c, &p, included, why, ew, sizeof ew) < 0 ||
		    plot_render(&p, pdf, png ? pngp : NULL, &e) < 0) {
			warnx_("report: %s: front page failed: %s", r->name, e.msg);
			plot_release(&p);
			free(pngp);
			free(pdf);
			for (int i = 1; i <= ninputs; i++)
				free(paths[i]);
			free(figdir);
			return 1;
		}
		plot_release(&p);
		free(pngp);
		paths[0] = pdf;
	}
	for (int i = 0; i <= ninputs; i++)
		inputs[i] = paths[i];
	out = xasprintf("%s/report.pdf", r->dir);
	if (pdf_join(inputs, ninputs + 1, out, &e) < 0) {
		warnx_("report: %s", e.msg);
		failed++;
	} else {
		note("report: wrote '%s' (%d pages; %d left out, see its front page)", out, ninputs + 1, left);
	}
	for (int i = 0; i <= ninputs; i++)
		free(paths[i]);
	free(out);
	free(figdir);
	return failed ? 1 : 0;
}

/* Remove the figures an earlier validation report left in figdir ("NN-fig3", "NN-fig4-*",
 * "NN-summary", as .pdf and .png): the scenarios may have changed since. Only names of that
 * shape are touched. */
static void
remove_old_accuracy_figures(const char *figdir)
{
	DIR *d = opendir(figdir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name, *rest = n + 3;
		size_t len = strlen(n);
		char *path;

		if (len < 8 || n[0] < '0' || n[0] > '9' || n[1] < '0' || n[1] > '9' || n[2] != '-')
			continue;
		if (strcmp(n + len - 4, ".pdf") != 0 && strcmp(n + len - 4, ".png") != 0)
			continue;
		if (strncmp(rest, "fig4-", 5) != 0 && strcmp(rest, "fig3.pdf") != 0 && strcmp(rest, "fig3.png") != 0 &&
		    strcmp(rest, "summary.pdf") != 0 && strcmp(rest, "summary.png") != 0)
			continue;
		path = xasprintf("%s/%s", figdir, n);
		if (unlink(path) == 0)
			verbose("report: removed the earlier figure '%s'", path);
		free(path);
	}
	closedir(d);
}

/* The validation report of a bench/accuracy results directory. Returns the exit status. */
static int
report_accuracy(const char *dir, const char *out_arg, bool png)
{
	struct acc_data d;
	struct acc_sum *sums = xcalloc(ACC_MAX_SCEN * ACC_MAX_MODEL, sizeof *sums);
	const char *inputs[PDF_MAX_PAGES];
	char *paths[PDF_MAX_PAGES] = { 0 };
	int nsum, ninputs = 0, status = 0;
	char *figdir, *path;
	struct err e;

	if (acc_load(&d, dir, &e) < 0) {
		warnx_("report: %s", e.msg);
		acc_free(&d);
		free(sums);
		return 1;
	}
	if (d.damaged > 0)
		warnx_("report: '%s': %ld damaged rows skipped (first: %s)", dir, d.damaged, d.first_damage);
	if (d.inconsistent > 0)
		warnx_("report: '%s': %ld rows whose error_pct disagrees with their times, recomputed (first: %s)", dir,
		       d.inconsistent, d.first_inconsistent);
	if (d.rows_dropped > 0)
		warnx_("report: '%s': %ld rows left out: more than %d rows, %d scenarios, %d workloads or %d models", dir,
		       d.rows_dropped, ACC_MAX_ROWS, ACC_MAX_SCEN, ACC_MAX_WORK, ACC_MAX_MODEL);
	if (!d.have_fig3) {
		warnx_("report: %s (the Figure 3 page is left out)", d.fig3_why);
		status = 1;
	}
	nsum = acc_summarize(&d, sums, ACC_MAX_SCEN * ACC_MAX_MODEL);
	path = xasprintf("%s/summary.tsv", dir);
	if (acc_write_summary(path, sums, nsum, &e) < 0) {
		warnx_("report: %s", e.msg);
		status = 1;
	} else {
		verbose("report: wrote '%s' (%d rows)", path, nsum);
	}
	free(path);
	figdir = xasprintf("%s/figures", dir);
	if (ensure_dir(figdir) < 0) {
		warnx_("report: cannot create '%s': %s", figdir, strerror(errno));
		free(figdir);
		free(sums);
		acc_free(&d);
		return 1;
	}
	remove_old_accuracy_figures(figdir);
	for (int k = 0; k < d.nscen + 2 && ninputs < PDF_MAX_PAGES; k++) {
		char stem[128], s[96], why[ERR_MSG_MAX] = "";
		char *pdf, *pngp;
		struct plot p;
		int rc;

		plot_init(&p);
		if (k == 0) {
			snprintf(stem, sizeof stem, "01-fig3");
			rc = acc_page_fig3(&d, &p, why, sizeof why);
		} else if (k <= d.nscen) {
			acc_scen_stem(&d, k - 1, s, sizeof s);
			snprintf(stem, sizeof stem, "%02d-%s", k + 1, s);
			rc = acc_page_scenario(&d, k - 1, &p, why, sizeof why);
		} else {
			snprintf(stem, sizeof stem, "%02d-summary", k + 1);
			rc = acc_page_summary(&d, sums, nsum, &p, why, sizeof why);
		}
		pdf = xasprintf("%s/%s.pdf", figdir, stem);
		pngp = xasprintf("%s/%s.png", figdir, stem);
		if (rc > 0 && plot_render(&p, pdf, png ? pngp : NULL, &e) < 0) {
			snprintf(why, sizeof why, "%s", e.msg);
			rc = -1;
		}
		plot_release(&p);
		if (rc > 0) {
			paths[ninputs++] = pdf;
			verbose("report: '%s': page '%s' drawn", dir, stem);
		} else {
			if (rc < 0) {
				warnx_("report: '%s': page '%s' failed: %s", dir, stem, why);
				status = 1;
			} else {
				verbose("report: '%s': page '%s' left out: %s", dir, stem, why);
			}
			unlink(pdf);	/* no stale figure from an earlier report */
			unlink(pngp);
			free(pdf);
		}
		free(pngp);
	}
	if (ninputs == 0) {
		warnx_("report: '%s': no page could be drawn", dir);
		status = 1;
	} else {
		char *out = out_arg != NULL ? xstrdup(out_arg) : xasprintf("%s/accuracy.pdf", dir);

		for (int i = 0; i < ninputs; i++)
			inputs[i] = paths[i];
		if (pdf_join(inputs, ninputs, out, &e) < 0) {
			warnx_("report: %s", e.msg);
			status = 1;
		} else {
			note("report: wrote '%s' (%d pages: %d scenarios, %d workloads, %d models)", out, ninputs, d.nscen,
			     d.nwork, d.nmodel);
		}
		free(out);
	}
	for (int i = 0; i < ninputs; i++)
		free(paths[i]);
	free(figdir);
	free(sums);
	acc_free(&d);
	return status;
}

/* Each run's report. Returns the exit status. */
static int
report_runs(const char *const *dirs, int n, bool png, int group_by)
{
	struct rep_run *runs;
	const struct rep_run **all;
	int status = 0, nok = 0;

	runs = xcalloc((size_t)n, sizeof *runs);
	all = xcalloc((size_t)n, sizeof *all);
	for (int i = 0; i < n; i++) {
		struct err e;

		if (rep_run_load(&runs[i], dirs[i], &e) < 0) {
			warnx_("report: %s", e.msg);
			status = 1;
			continue;
		}
		all[nok++] = &runs[i];
	}
	for (int i = 0; i < nok; i++) {
		struct page_ctx c = { all[i], all, nok, group_by };

		if (!all[i]->have_stats && !all[i]->have_prof) {
			warnx_("report: '%s' is not parsed (no profile/): run 'contend parse %s' first",
			       all[i]->dir, all[i]->dir);
			status = 1;
			continue;
		}
		if (all[i]->partial || all[i]->warn_total > 0) {
			warnx_("report: %s: the profile rests on damaged input (%ld parse warning%s; the "
			       "front page lists them)", all[i]->name, all[i]->warn_total,
			       all[i]->warn_total == 1 ? "" : "s");
			status = 1;
		}

		if (all[i]->damaged > 0)
			warnx_("report: %s: %ld damaged rows skipped (first: %s)", all[i]->name, all[i]->damaged,
			       all[i]->first_damage);
		if (all[i]->have_prof && all[i]->prof.damaged > 0)
			warnx_("report: %s: %ld damaged profile rows skipped by the model reader (first: %s)", all[i]->name,
			       all[i]->prof.damaged, all[i]->prof.first_damage);
		if (report_one(&c, png) != 0)
			status = 1;
	}
	for (int i = 0; i < n; i++)
		rep_run_free(&runs[i]);
	free(runs);
	free(all);
	return status;
}

void
report_opts_init(struct report_opts *o)
{
	*o = (struct report_opts){ .png = true };
}

int
report_run(const struct report_opts *o)
{
	signal(SIGPIPE, SIG_IGN);	/* a gnuplot that dies must not kill us while we write to it */
	if (o->accuracy != NULL)
		return report_accuracy(o->accuracy, o->out, o->png);
	return report_runs(o->runs, o->nruns, o->png, o->group_by);
}
