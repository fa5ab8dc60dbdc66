/* Unit tests for parse/pcapin: pcap and pcapng files built in memory, gzip, damage. */
#include "parse/pcapin.h"

#include <stdio.h>
#include <unistd.h>

#include "lib/gzio.h"
#include "tests/unit/check.h"

struct mb {			/* a file being built */
	uint8_t b[8192];
	size_t n;
};

static void
le16(struct mb *m, uint16_t v)
{
	m->b[m->n++] = (uint8_t)v;
	m->b[m->n++] = (uint8_t)(v >> 8);
}

static void
le32(struct mb *m, uint32_t v)
{
	le16(m, (uint16_t)v);
	le16(m, (uint16_t)(v >> 16));
}

static void
bytes(struct mb *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

/* pcap header; nano: nanosecond magic */
static void
pcap_hdr(struct mb *m, bool nano, uint32_t linktype)
{
	m->n = 0;
	le32(m, nano ? 0xa1b23c4d : 0xa1b2c3d4);
	le16(m, 2);
	le16(m, 4);
	le32(m, 0);
	le32(m, 0);
	le32(m, 262144);
	le32(m, linktype);
}

static void
pcap_rec(struct mb *m, uint32_t sec, uint32_t frac, const char *data, uint32_t origlen)
{
	uint32_t n = (uint32_t)strlen(data);

	le32(m, sec);
	le32(m, frac);
	le32(m, n);
	le32(m, origlen ? origlen : n);
	bytes(m, data, n);
}

static struct mb M;

static int
read_all(struct pcapin *in, struct pcapin_pkt *last, int *rc_end, struct err *e)
{
	struct pcapin_pkt p;
	int n = 0, rc;

	while ((rc = pcapin_next(in, &p, e)) == 1) {
		*last = p;
		n++;
	}
	*rc_end = rc;
	return n;
}

TEST(pcap_nanosecond_and_microsecond)
{
	struct err e;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc;

	pcap_hdr(&M, true, 1);
	pcap_rec(&M, 1700000000, 123456789, "abcdef", 60);
	pcap_rec(&M, 1700000001, 5, "xyz", 0);
	in = pcapin_open_mem(M.b, M.n, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	CHECK(pcapin_linktype(in) == 1);
	CHECK(pcapin_next(in, &p, &e) == 1);
	CHECK(p.t_ns == 1700000000LL * 1000000000 + 123456789);
	if (CHECKED(p.caplen == 6) && CHECKED(p.origlen == 60))
		CHECK(memcmp(p.data, "abcdef", 6) == 0);
	CHECK(pcapin_next(in, &p, &e) == 1);
	CHECK(p.t_ns == 1700000001LL * 1000000000 + 5);
	CHECK(pcapin_next(in, &p, &e) == 0);
	pcapin_close(in);

	pcap_hdr(&M, false, 1);
	pcap_rec(&M, 10, 250000, "q", 0);	/* microseconds */
	in = pcapin_open_mem(M.b, M.n, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	CHECK(read_all(in, &p, &rc, &e) == 1);
	CHECK(p.t_ns == 10LL * 1000000000 + 250000000);
	CHECK(rc == 0);
	pcapin_close(in);
}

TEST(truncated_record_keeps_what_came_before)
{
	struct err e;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc;

	pcap_hdr(&M, true, 1);
	pcap_rec(&M, 1, 0, "first", 0);
	pcap_rec(&M, 2, 0, "second", 0);
	pcap_rec(&M, 3, 0, "third-one", 0);
	in = pcapin_open_mem(M.b, M.n - 4, &e);	/* cut inside the last record */
	CHECK(in != NULL);
	if (in == NULL)
		return;
	CHECK(read_all(in, &p, &rc, &e) == 2);
	CHECK(rc == -E_TRUNC);
	CHECK(strstr(e.msg, "truncated") != NULL);
	CHECK(pcapin_next(in, &p, &e) == 0);	/* and then quiet */
	pcapin_close(in);
}

TEST(wrong_magic_and_damage)
{
	struct err e;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc;

	memset(M.b, 'x', 64);
	in = pcapin_open_mem(M.b, 64, &e);
	CHECK(in == NULL);
	CHECK(e.code == -E_FORMAT);
	in = pcapin_open_mem(M.b, 0, &e);
	CHECK(in == NULL);
	/* an absurd caplen in the second record */
	pcap_hdr(&M, true, 1);
	pcap_rec(&M, 1, 0, "good", 0);
	le32(&M, 2);
	le32(&M, 0);
	le32(&M, 0x7fffffff);
	le32(&M, 0x7fffffff);
	bytes(&M, "junkjunk", 8);
	in = pcapin_open_mem(M.b, M.n, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	CHECK(read_all(in, &p, &rc, &e) == 1);
	CHECK(rc < 0);
	pcapin_close(in);
}

TEST(pcapng)
{
	struct err e;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc;
	const char pkt[] = "pcapng!";	/* 7 bytes, padded to 8 */

	M.n = 0;
	le32(&M, 0x0A0D0D0A);	/* section header */
	le32(&M, 28);
	le32(&M, 0x1A2B3C4D);
	le16(&M, 1);
	le16(&M, 0);
	le32(&M, 0xffffffff);
	le32(&M, 0xffffffff);
	le32(&M, 28);
	le32(&M, 1);		/* interface description: Ethernet, default microseconds */
	le32(&M, 20);
	le16(&M, 1);
	le16(&M, 0);
	le32(&M, 0);
	le32(&M, 20);
	le32(&M, 6);		/* enhanced packet */
	le32(&M, 32 + 8);
	le32(&M, 0);
	le32(&M, 0);		/* timestamp high */
	le32(&M, 3000001);	/* low: 3.000001 s */
	le32(&M, 7);
	le32(&M, 70);
	bytes(&M, pkt, 7);
	M.b[M.n++] = 0;
	le32(&M, 32 + 8);
	in = pcapin_open_mem(M.b, M.n, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	CHECK(read_all(in, &p, &rc, &e) == 1);
	CHECK(rc == 0);
	CHECK(p.t_ns == 3000001000LL);
	if (CHECKED(p.caplen == 7) && CHECKED(p.origlen == 70))
		CHECK(memcmp(p.data, "pcapng!", 7) == 0);
	pcapin_close(in);
}

static char *
tmpfile_path(const char *name)
{
	static char path[256];

	snprintf(path, sizeof path, "%s/%s", check_tmpdir(), name);
	return path;
}

TEST(gzip_whole_and_cut)
{
	struct err e;
	struct gzw *w;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc, i;
	char *path = tmpfile_path("c.pcap.gz");
	FILE *f;
	long size;
	static uint8_t gz[1 << 20];

	pcap_hdr(&M, true, 1);
	for (i = 0; i < 100; i++)
		pcap_rec(&M, (uint32_t)i, 0, "0123456789012345678901234567890123456789", 0);
	w = gzw_open(path, true, true, 0, &e);
	CHECK(w != NULL);
	if (w == NULL)
		return;
	CHECK(gzw_write(w, M.b, M.n, &e) == 0);
	CHECK(gzw_close(w, &e) == 0);
	in = pcapin_open(path, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	CHECK(pcapin_is_gzip(in));
	CHECK(read_all(in, &p, &rc, &e) == 100);
	CHECK(rc == 0);
	CHECK(p.t_ns == 99LL * 1000000000);
	pcapin_close(in);
	/* cut the compressed file in the middle */
	f = fopen(path, "rb");
	size = (long)fread(gz, 1, sizeof gz, f);
	fclose(f);
	f = fopen(path, "wb");
	fwrite(gz, 1, (size_t)size / 2, f);
	fclose(f);
	in = pcapin_open(path, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	rc = read_all(in, &p, &rc, &e) > 0 ? 1 : 0;
	CHECK(rc == 1);
	CHECK(pcapin_next(in, &p, &e) == 0);
	pcapin_close(in);
	unlink(path);
}

TEST(gzip_cut_reports_truncation)
{
	struct err e;
	struct gzw *w;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc, i, n;
	char *path = tmpfile_path("d.pcap.gz");
	FILE *f;
	long size;
	static uint8_t gz[1 << 20];

	pcap_hdr(&M, true, 1);
	for (i = 0; i < 150; i++)
		pcap_rec(&M, (uint32_t)i, 0, "abcdefghijabcdefghijabcdefghij", 0);
	w = gzw_open(path, true, true, 0, &e);
	if (w == NULL) {
		CHECK(0);
		return;
	}
	CHECK(gzw_write(w, M.b, M.n, &e) == 0);
	CHECK(gzw_close(w, &e) == 0);
	f = fopen(path, "rb");
	size = (long)fread(gz, 1, sizeof gz, f);
	fclose(f);
	f = fopen(path, "wb");
	fwrite(gz, 1, (size_t)size - 12, f);	/* lose the trailer and some data */
	fclose(f);
	in = pcapin_open(path, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	n = read_all(in, &p, &rc, &e);
	CHECK(n > 0);
	CHECK(n <= 150);
	CHECK(rc == -E_TRUNC);
	pcapin_close(in);
	unlink(path);
}

TEST(reference_capture_packet_count)
{
	const char *top = getenv("TOP") ? getenv("TOP") : ".";
	char ref[512], cmdline[700];
	struct err e;
	struct pcapin *in;
	struct pcapin_pkt p;
	int rc, n;
	long want = -1;
	FILE *cmd;
	char line[64];

	snprintf(ref, sizeof ref, "%s/../shared/reference/captures/ompi-4.1.4-btl-tcp-lo.pcap", top);
	if (access(ref, R_OK) != 0)
		SKIP_TEST("no %s", ref);
	snprintf(cmdline, sizeof cmdline, "tcpdump -nr '%s' 2>/dev/null | wc -l", ref);
	cmd = popen(cmdline, "r");
	if (cmd != NULL && fgets(line, sizeof line, cmd) != NULL)
		want = strtol(line, NULL, 10);
	if (cmd != NULL)
		pclose(cmd);
	in = pcapin_open(ref, &e);
	CHECK(in != NULL);
	if (in == NULL)
		return;
	n = read_all(in, &p, &rc, &e);
	CHECK(rc == 0);
	CHECK(n > 0);
	if (want > 0)
		CHECK(n == want);
	pcapin_close(in);
}

int
main(void)
{
	RUN(pcap_nanosecond_and_microsecond);
	RUN(truncated_record_keeps_what_came_before);
	RUN(wrong_magic_and_damage);
	RUN(pcapng);
	RUN(gzip_whole_and_cut);
	RUN(gzip_cut_reports_truncation);
	RUN(reference_capture_packet_count);
	return check_done();
}
