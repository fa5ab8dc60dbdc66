/* sampler: /proc readings of the application's threads and of the node. */
#include "collect/sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

const char *const sampler_cols[] = { "t_mono_ns", "t_real_ns", "pid", "tid", "state",
	"utime_ticks", "stime_ticks", "run_ns", "wait_ns", "vcsw", "ivcsw", NULL };
const char *const sampler_node_cols[] = { "t_mono_ns", "t_real_ns", "load1", "load5", "load15",
	"nrunning", "nprocs", "cpu_user", "cpu_nice", "cpu_system", "cpu_idle", "cpu_iowait",
	"cpu_irq", "cpu_softirq", "cpu_steal", NULL };

#define MAX_PROCS 4096	/* processes followed in one tree */

struct slot {
	pid_t pid, tid;
	int fd_stat, fd_sched, fd_status, fd_children;	/* kept open; -1 when closed */
	unsigned gen;				/* last sample that saw it */
	unsigned status_gen;			/* sample that last read status, 0 never */
	uint64_t vcsw, ivcsw;			/* from that read */
};

struct sampler {
	pid_t root;
	size_t max_tasks;
	struct slot *slots;	/* open files of known threads, nslots used */
	size_t nslots, slots_cap;
	struct sampler_task *tasks;	/* last sample */
	size_t ntasks, tasks_cap;
	pid_t *pids;		/* processes of the last sample */
	size_t npids, pids_cap;
	unsigned gen;
	long over_cap, read_errors;
	DIR *root_tasks;	/* /proc/ROOT/task, kept open and rewound each sample */
};

struct sampler *
sampler_new(pid_t root, size_t max_tasks)
{
	struct sampler *s = xcalloc(1, sizeof *s);

	s->root = root;
	s->max_tasks = max_tasks;
	return s;
}

static void
slot_close(struct slot *sl)
{
	if (sl->fd_stat >= 0)
		close(sl->fd_stat);
	if (sl->fd_sched >= 0)
		close(sl->fd_sched);
	if (sl->fd_status >= 0)
		close(sl->fd_status);
	if (sl->fd_children >= 0)
		close(sl->fd_children);
	sl->fd_stat = sl->fd_sched = sl->fd_status = sl->fd_children = -1;
}

void
sampler_free(struct sampler *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nslots; i++)
		slot_close(&s->slots[i]);
	if (s->root_tasks != NULL)
		closedir(s->root_tasks);
	free(s->slots);
	free(s->tasks);
	free(s->pids);
	free(s);
}

/* Read a /proc file from offset 0 into buf (NUL-terminated). Returns length or -1. */
static ssize_t
pread_all(int fd, char *buf, size_t cap)
{
	ssize_t n;

	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static ssize_t
read_path(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread_all(fd, buf, cap);
	close(fd);
	return n;
}

static int
parse_u64(const char **p, uint64_t *v)
{
	char *end;
	unsigned long long x;

	while (**p == ' ')
		(*p)++;
	if (**p < '0' || **p > '9')
		return -E_FORMAT;
	errno = 0;
	x = strtoull(*p, &end, 10);
	if (errno)
		return -E_FORMAT;
	*p = end;
	*v = x;
	return 0;
}

int
sampler_parse_stat(const char *text, char *state, pid_t *ppid, uint64_t *utime, uint64_t *stime)
{
	const char *p = strrchr(text, ')');	/* comm may hold spaces and ')' */

	if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return -E_FORMAT;
	*state = p[2];
	p += 3;
	/* fields 4 (ppid) to 15 (stime); tty_nr and tpgid may be negative */
	for (int field = 4; field <= 15; field++) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno || end == p || (*end != ' ' && *end != '\n' && *end != '\0'))
			return -E_FORMAT;
		p = end;
		if (field == 4)
			*ppid = (pid_t)v;
		else if ((field == 14 || field == 15) && v < 0)
			return -E_FORMAT;
		else if (field == 14)
			*utime = (uint64_t)v;
		else if (field == 15)
			*stime = (uint64_t)v;
	}
	return 0;
}

int
sampler_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns)
{
	const char *p = text;

	if (parse_u64(&p, run_ns) < 0 || parse_u64(&p, wait_ns) < 0)
		return -E_FORMAT;
	return 0;
}

static int
status_field(const char *text, const char *key, uint64_t *v)
{
	const char *p = strstr(text, key);

	if (p == NULL || (p != text && p[-1] != '\n'))
		return -E_FORMAT;
	p += strlen(key);
	while (*p == '\t' || *p == ' ')
		p++;
	return parse_u64(&p, v);
}

