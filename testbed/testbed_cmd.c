/* testbed: the `contend testbed` command: a shared, heterogeneous cluster in network namespaces. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/xalloc.h"
#include "testbed/tb_cpu.h"
#include "testbed/tb_load.h"
#include "testbed/tb_net.h"
#include "testbed/tb_state.h"
#include "testbed/tb_sys.h"

const char usage_testbed[] =
	"usage: contend testbed [--instance K] SUBCOMMAND [OPTIONS]\n"
	"\n"
	"A controlled, shared, heterogeneous cluster on this machine (root needed): workstations\n"
	"are network namespaces on a bridge, each pinned to a core with a CPU quota (cgroup v1),\n"
	"with optional tbf bandwidth caps and competing CPU or network load. Open MPI and MPICH\n"
	"start ranks inside the workstations through an rsh agent. See docs/testbed.md.\n"
	"\n"
	"subcommands:\n"
	"  up [-n N] [--routed] [--rate WS=RATE] [--cpus WS=LIST] [--cpu-pct WS=PCT]\n"
	"     [--uplink S=RATE]       build the testbed (again: harmless; options reconfigure)\n"
	"  down                       remove everything the testbed made, also after a crash\n"
	"  status                     show what exists\n"
	"  check                      say whether this machine can run a testbed (exit 0 or 1)\n"
	"  link WS|uplink1|uplink2 RATE [--burst SIZE]\n"
	"                             cap a workstation's link or a subnet's uplink (off: none);\n"
	"                             --burst: the token bucket (default 10 ms at RATE, >= 16k)\n"
	"  cpu WS [--cpus LIST] [--pct PCT]   pin a workstation / set its CPU capacity\n"
	"  load WS [--cpu N] [--comm PEER [--duty F] [--period T]]   start competing load in WS\n"
	"  unload [WS]                stop the competing load (of WS, or all)\n"
	"  exec WS -- CMD [ARGS]      run a command inside a workstation\n"
	"  mpirun [--mpich] [--tcp] [-np N] [--hosts WS,WS] -- [LAUNCHER OPTIONS] APP [ARGS]\n"
	"                             run an MPI job across the workstations (Open MPI, or MPICH)\n"
	"                             with the MPI's own defaults (ranks of one workstation talk\n"
	"                             through shared memory); --tcp: every message over TCP\n"
	"  rsh [OPTIONS] WS CMD...    the launchers' remote shell: run CMD with /bin/sh -c in WS\n"
	"\n"
	"WS is a workstation: c<K>ws<i>, ws<i>, <i> or its address; 'all' in up's WS=VALUE.\n"
	"RATE: 100mbit, 1gbit, 500kbit, 10mbps (bytes), off.  Instance K (0..99): --instance K or\n"
	"CONTEND_TESTBED=K (default 0); instances are independent (names c<K>..., subnets\n"
	"10.<100+K>.1.0/24 and 10.<100+K>.2.0/24, state in /run/contend-testbed/<K>/).\n"
	"\n"
	"examples:\n"
	"  contend testbed up -n 3\n"
	"  contend testbed up -n 4 --routed --uplink 2=50mbit\n"
	"  contend testbed link ws3 100mbit\n"
	"  contend testbed cpu ws2 --pct 25\n"
	"  contend testbed load ws2 --cpu 1\n"
	"  contend testbed load ws1 --comm ws3 --duty 0.5 --period 1s\n"
	"  contend testbed mpirun -np 3 -- ./build/workloads/ompi/stencil -n 1024\n"
	"  contend testbed mpirun --mpich -np 3 -- ./build/workloads/mpich/ring -m 1M\n"
	"  contend testbed exec ws1 -- ip addr\n"
	"  contend testbed unload\n"
	"  contend testbed down\n";

#define DEFAULT_NWS 3
#define SINK_PORT_BASE 47000	/* sinks listen on 47000 + n inside their workstation */

static int instance;	/* from --instance or CONTEND_TESTBED */

/* ---- preconditions ---- */

/* Try what `up` needs inside a throwaway network namespace: a bridge, a veth pair and a tbf
 * qdisc. Returns NULL or why not (static storage). */
