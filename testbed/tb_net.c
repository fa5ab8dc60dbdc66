/* tb_net: the testbed's network: namespaces, bridges, veths, the router, tbf caps and /etc/hosts.
 * Everything is done by running ip(8) and tc(8) with argument vectors, never through a shell. */
#include "testbed/tb_net.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "testbed/tb_sys.h"

#define HOSTS_MAX_BYTES (4 * 1024 * 1024)	/* a larger /etc/hosts is refused */

static bool
link_exists(const char *name)
{
	char path[128];

	snprintf(path, sizeof path, "/sys/class/net/%s", name);
	return tb_exists(path);
}

static bool
netns_exists(const char *name)
{
	char path[128];

	snprintf(path, sizeof path, "/run/netns/%s", name);
	return tb_exists(path);
}

/* Journal, then create a namespace with its loopback up. */
static int
ensure_netns(int instance, const char *ns, struct err *e)
{
	if (!netns_exists(ns)) {
		if (tb_journal_add(instance, "netns", ns, e) < 0)
			return -E_IO;
		if (tb_run((const char *[]){ "ip", "netns", "add", ns, NULL }, e) < 0)
			return -E_IO;
	}
	return tb_run((const char *[]){ "ip", "-n", ns, "link", "set", "lo", "up", NULL }, e);
}

#define NSFS_MAGIC_ 0x6e736673	/* statfs f_type of a namespace file (linux/magic.h NSFS_MAGIC) */

void
tb_ipcns_path(const char *ns, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", TB_IPCNS_DIR, ns);
}

/* True when path holds a namespace bind-mounted there. */
static bool
ipcns_exists(const char *ns)
{
	char path[128];
	struct statfs sf;

	tb_ipcns_path(ns, path, sizeof path);
	return statfs(path, &sf) == 0 && sf.f_type == NSFS_MAGIC_;
}

/* Journal, then create an IPC namespace for workstation ns, kept by a bind mount on
 * TB_IPCNS_DIR/ns as `ip netns` keeps network namespaces. This process enters it only to
 * mount it, and returns to its own. Why a workstation needs one: UCX's shared-memory
 * transports take two processes to share a machine when they share the kernel's boot id
 * and IPC namespace; with one IPC namespace per workstation they reach only the ranks of
 * their own workstation, as on separate machines. */
