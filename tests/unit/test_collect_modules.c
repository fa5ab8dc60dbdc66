/* Unit tests of collect/: /proc parsers, launcher environment, meta files, pcap check. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collect/agent.h"
#include "collect/check.h"
#include "collect/runmeta.h"
#include "collect/sampler.h"
#include "collect/sockmap.h"
#include "lib/clock.h"
#include "lib/xalloc.h"
#include "tests/unit/check.h"

TEST(stat_comm_with_spaces_and_parens)
{
	const char *s = "1234 (a b) (c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 17 0 0 20 0 3 0 5";
	char st = 0;
	pid_t ppid = 0;
	uint64_t u = 0, k = 0;

	CHECK(sampler_parse_stat(s, &st, &ppid, &u, &k) == 0);
	CHECK(st == 'S');
	CHECK(ppid == 1);
	CHECK(u == 250);
	CHECK(k == 17);
}

TEST(stat_damaged)
{
	char st;
	pid_t ppid;
	uint64_t u, k;

	CHECK(sampler_parse_stat("1234 (x) R 1 2", &st, &ppid, &u, &k) < 0);
	CHECK(sampler_parse_stat("no parens", &st, &ppid, &u, &k) < 0);
	CHECK(sampler_parse_stat("1 (x) R 1 1 1 0 -1 0 0 0 0 0 -5 1", &st, &ppid, &u, &k) < 0);
}

TEST(schedstat_and_status)
{
	uint64_t r = 0, w = 0, v = 0, iv = 0;

	CHECK(sampler_parse_schedstat("977000000 23000000 51\n", &r, &w) == 0);
	CHECK(r == 977000000);
	CHECK(w == 23000000);
	CHECK(sampler_parse_schedstat("x 1 2", &r, &w) < 0);
	CHECK(sampler_parse_status("Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n",
				   &v, &iv) == 0);
	CHECK(v == 12);
	CHECK(iv == 3);
	CHECK(sampler_parse_status("Name:\tx\n", &v, &iv) < 0);
}

TEST(loadavg_and_procstat)
{
	struct sampler_node n;

	CHECK(sampler_parse_loadavg("0.50 1.25 2.00 3/345 9999\n", &n) == 0);
	CHECK_NEAR(n.load5, 1.25, 1e-9);
	CHECK(n.nrunning == 3);
	CHECK(n.nprocs == 345);
	CHECK(sampler_parse_procstat("cpu  10 1 20 300 4 0 5 0 0 0\ncpu0 ...", &n) == 0);
	CHECK(n.cpu[0] == 10);
	CHECK(n.cpu[3] == 300);
	CHECK(n.cpu[6] == 5);
	CHECK(sampler_parse_procstat("intr 1 2", &n) < 0);
	CHECK(sampler_parse_loadavg("garbage", &n) < 0);
}

TEST(sockmap_lines)
{
	struct sockmap_entry s;
	const char *v4 = "   3: 0100007F:0400 0100007F:D8F5 01 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 20 4 30 10 -1";
	const char *v6 = "   0: 0000000000000000FFFF00000201000A:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0";
	const char *v6b = "   0: 000080FE00000000FF00FC02010000FE:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9 1 0";

	CHECK(sockmap_parse_line(v4, false, &s) == 0);
	CHECK_STR(s.local_ip, "127.0.0.1");
	CHECK(s.local_port == 1024);
	CHECK(s.remote_port == 0xD8F5);
	CHECK(s.state == 1);
	CHECK(s.inode == 123456);
	CHECK_STR(sockmap_state_name(s.state), "ESTABLISHED");
	CHECK(sockmap_parse_line(v6, true, &s) == 0);
	CHECK_STR(s.local_ip, "10.0.1.2");
	CHECK(s.local_port == 8080);
	CHECK(s.state == 10);
	CHECK(s.inode == 777);
	CHECK(sockmap_parse_line(v6b, true, &s) == 0);
	CHECK_STR(s.local_ip, "fe80::2fc:ff:fe00:1");
	CHECK(sockmap_parse_line("  1: zz:00 ", false, &s) < 0);
	CHECK(sockmap_parse_line(v4, true, &s) < 0);
	CHECK_STR(sockmap_state_name(99), "UNKNOWN");
}

/* Scan this process with the given source into path; the rows as text, sorted, or NULL. */
static char *
scan_self(enum sockmap_source src, const char *path, const char **used)
{
	struct sockmap *m = sockmap_new(7, 1000);
	struct tsv_w t;
	struct err e;
	pid_t self = getpid();
	long reads = 0;
	char *cmd, *out = NULL;
	FILE *f;
	int rc;

	sockmap_set_source(m, src);
	if (tsv_w_open(&t, path, "sockets", 1, sockmap_cols, false, true, &e) < 0) {
		sockmap_free(m);
		return NULL;
	}
	rc = sockmap_scan(m, &self, 1, 1234, true, &t, &e);
	CHECK(rc >= 3);
	CHECK(tsv_w_close(&t, &e) == 0);
	*used = sockmap_tables(m, &reads);
	CHECK(reads == 1);
	sockmap_free(m);
	cmd = xasprintf("sed 1,2d '%s' | sort", path);	/* without the two header lines */
	if ((f = popen(cmd, "r")) != NULL) {
		size_t cap = 0;
		ssize_t n = getdelim(&out, &cap, '\0', f);

		if (n < 0) {
			free(out);
			out = NULL;
		}
		pclose(f);
	}
	free(cmd);
	return out;
}

