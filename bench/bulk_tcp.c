/* bulk_tcp: one TCP bulk transfer, and the CPU time it cost this end (getrusage), for
 * bench/capture_copy_cost.sh.
 *
 *   bulk_tcp recv PORT            accept one connection, read until it closes
 *   bulk_tcp send ADDR PORT BYTES connect, write BYTES in 1 MiB writes, close
 * Prints "ROLE user_s U sys_s S bytes N". */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static void
report(const char *role, long long bytes)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("%s user_s %.3f sys_s %.3f bytes %lld\n", role,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, bytes);
}

int
main(int argc, char **argv)
{
	static char buf[CHUNK];
	struct sockaddr_in a;
	long long done = 0;
	int s, c, one = 1;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	if (argc == 3 && strcmp(argv[1], "recv") == 0) {
		a.sin_port = htons((unsigned short)atoi(argv[2]));
		s = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 1) != 0 ||
		    (c = accept(s, NULL, NULL)) < 0) {
			perror("bulk_tcp recv");
			return 1;
		}
		for (ssize_t n; (n = read(c, buf, sizeof buf)) > 0;)
			done += n;
		report("recv", done);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "send") == 0) {
		long long want = atoll(argv[4]);

		a.sin_port = htons((unsigned short)atoi(argv[3]));
		if (inet_pton(AF_INET, argv[2], &a.sin_addr) != 1) {
			fprintf(stderr, "bulk_tcp: bad address '%s'\n", argv[2]);
			return 2;
		}
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
			perror("bulk_tcp send");
			return 1;
		}
		while (done < want) {
			ssize_t n = write(s, buf, sizeof buf);

			if (n <= 0) {
				perror("bulk_tcp write");
				return 1;
			}
			done += n;
		}
		close(s);
		report("send", done);
		return 0;
	}
	fprintf(stderr, "usage: bulk_tcp recv PORT | bulk_tcp send ADDR PORT BYTES\n");
	return 2;
}
