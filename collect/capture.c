/* capture: libpcap capture into one nanosecond pcap file per node.
 *
 * pcap_dump_fopen writes the file header, and write_record each packet as pcap_dump
 * would (short records gathered in a staging block first: flush_file empties it), to a
 * FILE * we open ourselves: a plain file, or a stream whose writes go through
 * lib/gzio (fopencookie), since libpcap cannot compress. All
 * handles feed the same dumper from one thread, so they must share a link type and
 * timestamp precision. */
#include "collect/capture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "collect/framecut.h"
#include "lib/clock.h"
#include "lib/gzio.h"
#include "lib/xalloc.h"
#include "parse/pcapin.h"

/* Records of up to CAPTURE_STAGE_MAX bytes (a framed capture's cut packets, bare ACKs)
 * are gathered here and handed to stdio a block at a time: one fwrite per packet cost
 * more than the framed cut itself. Longer records go to stdio directly (copying whole
 * payloads twice would cost a full capture more than it saves). */
#define CAPTURE_STAGE_BYTES (64u << 10)
#define CAPTURE_STAGE_MAX 1024u

struct capture {
	pcap_t *h[CAPTURE_MAX_IFACES];
	char name[CAPTURE_MAX_IFACES][64];
	size_t n;
	FILE *file;		/* the pcap byte stream */
	struct gzw *gz;		/* under file when compressing */
	pcap_dumper_t *dumper;
	struct framecut *fc;	/* framed capture: what to keep of each packet; NULL keeps all */
	struct kcut *kc;	/* the kernel's part of the framed cut, or NULL */
	struct kload *kl;	/* the kernel cut's program while a thread loads it, or NULL */
	char kernel_cut[ERR_MSG_MAX + 32];	/* capture_result.kernel_cut */
	char kernel_cut_start[ERR_MSG_MAX + 32];	/* capture_kernel_cut */
	int64_t kcut_ready_ns;	/* capture_result.kernel_cut_ready_ns */
	uint64_t kcut_conns_before;	/* capture_result.kernel_cut_conns_before */
	char *filter;		/* capture_opts.filter, copied: put back if the kernel cut fails */
	int wake_fd;		/* eventfd: capture_stop and a finished load wake the thread; -1 */
	int64_t start_mono;	/* CLOCK_MONOTONIC ns when capture_start began */
	int64_t flush_ns;
	int64_t align_ns;		/* capture_opts.align_ns, batch mode only */
	int64_t linger_ns;	/* after a stop request, keep reading this long (batch mode:
				 * the kernel hands over a partly filled block only at its timeout) */
	pthread_t thread;
	atomic_int stop;
	atomic_uint drop_req;	/* bit i: stop capturing on h[i] (set by capture_drop_iface) */
	unsigned dropped;	/* bits already honoured (main thread's view, for checks) */
	struct pcap_stat dropped_stats[CAPTURE_MAX_IFACES];	/* taken as h[i] was closed */
	bool have_dropped_stats[CAPTURE_MAX_IFACES];
	int linktype;		/* of h[0], kept after the handles close */
	bool nano;
	uint64_t packets, bytes;
	uint64_t wire_bytes;	/* captured bytes before the framed cut */
	int64_t utime_ns, stime_ns;	/* the thread's own CPU time, set when it ends */
	bool write_failed;
	char write_error[ERR_MSG_MAX];
	size_t stage_len;	/* bytes in stage */
	uint8_t stage[CAPTURE_STAGE_BYTES];	/* small records not yet handed to file */
};

/* The kernel cut's program loading in a thread of its own (capture_opts.kernel_cut_late):
 * the verifier's CPU time overlaps the application's start instead of delaying it. The loader sets kc (or why), then done, and wakes the capture thread, which
 * puts the program on its sockets and joins the loader. */
struct kload {
	pthread_t thread;
	bool deflt;		/* the default filter: the program stands in for it */
	int wake_fd;		/* the capture's, or -1 */
	struct kcut *kc;	/* loaded, or NULL with why set */
	char why[ERR_MSG_MAX];
	atomic_bool done;
};

static void kload_finish(struct capture *c, bool attach);

static void
wake(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof one) < 0)
		return;	/* full (already woken) */
}

/* Take back the wake-ups the thread has seen (wake_fd is non-blocking). */
static void
unwake(struct capture *c)
{
	uint64_t n;

	if (c->wake_fd >= 0 && read(c->wake_fd, &n, sizeof n) < 0)
		return;	/* none */
}

