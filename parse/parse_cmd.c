/* parse: the `contend parse` command: its options and summary (the stage is parse/stage.c). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "lib/xalloc.h"
#include "parse/flows.h"
#include "parse/launch.h"
#include "parse/msg.h"
#include "parse/parse_cmd.h"
#include "parse/stage.h"

const char usage_parse[] =
	"usage: contend parse [OPTIONS] RUN\n"
	"       contend parse [OPTIONS] --pcap FILE... [--samples FILE...] -o OUTDIR\n"
	"       contend parse --part NODE RUN          (on each node)  then  contend parse --merge RUN\n"
	"\n"
	"Rebuild a run's MPI messages from its packet captures and its CPU busy/idle phases\n"
	"from its samples, and summarise them per rank and per link (paper 003, Figure 3).\n"
	"RUN is a directory written by `contend collect`: every RUN/capture/*.pcap[.gz],\n"
	"RUN/samples/rank-*.tsv.gz, RUN/sockets/*.tsv and RUN/meta/*.tsv is read and the results\n"
	"go to RUN/profile/. Plain captures (tcpdump, Wireshark; pcap or pcapng, gzip or not)\n"
	"can be parsed with --pcap.\n"
	"\n"
	"Writes messages.tsv, phases.tsv, ranks.tsv, links.tsv, conns.tsv, netparams.tsv,\n"
	"warnings.tsv, coverage.tsv and stats.tsv (docs/formats.md) and prints the per-rank\n"
	"table (busy and idle: mean phase lengths) and the run's coverage: how many rank pairs\n"
	"share a node and whether their messages were captured (ranks of one node talk\n"
	"through shared memory unless the MPI was told to use TCP, e.g. with collect\n"
	"--see-local; such messages are not in the trace). Damaged input (a cut or damaged\n"
	"capture or samples file, a bad sample row, a rank meta value that fails its checks,\n"
	"a missing piece of RUN) is reported on stderr with its file and line or byte;\n"
	"everything read before it is still used and written, stats.tsv says complete\n"
	"partial, and the exit status is 1. UCX streams are MPICH's unless RUN/meta names\n"
	"the launcher openmpi (Open MPI's pml ucx) or --mpi ompi-ucx says so; a capture\n"
	"without RUN whose UCX tags look like Open MPI's is warned about (exit status 1).\n"
	"\n"
	"Each capture is parsed alone into a part, on -j threads at once, and the parts are\n"
	"merged in capture order (a connection captured on both its nodes is taken from the\n"
	"first capture, each message's first byte timed by the sender's capture and its\n"
	"arrival by the receiver's): the profile is the same, byte for byte, whatever the\n"
	"thread count. On a\n"
	"cluster the parts can be made where the captures were written, one process per node\n"
	"started by the job's own launcher, and merged by one process (RUN on a shared\n"
	"filesystem):\n"
	"  mpirun --map-by ppr:1:node contend parse --part . RUN\n"
	"  contend parse --merge RUN\n"
	"\n"
	"options:\n"
	"  -o, --output DIR        where to write (default RUN/profile)\n"
	"  -p, --pcap FILE...      captures to read instead of RUN (the option may repeat)\n"
	"  -S, --samples FILE      a samples file of one rank (repeatable; with --pcap)\n"
	"  -m, --mpi MODE          auto (default): recognise Open MPI and MPICH, else generic;\n"
	"                          generic: paper 003's byte runs only; ompi; mpich;\n"
	"                          ompi-ucx: UCX streams as Open MPI's (pml ucx)\n"
	"  -g, --idle-gap DUR      a pause that ends a generic message (default 1ms)\n"
	"  -b, --busy-threshold F  fraction of a sample interval on CPU that makes it busy\n"
	"                          (default 0.5 of what the rank could run: scaled by the\n"
	"                          node's cpu_capacity from collect when below one core)\n"
	"  -U, --busy-user-only    weight each interval's CPU time by the rank's user share\n"
	"                          around it, so that an MPI library polling in system calls\n"
	"                          reads as waiting, not work (default: all CPU time counts)\n"
	"      --waits RULE        which gaps of a rank's message trace are waits, whose\n"
	"                          polling (a low user share) reads idle: send (default):\n"
	"                          from a send to the next arrival, from an arrival to the\n"
	"                          next 100 ms or more later with no send between (at the\n"
	"                          end of the rank's trace, on to its last arrival); any:\n"
	"                          also from an arrival to the next, with no send between\n"
	"                          however soon; auto: send\n"
	"                          for a rank under a CPU quota below a core, else any\n"
	"  -L, --latency DUR       latency L for the communication share (default: measured\n"
	"                          from TCP handshakes)\n"
	"  -B, --bandwidth RATE    bandwidth B in bytes/s, suffixes k M G = 10^3 10^6 10^9\n"
	"                          (default: measured from the fastest transfers)\n"
	"      --max-streams N     connections followed at once (default 65536)\n"
	"      --max-buffer SIZE   out-of-order bytes held per direction (default 4M)\n"
	"  -j, --jobs N            captures parsed at once (default: the CPUs available),\n"
	"                          and threads that make the profile's rows and read the\n"
	"                          samples after them (also with --merge); memory grows\n"
	"                          with N (one connection table per capture)\n"
	"      --part NODE         parse only RUN/capture/NODE.* into RUN/profile/parts/ (NODE\n"
	"                          '.': this host's name); nothing else is written\n"
	"      --merge             merge RUN/profile/parts/ (instead of reading the captures)\n"
	"                          into the profile; a capture without a part is a warning,\n"
	"                          a part made with other -m -g --max-* options is refused\n"
	"      --keep-tail         keep the end of a rank that hung after the run's last\n"
	"                          message and was killed (an MPI_Finalize that never\n"
	"                          returned): by default its exec time is cut at that\n"
	"                          message, with a warning (docs/parse.md, \"A hung end\")\n"
	"  -f, --force             overwrite an existing profile\n"
	"      --times             print the time of each step on stderr (parts, merge,\n"
	"                          samples, outputs): what bench/scale.sh reports\n"
	"  -q, --quiet             no progress or summary\n"
	"  -h, --help              this text\n"
	"\n"
	"examples:\n"
	"  contend parse traces/stencil-4ws\n"
	"  contend parse --force --mpi generic --idle-gap 500us traces/stencil-4ws\n"
	"  contend parse --pcap ring.pcap.gz -o /tmp/ring-profile\n"
	"  contend parse --force -j 1 traces/stencil-4ws\n"
	"  contend parse --part c3ws1 traces/stencil-4ws\n"
	"  contend parse --pcap a.pcapng --samples rank-0.tsv.gz --latency 60us --bandwidth 110M -o out\n";

static double
parse_rate(const char *arg, const char *opt)
{
	char *end;
	double v, unit = 1;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) || v <= 0)
		die_usage("option '%s': '%s' is not a rate", opt, arg);
	if (*end == 'k' || *end == 'K')
		unit = 1e3, end++;
	else if (*end == 'M')
		unit = 1e6, end++;
	else if (*end == 'G')
		unit = 1e9, end++;
	if (strcmp(end, "") != 0 && strcmp(end, "B/s") != 0 && strcmp(end, "Bps") != 0)
		die_usage("option '%s': unknown unit in '%s' (bytes/s; use k, M or G)", opt, arg);
	return v * unit;
}

static void
add_file(char ***v, size_t *n, char *f)
{
	size_t cap = *n;

	if (*n >= PARSE_MAX_FILES)
		die_usage("parse: at most %d files of a kind", PARSE_MAX_FILES);
	*v = xgrow(*v, &cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = f;
}

static void
get_opts(int argc, char **argv, struct parse_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "samples", required_argument, NULL, 'S' },
		{ "mpi", required_argument, NULL, 'm' },
		{ "idle-gap", required_argument, NULL, 'g' },
		{ "busy-threshold", required_argument, NULL, 'b' },
		{ "latency", required_argument, NULL, 'L' },
		{ "bandwidth", required_argument, NULL, 'B' },
		{ "max-streams", required_argument, NULL, 1 },
		{ "max-buffer", required_argument, NULL, 2 },
		{ "busy-user-only", no_argument, NULL, 'U' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "part", required_argument, NULL, 3 },
		{ "merge", no_argument, NULL, 4 },
		{ "times", no_argument, NULL, 5 },
		{ "keep-tail", no_argument, NULL, 6 },
		{ "waits", required_argument, NULL, 7 },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	parse_opts_init(o);
	while ((c = cli_getopt(argc, argv, "o:p:S:m:g:b:L:B:Uj:fqh", longopts, usage_parse)) != -1) {
		switch (c) {
		case 'o': o->outdir = optarg; break;
		case 'p': add_file(&o->pcaps, &o->npcaps, optarg); break;
		case 'S': add_file(&o->samples, &o->nsamples, optarg); break;
		case 'm':
			if (strcmp(optarg, "auto") == 0) o->mpi = FLOWS_MPI_AUTO;
			else if (strcmp(optarg, "generic") == 0) o->mpi = FLOWS_MPI_GENERIC;
			else if (strcmp(optarg, "ompi") == 0) o->mpi = FLOWS_MPI_OMPI;
			else if (strcmp(optarg, "mpich") == 0) o->mpi = FLOWS_MPI_MPICH;
			else if (strcmp(optarg, "ompi-ucx") == 0) o->mpi = FLOWS_MPI_OMPI_UCX;
			else die_usage("parse: option '--mpi': '%s' is not auto, generic, ompi, mpich or "
				       "ompi-ucx", optarg);
			break;
		case 'g':
			o->idle_gap_ns = cli_duration_ns(optarg, "--idle-gap", 1000);
			if (o->idle_gap_ns <= 0)
				die_usage("parse: option '--idle-gap' must be positive");
			break;
		case 'b':
			o->busy_threshold = cli_f64(optarg, "--busy-threshold", 0.0, 1.0);
			o->busy_threshold_set = true;
			break;
		case 'L':
			o->lat_ns = (double)cli_duration_ns(optarg, "--latency", 1000);
			if (o->lat_ns <= 0)
				die_usage("parse: option '--latency' must be positive");
			break;
		case 'B': o->bw_Bps = parse_rate(optarg, "--bandwidth"); break;
		case 1: o->max_streams = (size_t)cli_i64(optarg, "--max-streams", 1, 1 << 24); break;
		case 2:
			o->max_buffer = (size_t)cli_bytes(optarg, "--max-buffer");
			if (o->max_buffer < 65536 || o->max_buffer > ((size_t)1 << 32))
				die_usage("parse: option '--max-buffer' must be between 64k and 4G");
			break;
		case 'U': o->user_only = true; break;
		case 'j': o->jobs = (long)cli_i64(optarg, "--jobs", 1, 1024); break;
		case 3: o->part = optarg; break;
		case 4: o->merge = true; break;
		case 5: o->times = true; break;
		case 6: o->keep_tail = true; break;
		case 7:
			if (strcmp(optarg, "send") == 0) o->waits = PHASES_WAITS_SEND;
			else if (strcmp(optarg, "any") == 0) o->waits = PHASES_WAITS_ANY;
			else if (strcmp(optarg, "auto") == 0) o->waits = PHASES_WAITS_AUTO;
			else die_usage("parse: option '--waits': '%s' is not send, any or auto", optarg);
			break;
		case 'f': o->force = true; break;
		case 'q': err_verbosity = 0; break;
		default: BUG("option %d", c);
		}
	}
	if (o->npcaps > 0) {
		/* --pcap a.pcap b.pcap ...: the words after it are captures too */
		while (optind < argc)
			add_file(&o->pcaps, &o->npcaps, argv[optind++]);
	}
	if (optind < argc)
		o->run = argv[optind++];
	if (optind < argc)
		die_usage("parse: one RUN directory at most ('%s' is extra)", argv[optind]);
	if (o->run == NULL && o->npcaps == 0 && o->nsamples == 0)
		die_usage("parse: give a RUN directory or --pcap FILE (see 'contend parse --help')");
	if (o->run != NULL && (o->npcaps || o->nsamples))
		die_usage("parse: give either a RUN directory or --pcap/--samples, not both");
	if (o->run == NULL && o->outdir == NULL)
		die_usage("parse: with --pcap, say where to write with -o OUTDIR");
	if ((o->part != NULL || o->merge) && o->run == NULL)
		die_usage("parse: --part and --merge take a RUN directory");
	if (o->part != NULL && o->merge)
		die_usage("parse: give --part or --merge, not both");
	if (o->part != NULL && (o->part[0] == '\0' || strchr(o->part, '/') != NULL))
		die_usage("parse: option '--part': '%s' is not a node name", o->part);
}


