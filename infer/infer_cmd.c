/* infer: the `contend infer` command. */
#include <stdio.h>

#include "cli/cli.h"
#include "lib/err.h"

const char usage_infer[] =
	"usage: contend infer [OPTIONS]\n"
	"\n"
	"Not built yet in this version.\n";

int
cmd_infer(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };

	while (cli_getopt(argc, argv, "h", longopts, usage_infer) != -1)
		;
	(void)argc;
	die("infer: not built yet in this version");
}