TEST(sockmap_netlink_matches_proc)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	int lis = socket(AF_INET, SOCK_STREAM, 0), cli = socket(AF_INET, SOCK_STREAM, 0), srv;
	char *p1 = xasprintf("%s/s-netlink.tsv", check_tmpdir());
	char *p2 = xasprintf("%s/s-proc.tsv", check_tmpdir());
	char *nl, *pr, want[64];
	const char *u1 = NULL, *u2 = NULL;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(lis >= 0);
	CHECK(cli >= 0);
	if (CHECKED(bind(lis, (struct sockaddr *)&a, sizeof a) == 0))
		CHECK(listen(lis, 1) == 0);
	CHECK(getsockname(lis, (struct sockaddr *)&a, &alen) == 0);
	CHECK(connect(cli, (struct sockaddr *)&a, sizeof a) == 0);
	srv = accept(lis, NULL, NULL);
	CHECK(srv >= 0);
	nl = scan_self(SOCKMAP_AUTO, p1, &u1);
	pr = scan_self(SOCKMAP_PROC, p2, &u2);
	CHECK_STR(u1, "netlink");
	CHECK_STR(u2, "proc");
	CHECK(nl != NULL);
	CHECK(pr != NULL);
	/* Same rows from both sources, among them the listener and both ends. */
	CHECK_STR(nl, pr);
	snprintf(want, sizeof want, "127.0.0.1\t%u\t0.0.0.0\t0\tLISTEN", ntohs(a.sin_port));
	if (CHECKED(nl != NULL))
		CHECK(strstr(nl, want) != NULL);
	snprintf(want, sizeof want, "\t127.0.0.1\t%u\tESTABLISHED", ntohs(a.sin_port));
	if (CHECKED(nl != NULL))	/* the client's end */
		CHECK(strstr(nl, want) != NULL);
	snprintf(want, sizeof want, "127.0.0.1\t%u\t127.0.0.1\t", ntohs(a.sin_port));
	if (CHECKED(nl != NULL))	/* the accepted end */
		CHECK(strstr(nl, want) != NULL);
	free(nl);
	free(pr);
	free(p1);
	free(p2);
	close(srv);
	close(cli);
	close(lis);
}

TEST(slurm_tasks_per_node)
{
	CHECK(agent_slurm_tasks_on_node("2(x3),1", 0) == 2);
	CHECK(agent_slurm_tasks_on_node("2(x3),1", 2) == 2);
	CHECK(agent_slurm_tasks_on_node("2(x3),1", 3) == 1);
	CHECK(agent_slurm_tasks_on_node("2(x3),1", 4) == -1);
	CHECK(agent_slurm_tasks_on_node("4", 0) == 4);
	CHECK(agent_slurm_tasks_on_node("2(3)", 0) == -1);
	CHECK(agent_slurm_tasks_on_node(NULL, 0) == -1);
}

