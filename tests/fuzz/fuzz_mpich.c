/* fuzz_mpich: libFuzzer target for the MPICH ch4:ucx (UCX TCP) decoder.
 *
 * Input: byte 0 holds options (bit 0: the connection start was seen; bit 1: send a valid
 * connection preamble on both directions first; bit 2: sockmap ranks known); then a list
 * of pieces, each a control byte c and its bytes: c == 0xff is a gap of the next byte's
 * value times 97 bytes in direction 0; else dir = c & 1 and (c >> 1) + 1 bytes follow. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t pre0[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
static const uint8_t pre1[9] = { 32, 4, 0, 0, 0, 3, 0, 0, 0 };

static void
sink_emit(void *ctx, const struct msg *m)
{
	uint64_t *n = ctx;

	/* touch every field so the sanitizers see uninitialised or bad values */
	*n += (uint64_t)m->bytes + m->wire_bytes + (uint64_t)m->tag + (uint64_t)m->cid +
	      (uint64_t)m->comm_src + (uint64_t)m->src_world + (uint64_t)m->dst_world +
	      (uint64_t)m->t_first_ns + (uint64_t)m->t_last_ns + m->flags + m->proto + m->ranksrc;
	(void)msg_tag_name_cid(m->mpi, m->cid, m->tag);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t count = 0;
	struct msg_sink sink = { sink_emit, &count };
	struct dec_stats st;
	struct conn_info ci;
	int32_t ranks[2];
	size_t i = 1;
	int64_t t_ns = 1000;
	void *s;

	if (size < 1)
		return 0;
	memset(&ci, 0, sizeof ci);
	memset(&st, 0, sizeof st);
	ci.saw_syn = data[0] & 1;
	ci.rank[0] = data[0] & 4 ? 3 : -1;
	ci.rank[1] = data[0] & 4 ? 4 : -1;
	(void)dec_mpich.detect(data, size, 0);
	s = dec_mpich.open(&ci, &sink, &st);
	if (data[0] & 2) {
		dec_mpich.data(s, 0, pre0, sizeof pre0, t_ns);
		dec_mpich.data(s, 1, pre1, sizeof pre1, t_ns);
	}
	while (i < size) {
		uint8_t c = data[i++];
		size_t n;

		t_ns += 1000;
		if (c == 0xff) {
			if (i < size)
				dec_mpich.gap(s, 0, (uint64_t)data[i++] * 97, t_ns);
			continue;
		}
		n = (size_t)(c >> 1) + 1;
		if (n > size - i)
			n = size - i;
		dec_mpich.data(s, c & 1, data + i, n, t_ns);
		i += n;
	}
	dec_mpich.ranks(s, ranks);
	dec_mpich.close(s, t_ns);
	return 0;
}
