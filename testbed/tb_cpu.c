/* tb_cpu: a workstation's CPU share: cgroup v1 cpuset (pinning) and cpu (quota) directories. */
#include "testbed/tb_cpu.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testbed/tb_sys.h"

/* cpu.cfs_period_us we set: quotas are percent of this. A short period spreads a
 * workstation's share evenly over every 20 ms sample (a busy rank at 50 % runs about half of
 * each sample instead of 50 ms on, 50 ms throttled, which samples read as busy and idle
 * phases); below 10 % the kernel's 1 ms minimum quota needs the longer period. */
#define CPU_PERIOD_US(pct) ((pct) >= 10 ? 10000 : 100000)

static const char *const controllers[] = { "cpuset", "cpu", NULL };

const char *
tb_cpu_missing(void)
{
	if (!tb_exists(TB_CGROUP_ROOT "/cpuset/cpuset.cpus"))
		return "cgroup v1 'cpuset' controller is not mounted at " TB_CGROUP_ROOT "/cpuset";
	if (!tb_exists(TB_CGROUP_ROOT "/cpu/cpu.cfs_quota_us"))
		return "cgroup v1 'cpu' controller (with cfs quota) is not mounted at " TB_CGROUP_ROOT "/cpu";
	return NULL;
}

int
tb_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n >= 1 && n <= 4096 ? (int)n : 1;
}

/* The root's value of a cpuset file, newline stripped. */
static int
root_value(const char *file, char *buf, size_t len, struct err *e)
{
	char path[256];

	snprintf(path, sizeof path, "%s/cpuset/%s", TB_CGROUP_ROOT, file);
	if (tb_read_file(path, buf, len, e) < 0)
		return -E_IO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int
set_value(const char *dir, const char *file, const char *value, struct err *e)
{
	char path[400];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (tb_write_file(path, value, e) < 0) {
		err_prefix(e, "setting '%s' to '%s'", path, value);
		return -E_IO;
	}
	return 0;
}

static int
ensure_dir(int instance, const char *dir, struct err *e)
{
	if (tb_exists(dir))
		return 0;
	if (tb_journal_add(instance, "cgroup", dir, e) < 0)
		return -E_IO;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return err_sys(e, E_IO, "cannot create cgroup '%s'", dir);
	return 0;
}

void
tb_cpu_dirs(int instance, int ws, char bufs[2][256], const char *dirs[3])
{
	for (int k = 0; k < 2; k++) {
		tb_cgroup_dir(instance, controllers[k], ws, bufs[k], 256);
		dirs[k] = bufs[k];
	}
	dirs[2] = NULL;
}

int
tb_cpu_join_launch(int instance, struct err *e)
{
	char bufs[2][256];
	const char *dirs[3];

	tb_cpu_dirs(instance, TB_LAUNCH, bufs, dirs);
	for (int k = 0; dirs[k] != NULL; k++)
		if (!tb_exists(dirs[k]))
			return err_set(e, E_UNSUP, "testbed %d has no launchers' cgroup '%s' (made before it "
				       "existed: run 'up' again)", instance, dirs[k]);
	return tb_join_cgroups(dirs, e);
}

/* The CPUs of a cpuset list ("0", "0,2-3"); 0 when it does not parse. */
static int
cpus_in(const char *list)
{
	int n = 0;

	for (const char *p = list; *p != '\0';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			return 0;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return 0;
		}
		n += (int)(hi - lo + 1);
		if (*end != ',' && *end != '\0' && *end != '\n')
			return 0;
		p = *end == ',' ? end + 1 : end + strlen(end);
	}
	return n;
}

