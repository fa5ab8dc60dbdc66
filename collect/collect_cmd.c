/* collect: the `contend collect` command, one agent per rank under the job's launcher. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collect/agent.h"
#include "collect/capture.h"
#include "collect/check.h"
#include "collect/cpucap.h"
#include "collect/runmeta.h"
#include "collect/sampler.h"
#include "collect/sockmap.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/gzio.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"

const char usage_collect[] =
	"usage: contend collect [OPTIONS] -o RUN -- APP [ARGS...]\n"
	"       contend collect --check RUN\n"
	"\n"
	"Record an MPI job from the outside: start it through the job's own launcher with one\n"
	"agent per rank. Each agent runs APP as its child (same arguments, environment and\n"
	"standard streams, signals forwarded, exits with APP's status) and samples its\n"
	"processes and threads from /proc every interval. The first agent on each node also\n"
	"captures the node's TCP packets with libpcap and samples the node's load. Nothing is\n"
	"injected into APP, so static and closed-source binaries work.\n"
	"\n"
	"options:\n"
	"  -o, --output RUN      the run directory (shared by all ranks; created as needed)\n"
	"  -i, --interval T      sampling interval (default 20ms; e.g. 10ms, 0.1s)\n"
	"  -I, --iface IF        capture on IF (repeatable, up to 16; 'any' for all), kept as\n"
	"                        named. Default: 'lo' when every rank is on this node; else the\n"
	"                        interfaces with a route to the other nodes' ranks (their rank\n"
	"                        files' addrs), plus 'lo' when ranks share the node: capture\n"
	"                        starts on every up interface with an address and drops the\n"
	"                        others once the addresses are known (RUN/meta/node-HOST.tsv:\n"
	"                        ifaces, ifaces_dropped, ifaces_why)\n"
	"      --iface-wait T    how long to wait for the other ranks' files before keeping\n"
	"                        every interface (default 2s)\n"
	"      --payload WHAT    what the capture keeps of each packet: 'framed' (default)\n"
	"                        keeps the headers and the MPI headers parse reads (Open MPI\n"
	"                        ob1/TCP, MPICH ch4:ucx/TCP) and leaves out the message data\n"
	"                        they skip by length: the same messages as 'full', at a\n"
	"                        fraction of the cost and disk; where the framing is not\n"
	"                        known it keeps whole packets until found again (counted in\n"
	"                        RUN/meta/node-HOST.tsv); 'full' keeps every byte\n"
	"      --no-kernel-cut   framed: leave all the cutting to the capture thread. By\n"
	"                        default an eBPF socket filter has the kernel copy only the\n"
	"                        headers of packets the framing already knows are skipped\n"
	"                        data (needs CAP_BPF, Ethernet links and the default filter;\n"
	"                        else a note, and RUN/meta/node-HOST.tsv: kernel_cut)\n"
	"  -s, --snaplen N       keep only the first N bytes of each packet (64 to 262144)\n"
	"                        instead: MPI headers past byte N are lost\n"
	"  -f, --filter EXPR     pcap filter (default '" CAPTURE_DEFAULT_FILTER "';\n"
	"                        '' keeps everything)\n"
	"  -z, --compress        write the capture gzip-compressed (RUN/capture/HOST.pcap.gz)\n"
	"      --compress-level N  zlib level 1 (fastest) to 9 (smallest), default 6;\n"
	"                        implies --compress\n"
	"  -B, --buffer SIZE     kernel capture buffer per interface (default 32M)\n"
	"      --batch           (default) the kernel hands packets over in blocks, when a\n"
	"                        block is full or --batch-timeout old: few wake-ups; packets\n"
	"                        keep their arrival time stamps; the file is still flushed\n"
	"                        every 500 ms\n"
	"      --batch-timeout T  longest a block waits (default 20ms, 200ms with --no-align;\n"
	"                        at most 1s)\n"
	"      --immediate       libpcap immediate mode instead: a wake-up per packet, which\n"
	"                        costs the job more CPU (docs/collect.md)\n"
	"      --no-align        sample and read the capture on the agent's own clock. By\n"
	"                        default every agent does its periodic work on one grid of\n"
	"                        the real-time clock, so that the CPU it takes from ranks\n"
	"                        stalls every node at once (docs/collect.md, \"When the\n"
	"                        observer runs\"); not where a CPU quota counts the agent\n"
	"                        with the ranks (there the grid cost them more)\n"
	"      --align           the grid even under a CPU quota\n"
	"      --preempt         run the agent at the application's scheduling policy. By\n"
	"                        default, once APP has started, it runs as SCHED_BATCH (same\n"
	"                        nice value and CPU share; APP keeps its own policy), so that\n"
	"                        an agent waking to sample or read packets does not preempt\n"
	"                        a rank\n"
	"                        (docs/collect.md, \"The observer's wake-ups\")\n"
	"      --sockets T       socket map scan interval (default 250ms)\n"
	"      --see-local       have the MPI send messages between ranks of one node over TCP\n"
	"                        (they go through shared memory by default, which no capture\n"
	"                        sees), and capture loopback too, so that every message is in\n"
	"                        the trace: sets OMPI_MCA_btl=tcp,self, UCX_TLS=tcp,self and\n"
	"                        MPIR_CVAR_NOLOCAL=1 for APP (Open MPI, UCX, MPICH). Node-local\n"
	"                        messages get slower (docs/collect.md, \"Seeing node-local\n"
	"                        messages\"); RUN/meta/run.tsv says see_local 1\n"
	"      --no-capture      CPU samples only\n"
	"      --require-capture fail (before starting APP) when packets cannot be captured\n"
	"      --force           overwrite an earlier run in RUN\n"
	"      --check RUN       read RUN back: what is missing or damaged, what it cost\n"
	"  -q, --quiet           only errors\n"
	"  -h, --help            this text\n"
	"\n"
	"launchers and signals (docs/collect.md):\n"
	"  The rank and node-local rank come from Open MPI's OMPI_COMM_WORLD_*, MPICH Hydra's\n"
	"  PMI_RANK and MPI_LOCALRANKID, Slurm's SLURM_PROCID and SLURM_LOCALID (srun, also\n"
	"  with --mpi=pmi2 or pmix), else PMIx's PMIX_RANK. SIGHUP, SIGINT, SIGQUIT, SIGTERM,\n"
	"  SIGUSR1/2 and SIGCONT reach APP through its agent, and the files close whole. End a\n"
	"  Slurm job with scancel: srun's own Ctrl-C or SIGTERM follows with SIGKILL at once,\n"
	"  and agents then lose what they had not flushed (about 0.5 s).\n"
	"\n"
	"capture permissions:\n"
	"  Capturing needs CAP_NET_RAW (and CAP_NET_ADMIN for the kernel buffer): run as root,\n"
	"  or grant them once with\n"
	"    setcap cap_net_raw,cap_net_admin+ep $(command -v contend)\n"
	"  Without them a one-line message says so and CPU sampling still runs (unless\n"
	"  --require-capture).\n"
	"\n"
	"the run directory (docs/collect.md, docs/formats.md):\n"
	"  RUN/meta/run.tsv           the job (written by world rank 0)\n"
	"  RUN/meta/rank-R.tsv        each rank: host, pids, times, how the application ended\n"
	"  RUN/meta/node-HOST.tsv     each node: interfaces, addresses, filter, kernel drops\n"
	"  RUN/capture/HOST.pcap[.gz] each node's packets (nanosecond pcap)\n"
	"  RUN/samples/rank-R.tsv.gz  CPU samples of each rank's threads\n"
	"  RUN/samples/node-HOST.tsv.gz  each node's load and CPU counters\n"
	"  RUN/sockets/rank-R.tsv     local TCP endpoints of each rank's processes\n"
	"  An existing run (RUN/meta/run.tsv of another job) is refused without --force.\n"
	"  When RUN cannot be written the agent refuses before starting APP; a write error\n"
	"  later (disk full) is reported once and APP runs on.\n"
	"\n"
	"examples:\n"
	"  mpirun -np 4 --host ws1,ws2 contend collect -o run1 -- ./stencil 1000\n"
	"  mpiexec.mpich -n 4 contend collect -o run2 --compress -- ./farm\n"	"  mpirun -np 8 contend collect -o run4 --compress-level 1 -- ./alltoall\n"
	"  mpirun -np 4 contend collect -o run5 --iface eth1 -- ./app   # only eth1\n"
	"  mpirun -np 16 --host n1,n2 contend collect --see-local -o run6 -- ./app\n"
	"  srun -n 8 contend collect -o run3 -- ./app\n"
	"  contend collect --check run1\n";

enum {
	OPT_SOCKETS = 256, OPT_NO_CAPTURE, OPT_REQUIRE, OPT_FORCE, OPT_CHECK, OPT_DRAIN,
	OPT_LEVEL, OPT_BATCH, OPT_BATCH_TIMEOUT, OPT_IFACE_WAIT, OPT_IMMEDIATE, OPT_PAYLOAD,
	OPT_SEE_LOCAL, OPT_NO_KERNEL_CUT, OPT_NO_ALIGN, OPT_ALIGN, OPT_PREEMPT
};

struct opts {
	const char *run;
	int64_t interval_ns;
	struct capture_opts cap;
	bool no_capture, require_capture, force;
	bool see_local;		/* node-local messages over TCP, loopback captured */
	bool align;		/* samples and capture reads on the real-time grid */
	bool align_set;		/* by --align or --no-align, not by default */
	const char *align_why;	/* why align is what it is (the node meta's align) */
	struct cpucap cc;	/* the process's CPU capacity, read once at the start, before
				 * place_observer moves the agent: what the application inherits */
	bool preempt;		/* the agent keeps the application's policy (no SCHED_BATCH) */
	char see_local_env[256];	/* what --see-local set for the application, "" without it */
	int64_t sockets_ns;
	int64_t drain_ns;
	int64_t iface_wait_ns;	/* how long default interfaces wait for the peers' addresses */
	char **argv;		/* the application, NULL-terminated */
};