static const char *
probe_kernel(void)
{
	static char why[ERR_MSG_MAX + 64];
	int p[2];
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return "cannot create a pipe";
	pid = fork();
	if (pid < 0)
		return "cannot fork";
	if (pid == 0) {
		struct err e = { .code = 0 };

		close(p[0]);
		if (unshare(CLONE_NEWNET) < 0) {
			dprintf(p[1], "network namespaces are unavailable (unshare: %s)", strerror(errno));
			_exit(1);
		}
		if (tb_run((const char *[]){ "ip", "link", "add", "tbprobe0", "type", "bridge", NULL }, &e) < 0) {
			dprintf(p[1], "bridges are unavailable: %s", e.msg);
			_exit(1);
		}
		if (tb_run((const char *[]){ "ip", "link", "add", "tbprobe1", "type", "veth", "peer", "name",
					     "tbprobe2", NULL }, &e) < 0) {
			dprintf(p[1], "veth pairs are unavailable: %s", e.msg);
			_exit(1);
		}
		if (tb_run((const char *[]){ "tc", "qdisc", "add", "dev", "tbprobe1", "root", "tbf", "rate",
					     "1mbit", "burst", "16k", "latency", "50ms", NULL }, &e) < 0) {
			dprintf(p[1], "tc tbf is unavailable: %s", e.msg);
			_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	do
		n = read(p[0], why, sizeof why - 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	waitpid(pid, NULL, 0);
	if (n > 0) {
		why[n] = '\0';
		return why;
	}
	return NULL;
}

/* What is missing to run a testbed here, or NULL. probe: also try the kernel features. */
static const char *
missing(bool probe)
{
	const char *m;

	if (geteuid() != 0)
		return "needs root (network namespaces, bridges, tc and cgroups)";
	if (!tb_have_program("ip"))
		return "'ip' from iproute2 is not installed";
	if (!tb_have_program("tc"))
		return "'tc' from iproute2 is not installed";
	if (!tb_exists("/proc/self/ns/net"))
		return "this kernel has no network namespaces";
	if ((m = tb_cpu_missing()) != NULL)
		return m;
	return probe ? probe_kernel() : NULL;
}

static void
need(bool probe)
{
	const char *m = missing(probe);

	if (m != NULL)
		die("testbed: %s", m);
}

/* The instance's lock (close the fd to release it); dies when it cannot be taken. */
static int
lock_instance(void)
{
	struct err e = { .code = 0 };
	int lock = tb_state_lock(instance, &e);

	if (lock < 0)
		die("testbed %d: %s", instance, e.msg);
	return lock;
}

/* The saved layout of the instance; dies when it is not up. */
static void
load_conf(struct tb_conf *c)
{
	struct err e = { .code = 0 };
	int rc = tb_conf_load(instance, c, &e);

	if (rc < 0)
		die("testbed %d: %s", instance, e.msg);
	if (rc == 0)
		die("testbed %d is not up (run 'contend testbed --instance %d up')", instance, instance);
}

static int
find_ws(const struct tb_conf *c, const char *name)
{
	int i = tb_conf_find(c, name);

	if (i < 0)
		die_usage("testbed %d has no workstation '%s' (it has ws1..ws%d)", instance, name, c->nws);
	return i;
}

static void
rate_text(int64_t bps, char *buf, size_t len)
{
	if (bps == 0)
		snprintf(buf, len, "-");
	else if (bps % 1000000000 == 0)
		snprintf(buf, len, "%lldgbit", (long long)(bps / 1000000000));
	else if (bps % 1000000 == 0)
		snprintf(buf, len, "%lldmbit", (long long)(bps / 1000000));
	else if (bps % 1000 == 0)
		snprintf(buf, len, "%lldkbit", (long long)(bps / 1000));
	else
		snprintf(buf, len, "%lldbit", (long long)bps);
}

/* ---- the rsh agent script ---- */

/* Write STATE/rsh-agent: a script that execs this binary's `testbed rsh` for the instance
 * (the launchers want one path). The binary's path is single-quoted, quotes escaped. */
static void
write_agent(char *path, size_t len)
{
	char exe[512];
	char *text, *q;
	size_t n = 0, cap;
	struct err e = { .code = 0 };

	if (tb_self_exe(exe, sizeof exe, &e) < 0)
		die("testbed: %s", e.msg);
	cap = strlen(exe) * 4 + 256;
	text = xmalloc(cap);
	n = (size_t)snprintf(text, cap,
			     "#!/bin/sh\n# rsh agent of contend testbed %d: runs a command in a workstation\nexec '",
			     instance);
	for (q = exe; *q; q++) {
		if (*q == '\'') {
			memcpy(text + n, "'\\''", 4);
			n += 4;
		} else {
			text[n++] = *q;
		}
	}
	snprintf(text + n, cap - n, "' testbed --instance %d rsh \"$@\"\n", instance);
	tb_state_path(instance, "rsh-agent", path, len);
	if (tb_write_file(path, text, &e) < 0)
		die("testbed: %s", e.msg);
	free(text);
	if (chmod(path, 0755) < 0)
		die("testbed: cannot make '%s' executable: %s", path, strerror(errno));
}

/* ---- status ---- */

static void
print_status(const struct tb_conf *c)
{
	struct tb_proc procs[TB_PROCS_CAP];
	int nprocs = 0;
	struct err e = { .code = 0 };
	char br[32], net[32], rate[32], ns[32], veth[32], addr[32], nsp[64], vp[64];

	if (tb_procs_load(instance, procs, TB_PROCS_CAP, &nprocs, &e) < 0) {
		warnx_("testbed %d: %s", instance, e.msg);
		nprocs = 0;
	}
	int absent = 0;	/* namespaces or veths of the layout that do not exist */

	for (int i = c->routed ? 0 : 1; i <= c->nws; i++) {
		tb_name_ws(instance, i, ns, sizeof ns);
		tb_name_veth(instance, i, veth, sizeof veth);
		snprintf(nsp, sizeof nsp, "/run/netns/%s", ns);
		snprintf(vp, sizeof vp, "/sys/class/net/%s", veth);
		absent += !tb_exists(nsp) + (i > 0 && !tb_exists(vp));
		tb_ipcns_path(ns, nsp, sizeof nsp);
		absent += i > 0 && !tb_exists(nsp);
	}
	tb_name_bridge(instance, 1, br, sizeof br);
	tb_addr(instance, 1, 0, net, sizeof net);
	if (absent)
		printf("testbed %d: INCOMPLETE (%d parts missing: run 'up' again, or 'down'), %d workstations, %s layout\n",
		       instance, absent, c->nws, c->routed ? "routed" : "flat");
	else
		printf("testbed %d: up, %d workstations, %s layout\n", instance, c->nws,
		       c->routed ? "routed" : "flat");
	printf("subnet 1: %s/24 on bridge %s (root namespace at .254)\n", net, br);
	if (c->routed) {
		char up1[32], up2[32];

		tb_name_bridge(instance, 2, br, sizeof br);
		tb_addr(instance, 2, 0, net, sizeof net);
		printf("subnet 2: %s/24 on bridge %s (root namespace at .254)\n", net, br);
		tb_name_ws(instance, 0, ns, sizeof ns);
		rate_text(c->uplink_bps[1], up1, sizeof up1);
		rate_text(c->uplink_bps[2], up2, sizeof up2);
		snprintf(nsp, sizeof nsp, "/run/netns/%s", ns);
		printf("router: namespace %s (%s) at .253 on both subnets; uplink caps: subnet 1 %s, subnet 2 %s\n",
		       ns, tb_exists(nsp) ? "present" : "MISSING", up1, up2);
	}
	printf("%-3s %-9s %-14s %-6s %-5s %-9s %-7s %-7s %s\n", "ws", "host", "address", "cores", "cpu%",
	       "link", "netns", "veth", "load");
	for (int i = 1; i <= c->nws; i++) {
		char load[128] = "-";
		int spins = 0, comms = 0;

		for (int k = 0; k < nprocs; k++) {
			if (procs[k].ws != i || !tb_proc_is(procs[k].pid, procs[k].start_ticks))
				continue;
			if (strcmp(procs[k].kind, "spin") == 0)
				spins++;
			else if (strcmp(procs[k].kind, "source") == 0)
				comms++;
		}
		if (spins || comms)
			snprintf(load, sizeof load, "%d cpu, %d comm", spins, comms);
		tb_name_ws(instance, i, ns, sizeof ns);
		tb_name_veth(instance, i, veth, sizeof veth);
		tb_addr(instance, c->ws[i].subnet, i, addr, sizeof addr);
		rate_text(c->ws[i].rate_bps, rate, sizeof rate);
		snprintf(nsp, sizeof nsp, "/run/netns/%s", ns);
		snprintf(vp, sizeof vp, "/sys/class/net/%s", veth);
		printf("%-3d %-9s %-14s %-6s %-5d %-9s %-7s %-7s %s\n", i, ns, addr, c->ws[i].cpus,
		       c->ws[i].cpu_pct, rate, tb_exists(nsp) ? "yes" : "MISSING", tb_exists(vp) ? veth : "MISSING",
		       load);
	}
}

static int
sub_status(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct tb_conf c;
	struct err e = { .code = 0 };
	char dir[256];
	int rc;

	while (cli_getopt(argc, argv, "h", longopts, usage_testbed) != -1)
		;
	rc = tb_conf_load(instance, &c, &e);
	if (rc < 0)
		die("testbed %d: %s", instance, e.msg);
	if (rc == 1) {
		print_status(&c);
		return 0;
	}
	tb_state_path(instance, NULL, dir, sizeof dir);
	if (tb_exists(dir))
		printf("testbed %d: down, but '%s' remains (a crashed 'up'?): run 'contend testbed --instance %d down'\n",
		       instance, dir, instance);
	else
		printf("testbed %d: down\n", instance);
	return 0;
}

/* ---- up and reconfiguring ---- */

/* Apply "WS=VALUE" (WS may be 'all') of one setting to c. */
static void
apply_ws_setting(struct tb_conf *c, const char *opt, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char ws[64];
	int from, to;
	struct err e = { .code = 0 };

	if (eq == NULL || (size_t)(eq - spec) >= sizeof ws || eq == spec)
		die_usage("testbed: option '%s' wants WS=VALUE, got '%s'", opt, spec);
	memcpy(ws, spec, (size_t)(eq - spec));
	ws[eq - spec] = '\0';
	if (strcmp(ws, "all") == 0) {
		from = 1;
		to = c->nws;
	} else {
		from = to = find_ws(c, ws);
	}
	for (int i = from; i <= to; i++) {
		if (strcmp(opt, "--rate") == 0) {
			if (tb_parse_rate(eq + 1, &c->ws[i].rate_bps, &e) < 0)
				die_usage("testbed: option '%s': %s", opt, e.msg);
		} else if (strcmp(opt, "--cpus") == 0) {
			size_t n = strlen(eq + 1);

			if (n == 0 || n >= sizeof c->ws[i].cpus || strspn(eq + 1, "0123456789,-") != n)
				die_usage("testbed: option '%s': '%s' is not a cpu list such as 0 or 0-1", opt,
					  eq + 1);
			memcpy(c->ws[i].cpus, eq + 1, n + 1);
		} else {
			c->ws[i].cpu_pct = (int)cli_i64(eq + 1, opt, 1, 100LL * tb_cpu_count());
		}
	}
}

static void
apply_uplink(struct tb_conf *c, const char *spec)
{
	struct err e = { .code = 0 };
	int s;

	if (!c->routed)
		die_usage("testbed: '--uplink' needs the routed layout (--routed)");
	if ((spec[0] != '1' && spec[0] != '2') || spec[1] != '=')
		die_usage("testbed: option '--uplink' wants 1=RATE or 2=RATE, got '%s'", spec);
	s = spec[0] - '0';
	if (tb_parse_rate(spec + 2, &c->uplink_bps[s], &e) < 0)
		die_usage("testbed: option '--uplink': %s", e.msg);
}

/* Build or refresh everything of c; dies naming what failed. */
static void
build(const struct tb_conf *c)
{
	struct err e = { .code = 0 };
	char agent[256];

	if (tb_conf_save(c, &e) < 0 || tb_net_up(c, &e) < 0 || tb_cpu_up(c, &e) < 0 ||
	    tb_net_shape(c, &e) < 0)
		die("testbed %d: %s (clean up with 'contend testbed --instance %d down')", instance, e.msg,
		    instance);
	if (tb_journal_add(instance, "hosts", TB_HOSTS_FILE, &e) < 0 ||
	    tb_hosts_update(instance, c, NULL, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
	write_agent(agent, sizeof agent);
}

static int
sub_up(int argc, char **argv)
{
	enum { O_ROUTED = 256, O_RATE, O_CPUS, O_PCT, O_UPLINK };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "instance", required_argument, NULL, 'I' },
		{ "workstations", required_argument, NULL, 'n' },
		{ "routed", no_argument, NULL, O_ROUTED },
		{ "rate", required_argument, NULL, O_RATE },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "cpu-pct", required_argument, NULL, O_PCT },
		{ "uplink", required_argument, NULL, O_UPLINK },
		{ 0 },
	};
	struct { int opt; const char *arg; } settings[64];
	int nset = 0, nws = -1, c, lock, rc;
	bool routed = false;
	struct tb_conf conf;
	struct err e = { .code = 0 };

	while ((c = cli_getopt(argc, argv, "hn:", longopts, usage_testbed)) != -1) {
		switch (c) {
		case 'I': instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE); break;
		case 'n': nws = (int)cli_i64(optarg, "-n", 1, TB_MAX_WS); break;
		case O_ROUTED: routed = true; break;
		default:
			if (nset == (int)(sizeof settings / sizeof settings[0]))
				die_usage("testbed: too many options");
			settings[nset].opt = c;
			settings[nset++].arg = optarg;
		}
	}
	if (optind < argc)
		die_usage("testbed up: unexpected argument '%s'", argv[optind]);
	need(true);
	lock = lock_instance();
	rc = tb_conf_load(instance, &conf, &e);
	if (rc < 0)
		die("testbed %d: %s (run 'contend testbed --instance %d down')", instance, e.msg, instance);
	if (rc == 1 && ((nws > 0 && nws != conf.nws) || (routed && !conf.routed)))
		die("testbed %d is up with %d workstations (%s); run 'contend testbed --instance %d down' first",
		    instance, conf.nws, conf.routed ? "routed" : "flat", instance);
	if (rc == 0) {
		if (nws < 0)
			nws = routed ? 4 : DEFAULT_NWS;
		if (routed && nws < 2)
			die_usage("testbed up: the routed layout needs at least 2 workstations");
		tb_conf_default(&conf, instance, nws, routed, tb_cpu_count());
	}
	for (int k = 0; k < nset; k++) {
		switch (settings[k].opt) {
		case O_RATE: apply_ws_setting(&conf, "--rate", settings[k].arg); break;
		case O_CPUS: apply_ws_setting(&conf, "--cpus", settings[k].arg); break;
		case O_PCT: apply_ws_setting(&conf, "--cpu-pct", settings[k].arg); break;
		case O_UPLINK: apply_uplink(&conf, settings[k].arg); break;
		default: BUG("option %d", settings[k].opt);
		}
	}
	build(&conf);
	close(lock);
	print_status(&conf);
	return 0;
}

static int
sub_link(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
						  { "instance", required_argument, NULL, 'I' },
						  { "burst", required_argument, NULL, 'b' }, { 0 } };
	struct tb_conf conf;
	struct err e = { .code = 0 };
	int64_t bps, burst = 0;
	int c, lock;
	char rate[32];

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_testbed)) != -1) {
		if (c == 'b')
			burst = cli_bytes(optarg, "--burst");
		else
			instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE);
	}
	if (argc - optind != 2)
		die_usage("usage: contend testbed link WS|uplink1|uplink2 RATE [--burst SIZE]");
	if (burst != 0 && (burst < 1600 || burst > (1LL << 30)))
		die_usage("testbed link: --burst %lld: between 1600 bytes (a full frame) and 1G", (long long)burst);
	if (tb_parse_rate(argv[optind + 1], &bps, &e) < 0)
		die_usage("testbed link: %s", e.msg);
	need(false);
	lock = lock_instance();
	load_conf(&conf);
	if (strncmp(argv[optind], "uplink", 6) == 0) {
		int s = argv[optind][6] == '1' ? 1 : argv[optind][6] == '2' ? 2 : 0;

		if (s == 0 || argv[optind][7] != '\0')
			die_usage("testbed link: '%s' is not uplink1 or uplink2", argv[optind]);
		if (!conf.routed)
			die_usage("testbed link: testbed %d is flat: it has no uplinks", instance);
		if (burst != 0)
			die_usage("testbed link: --burst applies to a workstation's link only");
		conf.uplink_bps[s] = bps;
	} else {
		int w = find_ws(&conf, argv[optind]);

		conf.ws[w].rate_bps = bps;
		conf.ws[w].burst_bytes = bps ? burst : 0;
	}
	if (tb_conf_save(&conf, &e) < 0 || tb_net_shape(&conf, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
	close(lock);
	rate_text(bps, rate, sizeof rate);
	printf("%s: %s\n", argv[optind], bps ? rate : "no cap");
	return 0;
}

static int
sub_cpu(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "instance", required_argument, NULL, 'I' },
		{ "cpus", required_argument, NULL, 'c' }, { "pct", required_argument, NULL, 'p' }, { 0 },
	};
	const char *cpus = NULL, *pct = NULL;
	struct tb_conf conf;
	struct err e = { .code = 0 };
	char spec[80];
	int c, lock, ws;

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_testbed)) != -1) {
		if (c == 'I')
			instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE);
		else if (c == 'c')
			cpus = optarg;
		else
			pct = optarg;
	}
	if (argc - optind != 1 || (cpus == NULL && pct == NULL))
		die_usage("usage: contend testbed cpu WS [--cpus LIST] [--pct PCT]");
	need(false);
	lock = lock_instance();
	load_conf(&conf);
	ws = find_ws(&conf, argv[optind]);
	if (cpus != NULL) {
		snprintf(spec, sizeof spec, "%d=%s", ws, cpus);
		apply_ws_setting(&conf, "--cpus", spec);
	}
	if (pct != NULL) {
		snprintf(spec, sizeof spec, "%d=%s", ws, pct);
		apply_ws_setting(&conf, "--pct", spec);
	}
	if (tb_conf_save(&conf, &e) < 0 || tb_cpu_up(&conf, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
	close(lock);
	printf("ws%d: cores %s, %d%% of a core\n", ws, conf.ws[ws].cpus, conf.ws[ws].cpu_pct);
	return 0;
}

/* ---- down ---- */

static int
sub_down(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
						  { "instance", required_argument, NULL, 'I' }, { 0 } };
	static struct tb_jrow rows[TB_JOURNAL_CAP];
	struct tb_proc procs[TB_PROCS_CAP];
	int nrows = 0, dropped = 0, nprocs = 0, c, lock;
	int nproc = 0, nnet = 0, ncg = 0, nhosts = 0, failed = 0;
	struct err e = { .code = 0 };

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_testbed)) != -1)
		instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE);
	if (optind < argc)
		die_usage("testbed down: unexpected argument '%s'", argv[optind]);
	need(false);
	lock = lock_instance();
	/* processes first: a namespace lives on while a process is in it */
	if (tb_procs_load(instance, procs, TB_PROCS_CAP, &nprocs, &e) < 0) {
		warnx_("testbed %d: %s (stopping what the cgroups hold instead)", instance, e.msg);
		nprocs = 0;
	}
	for (int k = 0; k < nprocs; k++)
		nproc += tb_proc_stop(procs[k].pid, procs[k].start_ticks, 500);
	if (tb_cpu_stop_tasks(instance, 1000, &nproc, &e) < 0) {
		warnx_("testbed %d: %s", instance, e.msg);
		failed++;
	}
	if (tb_journal_load(instance, rows, TB_JOURNAL_CAP, &nrows, &dropped, &e) < 0) {
		warnx_("testbed %d: %s (removing by name instead)", instance, e.msg);
		nrows = 0;
	}
	for (int k = nrows - 1; k >= 0; k--) {
		int r = 0;

		if (strcmp(rows[k].kind, "link") == 0)
			r = tb_net_del_link(rows[k].name, &e);
		else if (strcmp(rows[k].kind, "netns") == 0)
			r = tb_net_del_netns(rows[k].name, &e);
		else if (strcmp(rows[k].kind, "ipcns") == 0)
			r = tb_net_del_ipcns(rows[k].name, &e);
		else if (strcmp(rows[k].kind, "cgroup") == 0) {
			char prefix[128];

			/* only a directory of this instance, whatever the file says */
			tb_cgroup_dir(instance, "cpu", 0, prefix, sizeof prefix);
			if (strstr(rows[k].name, strrchr(prefix, '/')) != NULL && rmdir(rows[k].name) == 0)
				ncg++;
			continue;
		} else {
			continue;
		}
		if (r < 0) {
			warnx_("testbed %d: %s", instance, e.msg);
			failed++;
		} else {
			nnet += r;
		}
	}
	/* what a lost or torn journal would miss: the instance's names and directories */
	if (tb_net_sweep(instance, &nnet, &e) < 0) {
		warnx_("testbed %d: %s", instance, e.msg);
		failed++;
	}
	if (tb_cpu_remove(instance, &ncg, &e) < 0) {
		warnx_("testbed %d: %s", instance, e.msg);
		failed++;
	}
	if (tb_hosts_update(instance, NULL, &nhosts, &e) < 0) {
		warnx_("testbed %d: %s", instance, e.msg);
		failed++;
	}
	if (failed == 0 && tb_state_remove(instance, &e) < 0) {
		warnx_("testbed %d: %s", instance, e.msg);
		failed++;
	}
	close(lock);
	printf("testbed %d: down (stopped %d processes, removed %d namespaces and links, %d cgroups, %d hosts lines)\n",
	       instance, nproc, nnet, ncg, nhosts);
	if (failed)
		die("testbed %d: %d things could not be removed (see above)", instance, failed);
	return 0;
}

