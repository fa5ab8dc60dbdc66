/* fuzz_dec: the driver shared by the stream-decoder fuzz targets (fuzz_ompi, fuzz_mpich).
 *
 * Input: byte 0 holds options (bit 0: the connection start was seen; bit 1: send the
 * target's valid connection preamble on both directions first; bit 2: sockmap ranks known);
 * then a list of pieces, each a control byte c and its bytes: c == 0xff is a gap of the next
 * byte's value times 97 bytes in direction 0; else dir = c & 1 and (c >> 1) + 1 bytes follow. */
#ifndef TESTS_FUZZ_DEC_H
#define TESTS_FUZZ_DEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse/msg.h"

static void
fuzz_dec_emit(void *ctx, const struct msg *m)
{
	uint64_t *n = ctx;

	/* touch every field so the sanitizers see uninitialised or bad values */
	*n += (uint64_t)m->bytes + m->wire_bytes + (uint64_t)m->tag + (uint64_t)m->cid +
	      (uint64_t)m->comm_src + (uint64_t)m->src_world + (uint64_t)m->dst_world +
	      (uint64_t)m->t_first_ns + (uint64_t)m->t_last_ns + m->flags + m->proto + m->ranksrc;
	(void)msg_tag_name_cid(m->mpi, m->cid, m->tag);
}

/* Run one input through decoder d; pre[dir] (len[dir] bytes) is its connection preamble. */
static int
fuzz_dec_run(const struct decoder *d, const uint8_t *const pre[2], const size_t len[2],
	     const uint8_t *data, size_t size)
{
	uint64_t count = 0;
	struct msg_sink sink = { fuzz_dec_emit, &count };
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
	(void)d->detect(data, size, 0);
	s = d->open(&ci, &sink, &st);
	if (data[0] & 2) {
		d->data(s, 0, pre[0], len[0], t_ns);
		d->data(s, 1, pre[1], len[1], t_ns);
	}
	while (i < size) {
		uint8_t c = data[i++];
		size_t n;

		t_ns += 1000;
		if (c == 0xff) {
			if (i < size)
				d->gap(s, 0, (uint64_t)data[i++] * 97, t_ns);
			continue;
		}
		n = (size_t)(c >> 1) + 1;
		if (n > size - i)
			n = size - i;
		d->data(s, c & 1, data + i, n, t_ns);
		i += n;
	}
	d->ranks(s, ranks);
	d->close(s, t_ns);
	return 0;
}

#endif