/* State of one agent. */
struct agent {
	struct opts *o;
	const char *policy;	/* the agent's scheduling policy (agent_observer_policy) */
	struct agent_env env;
	char host[256];		/* env.host made safe for file names */
	char *dir_meta, *dir_samples, *dir_capture, *dir_sockets;
	struct runmeta rank_meta;
	struct tsv_w samples, nodeload, sockets;
	bool samples_ok, nodeload_ok, sockets_ok;	/* still writing */
	struct capture *cap;
	char cap_names[CAPTURE_MAX_IFACES][64];	/* interfaces the capture started on */
	size_t ncap;
	bool cap_kept[CAPTURE_MAX_IFACES];	/* still captured */
	bool narrowing;		/* default interfaces still to be narrowed to the peers' routes */
	int64_t narrow_deadline_mono, next_narrow_mono;
	char ifaces_why[256];	/* why these interfaces */
	char cap_path[4096];
	char cap_status[600];	/* "on", "off", or why not */
	pid_t app;
	int64_t start_real_ns, start_mono_ns;
	int64_t node_ended_mono;	/* when the node's last rank was seen to end */
	uint8_t *peers_ended;		/* per world rank, while draining: rank_ended */
	long nsamples, missed;
	char write_error[600];	/* first write error */
};

/* Create a run subdirectory (and its parents) and check it can be written in. */
static int
mkdir_p(const char *path, struct err *e)
{
	int rc = fs_mkdir_p(path, e);

	if (rc == 0 && access(path, W_OK) != 0)
		rc = err_sys(e, E_IO, "cannot write in '%s'", path);
	return rc;
}

static void
note_write_error(struct agent *a, const char *msg)
{
	if (a->write_error[0] != '\0')
		return;
	snprintf(a->write_error, sizeof a->write_error, "%s", msg);
	warnx_("%s; recording stopped, the application runs on", msg);
}

/* Is RUN/meta/run.tsv from another job? */
static bool
is_old_run(struct agent *a, const char *path)
{
	struct runmeta m;
	struct err e;
	const char *job;
	int64_t start;
	bool old = true;

	if (access(path, F_OK) != 0)
		return false;
	if (runmeta_read(&m, path, &e) < 0) {
		runmeta_release(&m);
		return true;
	}
	job = runmeta_get(&m, "job_id");
	if (a->env.job_id[0] != '\0' && job != NULL && strcmp(job, "-") != 0)
		old = strcmp(job, a->env.job_id) != 0;
	else if (runmeta_get_i64(&m, "start_real_ns", &start) == 0)
		/* No job identity from the launcher: agents of one job start within a launch
		 * window of each other. */
		old = a->start_real_ns - start > 60 * NS_PER_S || start > a->start_real_ns + 60 * NS_PER_S;
	runmeta_release(&m);
	return old;
}

static char *
join_argv(char **argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = xmalloc(len);
	s[0] = '\0';
	len = 0;
	for (int i = 0; argv[i]; i++) {
		size_t n = strlen(argv[i]);

		if (i)
			s[len++] = ' ';
		memcpy(s + len, argv[i], n);
		len += n;
		s[len] = '\0';
	}
	return s;
}