/* ---- competing load ---- */

/* argv for a hidden subcommand of this binary. */
static void
self_argv(const char *argv[], char *exe, size_t exelen, char *inst, size_t instlen)
{
	struct err e = { .code = 0 };

	if (tb_self_exe(exe, exelen, &e) < 0)
		die("testbed: %s", e.msg);
	snprintf(inst, instlen, "%d", instance);
	argv[0] = exe;
	argv[1] = "testbed";
	argv[2] = "--instance";
	argv[3] = inst;
}

static void
spawn_recorded(struct tb_proc *procs, int *nprocs, int ws, int owner, const char *kind,
	       const char *const argv[])
{
	struct err e = { .code = 0 };
	struct tb_proc *p;

	if (*nprocs >= TB_PROCS_CAP)
		die("testbed %d: more than %d load processes", instance, TB_PROCS_CAP);
	p = &procs[*nprocs];
	memset(p, 0, sizeof *p);
	if (tb_spawn(instance, ws, argv, &p->pid, &p->start_ticks, &e) < 0) {
		/* keep what was started recorded so unload/down find it */
		if (tb_procs_save(instance, procs, *nprocs, NULL) < 0)
			warnx_("testbed %d: cannot record the load started so far", instance);
		die("testbed %d: %s", instance, e.msg);
	}
	snprintf(p->kind, sizeof p->kind, "%s", kind);
	p->ws = ws;
	p->owner = owner;
	(*nprocs)++;
	if (tb_procs_save(instance, procs, *nprocs, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
}

static int
sub_load(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "instance", required_argument, NULL, 'I' },
		{ "cpu", required_argument, NULL, 'c' }, { "comm", required_argument, NULL, 'm' },
		{ "duty", required_argument, NULL, 'd' }, { "period", required_argument, NULL, 'p' },
		{ 0 },
	};
	struct tb_proc procs[TB_PROCS_CAP];
	const char *peer = NULL;
	double duty = 0.5;
	int64_t period_ns = NS_PER_S;
	int ncpu = 0, c, lock, ws, nprocs = 0;
	struct tb_conf conf;
	struct err e = { .code = 0 };
	char exe[512], inst[16];
	const char *av[12];

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_testbed)) != -1) {
		switch (c) {
		case 'I': instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE); break;
		case 'c': ncpu = (int)cli_i64(optarg, "--cpu", 0, 64); break;
		case 'm': peer = optarg; break;
		case 'd': duty = cli_f64(optarg, "--duty", 0.01, 1.0); break;
		default: period_ns = cli_duration_ns(optarg, "--period", NS_PER_S); break;
		}
	}
	if (argc - optind != 1 || (ncpu == 0 && peer == NULL))
		die_usage("usage: contend testbed load WS [--cpu N] [--comm PEER [--duty F] [--period T]]");
	if (period_ns < 10000000)
		die_usage("testbed load: '--period' must be at least 10ms");
	need(false);
	lock = lock_instance();
	load_conf(&conf);
	ws = find_ws(&conf, argv[optind]);
	if (tb_procs_load(instance, procs, TB_PROCS_CAP, &nprocs, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
	self_argv(av, exe, sizeof exe, inst, sizeof inst);
	for (int k = 0; k < ncpu; k++) {
		av[4] = "_spin";
		av[5] = NULL;
		spawn_recorded(procs, &nprocs, ws, ws, "spin", av);
	}
	if (peer != NULL) {
		int pw = find_ws(&conf, peer);
		int port = SINK_PORT_BASE;
		char portbuf[16], addr[32], dutybuf[32], periodbuf[32];

		if (pw == ws)
			die_usage("testbed load: '--comm' needs another workstation than '%s'", argv[optind]);
		for (int k = 0; k < nprocs; k++)	/* a free port in the peer */
			if (procs[k].ws == pw && strcmp(procs[k].kind, "sink") == 0 &&
			    tb_proc_is(procs[k].pid, procs[k].start_ticks))
				port++;
		snprintf(portbuf, sizeof portbuf, "%d", port);
		tb_addr(instance, conf.ws[pw].subnet, pw, addr, sizeof addr);
		snprintf(dutybuf, sizeof dutybuf, "%.6f", duty);
		snprintf(periodbuf, sizeof periodbuf, "%lld", (long long)period_ns);
		av[4] = "_sink";
		av[5] = portbuf;
		av[6] = NULL;
		spawn_recorded(procs, &nprocs, pw, ws, "sink", av);
		av[4] = "_source";
		av[5] = addr;
		av[6] = portbuf;
		av[7] = dutybuf;
		av[8] = periodbuf;
		av[9] = NULL;
		spawn_recorded(procs, &nprocs, ws, ws, "source", av);
	}
	close(lock);
	printf("ws%d: started %d cpu-bound process%s%s%s\n", ws, ncpu, ncpu == 1 ? "" : "es",
	       peer ? " and a transfer to " : "", peer ? peer : "");
	return 0;
}

static int
sub_unload(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
						  { "instance", required_argument, NULL, 'I' }, { 0 } };
	struct tb_proc procs[TB_PROCS_CAP];
	struct tb_conf conf;
	struct err e = { .code = 0 };
	int nprocs = 0, kept = 0, stopped = 0, ws = 0, c, lock;

	while ((c = cli_getopt(argc, argv, "h", longopts, usage_testbed)) != -1)
		instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE);
	if (argc - optind > 1)
		die_usage("usage: contend testbed unload [WS]");
	need(false);
	lock = lock_instance();
	if (optind < argc) {
		load_conf(&conf);
		ws = find_ws(&conf, argv[optind]);
	}
	if (tb_procs_load(instance, procs, TB_PROCS_CAP, &nprocs, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
	for (int k = 0; k < nprocs; k++) {
		if (ws != 0 && procs[k].owner != ws) {
			procs[kept++] = procs[k];
			continue;
		}
		stopped += tb_proc_stop(procs[k].pid, procs[k].start_ticks, 500);
	}
	if (tb_procs_save(instance, procs, kept, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
	close(lock);
	printf("stopped %d load process%s\n", stopped, stopped == 1 ? "" : "es");
	return 0;
}

/* ---- running things inside workstations ---- */

/* Enter workstation ws (namespace and cgroups) or die. */
static void
enter_ws(int ws)
{
	char ns[32];
	char bufs[2][256];
	const char *dirs[3];
	struct err e = { .code = 0 };

	tb_name_ws(instance, ws, ns, sizeof ns);
	tb_cpu_dirs(instance, ws, bufs, dirs);
	if (tb_enter(ns, dirs, &e) < 0)
		die("testbed %d: %s", instance, e.msg);
}

static int
sub_exec(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' },
						  { "instance", required_argument, NULL, 'I' }, { 0 } };
	struct tb_conf conf;
	int c, ws;

	while ((c = cli_getopt(argc, argv, "+h", longopts, usage_testbed)) != -1)
		instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE);
	if (argc - optind < 2)
		die_usage("usage: contend testbed exec WS -- CMD [ARGS]");
	need(false);
	load_conf(&conf);
	ws = find_ws(&conf, argv[optind]);
	optind++;
	if (strcmp(argv[optind], "--") == 0)
		optind++;
	if (optind >= argc)
		die_usage("usage: contend testbed exec WS -- CMD [ARGS]");
	enter_ws(ws);
	execvp(argv[optind], argv + optind);
	die("testbed exec: cannot run '%s': %s", argv[optind], strerror(errno));
}

/* ssh and rsh options that take a value (the agent is called like ssh or rsh). */
static bool
option_takes_value(char o)
{
	return strchr("bcDEeFIiJLlmOopQRSWwB", o) != NULL;
}

static int
sub_rsh(int argc, char **argv)
{
	struct tb_conf conf;
	char *cmd;
	size_t len = 0, cap = 1;
	int k = 1, ws;

	/* not getopt: the launchers may pass ssh options (-x, -o K=V, -p PORT, -l USER) */
	while (k < argc && argv[k][0] == '-' && argv[k][1] != '\0') {
		if (strcmp(argv[k], "--") == 0) {
			k++;
			break;
		}
		if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
			fputs(usage_testbed, stdout);
			return 0;
		}
		/* "-o value" or "-ovalue"; flags may be bundled ("-xT") */
		if (option_takes_value(argv[k][strlen(argv[k]) - 1]) && strlen(argv[k]) == 2)
			k++;
		k++;
	}
	if (argc - k < 2)
		die_usage("usage: contend testbed rsh [OPTIONS] WS CMD... (no interactive login)");
	need(false);
	load_conf(&conf);
	ws = find_ws(&conf, argv[k]);
	for (int j = k + 1; j < argc; j++)
		cap += strlen(argv[j]) + 1;
	cmd = xmalloc(cap);
	for (int j = k + 1; j < argc; j++) {
		size_t n = strlen(argv[j]);

		if (len > 0)
			cmd[len++] = ' ';
		memcpy(cmd + len, argv[j], n);
		len += n;
	}
	cmd[len] = '\0';
	enter_ws(ws);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	die("testbed rsh: cannot run '/bin/sh': %s", strerror(errno));
}

