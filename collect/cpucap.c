/* cpucap: a process's CPU capacity from its affinity and its cgroup quota (v1 cpu, v2 cpu.max).
 *
 * A workstation of the testbed, a container or a Slurm step with a CPU limit runs a rank on
 * a fraction of a core: a computing rank then shows that fraction as run time in its
 * samples, and whoever reads them needs the fraction to call an interval busy. */
#include "collect/cpucap.h"

#include <dirent.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First line of path into out; 0, or -1 when it cannot be read. */
static int
read_line(const char *path, char *out, size_t outlen)
{
	FILE *f = fopen(path, "re");
	int rc = -1;

	if (f == NULL)
		return -1;
	if (fgets(out, (int)outlen, f) != NULL) {
		out[strcspn(out, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

static int
parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x = strtoll(s, &end, 10);

	if (end == s)
		return -1;
	*v = (int64_t)x;
	return 0;
}

int
cpucap_slice_ns(int64_t *ns, const char **src)
{
	static const char *const paths[] = { "/proc/sys/kernel/sched_base_slice_ns",
					     "/sys/kernel/debug/sched/base_slice_ns",
					     "/proc/sys/kernel/sched_min_granularity_ns",
					     "/sys/kernel/debug/sched/min_granularity_ns" };
	char line[64];
	int64_t v;

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (read_line(paths[i], line, sizeof line) == 0 && parse_i64(line, &v) == 0 && v > 0) {
			*ns = v;
			*src = paths[i];
			return 0;
		}
	}
	return -1;
}

/* The quota of one cgroup directory, 0 when it has one, -1 when none or unreadable. */
static int
dir_quota(const char *dir, bool v2, int64_t *quota_us, int64_t *period_us)
{
	char path[1100], line[128];

	if (v2) {
		char *sp;

		if (snprintf(path, sizeof path, "%s/cpu.max", dir) >= (int)sizeof path ||
		    read_line(path, line, sizeof line) < 0 || strncmp(line, "max", 3) == 0)
			return -1;
		sp = strchr(line, ' ');
		if (sp == NULL || parse_i64(line, quota_us) < 0 || parse_i64(sp + 1, period_us) < 0)
			return -1;
	} else {
		if (snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir) >= (int)sizeof path ||
		    read_line(path, line, sizeof line) < 0 || parse_i64(line, quota_us) < 0 ||
		    *quota_us <= 0)
			return -1;
		if (snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir) >= (int)sizeof path ||
		    read_line(path, line, sizeof line) < 0 || parse_i64(line, period_us) < 0)
			return -1;
	}
	return *quota_us > 0 && *period_us > 0 ? 0 : -1;
}

/* The cpu controller's path in /proc/PID/cgroup; sets *v2 when only the unified one is there. */
static int
cpu_cgroup(pid_t pid, char *out, size_t outlen, bool *v2)
{
	char path[64], line[1024];
	char unified[512] = "";
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof path, pid ? "/proc/%d/cgroup" : "/proc/self/cgroup", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (rc < 0 && fgets(line, sizeof line, f) != NULL) {
		char *c1 = strchr(line, ':'), *c2;

		line[strcspn(line, "\n")] = '\0';
		if (c1 == NULL || (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		*c2 = '\0';
		if (c1[1] == '\0') {
			snprintf(unified, sizeof unified, "%s", c2 + 1);
			continue;
		}
		/* c1 + 1 is a comma list of controllers: look for "cpu" itself. */
		for (char *s = c1 + 1; s != NULL; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
			size_t n = strcspn(s, ",");

			if (n == 3 && strncmp(s, "cpu", 3) == 0) {
				snprintf(out, outlen, "%s", c2 + 1);
				*v2 = false;
				rc = 0;
				break;
			}
		}
	}
	fclose(f);
	if (rc < 0 && unified[0] != '\0') {
		snprintf(out, outlen, "%s", unified);
		*v2 = true;
		rc = 0;
	}
	return rc;
}

void
cpucap_read(pid_t pid, struct cpucap *out)
{
	static const char *const v1_mounts[] = {
		"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct,cpu",
	};
	cpu_set_t set;
	bool v2 = false;
	char rel[512];

	memset(out, 0, sizeof *out);
	out->quota_us = -1;
	out->period_us = -1;
	if (sched_getaffinity(pid, sizeof set, &set) == 0)
		out->cpus_allowed = CPU_COUNT(&set);
	if (cpu_cgroup(pid, out->cgroup, sizeof out->cgroup, &v2) == 0) {
		const char *root = v2 ? "/sys/fs/cgroup" : NULL;
		char dir[1024];

		for (size_t i = 0; root == NULL && i < sizeof v1_mounts / sizeof v1_mounts[0]; i++) {
			snprintf(dir, sizeof dir, "%s/cpu.shares", v1_mounts[i]);
			if (read_line(dir, rel, sizeof rel) == 0)
				root = v1_mounts[i];
		}
		/* Walk from the cgroup up to the root: the tightest quota wins. */
		snprintf(rel, sizeof rel, "%s", out->cgroup);
		while (root != NULL) {
			int64_t q, p;
			char *slash;

			snprintf(dir, sizeof dir, "%s%s", root, strcmp(rel, "/") == 0 ? "" : rel);
			if (dir_quota(dir, v2, &q, &p) == 0 &&
			    (out->quota_us < 0 || (double)q / (double)p < (double)out->quota_us / (double)out->period_us)) {
				out->quota_us = q;
				out->period_us = p;
			}
			slash = strrchr(rel, '/');
			if (slash == NULL || strcmp(rel, "/") == 0)
				break;
			if (slash == rel)
				rel[1] = '\0';
			else
				*slash = '\0';
		}
	}
	out->capacity_cpus = out->cpus_allowed;
	if (out->quota_us > 0 && out->period_us > 0) {
		double q = (double)out->quota_us / (double)out->period_us;

		if (out->capacity_cpus == 0 || q < out->capacity_cpus)
			out->capacity_cpus = q;
	}
}

int
cpucap_each_thread(int (*fn)(pid_t tid, void *arg), void *arg)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int failed = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);

		if (tid > 0 && fn(tid, arg) != 0)
			failed++;
	}
	closedir(d);
	return failed;
}

static int
pin_thread(pid_t tid, void *set)
{
	return sched_setaffinity(tid, sizeof(cpu_set_t), set);
}

int
cpucap_place_observer(int local_ranks, char *cpus, size_t cpuslen)
{
	cpu_set_t set, one;
	int n, last = -1;

	snprintf(cpus, cpuslen, "-");
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	n = CPU_COUNT(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	if (local_ranks <= 0 || n <= local_ranks || last < 0) {
		snprintf(cpus, cpuslen, "shared:%d", n);
		return 0;
	}
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	if (cpucap_each_thread(pin_thread, &one) < 0)
		return 0;
	snprintf(cpus, cpuslen, "%d", last);
	return 1;
}
