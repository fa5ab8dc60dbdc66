/* Unit tests of collect/capture: interfaces for the peers' routes, dropping an interface
 * from a running capture, and the capture's compression level (lib/gzio levels). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/capture.h"
#include "lib/gzio.h"
#include "tests/unit/check.h"

static const char *
tmp(const char *name)
{
	static char path[600];

	snprintf(path, sizeof path, "%s/%s", check_tmpdir(), name);
	return path;
}

/* The loopback interface's name from the capture's own choice for an all-local job. */
static void
loopback_name(char *out, size_t outlen)
{
	char names[CAPTURE_MAX_IFACES][64];
	struct err e;
	int n = capture_pick_ifaces(true, false, names, CAPTURE_MAX_IFACES, &e);

	snprintf(out, outlen, "%s", n == 1 ? names[0] : "lo");
}

TEST(peers_routed_through_loopback)
{
	char cand[2][64];
	bool keep[2] = { true, true };

	loopback_name(cand[0], sizeof cand[0]);
	snprintf(cand[1], sizeof cand[1], "no-such-if0");
	/* 127.0.0.1 is one of our own addresses: routed through loopback. */
	CHECK(capture_ifaces_for_peers(cand, 2, "127.0.0.1", false, keep) == 1);
	CHECK(keep[0]);
	CHECK(!keep[1]);
	/* Unparsable and empty entries are skipped, the rest still counts. */
	CHECK(capture_ifaces_for_peers(cand, 2, "x,,999.1.1.1,127.0.0.1", false, keep) == 1);
	CHECK(keep[0]);
	CHECK(!keep[1]);
}

TEST(peers_unknown_keep_only_loopback_when_asked)
{
	char cand[2][64];
	bool keep[2] = { true, true };

	loopback_name(cand[0], sizeof cand[0]);
	snprintf(cand[1], sizeof cand[1], "no-such-if0");
	CHECK(capture_ifaces_for_peers(cand, 2, "-", false, keep) == 0);
	CHECK(!keep[0]);
	CHECK(!keep[1]);
	CHECK(capture_ifaces_for_peers(cand, 2, "-", true, keep) == 0);
	CHECK(keep[0]);
	CHECK(!keep[1]);
	CHECK(capture_ifaces_for_peers(cand, 2, "", true, keep) == 0);
	CHECK(keep[0]);
	CHECK(!keep[1]);
}

TEST(drop_iface)
{
	char names[CAPTURE_MAX_IFACES][64];
	struct capture_opts o;
	struct capture *c = NULL;
	struct capture_result r;
	struct err e;
	int rc;

	memset(&o, 0, sizeof o);
	loopback_name(names[0], sizeof names[0]);
	o.ifaces[0] = names[0];
	o.nifaces = 1;
	o.snaplen = 256;
	o.filter = "";
	o.buffer_bytes = 1 << 20;
	rc = capture_start(&c, tmp("one.pcap"), &o, &e);
	if (rc == -E_PERM)
		SKIP_TEST("capture_start: %s", e.msg);
	CHECK(rc == 0);
	if (rc != 0)
		return;
	/* Neither an interface that is not captured nor the last one can be dropped. */
	CHECK(capture_drop_iface(c, "no-such-if0", &e) == -E_USAGE);
	CHECK(capture_drop_iface(c, names[0], &e) == -E_USAGE);
	CHECK(strstr(e.msg, "last") != NULL);
	CHECK(capture_stop(c, &r, &e) == 0);
	CHECK(strncmp(r.stats, names[0], strlen(names[0])) == 0);

	/* The same interface twice (each its own handle): one is dropped while the capture
	 * runs and still shows in the statistics; the other goes on. */
	o.ifaces[1] = names[0];
	o.nifaces = 2;
	o.overwrite = true;
	CHECK(capture_start(&c, tmp("two.pcap"), &o, &e) == 0);
	if (c == NULL)
		return;
	CHECK(capture_drop_iface(c, names[0], &e) == 0);
	CHECK(capture_drop_iface(c, names[0], &e) == -E_USAGE);	/* the last one left */
	usleep(150000);		/* the thread honours it within a round */
	CHECK(capture_stop(c, &r, &e) == 0);
	{
		char want[200];

		snprintf(want, sizeof want, "%s:", names[0]);
		CHECK(strstr(r.stats, want) != NULL);
		CHECK(strstr(strstr(r.stats, want) + 1, want) != NULL);	/* both handles */
	}
}

