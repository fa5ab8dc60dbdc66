/* tb_state: a testbed instance's layout, names and state directory (config, journal, processes). */
#include "testbed/tb_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/tsv.h"
#include "testbed/tb_sys.h"

void
tb_conf_default(struct tb_conf *c, int instance, int nws, bool routed, int ncpu)
{
	int per_core;	/* workstations sharing one core */

	memset(c, 0, sizeof *c);
	if (ncpu < 1)
		ncpu = 1;
	c->instance = instance;
	c->nws = nws;
	c->routed = routed;
	per_core = (nws + ncpu - 1) / ncpu;
	for (int i = 1; i <= nws; i++) {
		snprintf(c->ws[i].cpus, sizeof c->ws[i].cpus, "%d", (i - 1) % ncpu);
		c->ws[i].cpu_pct = 100 / per_core;
		c->ws[i].rate_bps = 0;
		c->ws[i].burst_bytes = 0;
		c->ws[i].subnet = routed && i > (nws + 1) / 2 ? 2 : 1;
	}
}

int
tb_instance_from_env(int *instance, struct err *e)
{
	const char *s = getenv("CONTEND_TESTBED");
	char *end;
	long v;

	*instance = 0;
	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < 0 || v > TB_MAX_INSTANCE)
		return err_set(e, E_USAGE, "CONTEND_TESTBED='%s' is not an instance number 0..%d", s,
			       TB_MAX_INSTANCE);
	*instance = (int)v;
	return 0;
}

void
tb_name_ws(int instance, int ws, char *buf, size_t len)
{
	if (ws == 0)
		snprintf(buf, len, "c%drt", instance);
	else
		snprintf(buf, len, "c%dws%d", instance, ws);
}

void
tb_name_veth(int instance, int ws, char *buf, size_t len)
{
	snprintf(buf, len, "c%dv%d", instance, ws);
}

void
tb_name_bridge(int instance, int subnet, char *buf, size_t len)
{
	snprintf(buf, len, "c%dbr%d", instance, subnet - 1);
}

void
tb_name_uplink(int instance, int subnet, char *buf, size_t len)
{
	snprintf(buf, len, "c%dr%d", instance, subnet);
}

void
tb_addr(int instance, int subnet, int host, char *buf, size_t len)
{
	snprintf(buf, len, "10.%d.%d.%d", 100 + instance, subnet, host);
}

void
tb_name_prefix(int instance, char *buf, size_t len)
{
	snprintf(buf, len, "c%d", instance);
}

void
tb_cgroup_dir(int instance, const char *controller, int ws, char *buf, size_t len)
{
	if (ws == 0)
		snprintf(buf, len, "%s/%s/contend-testbed-%d", TB_CGROUP_ROOT, controller, instance);
	else if (ws == TB_LAUNCH)
		snprintf(buf, len, "%s/%s/contend-testbed-%d/launch", TB_CGROUP_ROOT, controller, instance);
	else
		snprintf(buf, len, "%s/%s/contend-testbed-%d/ws%d", TB_CGROUP_ROOT, controller, instance,
			 ws);
}

void
tb_state_path(int instance, const char *file, char *buf, size_t len)
{
	if (file == NULL)
		snprintf(buf, len, "%s/%d", TB_STATE_ROOT, instance);
	else
		snprintf(buf, len, "%s/%d/%s", TB_STATE_ROOT, instance, file);
}

/* A whole decimal number 1..max, or -1. */
static int
small_number(const char *s, int max)
{
	long v = 0;

	if (*s == '\0' || strlen(s) > 6)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v >= 1 && v <= max ? (int)v : -1;
}

int
tb_conf_find(const struct tb_conf *c, const char *host)
{
	char name[64];
	int n;

	tb_name_prefix(c->instance, name, sizeof name);
	if (strncmp(host, name, strlen(name)) == 0 && strncmp(host + strlen(name), "ws", 2) == 0)
		n = small_number(host + strlen(name) + 2, c->nws);
	else if (strncmp(host, "ws", 2) == 0)
		n = small_number(host + 2, c->nws);
	else
		n = small_number(host, c->nws);
	if (n > 0)
		return n;
	for (int i = 1; i <= c->nws; i++) {
		tb_addr(c->instance, c->ws[i].subnet, i, name, sizeof name);
		if (strcmp(host, name) == 0)
			return i;
	}
	return -1;
}

/* mkdir that accepts an existing directory. */
static int
mkdir_ok(const char *path, struct err *e)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return err_sys(e, E_IO, "cannot create '%s'", path);
	return 0;
}

