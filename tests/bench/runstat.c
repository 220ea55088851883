/*
 * runstat: run a command N times from a small process and print, as one
 * JSON line, the median wall time and peak RSS of the runs.  A child
 * forked from a big process (python) carries that process's resident
 * pages into ru_maxrss until exec, so the figures must come from here.
 *
 * usage: runstat N command [arg ...]
 */
/* wait4(2) is a BSD call: glibc declares it only with _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	double *wall, *rss;
	int i, n, status;
	pid_t pid;

	if (argc < 3 || (n = (int)strtol(argv[1], NULL, 10)) < 1) {
		fputs("usage: runstat N command [arg ...]\n", stderr);
		return 2;
	}
	wall = calloc((size_t)n, sizeof(*wall));
	rss = calloc((size_t)n, sizeof(*rss));
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if ((pid = fork()) == 0) {
			/* The figures, not the output, are the point. */
			int fd = open("/dev/null", O_WRONLY);

			if (fd != -1)
				dup2(fd, 1);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid == -1 || wait4(pid, &status, 0, &ru) == -1)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "runstat: %s failed\n", argv[2]);
			return 1;
		}
		wall[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		rss[i] = (double)ru.ru_maxrss / 1024;
	}
	qsort(wall, (size_t)n, sizeof(*wall), cmp);
	qsort(rss, (size_t)n, sizeof(*rss), cmp);
	printf("{\"runs\":%d,\"wallMsMedian\":%.3f,\"wallMsP90\":%.3f,"
	    "\"rssMbMedian\":%.2f,\"rssMbMax\":%.2f}\n", n, wall[n / 2],
	    wall[n * 9 / 10], rss[n / 2], rss[n - 1]);
	free(wall);
	free(rss);
	return 0;
}
