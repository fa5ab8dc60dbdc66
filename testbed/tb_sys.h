/* tb_sys: running iproute2 programs, small file helpers, process identity and entering a workstation. */
#ifndef TESTBED_TB_SYS_H
#define TESTBED_TB_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"

/* Run argv[0] (looked up in PATH, then /usr/sbin and /sbin) with argv, stdin and stdout on
 * /dev/null, and wait for it. Returns 0 when it exits 0; otherwise -E_IO with e naming the
 * command line and holding the first line(s) of its stderr. argv is NULL-terminated. */
int tb_run(const char *const argv[], struct err *e) WUR;

/* Like tb_run but stdout is captured into out (NUL-terminated, cut at outlen - 1 bytes). */
int tb_run_out(const char *const argv[], char *out, size_t outlen, struct err *e) WUR;

/* True when a program of this name can be executed (PATH, /usr/sbin, /sbin). */
bool tb_have_program(const char *name);

/* Write text to an existing or new file (truncating). Returns 0 or -E_IO. */
int tb_write_file(const char *path, const char *text, struct err *e) WUR;

/* Read at most len-1 bytes of a file into buf, NUL-terminated; trailing newlines kept.
 * Returns the number of bytes read or -E_IO. */
long tb_read_file(const char *path, char *buf, size_t len, struct err *e) WUR;

/* True when path exists (any type). */
bool tb_exists(const char *path);

/* The start time of a process in clock ticks since boot (field 22 of /proc/PID/stat).
 * Returns 0 and sets *ticks, or -1 when the process does not exist or the file is odd. */
int tb_proc_start(pid_t pid, uint64_t *ticks);

/* True when pid is alive and started at `ticks` (the same process, not a reused pid). */
bool tb_proc_is(pid_t pid, uint64_t ticks);

/* Stop a process we started: SIGTERM, wait up to grace_ms for it to go, then SIGKILL.
 * Does nothing (returns 0) when pid is gone or its start time is not `ticks`.
 * Returns 1 when a signal was sent, 0 when there was nothing to stop. */
int tb_proc_stop(pid_t pid, uint64_t ticks, int grace_ms);

/* Where `testbed up` binds a workstation's IPC namespace: TB_IPCNS_DIR/<netns>. */
#define TB_IPCNS_DIR "/run/contend-ipcns"

/* Move the calling process into network namespace /run/netns/<netns> (setns CLONE_NEWNET),
 * into the IPC namespace TB_IPCNS_DIR/<netns> when there is one, into a new UTS namespace
 * whose host name is <netns>, and into each cgroup directory of cgroup_dirs
 * (NULL-terminated, may be NULL) by writing its pid to <dir>/cgroup.procs. Returns 0 or
 * -E_IO / -E_PERM. */
int tb_enter(const char *netns, const char *const cgroup_dirs[], struct err *e) WUR;
/* Move the calling process into each cgroup directory of dirs (NULL-terminated; NULL:
 * none). Returns 0 or negative with e set. */
int tb_join_cgroups(const char *const dirs[], struct err *e) WUR;

/* Path of the running executable (readlink /proc/self/exe) into buf. Returns 0 or -E_IO. */
int tb_self_exe(char *buf, size_t len, struct err *e) WUR;

/* Sleep for ms milliseconds (restarting after signals). */
void tb_sleep_ms(long ms);

/* Monotonic clock in nanoseconds. */

#endif