static int
sub_mpirun(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "instance", required_argument, NULL, 'I' },
		{ "mpich", no_argument, NULL, 'M' }, { "np", required_argument, NULL, 'n' },
		{ "tcp", no_argument, NULL, 'T' },
		{ "hosts", required_argument, NULL, 'H' }, { "verbose", no_argument, NULL, 'v' }, { 0 },
	};
	struct tb_conf conf;
	bool mpich = false, verb = false, tcp = false;
	const char *hostsarg = NULL;
	long np = 0;
	int c, nhosts = 0;
	char hosts[TB_MAX_WS * 16 + 1] = "", agent[256], net[48], br[32], npbuf[16];
	const char **av;
	int n = 0;

	/* "-np N" as mpirun spells it: getopt_long_only semantics for this one word */
	for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		if (strcmp(argv[k], "-np") == 0)
			argv[k] = "--np";
	while ((c = cli_getopt(argc, argv, "+hn:v", longopts, usage_testbed)) != -1) {
		switch (c) {
		case 'I': instance = (int)cli_i64(optarg, "--instance", 0, TB_MAX_INSTANCE); break;
		case 'M': mpich = true; break;
		case 'T': tcp = true; break;
		case 'n': np = (long)cli_i64(optarg, "-np", 1, 4096); break;
		case 'H': hostsarg = optarg; break;
		default: verb = true; break;
		}
	}
	if (optind >= argc)
		die_usage("usage: contend testbed mpirun [--mpich] [--tcp] [-np N] [--hosts WS,WS] -- APP [ARGS]");
	need(false);
	load_conf(&conf);
	if (hostsarg != NULL) {
		char *list = xstrdup(hostsarg);

		for (char *h = list, *next; h != NULL; h = next) {
			char name[32];
			int ws;

			next = strchr(h, ',');
			if (next != NULL)
				*next++ = '\0';
			if (*h == '\0')
				continue;
			ws = find_ws(&conf, h);

			tb_name_ws(instance, ws, name, sizeof name);
			snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s%s", nhosts ? "," : "",
				 name);
			if (++nhosts > TB_MAX_WS)
				die_usage("testbed mpirun: more than %d hosts", TB_MAX_WS);
		}
		free(list);
		if (nhosts == 0)
			die_usage("testbed mpirun: '--hosts' lists no workstation");
	} else {
		for (int i = 1; i <= conf.nws; i++) {
			char name[32];

			tb_name_ws(instance, i, name, sizeof name);
			snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s%s", i > 1 ? "," : "", name);
		}
		nhosts = conf.nws;
	}
	if (np == 0)
		np = nhosts;
	snprintf(npbuf, sizeof npbuf, "%ld", np);
	write_agent(agent, sizeof agent);
	tb_addr(instance, 1, 0, net, sizeof net);
	if (conf.routed)	/* both subnets: 10.<100+K>.0.0/16 */
		snprintf(net, sizeof net, "10.%d.0.0/16", 100 + instance);
	else
		snprintf(net + strlen(net), sizeof net - strlen(net), "/24");
	tb_name_bridge(instance, 1, br, sizeof br);
	if (strcmp(argv[optind], "--") == 0)
		optind++;
	if (optind >= argc)
		die_usage("testbed mpirun: no program to run after '--'");
	av = xcalloc((size_t)(argc - optind) + 48, sizeof *av);
	/* The MPI's own transport choice unless --tcp: users' jobs move the messages between
	 * ranks of one node through shared memory, and the tests should see what they get.
	 * UCX (MPICH's ch4:ucx) tells machines apart by the kernel's boot id, which every
	 * workstation shares, and by the IPC namespace, which `up` gives each workstation:
	 * without that namespace UCX would reach the other workstations through shared memory,
	 * so a testbed made before it existed needs `up` again. */
	if (mpich) {
		const char *fixed[] = { "mpiexec.mpich", "-iface", br, "-launcher", "rsh", "-launcher-exec",
					agent, "-hosts", hosts, "-n", npbuf, "-genv", "UCX_NET_DEVICES", "eth0",
					NULL };
		const char *tcp_only[] = { "-genv", "UCX_TLS", "tcp,self", "-genv", "MPIR_CVAR_NOLOCAL", "1", NULL };

		for (int i = 1; i <= conf.nws; i++) {
			char name[32], path[160];

			tb_name_ws(instance, i, name, sizeof name);
			tb_ipcns_path(name, path, sizeof path);
			if (!tcp && !tb_exists(path))
				die("testbed %d: workstation %s has no IPC namespace and UCX would use shared memory "
				    "between workstations: run 'up' again, or use --tcp", instance, name);
		}

		for (int k = 0; fixed[k] != NULL; k++)
			av[n++] = fixed[k];
		for (int k = 0; tcp && tcp_only[k] != NULL; k++)
			av[n++] = tcp_only[k];
	} else {
		const char *fixed[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
					"--map-by", "node", "-np", npbuf, "--host", hosts,
					"--mca", "plm_rsh_agent", agent, "--mca", "plm_rsh_no_tree_spawn", "1",
					"--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
					NULL };
		const char *tcp_only[] = { "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", NULL };

		for (int k = 0; fixed[k] != NULL; k++)
			av[n++] = fixed[k];
		for (int k = 0; tcp && tcp_only[k] != NULL; k++)
			av[n++] = tcp_only[k];
	}
	for (int k = optind; k < argc; k++)
		av[n++] = argv[k];
	av[n] = NULL;
	if (verb) {
		for (int k = 0; k < n; k++)
			fprintf(stderr, "%s%s", k ? " " : "", av[k]);
		fputc('\n', stderr);
	}
	{
		struct err e = { .code = 0 };

		if (tb_cpu_join_launch(instance, &e) < 0)
			fprintf(stderr, "contend: testbed mpirun: warning: %s; the launcher runs where it was "
				"started\n", e.msg);
	}
	fflush(stdout);
	execvp(av[0], (char *const *)av);
	die("testbed mpirun: cannot run '%s': %s", av[0], strerror(errno));
}

