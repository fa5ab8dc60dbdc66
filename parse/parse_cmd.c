/* parse: the `contend parse` command. */
#include <stdio.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_parse[] =
	"usage: contend parse [OPTIONS]\n"
	"\n"
	"Not built yet in this version.\n";

int
cmd_parse(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while (cli_getopt(argc, argv, "h", longopts, usage_parse) != -1)
		;
	(void)argc;
	die("parse: not built yet in this version");
}
