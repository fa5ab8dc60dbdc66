/* report: the `contend report` command: RUN/report.pdf and RUN/figures/ for each run given. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "lib/xalloc.h"
#include "report/accuracy.h"
#include "report/data.h"
#include "report/pages.h"
#include "report/pdf.h"
#include "report/plot.h"

const char usage_report[] =
	"usage: contend report [OPTIONS] RUN [RUN...]\n"
	"       contend report --accuracy DIR [-o FILE.pdf] [OPTIONS]\n"
	"\n"
	"Draw each run's report: RUN/report.pdf (one multi-page PDF) and every figure alone as\n"
	"PDF and PNG in RUN/figures/. Pages: front page (run, hosts, date, drops, parse\n"
	"statistics), per-rank timeline, communication matrix, message size distribution, the\n"
	"execution characteristics table (paper 003 Figure 3), predicted vs measured per scenario\n"
	"(paper 003 Figure 4), slowdown curves (paper 000), speedup and efficiency over several\n"
	"runs of one program (paper 002), the topology graph from 'contend infer', and the work\n"
	"rate per candidate master of a master/slave run (paper 001). Pages that do not apply\n"
	"are left out; the front page says which and why.\n"
	"\n"
	"Reads RUN/meta/, RUN/profile/ (contend parse), RUN/predict/ (contend predict) and\n"
	"RUN/topology.pdf (contend infer). Needs gnuplot (or CONTEND_GNUPLOT=PROGRAM) and\n"
	"poppler-utils (pdfunite, pdftoppm).\n"
	"\n"
	"With --accuracy DIR, draw instead the validation report of a results directory written by\n"
	"bench/accuracy (DIR/accuracy.tsv and DIR/fig3.tsv, docs/formats.md \"accuracy\"):\n"
	"DIR/accuracy.pdf with the execution characteristics of every workload (paper 003\n"
	"Figure 3), one chart per scenario of predicted and measured time per workload with the\n"
	"dedicated run = 100, min-max whiskers and the error on each predicted bar (Figure 4),\n"
	"and the average and largest |error| per scenario and model next to the papers' figures;\n"
	"each page alone in DIR/figures/, and the summary as DIR/summary.tsv.\n"
	"\n"
	"Options:\n"
	"  --accuracy DIR  the validation report of DIR (no RUN then)\n"
	"  -o FILE.pdf     with --accuracy: write the PDF here (default DIR/accuracy.pdf)\n"
	"  --no-png        write no PNG figures\n"
	"  --group-by node|N  the table and explain pages: one row per node, or per N\n"
	"                  consecutive ranks (default: per rank up to 64 ranks; above, per\n"
	"                  node when at most 32 nodes, else groups of a power of two ranks)\n"
	"  -q, --quiet     print only errors\n"
	"  -v, --verbose   say what each page does\n"
	"  -h, --help      this text\n"
	"\n"
	"Exit status: 0 every report written with every page that applies, 1 a page or a\n"
	"report failed (the others are still written), 2 usage.\n"
	"\n"
	"Examples:\n"
	"  contend report run1\n"
	"  contend report ws1 ws2 ws4 ws8      # adds speedup/efficiency across the four runs\n"
	"  contend report --group-by 16 big1   # 1024 ranks: rows of 16 ranks\n"
	"  CONTEND_GNUPLOT=/opt/gnuplot/bin/gnuplot contend report run1\n"
	"  contend report --accuracy results/acc1             # results/acc1/accuracy.pdf\n"
	"  contend report --accuracy results/acc1 -o acc.pdf --no-png\n";

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

int
cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "accuracy", required_argument, NULL, 'A' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-png", no_argument, NULL, 'P' },
		{ "group-by", required_argument, NULL, 'G' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct rep_run *runs;
	const struct rep_run **all;
	bool png = true;
	int opt, n, status = 0, nok = 0;
	int group_by = 0;	/* 0 automatic, -1 by node, N ranks per group */
	const char *acc_dir = NULL, *out = NULL;

	while ((opt = cli_getopt(argc, argv, "o:qvh", longopts, usage_report)) != -1) {
		switch (opt) {
		case 'A': acc_dir = optarg; break;
		case 'o': out = optarg; break;
		case 'P': png = false; break;
		case 'G':
			if (strcmp(optarg, "node") == 0) {
				group_by = -1;
			} else {
				char *end;
				long v = strtol(optarg, &end, 10);

				if (*optarg == '\0' || *end != '\0' || v < 1 || v > PROF_MAX_RANKS)
					die_usage("report: --group-by takes 'node' or a number of ranks "
						  "('%s' given)", optarg);
				group_by = (int)v;
			}
			break;
		case 'q': err_verbosity = 0; break;
		case 'v': err_verbosity = 2; break;
		default: break;
		}
	}
	n = argc - optind;
	if (acc_dir != NULL) {
		if (n > 0)
			die_usage("report: --accuracy takes no run directory ('%s' given)", argv[optind]);
		if (*acc_dir == '\0' || (out != NULL && *out == '\0'))
			die_usage("report: an empty directory or file name");
		signal(SIGPIPE, SIG_IGN);
		return report_accuracy(acc_dir, out, png);
	}
	if (out != NULL)
		die_usage("report: -o goes with --accuracy (a run's report is RUN/report.pdf)");
	if (n < 1)
		die_usage("report: no run directory given (see 'contend report --help')");
	signal(SIGPIPE, SIG_IGN);	/* a gnuplot that dies must not kill us while we write to it */
	runs = xcalloc((size_t)n, sizeof *runs);
	all = xcalloc((size_t)n, sizeof *all);
	for (int i = 0; i < n; i++) {
		struct err e;

		if (rep_run_load(&runs[i], argv[optind + i], &e) < 0) {
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
