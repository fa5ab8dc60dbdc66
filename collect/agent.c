/* agent: launcher environment, the application as a child, signal forwarding, reaping. */
#include "collect/agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/cpucap.h"
#include "lib/xalloc.h"

static int
env_int(const char *name, int *v, bool *present, struct err *e)
{
	const char *s = getenv(name);
	char *end;
	long x;

	*present = false;
	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || x < 0 || x > 100000000)
		return err_set(e, E_FORMAT, "launcher variable %s='%s' is not a count", name, s);
	*v = (int)x;
	*present = true;
	return 0;
}

static void
copy_env(char *out, size_t outlen, const char *name)
{
	const char *s = getenv(name);

	if (s != NULL && *s != '\0')
		snprintf(out, outlen, "%s", s);
}

int
agent_slurm_tasks_on_node(const char *spec, int node_id)
{
	const char *p = spec;
	long node = 0;	/* index of the first node the current group covers */

	if (spec == NULL || node_id < 0)
		return -1;
	while (*p) {
		char *end;
		long tasks, reps = 1;

		errno = 0;
		tasks = strtol(p, &end, 10);
		if (errno || end == p || tasks < 0 || tasks > 1000000)
			return -1;
		p = end;
		if (p[0] == '(') {
			if (p[1] != 'x')
				return -1;
			reps = strtol(p + 2, &end, 10);
			if (end == p + 2 || *end != ')' || reps < 1 || reps > 10000000)
				return -1;
			p = end + 1;
		}
		if (node_id < node + reps)
			return (int)tasks;
		node += reps;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -1;
	}
	return -1;
}

static int
try_openmpi(struct agent_env *a, struct err *e)
{
	bool have, have_size, have_lr, have_ls;
	int rc = env_int("OMPI_COMM_WORLD_RANK", &a->rank, &have, e);

	if (rc < 0 || !have)
		return rc < 0 ? rc : 0;
	a->launcher = "openmpi";
	if ((rc = env_int("OMPI_COMM_WORLD_SIZE", &a->size, &have_size, e)) < 0 ||
	    (rc = env_int("OMPI_COMM_WORLD_LOCAL_RANK", &a->local_rank, &have_lr, e)) < 0 ||
	    (rc = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", &a->local_size, &have_ls, e)) < 0)
		return rc;
	a->local_known = have_lr;
	copy_env(a->job_id, sizeof a->job_id, "PMIX_NAMESPACE");
	copy_env(a->job_id, sizeof a->job_id, "OMPI_MCA_ess_base_jobid");
	copy_env(a->host, sizeof a->host, "PMIX_HOSTNAME");
	return 1;
}

static int
try_mpich(struct agent_env *a, struct err *e)
{
	bool have, x, have_lr;
	int rc = env_int("PMI_RANK", &a->rank, &have, e);
	const char *lr = getenv("MPI_LOCALRANKID"), *sp = getenv("SLURM_PROCID");

	if (rc < 0 || !have)
		return rc < 0 ? rc : 0;
	/* srun --mpi=pmi2 sets PMI_RANK but none of Hydra's node-local variables: the ranks
	 * are Slurm's tasks, and Slurm's variables say which share a node. (Hydra's ranks
	 * have MPI_LOCALRANKID; their SLURM_PROCID, if any, is a proxy's.) */
	if ((lr == NULL || *lr == '\0') && sp != NULL && strcmp(sp, getenv("PMI_RANK")) == 0)
		return 0;
	a->launcher = "mpich";
	if ((rc = env_int("PMI_SIZE", &a->size, &x, e)) < 0 ||
	    (rc = env_int("MPI_LOCALRANKID", &a->local_rank, &have_lr, e)) < 0 ||
	    (rc = env_int("MPI_LOCALNRANKS", &a->local_size, &x, e)) < 0)
		return rc;
	a->local_known = have_lr;
	copy_env(a->job_id, sizeof a->job_id, "PMI_KVSNAME");
	copy_env(a->host, sizeof a->host, "MPIR_CVAR_CH3_INTERFACE_HOSTNAME");
	return 1;
}

static int
try_slurm(struct agent_env *a, struct err *e)
{
	bool have, x, have_lr;
	int node_id = -1;
	int rc = env_int("SLURM_PROCID", &a->rank, &have, e);
	const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");

	if (rc < 0 || !have)
		return rc < 0 ? rc : 0;
	a->launcher = "slurm";
	if ((rc = env_int("SLURM_NTASKS", &a->size, &x, e)) < 0 ||
	    (rc = env_int("SLURM_LOCALID", &a->local_rank, &have_lr, e)) < 0 ||
	    (rc = env_int("SLURM_NODEID", &node_id, &x, e)) < 0)
		return rc;
	a->local_known = have_lr;
	a->local_size = agent_slurm_tasks_on_node(getenv("SLURM_STEP_TASKS_PER_NODE"), node_id);
	if (a->local_size < 0)
		a->local_size = agent_slurm_tasks_on_node(getenv("SLURM_TASKS_PER_NODE"), node_id);
	if (job != NULL)
		snprintf(a->job_id, sizeof a->job_id, "%s.%s", job, step ? step : "0");
	copy_env(a->host, sizeof a->host, "SLURMD_NODENAME");
	return 1;
}

static int
try_pmix(struct agent_env *a, struct err *e)
{
	bool have;
	int rc = env_int("PMIX_RANK", &a->rank, &have, e);

	if (rc < 0 || !have)
		return rc < 0 ? rc : 0;
	a->launcher = "pmix";
	copy_env(a->job_id, sizeof a->job_id, "PMIX_NAMESPACE");
	copy_env(a->host, sizeof a->host, "PMIX_HOSTNAME");
	return 1;
}

/* The first name /etc/hosts gives addr, into out; false when none. */
static bool
hosts_name(const char *addr, char *out, size_t outlen)
{
	FILE *f = fopen("/etc/hosts", "re");
	char line[1024];
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		char a[256], name[256];

		if (line[0] == '#' || sscanf(line, "%255s %255s", a, name) != 2)
			continue;
		if (strcmp(a, addr) == 0) {
			snprintf(out, outlen, "%s", name);
			found = true;
		}
	}
	fclose(f);
	return found;
}

void
agent_netns_host(char *host, size_t hostlen)
{
	char mine[128], init[128];
	ssize_t n1 = readlink("/proc/self/ns/net", mine, sizeof mine - 1);
	ssize_t n2 = readlink("/proc/1/ns/net", init, sizeof init - 1);
	struct ifaddrs *ifa, *p;
	char addr[INET_ADDRSTRLEN] = "";

	if (n1 <= 0 || n2 <= 0)
		return;
	mine[n1] = init[n2] = '\0';
	if (strcmp(mine, init) == 0 || getifaddrs(&ifa) != 0)
		return;
	for (p = ifa; p != NULL && addr[0] == '\0'; p = p->ifa_next)
		if (p->ifa_addr != NULL && p->ifa_addr->sa_family == AF_INET &&
		    !(p->ifa_flags & IFF_LOOPBACK) && (p->ifa_flags & IFF_UP))
			inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr, addr,
				  sizeof addr);
	freeifaddrs(ifa);
	if (addr[0] == '\0')
		return;
	{
		char name[256];
		char *joined;

		if (hosts_name(addr, name, sizeof name)) {
			snprintf(host, hostlen, "%s", name);
			return;
		}
		joined = xasprintf("%s-%s", host, addr);
		snprintf(host, hostlen, "%s", joined);
		free(joined);
	}
}

