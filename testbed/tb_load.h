/* tb_load: competing load inside a workstation: CPU-bound spinners and a duty-cycled bulk TCP transfer. */
#ifndef TESTBED_TB_LOAD_H
#define TESTBED_TB_LOAD_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"

/* Fork a child that enters workstation ws of the instance (its network namespace and its
 * cgroups), starts a new session with stdin/stdout/stderr on /dev/null, and execs argv
 * (argv[0] a path). The parent learns whether entering or exec failed (through a
 * close-on-exec pipe) and returns 0 with *pid and *start_ticks set, or negative with e set. */
int tb_spawn(int instance, int ws, const char *const argv[], pid_t *pid, uint64_t *start_ticks,
	     struct err *e) WUR;

/* The loops the spawned processes run (they return only on an error). */
/* Spin on the CPU forever. */
_Noreturn void tb_load_spin(void);
/* Accept TCP connections on port (all addresses) one at a time and discard what arrives. */
int tb_load_sink(int port, struct err *e) WUR;
/* Connect to addr:port (retrying for 10 s) and send bulk data duty * period_ns of every
 * period_ns, sleeping the rest; reconnect when the connection drops. */
int tb_load_source(const char *addr, int port, double duty, int64_t period_ns, struct err *e) WUR;

#endif