static void
fill_common_meta(struct agent *a, struct runmeta *m)
{
	struct utsname u;
	char cwd[4096];
	char *cmd = join_argv(a->o->argv);

	runmeta_set(m, "command", "%s", cmd);
	free(cmd);
	if (getcwd(cwd, sizeof cwd) != NULL)
		runmeta_set(m, "cwd", "%s", cwd);
	runmeta_set(m, "launcher", "%s", a->env.launcher);
	runmeta_set(m, "job_id", "%s", a->env.job_id[0] ? a->env.job_id : "-");
	runmeta_set_i64(m, "nranks", a->env.size);
	runmeta_set_i64(m, "interval_ns", a->o->interval_ns);
	runmeta_set_i64(m, "snaplen", a->o->cap.snaplen);
	runmeta_set(m, "contend_version", "%s", CONTEND_VERSION);
	if (uname(&u) == 0)
		runmeta_set(m, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	runmeta_set_i64(m, "clk_tck", sysconf(_SC_CLK_TCK));
	runmeta_set(m, "clock", "CLOCK_MONOTONIC and CLOCK_REALTIME");
	runmeta_set_i64(m, "see_local", a->o->see_local);
	runmeta_set(m, "see_local_env", "%s", a->o->see_local ? a->o->see_local_env : "-");
}

static int
write_run_meta(struct agent *a, bool at_end, struct err *e)
{
	struct runmeta m;
	char *path = xasprintf("%s/run.tsv", a->dir_meta);
	int rc;

	runmeta_init(&m);
	fill_common_meta(a, &m);
	runmeta_set_i64(&m, "start_real_ns", a->start_real_ns);
	runmeta_set(&m, "compress", "%s", a->o->cap.compress ? "yes" : "no");
	runmeta_set_i64(&m, "compress_level", a->o->cap.compress_level);
	runmeta_set(&m, "capture", "%s", a->o->no_capture ? "off" : "on");
	runmeta_set(&m, "filter", "%s", a->o->cap.filter);
	runmeta_set_i64(&m, "sockets_interval_ns", a->o->sockets_ns);
	if (at_end)
		runmeta_set_i64(&m, "end_real_ns", clock_real_ns());
	rc = runmeta_write(&m, path, false, e);
	runmeta_release(&m);
	free(path);
	return rc;
}

static int
write_rank_meta(struct agent *a, struct err *e)
{
	char *path = xasprintf("%s/rank-%d.tsv", a->dir_meta, a->env.rank);
	int rc = runmeta_write(&a->rank_meta, path, false, e);

	free(path);
	return rc;
}

static void
rank_meta_start(struct agent *a)
{
	struct runmeta *m = &a->rank_meta;
	char buf[4096];
	ssize_t n;

	runmeta_init(m);
	runmeta_set_i64(m, "rank", a->env.rank);
	runmeta_set_i64(m, "local_rank", a->env.local_rank);
	runmeta_set_i64(m, "local_size", a->env.local_size);
	runmeta_set_i64(m, "nranks", a->env.size);
	runmeta_set(m, "host", "%s", a->host);
	runmeta_set(m, "hostname", "%s", a->env.host);
	runmeta_set(m, "launcher", "%s", a->env.launcher);
	runmeta_set(m, "job_id", "%s", a->env.job_id[0] ? a->env.job_id : "-");
	runmeta_set_i64(m, "agent_pid", getpid());
	runmeta_set_i64(m, "app_pid", -1);
	capture_host_addrs(buf, sizeof buf);
	runmeta_set(m, "addrs", "%s", buf[0] ? buf : "-");
	n = readlink("/proc/self/ns/net", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		runmeta_set(m, "netns", "%s", buf);
	}
	runmeta_set_i64(m, "start_real_ns", a->start_real_ns);
	runmeta_set_i64(m, "start_mono_ns", a->start_mono_ns);
	runmeta_set_i64(m, "clk_tck", sysconf(_SC_CLK_TCK));
	runmeta_set_i64(m, "interval_ns", a->o->interval_ns);
	runmeta_set(m, "samples", "samples/rank-%d.tsv.gz", a->env.rank);
	runmeta_set(m, "sockets", "sockets/rank-%d.tsv", a->env.rank);
	runmeta_set(m, "how_ended", "running");
	runmeta_set_i64(m, "see_local", a->o->see_local);
	{
		/* The application inherits the agent's affinity and cgroups. */
		const struct cpucap cc = a->o->cc;

		runmeta_set_i64(m, "cpus_allowed", cc.cpus_allowed);
		runmeta_set(m, "cpu_cgroup", "%s", cc.cgroup[0] ? cc.cgroup : "-");
		runmeta_set_i64(m, "cpu_quota_us", cc.quota_us);
		runmeta_set_i64(m, "cpu_period_us", cc.period_us);
		runmeta_set(m, "cpu_capacity", "%.3f", cc.capacity_cpus);
	}
	{
		char *cmd = join_argv(a->o->argv);

		runmeta_set(m, "command", "%s", cmd);
		free(cmd);
	}
}

/* capture_ifaces (kept) and capture_ifaces_dropped in the rank's meta. */
static void
set_ifaces_meta(struct agent *a)
{
	char kept[CAPTURE_MAX_IFACES * 65] = "", dropped[CAPTURE_MAX_IFACES * 65] = "";
	size_t koff = 0, doff = 0;

	for (size_t i = 0; i < a->ncap; i++) {
		char *list = a->cap_kept[i] ? kept : dropped;
		size_t *off = a->cap_kept[i] ? &koff : &doff;
		int w = snprintf(list + *off, sizeof kept - *off, "%s%s", *off ? "," : "", a->cap_names[i]);

		if (w > 0 && (size_t)w < sizeof kept - *off)
			*off += (size_t)w;
	}
	runmeta_set(&a->rank_meta, "capture_ifaces", "%s", kept[0] ? kept : "-");
	runmeta_set(&a->rank_meta, "capture_ifaces_dropped", "%s", dropped[0] ? dropped : "-");
	runmeta_set(&a->rank_meta, "capture_ifaces_why", "%s", a->ifaces_why);
}

/* Narrow the default interfaces to those with a route to another node's rank: once every
 * other rank's file is there, or at the deadline (final) with what is known then. An
 * incomplete picture keeps every candidate: capturing too much loses nothing. */
static void
narrow_ifaces(struct agent *a, bool final)
{
	bool keep[CAPTURE_MAX_IFACES] = { false };
	int want = a->env.size - 1, seen = 0, remote = 0, routed = 0;
	bool shared = a->env.local_size != 1 || a->o->see_local;
	size_t nkept = 0;

	for (int r = 0; r < a->env.size; r++) {
		char *path;
		struct runmeta m;
		struct err e;
		const char *host, *addrs;

		if (r == a->env.rank)
			continue;
		path = xasprintf("%s/rank-%d.tsv", a->dir_meta, r);
		if (access(path, F_OK) != 0 || runmeta_read(&m, path, &e) < 0) {
			free(path);
			if (!final)
				return;		/* not all there yet: look again later */
			continue;
		}
		free(path);
		seen++;
		host = runmeta_get(&m, "host");
		addrs = runmeta_get(&m, "addrs");
		if (host != NULL && strcmp(host, a->host) != 0 && addrs != NULL) {
			bool k[CAPTURE_MAX_IFACES];
			int got = capture_ifaces_for_peers(a->cap_names, a->ncap, addrs, shared, k);

			remote++;
			if (got > 0)
				routed++;
			for (size_t i = 0; i < a->ncap; i++)
				keep[i] = keep[i] || k[i];
		}
		runmeta_release(&m);
	}
	a->narrowing = false;
	if (seen < want) {
		snprintf(a->ifaces_why, sizeof a->ifaces_why,
			 "the files of %d of %d other ranks were there after %" PRId64
			 " ms: every candidate kept", seen, want, a->o->iface_wait_ns / NS_PER_MS);
		set_ifaces_meta(a);
		return;
	}
	for (size_t i = 0; i < a->ncap; i++)
		nkept += keep[i];
	if (remote == 0 || routed < remote || nkept == 0) {
		snprintf(a->ifaces_why, sizeof a->ifaces_why,
			 "%d of %d ranks on other nodes have an address routed through a candidate: "
			 "every candidate kept", routed, remote);
		set_ifaces_meta(a);
		return;
	}
	for (size_t i = 0; i < a->ncap; i++) {
		struct err e;

		if (!keep[i] && capture_drop_iface(a->cap, a->cap_names[i], &e) == 0)
			a->cap_kept[i] = false;
	}
	snprintf(a->ifaces_why, sizeof a->ifaces_why,
		 "routes to the addresses of the %d ranks on other nodes%s", remote,
		 shared ? ", loopback for the ranks on this node" : "");
	set_ifaces_meta(a);
}

/* Whether the observer will run on a CPU no rank of the node runs on and no CPU quota
 * shares with them (place_observer): then the kernel cut's program, whose verification
 * takes CPU (40 ms on the development machine), loads while the application starts, at
 * no rank's expense; else before it starts, as it always did. */
static bool
observer_cpu_spare(const struct agent *a)
{
	const struct cpucap *cc = &a->o->cc;

	return cc->quota_us <= 0 && a->env.local_size > 0 && cc->cpus_allowed > a->env.local_size;
}

static void
start_capture(struct agent *a)
{
	char names[CAPTURE_MAX_IFACES][64];
	struct capture_opts co = a->o->cap;
	struct err e;
	int n;

	snprintf(a->cap_path, sizeof a->cap_path, "%s/%s.pcap%s", a->dir_capture, a->host,
		 co.compress ? ".gz" : "");
	if (co.nifaces == 0) {
		bool all_local = a->env.size > 0 && a->env.local_size == a->env.size;
		bool shared = a->env.local_size != 1 || a->o->see_local;

		n = capture_pick_ifaces(all_local, shared, names, CAPTURE_MAX_IFACES, &e);
		if (n <= 0) {
			snprintf(a->cap_status, sizeof a->cap_status, "failed: %s",
				 n < 0 ? e.msg : "no interface to capture on");
			return;
		}
		for (int i = 0; i < n; i++)
			co.ifaces[i] = names[i];
		co.nifaces = (size_t)n;
	}
	co.overwrite = a->o->force;
	co.kernel_cut_late = observer_cpu_spare(a);
	if (capture_start(&a->cap, a->cap_path, &co, &e) < 0) {
		snprintf(a->cap_status, sizeof a->cap_status, "failed: %s", e.msg);
		a->cap = NULL;
		return;
	}
	snprintf(a->cap_status, sizeof a->cap_status, "on");
	for (size_t i = 0; i < co.nifaces; i++) {
		snprintf(a->cap_names[i], sizeof a->cap_names[i], "%s", co.ifaces[i]);
		a->cap_kept[i] = true;
	}
	a->ncap = co.nifaces;
	if (a->o->cap.nifaces > 0) {
		snprintf(a->ifaces_why, sizeof a->ifaces_why, "named with --iface");
	} else if (a->env.size > 0 && a->env.local_size == a->env.size) {
		snprintf(a->ifaces_why, sizeof a->ifaces_why, "every rank on this node: loopback");
	} else if (a->env.size <= 0) {
		snprintf(a->ifaces_why, sizeof a->ifaces_why,
			 "job size unknown, so the peers are: every candidate kept");
	} else if (a->ncap == 1) {
		snprintf(a->ifaces_why, sizeof a->ifaces_why, "the only candidate");
	} else {
		/* Started on every candidate so nothing is lost; narrowed once the other
		 * ranks' addresses are in their rank files. */
		a->narrowing = true;
		a->narrow_deadline_mono = clock_mono_ns() + a->o->iface_wait_ns;
		a->next_narrow_mono = clock_mono_ns();
		snprintf(a->ifaces_why, sizeof a->ifaces_why, "candidates (not narrowed yet)");
	}
	set_ifaces_meta(a);
}

/* Whether the rank file at path belongs to another rank of this node (*on), and whether
 * that rank has ended (its meta says so, or, on this node, its agent is gone). */
static bool
peer_ended(const struct agent *a, const char *path, bool *on)
{
	struct runmeta m;
	struct err e;
	const char *host, *how;
	int64_t pid;
	bool ended = false;

	*on = false;
	if (access(path, F_OK) != 0 || runmeta_read(&m, path, &e) < 0)
		return false;
	host = runmeta_get(&m, "host");
	how = runmeta_get(&m, "how_ended");
	ended = how != NULL && strcmp(how, "running") != 0;
	if (host != NULL && strcmp(host, a->host) == 0) {
		*on = true;
		ended = ended || (runmeta_get_i64(&m, "agent_pid", &pid) == 0 && pid > 0 &&
				  kill((pid_t)pid, 0) != 0 && errno == ESRCH);
	}
	runmeta_release(&m);
	return ended;
}

/* peer_ended of rank r's file, remembered once the rank has ended (peers_ended: bit 0
 * ended, bit 1 on this node) so that later rounds read only the ranks still running. */
static bool
rank_ended(struct agent *a, int r, bool *on)
{
	char *path;
	bool ended;

	if (a->peers_ended != NULL && (a->peers_ended[r] & 1)) {
		*on = (a->peers_ended[r] & 2) != 0;
		return true;
	}
	path = xasprintf("%s/rank-%d.tsv", a->dir_meta, r);
	ended = peer_ended(a, path, on);
	free(path);
	if (ended && a->peers_ended != NULL)
		a->peers_ended[r] = (uint8_t)(1 | (*on ? 2 : 0));
	return ended;
}

/* The node's capturing agent reads the other ranks' files every 20 ms while it waits for
 * them and drains; every 100 ms in larger jobs, whose files may be on a shared filesystem. */
#define PEER_POLL_MAX_RANKS 32

/* Wait until every other rank of this node has ended, sampling the node's load meanwhile.
 * Without a node-local size from the launcher, the other ranks of the node are those whose
 * rank files (all of them, listed, when the world size is unknown too) name this host. */
static bool
local_peers_done(struct agent *a, int64_t waited_ns)
{
	bool unknown = a->env.local_size < 0;
	int want = a->env.local_size - 1;	/* other ranks on this node */
	int found = 0, done = 0;

	if (!unknown && want <= 0)
		return true;
	if (a->env.size > 0) {
		for (int r = 0; r < a->env.size; r++) {
			bool on, ended;

			if (r == a->env.rank)
				continue;
			ended = rank_ended(a, r, &on);
			found += on;
			done += on && ended;
		}
	} else if (unknown) {
		DIR *d = opendir(a->dir_meta);
		struct dirent *de;
		char mine[64];

		snprintf(mine, sizeof mine, "rank-%d.tsv", a->env.rank);
		while (d != NULL && (de = readdir(d)) != NULL) {
			char *path;
			bool on, ended;

			if (strncmp(de->d_name, "rank-", 5) != 0 || strcmp(de->d_name, mine) == 0)
				continue;
			path = xasprintf("%s/%s", a->dir_meta, de->d_name);
			ended = peer_ended(a, path, &on);
			free(path);
			found += on;
			done += on && ended;
		}
		if (d != NULL)
			closedir(d);
	} else {
		return waited_ns > 5 * NS_PER_S;
	}
	if (unknown)
		want = found;
	if (done >= want)
		return true;
	/* A rank that outlives this one by a minute is not waited for (its agent may be
	 * gone in a way this node cannot see). */
	if (waited_ns > 60 * NS_PER_S)
		return true;
	/* Rank files that never appear: their agents failed before writing one. */
	if (found < want && waited_ns > 5 * NS_PER_S && found == done)
		return true;
	return false;
}

/* Whether every rank of the job has ended (its rank file says so, or, on this node, its
 * agent is gone): the job sends nothing more, so the capture need not drain. Known only in
 * jobs of a known size up to PEER_POLL_MAX_RANKS. */
static bool
job_ended(struct agent *a)
{
	if (a->env.size <= 0 || a->env.size > PEER_POLL_MAX_RANKS)
		return false;
	for (int r = 0; r < a->env.size; r++) {
		bool on;

		if (r != a->env.rank && !rank_ended(a, r, &on))
			return false;
	}
	return true;
}

/* RUN/meta/NAME-HOST-JOB, the node's files of one job (JOB: the launcher's job identity). */
static char *
node_job_path(const struct agent *a, const char *name)
{
	char job[128];

	runmeta_safe_name(a->env.job_id[0] ? a->env.job_id : "nojob", job, sizeof job);
	return xasprintf("%s/%s-%s-%s", a->dir_meta, name, a->host, job);
}

/* The leader's capture runs (or could not start): RUN/meta/capturing-HOST-JOB tells the
 * node's other agents that their applications may start. */
static void
say_capturing(struct agent *a)
{
	char *path = node_job_path(a, "capturing");
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
	else
		warnx_("collect: cannot create '%s': %s", path, strerror(errno));
	free(path);
}

/* Not the node's leader: wait (at most 5 s) for the leader's capture before the
 * application starts, so that nothing it sends (its first connections: to the launcher's
 * PMIx server, to the other ranks) is missed on a machine slow to start the leader. The
 * wait goes into the rank's meta (capture_wait_ns, capture_wait: done or timeout). */
static void
wait_for_capture(struct agent *a)
{
	char *path = node_job_path(a, "capturing");
	int64_t t0 = clock_mono_ns(), t;
	bool seen;

	while (!(seen = access(path, F_OK) == 0) && clock_mono_ns() - t0 < 5 * NS_PER_S)
		nanosleep(&(struct timespec){ 0, 5 * NS_PER_MS }, NULL);
	t = clock_mono_ns() - t0;
	runmeta_set_i64(&a->rank_meta, "capture_wait_ns", t);
	runmeta_set(&a->rank_meta, "capture_wait", "%s", seen ? "done" : "timeout");
	if (!seen)
		note("collect: no capture on %s after 5 s (%s); starting the application", a->host, path);
	free(path);
}

/* The launcher gave no node-local rank: the first agent of this job on this node to create
 * RUN/meta/leader-HOST-JOB becomes the node's leader (local rank 0: the capture and the
 * node's samples); the others take local rank -1 (not the leader; their rank on the node
 * is unknown). */
static void
elect_node_leader(struct agent *a)
{
	char *path = node_job_path(a, "leader");
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%d\n", a->env.rank);
		close(fd);
		a->env.local_rank = 0;
	} else if (errno == EEXIST) {
		a->env.local_rank = -1;
	} else {
		warnx_("collect: cannot create '%s': %s; this agent takes the node's duties", path,
		       strerror(errno));
		a->env.local_rank = 0;
	}
	free(path);
}

