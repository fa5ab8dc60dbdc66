/* tb_load: competing load inside a workstation: CPU-bound spinners and a duty-cycled bulk TCP transfer. */
#include "testbed/tb_load.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "testbed/tb_cpu.h"
#include "testbed/tb_state.h"
#include "testbed/tb_sys.h"

#define CHUNK_BYTES 65536	/* bytes per write/read of the bulk transfer */

int
tb_spawn(int instance, int ws, const char *const argv[], pid_t *pid, uint64_t *start_ticks,
	 struct err *e)
{
	char ns[32];
	char bufs[2][256];
	const char *dirs[3];
	int p[2];
	pid_t child;
	char msg[ERR_MSG_MAX];
	ssize_t n;

	tb_name_ws(instance, ws, ns, sizeof ns);
	tb_cpu_dirs(instance, ws, bufs, dirs);
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_sys(e, E_IO, "cannot create a pipe");
	child = fork();
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return err_sys(e, E_IO, "cannot fork");
	}
	if (child == 0) {
		struct err ce = { .code = 0 };
		int null;

		close(p[0]);
		if (tb_enter(ns, dirs, &ce) < 0) {
			(void)!write(p[1], ce.msg, strlen(ce.msg));
			_exit(1);
		}
		setsid();
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > 2)
				close(null);
		}
		execv(argv[0], (char *const *)argv);
		dprintf(p[1], "cannot run '%s': %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	do
		n = read(p[0], msg, sizeof msg - 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n > 0) {
		msg[n] = '\0';
		waitpid(child, NULL, 0);
		return err_set(e, E_IO, "starting '%s' in '%s': %s", argv[0], ns, msg);
	}
	*pid = child;
	if (tb_proc_start(child, start_ticks) < 0)
		return err_set(e, E_IO, "'%s' in '%s' ended at once", argv[0], ns);
	return 0;
}

_Noreturn void
tb_load_spin(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}

int
tb_load_sink(int port, struct err *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr = { htonl(INADDR_ANY) } };
	static char buf[CHUNK_BYTES];
	int one = 1;
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (ls < 0)
		return err_sys(e, E_IO, "cannot create a socket");
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 4) < 0) {
		int r = err_sys(e, E_IO, "cannot listen on port %d", port);

		close(ls);
		return r;
	}
	for (;;) {
		int s = accept4(ls, NULL, NULL, SOCK_CLOEXEC);

		if (s < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return err_sys(e, E_IO, "cannot accept on port %d", port);
		}
		while (read(s, buf, sizeof buf) > 0)
			;
		close(s);
	}
}

/* Connect to addr:port, retrying for up to 10 s. Returns the socket or negative. */
static int
connect_retry(const struct sockaddr_in *sa, struct err *e)
{
	int64_t until = clock_mono_ns() + 10 * NS_PER_S;

	for (;;) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s < 0)
			return err_sys(e, E_IO, "cannot create a socket");
		if (connect(s, (const struct sockaddr *)sa, sizeof *sa) == 0)
			return s;
		close(s);
		if (clock_mono_ns() > until)
			return err_sys(e, E_IO, "cannot connect to port %d", ntohs(sa->sin_port));
		tb_sleep_ms(100);
	}
}

int
tb_load_source(const char *addr, int port, double duty, int64_t period_ns, struct err *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static char buf[CHUNK_BYTES];
	int64_t on_ns = (int64_t)(duty * (double)period_ns);
	int s;

	signal(SIGPIPE, SIG_IGN);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return err_set(e, E_USAGE, "'%s' is not an IPv4 address", addr);
	s = connect_retry(&sa, e);
	if (s < 0)
		return s;
	for (;;) {
		int64_t start = clock_mono_ns();

		while (clock_mono_ns() - start < on_ns) {
			int64_t left_ns = on_ns - (clock_mono_ns() - start);
			struct timeval tv = { (time_t)(left_ns / NS_PER_S),
					      (suseconds_t)(left_ns % NS_PER_S / NS_PER_US) };

			/* a capped link blocks the write: never block past the on phase */
			if (tv.tv_sec == 0 && tv.tv_usec == 0)
				tv.tv_usec = 1000;
			setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
			if (write(s, buf, sizeof buf) < 0 && errno != EAGAIN && errno != EINTR) {
				close(s);
				s = connect_retry(&sa, e);
				if (s < 0)
					return s;
			}
		}
		if (period_ns > on_ns) {
			int64_t off_ns = period_ns - (clock_mono_ns() - start);

			if (off_ns > 0)
				tb_sleep_ms((long)(off_ns / 1000000));
		}
	}
}