int
agent_env_detect(struct agent_env *a, struct err *e)
{
	int (*const tries[])(struct agent_env *, struct err *) = {
		try_openmpi, try_mpich, try_slurm, try_pmix,
	};
	int rc = 0;

	memset(a, 0, sizeof *a);
	a->launcher = "none";
	a->size = 1;
	a->local_size = 1;
	for (size_t i = 0; i < sizeof tries / sizeof tries[0] && rc == 0; i++) {
		a->size = -1;
		a->local_size = -1;
		a->local_rank = 0;
		a->local_known = false;
		rc = tries[i](a, e);
	}
	if (rc < 0)
		return rc;
	if (rc == 0) {
		a->launcher = "none";
		a->rank = 0;
		a->size = 1;
		a->local_rank = 0;
		a->local_size = 1;
		a->local_known = true;
	}
	if (a->size >= 0 && a->rank >= a->size)
		return err_set(e, E_FORMAT, "launcher says rank %d of %d", a->rank, a->size);
	if (a->local_size >= 0 && a->local_rank >= a->local_size)
		return err_set(e, E_FORMAT, "launcher says local rank %d of %d", a->local_rank,
			       a->local_size);
	if (a->host[0] == '\0' && gethostname(a->host, sizeof a->host - 1) != 0)
		snprintf(a->host, sizeof a->host, "unknown");
	agent_netns_host(a->host, sizeof a->host);
	return 0;
}

/* ---- signals ---- */

static volatile sig_atomic_t child_pid_;	/* 0 until spawned */
static volatile sig_atomic_t pending_[65];	/* caught before the child existed */
static volatile sig_atomic_t forwarded_[65];	/* count per signal */
static volatile sig_atomic_t terminating_;

static const int fwd_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
				SIGCONT, SIGWINCH, SIGALRM, SIGTSTP };

static void
on_signal(int sig)
{
	int saved = errno;
	pid_t pid = (pid_t)child_pid_;
	int to = sig == SIGTSTP ? SIGSTOP : sig;	/* the agent itself keeps running */

	if (sig == SIGHUP || sig == SIGINT || sig == SIGQUIT || sig == SIGTERM)
		terminating_ = 1;
	if (sig > 0 && sig < 65) {
		if (pid > 0) {
			kill(pid, to);
			forwarded_[sig]++;
		} else {
			pending_[sig] = 1;
		}
	}
	errno = saved;
}