/* What capture_start says of the kernel's part of a framed cut, for o on loopback. */
static void
kernel_cut_of(struct capture_opts *o, const char *file, char *out, size_t outlen)
{
	char name[64];
	struct capture *c = NULL;
	struct capture_result r;
	struct err e;

	loopback_name(name, sizeof name);
	o->ifaces[0] = name;
	o->nifaces = 1;
	o->buffer_bytes = 1 << 20;
	o->overwrite = true;
	snprintf(out, outlen, "not started");
	if (capture_start(&c, tmp(file), o, &e) != 0) {
		snprintf(out, outlen, "not started: %s", e.msg);
		return;
	}
	snprintf(out, outlen, "%s", capture_kernel_cut(c));
	CHECK(capture_stop(c, &r, &e) == 0);
	CHECK_STR(r.kernel_cut, out);
}

TEST(kernel_cut_states)
{
	struct capture_opts o;
	char kc[ERR_MSG_MAX + 64];

	memset(&o, 0, sizeof o);
	o.snaplen = CAPTURE_DEFAULT_SNAPLEN;
	o.framed = true;
	o.kernel_cut = true;
	o.filter = CAPTURE_DEFAULT_FILTER;
	kernel_cut_of(&o, "k1.pcap", kc, sizeof kc);
	if (strncmp(kc, "not started", 11) == 0)
		SKIP_TEST("%s", kc);
	/* yes where eBPF loads; else unavailable, with the reason */
	CHECK_MSG(strcmp(kc, "yes") == 0 || strncmp(kc, "unavailable: ", 13) == 0,
		  "kernel cut \"%.200s\", expected \"yes\" or \"unavailable: <why>\"", kc);
	if (strcmp(kc, "yes") != 0)
		printf("note: kernel cut %s\n", kc);
	o.filter = "tcp port 5000";
	kernel_cut_of(&o, "k2.pcap", kc, sizeof kc);
	CHECK_STR(kc, "no: a capture filter of its own");
	o.filter = CAPTURE_DEFAULT_FILTER;
	o.kernel_cut = false;
	kernel_cut_of(&o, "k3.pcap", kc, sizeof kc);
	CHECK_STR(kc, "no: --no-kernel-cut");
	o.framed = false;
	o.kernel_cut = true;
	kernel_cut_of(&o, "k4.pcap", kc, sizeof kc);
	CHECK_STR(kc, "no: payload full");
}

/* The kernel cut loaded by a thread of its own while the capture runs: "loading" at the
 * start; after the stop attached ("yes", with the time it took), not loadable here, or not
 * loaded before the stop (which waits for the loader either way). */