int
sampler_parse_status(const char *text, uint64_t *vcsw, uint64_t *ivcsw)
{
	if (status_field(text, "voluntary_ctxt_switches:", vcsw) < 0 ||
	    status_field(text, "nonvoluntary_ctxt_switches:", ivcsw) < 0)
		return -E_FORMAT;
	return 0;
}

int
sampler_parse_loadavg(const char *text, struct sampler_node *n)
{
	char *end;
	const char *p = text;
	double *l[3] = { &n->load1, &n->load5, &n->load15 };
	uint64_t v;

	for (int i = 0; i < 3; i++) {
		errno = 0;
		*l[i] = strtod(p, &end);
		if (errno || end == p || *end != ' ')
			return -E_FORMAT;
		p = end;
	}
	if (parse_u64(&p, &v) < 0 || *p != '/')
		return -E_FORMAT;
	n->nrunning = (int64_t)v;
	p++;
	if (parse_u64(&p, &v) < 0)
		return -E_FORMAT;
	n->nprocs = (int64_t)v;
	return 0;
}

int
sampler_parse_procstat(const char *text, struct sampler_node *n)
{
	const char *p = text;

	if (strncmp(p, "cpu ", 4) != 0)
		return -E_FORMAT;
	p += 4;
	for (int i = 0; i < 8; i++)
		if (parse_u64(&p, &n->cpu[i]) < 0)
			return -E_FORMAT;
	return 0;
}

static void
add_pid(struct sampler *s, pid_t pid)
{
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return;
	if (s->npids >= MAX_PROCS)
		return;
	s->pids = xgrow(s->pids, &s->pids_cap, s->npids + 1, sizeof *s->pids);
	s->pids[s->npids++] = pid;
}

static struct slot *
slot_get(struct sampler *s, pid_t pid, pid_t tid)
{
	char path[96];

	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i].tid == tid && s->slots[i].pid == pid)
			return &s->slots[i];
	if (s->nslots >= s->max_tasks) {
		s->over_cap++;
		return NULL;
	}
	s->slots = xgrow(s->slots, &s->slots_cap, s->nslots + 1, sizeof *s->slots);
	{
		struct slot *sl = &s->slots[s->nslots];

		sl->pid = pid;
		sl->tid = tid;
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", (long)pid, (long)tid);
		sl->fd_stat = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/schedstat", (long)pid, (long)tid);
		sl->fd_sched = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/status", (long)pid, (long)tid);
		sl->fd_status = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, (long)tid);
		sl->fd_children = open(path, O_RDONLY | O_CLOEXEC);
		if (sl->fd_stat < 0) {
			slot_close(sl);
			return NULL;	/* gone already */
		}
		s->nslots++;
		return sl;
	}
}

static void
read_task(struct sampler *s, struct slot *sl)
{
	char buf[4096];
	struct sampler_task t;
	pid_t ppid;

	memset(&t, 0, sizeof t);
	t.pid = sl->pid;
	t.tid = sl->tid;
	if (pread_all(sl->fd_stat, buf, sizeof buf) <= 0)
		return;	/* the thread ended */
	if (sampler_parse_stat(buf, &t.state, &ppid, &t.utime_ticks, &t.stime_ticks) < 0) {
		s->read_errors++;
		return;
	}
	if (sl->fd_sched >= 0 && pread_all(sl->fd_sched, buf, sizeof buf) > 0 &&
	    sampler_parse_schedstat(buf, &t.run_ns, &t.wait_ns) < 0)
		s->read_errors++;
	/* status costs several times stat and schedstat together: its switch counts are
	 * refreshed every SAMPLER_STATUS_EVERY samples and repeated in between */
	if (sl->fd_status >= 0 &&
	    (sl->status_gen == 0 || s->gen - sl->status_gen >= SAMPLER_STATUS_EVERY)) {
		if (pread_all(sl->fd_status, buf, sizeof buf) > 0 &&
		    sampler_parse_status(buf, &sl->vcsw, &sl->ivcsw) < 0)
			s->read_errors++;
		sl->status_gen = s->gen;
	}
	t.vcsw = sl->vcsw;
	t.ivcsw = sl->ivcsw;
	s->tasks = xgrow(s->tasks, &s->tasks_cap, s->ntasks + 1, sizeof *s->tasks);
	s->tasks[s->ntasks++] = t;
}

