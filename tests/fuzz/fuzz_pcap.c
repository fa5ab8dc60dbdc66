/* fuzz_pcap: a whole capture file through pcapin, pkt, flows, tcpr and the decoders. */
#include <stddef.h>
#include <stdint.h>

#include "parse/flows.h"
#include "parse/pcapin.h"


#include "tests/fuzz/fuzz.h"

static void
on_msg(void *ctx, const struct msg *m)
{
	uint64_t *n = ctx;

	/* touch every field so the sanitizers see uninitialised ones */
	*n += (uint64_t)m->t_first_ns + (uint64_t)m->t_last_ns + (uint64_t)m->src_world +
	      (uint64_t)m->dst_world + m->bytes + m->wire_bytes + (uint64_t)m->tag + m->flags;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum flows_mpi modes[] = { FLOWS_MPI_AUTO, FLOWS_MPI_GENERIC };
	struct flows_config cfg = { 0 };
	struct flows_cb cb = { 0 };
	uint64_t sum = 0;
	size_t m;

	cb.msg = on_msg;
	cb.ctx = &sum;
	cfg.max_conns = 64;
	cfg.max_buf_bytes = 65536;
	cfg.max_segs = 64;
	for (m = 0; m < 2; m++) {
		struct err e;
		struct pcapin *in = pcapin_open_mem(data, size, &e);
		struct pcapin_pkt pk;
		struct flows *f;

		if (in == NULL)
			return 0;
		cfg.mpi = modes[m];
		f = flows_new(&cfg, &cb);
		while (pcapin_next(in, &pk, &e) == 1)
			flows_frame(f, pk.linktype, pk.data, pk.caplen, pk.origlen, pk.t_ns);
		flows_end_capture(f);
		flows_free(f);
		pcapin_close(in);
	}
	return 0;
}