TEST(env_openmpi_and_mpich)
{
	struct agent_env a;
	struct err e;

	setenv("OMPI_COMM_WORLD_RANK", "2", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
	setenv("OMPI_MCA_ess_base_jobid", "777", 1);
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "openmpi");
	CHECK(a.rank == 2);
	CHECK(a.size == 4);
	CHECK(a.local_rank == 0);
	CHECK(a.local_size == 2);
	CHECK(a.local_known);
	CHECK_STR(a.job_id, "777");
	setenv("OMPI_COMM_WORLD_RANK", "9", 1);
	CHECK(agent_env_detect(&a, &e) < 0);	/* rank outside the size */
	setenv("OMPI_COMM_WORLD_RANK", "x", 1);
	CHECK(agent_env_detect(&a, &e) < 0);
	unsetenv("OMPI_COMM_WORLD_RANK");
	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "3", 1);
	setenv("MPI_LOCALRANKID", "1", 1);
	setenv("MPI_LOCALNRANKS", "3", 1);
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "mpich");
	CHECK(a.rank == 1);
	CHECK(a.size == 3);
	CHECK(a.local_rank == 1);
	CHECK(a.local_size == 3);
	unsetenv("PMI_RANK");
	setenv("SLURM_PROCID", "5", 1);
	setenv("SLURM_NTASKS", "8", 1);
	setenv("SLURM_LOCALID", "1", 1);
	setenv("SLURM_NODEID", "2", 1);
	setenv("SLURM_TASKS_PER_NODE", "2(x4)", 1);
	setenv("SLURM_JOB_ID", "42", 1);
	setenv("SLURM_STEP_ID", "3", 1);
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "slurm");
	CHECK(a.rank == 5);
	CHECK(a.size == 8);
	CHECK(a.local_size == 2);
	CHECK_STR(a.job_id, "42.3");
	/* srun --mpi=pmi2: PMI_RANK too, but Slurm says who shares the node */
	setenv("PMI_RANK", "5", 1);
	setenv("PMI_SIZE", "8", 1);
	unsetenv("MPI_LOCALRANKID");
	unsetenv("MPI_LOCALNRANKS");
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "slurm");
	CHECK(a.rank == 5);
	CHECK(a.local_rank == 1);
	CHECK(a.local_size == 2);
	/* Hydra started by srun: its own node-local variables win */
	setenv("MPI_LOCALRANKID", "0", 1);
	setenv("MPI_LOCALNRANKS", "2", 1);
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "mpich");
	CHECK(a.rank == 5);
	CHECK(a.local_rank == 0);
	CHECK(a.local_size == 2);
	unsetenv("PMI_RANK");
	unsetenv("PMI_SIZE");
	unsetenv("MPI_LOCALRANKID");
	unsetenv("MPI_LOCALNRANKS");
	unsetenv("SLURM_PROCID");
	/* PMIx alone: no node-local rank, the node's agents elect their leader */
	setenv("PMIX_RANK", "3", 1);
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "pmix");
	CHECK(a.rank == 3);
	CHECK(!a.local_known);
	unsetenv("PMIX_RANK");
	CHECK(agent_env_detect(&a, &e) == 0);
	CHECK_STR(a.launcher, "none");
	CHECK(a.rank == 0);
	CHECK(a.size == 1);
	CHECK(a.local_known);
}

TEST(meta_round_trip)
{
	const char *dir = check_tmpdir();
	char *path = xasprintf("%s/m.tsv", dir);
	struct runmeta m, r;
	struct err e;
	int64_t v = 0;

	runmeta_init(&m);
	runmeta_set(&m, "command", "a\tb\nc \\ d");
	runmeta_set_i64(&m, "rank", 3);
	runmeta_set_i64(&m, "rank", 4);	/* replaces */
	CHECK(runmeta_write(&m, path, true, &e) == 0);
	CHECK(runmeta_write(&m, path, true, &e) < 0);	/* exclusive */
	CHECK(runmeta_write(&m, path, false, &e) == 0);
	CHECK(runmeta_read(&r, path, &e) == 0);
	CHECK_STR(runmeta_get(&r, "command"), "a\tb\nc \\ d");
	if (CHECKED(runmeta_get_i64(&r, "rank", &v) == 0))
		CHECK(v == 4);
	CHECK(runmeta_get_i64(&r, "command", &v) < 0);
	CHECK(runmeta_get(&r, "absent") == NULL);
	CHECK(r.n == 2);
	runmeta_release(&m);
	runmeta_release(&r);
	unlink(path);
	free(path);
}

