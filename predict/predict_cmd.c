/* predict: the `contend predict` command. */
#include <stdio.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_predict[] =
	"usage: contend predict [OPTIONS]\n"
	"\n"
	"Not built yet in this version.\n";

int
cmd_predict(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while (cli_getopt(argc, argv, "h", longopts, usage_predict) != -1)
		;
	(void)argc;
	die("predict: not built yet in this version");
}
