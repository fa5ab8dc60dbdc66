/* analyze: parse, infer, predict, explain and report a run in one go. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_analyze[] =
	"usage: contend analyze [--scenario FILE]... [--force] RUN\n"
	"\n"
	"Run the stages after collect on RUN, in order: parse, infer, predict (once per\n"
	"--scenario), explain (RUN/explain.tsv, no table) and report. Each stage reads what\n"
	"the one before wrote in RUN/.\n"
	"A stage that fails stops the chain; its message says why. A complete parse\n"
	"(RUN/profile/stats.tsv) and an inferred network (RUN/topology.tsv) already in RUN\n"
	"are kept unless --force, so adding a scenario later runs only predict and report.\n"
	"\n"
	"options:\n"
	"  -s, --scenario FILE   a what-if scenario for predict (repeatable)\n"
	"  -f, --force           redo every stage, overwriting earlier results in RUN/\n"
	"  -h, --help            this text\n"
	"\n"
	"examples:\n"
	"  contend analyze traces/stencil-4ws\n"
	"  contend analyze --scenario traces/scenarios/load-ws2.ini traces/stencil-4ws\n"
	"  contend analyze --force traces/stencil-4ws      # parse and infer again\n";

#define MAX_SCEN 32

/* Run one stage's command as if typed; getopt is reset for it. */
static int
stage(char **argv)
{
	const struct cmd *c = cmd_find(argv[0]);
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	if (c == NULL)
		BUG("no command '%s'", argv[0]);
	optind = 0;	/* GNU getopt: reinitialise for the next command */
	note("analyze: %s", argv[0]);
	return c->fn(argc, argv);
}

/* True when RUN/rel exists: a stage's last output, the sign it completed. */
static bool
have(const char *run, const char *rel)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof path, "%s/%s", run, rel) >= (int)sizeof path)
		return false;
	return access(path, F_OK) == 0;
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
	int force = 0;
	char *run;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "s:fh", longopts, usage_analyze)) != -1) {
		if (c == 's') {
			if (nscen == MAX_SCEN)
				die_usage("analyze: at most %d scenarios", MAX_SCEN);
			scen[nscen++] = optarg;
		} else if (c == 'f') {
			force = 1;
		}
	}
	if (optind + 1 != argc)
		die_usage("analyze: expected one RUN directory (see 'contend analyze --help')");
	run = argv[optind];

	if (!force && have(run, "profile/stats.tsv")) {
		note("analyze: parse: keeping %s/profile (--force parses again)", run);
	} else {
		char *a[] = { "parse", force ? "--force" : run, force ? run : NULL, NULL };

		if ((rc = stage(a)) != 0)
			return rc;
	}
	if (!force && have(run, "topology.tsv")) {
		note("analyze: infer: keeping %s/topology.tsv (--force infers again)", run);
	} else {
		char *a[] = { "infer", force ? "--force" : run, force ? run : NULL, NULL };

		if ((rc = stage(a)) != 0)
			return rc;
	}
	for (int i = 0; i < nscen; i++) {
		char *a[] = { "predict", "--scenario", scen[i], run, NULL };

		if ((rc = stage(a)) != 0)
			return rc;
	}
	{
		char *a[] = { "explain", "--quiet", run, NULL };

		if ((rc = stage(a)) != 0)
			return rc;
	}
	{
		char *a[] = { "report", run, NULL };

		return stage(a);
	}
}
