/* fuzz_meta: the rank meta reader and its checks (parse/rankmap.h) over arbitrary bytes as
 * meta/rank-1.tsv of a run of 4 ranks, checking that what it keeps passed the checks. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/err.h"
#include "parse/rankmap.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_rundir.h"

static const char run_tsv[] = "# contend-meta 1\nkey\tvalue\nnranks\t4\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rankmap *m;
	struct err e = { { 0 }, 0 };
	const char *const *msgs;
	int64_t t0, t1;
	const char *how, *sig;	/* rankmap_how_ended's */

	if (fuzz_put("meta/run.tsv", run_tsv, sizeof run_tsv - 1) < 0 ||
	    fuzz_put("meta/rank-1.tsv", data, size) < 0)
		return 0;
	m = rankmap_new();
	(void)rankmap_load_run(m, fuzz_rundir(), &e);
	if (rankmap_nranks(m) != 4 || rankmap_max_rank(m) > 3)
		__builtin_trap();	/* a rank outside [0, nranks) was kept */
	for (int32_t r = -1; r <= 5; r++) {
		double cap = rankmap_cpu_capacity(m, r);

		if (!isfinite(cap) || cap < 0 || cap > 4096)
			__builtin_trap();
		if (r != 1 && (cap != 0 || rankmap_host(m, r) != NULL))
			__builtin_trap();	/* rank-1.tsv can only give rank 1 */
		if (rankmap_run_window(m, r, &t0, &t1) == 0 && (t0 > t1 || t1 <= 0))
			__builtin_trap();
		how = rankmap_how_ended(m, r, &sig);
		if ((how != NULL && strcmp(how, "running") != 0 && strcmp(how, "exited") != 0 &&
		     strcmp(how, "signaled") != 0 && strcmp(how, "not-started") != 0) ||
		    (sig != NULL && (strncmp(sig, "SIG", 3) != 0 || strlen(sig) >= 16)))
			__builtin_trap();	/* only collect's words reach the tail rule and its warning */
	}
	/* ranks 0, 2 and 3 have no file: that is always said */
	if (rankmap_problems(m, &msgs) == 0)
		__builtin_trap();
	rankmap_free(m);
	return 0;
}