int
tb_state_lock(int instance, struct err *e)
{
	char path[256];
	int fd;

	if (mkdir_ok(TB_STATE_ROOT, e) < 0)
		return -E_IO;
	tb_state_path(instance, NULL, path, sizeof path);
	if (mkdir_ok(path, e) < 0)
		return -E_IO;
	tb_state_path(instance, "lock", path, sizeof path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_sys(e, E_IO, "cannot open '%s'", path);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int r = err_sys(e, E_IO, "cannot lock '%s'", path);

			close(fd);
			return r;
		}
	}
	return fd;
}

/* Keys of the config file. */
static int
conf_set(struct tb_conf *c, const char *key, const char *val)
{
	char *end;
	long long v;
	int i;

	errno = 0;
	v = strtoll(val, &end, 10);
	if (strncmp(key, "ws", 2) == 0) {
		const char *dot = strchr(key, '.');
		char num[8];

		if (dot == NULL || (size_t)(dot - key - 2) >= sizeof num)
			return -1;
		memcpy(num, key + 2, (size_t)(dot - key - 2));
		num[dot - key - 2] = '\0';
		i = small_number(num, TB_MAX_WS);
		if (i < 0 || i > c->nws)
			return -1;
		if (strcmp(dot + 1, "cpus") == 0) {
			size_t n = strlen(val);

			if (n == 0 || n >= sizeof c->ws[i].cpus || strspn(val, "0123456789,-") != n)
				return -1;
			memcpy(c->ws[i].cpus, val, n + 1);
			return 0;
		}
		if (errno || end == val || *end != '\0')
			return -1;
		if (strcmp(dot + 1, "cpu_pct") == 0 && v >= 1 && v <= 100 * 1024)
			c->ws[i].cpu_pct = (int)v;
		else if (strcmp(dot + 1, "rate_bps") == 0 && v >= 0)
			c->ws[i].rate_bps = v;
		else if (strcmp(dot + 1, "burst_bytes") == 0 && v >= 0)
			c->ws[i].burst_bytes = v;
		else if (strcmp(dot + 1, "subnet") == 0 && (v == 1 || v == 2))
			c->ws[i].subnet = (int)v;
		else
			return -1;
		return 0;
	}
	if (errno || end == val || *end != '\0')
		return -1;
	if (strcmp(key, "instance") == 0 && v == c->instance)
		return 0;
	if (strcmp(key, "nws") == 0 && v >= 1 && v <= TB_MAX_WS)
		c->nws = (int)v;
	else if (strcmp(key, "routed") == 0 && (v == 0 || v == 1))
		c->routed = v == 1;
	else if (strcmp(key, "uplink1_bps") == 0 && v >= 0)
		c->uplink_bps[1] = v;
	else if (strcmp(key, "uplink2_bps") == 0 && v >= 0)
		c->uplink_bps[2] = v;
	else
		return -1;
	return 0;
}

int
tb_conf_load(int instance, struct tb_conf *c, struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	char path[256];
	struct tsv_r t;
	int rc;

	tb_state_path(instance, "config.tsv", path, sizeof path);
	if (!tb_exists(path))
		return 0;
	memset(c, 0, sizeof *c);
	c->instance = instance;
	c->nws = TB_MAX_WS;	/* until the nws row, so ws rows can be read in any order */
	rc = tsv_r_open(&t, path, "meta", 1, cols, e);
	if (rc < 0)
		return rc;
	{
		int kc = tsv_r_col(&t, "key"), vc = tsv_r_col(&t, "value");
		int nws = 0;

		while ((rc = tsv_r_next(&t, e)) == 1) {
			char key[64];

			snprintf(key, sizeof key, "%s", tsv_r_str(&t, kc));
			if (conf_set(c, key, tsv_r_str(&t, vc)) < 0) {
				rc = err_set(e, E_FORMAT, "'%s' line %ld: bad entry '%s'", path, t.line_no,
					     key);
				break;
			}
			if (strcmp(key, "nws") == 0)
				nws = c->nws;
		}
		tsv_r_close(&t);
		if (rc < 0)
			return rc;
		if (nws == 0)
			return err_set(e, E_FORMAT, "'%s' has no 'nws' entry", path);
		c->nws = nws;
		for (int i = 1; i <= nws; i++)
			if (c->ws[i].cpus[0] == '\0' || c->ws[i].cpu_pct == 0 || c->ws[i].subnet == 0)
				return err_set(e, E_FORMAT, "'%s' lacks entries for ws%d", path, i);
	}
	return 1;
}

/* One key/value row. */
static void
kv(struct tsv_w *t, const char *key, int64_t v)
{
	tsv_w_str(t, key);
	tsv_w_i64(t, v);
}

