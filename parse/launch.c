/* launch: ORTE OOB, PMIx and Hydra handshake recognition (see launch.h for the sources). */
#include "parse/launch.h"

#include <string.h>

#include "lib/rd.h"

#define OOB_HDR_BYTES 64
#define OOB_IDENT_BYTES 72	/* header + u16 ack flag + "4.0.0\0" */

/* ORTE OOB IDENT: type 1 at 28, nbytes = htonl(8) at 24, then 00 01 "4.0.0" 00. */
static enum launch_kind
oob(const uint8_t *p, size_t n)
{
	static const uint8_t ver[8] = { 0, 1, '4', '.', '0', '.', '0', 0 };
	static const uint8_t nack[2] = { 0, 0 };
	struct rd r = rd_make(p, n);
	uint32_t tag, nbytes;
	uint8_t type;

	if (n < 29)
		return n == 0 ? LAUNCH_NO : LAUNCH_MORE;
	rd_skip(&r, 16);
	tag = rd_be32(&r);
	rd_skip(&r, 4);
	nbytes = rd_be32(&r);
	type = rd_u8(&r);
	if (r.err || type != 1 || tag != 0 || nbytes != 8)
		return LAUNCH_NO;
	if (n < OOB_IDENT_BYTES)
		return LAUNCH_MORE;
	if (memcmp(p + OOB_HDR_BYTES, ver, sizeof ver) == 0 ||
	    memcmp(p + OOB_HDR_BYTES, nack, sizeof nack) == 0)
		return LAUNCH_ORTE_OOB;
	return LAUNCH_NO;
}

/* PMIx ptl/tcp client hello: eight 0xff, an 8-byte length, "native" */
static enum launch_kind
pmix(const uint8_t *p, size_t n)
{
	static const uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const char native[] = "native";
	size_t k = n < 8 ? n : 8;

	if (n == 0 || memcmp(p, ff, k) != 0)
		return LAUNCH_NO;
	if (n < 22)
		return LAUNCH_MORE;
	return memcmp(p + 16, native, 6) == 0 ? LAUNCH_PMIX : LAUNCH_NO;
}

/* Hydra HYD_pmcd_hdr: int cmd, buflen, pid, pmi_version, pgid, proxy_id, rank, signum (host
 * order). The wire was not verified, so all eight fields must be plausible. */
static enum launch_kind
hydra(const uint8_t *p, size_t n)
{
	struct rd r = rd_make(p, n);
	int32_t cmd, buflen, pid, ver, pgid, proxy, rank, sig;

	if (n < 32)
		return LAUNCH_NO;
	cmd = (int32_t)rd_le32(&r);
	buflen = (int32_t)rd_le32(&r);
	pid = (int32_t)rd_le32(&r);
	ver = (int32_t)rd_le32(&r);
	pgid = (int32_t)rd_le32(&r);
	proxy = (int32_t)rd_le32(&r);
	rank = (int32_t)rd_le32(&r);
	sig = (int32_t)rd_le32(&r);
	if (r.err)
		return LAUNCH_NO;
	if (cmd < 0 || cmd > 32 || buflen < 0 || buflen > (1 << 20) || pid < -1 ||
	    pid > (1 << 22) || ver < 1 || ver > 2 || pgid < -1 || pgid > 65535 ||
	    proxy < -1 || proxy > 65535 || rank < -1 || sig < 0 || sig > 64)
		return LAUNCH_NO;
	return LAUNCH_HYDRA;
}

enum launch_kind
launch_detect(const uint8_t *const p[2], const size_t n[2])
{
	enum launch_kind best = LAUNCH_NO;
	int d;

	for (d = 0; d < 2; d++) {
		enum launch_kind k[3];
		int i;

		k[0] = oob(p[d], n[d]);
		k[1] = pmix(p[d], n[d]);
		k[2] = hydra(p[d], n[d]);
		for (i = 0; i < 3; i++) {
			if (k[i] > LAUNCH_MORE)
				return k[i];
			if (k[i] == LAUNCH_MORE)
				best = LAUNCH_MORE;
		}
	}
	return best;
}

const char *
launch_kind_name(enum launch_kind k)
{
	switch (k) {
	case LAUNCH_NO: return "none";
	case LAUNCH_MORE: return "undecided";
	case LAUNCH_ORTE_OOB: return "orte-oob";
	case LAUNCH_PMIX: return "pmix";
	case LAUNCH_HYDRA: return "hydra";
	}
	return "?";
}
