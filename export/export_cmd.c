/* export: the `contend export` command: a parsed run written for other tools (Perfetto,
 * OTF2 readers such as Vampir, SimGrid's SMPI replay). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "export/otf2out.h"
#include "export/perfetto.h"
#include "export/simgrid.h"
#include "export/xtrace.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/xalloc.h"

const char usage_export[] =
	"usage: contend export [OPTIONS] --format FORMAT RUN\n"
	"\n"
	"Write what `contend parse` rebuilt for RUN (RUN/profile/: its messages, busy and idle\n"
	"phases, per-rank table; RUN/samples/node-*.tsv.gz for the nodes' CPU load) in a\n"
	"format other tools read. Messages whose sender or receiver is unknown, and protocol\n"
	"records (proto ctrl), are left out and counted. docs/export.md gives the mapping\n"
	"and how to open each output.\n"
	"\n"
	"formats:\n"
	"  perfetto   Chrome trace event JSON for ui.perfetto.dev or chrome://tracing: a track\n"
	"             per rank grouped by host, busy/idle slices, message arrows with size and\n"
	"             tag, counters for each node's CPU load and each host pair's throughput\n"
	"             (default output RUN/export/trace.json)\n"
	"  otf2       an OTF2 archive (libotf2) for Vampir, Scalasca, otf2-print and the OTF2\n"
	"             Python bindings: a location per rank under its host, regions computing\n"
	"             and waiting, MPI sends and receives with communicator, tag and size\n"
	"             (default output RUN/export/otf2/, anchor file traces.otf2)\n"
	"  simgrid    a SimGrid platform (platform.xml, hostfile) and a time-independent trace\n"
	"             per rank for SMPI's replay: `smpirun -replay DIR/traces.txt` (default\n"
	"             output RUN/export/simgrid/; DIR/README says the exact command)\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT  perfetto, otf2 or simgrid (required)\n"
	"  -o, --output PATH    the file (perfetto) or directory (otf2, simgrid) to write;\n"
	"                       an existing one is replaced\n"
	"      --bin DUR        perfetto: the throughput counters' bin (default: the run's\n"
	"                       length / 500, at least 1ms)\n"
	"      --speed FLOPS    simgrid: the hosts' speed in flop/s (default 1e9); a busy\n"
	"                       phase of t seconds becomes t x FLOPS flops of compute\n"
	"  -q, --quiet          no summary\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status 0 when written, 1 when the run cannot be read or written (or rows were\n"
	"damaged: counted on stderr), 2 on a usage error.\n"
	"\n"
	"examples:\n"
	"  contend parse run1 && contend export --format perfetto run1 -o run1.json\n"
	"  contend export --format otf2 run1 -o run1-otf2 && otf2-print run1-otf2/traces.otf2\n"
	"  contend export --format simgrid run1 -o sg && (cd sg && sh replay.sh)\n";

enum fmt { FMT_NONE, FMT_PERFETTO, FMT_OTF2, FMT_SIMGRID };

int
cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "bin", required_argument, NULL, 'B' },    { "speed", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },        { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	enum fmt fmt = FMT_NONE;
	const char *out = NULL, *run;
	char *def = NULL;
	int64_t bin_ns = 0;
	double speed = 1e9;
	struct xtrace x;
	struct err e;
	int opt, rc, status = 0;

	while ((opt = cli_getopt(argc, argv, "f:o:qh", longopts, usage_export)) != -1) {
		switch (opt) {
		case 'f':
			if (strcmp(optarg, "perfetto") == 0 || strcmp(optarg, "chrome") == 0)
				fmt = FMT_PERFETTO;
			else if (strcmp(optarg, "otf2") == 0)
				fmt = FMT_OTF2;
			else if (strcmp(optarg, "simgrid") == 0)
				fmt = FMT_SIMGRID;
			else
				die_usage("export: unknown format '%s' (perfetto, otf2, simgrid)", optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'B':
			bin_ns = cli_duration_ns(optarg, "--bin", 1000000);
			if (bin_ns <= 0)
				die_usage("export: --bin must be positive");
			break;
		case 'S':
			speed = cli_f64(optarg, "--speed", 1, 1e18);
			break;
		case 'q':
			err_verbosity = 0;
			break;
		}
	}
	if (fmt == FMT_NONE)
		die_usage("export: --format is required (perfetto, otf2, simgrid)");
	if (argc - optind != 1)
		die_usage("export: give one run directory (see 'contend export --help')");
	run = argv[optind];
	if (out != NULL && out[0] == '\0')
		die_usage("export: an empty output name");
	if ((rc = xtrace_load(&x, run, &e)) < 0) {
		xtrace_free(&x);
		die("export: %s", e.msg);
	}
	if (x.p.damaged > 0 || x.p.truncated > 0 || x.load_damaged > 0) {
		warnx_("export: %ld damaged profile rows, %ld cut files and %ld damaged node samples skipped%s%s",
		       x.p.damaged, x.p.truncated, x.load_damaged, x.p.damaged > 0 ? " (first: " : "",
		       x.p.damaged > 0 ? x.p.first_damage : "");
		status = 1;
	}
	if (x.load_bad_files > 0) {
		warnx_("export: %ld node sample file%s unreadable, its load left out (first: %s)", x.load_bad_files,
		       x.load_bad_files == 1 ? "" : "s", x.load_bad_file);
		status = 1;
	}
	if (out == NULL) {
		char *dir = xasprintf("%s/export", run);

		if (fs_mkdir_p(dir, &e) < 0)
			die("export: %s", e.msg);
		def = xasprintf("%s/%s", dir, fmt == FMT_PERFETTO ? "trace.json" : fmt == FMT_OTF2 ? "otf2" : "simgrid");
		free(dir);
		out = def;
	}
	switch (fmt) {
	case FMT_PERFETTO: {
		struct perfetto_stats st;

		rc = perfetto_write(&x, out, bin_ns, &st, &e);
		if (rc == 0)
			note("export: '%s': %d ranks on %d hosts, %ld busy/idle slices, %ld messages, %ld counter samples",
			     out, x.p.nranks, x.nhosts, st.slices, st.sends, st.counters);
		break;
	}
	case FMT_OTF2: {
		struct otf2out_stats st;

		rc = otf2out_write(&x, out, &st, &e);
		if (rc == 0)
			note("export: '%s/traces.otf2': %d locations on %d hosts, %ld region enters, %ld sends, "
			     "%ld receives", out, x.p.nranks, x.nhosts, st.enters, st.sends, st.recvs);
		break;
	}
	case FMT_SIMGRID: {
		struct simgrid_stats st;

		rc = simgrid_write(&x, out, speed, &st, &e);
		if (rc == 0)
			note("export: '%s': %d ranks on %d hosts, %ld computes, %ld sends, %ld receives; "
			     "replay with 'sh %s/replay.sh'", out, x.p.nranks, x.nhosts, st.computes, st.sends,
			     st.recvs, out);
		break;
	}
	case FMT_NONE:
		BUG("no format");
	}
	if (rc == 0 && x.msgs_unknown + x.msgs_ctrl > 0)
		note("export: left out %ld messages with an unknown or unprofiled end and %ld protocol records",
		     x.msgs_unknown, x.msgs_ctrl);
	xtrace_free(&x);
	if (rc < 0) {
		free(def);
		die("export: %s", e.msg);
	}
	free(def);
	return status;
}
