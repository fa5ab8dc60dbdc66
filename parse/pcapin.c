/* pcapin: pcap/pcapng reading over libpcap, plain or through lib/gzio for gzip. */
#include "parse/pcapin.h"

#include <errno.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/gzio.h"
#include "lib/xalloc.h"

#define PCAPIN_IOBUF_BYTES (1u << 20)

struct pcapin {
	pcap_t *pc;
	FILE *f;		/* owned by pc once pcap_fopen_offline succeeded */
	void *mem;		/* backing copy for pcapin_open_mem */
	char *iobuf;		/* stdio buffer of f (glibc ignores a size without a buffer) */
	bool gzip;
	bool gz_truncated;	/* set by the gzio cookie when the gzip stream stops early */
	struct gzr *gz;		/* the gzip reader under f, owned by f; NULL when plain */
	uint64_t pkts;		/* packets delivered */
	bool done;		/* an error or the end was returned */
	char *name;		/* for messages */
};

static struct pcapin *
open_file(FILE *f, const char *name, bool gzip, bool *trunc_flag, struct pcapin *in,
	  struct err *e)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";

	/* large reads: libpcap reads a record header and then its data, 16 bytes at a time */
	in->iobuf = xmalloc(PCAPIN_IOBUF_BYTES);
	setvbuf(f, in->iobuf, _IOFBF, PCAPIN_IOBUF_BYTES);
	in->pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (in->pc == NULL) {
		/* libpcap did not take f */
		fclose(f);
		if (in->gz != NULL && gzr_damage(in->gz) != NULL && !*trunc_flag)
			err_set(e, E_FORMAT, "%s, inside the capture header", gzr_damage(in->gz));
		else if (trunc_flag != NULL && *trunc_flag)
			err_set(e, E_TRUNC, "'%s': gzip stream ends inside the capture header", name);
		else
			err_set(e, E_FORMAT, "'%s': not a readable capture: %s", name, errbuf);
		free(in->name);
		free(in->mem);
		free(in->iobuf);
		free(in);
		return NULL;
	}
	in->f = f;
	in->gzip = gzip;
	return in;
}

/* Seconds and nanoseconds as ns, clamped to [0, PCAPIN_MAX_T_NS] so that a damaged
 * timestamp cannot overflow any later difference of two times. */
static int64_t
clamp_ns(int64_t sec, int64_t nsec)
{
	if (sec < 0)
		return 0;
	if (sec >= PCAPIN_MAX_T_NS / NS_PER_S)
		return PCAPIN_MAX_T_NS;
	return sec * NS_PER_S + (nsec < 0 ? 0 : nsec % NS_PER_S);
}

struct pcapin *
pcapin_open(const char *path, struct err *e)
{
	struct pcapin *in = xcalloc(1, sizeof *in);
	FILE *f;

	in->name = xstrdup(path);
	if (gz_path_is_gzip(path)) {
		struct gzr *r = gzr_open(path, e);

		if (r == NULL)
			goto fail;
		f = gzr_fopen(r, &in->gz_truncated);
		in->gz = f != NULL ? r : NULL;
		if (f == NULL) {
			gzr_close(r);
			err_sys(e, E_IO, "cannot read '%s'", path);
			goto fail;
		}
		return open_file(f, path, true, &in->gz_truncated, in, e);
	}
	f = fopen(path, "rb");
	if (f == NULL) {
		err_sys(e, E_IO, "cannot open '%s'", path);
		goto fail;
	}
	return open_file(f, path, false, NULL, in, e);
fail:
	free(in->name);
	free(in);
	return NULL;
}

struct pcapin *
pcapin_open_mem(const void *p, size_t n, struct err *e)
{
	struct pcapin *in = xcalloc(1, sizeof *in);
	FILE *f;

	in->name = xstrdup("(memory)");
	in->mem = xmalloc(n ? n : 1);
	if (n)
		memcpy(in->mem, p, n);
	f = fmemopen(in->mem, n ? n : 1, "rb");
	if (f == NULL) {
		err_sys(e, E_IO, "cannot read a capture from memory");
		free(in->mem);
		free(in->name);
		free(in);
		return NULL;
	}
	if (n == 0) {
		/* fmemopen cannot open an empty buffer: make it read nothing */
		fseek(f, 1, SEEK_SET);
	}
	return open_file(f, in->name, false, NULL, in, e);
}

int
pcapin_next(struct pcapin *in, struct pcapin_pkt *pkt, struct err *e)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	if (in->done)
		return 0;
	rc = pcap_next_ex(in->pc, &h, &data);
	if (rc == 1) {
		pkt->t_ns = clamp_ns(h->ts.tv_sec, h->ts.tv_usec);
		pkt->data = data;
		pkt->caplen = h->caplen;
		pkt->origlen = h->len;
		pkt->linktype = pcap_datalink(in->pc);
		in->pkts++;
		return 1;
	}
	in->done = true;
	/* Damaged gzip data reads as a short file: libpcap sees a clean end or a cut record. */
	if (in->gz != NULL && !in->gz_truncated && gzr_damage(in->gz) != NULL)
		return err_set(e, E_FORMAT, "%s; the %llu packets before it are kept",
			       gzr_damage(in->gz), (unsigned long long)in->pkts);
	if (rc == PCAP_ERROR_BREAK)
		return in->gz_truncated ? err_set(e, E_TRUNC, "'%s': gzip stream ends early",
						   in->name) : 0;
	/* PCAP_ERROR: libpcap says whether the file was cut ("truncated dump file") or damaged */
	{
		const char *why = pcap_geterr(in->pc);

		if (in->gz_truncated)
			return err_set(e, E_TRUNC, "'%s': gzip stream ends early (%s)", in->name, why);
		if (strstr(why, "truncated") != NULL)
			return err_set(e, E_TRUNC, "'%s': %s", in->name, why);
		return err_set(e, E_FORMAT, "'%s': damaged capture: %s", in->name, why);
	}
}

int
pcapin_linktype(const struct pcapin *in)
{
	return pcap_datalink(in->pc);
}

int64_t
pcapin_offset(const struct pcapin *in)
{
	long off;

	if (in->gzip)
		return -1;
	off = ftell(pcap_file(in->pc));
	return off < 0 ? -1 : (int64_t)off;
}

bool
pcapin_is_gzip(const struct pcapin *in)
{
	return in->gzip;
}

void
pcapin_close(struct pcapin *in)
{
	if (in == NULL)
		return;
	if (in->pc != NULL)
		pcap_close(in->pc);	/* closes f */
	free(in->iobuf);	/* only after f is closed */
	free(in->mem);
	free(in->name);
	free(in);
}
