/* analyze: parse, infer, predict, explain and report a run in one go. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "explain/stage.h"
#include "infer/stage.h"
#include "lib/err.h"
#include "lib/tsv.h"
#include "parse/parse_cmd.h"
#include "predict/predict_cmd.h"
#include "report/stage.h"

const char usage_analyze[] =
	"usage: contend analyze [--scenario FILE]... [--force] RUN\n"
	"\n"
	"Run the stages after collect on RUN, in order: parse, infer, predict (once per\n"
	"--scenario), explain (RUN/explain.tsv, no table) and report. Each stage reads what\n"
	"the one before wrote in RUN/.\n"
	"A stage that fails or reports damaged input (exit status 1) stops the chain; its\n"
	"message says why. A parse that recorded its completion (RUN/profile/stats.tsv says\n"
	"complete yes) and an inferred network (RUN/topology.tsv) already in RUN are kept\n"
	"unless --force, so adding a scenario later runs only predict, explain and report; a\n"
	"partial parse stops analyze.\n"
	"\n"
	"options:\n"
	"  -s, --scenario FILE   a what-if scenario for predict (repeatable)\n"
	"  -f, --force           redo every stage, overwriting earlier results in RUN/\n"
	"  -h, --help            this text\n"
	"\n"
	"examples:\n"
	"  contend analyze traces/stencil-4ws\n"
	"  contend analyze --scenario traces/scenarios/stencil-load-c3ws2.ini traces/stencil-4ws\n"
	"  contend analyze --force traces/stencil-4ws      # parse and infer again\n";

#define MAX_SCEN 32

/* True when RUN/rel exists: a stage's last output, the sign it completed. */
static bool
have(const char *run, const char *rel)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof path, "%s/%s", run, rel) >= (int)sizeof path)
		return false;
	return access(path, F_OK) == 0;
}

/* True when RUN/profile/stats.tsv records a complete parse ("complete" "yes"). */
static bool
parse_complete(const char *run)
{
	char path[PATH_MAX], v[16];
	struct err e;

	return snprintf(path, sizeof path, "%s/profile/stats.tsv", run) < (int)sizeof path &&
	       tsv_kv_lookup(path, "stats", "complete", v, sizeof v, &e) == 1 && strcmp(v, "yes") == 0;
}

int
cmd_analyze(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *scen[MAX_SCEN];	/* scenario files, borrowed from argv */
	int nscen = 0;
	bool force = false;
	char *run;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "s:fh", longopts, usage_analyze)) != -1) {
		if (c == 's') {
			if (nscen == MAX_SCEN)
				die_usage("analyze: at most %d scenarios", MAX_SCEN);
			scen[nscen++] = optarg;
		} else if (c == 'f') {
			force = true;
		}
	}
	if (optind + 1 != argc)
		die_usage("analyze: expected one RUN directory (see 'contend analyze --help')");
	run = argv[optind];
	/* Arguments first: a missing scenario must not be found after parse and infer ran. */
	{
		struct stat sb;

		if (stat(run, &sb) != 0 || !S_ISDIR(sb.st_mode))
			die("analyze: cannot open run directory '%s'", run);
	}
	for (int i = 0; i < nscen; i++)
		if (access(scen[i], R_OK) != 0)
			die("analyze: cannot read scenario '%s': %s", scen[i], strerror(errno));

	if (!force && have(run, "profile/stats.tsv")) {
		/* Only a parse that recorded its completion is kept: a damaged run's profile
		 * (complete partial), or one cut short, is not taken for a whole one. */
		if (!parse_complete(run)) {
			warnx_("analyze: '%s/profile' is not a complete parse (stats.tsv does not say "
			       "complete yes; its warnings are in profile/warnings.tsv): stopping; "
			       "'contend analyze --force' parses again, or run infer, predict and report "
			       "by hand to use it as it is", run);
			return 1;
		}
		note("analyze: parse: keeping %s/profile (--force parses again)", run);
	} else {
		struct parse_opts po;

		parse_opts_init(&po);
		po.run = run;
		po.force = force;
		po.table = err_verbosity == 0 ? NULL : stdout;
		note("analyze: parse");
		if ((rc = parse_cmd_run(&po)) != 0)
			return rc;
	}
	if (!force && have(run, "topology.tsv")) {
		note("analyze: infer: keeping %s/topology.tsv (--force infers again)", run);
	} else {
		struct infer_opts io;	/* infer always writes its files anew */
		struct err e;

		infer_opts_init(&io);
		io.run = run;
		io.graph = err_verbosity >= 1 ? stdout : NULL;
		note("analyze: infer");
		if ((rc = infer_run(&io, &e)) < 0)
			die("infer: %s", e.msg);
		if (rc != 0)
			return rc;
	}
	for (int i = 0; i < nscen; i++) {
		struct predict_opts po;

		predict_opts_init(&po);
		po.run = run;
		po.scenario = scen[i];
		note("analyze: predict");
		if ((rc = predict_cmd_run(&po)) != 0)
			return rc;
	}
	{
		struct explain_opts eo = { .run = run };	/* RUN/explain.tsv, no table */
		struct explain_result er;
		struct err e;

		note("analyze: explain");
		rc = explain_run(&eo, &er, &e);
		explain_result_release(&er);
		if (rc < 0)
			die("%s", e.msg);
	}
	{
		const char *runs[] = { run };
		struct report_opts ro;

		report_opts_init(&ro);
		ro.runs = runs;
		ro.nruns = 1;
		note("analyze: report");
		return report_run(&ro);
	}
}