/* The summary on stdout after the per-rank table: the network, the streams and the coverage. */
static void
print_summary(const struct parse_summary *s)
{
	const struct flows_stats *st = &s->st;
	uint64_t nmsgs = 0;
	char ucx[40] = "";	/* named only when there were any: older outputs stay */

	printf("latency %.1f us (%s), bandwidth %.1f MB/s (%s)\n", s->np.lat_ns / 1e3,
	       s->np.lat_source, s->np.bw_Bps / 1e6, s->np.bw_source);
	for (size_t i = 0; i < FLOWS_NDEC; i++)
		nmsgs += st->dec[i].msgs;
	if (st->dec_conns[FLOWS_DEC_OMPI_UCX])
		snprintf(ucx, sizeof ucx, ", ompi-ucx %" PRIu64, st->dec_conns[FLOWS_DEC_OMPI_UCX]);
	printf("%" PRIu64 " packets, %" PRIu64 " streams (ompi %" PRIu64 ", mpich %" PRIu64
	       "%s, other %" PRIu64 ", launcher %" PRIu64 "), %" PRIu64 " messages, %"
	       PRIu64 " gaps, %" PRIu64 " retransmissions\n",
	       st->packets, st->conns, st->dec_conns[MSG_OMPI], st->dec_conns[MSG_MPICH],
	       ucx, st->dec_conns[MSG_GENERIC],
	       st->launcher_conns[LAUNCH_ORTE_OOB] + st->launcher_conns[LAUNCH_PMIX] +
	       st->launcher_conns[LAUNCH_HYDRA],
	       nmsgs, st->tcp.gaps, st->tcp.retrans_segs);
	printf("coverage %s\n", s->cov_note);
}

int
parse_cmd_run(const struct parse_opts *o)
{
	struct parse_summary s;
	struct err e;
	int rc = parse_run(o, &s, &e);

	if (rc < 0)
		die("parse: %s", e.msg);
	if (o->times && !s.parts_only)
		fprintf(stderr, "parse: times: parts %.3f s (waited for), merge %.3f s, samples %.3f s, "
			"outputs %.3f s, total %.3f s\n", s.times.wait_s, s.times.merge_s,
			s.times.samples_s, s.times.out_s, s.times.total_s);
	if (o->table != NULL && !s.parts_only)
		print_summary(&s);
	fflush(stdout);
	return rc;
}

int
cmd_parse(int argc, char **argv)
{
	struct parse_opts o;
	int rc;

	get_opts(argc, argv, &o);
	o.table = err_verbosity == 0 ? NULL : stdout;
	rc = parse_cmd_run(&o);
	free(o.pcaps);
	free(o.samples);
	return rc;
}