static ssize_t
gz_cookie_write(void *cookie, const char *p, size_t n)
{
	struct capture *c = cookie;
	struct err e;

	if (gzw_write(c->gz, p, n, &e) < 0) {
		if (!c->write_failed)
			snprintf(c->write_error, sizeof c->write_error, "%s", e.msg);
		c->write_failed = true;
		errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

static int
gz_cookie_close(void *cookie)
{
	(void)cookie;	/* gzw is closed by capture_stop, which reports its error */
	return 0;
}

/* Hand the staged records to the file (stdio reports a failure through ferror). */
static void
stage_drain(struct capture *c)
{
	if (c->stage_len > 0)
		(void)fwrite_unlocked(c->stage, c->stage_len, 1, c->file);
	c->stage_len = 0;
}

/* One pcap record, the bytes pcap_dump writes (seconds, micro- or nanoseconds, caplen and
 * len as 32-bit host-order words, then the packet; nothing after an earlier write error),
 * staged when short, else written with unlocked stdio: this thread is the file's only
 * writer, and pcap_dump's two locked fwrite calls were a third of the thread's cost per
 * packet of a framed capture. */
static void
write_record(struct capture *c, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
	uint32_t rec[4];
	size_t n = sizeof rec + hdr->caplen;	/* the record's bytes */

	rec[0] = (uint32_t)hdr->ts.tv_sec;
	rec[1] = (uint32_t)hdr->ts.tv_usec;
	rec[2] = hdr->caplen;
	rec[3] = hdr->len;
	if (n <= CAPTURE_STAGE_MAX) {
		if (c->stage_len + n > sizeof c->stage)
			stage_drain(c);
		memcpy(c->stage + c->stage_len, rec, sizeof rec);
		memcpy(c->stage + c->stage_len + sizeof rec, bytes, hdr->caplen);
		c->stage_len += n;
		return;
	}
	stage_drain(c);
	if (ferror_unlocked(c->file))
		return;
	if (fwrite_unlocked(rec, sizeof rec, 1, c->file) == 1)
		(void)fwrite_unlocked(bytes, hdr->caplen, 1, c->file);
}

static void
on_packet_written(struct capture *c, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
	if (c->write_failed)
		return;
	write_record(c, hdr, bytes);
	c->packets++;
	c->bytes += hdr->caplen;
}

static void
on_packet(u_char *user, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;
	struct pcap_pkthdr cut;

	if (c->write_failed)
		return;
	c->wire_bytes += hdr->caplen;
	if (c->fc != NULL) {
		size_t keep = framecut_keep(c->fc, bytes, hdr->caplen, hdr->len);

		if (keep < hdr->caplen) {
			cut = *hdr;
			cut.caplen = (bpf_u_int32)keep;
			hdr = &cut;
		}
	}
	on_packet_written(c, hdr, bytes);
}

static void
flush_file(struct capture *c)
{
	struct err e;

	if (c->write_failed)
		return;
	stage_drain(c);
	if (pcap_dump_flush(c->dumper) != 0 || ferror(c->file)) {
		if (!c->write_failed && c->write_error[0] == '\0')
			snprintf(c->write_error, sizeof c->write_error, "cannot write the capture: %s",
				 strerror(errno ? errno : EIO));
		c->write_failed = true;
		return;
	}
	if (c->gz != NULL && gzw_flush(c->gz, &e) < 0) {
		snprintf(c->write_error, sizeof c->write_error, "%s", e.msg);
		c->write_failed = true;
	}
}

/* Honour capture_drop_iface requests: read what the handle still holds, keep its
 * statistics, close it and take it out of the poll set. */
static void
drop_requested(struct capture *c, struct pollfd *pfd)
{
	unsigned req = atomic_load(&c->drop_req);

	for (size_t i = 0; i < c->n; i++) {
		if (!(req & (1u << i)) || c->h[i] == NULL)
			continue;
		while (pcap_dispatch(c->h[i], -1, on_packet, (u_char *)c) > 0)
			;
		c->have_dropped_stats[i] = pcap_stats(c->h[i], &c->dropped_stats[i]) == 0;
		pcap_close(c->h[i]);
		c->h[i] = NULL;
		pfd[i].fd = -1;		/* poll ignores it */
	}
}

static void *
capture_thread(void *arg)
{
	struct capture *c = arg;
	struct pollfd pfd[CAPTURE_MAX_IFACES + 1];	/* the handles, then wake_fd */
	int64_t last_flush = clock_mono_ns();
	uint64_t flushed_packets = 0;	/* c->packets at the last flush */
	int64_t stop_seen = 0;		/* when the stop request was first seen */

	for (size_t i = 0; i < c->n; i++) {
		pfd[i].fd = pcap_get_selectable_fd(c->h[i]);
		pfd[i].events = POLLIN;
	}
	pfd[c->n].fd = c->wake_fd;
	pfd[c->n].events = POLLIN;
	for (;;) {
		bool stopping = atomic_load(&c->stop) != 0;
		bool lingering = false;
		int got = 0;	/* packets read in this round */
		int64_t now;

		if (stopping) {
			if (stop_seen == 0)
				stop_seen = clock_mono_ns();
			lingering = clock_mono_ns() - stop_seen < c->linger_ns;
		}
		if (atomic_load(&c->drop_req) != 0)
			drop_requested(c, pfd);
		if (c->kl != NULL && atomic_load(&c->kl->done))
			kload_finish(c, true);
		if (c->align_ns > 0 && !stopping) {
			/* Wake on the grid every node shares, not when a block is handed over:
			 * a rank's CPU the reading takes then stalls every node at once, and a
			 * job that synchronises loses it once rather than once per node. A stop
			 * wakes it at once: the job's end does not wait for the grid. */
			int64_t left = clock_grid_next_mono(c->align_ns) - clock_mono_ns();
			struct timespec ts = clock_ns_ts(left > 0 ? left : 0);

			ppoll(&pfd[c->n], 1, &ts, NULL);
		} else if (!stopping || lingering) {
			poll(pfd, (nfds_t)c->n + 1, stopping ? 10 : 50);
		}
		unwake(c);
		for (size_t i = 0; i < c->n; i++) {
			int r;

			if (c->h[i] == NULL)
				continue;
			r = pcap_dispatch(c->h[i], -1, on_packet, (u_char *)c);

			if (r > 0)
				got += r;
		}
		now = clock_mono_ns();
		if (c->packets != flushed_packets && now - last_flush >= c->flush_ns) {
			flush_file(c);
			flushed_packets = c->packets;
			last_flush = now;
		}
		if (stopping && !lingering && got == 0)
			break;
	}
	flush_file(c);
	{
		struct rusage ru;

		if (getrusage(RUSAGE_THREAD, &ru) == 0) {
			c->utime_ns = clock_tv_ns(&ru.ru_utime);
			c->stime_ns = clock_tv_ns(&ru.ru_stime);
		}
	}
	return NULL;
}

static void
close_handles(struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->h[i] != NULL)
			pcap_close(c->h[i]);
	c->n = 0;
}

static int
set_filter(pcap_t *h, const char *iface, const char *filter, struct err *e)
{
	struct bpf_program prog;
	int rc;

	if (filter == NULL || filter[0] == '\0')
		return 0;
	if (pcap_compile(h, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0)
		return err_set(e, E_USAGE, "bad capture filter '%s': %s", filter, pcap_geterr(h));
	rc = pcap_setfilter(h, &prog);
	pcap_freecode(&prog);
	if (rc != 0)
		return err_set(e, E_IO, "cannot set the filter on '%s': %s", iface, pcap_geterr(h));
	return 0;
}

/* Start fn(arg) in a thread that takes no signals: they go to the agent's main thread. */
static int
start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0 ? 0 : -1;
}

static int
open_kcut(struct kcut **kc, bool deflt, struct err *e)
{
	static const uint16_t ports[] = CAPTURE_DEFAULT_FILTER_PORTS;

	return kcut_open(kc, 14, deflt, deflt ? ports : NULL, deflt ? 2 : 0, e);
}

static void *
kload_thread(void *arg)
{
	struct kload *kl = arg;
	struct err e;

	if (open_kcut(&kl->kc, kl->deflt, &e) != 0)
		snprintf(kl->why, sizeof kl->why, "%s", e.msg);
	atomic_store(&kl->done, true);
	wake(kl->wake_fd);
	return NULL;
}

/* Put the loaded kernel cut kc on every socket still capturing, where it stands in for
 * the capture filter (before the capture thread starts, or in it); say in c->kernel_cut
 * what was done. A failure frees kc and leaves the user-space cut alone, with libpcap's
 * filter where it was. */
static void
attach_kernel_cut(struct capture *c, struct kcut *kc)
{
	struct framecut_stats st;
	struct err e;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->h[i] != NULL && kcut_attach(kc, pcap_fileno(c->h[i]), &e) != 0)
			break;
	if (i < c->n) {
		snprintf(c->kernel_cut, sizeof c->kernel_cut, "unavailable: %s", e.msg);
		for (size_t j = 0; j < i; j++)	/* libpcap's filter back in place */
			if (c->h[j] != NULL && set_filter(c->h[j], c->name[j], c->filter, &e) != 0)
				snprintf(c->kernel_cut, sizeof c->kernel_cut, "unavailable: %s",
					 e.msg);
		kcut_free(kc);
		return;
	}
	c->kc = kc;
	framecut_use_kcut(c->fc, kc);
	c->kcut_ready_ns = clock_mono_ns() - c->start_mono;
	framecut_stats(c->fc, &st);
	c->kcut_conns_before = st.conns;
	snprintf(c->kernel_cut, sizeof c->kernel_cut, "yes");
}

