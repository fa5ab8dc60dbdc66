/* kcut: load and feed the in-kernel cut (see kcut.h). */
#include "collect/kcut.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/kcut_map.h"
#include "collect/kcut_bpf_obj.h"	/* kcut_bpf_o[]: collect/bpf/kcut.bpf.c, built */
#include "lib/xalloc.h"
#include "parse/mpich.h"
#include "parse/ompi.h"
#include "parse/wire.h"

#ifndef SO_ATTACH_BPF
#define SO_ATTACH_BPF 50
#endif

struct kcut {
	struct bpf_object *obj;
	int prog_fd, dirs_fd, count_fd;
	uint64_t updates, map_full;
};

/* What parse/ompi.c's ompi_frame makes of each frame header kind: the program follows
 * frames with these tables instead of its own copy of the wire facts. */
_Static_assert(sizeof OMPI_HS_MAGIC - 1 == sizeof ((struct kcut_conf *)0)->hs_magic,
	       "the handshake magic fills kcut_conf.hs_magic");

static void
probe_ompi(struct kcut_conf *cf)
{
	const uint32_t size = 1u << 20;	/* a size every frame kind accepts */

	cf->frame_max = OMPI_FRAME_MAX;
	cf->hs_len = OMPI_HS_LEN;
	cf->prefix = WIRE_PREFIX;
	memcpy(cf->hs_magic, OMPI_HS_MAGIC, sizeof cf->hs_magic);
	for (unsigned type = 0; type < 4; type++)
		for (unsigned cnt = 0; cnt < 8; cnt++)
			for (unsigned tag = 0; tag < 256; tag++) {
				uint8_t h[WIRE_HDR_MAX];
				uint64_t total, keep, t2, k2;

				memset(h, 0, sizeof h);
				h[0] = (uint8_t)tag, h[1] = (uint8_t)type, h[2] = (uint8_t)cnt;
				h[4] = (uint8_t)size, h[5] = (uint8_t)(size >> 8);
				h[6] = (uint8_t)(size >> 16), h[7] = (uint8_t)(size >> 24);
				h[8] = (uint8_t)tag;
				if (ompi_frame(h, sizeof h, &total, &keep) != 0 || keep < 8 ||
				    keep >= KCUT_KEEP_TAG8 || total < size ||
				    (cf->keep[type][cnt][0] != 0 &&
				     cf->base[type][cnt] != total - size))
					continue;
				cf->base[type][cnt] = (unsigned)(total - size);
				cf->keep[type][cnt][tag] = (unsigned char)keep;
				h[8] = (uint8_t)~tag;
				if (ompi_frame(h, sizeof h, &t2, &k2) != 0)
					cf->keep[type][cnt][tag] |= KCUT_KEEP_TAG8;
			}
}

/* What parse/mpich.c's mpich_record makes of each UCX record kind: for every am_id, the
 * lengths it accepts (probed up to what fits a header buffer, and at the largest it
 * believes) and the bytes it reads, the same at every length or the whole record. An id
 * whose record is longer than its length field says (PUT_REQ: raw data follows) or whose
 * answers do not fit that shape is not followed. */
_Static_assert(sizeof MPICH_MAGIC - 1 == sizeof ((struct kcut_ucx *)0)->magic,
	       "the UCX magic fills kcut_ucx.magic");

#define UCX_EXT_PROBE 100000u	/* a data count the decoder believes */

/* The record with am_id id and length field len, the le64 ext at byte o when o is not 0
 * and every other byte fill, as mpich_record judges it: true with *total and *keep when
 * it is accepted. */
static bool
ucx_try(unsigned id, uint32_t len, unsigned o, uint64_t ext, uint8_t fill, uint64_t *total,
	uint64_t *keep)
{
	uint8_t h[WIRE_HDR_MAX];

	memset(h, fill, sizeof h);
	h[0] = (uint8_t)id;
	h[1] = (uint8_t)len, h[2] = (uint8_t)(len >> 8);
	h[3] = (uint8_t)(len >> 16), h[4] = (uint8_t)(len >> 24);
	for (unsigned i = 0; o != 0 && i < 8; i++)
		h[o + i] = (uint8_t)(ext >> (8 * i));
	return mpich_record(h, sizeof h, total, keep) == 0;
}

/* An id whose records run past their length field (a PUT_REQ: data follows): where in its
 * header (of length len) the le64 count of those bytes is, if it is one the program can
 * read and it adds exactly that; 0 otherwise. */
