/* collect: the `contend collect` command. */
#include <stdio.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_collect[] =
	"usage: contend collect [OPTIONS]\n"
	"\n"
	"Not built yet in this version.\n";

int
cmd_collect(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while (cli_getopt(argc, argv, "h", longopts, usage_collect) != -1)
		;
	(void)argc;
	die("collect: not built yet in this version");
}