/* The loader's thread is done (or, with attach false, waited for): attach its program,
 * or say why there is none. */
static void
kload_finish(struct capture *c, bool attach)
{
	struct kload *kl = c->kl;

	pthread_join(kl->thread, NULL);
	c->kl = NULL;
	if (kl->kc == NULL) {
		snprintf(c->kernel_cut, sizeof c->kernel_cut, "unavailable: %s", kl->why);
	} else if (attach) {
		attach_kernel_cut(c, kl->kc);
	} else {
		snprintf(c->kernel_cut, sizeof c->kernel_cut,
			 "no: the capture ended before the program was loaded");
		kcut_free(kl->kc);
	}
	free(kl);
}

/* Put the in-kernel cut on every socket of a framed capture where it can stand in for the
 * capture filter, at once or (kernel_cut_late) once a thread of its own has loaded it;
 * say in c->kernel_cut what was done and why. */
static void
start_kernel_cut(struct capture *c, const struct capture_opts *o)
{
	bool deflt = o->filter != NULL && strcmp(o->filter, CAPTURE_DEFAULT_FILTER) == 0;
	struct kcut *kc;
	struct err e;

	if (!o->kernel_cut) {
		snprintf(c->kernel_cut, sizeof c->kernel_cut, "no: --no-kernel-cut");
		return;
	}
	if (c->linktype != DLT_EN10MB) {
		snprintf(c->kernel_cut, sizeof c->kernel_cut, "unavailable: link type %s",
			 pcap_datalink_val_to_name(c->linktype));
		return;
	}
	if (!deflt && o->filter != NULL && o->filter[0] != '\0') {
		snprintf(c->kernel_cut, sizeof c->kernel_cut, "no: a capture filter of its own");
		return;
	}
	if (o->kernel_cut_late) {
		struct kload *kl = xcalloc(1, sizeof *kl);

		kl->deflt = deflt;
		kl->wake_fd = c->wake_fd;
		if (start_thread(&kl->thread, kload_thread, kl) == 0) {
			c->kl = kl;
			snprintf(c->kernel_cut, sizeof c->kernel_cut, "loading");
			return;
		}
		free(kl);	/* no thread: loaded here */
	}
	if (open_kcut(&kc, deflt, &e) != 0) {
		snprintf(c->kernel_cut, sizeof c->kernel_cut, "unavailable: %s", e.msg);
		return;
	}
	attach_kernel_cut(c, kc);
}

