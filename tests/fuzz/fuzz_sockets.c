/* fuzz_sockets: the socket map reader (parse/rankmap.h) over arbitrary bytes as
 * sockets/rank-0.tsv of a run of 4 ranks: every endpoint it keeps belongs to rank 0. */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/err.h"
#include "parse/rankmap.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_rundir.h"

static const char run_tsv[] = "# contend-meta 1\nkey\tvalue\nnranks\t4\n";
static const char rank0[] = "# contend-meta 1\nkey\tvalue\nrank\t0\nhost\th0\naddrs\t10.0.0.1\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rankmap *m;
	struct err e = { { 0 }, 0 };
	uint8_t a[16] = { 0 };

	if (fuzz_put("meta/run.tsv", run_tsv, sizeof run_tsv - 1) < 0 ||
	    fuzz_put("meta/rank-0.tsv", rank0, sizeof rank0 - 1) < 0 ||
	    fuzz_put("sockets/rank-0.tsv", data, size) < 0)
		return 0;
	m = rankmap_new();
	(void)rankmap_load_run(m, fuzz_rundir(), &e);
	if (rankmap_max_rank(m) > 0)
		__builtin_trap();	/* a row of another rank (or outside the run) was kept */
	/* endpoints the input may name: every answer is rank 0 or unknown */
	for (int port = 0; port < 65536; port += 4099) {
		int32_t r;

		inet_pton(AF_INET, "10.0.0.1", a);
		r = rankmap_lookup(m, AF_INET, a, (uint16_t)port);
		if (r != -1 && r != 0)
			__builtin_trap();
		inet_pton(AF_INET, "127.0.0.1", a);
		r = rankmap_lookup(m, AF_INET, a, (uint16_t)port);
		if (r != -1 && r != 0)
			__builtin_trap();
	}
	rankmap_free(m);
	return 0;
}