TEST(kernel_cut_late)
{
	struct capture_opts o;
	struct capture *c = NULL;
	struct capture_result r;
	struct err e;
	char name[64];

	memset(&o, 0, sizeof o);
	loopback_name(name, sizeof name);
	o.ifaces[0] = name;
	o.nifaces = 1;
	o.buffer_bytes = 1 << 20;
	o.overwrite = true;
	o.snaplen = CAPTURE_DEFAULT_SNAPLEN;
	o.framed = true;
	o.kernel_cut = true;
	o.kernel_cut_late = true;
	o.filter = CAPTURE_DEFAULT_FILTER;
	for (long wait_ms = 0; wait_ms <= 1500; wait_ms += 1500) {
		if (capture_start(&c, tmp("late.pcap"), &o, &e) != 0)
			SKIP_TEST("not started: %s", e.msg);
		CHECK_STR(capture_kernel_cut(c), "loading");
		nanosleep(&(struct timespec){ wait_ms / 1000, wait_ms % 1000 * 1000000 }, NULL);
		CHECK(capture_stop(c, &r, &e) == 0);
		CHECK_MSG(strcmp(r.kernel_cut, "yes") == 0 || strncmp(r.kernel_cut, "unavailable: ", 13) == 0 ||
			  strcmp(r.kernel_cut, "no: the capture ended before the program was loaded") == 0,
			  "kernel cut \"%.200s\" after %ld ms, expected \"yes\", \"unavailable: <why>\" "
			  "or \"no: the capture ended before the program was loaded\"", r.kernel_cut, wait_ms);
		if (strcmp(r.kernel_cut, "yes") == 0) {
			CHECK(r.kernel_cut_ready_ns > 0);
			CHECK(r.kernel_cut_ready_ns < 3 * 1000000000LL);
		}
		else
			CHECK(r.kernel_cut_ready_ns == -1);
		if (wait_ms > 0 && strcmp(r.kernel_cut, "yes") != 0)
			printf("note: kernel cut after %ld ms: %s\n", wait_ms, r.kernel_cut);
	}
}

/* Compressible text that is not trivially repetitive. */
static char *
make_text(size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *s = malloc(cap);
	unsigned x = 12345;
	static const char *words[] = { "alpha", "beta", "gamma", "delta", "rank", "tag",
				       "bytes", "1024", "send", "recv", "wait", "\n" };

	while (n + 16 < cap) {
		const char *w;

		x = x * 1103515245u + 12345u;
		w = words[(x >> 16) % 12];
		memcpy(s + n, w, strlen(w));
		n += strlen(w);
		s[n++] = ' ';
	}
	*len = n;
	return s;
}

static long
write_level(const char *path, int level, const char *text, size_t len)
{
	struct err e;
	struct gzw *w = gzw_open_level(path, true, true, 0, level, &e);
	struct stat st;

	if (w == NULL)
		return -1;
	if (gzw_write(w, text, len, &e) < 0 || gzw_close(w, &e) < 0)
		return -1;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

TEST(compress_levels)
{
	size_t len;
	char *text = make_text(&len);
	long s1 = write_level(tmp("l1.gz"), 1, text, len);
	long s9 = write_level(tmp("l9.gz"), 9, text, len);
	struct err e;
	struct gzr *r;
	char *back = malloc(len + 1);
	size_t got = 0;
	long n;

	CHECK(s1 > 0);
	CHECK(s9 > 0);
	CHECK(s1 > s9);		/* the level reaches zlib */
	r = gzr_open(tmp("l1.gz"), &e);
	CHECK(r != NULL);
	while (r != NULL && (n = gzr_read(r, back + got, len + 1 - got, &e)) > 0)
		got += (size_t)n;
	if (r != NULL)
		gzr_close(r);
	CHECK(got == len);
	CHECK(memcmp(back, text, len) == 0);
	/* Out of range: refused before the file is made. */
	CHECK(gzw_open_level(tmp("l0.gz"), true, true, 0, 0, &e) == NULL);
	CHECK(e.code == -E_USAGE);
	CHECK(gzw_open_level(tmp("l10.gz"), true, true, 0, 10, &e) == NULL);
	CHECK(access(tmp("l0.gz"), F_OK) != 0);
	CHECK(access(tmp("l10.gz"), F_OK) != 0);
	free(back);
	free(text);
}

int
main(void)
{
	RUN(peers_routed_through_loopback);
	RUN(peers_unknown_keep_only_loopback_when_asked);
	RUN(drop_iface);
	RUN(kernel_cut_states);
	RUN(kernel_cut_late);
	RUN(compress_levels);
	return check_done();
}
