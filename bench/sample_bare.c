/* sample_bare: the least a 20 ms /proc sampler can do, as a bound for collect's sampling
 * cost (bench/collect_bound.sh, variant "bare"): start APP as a child, then every interval
 * on an absolute schedule read what contend collect reads per sample (the thread list, each
 * thread's stat and schedstat, its status every 10th sample as collect does, /proc/loadavg
 * and /proc/stat) and keep nothing:
 * no parsing beyond a checksum, no writing, no socket map, no capture. Exits with APP's
 * status. With -c FILE it appends its own CPU time ("cpu_ms N") to FILE at the end.
 * Usage: sample_bare [-i MS] [-c FILE] -- APP [ARGS...] */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long sum;	/* so that the reads are not optimised away */

static void
read_file(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf);
	if (n > 0)
		sum += (unsigned char)buf[n / 2];
	close(fd);
}

static unsigned long nsample;	/* samples taken */

static void
sample(pid_t pid)
{
	char path[320];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/stat", (long)pid, de->d_name);
		read_file(path);
		snprintf(path, sizeof path, "/proc/%ld/task/%s/schedstat", (long)pid, de->d_name);
		read_file(path);
		if (nsample % 10 == 0) {
			snprintf(path, sizeof path, "/proc/%ld/task/%s/status", (long)pid, de->d_name);
			read_file(path);
		}
	}
	closedir(d);
	nsample++;
	read_file("/proc/loadavg");
	read_file("/proc/stat");
}

int
main(int argc, char **argv)
{
	long ms = 20;
	const char *cpu_file = NULL;
	int i = 1, st = 0;
	pid_t pid;
	struct timespec next;

	for (;;) {
		if (i + 1 < argc && strcmp(argv[i], "-i") == 0)
			ms = strtol(argv[i + 1], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "-c") == 0)
			cpu_file = argv[i + 1];
		else
			break;
		i += 2;
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i >= argc || ms <= 0) {
		fprintf(stderr, "usage: sample_bare [-i MS] [-c FILE] -- APP [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("sample_bare: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		sample(pid);
		next.tv_nsec += ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	if (cpu_file != NULL) {
		struct rusage ru;
		FILE *f = fopen(cpu_file, "a");

		if (f != NULL && getrusage(RUSAGE_SELF, &ru) == 0)
			fprintf(f, "cpu_ms %.1f\n", (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
		if (f != NULL)
			fclose(f);
	}
	if (sum == 1)	/* never: keeps sum alive */
		fputc('\n', stderr);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
