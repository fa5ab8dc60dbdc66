/* report: the `contend report` command: its options (the stage, RUN/report.pdf and
 * RUN/figures/ for each run given, is report/stage.c). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "predict/profile.h"
#include "report/stage.h"

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
	struct report_opts o;
	int opt, n;

	report_opts_init(&o);
	while ((opt = cli_getopt(argc, argv, "o:qvh", longopts, usage_report)) != -1) {
		switch (opt) {
		case 'A': o.accuracy = optarg; break;
		case 'o': o.out = optarg; break;
		case 'P': o.png = false; break;
		case 'G':
			if (strcmp(optarg, "node") == 0) {
				o.group_by = -1;
			} else {
				char *end;
				long v = strtol(optarg, &end, 10);

				if (*optarg == '\0' || *end != '\0' || v < 1 || v > PROF_MAX_RANKS)
					die_usage("report: --group-by takes 'node' or a number of ranks "
						  "('%s' given)", optarg);
				o.group_by = (int)v;
			}
			break;
		case 'q': err_verbosity = 0; break;
		case 'v': err_verbosity = 2; break;
		default: break;
		}
	}
	n = argc - optind;
	if (o.accuracy != NULL) {
		if (n > 0)
			die_usage("report: --accuracy takes no run directory ('%s' given)", argv[optind]);
		if (*o.accuracy == '\0' || (o.out != NULL && *o.out == '\0'))
			die_usage("report: an empty directory or file name");
	} else {
		if (o.out != NULL)
			die_usage("report: -o goes with --accuracy (a run's report is RUN/report.pdf)");
		if (n < 1)
			die_usage("report: no run directory given (see 'contend report --help')");
		o.runs = (const char *const *)argv + optind;
		o.nruns = n;
	}
	return report_run(&o);
}