static unsigned
ucx_ext_off(unsigned id, uint32_t len)
{
	const uint64_t ext = UCX_EXT_PROBE;

	for (unsigned o = KCUT_UCX_HDR; o + 8 <= KCUT_HDR_READ; o++) {
		uint64_t total, keep, t2, k2;

		if (ucx_try(id, len, o, ext, 0, &total, &keep) &&
		    total == KCUT_UCX_HDR + (uint64_t)len + ext && keep >= o + 8 &&
		    ucx_try(id, len, o, ext + 1, 0, &t2, &k2) && t2 == total + 1 && k2 == keep)
			return o;
	}
	return 0;
}

static void
probe_ucx(struct kcut_ucx *u)
{
	enum { SMALL = WIRE_HDR_MAX - KCUT_UCX_HDR, NBIG = 3 };	/* lengths probed */
	const uint32_t big[NBIG] = { 1u << 16, MPICH_AM_MAX, MPICH_AM_MAX + 1 };

	memcpy(u->magic, MPICH_MAGIC, sizeof u->magic);
	u->ext_max = 1u << 30;	/* the program's totals are 32-bit */
	for (unsigned id = 0; id < 256; id++) {
		uint32_t lmin = 0, lmax = 0, k = 0;
		uint64_t total, keep;
		bool any = false, ok = true, gap = false;
		unsigned o = 0;
		uint64_t ext = 0;	/* the data count probed with, when o is not 0 */

		/* the accepted lengths: one run, from the largest the bytes read */
		for (unsigned i = 0; i < SMALL + NBIG && ok; i++) {
			uint32_t len = i < SMALL ? i : big[i - SMALL];

			if (!ucx_try(id, len, o, ext, 0, &total, &keep)) {
				gap = any;
				continue;
			}
			if (!any && (o = ucx_ext_off(id, len)) != 0) {
				ext = UCX_EXT_PROBE;	/* the bytes read told apart from data */
				if (!ucx_try(id, len, o, ext, 0, &total, &keep))
					break;
			}
			ok = !gap && total == KCUT_UCX_HDR + (uint64_t)len + ext &&
			     keep >= KCUT_UCX_HDR && keep < KCUT_KEEP_ALL;
			if (!any)
				lmin = len;
			lmax = len;
			k = keep == total ? KCUT_KEEP_ALL : (uint32_t)keep;
			any = true;
		}
		/* the same bytes read at every accepted length, and the length not taken from
		 * any other header byte */
		for (unsigned i = 0; i < 2 * (SMALL + NBIG) && ok && any; i++) {
			unsigned j = i % (SMALL + NBIG);
			uint32_t len = j < SMALL ? j : big[j - SMALL];

			if (ucx_try(id, len, o, ext, i < SMALL + NBIG ? 0 : 0x5a, &total, &keep))
				ok = total == KCUT_UCX_HDR + (uint64_t)len + ext &&
				     keep == (k == KCUT_KEEP_ALL || total < k ? total : k);
		}
		if (ok && any && o != 0)
			ok = ucx_try(id, lmax, o, u->ext_max, 0, &total, &keep);
		if (!ok || !any)
			continue;
		u->keep[id] = (unsigned char)k;
		u->len_min[id] = lmin;
		u->len_max[id] = lmax;
		u->ext_off[id] = (unsigned char)o;
	}
}

static int
quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int
kcut_open(struct kcut **out, unsigned l3_off, bool tcp_only, const uint16_t *drop_ports,
	  size_t nports, struct err *e)
{
	struct kcut *k;
	struct bpf_program *prog;
	struct kcut_conf conf;
	uint32_t zero = 0;
	int rc, conf_fd;

	*out = NULL;
	if (nports > KCUT_MAX_PORTS)
		return err_set(e, E_UNSUP, "the capture filter drops more than %d ports",
			       KCUT_MAX_PORTS);
	libbpf_set_print(quiet);
	k = xcalloc(1, sizeof *k);
	k->obj = bpf_object__open_mem(kcut_bpf_o, sizeof kcut_bpf_o, NULL);
	if (k->obj == NULL) {
		rc = err_set(e, E_UNSUP, "cannot open the eBPF program: %s", strerror(errno));
		goto fail;
	}
	if ((rc = bpf_object__load(k->obj)) != 0) {
		rc = -rc == EPERM || -rc == EACCES ?
			err_set(e, E_PERM, "no permission to load eBPF (CAP_BPF): %s", strerror(-rc)) :
			err_set(e, E_UNSUP, "the kernel refused the eBPF program: %s", strerror(-rc));
		goto fail;
	}
	prog = bpf_object__find_program_by_name(k->obj, "kcut");
	k->prog_fd = prog ? bpf_program__fd(prog) : -1;
	k->dirs_fd = bpf_object__find_map_fd_by_name(k->obj, "kcut_dirs");
	k->count_fd = bpf_object__find_map_fd_by_name(k->obj, "kcut_count");
	conf_fd = bpf_object__find_map_fd_by_name(k->obj, "kcut_conf");
	if (k->prog_fd < 0 || k->dirs_fd < 0 || k->count_fd < 0 || conf_fd < 0) {
		rc = err_set(e, E_UNSUP, "the eBPF object lacks its program or maps");
		goto fail;
	}
	memset(&conf, 0, sizeof conf);
	conf.l3_off = l3_off;
	conf.tcp_only = tcp_only;
	for (size_t i = 0; i < nports; i++)
		conf.drop_port[i] = drop_ports[i];
	probe_ompi(&conf);
	probe_ucx(&conf.ucx);
	if (bpf_map_update_elem(conf_fd, &zero, &conf, BPF_ANY) != 0) {
		rc = err_sys(e, E_IO, "cannot configure the eBPF program");
		goto fail;
	}
	*out = k;
	return 0;
fail:
	kcut_free(k);
	return rc;
}

