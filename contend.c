/* contend: the entry point; it holds the command table and nothing else. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/err.h"

const struct cmd commands[] = {
	{ "collect", cmd_collect, "record a job's packets and CPU samples through its launcher", usage_collect },
	{ "parse", cmd_parse, "rebuild MPI messages and CPU busy/idle phases from a run", usage_parse },
	{ "infer", cmd_infer, "infer the logical network (ENV graph) of a run, or probe it", usage_infer },
	{ "predict", cmd_predict, "predict run time under competing load or changed links", usage_predict },
	{ "report", cmd_report, "draw a run's PDF report", usage_report },
	{ "export", cmd_export, "write a parsed run for Perfetto, OTF2 readers (Vampir) or SimGrid", usage_export },
	{ "analyze", cmd_analyze, "parse, infer, predict and report in one go", usage_analyze },
	{ "trim", cmd_trim, "cut a full capture down to the bytes parse reads", usage_trim },
	{ "testbed", cmd_testbed, "a shared, heterogeneous cluster in network namespaces", usage_testbed },
	{ "version", cmd_version, "print versions", usage_version },
	{ "help", cmd_help, "show help for contend or a command", usage_help },
	{ NULL, NULL, NULL, NULL },
};

int
main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2)
		return cmd_help(1, (char *[]){ "help", NULL });
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(argc - 1, argv + 1);
	c = cmd_find(argv[1]);
	if (c == NULL)
		die_usage("unknown command '%s' (see 'contend help')", argv[1]);
	return c->fn(argc - 1, argv + 1);
}