static int
open_handle(struct capture *c, size_t i, const char *iface, const struct capture_opts *o,
	    bool nano, struct err *e)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *h = pcap_create(iface, ebuf);
	int rc;

	if (h == NULL)
		return err_set(e, E_IO, "cannot capture on '%s': %s", iface, ebuf);
	c->h[i] = h;
	pcap_set_snaplen(h, o->snaplen);
	pcap_set_promisc(h, 0);
	if (o->batch) {
		/* Without immediate mode libpcap uses TPACKET_V3: the kernel fills blocks and
		 * wakes the reader when one is full or batch_ms old. */
		pcap_set_immediate_mode(h, 0);
		pcap_set_timeout(h, o->batch_ms > 0 ? o->batch_ms : CAPTURE_DEFAULT_BATCH_MS);
	} else {
		pcap_set_immediate_mode(h, 1);
	}
	if (o->buffer_bytes > 0)
		pcap_set_buffer_size(h, o->buffer_bytes > 0x7fffffff ? 0x7fffffff : (int)o->buffer_bytes);
	if (nano)
		pcap_set_tstamp_precision(h, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(h);
	if (rc == PCAP_ERROR_PERM_DENIED || rc == PCAP_ERROR_PROMISC_PERM_DENIED)
		return err_set(e, E_PERM,
			       "capture on '%s' needs CAP_NET_RAW (and CAP_NET_ADMIN): grant them with "
			       "'setcap cap_net_raw,cap_net_admin+ep $(command -v contend)' or run as root",
			       iface);
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE || rc == PCAP_ERROR_IFACE_NOT_UP)
		return err_set(e, E_USAGE, "cannot capture on '%s': %s", iface, pcap_geterr(h));
	if (rc < 0)
		return err_set(e, E_IO, "cannot capture on '%s': %s", iface, pcap_geterr(h));
	if ((rc = set_filter(h, iface, o->filter, e)) != 0)
		return rc;
	if (pcap_setnonblock(h, 1, ebuf) != 0)
		return err_set(e, E_IO, "cannot capture on '%s': %s", iface, ebuf);
	return 0;
}