static int
sub_check(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	const char *m;

	while (cli_getopt(argc, argv, "h", longopts, usage_testbed) != -1)
		;
	m = missing(true);
	if (m != NULL) {
		printf("missing: %s\n", m);
		return 1;
	}
	printf("ok: root, iproute2, network namespaces, bridges, veth, tbf, cgroup v1 cpu and cpuset (%d cores)\n",
	       tb_cpu_count());
	return 0;
}

/* ---- hidden subcommands run by `load` inside a workstation ---- */

static int
sub_hidden(int argc, char **argv)
{
	struct err e = { .code = 0 };
	int rc = 0;

	if (strcmp(argv[0], "_spin") == 0 && argc == 1)
		tb_load_spin();
	if (strcmp(argv[0], "_sink") == 0 && argc == 2)
		rc = tb_load_sink((int)cli_i64(argv[1], "port", 1, 65535), &e);
	else if (strcmp(argv[0], "_source") == 0 && argc == 5)
		rc = tb_load_source(argv[1], (int)cli_i64(argv[2], "port", 1, 65535),
				    cli_f64(argv[3], "duty", 0.01, 1), cli_i64(argv[4], "period", 10000000,
									       INT64_MAX), &e);
	else
		die_usage("testbed: bad internal subcommand '%s'", argv[0]);
	die("testbed %s: %s", argv[0], rc < 0 ? e.msg : "ended");
}