static void
take_node_sample(struct agent *a, int64_t t_mono, int64_t t_real)
{
	struct sampler_node n;
	struct err e;

	if (!a->nodeload_ok)
		return;
	if (sampler_node_take(&n, &e) < 0)
		return;
	if (sampler_node_write(&a->nodeload, t_mono, t_real, &n, &e) < 0) {
		a->nodeload_ok = false;
		note_write_error(a, e.msg);
	}
}

static int
open_outputs(struct agent *a, struct err *e)
{
	char *path;
	int rc;

	path = xasprintf("%s/rank-%d.tsv.gz", a->dir_samples, a->env.rank);
	rc = tsv_w_open(&a->samples, path, "samples", 1, sampler_cols, true, a->o->force, e);
	free(path);
	if (rc < 0)
		return rc;
	a->samples_ok = true;
	rc = tsv_w_comment(&a->samples, e, "rank %d host %s interval_ns %" PRId64 " clk_tck %ld",
			   a->env.rank, a->host, a->o->interval_ns, sysconf(_SC_CLK_TCK));
	if (rc == 0)
		rc = tsv_w_flush(&a->samples, e);
	if (rc < 0)
		return rc;
	path = xasprintf("%s/rank-%d.tsv", a->dir_sockets, a->env.rank);
	rc = tsv_w_open(&a->sockets, path, "sockets", 1, sockmap_cols, false, a->o->force, e);
	free(path);
	if (rc < 0)
		return rc;
	a->sockets_ok = true;
	if (a->env.local_rank == 0) {
		path = xasprintf("%s/node-%s.tsv.gz", a->dir_samples, a->host);
		rc = tsv_w_open(&a->nodeload, path, "nodeload", 1, sampler_node_cols, true,
				a->o->force, e);
		free(path);
		if (rc < 0)
			return rc;
		a->nodeload_ok = true;
	}
	return 0;
}

static void
flush_outputs(struct agent *a)
{
	struct err e;

	if (a->samples_ok && tsv_w_flush(&a->samples, &e) < 0) {
		a->samples_ok = false;
		note_write_error(a, e.msg);
	}
	if (a->nodeload_ok && tsv_w_flush(&a->nodeload, &e) < 0) {
		a->nodeload_ok = false;
		note_write_error(a, e.msg);
	}
	if (a->sockets_ok && tsv_w_flush(&a->sockets, &e) < 0) {
		a->sockets_ok = false;
		note_write_error(a, e.msg);
	}
}

static void
scan_sockets(struct agent *a, struct sockmap *sm, struct sampler *s, int64_t t_real, bool force)
{
	size_t n;
	const pid_t *pids = sampler_pids(s, &n);
	struct err e;

	if (!a->sockets_ok || n == 0)
		return;
	if (sockmap_scan(sm, pids, n, t_real, force, &a->sockets, &e) < 0) {
		a->sockets_ok = false;
		note_write_error(a, e.msg);
	}
}

/* Keep the agent (sampler, socket map, capture) off the ranks' CPUs where the node has
 * spare ones, and record whether its CPU time still comes out of theirs. */
static void
place_observer(struct agent *a)
{
	char cpus[64];
	bool spare = cpucap_place_observer(a->env.local_size, cpus, sizeof cpus) == 1;

	runmeta_set(&a->rank_meta, "observer_cpus", "%s", cpus);
	if (a->o->cc.quota_us > 0)	/* the move changes the affinity, not the quota */
		runmeta_set(&a->rank_meta, "observer_charged", "quota: the cgroup's CPU quota counts "
			    "the agent with the ranks");
	else if (!spare)
		runmeta_set(&a->rank_meta, "observer_charged", "shared: every allowed CPU runs a rank");
	else
		runmeta_set(&a->rank_meta, "observer_charged", "no: a spare CPU");
}

/* What a framed capture kept and how often it had to keep whole packets (docs/formats.md). */
static void
write_framing_meta(struct runmeta *m, const struct framecut_stats *fc)
{
	runmeta_set(m, "framed_packets_cut", "%" PRIu64, fc->cut);
	runmeta_set(m, "framed_conns", "%" PRIu64, fc->conns);
	runmeta_set(m, "framed_dirs", "ompi:%" PRIu64 ",mpich:%" PRIu64 ",other:%" PRIu64
		    ",unknown:%" PRIu64, fc->dirs[WIRE_OMPI], fc->dirs[WIRE_MPICH],
		    fc->dirs[WIRE_OTHER], fc->dirs[WIRE_UNKNOWN]);
	runmeta_set(m, "framing_lost", "%" PRIu64, fc->wire.lost);
	runmeta_set(m, "framing_found", "%" PRIu64, fc->wire.found);
	runmeta_set(m, "framing_gave_up", "%" PRIu64, fc->wire.gave_up);
	runmeta_set(m, "framing_lost_bytes", "%" PRIu64, fc->wire.lost_bytes);
	runmeta_set(m, "framing_holes", "%" PRIu64, fc->holes);
	runmeta_set(m, "framed_whole_ahead", "%" PRIu64, fc->whole_ahead);
	runmeta_set(m, "framed_untracked", "%" PRIu64, fc->untracked);
}