static int
open_file(struct capture *c, const char *path, const struct capture_opts *o, struct err *e)
{
	if (o->compress) {
		cookie_io_functions_t io = { NULL, gz_cookie_write, NULL, gz_cookie_close };

		c->gz = gzw_open_level(path, true, o->overwrite, 0,
				       o->compress_level > 0 ? o->compress_level : GZW_DEFAULT_LEVEL, e);
		if (c->gz == NULL)
			return e ? e->code : -E_IO;
		c->file = fopencookie(c, "w", io);
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (o->overwrite ? O_TRUNC : O_EXCL),
			      0644);

		if (fd < 0)
			return err_sys(e, E_IO, "cannot create '%s'", path);
		c->file = fdopen(fd, "w");
		if (c->file == NULL)
			close(fd);
	}
	if (c->file == NULL)
		return err_sys(e, E_IO, "cannot create '%s'", path);
	setvbuf(c->file, NULL, _IOFBF, 1 << 20);
	return 0;
}

/* What capture_start allocated besides the handles, the cut and the file. */
static void
free_capture(struct capture *c)
{
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	free(c->filter);
	free(c);
}

int
capture_start(struct capture **out, const char *path, const struct capture_opts *o, struct err *e)
{
	struct capture *c = xcalloc(1, sizeof *c);
	int rc = 0;
	bool nano = true;

	*out = NULL;
	if (o->nifaces == 0 || o->nifaces > CAPTURE_MAX_IFACES) {
		free(c);
		return err_set(e, E_USAGE, "capture needs 1 to %d interfaces", CAPTURE_MAX_IFACES);
	}
	c->start_mono = clock_mono_ns();
	c->kcut_ready_ns = -1;
	c->filter = o->filter != NULL ? xstrdup(o->filter) : NULL;
	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	c->flush_ns = o->flush_ns > 0 ? o->flush_ns : 500000000;
	c->align_ns = o->batch ? o->align_ns : 0;
	if (o->batch)
		c->linger_ns = (int64_t)(o->batch_ms > 0 ? o->batch_ms : CAPTURE_DEFAULT_BATCH_MS) * 1000000 +
			       20000000;
	for (size_t i = 0; i < o->nifaces && rc == 0; i++) {
		snprintf(c->name[i], sizeof c->name[i], "%s", o->ifaces[i]);
		c->n = i + 1;
		rc = open_handle(c, i, o->ifaces[i], o, nano, e);
		if (rc == 0 && pcap_get_tstamp_precision(c->h[i]) != PCAP_TSTAMP_PRECISION_NANO) {
			if (i > 0) {
				rc = err_set(e, E_UNSUP, "'%s' has no nanosecond timestamps and '%s' has",
					     o->ifaces[i], o->ifaces[0]);
			}
			nano = false;
		}
		if (rc == 0 && i > 0 && pcap_datalink(c->h[i]) != pcap_datalink(c->h[0]))
			rc = err_set(e, E_UNSUP,
				     "'%s' and '%s' have different link types; name one with --iface "
				     "(or --iface any)", o->ifaces[0], o->ifaces[i]);
	}
	if (rc == 0) {
		c->linktype = pcap_datalink(c->h[0]);
		c->nano = nano;
		if (o->framed) {
			c->fc = framecut_new(c->linktype, 0);
			start_kernel_cut(c, o);
		} else {
			snprintf(c->kernel_cut, sizeof c->kernel_cut, "no: payload %s",
				 capture_payload_name(o));
		}
		snprintf(c->kernel_cut_start, sizeof c->kernel_cut_start, "%s", c->kernel_cut);
		rc = open_file(c, path, o, e);
	}
	if (rc == 0) {
		c->dumper = pcap_dump_fopen(c->h[0], c->file);
		if (c->dumper == NULL)
			rc = err_set(e, E_IO, "cannot write '%s': %s", path, pcap_geterr(c->h[0]));
		else
			flush_file(c);	/* the file header is readable at once */
	}
	if (rc == 0 && start_thread(&c->thread, capture_thread, c) != 0)
		rc = err_set(e, E_IO, "cannot start the capture thread");
	if (rc < 0) {
		if (c->kl != NULL)
			kload_finish(c, false);
		if (c->dumper != NULL)
			pcap_dump_close(c->dumper);
		else if (c->file != NULL)
			fclose(c->file);
		if (c->gz != NULL)
			gzw_close(c->gz, NULL);
		close_handles(c);
		framecut_free(c->fc);
		kcut_free(c->kc);
		free_capture(c);
		return rc;
	}
	*out = c;
	return 0;
}