TEST(safe_names)
{
	char out[16];

	runmeta_safe_name("node-1.example", out, sizeof out);
	CHECK_STR(out, "node-1.example");
	runmeta_safe_name("../etc/x y", out, sizeof out);
	CHECK_STR(out, ".._etc_x_y");
	runmeta_safe_name("..", out, sizeof out);
	CHECK_STR(out, "unknown");
	runmeta_safe_name("", out, sizeof out);
	CHECK_STR(out, "unknown");
}

static char *
write_file(const char *name, const void *p, size_t n)
{
	char *path = xasprintf("%s/%s", check_tmpdir(), name);
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
	return path;
}

TEST(pcap_check)
{
	/* nanosecond little-endian header, one 4-byte packet */
	static const uint8_t good[] = {
		0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0,
		1, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef,
	};
	uint8_t bad[sizeof good];
	struct err e;
	long n = -1;
	char *p;

	p = write_file("good.pcap", good, sizeof good);
	CHECK(check_pcap(p, &n, &e) == 0);
	CHECK(n == 1);
	free(p);
	p = write_file("cut.pcap", good, sizeof good - 2);
	CHECK(check_pcap(p, &n, &e) == -E_TRUNC);
	CHECK(n == 0);
	free(p);
	memcpy(bad, good, sizeof bad);
	bad[0] = 0x00;
	p = write_file("notpcap.pcap", bad, sizeof bad);
	CHECK(check_pcap(p, &n, &e) == -E_FORMAT);
	free(p);
	memcpy(bad, good, sizeof bad);
	bad[28] = 0xff, bad[29] = 0xff, bad[30] = 0xff, bad[31] = 0xff;	/* nanoseconds > 1e9 */
	p = write_file("badts.pcap", bad, sizeof bad);
	CHECK(check_pcap(p, &n, &e) == -E_FORMAT);
	free(p);
	p = write_file("short.pcap", good, 10);
	CHECK(check_pcap(p, &n, &e) < 0);
	free(p);
}

TEST(sample_self)
{
	struct sampler *s = sampler_new(getpid(), 64);
	const struct sampler_task *t;
	size_t n;
	volatile double x = 0;
	size_t np;

	for (long i = 0; i < 3000000; i++)	/* burn CPU so that run_ns grows */
		x += (double)i;
	CHECK(x > 0);
	n = sampler_take(s, &t);
	CHECK(n >= 1);
	if (CHECKED(n >= 1)) {
		CHECK(t[0].pid == getpid());
		CHECK(t[0].tid == getpid());
	}
	if (CHECKED(n >= 1))
		CHECK(t[0].state == 'R');
	if (CHECKED(n >= 1))
		CHECK(t[0].run_ns > 0);
	if (CHECKED(sampler_pids(s, &np) != NULL))
		CHECK(np == 1);
	sampler_free(s);
}

/* The shared grid: the next point is ahead by at most one period, and sleeping to it
 * wakes within a few milliseconds after a multiple of the period on CLOCK_REALTIME. */
TEST(real_time_grid)
{
	const int64_t period = 20 * NS_PER_MS;
	int on_grid = 0;

	for (int i = 0; i < 5; i++) {
		int64_t now = clock_mono_ns();
		int64_t next = clock_grid_next_mono(period);
		struct timespec ts = clock_ns_ts(next);

		CHECK(next > now);
		CHECK(next - now <= period);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		on_grid += clock_real_ns() % period < 5 * NS_PER_MS;
	}
	CHECK(on_grid >= 3);	/* a loaded machine may wake a sleeper late now and then */
}

int
main(void)
{
	RUN(stat_comm_with_spaces_and_parens);
	RUN(stat_damaged);
	RUN(schedstat_and_status);
	RUN(loadavg_and_procstat);
	RUN(sockmap_lines);
	RUN(sockmap_netlink_matches_proc);
	RUN(slurm_tasks_per_node);
	RUN(env_openmpi_and_mpich);
	RUN(meta_round_trip);
	RUN(safe_names);
	RUN(pcap_check);
	RUN(sample_self);
	RUN(real_time_grid);
	return check_done();
}
