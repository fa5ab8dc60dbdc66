/* testbed: the `contend testbed` command. */
#include <stdio.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_testbed[] =
	"usage: contend testbed [OPTIONS]\n"
	"\n"
	"Not built yet in this version.\n";

int
cmd_testbed(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while (cli_getopt(argc, argv, "h", longopts, usage_testbed) != -1)
		;
	(void)argc;
	die("testbed: not built yet in this version");
}