int
capture_stop(struct capture *c, struct capture_result *r, struct err *e)
{
	size_t off = 0;
	int rc = 0;

	memset(r, 0, sizeof *r);
	if (c == NULL)
		return 0;
	atomic_store(&c->stop, 1);
	wake(c->wake_fd);
	pthread_join(c->thread, NULL);
	if (c->kl != NULL)
		kload_finish(c, false);
	r->linktype = c->linktype;
	r->nano = c->nano;
	for (size_t i = 0; i < c->n; i++) {
		struct pcap_stat st;

		if (c->h[i] == NULL) {
			if (!c->have_dropped_stats[i])
				continue;
			st = c->dropped_stats[i];
		} else if (pcap_stats(c->h[i], &st) != 0) {
			continue;
		}
		r->recv += st.ps_recv;
		r->drop += st.ps_drop;
		r->ifdrop += st.ps_ifdrop;
		if (off < sizeof r->stats) {
			int w = snprintf(r->stats + off, sizeof r->stats - off, "%s%s:%u/%u/%u",
					 i ? "," : "", c->name[i], st.ps_recv, st.ps_drop, st.ps_ifdrop);

			if (w > 0)
				off += (size_t)w;
		}
	}
	pcap_dump_close(c->dumper);	/* flushes and fcloses the stream */
	if (c->gz != NULL) {
		struct err ge;

		if (gzw_close(c->gz, &ge) < 0 && !c->write_failed) {
			snprintf(c->write_error, sizeof c->write_error, "%s", ge.msg);
			c->write_failed = true;
		}
	}
	r->packets = c->packets;
	r->bytes = c->bytes;
	r->captured_bytes = c->wire_bytes;
	r->framed = c->fc != NULL;
	if (c->fc != NULL)
		framecut_stats(c->fc, &r->fc);
	snprintf(r->kernel_cut, sizeof r->kernel_cut, "%s", c->kernel_cut);
	kcut_counters(c->kc, &r->kc);
	r->kernel_cut_ready_ns = c->kc != NULL ? c->kcut_ready_ns : -1;
	r->kernel_cut_conns_before = c->kc != NULL ? c->kcut_conns_before : 0;
	r->thread_utime_ns = c->utime_ns;
	r->thread_stime_ns = c->stime_ns;
	if (c->write_failed) {
		snprintf(r->write_error, sizeof r->write_error, "%s", c->write_error);
		rc = err_set(e, E_IO, "%s", c->write_error);
	}
	close_handles(c);
	framecut_free(c->fc);
	kcut_free(c->kc);
	free_capture(c);
	return rc;
}

int
capture_drop_iface(struct capture *c, const char *iface, struct err *e)
{
	size_t live = 0, k = c->n;

	for (size_t i = 0; i < c->n; i++) {
		if (c->dropped & (1u << i))
			continue;
		live++;
		if (strcmp(c->name[i], iface) == 0)
			k = i;
	}
	if (k == c->n)
		return err_set(e, E_USAGE, "'%s' is not being captured", iface);
	if (live <= 1)
		return err_set(e, E_USAGE, "'%s' is the last interface captured", iface);
	c->dropped |= 1u << k;
	atomic_fetch_or(&c->drop_req, 1u << k);
	return 0;
}

int
capture_trim(const char *in, const char *out, bool compress, bool overwrite,
	     struct framecut_stats *st, struct err *e)
{
	struct capture_opts o = { .compress = compress, .overwrite = overwrite };
	struct capture *c = xcalloc(1, sizeof *c);
	struct pcapin *pin = pcapin_open(in, e);
	struct pcapin_pkt pk;
	pcap_t *dead = NULL;
	int rc = 0, r;