int
tb_cpu_up(const struct tb_conf *c, struct err *e)
{
	char cpus[256], mems[256], dir[256], quota[32], period[16];

	if (root_value("cpuset.effective_cpus", cpus, sizeof cpus, e) < 0 &&
	    root_value("cpuset.cpus", cpus, sizeof cpus, e) < 0)
		return -E_IO;
	if (root_value("cpuset.mems", mems, sizeof mems, e) < 0)
		return -E_IO;
	/* parents first: a cpuset child needs its parent's cpus and mems set */
	tb_cgroup_dir(c->instance, "cpuset", 0, dir, sizeof dir);
	if (ensure_dir(c->instance, dir, e) < 0 || set_value(dir, "cpuset.cpus", cpus, e) < 0 ||
	    set_value(dir, "cpuset.mems", mems, e) < 0)
		return -E_IO;
	tb_cgroup_dir(c->instance, "cpu", 0, dir, sizeof dir);
	if (ensure_dir(c->instance, dir, e) < 0)
		return -E_IO;
	/* the launchers' group, beside the workstations' with the default weight: mpirun runs on
	 * the host's cores, where it must get its fair share, as a node's daemons do, and not
	 * what a weight given to the instance (bench/, tests/e2e/) leaves to the machine's other
	 * processes (Open MPI's start-up took 9 s beside a CPU-bound competitor on a whole-core
	 * workstation: hwloc moves mpirun onto every core in turn) */
	tb_cgroup_dir(c->instance, "cpuset", TB_LAUNCH, dir, sizeof dir);
	if (ensure_dir(c->instance, dir, e) < 0 || set_value(dir, "cpuset.cpus", cpus, e) < 0 ||
	    set_value(dir, "cpuset.mems", mems, e) < 0)
		return -E_IO;
	tb_cgroup_dir(c->instance, "cpu", TB_LAUNCH, dir, sizeof dir);
	if (ensure_dir(c->instance, dir, e) < 0)
		return -E_IO;
	for (int i = 1; i <= c->nws; i++) {
		tb_cgroup_dir(c->instance, "cpuset", i, dir, sizeof dir);
		if (ensure_dir(c->instance, dir, e) < 0 ||
		    set_value(dir, "cpuset.cpus", c->ws[i].cpus, e) < 0 ||
		    set_value(dir, "cpuset.mems", mems, e) < 0)
			return -E_IO;
		tb_cgroup_dir(c->instance, "cpu", i, dir, sizeof dir);
		/* a share of all its cores is no quota: the cpuset bounds it, and a quota equal to
		 * it still throttles at the accounting's edges (a polling rank lost 3 % of its
		 * time that way) */
		if (c->ws[i].cpu_pct >= 100 * cpus_in(c->ws[i].cpus) && cpus_in(c->ws[i].cpus) > 0)
			snprintf(quota, sizeof quota, "-1");
		else
			snprintf(quota, sizeof quota, "%lld",
				 (long long)c->ws[i].cpu_pct * CPU_PERIOD_US(c->ws[i].cpu_pct) / 100);
		snprintf(period, sizeof period, "%d", CPU_PERIOD_US(c->ws[i].cpu_pct));
		if (ensure_dir(c->instance, dir, e) < 0 ||
		    set_value(dir, "cpu.cfs_period_us", period, e) < 0 ||
		    set_value(dir, "cpu.cfs_quota_us", quota, e) < 0)
			return -E_IO;
	}
	return 0;
}

/* Call fn for each pid listed in <dir>/cgroup.procs and in the cgroup.procs of its
 * direct subdirectories. Returns the number of pids seen. */
static int
each_task(int instance, void (*fn)(pid_t pid, void *arg), void *arg)
{
	int seen = 0;

	for (int k = 0; controllers[k] != NULL; k++) {
		char parent[256];
		DIR *d;
		struct dirent *de;

		tb_cgroup_dir(instance, controllers[k], 0, parent, sizeof parent);
		d = opendir(parent);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			char path[600];
			FILE *f;
			char line[64];

			if (strcmp(de->d_name, "..") == 0)
				continue;
			if (strcmp(de->d_name, ".") != 0 && strncmp(de->d_name, "ws", 2) != 0 &&
			    strcmp(de->d_name, "launch") != 0)
				continue;
			snprintf(path, sizeof path, "%s/%s/cgroup.procs", parent, de->d_name);
			f = fopen(path, "re");
			if (f == NULL)
				continue;
			while (fgets(line, sizeof line, f) != NULL) {
				char *end;
				long pid = strtol(line, &end, 10);

				if (pid > 1 && (*end == '\n' || *end == '\0')) {
					seen++;
					if (fn != NULL)
						fn((pid_t)pid, arg);
				}
			}
			fclose(f);
		}
		closedir(d);
	}
	return seen;
}

static void
send_signal(pid_t pid, void *arg)
{
	if (pid != getpid())
		kill(pid, *(int *)arg);
}

int
tb_cpu_stop_tasks(int instance, int grace_ms, int *stopped, struct err *e)
{
	int sig = SIGTERM;
	int n = each_task(instance, send_signal, &sig);

	*stopped += n;
	for (int waited = 0; n > 0 && waited < grace_ms; waited += 20) {
		tb_sleep_ms(20);
		n = each_task(instance, NULL, NULL);
	}
	if (n == 0)
		return 0;
	sig = SIGKILL;
	each_task(instance, send_signal, &sig);
	for (int waited = 0; waited < 2000; waited += 20) {
		if (each_task(instance, NULL, NULL) == 0)
			return 0;
		tb_sleep_ms(20);
	}
	return err_set(e, E_IO, "%d processes of testbed %d would not stop", each_task(instance, NULL, NULL),
		       instance);
}

int
tb_cpu_remove(int instance, int *removed, struct err *e)
{
	for (int k = 0; controllers[k] != NULL; k++) {
		char parent[256];
		char names[TB_MAX_WS + 8][64];
		int n = 0;
		DIR *d;
		struct dirent *de;

		tb_cgroup_dir(instance, controllers[k], 0, parent, sizeof parent);
		d = opendir(parent);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL && n < TB_MAX_WS + 8) {
			struct stat st;
			char path[600];

			if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof names[0])
				continue;
			snprintf(path, sizeof path, "%s/%s", parent, de->d_name);
			if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
				memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
		}
		closedir(d);
		for (int j = 0; j < n; j++) {
			char path[600];

			snprintf(path, sizeof path, "%s/%.63s", parent, names[j]);
			if (rmdir(path) < 0 && errno != ENOENT)
				return err_sys(e, E_IO, "cannot remove cgroup '%s'", path);
			(*removed)++;
		}
		if (rmdir(parent) < 0 && errno != ENOENT)
			return err_sys(e, E_IO, "cannot remove cgroup '%s'", parent);
		(*removed)++;
	}
	return 0;
}