int
tb_conf_save(const struct tb_conf *c, struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	char path[256], tmp[256], key[64];
	struct tsv_w t;
	int rc;

	tb_state_path(c->instance, "config.tsv", path, sizeof path);
	tb_state_path(c->instance, "config.tsv.tmp", tmp, sizeof tmp);
	rc = tsv_w_open(&t, tmp, "meta", 1, cols, false, true, e);
	if (rc < 0)
		return rc;
	kv(&t, "instance", c->instance);
	rc = tsv_w_end(&t, e);
	kv(&t, "nws", c->nws);
	rc = rc < 0 ? rc : tsv_w_end(&t, e);
	kv(&t, "routed", c->routed);
	rc = rc < 0 ? rc : tsv_w_end(&t, e);
	kv(&t, "uplink1_bps", c->uplink_bps[1]);
	rc = rc < 0 ? rc : tsv_w_end(&t, e);
	kv(&t, "uplink2_bps", c->uplink_bps[2]);
	rc = rc < 0 ? rc : tsv_w_end(&t, e);
	for (int i = 1; i <= c->nws && rc >= 0; i++) {
		snprintf(key, sizeof key, "ws%d.cpus", i);
		tsv_w_str(&t, key);
		tsv_w_str(&t, c->ws[i].cpus);
		rc = tsv_w_end(&t, e);
		snprintf(key, sizeof key, "ws%d.cpu_pct", i);
		kv(&t, key, c->ws[i].cpu_pct);
		rc = rc < 0 ? rc : tsv_w_end(&t, e);
		snprintf(key, sizeof key, "ws%d.rate_bps", i);
		kv(&t, key, c->ws[i].rate_bps);
		rc = rc < 0 ? rc : tsv_w_end(&t, e);
		snprintf(key, sizeof key, "ws%d.burst_bytes", i);
		kv(&t, key, c->ws[i].burst_bytes);
		rc = rc < 0 ? rc : tsv_w_end(&t, e);
		snprintf(key, sizeof key, "ws%d.subnet", i);
		kv(&t, key, c->ws[i].subnet);
		rc = rc < 0 ? rc : tsv_w_end(&t, e);
	}
	if (rc < 0) {
		tsv_w_close(&t, NULL);
		unlink(tmp);
		return rc;
	}
	rc = tsv_w_close(&t, e);
	if (rc < 0)
		return rc;
	if (rename(tmp, path) < 0)
		return err_sys(e, E_IO, "cannot rename '%s' to '%s'", tmp, path);
	return 0;
}

/* Append one line to a hand-written TSV file, writing its header first when it is new. */
static int
append_row(const char *path, const char *header, const char *row, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	struct stat st;
	int rc = 0;

	if (fd < 0)
		return err_sys(e, E_IO, "cannot open '%s'", path);
	if (fstat(fd, &st) == 0 && st.st_size == 0 && dprintf(fd, "%s", header) < 0)
		rc = err_sys(e, E_IO, "cannot write '%s'", path);
	if (rc == 0 && dprintf(fd, "%s", row) < 0)
		rc = err_sys(e, E_IO, "cannot write '%s'", path);
	if (close(fd) < 0 && rc == 0)
		rc = err_sys(e, E_IO, "cannot write '%s'", path);
	return rc;
}

static const char journal_header[] = "# contend-tbjournal 1\nkind\tname\n";

int
tb_journal_add(int instance, const char *kind, const char *name, struct err *e)
{
	char path[256];
	char row[400];

	if (strpbrk(name, "\t\n\\") != NULL || strlen(name) >= sizeof ((struct tb_jrow *)0)->name)
		BUG("journal name '%s' cannot be stored", name);
	tb_state_path(instance, "journal.tsv", path, sizeof path);
	snprintf(row, sizeof row, "%s\t%s\n", kind, name);
	return append_row(path, journal_header, row, e);
}