static int
ensure_ipcns(int instance, const char *ns, struct err *e)
{
	char path[128];
	int fd, self, r = 0;

	if (ipcns_exists(ns))
		return 0;
	if (tb_journal_add(instance, "ipcns", ns, e) < 0)
		return -E_IO;
	if (mkdir(TB_IPCNS_DIR, 0755) < 0 && errno != EEXIST)
		return err_sys(e, E_IO, "cannot create '%s'", TB_IPCNS_DIR);
	tb_ipcns_path(ns, path, sizeof path);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
	if (fd < 0)
		return err_sys(e, E_IO, "cannot create '%s'", path);
	close(fd);
	self = open("/proc/self/ns/ipc", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return err_sys(e, E_IO, "cannot open '/proc/self/ns/ipc'");
	if (unshare(CLONE_NEWIPC) < 0) {
		close(self);
		return err_sys(e, E_IO, "cannot create an IPC namespace for '%s'", ns);
	}
	if (mount("/proc/self/ns/ipc", path, NULL, MS_BIND, NULL) < 0)
		r = err_sys(e, E_IO, "cannot bind the IPC namespace of '%s' on '%s'", ns, path);
	if (setns(self, CLONE_NEWIPC) < 0 && r == 0)
		r = err_sys(e, E_IO, "cannot return to the IPC namespace of the testbed command");
	close(self);
	return r;
}

int
tb_net_del_ipcns(const char *name, struct err *e)
{
	char path[128];
	bool was = ipcns_exists(name);

	tb_ipcns_path(name, path, sizeof path);
	if (was && umount2(path, MNT_DETACH) < 0)
		return err_sys(e, E_IO, "cannot unmount '%s'", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return err_sys(e, E_IO, "cannot remove '%s'", path);
	return was;
}

/* A veth pair: `outer` in the root namespace on `bridge`, `inner` in namespace ns with
 * address addr/24, both up. */
static int
ensure_veth(int instance, const char *outer, const char *bridge, const char *ns, const char *inner,
	    const char *addr, struct err *e)
{
	char cidr[64];

	if (!link_exists(outer)) {
		if (tb_journal_add(instance, "link", outer, e) < 0)
			return -E_IO;
		if (tb_run((const char *[]){ "ip", "link", "add", outer, "type", "veth", "peer", "name",
					     inner, "netns", ns, NULL }, e) < 0)
			return -E_IO;
	}
	snprintf(cidr, sizeof cidr, "%s/24", addr);
	if (tb_run((const char *[]){ "ip", "link", "set", outer, "master", bridge, "up", NULL }, e) < 0 ||
	    tb_run((const char *[]){ "ip", "-n", ns, "addr", "replace", cidr, "dev", inner, NULL }, e) < 0 ||
	    tb_run((const char *[]){ "ip", "-n", ns, "link", "set", inner, "up", NULL }, e) < 0)
		return -E_IO;
	return 0;
}

static int
ensure_bridge(const struct tb_conf *c, int subnet, struct err *e)
{
	char br[32], addr[32], cidr[40];

	tb_name_bridge(c->instance, subnet, br, sizeof br);
	if (!link_exists(br)) {
		if (tb_journal_add(c->instance, "link", br, e) < 0)
			return -E_IO;
		if (tb_run((const char *[]){ "ip", "link", "add", br, "type", "bridge", NULL }, e) < 0)
			return -E_IO;
	}
	tb_addr(c->instance, subnet, 254, addr, sizeof addr);
	snprintf(cidr, sizeof cidr, "%s/24", addr);
	if (tb_run((const char *[]){ "ip", "addr", "replace", cidr, "dev", br, NULL }, e) < 0 ||
	    tb_run((const char *[]){ "ip", "link", "set", br, "up", NULL }, e) < 0)
		return -E_IO;
	return 0;
}

/* Turn on IPv4 forwarding inside namespace ns: /proc/sys/net belongs to the namespace of
 * the process that opens it, so a child enters ns and writes it. */
static int
netns_forwarding(const char *ns, struct err *e)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return err_sys(e, E_IO, "cannot fork");
	if (pid == 0) {
		if (tb_enter(ns, NULL, NULL) < 0 ||
		    tb_write_file("/proc/sys/net/ipv4/ip_forward", "1\n", NULL) < 0)
			_exit(1);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_sys(e, E_IO, "cannot wait");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set(e, E_IO, "cannot turn on forwarding in namespace '%s'", ns);
	return 0;
}

int
tb_net_up(const struct tb_conf *c, struct err *e)
{
	char ns[32], veth[32], br[32], addr[32], via[32], net[40];
	int nsub = c->routed ? 2 : 1;

	for (int s = 1; s <= nsub; s++)
		if (ensure_bridge(c, s, e) < 0)
			return -E_IO;
	if (c->routed) {
		tb_name_ws(c->instance, 0, ns, sizeof ns);
		if (ensure_netns(c->instance, ns, e) < 0)
			return -E_IO;
		for (int s = 1; s <= 2; s++) {
			char inner[16];

			tb_name_uplink(c->instance, s, veth, sizeof veth);
			tb_name_bridge(c->instance, s, br, sizeof br);
			tb_addr(c->instance, s, 253, addr, sizeof addr);
			snprintf(inner, sizeof inner, "eth%d", s);
			if (ensure_veth(c->instance, veth, br, ns, inner, addr, e) < 0)
				return -E_IO;
		}
		if (netns_forwarding(ns, e) < 0)
			return -E_IO;
	}
	for (int i = 1; i <= c->nws; i++) {
		int s = c->ws[i].subnet;

		tb_name_ws(c->instance, i, ns, sizeof ns);
		tb_name_veth(c->instance, i, veth, sizeof veth);
		tb_name_bridge(c->instance, s, br, sizeof br);
		tb_addr(c->instance, s, i, addr, sizeof addr);
		if (ensure_netns(c->instance, ns, e) < 0 || ensure_ipcns(c->instance, ns, e) < 0 ||
		    ensure_veth(c->instance, veth, br, ns, "eth0", addr, e) < 0)
			return -E_IO;
		if (c->routed) {
			tb_addr(c->instance, 3 - s, 0, net, sizeof net);
			snprintf(net + strlen(net), sizeof net - strlen(net), "/24");
			tb_addr(c->instance, s, 253, via, sizeof via);
			if (tb_run((const char *[]){ "ip", "-n", ns, "route", "replace", net, "via", via,
						     NULL }, e) < 0)
				return -E_IO;
		}
	}
	return 0;
}

/* Cap the egress of dev (in namespace ns, or the root namespace when ns is NULL) at bps with
 * a token bucket of burst_bytes (0: the default), or remove the cap when bps is 0. */
static int
shape_dev(const char *ns, const char *dev, int64_t bps, int64_t burst_bytes, struct err *e)
{
	char rate[32], burst[32];
	const char *argv[20];
	int n = 0;
	struct err ignored;

	argv[n++] = "tc";
	if (ns != NULL) {
		argv[n++] = "-n";
		argv[n++] = ns;
	}
	argv[n++] = "qdisc";
	if (bps == 0) {
		argv[n++] = "del";
		argv[n++] = "dev";
		argv[n++] = dev;
		argv[n++] = "root";
		argv[n] = NULL;
		(void)!tb_run(argv, &ignored);	/* fails when there is no cap: fine */
		return 0;
	}
	/* burst: by default 10 ms at the rate, at least a few full frames; tbf splits GSO
	 * packets larger than the burst, so veth's 64 KB packets still pass */
	snprintf(rate, sizeof rate, "%lldbit", (long long)bps);
	if (burst_bytes > 0)
		snprintf(burst, sizeof burst, "%lld", (long long)burst_bytes);
	else
		snprintf(burst, sizeof burst, "%lld", (long long)fmax(bps / 8.0 / 100.0, 16384.0));
	argv[n++] = "replace";
	argv[n++] = "dev";
	argv[n++] = dev;
	argv[n++] = "root";
	argv[n++] = "tbf";
	argv[n++] = "rate";
	argv[n++] = rate;
	argv[n++] = "burst";
	argv[n++] = burst;
	argv[n++] = "latency";
	argv[n++] = "100ms";
	argv[n] = NULL;
	return tb_run(argv, e);
}

int
tb_net_shape(const struct tb_conf *c, struct err *e)
{
	char ns[32], veth[32], inner[16];

	for (int i = 1; i <= c->nws; i++) {
		tb_name_ws(c->instance, i, ns, sizeof ns);
		tb_name_veth(c->instance, i, veth, sizeof veth);
		if (shape_dev(NULL, veth, c->ws[i].rate_bps, c->ws[i].burst_bytes, e) < 0 ||
		    shape_dev(ns, "eth0", c->ws[i].rate_bps, c->ws[i].burst_bytes, e) < 0)
			return -E_IO;
	}
	if (c->routed) {
		tb_name_ws(c->instance, 0, ns, sizeof ns);
		for (int s = 1; s <= 2; s++) {
			tb_name_uplink(c->instance, s, veth, sizeof veth);
			snprintf(inner, sizeof inner, "eth%d", s);
			if (shape_dev(NULL, veth, c->uplink_bps[s], 0, e) < 0 ||
			    shape_dev(ns, inner, c->uplink_bps[s], 0, e) < 0)
				return -E_IO;
		}
	}
	return 0;
}

int
tb_net_del_netns(const char *name, struct err *e)
{
	if (!netns_exists(name))
		return 0;
	if (tb_run((const char *[]){ "ip", "netns", "del", name, NULL }, e) < 0)
		return -E_IO;
	return 1;
}

int
tb_net_del_link(const char *name, struct err *e)
{
	if (!link_exists(name))
		return 0;
	if (tb_run((const char *[]){ "ip", "link", "del", name, NULL }, e) < 0) {
		if (!link_exists(name))
			return 1;	/* went with its peer meanwhile */
		return -E_IO;
	}
	return 1;
}

/* True when name is "c<K>" followed by a letter. */
static bool
ours(int instance, const char *name)
{
	char prefix[16];
	size_t n;

	tb_name_prefix(instance, prefix, sizeof prefix);
	n = strlen(prefix);
	return strncmp(name, prefix, n) == 0 && isalpha((unsigned char)name[n]);
}

/* Remove the entries of dir that are ours with del. */
static int
sweep_dir(int instance, const char *dir, int (*del)(const char *, struct err *), int *removed,
	  struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char names[64][32];
	int n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < 64)
		if (ours(instance, de->d_name) && strlen(de->d_name) < sizeof names[0])
			memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	closedir(d);
	for (int k = 0; k < n; k++) {
		int r = del(names[k], e);

		if (r < 0)
			return r;
		*removed += r;
	}
	return 0;
}

int
tb_net_sweep(int instance, int *removed, struct err *e)
{
	if (sweep_dir(instance, "/sys/class/net", tb_net_del_link, removed, e) < 0)
		return -E_IO;
	if (sweep_dir(instance, TB_IPCNS_DIR, tb_net_del_ipcns, removed, e) < 0)
		return -E_IO;
	return sweep_dir(instance, "/run/netns", tb_net_del_netns, removed, e);
}

/* The marker ending each of the instance's /etc/hosts lines. */
static void
hosts_marker(int instance, char *buf, size_t len)
{
	snprintf(buf, len, "# contend-testbed %d", instance);
}

/* True when line (without its newline, len bytes) ends with the marker. */
static bool
marked(const char *line, size_t len, const char *marker)
{
	size_t m = strlen(marker);

	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	return len >= m && memcmp(line + len - m, marker, m) == 0 &&
	       (len == m || line[len - m - 1] == ' ' || line[len - m - 1] == '\t');
}

int
tb_hosts_update(int instance, const struct tb_conf *c, int *removed, struct err *e)
{
	char lockpath[256], marker[64], addr[32], name[32];
	char *old = NULL, *neu = NULL;
	size_t oldlen = 0, neulen = 0, cap;
	int lockfd, fd = -1, rc = 0, dropped = 0;
	struct stat st;

	snprintf(lockpath, sizeof lockpath, "%s/hosts.lock", TB_STATE_ROOT);
	if (mkdir(TB_STATE_ROOT, 0755) < 0 && errno != EEXIST)
		return err_sys(e, E_IO, "cannot create '%s'", TB_STATE_ROOT);
	lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0)
		return err_sys(e, E_IO, "cannot open '%s'", lockpath);
	while (flock(lockfd, LOCK_EX) < 0)
		if (errno != EINTR) {
			rc = err_sys(e, E_IO, "cannot lock '%s'", lockpath);
			goto out;
		}
	fd = open(TB_HOSTS_FILE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = err_sys(e, E_IO, "cannot open '%s'", TB_HOSTS_FILE);
		goto out;
	}
	if (st.st_size > HOSTS_MAX_BYTES) {
		rc = err_set(e, E_LIMIT, "'%s' is larger than %d bytes", TB_HOSTS_FILE, HOSTS_MAX_BYTES);
		goto out;
	}
	old = xmalloc((size_t)st.st_size + 1);
	while (oldlen < (size_t)st.st_size) {
		ssize_t r = pread(fd, old + oldlen, (size_t)st.st_size - oldlen, (off_t)oldlen);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_sys(e, E_IO, "cannot read '%s'", TB_HOSTS_FILE);
			goto out;
		}
		if (r == 0)
			break;
		oldlen += (size_t)r;
	}
	hosts_marker(instance, marker, sizeof marker);
	cap = oldlen + 2 + (size_t)(TB_MAX_WS + 1) * 96;
	neu = xmalloc(cap);
	for (size_t p = 0; p < oldlen;) {
		const char *nl = memchr(old + p, '\n', oldlen - p);
		size_t len = nl ? (size_t)(nl - (old + p)) : oldlen - p;

		if (marked(old + p, len, marker)) {
			dropped++;
		} else {
			memcpy(neu + neulen, old + p, len);
			neulen += len;
			neu[neulen++] = '\n';
		}
		p += len + 1;
	}
	for (int i = (c != NULL && c->routed) ? 0 : 1; c != NULL && i <= c->nws; i++) {
		int w;

		tb_name_ws(instance, i, name, sizeof name);
		tb_addr(instance, i == 0 ? 1 : c->ws[i].subnet, i == 0 ? 253 : i, addr, sizeof addr);
		w = snprintf(neu + neulen, cap - neulen, "%s\t%s\t%s\n", addr, name, marker);
		if (w < 0 || (size_t)w >= cap - neulen)
			BUG("hosts buffer too small");
		neulen += (size_t)w;
	}
	if (neulen != oldlen || memcmp(neu, old, oldlen) != 0) {
		/* rewrite in place: /etc/hosts may be a bind mount that rename cannot replace */
		size_t off = 0;

		while (off < neulen) {
			ssize_t w = pwrite(fd, neu + off, neulen - off, (off_t)off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				rc = err_sys(e, E_IO, "cannot write '%s'", TB_HOSTS_FILE);
				goto out;
			}
			off += (size_t)w;
		}
		if (ftruncate(fd, (off_t)neulen) < 0) {
			rc = err_sys(e, E_IO, "cannot truncate '%s'", TB_HOSTS_FILE);
			goto out;
		}
	}
	if (removed != NULL)
		*removed += dropped;
out:
	if (fd >= 0)
		close(fd);
	close(lockfd);
	free(old);
	free(neu);
	return rc;
}

int
tb_parse_rate(const char *s, int64_t *bps, struct err *e)
{
	static const struct {
		const char *suffix;
		double mult;	/* bit/s per unit */
	} units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 },
		{ "bps", 8 }, { "kbps", 8e3 }, { "mbps", 8e6 }, { "gbps", 8e9 },
	};
	char *end;
	double v;

	if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0) {
		*bps = 0;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return err_set(e, E_USAGE, "'%s' is not a rate (e.g. 100mbit, 1gbit, off)", s);
	for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
		if (strcasecmp(end, units[k].suffix) == 0) {
			double r = v * units[k].mult;

			if (r > 400e9 || (r > 0 && r < 8000))
				return err_set(e, E_USAGE, "rate '%s' is outside 8kbit..400gbit", s);
			*bps = (int64_t)llround(r);
			return 0;
		}
	}
	return err_set(e, E_USAGE, "unknown unit in rate '%s' (use bit, kbit, mbit, gbit or kbps, mbps)",
		       s);
}