	memset(st, 0, sizeof *st);
	if (pin == NULL) {
		free(c);
		return -E_FORMAT;
	}
	dead = pcap_open_dead_with_tstamp_precision(pcapin_linktype(pin), CAPTURE_DEFAULT_SNAPLEN,
						     PCAP_TSTAMP_PRECISION_NANO);
	rc = open_file(c, out, &o, e);
	if (rc == 0 && (c->dumper = pcap_dump_fopen(dead, c->file)) == NULL)
		rc = err_set(e, E_IO, "cannot write '%s': %s", out, pcap_geterr(dead));
	if (rc == 0)
		c->fc = framecut_new(pcapin_linktype(pin), 0);
	while (rc == 0 && (r = pcapin_next(pin, &pk, e)) > 0) {
		struct pcap_pkthdr h;

		h.ts.tv_sec = (time_t)(pk.t_ns / NS_PER_S);
		h.ts.tv_usec = (suseconds_t)(pk.t_ns % NS_PER_S);	/* ns: a nano dumper */
		h.len = pk.origlen;
		h.caplen = (bpf_u_int32)framecut_keep(c->fc, pk.data, pk.caplen, pk.origlen);
		on_packet_written(c, &h, pk.data);
	}
	if (rc == 0 && r < 0)
		rc = r;		/* e says where the input ends; what came before is written */
	if (c->dumper != NULL) {
		flush_file(c);
		pcap_dump_close(c->dumper);
	} else if (c->file != NULL) {
		fclose(c->file);
	}
	if (c->gz != NULL) {
		struct err ge;

		if (gzw_close(c->gz, &ge) < 0 && !c->write_failed) {
			snprintf(c->write_error, sizeof c->write_error, "%s", ge.msg);
			c->write_failed = true;
		}
	}
	if (c->write_failed && rc == 0)
		rc = err_set(e, E_IO, "%s", c->write_error);
	if (c->fc != NULL)
		framecut_stats(c->fc, st);
	framecut_free(c->fc);
	if (dead != NULL)
		pcap_close(dead);
	pcapin_close(pin);
	free(c);
	return rc;
}

const char *
capture_kernel_cut(const struct capture *c)
{
	return c->kernel_cut_start;
}

const char *
capture_payload_name(const struct capture_opts *o)
{
	if (o->framed)
		return "framed";
	return o->snaplen >= CAPTURE_DEFAULT_SNAPLEN ? "full" : "cut";
}

const char *
capture_lib_version(void)
{
	return pcap_lib_version();
}

static bool
has_name(char names[][64], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

int
capture_pick_ifaces(bool only_loopback, bool with_loopback, char names[][64], size_t max,
		    struct err *e)
{
	struct ifaddrs *ifa, *p;
	size_t n = 0;
	char lo[64] = "lo";

	if (getifaddrs(&ifa) != 0)
		return err_sys(e, E_IO, "cannot list the network interfaces");
	for (p = ifa; p != NULL; p = p->ifa_next) {
		if (p->ifa_addr == NULL || !(p->ifa_flags & IFF_UP))
			continue;
		if (p->ifa_flags & IFF_LOOPBACK) {
			snprintf(lo, sizeof lo, "%s", p->ifa_name);
			continue;
		}
		if (only_loopback)
			continue;
		if (p->ifa_addr->sa_family != AF_INET && p->ifa_addr->sa_family != AF_INET6)
			continue;
		if (!has_name(names, n, p->ifa_name) && n < max)
			snprintf(names[n++], 64, "%s", p->ifa_name);
	}
	freeifaddrs(ifa);
	if ((only_loopback || with_loopback || n == 0) && n < max && !has_name(names, n, lo))
		snprintf(names[n++], 64, "%s", lo);
	return (int)n;
}

int
capture_ifaces_for_peers(char cand[][64], size_t n, const char *peer_addrs, bool keep_loopback,
			 bool keep[])
{
	struct ifaddrs *ifa, *p;
	const char *s = peer_addrs;
	int routed = 0;

	for (size_t i = 0; i < n; i++)
		keep[i] = false;
	if (keep_loopback && getifaddrs(&ifa) == 0) {
		for (p = ifa; p != NULL; p = p->ifa_next)
			if (p->ifa_flags & IFF_LOOPBACK)
				for (size_t i = 0; i < n; i++)
					if (strcmp(cand[i], p->ifa_name) == 0)
						keep[i] = true;
		freeifaddrs(ifa);
	}
	while (s != NULL && *s != '\0') {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char addr[INET6_ADDRSTRLEN + 1], via[64];

		if (len > 0 && len < sizeof addr) {
			memcpy(addr, s, len);
			addr[len] = '\0';
			if (capture_route_iface(addr, via, sizeof via) == 0) {
				for (size_t i = 0; i < n; i++) {
					if (strcmp(cand[i], via) == 0) {
						keep[i] = true;
						routed++;
						break;
					}
				}
			}
		}
		s = end ? end + 1 : NULL;
	}
	return routed;
}

static void
append(char *out, size_t outlen, size_t *off, const char *s)
{
	int w;

	if (*off >= outlen)
		return;
	w = snprintf(out + *off, outlen - *off, "%s%s", *off ? "," : "", s);
	if (w > 0)
		*off += (size_t)w;
	if (*off >= outlen)
		*off = outlen - 1;
}

/* out = what entry says of each of this host's interfaces that has an address and is not
 * the loopback, comma-separated; entry returns false to leave one out. Empty when none, or
 * when the interfaces cannot be listed. */
static void
host_list(char *out, size_t outlen, bool (*entry)(const struct ifaddrs *p, char *s, size_t slen))
{
	struct ifaddrs *ifa, *p;
	size_t off = 0;

	if (outlen == 0)
		return;
	out[0] = '\0';
	if (getifaddrs(&ifa) != 0)
		return;
	for (p = ifa; p != NULL; p = p->ifa_next) {
		char s[128];

		if (p->ifa_addr == NULL || (p->ifa_flags & IFF_LOOPBACK))
			continue;
		if (entry(p, s, sizeof s))
			append(out, outlen, &off, s);
	}
	freeifaddrs(ifa);
}

/* An IPv4 or IPv6 address that is not link-local. */
static bool
addr_entry(const struct ifaddrs *p, char *s, size_t slen)
{
	if (p->ifa_addr->sa_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr, s, (socklen_t)slen);
	} else if (p->ifa_addr->sa_family == AF_INET6) {
		struct in6_addr *in6 = &((struct sockaddr_in6 *)(void *)p->ifa_addr)->sin6_addr;

		if (IN6_IS_ADDR_LINKLOCAL(in6))
			return false;
		inet_ntop(AF_INET6, in6, s, (socklen_t)slen);
	} else {
		return false;
	}
	return true;
}