int
tb_journal_load(int instance, struct tb_jrow *rows, int cap, int *n, int *dropped, struct err *e)
{
	static const char *const cols[] = { "kind", "name", NULL };
	char path[256];
	struct tsv_r t;
	int rc;

	*n = 0;
	*dropped = 0;
	tb_state_path(instance, "journal.tsv", path, sizeof path);
	if (!tb_exists(path))
		return 0;
	rc = tsv_r_open(&t, path, "tbjournal", 1, cols, e);
	if (rc == -E_TRUNC)
		return 0;	/* killed while writing the header: nothing was created after it */
	if (rc < 0)
		return rc;
	for (;;) {
		const char *kind, *name;

		rc = tsv_r_next(&t, e);
		if (rc == 0 || rc == -E_TRUNC)
			break;
		if (rc == -E_FORMAT || rc == -E_LIMIT) {
			(*dropped)++;	/* a torn last line: skip it */
			continue;
		}
		if (rc < 0) {
			tsv_r_close(&t);
			return rc;
		}
		kind = tsv_r_str(&t, tsv_r_col(&t, "kind"));
		name = tsv_r_str(&t, tsv_r_col(&t, "name"));
		if (*n >= cap || strlen(kind) >= sizeof rows->kind || strlen(name) >= sizeof rows->name) {
			(*dropped)++;
			continue;
		}
		memcpy(rows[*n].kind, kind, strlen(kind) + 1);
		memcpy(rows[*n].name, name, strlen(name) + 1);
		(*n)++;
	}
	tsv_r_close(&t);
	return 0;
}

int
tb_procs_load(int instance, struct tb_proc *procs, int cap, int *n, struct err *e)
{
	static const char *const cols[] = { "pid", "start_ticks", "kind", "ws", "owner", NULL };
	char path[256];
	struct tsv_r t;
	int rc;

	*n = 0;
	tb_state_path(instance, "procs.tsv", path, sizeof path);
	if (!tb_exists(path))
		return 0;
	rc = tsv_r_open(&t, path, "tbprocs", 1, cols, e);
	if (rc < 0)
		return rc;
	while ((rc = tsv_r_next(&t, e)) == 1) {
		int64_t pid, ws, owner;
		uint64_t start;
		const char *kind;

		if (tsv_r_i64(&t, tsv_r_col(&t, "pid"), &pid, e) < 0 ||
		    tsv_r_u64(&t, tsv_r_col(&t, "start_ticks"), &start, e) < 0 ||
		    tsv_r_i64(&t, tsv_r_col(&t, "ws"), &ws, e) < 0 ||
		    tsv_r_i64(&t, tsv_r_col(&t, "owner"), &owner, e) < 0) {
			rc = -E_FORMAT;
			break;
		}
		kind = tsv_r_str(&t, tsv_r_col(&t, "kind"));
		if (pid <= 1 || pid > INT32_MAX || ws < 0 || ws > TB_MAX_WS || owner < 0 ||
		    owner > TB_MAX_WS || strlen(kind) >= sizeof procs->kind) {
			rc = err_set(e, E_FORMAT, "'%s' line %ld: bad process entry", path, t.line_no);
			break;
		}
		if (*n >= cap) {
			rc = err_set(e, E_LIMIT, "'%s': more than %d processes", path, cap);
			break;
		}
		procs[*n].pid = (pid_t)pid;
		procs[*n].start_ticks = start;
		memcpy(procs[*n].kind, kind, strlen(kind) + 1);
		procs[*n].ws = (int)ws;
		procs[*n].owner = (int)owner;
		(*n)++;
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

int
tb_procs_save(int instance, const struct tb_proc *procs, int n, struct err *e)
{
	char path[256], tmp[256];
	FILE *f;

	tb_state_path(instance, "procs.tsv", path, sizeof path);
	tb_state_path(instance, "procs.tsv.tmp", tmp, sizeof tmp);
	f = fopen(tmp, "we");
	if (f == NULL)
		return err_sys(e, E_IO, "cannot create '%s'", tmp);
	fputs("# contend-tbprocs 1\npid\tstart_ticks\tkind\tws\towner\n", f);
	for (int k = 0; k < n; k++)
		fprintf(f, "%d\t%" PRIu64 "\t%s\t%d\t%d\n", (int)procs[k].pid, procs[k].start_ticks,
			procs[k].kind, procs[k].ws, procs[k].owner);
	if (fclose(f) != 0)
		return err_sys(e, E_IO, "cannot write '%s'", tmp);
	if (rename(tmp, path) < 0)
		return err_sys(e, E_IO, "cannot rename '%s' to '%s'", tmp, path);
	return 0;
}

int
tb_state_remove(int instance, struct err *e)
{
	char dir[256], path[600];
	DIR *d;
	struct dirent *de;

	tb_state_path(instance, NULL, dir, sizeof dir);
	d = opendir(dir);
	if (d == NULL)
		return errno == ENOENT ? 0 : err_sys(e, E_IO, "cannot open '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (unlink(path) < 0 && errno != ENOENT) {
			int r = err_sys(e, E_IO, "cannot remove '%s'", path);

			closedir(d);
			return r;
		}
	}
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT)
		return err_sys(e, E_IO, "cannot remove '%s'", dir);
	return 0;
}