int
kcut_attach(struct kcut *k, int fd, struct err *e)
{
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &k->prog_fd, sizeof k->prog_fd) != 0)
		return err_sys(e, E_IO, "cannot attach the eBPF program to the capture socket");
	return 0;
}

int
kcut_run(struct kcut *k, const uint8_t *p, size_t len, uint32_t *copy, struct err *e)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p, .data_size_in = (uint32_t)len,
		    .repeat = 1);

	if (bpf_prog_test_run_opts(k->prog_fd, &o) != 0)
		return err_sys(e, E_IO, "cannot run the eBPF program");
	*copy = o.retval;
	return 0;
}

static void
make_key(struct kcut_key *key, int af, const uint8_t *src, const uint8_t *dst, uint16_t sport,
	 uint16_t dport)
{
	size_t alen = af == 6 ? 16 : 4;

	memset(key, 0, sizeof *key);
	memcpy(key->src, src, alen);
	memcpy(key->dst, dst, alen);
	key->sport_be = (unsigned short)((sport >> 8) | (sport << 8));
	key->dport_be = (unsigned short)((dport >> 8) | (dport << 8));
	key->af = (unsigned char)af;
}

void
kcut_set(struct kcut *k, int af, const uint8_t *src, const uint8_t *dst, uint16_t sport,
	 uint16_t dport, uint32_t lo, uint32_t s, unsigned follow)
{
	struct kcut_key key;
	struct kcut_val v = { lo | (unsigned long long)s << 32, follow, 0, 0 }, cur;

	if (k == NULL)
		return;
	make_key(&key, af, src, dst, sport, dport);
	if (follow && bpf_map_lookup_elem(k->dirs_fd, &key, &cur) == 0 && cur.follow &&
	    (int32_t)(s - (uint32_t)(cur.lo_s >> 32)) <= 0)
		return;	/* the program is at s or past it */
	if (bpf_map_update_elem(k->dirs_fd, &key, &v, BPF_ANY) == 0)
		k->updates++;
	else
		k->map_full++;
}

void
kcut_del(struct kcut *k, int af, const uint8_t *src, const uint8_t *dst, uint16_t sport,
	 uint16_t dport)
{
	struct kcut_key key;

	if (k == NULL)
		return;
	make_key(&key, af, src, dst, sport, dport);
	(void)bpf_map_delete_elem(k->dirs_fd, &key);	/* ENOENT: nothing was decided */
}

void
kcut_counters(const struct kcut *k, struct kcut_counters *out)
{
	int ncpu = libbpf_num_possible_cpus();

	memset(out, 0, sizeof *out);
	if (k == NULL)
		return;
	out->updates = k->updates;
	out->map_full = k->map_full;
	if (ncpu <= 0)
		return;
	for (uint32_t c = 0; c < KCUT_NCOUNT; c++) {
		uint64_t *per = xcalloc((size_t)ncpu, sizeof *per);

		uint64_t *to = c == KCUT_C_PACKETS ? &out->packets :
			       c == KCUT_C_BYTES ? &out->bytes :
			       c == KCUT_C_FOLLOWED ? &out->followed :
			       c == KCUT_C_STOPPED ? &out->stopped : &out->handshakes;

		if (bpf_map_lookup_elem(k->count_fd, &c, per) == 0)
			for (int i = 0; i < ncpu; i++)
				*to += per[i];
		free(per);
	}
}

void
kcut_free(struct kcut *k)
{
	if (k == NULL)
		return;
	bpf_object__close(k->obj);
	free(k);
}
