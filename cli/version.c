/* version: `contend version`, the versions of contend and the libraries it runs on. */
#include <stdio.h>
#include <sys/utsname.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "collect/capture.h"
#include "export/otf2out.h"
#include "lib/gzio.h"

const char usage_version[] =
	"usage: contend version\n"
	"\n"
	"Print contend's version, the kernel's, and those of the libraries it uses.\n"
	"\n"
	"example:\n"
	"  contend version\n";

int
cmd_version(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct utsname u;

	while (cli_getopt(argc, argv, "h", longopts, usage_version) != -1)
		;
	if (optind < argc)
		die_usage("version: unexpected argument '%s'", argv[optind]);
	printf("contend %s\n", CONTEND_VERSION);
	if (uname(&u) == 0)
		printf("kernel %s %s %s\n", u.sysname, u.release, u.machine);
	printf("zlib %s\n", gzio_zlib_version());
	printf("%s\n", capture_lib_version());
	printf("%s\n", otf2out_lib_version());
	return 0;
}