int
cmd_testbed(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{ "up", sub_up }, { "down", sub_down }, { "status", sub_status }, { "check", sub_check },
		{ "link", sub_link }, { "cpu", sub_cpu }, { "load", sub_load }, { "unload", sub_unload },
		{ "exec", sub_exec }, { "rsh", sub_rsh }, { "mpirun", sub_mpirun },
		{ "_spin", sub_hidden }, { "_sink", sub_hidden }, { "_source", sub_hidden },
	};
	struct err e = { .code = 0 };
	int k = 1;

	if (tb_instance_from_env(&instance, &e) < 0)
		die_usage("testbed: %s", e.msg);
	while (k < argc && argv[k][0] == '-') {
		if (strcmp(argv[k], "-h") == 0 || strcmp(argv[k], "--help") == 0) {
			fputs(usage_testbed, stdout);
			return 0;
		}
		if (strcmp(argv[k], "--instance") == 0 && k + 1 < argc) {
			instance = (int)cli_i64(argv[k + 1], "--instance", 0, TB_MAX_INSTANCE);
			k += 2;
		} else if (strncmp(argv[k], "--instance=", 11) == 0) {
			instance = (int)cli_i64(argv[k] + 11, "--instance", 0, TB_MAX_INSTANCE);
			k++;
		} else {
			die_usage("testbed: unknown option '%s' (see 'contend testbed --help')", argv[k]);
		}
	}
	if (k >= argc)
		die_usage("testbed: which subcommand? (see 'contend testbed --help')");
	for (size_t j = 0; j < sizeof subs / sizeof subs[0]; j++) {
		if (strcmp(argv[k], subs[j].name) == 0) {
			optind = 1;
			return subs[j].fn(argc - k, argv + k);
		}
	}
	die_usage("testbed: unknown subcommand '%s' (see 'contend testbed --help')", argv[k]);
}