/* name=MAC of an interface with an Ethernet address. */
static bool
mac_entry(const struct ifaddrs *p, char *s, size_t slen)
{
	const struct sockaddr_ll *ll;

	if (p->ifa_addr->sa_family != AF_PACKET)
		return false;
	ll = (const struct sockaddr_ll *)(const void *)p->ifa_addr;
	if (ll->sll_halen != 6)
		return false;
	snprintf(s, slen, "%s=%02x:%02x:%02x:%02x:%02x:%02x", p->ifa_name,
		 ll->sll_addr[0], ll->sll_addr[1], ll->sll_addr[2], ll->sll_addr[3],
		 ll->sll_addr[4], ll->sll_addr[5]);
	return true;
}

void
capture_host_addrs(char *out, size_t outlen)
{
	host_list(out, outlen, addr_entry);
}

void
capture_host_macs(char *out, size_t outlen)
{
	host_list(out, outlen, mac_entry);
}

int
capture_route_iface(const char *addr, char *out, size_t outlen)
{
	struct sockaddr_storage ss, local;
	socklen_t len, llen = sizeof local;
	int fd, family;
	struct ifaddrs *ifa, *p;
	int rc = -E_IO;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(9);
		len = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(9);
		len = sizeof(struct sockaddr_in6);
	} else {
		return -E_FORMAT;
	}
	/* A connected UDP socket sends nothing, but the kernel picks the route and source. */
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -E_IO;
	if (connect(fd, (struct sockaddr *)&ss, len) != 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &llen) != 0) {
		close(fd);
		return -E_IO;
	}
	close(fd);
	if (getifaddrs(&ifa) != 0)
		return -E_IO;
	for (p = ifa; p != NULL && rc != 0; p = p->ifa_next) {
		if (p->ifa_addr == NULL || p->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET &&
		    ((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr.s_addr ==
			    ((struct sockaddr_in *)&local)->sin_addr.s_addr)
			rc = 0;
		if (family == AF_INET6 &&
		    memcmp(&((struct sockaddr_in6 *)(void *)p->ifa_addr)->sin6_addr,
			   &((struct sockaddr_in6 *)&local)->sin6_addr, sizeof(struct in6_addr)) == 0)
			rc = 0;
		if (rc == 0) {
			/* An address of our own is reached over loopback. */
			bool self = strcmp(addr, "127.0.0.1") == 0 || strcmp(addr, "::1") == 0;
			struct ifaddrs *q;

			for (q = ifa; q != NULL && !self; q = q->ifa_next) {
				char a[INET6_ADDRSTRLEN] = "";

				if (q->ifa_addr == NULL || q->ifa_addr->sa_family != family)
					continue;
				if (family == AF_INET)
					inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)q->ifa_addr)->sin_addr, a, sizeof a);
				else
					inet_ntop(AF_INET6, &((struct sockaddr_in6 *)(void *)q->ifa_addr)->sin6_addr, a, sizeof a);
				self = strcmp(a, addr) == 0;
			}
			if (self) {
				for (q = ifa; q != NULL; q = q->ifa_next)
					if (q->ifa_flags & IFF_LOOPBACK) {
						snprintf(out, outlen, "%s", q->ifa_name);
						break;
					}
			} else {
				snprintf(out, outlen, "%s", p->ifa_name);
			}
		}
	}
	freeifaddrs(ifa);
	return rc;
}