/* What the in-kernel cut left out (docs/formats.md). */
static void
write_kernel_cut_meta(struct runmeta *m, const struct capture_result *cr)
{
	runmeta_set(m, "kernel_cut_packets", "%" PRIu64, cr->kc.packets);
	runmeta_set(m, "kernel_cut_bytes", "%" PRIu64, cr->kc.bytes);
	runmeta_set(m, "kernel_cut_ranges", "%" PRIu64, cr->kc.updates);
	runmeta_set(m, "kernel_cut_followed", "%" PRIu64, cr->kc.followed);
	runmeta_set(m, "kernel_cut_stopped", "%" PRIu64, cr->kc.stopped);
	runmeta_set(m, "kernel_cut_handshakes", "%" PRIu64, cr->kc.handshakes);
	runmeta_set(m, "kernel_cut_map_full", "%" PRIu64, cr->kc.map_full);
	runmeta_set(m, "kernel_cut_seen", "%" PRIu64, cr->fc.kcut_seen);
	runmeta_set(m, "kernel_cut_seen_bytes", "%" PRIu64, cr->fc.kcut_seen_bytes);
	runmeta_set(m, "kernel_cut_mismatch", "%" PRIu64, cr->fc.kcut_mismatch);
	runmeta_set_i64(m, "kernel_cut_ready_ns", cr->kernel_cut_ready_ns);
	runmeta_set(m, "kernel_cut_conns_before", "%" PRIu64, cr->kernel_cut_conns_before);
}

static void
write_node_meta(struct agent *a, const struct capture_result *cr, bool captured)
{
	struct runmeta m;
	struct err e;
	char buf[4096];
	char *path = xasprintf("%s/node-%s.tsv", a->dir_meta, a->host);
	const char *ifaces = runmeta_get(&a->rank_meta, "capture_ifaces");

	runmeta_init(&m);
	runmeta_set(&m, "host", "%s", a->host);
	runmeta_set(&m, "hostname", "%s", a->env.host);
	runmeta_set_i64(&m, "writer_rank", a->env.rank);
	runmeta_set(&m, "ifaces", "%s", ifaces ? ifaces : "-");
	ifaces = runmeta_get(&a->rank_meta, "capture_ifaces_dropped");
	runmeta_set(&m, "ifaces_dropped", "%s", ifaces ? ifaces : "-");
	ifaces = runmeta_get(&a->rank_meta, "capture_ifaces_why");
	runmeta_set(&m, "ifaces_why", "%s", ifaces ? ifaces : "-");
	capture_host_addrs(buf, sizeof buf);
	runmeta_set(&m, "addrs", "%s", buf[0] ? buf : "-");
	capture_host_macs(buf, sizeof buf);
	runmeta_set(&m, "macs", "%s", buf[0] ? buf : "-");
	runmeta_set(&m, "capture_status", "%s", a->cap_status);
	runmeta_set(&m, "capture", "%s", captured ? strrchr(a->cap_path, '/') + 1 : "-");
	runmeta_set_i64(&m, "snaplen", a->o->cap.snaplen);
	runmeta_set(&m, "payload", "%s", capture_payload_name(&a->o->cap));
	runmeta_set(&m, "filter", "%s", a->o->cap.filter[0] ? a->o->cap.filter : "-");
	runmeta_set_i64(&m, "buffer_bytes", a->o->cap.buffer_bytes);
	runmeta_set(&m, "capture_mode", "%s", a->o->cap.batch ? "batch" : "immediate");
	if (a->o->cap.batch)
		runmeta_set_i64(&m, "batch_timeout_ms", a->o->cap.batch_ms);
	runmeta_set_i64(&m, "align_ns", a->o->cap.align_ns);
	runmeta_set(&m, "align", "%s", a->o->align_why != NULL ? a->o->align_why : "-");
	if (a->o->cap.compress)
		runmeta_set_i64(&m, "compress_level", a->o->cap.compress_level);
	runmeta_set(&m, "libpcap", "%s", capture_lib_version());
	runmeta_set(&m, "nodeload", "samples/node-%s.tsv.gz", a->host);
	{
		int64_t slice;
		const char *src;

		if (cpucap_slice_ns(&slice, &src) == 0) {
			runmeta_set_i64(&m, "sched_slice_ns", slice);
			runmeta_set(&m, "sched_slice_src", "%s", src);
		} else {
			runmeta_set(&m, "sched_slice_ns", "-");
			runmeta_set(&m, "sched_slice_src", "unreadable");
		}
	}
	if (captured) {
		runmeta_set(&m, "tstamp_precision", "%s", cr->nano ? "nano" : "micro");
		runmeta_set_i64(&m, "linktype", cr->linktype);
		runmeta_set(&m, "pcap_recv", "%" PRIu64, cr->recv);
		runmeta_set(&m, "pcap_drop", "%" PRIu64, cr->drop);
		runmeta_set(&m, "pcap_ifdrop", "%" PRIu64, cr->ifdrop);
		runmeta_set(&m, "pcap_stats", "%s", cr->stats[0] ? cr->stats : "-");
		runmeta_set(&m, "packets_written", "%" PRIu64, cr->packets);
		runmeta_set(&m, "bytes_written", "%" PRIu64, cr->bytes);
		runmeta_set(&m, "bytes_captured", "%" PRIu64, cr->captured_bytes);
		if (cr->framed)
			write_framing_meta(&m, &cr->fc);
		runmeta_set(&m, "kernel_cut", "%s", cr->kernel_cut[0] ? cr->kernel_cut : "-");
		if (strcmp(cr->kernel_cut, "yes") == 0)
			write_kernel_cut_meta(&m, cr);
		runmeta_set(&m, "capture_write_error", "%s", cr->write_error[0] ? cr->write_error : "-");
		runmeta_set_i64(&m, "capture_utime_ns", cr->thread_utime_ns);
		runmeta_set_i64(&m, "capture_stime_ns", cr->thread_stime_ns);
	}
	if (a->node_ended_mono > 0)
		runmeta_set_i64(&m, "stop_cost_ns", clock_mono_ns() - a->node_ended_mono);
	if (runmeta_write(&m, path, false, &e) < 0)
		note_write_error(a, e.msg);
	runmeta_release(&m);
	free(path);
}

