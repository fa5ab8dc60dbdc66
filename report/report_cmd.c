/* report: the `contend report` command. */
#include <stdio.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_report[] =
	"usage: contend report [OPTIONS]\n"
	"\n"
	"Not built yet in this version.\n";

int
cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while (cli_getopt(argc, argv, "h", longopts, usage_report) != -1)
		;
	(void)argc;
	die("report: not built yet in this version");
}
