/* infer: the `contend infer` command: its options (the stage, the ENV logical network of a
 * run, by probing or from an edited DOT file, is infer/stage.c). */
#include <stdio.h>

#include "cli/cli.h"
#include "infer/stage.h"
#include "lib/clock.h"
#include "lib/err.h"

const char usage_infer[] =
	"usage: contend infer [OPTIONS] RUN\n"
	"       mpirun -np N contend infer --probe [OPTIONS] -o TOPO\n"
	"       contend infer --probe --testbed K [OPTIONS] -o TOPO\n"
	"       contend infer --from-dot FILE -o OUT\n"
	"\n"
	"Infer the ENV logical network (paper 001, Section 3): hosts grouped into local networks\n"
	"whose capacity they share, local networks joined by non-local links, each with bandwidth,\n"
	"latency and a confidence (or 'untested').\n"
	"\n"
	"Passive (default): from a run recorded by 'contend collect'. Hosts, addresses and MACs\n"
	"come from RUN/meta; same segment or behind a router from the frames' MACs, hop counts\n"
	"from TTLs, round trips from TCP handshakes and data/ACK pairs. ENV's shared-bottleneck\n"
	"test is done on the application's own transfers: wherever two transfers from one host,\n"
	"into one host, or between the same two local networks overlap, each one's rate during\n"
	"the overlap is compared with its rate while the other was idle. Pairs that never\n"
	"overlapped are reported untested, never guessed.\n"
	"\n"
	"Active (--probe): ENV's own procedure from a root host (rank 0): latency ping-pong, a\n"
	"transfer to each host alone, then every pair of hosts at once. Start one agent per host\n"
	"through the job's launcher; the agents meet through the shared directory TOPO. With\n"
	"--testbed K the agents are started in the workstations of testbed K.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR      where topology.{dot,pdf,svg,tsv} go (default: RUN)\n"
	"      --probe           measure actively (see above)\n"
	"      --testbed K       with --probe: run the agents in testbed K's workstations\n"
	"      --size BYTES      with --probe: first transfer size (default 1M; grown until a\n"
	"                        transfer lasts --min-time)\n"
	"      --min-time T      with --probe: least duration of a timed transfer (default 300ms)\n"
	"      --reps N          with --probe: repetitions of each measurement (default 3)\n"
	"      --timeout T       with --probe: how long to wait for the other agents (default 60s)\n"
	"      --from-dot FILE   read an (edited) topology.dot and write it again with the PDF,\n"
	"                        SVG and TSV\n"
	"      --no-render       write DOT and TSV only\n"
	"  -q, --quiet           only errors\n"
	"  -v, --verbose         also every pair test\n"
	"  -h, --help            this text\n"
	"\n"
	"output (docs/infer.md, docs/formats.md):\n"
	"  DIR/topology.dot      the ENV graph (cgraph DOT; edit it and use --from-dot)\n"
	"  DIR/topology.pdf/.svg the graph drawn with Graphviz dot\n"
	"  DIR/topology.tsv      the same links for 'contend predict'\n"
	"  DIR/topology-tests.tsv every shared-bottleneck test and its verdict\n"
	"\n"
	"examples:\n"
	"  contend infer run1\n"
	"  contend infer -o /tmp/t run1\n"
	"  mpirun -np 4 --host ws1,ws2,ws3,ws4 contend infer --probe -o topo1\n"
	"  contend infer --probe --testbed 2 -o topo2\n"
	"  contend infer --from-dot edited.dot -o topo3\n";

enum { OPT_PROBE = 256, OPT_TESTBED, OPT_SIZE, OPT_MIN_TIME, OPT_REPS, OPT_TIMEOUT, OPT_FROM_DOT,
       OPT_NO_RENDER };

int
cmd_infer(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "probe", no_argument, NULL, OPT_PROBE },
		{ "testbed", required_argument, NULL, OPT_TESTBED },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "min-time", required_argument, NULL, OPT_MIN_TIME },
		{ "reps", required_argument, NULL, OPT_REPS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "from-dot", required_argument, NULL, OPT_FROM_DOT },
		{ "no-render", no_argument, NULL, OPT_NO_RENDER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct infer_opts o;
	struct err e;
	int c, rc;

	infer_opts_init(&o);
	while ((c = cli_getopt(argc, argv, "ho:qv", longopts, usage_infer)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case OPT_PROBE: o.probe = true; break;
		case OPT_TESTBED: o.testbed = (int)cli_i64(optarg, "--testbed", 0, 99); break;
		case OPT_SIZE: o.po.size_bytes = cli_bytes(optarg, "--size"); break;
		case OPT_MIN_TIME: o.po.min_time_ns = cli_duration_ns(optarg, "--min-time", 1000000); break;
		case OPT_REPS: o.po.reps = (int)cli_i64(optarg, "--reps", 1, 100); break;
		case OPT_TIMEOUT: o.po.timeout_ns = cli_duration_ns(optarg, "--timeout", NS_PER_S); break;
		case OPT_FROM_DOT: o.from_dot = optarg; break;
		case OPT_NO_RENDER: o.no_render = true; break;
		case 'q': err_verbosity = 0; break;
		case 'v': err_verbosity = 2; break;
		}
	}
	if (o.po.size_bytes < 1024 || o.po.size_bytes > (1LL << 32))
		die_usage("infer: --size must be between 1k and 4G");
	if (o.from_dot) {
		if (optind != argc || o.probe)
			die_usage("infer: --from-dot takes no RUN and no --probe");
		if (o.out == NULL)
			die_usage("infer: --from-dot needs -o OUT");
	} else if (o.probe) {
		if (optind != argc)
			die_usage("infer: --probe takes no RUN (give -o TOPO)");
		if (o.out == NULL)
			die_usage("infer: --probe needs -o TOPO (a directory every agent can reach)");
	} else {
		if (o.testbed >= 0)
			die_usage("infer: --testbed needs --probe");
		if (optind + 1 != argc)
			die_usage("infer: give one RUN directory (see 'contend infer --help')");
		o.run = argv[optind];
	}
	o.graph = err_verbosity >= 1 ? stdout : NULL;
	if ((rc = infer_run(&o, &e)) < 0)
		die("infer: %s", e.msg);
	return rc;
}
