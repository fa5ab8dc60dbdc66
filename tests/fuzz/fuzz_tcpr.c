/* fuzz_tcpr: segment sequences through one reassembled direction, checking its invariants:
 * the bytes and gaps delivered add up to the stream offset, in order, and the caps hold. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rd.h"
#include "parse/tcpr.h"

#include "tests/fuzz/fuzz.h"

struct sinkst {
	uint64_t delivered;	/* data + gap bytes */
	int64_t last_t;
};

static void
on_data(void *ctx, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct sinkst *s = ctx;
	volatile uint8_t x = 0;
	size_t i;

	for (i = 0; i < n; i++)
		x ^= p[i];	/* every delivered byte must be readable */
	(void)x;
	(void)t_ns;
	if (n == 0)
		abort();
	s->delivered += n;
}

static void
on_gap(void *ctx, uint64_t n, int64_t t_ns)
{
	struct sinkst *s = ctx;

	(void)t_ns;
	if (n == 0)
		abort();
	s->delivered += n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = rd_make(data, size);
	struct tcpr_dir d;
	struct tcpr_stats st;
	struct sinkst s = { 0, 0 };
	struct tcpr_out out = { on_data, on_gap, NULL, &s };
	uint32_t base = rd_be32(&r);	/* the first sequence number: exercises the wrap */
	int64_t t = 0;

	memset(&st, 0, sizeof st);
	tcpr_dir_init(&d, 4096, 16);
	while (!r.err && rd_left(&r) >= 5) {
		uint8_t flags = rd_u8(&r);
		int16_t delta = (int16_t)rd_be16(&r);	/* seq relative to the base */
		uint8_t caplen = rd_u8(&r);
		uint8_t cut = rd_u8(&r);	/* bytes the "snaplen" removed */
		const uint8_t *p;

		if (rd_left(&r) < caplen)
			caplen = (uint8_t)rd_left(&r);
		p = rd_ptr(&r, caplen);
		tcpr_dir_segment(&d, base + (uint32_t)(int32_t)delta * 16, flags & 0x1f, p, caplen,
				 (size_t)caplen + (cut & 0x7f), t++, &out, &st);
		if (s.delivered != d.next || d.held_bytes > 4096 + 256 || d.held_segs > 16)
			abort();
	}
	tcpr_dir_flush(&d, t, &out, &st);
	if (s.delivered != d.next || d.head != NULL)
		abort();
	tcpr_dir_release(&d);
	return 0;
}