static void
sleep_until(int64_t t_mono_ns)
{
	struct timespec ts = clock_ns_ts(t_mono_ns);

	/* EINTR (a forwarded signal) returns early; the caller's loop checks the child. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Refuse to start the application once this rank's meta exists: say so in it, so the
 * node's capturing agent does not wait for this rank. */
static _Noreturn void PRINTF(2, 3)
refuse(struct agent *a, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	struct err e;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	runmeta_set(&a->rank_meta, "how_ended", "not-started");
	runmeta_set(&a->rank_meta, "error", "%s", msg);
	runmeta_set_i64(&a->rank_meta, "end_real_ns", clock_real_ns());
	if (write_rank_meta(a, &e) < 0)
		warnx_("collect: %s", e.msg);
	die("collect: %s; not starting '%s'", msg, a->o->argv[0]);
}

/* The state the agent's periodic duties share while the application runs. */
struct loop {
	struct sampler *s;
	struct sockmap *sm;
	bool ending;		/* the application has ended: the last round */
	bool sampled;		/* this round took a sample */
	int64_t t_real;		/* CLOCK_REALTIME of the last sample */
};

/* One periodic duty: fn runs when the round's time reaches next (due), or, with at_end, in
 * the last round whatever the time; a duty without at_end never runs in the last round.
 * fn returns whether it ran. After a due run next moves on by period: from now, or on the
 * grid next + k * period (grid) with the slots an overrun skipped counted as missed. */
struct tick {
	bool (*fn)(struct agent *a, struct loop *l, int64_t now, bool due);
	int64_t period;		/* ns */
	int64_t next;		/* CLOCK_MONOTONIC ns */
	bool grid, at_end;
};

static void
run_ticks(struct agent *a, struct loop *l, struct tick *t, size_t n, int64_t now)
{
	l->sampled = false;
	for (size_t k = 0; k < n; k++) {
		bool due = now >= t[k].next;

		if (!(l->ending ? t[k].at_end : due) || !t[k].fn(a, l, now, due) || !due)
			continue;
		if (!t[k].grid) {
			t[k].next = now + t[k].period;
			continue;
		}
		t[k].next += t[k].period;
		if (t[k].next <= now) {	/* overran: skip the slots, keep the grid */
			int64_t skip = (now - t[k].next) / t[k].period + 1;

			a->missed += skip;
			t[k].next += skip * t[k].period;
		}
	}
}

/* The CPU sample of the application's threads; the node's load on the node-local rank 0. */
static bool
tick_sample(struct agent *a, struct loop *l, int64_t now, bool due)
{
	int64_t t_real = clock_real_ns();
	int64_t t_mono = clock_mono_ns();
	const struct sampler_task *tasks;
	size_t nt = sampler_take(l->s, &tasks);
	struct err e;

	(void)now;
	if (a->samples_ok) {
		if (sampler_write(&a->samples, t_mono, t_real, tasks, nt, &e) < 0) {
			a->samples_ok = false;
			note_write_error(a, e.msg);
		}
	}
	a->nsamples++;
	l->sampled = true;
	l->t_real = t_real;
	if (a->env.local_rank == 0 && due)
		take_node_sample(a, t_mono, t_real);
	return true;
}

/* The application's sockets, in a round that took a sample (and in the last one). */
static bool
tick_sockets(struct agent *a, struct loop *l, int64_t now, bool due)
{
	(void)now, (void)due;
	if (!l->sampled)
		return false;
	scan_sockets(a, l->sm, l->s, l->t_real, l->ending);
	return true;
}

static bool
tick_narrow(struct agent *a, struct loop *l, int64_t now, bool due)
{
	(void)l, (void)due;
	if (!a->narrowing)
		return false;
	narrow_ifaces(a, now >= a->narrow_deadline_mono);
	return true;
}

static bool
tick_flush(struct agent *a, struct loop *l, int64_t now, bool due)
{
	(void)l, (void)now, (void)due;
	flush_outputs(a);
	return true;
}

/* The application has ended: reap it into x and record how it ended, the agent's cost and
 * counts in the rank's meta; close the sample and socket files. Returns when it ended
 * (CLOCK_MONOTONIC ns). */
static int64_t
record_app_end(struct agent *a, struct loop *l, struct agent_exit *x)
{
	struct err e;
	int64_t ended_mono;

	if (agent_reap(a->app, x, &e) < 0) {
		warnx_("collect: %s", e.msg);
		memset(x, 0, sizeof *x);
		x->exit_code = 1;
	}
	ended_mono = clock_mono_ns();
	runmeta_set_i64(&a->rank_meta, "end_real_ns", clock_real_ns());
	runmeta_set_i64(&a->rank_meta, "end_mono_ns", ended_mono);
	runmeta_set(&a->rank_meta, "how_ended", "%s",
		    x->signal ? "signaled" : "exited");
	runmeta_set_i64(&a->rank_meta, "exit_status", x->exit_code);
	runmeta_set_i64(&a->rank_meta, "exit_signal", x->signal);
	if (x->signal) {
		const char *sn = sigabbrev_np(x->signal);

		runmeta_set(&a->rank_meta, "exit_signal_name", "SIG%s", sn ? sn : "?");
	}
	runmeta_set(&a->rank_meta, "core_dumped", "%s", x->core ? "yes" : "no");
	runmeta_set_i64(&a->rank_meta, "app_utime_ns",
			clock_tv_ns(&x->ru.ru_utime));
	runmeta_set_i64(&a->rank_meta, "app_stime_ns",
			clock_tv_ns(&x->ru.ru_stime));
	runmeta_set_i64(&a->rank_meta, "app_maxrss_kb", x->ru.ru_maxrss);
	{
		/* The agent's own cost so far: sampling, socket scans and, on the
		 * node-local rank 0, the capture thread (which runs on a little longer). */
		struct rusage self;

		if (getrusage(RUSAGE_SELF, &self) == 0) {
			runmeta_set_i64(&a->rank_meta, "agent_utime_ns",
					clock_tv_ns(&self.ru_utime));
			runmeta_set_i64(&a->rank_meta, "agent_stime_ns",
					clock_tv_ns(&self.ru_stime));
		}
	}
	{
		char sigs[256];

		agent_signals_forwarded(sigs, sizeof sigs);
		runmeta_set(&a->rank_meta, "signals_forwarded", "%s", sigs[0] ? sigs : "-");
	}
	runmeta_set_i64(&a->rank_meta, "samples_taken", a->nsamples);
	runmeta_set_i64(&a->rank_meta, "samples_missed", a->missed);
	{
		long over, bad;

		sampler_stats(l->s, &over, &bad);
		runmeta_set_i64(&a->rank_meta, "sampler_over_cap", over);
		runmeta_set_i64(&a->rank_meta, "sampler_read_errors", bad);
		sockmap_stats(l->sm, &over, &bad);
		runmeta_set_i64(&a->rank_meta, "sockets_over_cap", over);
		runmeta_set_i64(&a->rank_meta, "sockets_bad_lines", bad);
		{
			long reads;
			const char *source = sockmap_tables(l->sm, &reads);

			runmeta_set(&a->rank_meta, "sockets_source", "%s", source);
			runmeta_set_i64(&a->rank_meta, "sockets_table_reads", reads);
		}
	}
	if (a->samples_ok && tsv_w_close(&a->samples, &e) < 0)
		note_write_error(a, e.msg);
	else if (!a->samples_ok)
		tsv_w_close(&a->samples, NULL);	/* stopped by an error: free it */
	a->samples_ok = false;
	if (a->sockets_ok && tsv_w_close(&a->sockets, &e) < 0)
		note_write_error(a, e.msg);
	else if (!a->sockets_ok)
		tsv_w_close(&a->sockets, NULL);	/* stopped by an error: free it */
	a->sockets_ok = false;
	runmeta_set(&a->rank_meta, "write_error", "%s", a->write_error[0] ? a->write_error : "-");
	if (write_rank_meta(a, &e) < 0)
		note_write_error(a, e.msg);
	return ended_mono;
}

/* Before the application starts: the run directory's parts, the run and rank files, the
 * outputs, and this node's capture (or the wait for another rank's). Refuses, with the
 * application not started, when RUN is unusable. */
static void
agent_prepare(struct agent *a, struct opts *o)
{
	struct err e;
	char *path;

	memset(a, 0, sizeof *a);
	a->o = o;
	a->policy = "normal";
	if (o->see_local && agent_see_local_env(o->see_local_env, sizeof o->see_local_env, &e) < 0)
		die("collect: --see-local: %s; not starting '%s'", e.msg, o->argv[0]);
	a->start_real_ns = clock_real_ns();
	a->start_mono_ns = clock_mono_ns();
	if (agent_env_detect(&a->env, &e) < 0)
		die("collect: %s", e.msg);
	runmeta_safe_name(a->env.host, a->host, sizeof a->host);
	a->dir_meta = xasprintf("%s/meta", o->run);
	a->dir_samples = xasprintf("%s/samples", o->run);
	a->dir_capture = xasprintf("%s/capture", o->run);
	a->dir_sockets = xasprintf("%s/sockets", o->run);
	snprintf(a->cap_status, sizeof a->cap_status, "off");

	if (mkdir_p(a->dir_meta, &e) < 0 || mkdir_p(a->dir_samples, &e) < 0 ||
	    mkdir_p(a->dir_capture, &e) < 0 || mkdir_p(a->dir_sockets, &e) < 0)
		die("collect: %s; not starting '%s'", e.msg, o->argv[0]);
	path = xasprintf("%s/run.tsv", a->dir_meta);
	if (!o->force && is_old_run(a, path))
		die("collect: '%s' holds an earlier run (use --force to overwrite it, or another -o); "
		    "not starting '%s'", o->run, o->argv[0]);
	free(path);
	if (a->env.rank == 0 && write_run_meta(a, false, &e) < 0)
		die("collect: %s; not starting '%s'", e.msg, o->argv[0]);
	if (!a->env.local_known)
		elect_node_leader(a);
	rank_meta_start(a);
	path = xasprintf("%s/rank-%d.tsv", a->dir_meta, a->env.rank);
	if (runmeta_write(&a->rank_meta, path, !o->force, &e) < 0)
		die("collect: %s (use --force to overwrite an earlier run); not starting '%s'",
		    e.msg, o->argv[0]);
	free(path);
	if (open_outputs(a, &e) < 0)
		refuse(a, "%s (use --force to overwrite an earlier run)", e.msg);

	if (a->env.local_rank == 0 && !o->no_capture) {
		start_capture(a);
		if (a->cap == NULL) {
			if (o->require_capture)
				refuse(a, "%s (--require-capture)", a->cap_status + 8);
			warnx_("collect: %s; CPU sampling continues", a->cap_status + 8);
		}
		say_capturing(a);
	} else if (!o->no_capture) {
		wait_for_capture(a);
	}
}

/* Start the application; when it cannot start, record why, close what was opened and exit
 * as a shell would (127 not found, 126 not runnable). */
static void
agent_start_app(struct agent *a, struct opts *o)
{
	struct err e;
	int spawn_errno;

	agent_signals_install();
	if (agent_spawn(o->argv, &a->app, &spawn_errno, &e) < 0) {
		struct capture_result cr;

		runmeta_set(&a->rank_meta, "how_ended", "not-started");
		runmeta_set(&a->rank_meta, "error", "%s", e.msg);
		runmeta_set_i64(&a->rank_meta, "end_real_ns", clock_real_ns());
		if (write_rank_meta(a, &e) < 0)
			warnx_("collect: %s", e.msg);
		tsv_w_close(&a->samples, NULL);
		tsv_w_close(&a->sockets, NULL);
		tsv_w_close(&a->nodeload, NULL);
		if (a->cap != NULL) {
			capture_stop(a->cap, &cr, NULL);
			write_node_meta(a, &cr, true);
		}
		warnx_("collect: cannot run '%s': %s", o->argv[0], strerror(spawn_errno));
		exit(spawn_errno == ENOENT ? 127 : 126);
	}
	runmeta_set_i64(&a->rank_meta, "app_pid", a->app);
	runmeta_set_i64(&a->rank_meta, "start_cost_ns", clock_mono_ns() - a->start_mono_ns);
	place_observer(a);
	a->policy = agent_observer_policy(!o->preempt);
	runmeta_set(&a->rank_meta, "observer_policy", "%s", a->policy);
	if (write_rank_meta(a, &e) < 0)
		note_write_error(a, e.msg);
}

/* The periodic work while the application runs, from one timer table: samples, sockets,
 * the capture's narrowing, flushes. Returns the next sample's time (CLOCK_MONOTONIC). */
static int64_t
agent_watch(struct agent *a, struct loop *l)
{
	const struct opts *o = a->o;
	int64_t now = clock_mono_ns();
	struct tick ticks[] = {
		{ tick_sample, o->interval_ns, now, true, true },
		/* early: connections are made at start-up */
		{ tick_sockets, o->sockets_ns, now + o->sockets_ns / 4, false, true },
		{ tick_narrow, 100 * NS_PER_MS, a->next_narrow_mono, false, false },
		{ tick_flush, 500 * NS_PER_MS, now + 500 * NS_PER_MS, false, false },
	};
	bool first = true;
	struct err e;

	while (!l->ending) {
		int done = agent_child_done(a->app, &e);

		if (done < 0) {
			warnx_("collect: %s", e.msg);
			done = 1;
		}
		l->ending = done != 0;
		run_ticks(a, l, ticks, sizeof ticks / sizeof ticks[0], clock_mono_ns());
		if (first && o->align)	/* the first sample at the start, then on the grid */
			ticks[0].next = clock_grid_next_mono(o->interval_ns);
		first = false;
		if (!l->ending && clock_mono_ns() < ticks[0].next)
			sleep_until(ticks[0].next);
	}
	return ticks[0].next;
}

/* The capture of this node runs until its last rank ends, plus a drain (--drain) that ends
 * early once every rank of the job has ended: the packets still due then are those the
 * kernel sends for the closed sockets, which the capture thread's last reads take in
 * (capture_stop). The node's load is sampled while the other ranks run. */
static void
agent_drain(struct agent *a, int64_t ended_mono, int64_t next)
{
	const struct opts *o = a->o;
	int64_t poll_ns = a->env.size > 0 && a->env.size <= PEER_POLL_MAX_RANKS ?
			  20 * NS_PER_MS : 100 * NS_PER_MS;
	int64_t until = -1;	/* the drain's end, once the node's ranks have ended */

	a->node_ended_mono = ended_mono;
	if (a->env.size > 0)
		a->peers_ended = xcalloc((size_t)a->env.size, 1);
	while (a->env.local_rank == 0 && !o->no_capture) {
		int64_t now = clock_mono_ns(), waited = now - ended_mono;

		if (until < 0 && ((agent_signals_terminating() && waited > 2 * NS_PER_S) ||
				  local_peers_done(a, waited))) {
			a->node_ended_mono = now;
			until = now + o->drain_ns;
		}
		if (until >= 0 && (now >= until || job_ended(a)))
			break;
		if (until >= 0) {
			/* job_ended reads only the ranks still running: every 5 ms */
			int64_t t = poll_ns < 100 * NS_PER_MS ? now + 5 * NS_PER_MS : until;

			sleep_until(t < until ? t : until);
			continue;
		}
		sleep_until(now + poll_ns);
		now = clock_mono_ns();
		if (now >= next)
			take_node_sample(a, now, clock_real_ns());
		while (next <= now)
			next += o->interval_ns;
	}
	free(a->peers_ended);
	a->peers_ended = NULL;
}

/* The node's last words: the capture stopped, the node file written, a one-line summary. */
static void
agent_finish_node(struct agent *a)
{
	struct capture_result cr;
	bool captured = a->cap != NULL;
	struct err e;

	memset(&cr, 0, sizeof cr);
	if (a->narrowing)
		narrow_ifaces(a, true);
	if (a->cap != NULL && capture_stop(a->cap, &cr, &e) < 0)
		note_write_error(a, e.msg);
	if (a->nodeload_ok && tsv_w_close(&a->nodeload, &e) < 0)
		note_write_error(a, e.msg);
	else if (!a->nodeload_ok)
		tsv_w_close(&a->nodeload, NULL);	/* stopped by an error: free it */
	write_node_meta(a, &cr, captured);
	if (captured && strncmp(cr.kernel_cut, "unavailable", 11) == 0)
		note("collect: %s: the kernel copied whole packets, framecut cut them (kernel cut %s)",
		     a->host, cr.kernel_cut);
	if (captured)
		note("collect: %s: %" PRIu64 " packets captured on %s, %" PRIu64
		     " dropped by the kernel, %" PRIu64 " by the interface", a->host, cr.recv,
		     runmeta_get(&a->rank_meta, "capture_ifaces"), cr.drop, cr.ifdrop);
}

static int
run_agent(struct opts *o)
{
	struct agent ag;
	struct agent *a = &ag;
	struct err e;
	struct agent_exit x;
	struct loop l;
	int64_t next, ended_mono;

	agent_prepare(a, o);
	agent_start_app(a, o);
	l = (struct loop){ .s = sampler_new(a->app, 100000) };
	l.sm = sockmap_new(a->env.rank, 1000000);
	next = agent_watch(a, &l);
	ended_mono = record_app_end(a, &l, &x);
	agent_drain(a, ended_mono, next);
	sampler_free(l.s);
	sockmap_free(l.sm);
	if (a->env.local_rank == 0)
		agent_finish_node(a);
	if (a->env.rank == 0 && write_run_meta(a, true, &e) < 0)
		note_write_error(a, e.msg);
	runmeta_release(&a->rank_meta);
	free(a->dir_meta);
	free(a->dir_samples);
	free(a->dir_capture);
	free(a->dir_sockets);
	return agent_exit_code(&x);
}

/* What the observation kept and what it cost, for a reader judging how much it disturbed
 * the run (docs/collect.md). */
static void
print_cost(const struct check_report *r)
{
	if (r->payload[0] != '\0') {
		printf("capture kept: %s", r->payload);
		if (r->bytes_written >= 0 && r->bytes_captured > 0)
			printf(", %.1f MB written of %.1f MB captured (%.2f %%)",
			       (double)r->bytes_written / 1e6, (double)r->bytes_captured / 1e6,
			       100.0 * (double)r->bytes_written / (double)r->bytes_captured);
		else if (r->bytes_written >= 0)
			printf(", %.1f MB written", (double)r->bytes_written / 1e6);
		if (strstr(r->payload, "framed") != NULL)
			printf("; framing lost %" PRId64 ", found again %" PRId64 ", given up %" PRId64,
			       r->framing_lost, r->framing_found, r->framing_gave_up);
		printf("\n");
		if (r->kernel_cut[0] != '\0')
			printf("kernel cut: %s, %" PRId64 " packets, %.1f MB left out in the kernel, "
			       "%" PRId64 " not skipped body (mismatch)\n", r->kernel_cut,
			       r->kernel_cut_packets, (double)r->kernel_cut_bytes / 1e6,
			       r->kernel_cut_mismatch);
	}
	if (r->app_cpu_ns > 0) {
		printf("observer CPU: %.3f s (agents and captures), %.2f %% of the applications' "
		       "%.3f s", (double)r->observer_cpu_ns / 1e9,
		       100.0 * (double)r->observer_cpu_ns / (double)r->app_cpu_ns,
		       (double)r->app_cpu_ns / 1e9);
		if (r->observer_recorded > 0)
			printf("; taken from the ranks' CPU on %d of %d ranks (observer_charged)",
			       r->observer_charged, r->observer_recorded);
		printf("\n");
	}
	if (r->start_cost_ns >= 0 || r->stop_cost_ns >= 0) {
		printf("start and stop: ");
		if (r->start_cost_ns >= 0)
			printf("%.3f s before the applications started", (double)r->start_cost_ns / 1e9);
		if (r->start_cost_ns >= 0 && r->stop_cost_ns >= 0)
			printf(", ");
		if (r->stop_cost_ns >= 0)
			printf("%.3f s after the last rank of a node ended", (double)r->stop_cost_ns / 1e9);
		printf(" (the longest agent's)\n");
	}
}

static int
run_check(const char *run)
{
	struct check_report r;
	struct err e;
	int rc = check_run(run, &r, &e);

	if (rc < 0) {
		check_report_release(&r);
		die("collect: %s", e.msg);
	}
	for (size_t i = 0; i < r.nproblems; i++)
		printf("problem: %s\n", r.problems[i]);
	if (r.more_problems)
		printf("problem: ... and %ld more\n", r.more_problems);
	printf("%s: %d ranks, %d nodes, %ld files checked, %ld sample rows, %ld packets, %zu problems\n",
	       run, r.nranks, r.nnodes, r.files, r.sample_rows, r.packets,
	       r.nproblems + (size_t)r.more_problems);
	print_cost(&r);
	rc = r.nproblems > 0 ? 1 : 0;
	check_report_release(&r);
	return rc;
}

/* collect's defaults: every option not given. */
static void
opts_defaults(struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->interval_ns = 20 * NS_PER_MS;
	o->cap.snaplen = CAPTURE_DEFAULT_SNAPLEN;
	o->cap.framed = true;	/* docs/collect.md, "What the capture keeps" */
	o->cap.kernel_cut = true;
	o->cap.filter = CAPTURE_DEFAULT_FILTER;
	o->cap.buffer_bytes = CAPTURE_DEFAULT_BUFFER;
	o->cap.flush_ns = 500 * NS_PER_MS;
	o->align = true;
	o->sockets_ns = 250 * NS_PER_MS;
	o->drain_ns = 200 * NS_PER_MS;
	o->iface_wait_ns = 2 * NS_PER_S;
	o->cap.compress_level = GZW_DEFAULT_LEVEL;
	o->cap.batch_ms = CAPTURE_DEFAULT_BATCH_MS;
	o->cap.batch = true;	/* docs/collect.md, "Capture mode": cheaper, and loses nothing */
}

/* What follows from the options given together: the capture's grid, and loopback among
 * named interfaces with --see-local. */
static void
opts_finish(struct opts *o, bool batch_timeout_given)
{
	cpucap_read(0, &o->cc);
	if (!o->align_set) {
		/* docs/collect.md, "When the observer runs": under a quota the agents' wake-ups
		 * on the shared grid cost the ranks more, and by an amount fixed per node */
		o->align = o->cc.quota_us <= 0;
		o->align_why = o->align ? "grid: the default" : "own clock: a CPU quota counts the agent with the ranks";
	} else {
		o->align_why = o->align ? "grid: --align" : "own clock: --no-align";
	}
	o->cap.align_ns = o->align ? CAPTURE_DEFAULT_ALIGN_NS : 0;
	if (o->align && !batch_timeout_given)	/* blocks are read on the grid, not when handed
						 * over: a short timeout costs no wake-up, and the
						 * capture's tail after the job is shorter */
		o->cap.batch_ms = CAPTURE_ALIGNED_BATCH_MS;
	if (o->see_local && o->cap.nifaces > 0) {
		/* the node-local messages travel through loopback: named interfaces get it too */
		bool lo = false;

		for (size_t i = 0; i < o->cap.nifaces; i++)
			lo |= strcmp(o->cap.ifaces[i], "lo") == 0 || strcmp(o->cap.ifaces[i], "any") == 0;
		if (!lo && o->cap.nifaces >= CAPTURE_MAX_IFACES)
			die_usage("collect: --see-local needs 'lo' among at most %d --iface options",
				  CAPTURE_MAX_IFACES);
		if (!lo)
			o->cap.ifaces[o->cap.nifaces++] = "lo";
	}
}

int
cmd_collect(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iface", required_argument, NULL, 'I' },
		{ "snaplen", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'f' },
		{ "compress", no_argument, NULL, 'z' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "sockets", required_argument, NULL, OPT_SOCKETS },
		{ "no-capture", no_argument, NULL, OPT_NO_CAPTURE },
		{ "require-capture", no_argument, NULL, OPT_REQUIRE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "drain", required_argument, NULL, OPT_DRAIN },
		{ "compress-level", required_argument, NULL, OPT_LEVEL },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "immediate", no_argument, NULL, OPT_IMMEDIATE },
		{ "batch-timeout", required_argument, NULL, OPT_BATCH_TIMEOUT },
		{ "iface-wait", required_argument, NULL, OPT_IFACE_WAIT },
		{ "payload", required_argument, NULL, OPT_PAYLOAD },
		{ "see-local", no_argument, NULL, OPT_SEE_LOCAL },
		{ "no-kernel-cut", no_argument, NULL, OPT_NO_KERNEL_CUT },
		{ "no-align", no_argument, NULL, OPT_NO_ALIGN },
		{ "align", no_argument, NULL, OPT_ALIGN },
		{ "preempt", no_argument, NULL, OPT_PREEMPT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opts o;
	const char *check = NULL;
	bool batch_timeout_given = false;
	int c;

	opts_defaults(&o);
	/* "+": stop at the first non-option, the application's name. */
	while ((c = cli_getopt(argc, argv, "+ho:i:I:s:f:zB:q", longopts, usage_collect)) != -1) {
		switch (c) {
		case 'o': o.run = optarg; break;
		case 'i':
			o.interval_ns = cli_duration_ns(optarg, "--interval", NS_PER_MS);
			if (o.interval_ns < NS_PER_MS || o.interval_ns > 60 * NS_PER_S)
				die_usage("collect: option '--interval': use 1ms to 60s");
			break;
		case 'I':
			if (o.cap.nifaces >= CAPTURE_MAX_IFACES)
				die_usage("collect: at most %d --iface options", CAPTURE_MAX_IFACES);
			o.cap.ifaces[o.cap.nifaces++] = optarg;
			break;
		case 's':
			o.cap.snaplen = (int)cli_i64(optarg, "--snaplen", 64, 262144);
			o.cap.framed = false;
			break;
		case OPT_PAYLOAD:
			if (strcmp(optarg, "framed") == 0)
				o.cap.framed = true;
			else if (strcmp(optarg, "full") == 0)
				o.cap.framed = false;
			else
				die_usage("collect: option '--payload': use 'framed' or 'full'");
			o.cap.snaplen = CAPTURE_DEFAULT_SNAPLEN;
			break;
		case 'f': o.cap.filter = optarg; break;
		case 'z': o.cap.compress = true; break;
		case 'B':
			o.cap.buffer_bytes = cli_bytes(optarg, "--buffer");
			if (o.cap.buffer_bytes < 65536 || o.cap.buffer_bytes > ((int64_t)2 << 30) - 1)
				die_usage("collect: option '--buffer': use 64k to 2G");
			break;
		case OPT_SOCKETS:
			o.sockets_ns = cli_duration_ns(optarg, "--sockets", NS_PER_MS);
			if (o.sockets_ns < 10000000)
				die_usage("collect: option '--sockets': at least 10ms");
			break;
		case OPT_DRAIN: o.drain_ns = cli_duration_ns(optarg, "--drain", NS_PER_MS); break;
		case OPT_LEVEL:
			o.cap.compress_level = (int)cli_i64(optarg, "--compress-level", 1, 9);
			o.cap.compress = true;
			break;
		case OPT_BATCH: o.cap.batch = true; break;
		case OPT_IMMEDIATE: o.cap.batch = false; break;
		case OPT_BATCH_TIMEOUT: {
			int64_t t = cli_duration_ns(optarg, "--batch-timeout", NS_PER_MS);

			if (t < NS_PER_MS || t > NS_PER_S)
				die_usage("collect: option '--batch-timeout': use 1ms to 1s");
			o.cap.batch_ms = (int)(t / NS_PER_MS);
			o.cap.batch = true;
			batch_timeout_given = true;
			break;
		}
		case OPT_IFACE_WAIT:
			o.iface_wait_ns = cli_duration_ns(optarg, "--iface-wait", NS_PER_MS);
			if (o.iface_wait_ns < 0 || o.iface_wait_ns > 60 * NS_PER_S)
				die_usage("collect: option '--iface-wait': use 0 to 60s");
			break;
		case OPT_SEE_LOCAL: o.see_local = true; break;
		case OPT_NO_KERNEL_CUT: o.cap.kernel_cut = false; break;
		case OPT_NO_ALIGN: o.align = false; o.align_set = true; break;
		case OPT_ALIGN: o.align = true; o.align_set = true; break;
		case OPT_PREEMPT: o.preempt = true; break;
		case OPT_NO_CAPTURE: o.no_capture = true; break;
		case OPT_REQUIRE: o.require_capture = true; break;
		case OPT_FORCE: o.force = true; break;
		case OPT_CHECK: check = optarg; break;
		case 'q': err_verbosity = 0; break;
		default: die_usage("collect: unexpected option");
		}
	}
	if (check != NULL) {
		if (optind < argc)
			die_usage("collect: --check takes no application");
		return run_check(check);
	}
	if (o.run == NULL)
		die_usage("collect: name the run directory with -o RUN (see 'contend collect --help')");
	if (optind >= argc)
		die_usage("collect: name the application after '--' (see 'contend collect --help')");
	if (o.no_capture && o.require_capture)
		die_usage("collect: --no-capture and --require-capture contradict each other");
	o.argv = argv + optind;
	opts_finish(&o, batch_timeout_given);
	return run_agent(&o);
}
