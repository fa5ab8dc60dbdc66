/* help: `contend help [CMD]`. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_help[] =
	"usage: contend help [COMMAND]\n"
	"\n"
	"Without COMMAND, list the commands; with it, print that command's usage\n"
	"(the same text as 'contend COMMAND --help').\n"
	"\n"
	"examples:\n"
	"  contend help\n"
	"  contend help collect\n";

const struct cmd *
cmd_find(const char *name)
{
	for (const struct cmd *c = commands; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int
cmd_help(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	const struct cmd *c;

	while (cli_getopt(argc, argv, "h", longopts, usage_help) != -1)
		;
	if (optind < argc) {
		if (optind + 1 < argc)
			die_usage("help: unexpected argument '%s'", argv[optind + 1]);
		c = cmd_find(argv[optind]);
		if (c == NULL)
			die_usage("unknown command '%s' (see 'contend help')", argv[optind]);
		fputs(c->usage, stdout);
		return 0;
	}
	help_print(stdout);
	return 0;
}

void
help_print(FILE *f)
{
	fprintf(f, "usage: contend COMMAND [OPTIONS] [ARGS]\n\n"
		"contend watches an MPI program from the outside (packets and 20 ms CPU samples),\n"
		"rebuilds its messages and CPU phases, infers its network and predicts its run\n"
		"time under competing load.\n\ncommands:\n");
	for (const struct cmd *c = commands; c->name != NULL; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
	fprintf(f, "\n'contend help COMMAND' or 'contend COMMAND --help' for one command.\n");
}