/* Visit the threads of pid: read each, and queue the children each one has. */
static void
visit_process(struct sampler *s, pid_t pid)
{
	char path[96];
	char buf[4096];
	DIR *d;
	struct dirent *de;

	/* the application's own thread list is read every sample: keep it open (procfs
	 * lists the threads afresh at each rewind) */
	if (pid == s->root && s->root_tasks != NULL) {
		d = s->root_tasks;
		rewinddir(d);
	} else {
		snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
		d = opendir(path);
		if (d == NULL)
			return;
		if (pid == s->root)
			s->root_tasks = d;
	}
	while ((de = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		struct slot *sl;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end != '\0')
			continue;
		sl = slot_get(s, pid, (pid_t)tid);
		if (sl != NULL) {
			sl->gen = s->gen;
			read_task(s, sl);
		}
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, tid);
		if ((sl != NULL && sl->fd_children >= 0 ? pread_all(sl->fd_children, buf, sizeof buf)
							 : read_path(path, buf, sizeof buf)) > 0) {
			const char *p = buf;
			uint64_t child;

			while (parse_u64(&p, &child) == 0)
				add_pid(s, (pid_t)child);
		}
	}
	if (d != s->root_tasks)
		closedir(d);
}

size_t
sampler_take(struct sampler *s, const struct sampler_task **tasks)
{
	size_t kept = 0;

	s->gen++;
	s->ntasks = 0;
	s->npids = 0;
	add_pid(s, s->root);
	for (size_t i = 0; i < s->npids; i++)	/* npids grows as children are found */
		visit_process(s, s->pids[i]);
	/* Close the files of threads not seen this time. */
	for (size_t i = 0; i < s->nslots; i++) {
		if (s->slots[i].gen == s->gen)
			s->slots[kept++] = s->slots[i];
		else
			slot_close(&s->slots[i]);
	}
	s->nslots = kept;
	*tasks = s->tasks;
	return s->ntasks;
}

const pid_t *
sampler_pids(const struct sampler *s, size_t *n)
{
	*n = s->npids;
	return s->pids;
}

void
sampler_stats(const struct sampler *s, long *over_cap, long *read_errors)
{
	*over_cap = s->over_cap;
	*read_errors = s->read_errors;
}

int
sampler_write(struct tsv_w *t, int64_t t_mono_ns, int64_t t_real_ns,
	      const struct sampler_task *tasks, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		char st[2] = { tasks[i].state, 0 };
		int rc;

		tsv_w_i64(t, t_mono_ns);
		tsv_w_i64(t, t_real_ns);
		tsv_w_i64(t, tasks[i].pid);
		tsv_w_i64(t, tasks[i].tid);
		tsv_w_str(t, st);
		tsv_w_u64(t, tasks[i].utime_ticks);
		tsv_w_u64(t, tasks[i].stime_ticks);
		tsv_w_u64(t, tasks[i].run_ns);
		tsv_w_u64(t, tasks[i].wait_ns);
		tsv_w_u64(t, tasks[i].vcsw);
		tsv_w_u64(t, tasks[i].ivcsw);
		rc = tsv_w_end(t, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
sampler_node_take(struct sampler_node *n, struct err *e)
{
	static int fd_load = -1, fd_stat = -1;	/* kept open across samples */
	char buf[8192];

	memset(n, 0, sizeof *n);
	if (fd_load < 0)
		fd_load = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd_stat < 0)
		fd_stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd_load < 0 || fd_stat < 0)
		return err_sys(e, E_IO, "cannot open '/proc/loadavg' or '/proc/stat'");
	if (pread_all(fd_load, buf, sizeof buf) <= 0)
		return err_sys(e, E_IO, "cannot read '/proc/loadavg'");
	if (sampler_parse_loadavg(buf, n) < 0)
		return err_set(e, E_FORMAT, "'/proc/loadavg' has an unknown layout");
	if (pread_all(fd_stat, buf, sizeof buf) <= 0)
		return err_sys(e, E_IO, "cannot read '/proc/stat'");
	if (sampler_parse_procstat(buf, n) < 0)
		return err_set(e, E_FORMAT, "'/proc/stat' has an unknown layout");
	return 0;
}

int
sampler_node_write(struct tsv_w *t, int64_t t_mono_ns, int64_t t_real_ns,
		   const struct sampler_node *n, struct err *e)
{
	tsv_w_i64(t, t_mono_ns);
	tsv_w_i64(t, t_real_ns);
	tsv_w_f64(t, n->load1);
	tsv_w_f64(t, n->load5);
	tsv_w_f64(t, n->load15);
	tsv_w_i64(t, n->nrunning);
	tsv_w_i64(t, n->nprocs);
	for (int i = 0; i < 8; i++)
		tsv_w_u64(t, n->cpu[i]);
	return tsv_w_end(t, e);
}
