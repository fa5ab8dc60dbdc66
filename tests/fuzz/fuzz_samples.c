/* fuzz_samples: the CPU sample reader (parse/phases.h) over arbitrary bytes, checking the
 * invariants of what it builds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/err.h"
#include "parse/phases.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = { { 0 }, 0 };
	struct rank_cpu rc;
	char path[64];
	int fd = memfd_create("rank-0.tsv", MFD_CLOEXEC);
	struct phases_opts o;

	if (fd < 0 || size < 1)
		goto out;
	/* The first byte picks the threshold, from 1/128 to 1, and whether system time counts. */
	o.busy_threshold = ((data[0] >> 1) + 1) / 128.0;
	o.count_system = data[0] & 1;
	o.min_mono_ns = o.max_mono_ns = 0;	/* no run window (fuzz_run gives one) */
	data++, size--;
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (phases_from_samples_opt(path, &o, &rc, &e) == 0) {
		size_t busy = 0, idle = 0;

		if (rc.nphases != rc.n_busy + rc.n_idle || rc.run_ns < 0 || rc.wait_ns < 0 ||
		    rc.elapsed_ns < 0 || rc.busy_ns < 0 || rc.idle_ns < 0 ||
		    (rc.samples > 0 && rc.intervals != rc.samples - 1))
			__builtin_trap();
		for (size_t i = 0; i < rc.nphases; i++) {
			const struct phase *p = &rc.phases[i];

			if (p->busy)
				busy++;
			else
				idle++;
			if (i > 0 && p->busy == rc.phases[i - 1].busy)
				__builtin_trap();	/* neighbours always differ */
			if (i > 0 && p->t_start_ns != rc.phases[i - 1].t_end_ns)
				__builtin_trap();	/* no gaps between phases */
			if (p->run_ns < 0 || p->wait_ns < 0)
				__builtin_trap();
		}
		if (busy != rc.n_busy || idle != rc.n_idle)
			__builtin_trap();
	}
	rank_cpu_release(&rc);
out:
	if (fd >= 0)
		close(fd);
	return 0;
}