/* Nothing to do: being caught is what ends the sampling sleep at the child's end. */
static void
on_child(int sig)
{
	(void)sig;
}

void
agent_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the sampling sleep sees EINTR and carries on */
	for (size_t i = 0; i < sizeof fwd_sigs / sizeof fwd_sigs[0]; i++)
		sigaction(fwd_sigs[i], &sa, NULL);
	/* The application's end wakes the sampling sleep (clock_nanosleep is never restarted),
	 * so the last sample and the stop do not wait for the next slot; other calls restart. */
	sa.sa_handler = on_child;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void
agent_signals_forwarded(char *out, size_t outlen)
{
	size_t n = 0;

	if (outlen == 0)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof fwd_sigs / sizeof fwd_sigs[0]; i++) {
		int s = fwd_sigs[i];

		if (forwarded_[s] > 0 && n < outlen) {
			const char *name = sigabbrev_np(s);
			int w = snprintf(out + n, outlen - n, "%s%s", n ? "," : "", name ? name : "?");

			if (w > 0)
				n += (size_t)w;
		}
	}
}

bool
agent_signals_terminating(void)
{
	return terminating_ != 0;
}

int
agent_see_local_env(char *out, size_t outlen, struct err *e)
{
	static const char *const vars[][2] = {
		{ "OMPI_MCA_btl", "tcp,self" },
		{ "UCX_TLS", "tcp,self" },
		{ "MPIR_CVAR_NOLOCAL", "1" },
	};
	size_t off = 0;

	if (outlen > 0)
		out[0] = '\0';
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		int w;

		if (setenv(vars[i][0], vars[i][1], 1) != 0)
			return err_sys(e, E_IO, "cannot set %s in the environment", vars[i][0]);
		w = snprintf(out + off, outlen - off, "%s%s=%s", off ? " " : "", vars[i][0], vars[i][1]);
		if (w > 0 && (size_t)w < outlen - off)
			off += (size_t)w;
	}
	return 0;
}

static int
to_batch(pid_t tid, void *unused)
{
	(void)unused;
	return sched_setscheduler(tid, SCHED_BATCH, &(struct sched_param){ .sched_priority = 0 });
}

const char *
agent_observer_policy(bool batch)
{
	int pol = sched_getscheduler(0);

	if (pol < 0)
		return "unknown";
	if (pol == SCHED_BATCH)
		return "batch";
	if (pol != SCHED_OTHER)
		return "as-app";	/* real-time, idle or deadline: the user's choice, kept */
	if (!batch)
		return "normal";
	/* SCHED_BATCH keeps the nice value and the CPU share; it only gives up preempting
	 * the running task when the agent wakes. The policy is per thread: every thread of
	 * the agent (the capture thread started before the application). */
	return cpucap_each_thread(to_batch, NULL) == 0 ? "batch" : "normal";
}

int
agent_spawn(char *const *argv, pid_t *pid, int *errno_out, struct err *e)
{
	/* posix_spawn (vfork-like in glibc) rather than fork: the agent may hold a large
	 * capture ring, which fork would copy page tables for and count in the child's
	 * maximum resident size. */
	posix_spawnattr_t at;
	sigset_t none, def;
	pid_t c;
	int rc;

	*errno_out = 0;
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);	/* the agent ignores it; the application must not */
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(&c, argv[0], NULL, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		*errno_out = rc;
		errno = rc;
		return err_sys(e, E_IO, "cannot run '%s'", argv[0]);
	}
	*pid = c;
	child_pid_ = c;
	for (int s = 1; s < 65; s++) {
		if (pending_[s]) {
			pending_[s] = 0;
			kill(c, s == SIGTSTP ? SIGSTOP : s);
			forwarded_[s]++;
		}
	}
	return 0;
}

int
agent_child_done(pid_t pid, struct err *e)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
		if (errno == EINTR)
			return 0;
		return err_sys(e, E_IO, "cannot wait for process %ld", (long)pid);
	}
	return si.si_pid == pid ? 1 : 0;
}

int
agent_reap(pid_t pid, struct agent_exit *x, struct err *e)
{
	pid_t r;

	memset(x, 0, sizeof *x);
	do
		r = wait4(pid, &x->status, 0, &x->ru);
	while (r < 0 && errno == EINTR);
	if (r != pid)
		return err_sys(e, E_IO, "cannot wait for process %ld", (long)pid);
	child_pid_ = 0;
	x->ended = true;
	x->exit_code = WIFEXITED(x->status) ? WEXITSTATUS(x->status) : -1;
	x->signal = WIFSIGNALED(x->status) ? WTERMSIG(x->status) : 0;
	x->core = WIFSIGNALED(x->status) && WCOREDUMP(x->status);
	return 0;
}

int
agent_exit_code(const struct agent_exit *x)
{
	if (x->signal)
		return 128 + x->signal;
	return x->exit_code < 0 ? 1 : x->exit_code;
}
