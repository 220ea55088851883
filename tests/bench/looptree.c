/*
 * looptree: run a command N times and measure its whole process tree;
 * print one JSON line.  For the agent part of scripts/bench, where one
 * run is many processes (pi-loop and its pi-llm, pi-tool and pi-sess
 * children; node and whatever it spawns).
 *
 * usage: looptree [-s USEC] N command [arg ...]
 *
 * This process makes itself a child subreaper (PR_SET_CHILD_SUBREAPER),
 * so a descendant orphaned by its parent is adopted here, not by init;
 * a run ends when every process of its tree has exited and been reaped.
 *
 * Always measured, exactly:
 *   wall   fork of the command to the reaping of the last process of
 *          its tree.
 *   rss    the peak RSS of the largest single process of the tree: the
 *          largest ru_maxrss that wait4 gives for any process reaped
 *          here.  A process's wait4 figure covers itself and every
 *          descendant its own parent reaped, so the maximum over what
 *          this process reaps (the command and adopted orphans) is the
 *          largest process of the tree.  Not a sum: ru_maxrss is a
 *          maximum.
 *
 * With -s USEC, also sampled: every USEC microseconds, the tree (found
 * through /proc/PID/task/TID/children from this process down) is walked
 * and the resident memory of its live processes summed, as RSS (statm:
 * shared library pages count once per process that maps them) and as
 * PSS (smaps_rollup: shared pages divided among their users, so the sum
 * is what the tree costs the machine).  Reported: the largest sum seen
 * (a peak between two samples can be missed), the number of processes
 * seen, and, for the last run, each process: its name, when it was
 * first and last seen (ms from the fork) and its largest RSS and PSS.
 * Sampling costs CPU; take wall time from runs without -s.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXP 512

struct seen {
	pid_t pid;
	char name[64];
	double first, last;	/* ms from the fork */
	long rss, pss;		/* kB, largest seen */
};

static struct seen procs[MAXP];
static int nprocs;
static long pagekb;

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static ssize_t
slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd == -1)
		return -1;
	while ((size_t)got < size - 1 &&
	    (n = read(fd, buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* The children of every thread of pid, appended to out. */
static int
children(pid_t pid, pid_t *out, int n, int max)
{
	char path[320], buf[4096];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return n;
	while ((d = readdir(dir)) != NULL) {
		char *p, *end;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
		    (int)pid, d->d_name);
		if (slurp(path, buf, sizeof(buf)) <= 0)
			continue;
		for (p = buf; n < max; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			out[n++] = (pid_t)c;
		}
	}
	closedir(dir);
	return n;
}

/* The name of a process: the basename of argv[0], or of argv[1] when
 * argv[0] is an interpreter (node script), else comm. */
static void
name_of(pid_t pid, char *name, size_t size)
{
	char path[64], buf[1024];
	ssize_t n;
	const char *a0, *b;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((n = slurp(path, buf, sizeof(buf))) <= 0) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (slurp(path, buf, sizeof(buf)) <= 0)
			return;
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(name, size, "%.60s", buf);
		return;
	}
	a0 = buf;
	b = strrchr(a0, '/') ? strrchr(a0, '/') + 1 : a0;
	if ((strcmp(b, "node") == 0 || strcmp(b, "python3") == 0 ||
	    strcmp(b, "sh") == 0) && strlen(a0) + 1 < (size_t)n) {
		const char *a1 = a0 + strlen(a0) + 1;
		const char *b1 = strrchr(a1, '/') ? strrchr(a1, '/') + 1 : a1;

		snprintf(name, size, "%.16s %.40s", b, b1);
	} else
		snprintf(name, size, "%.60s", b);
}

static long
field_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

/* One sample: the sums over the live tree. */
static void
sample(double t0, long *rss_sum, long *pss_sum)
{
	pid_t todo[MAXP];
	int n = 0, i;
	char path[64], buf[4096];

	*rss_sum = *pss_sum = 0;
	n = children(getpid(), todo, n, MAXP);
	for (i = 0; i < n; i++) {
		long size, res, rss, pss;
		struct seen *s = NULL;
		int k;

		n = children(todo[i], todo, n, MAXP);
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)todo[i]);
		if (slurp(path, buf, sizeof(buf)) <= 0 ||
		    sscanf(buf, "%ld %ld", &size, &res) != 2)
			continue;
		rss = res * pagekb;
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup",
		    (int)todo[i]);
		pss = slurp(path, buf, sizeof(buf)) > 0 ?
		    field_kb(buf, "\nPss:") : 0;
		if (rss == 0)	/* a zombie */
			continue;
		*rss_sum += rss;
		*pss_sum += pss;
		for (k = 0; k < nprocs; k++)
			if (procs[k].pid == todo[i])
				s = &procs[k];
		if (s == NULL && nprocs < MAXP) {
			s = &procs[nprocs++];
			memset(s, 0, sizeof(*s));
			s->pid = todo[i];
			s->first = now_ms() - t0;
		}
		if (s == NULL)
			continue;
		/* A fork shows its parent's name until it execs. */
		name_of(todo[i], s->name, sizeof(s->name));
		s->last = now_ms() - t0;
		if (rss > s->rss)
			s->rss = rss;
		if (pss > s->pss)
			s->pss = pss;
	}
}

static void
json_str(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	putchar('"');
}

int
main(int argc, char **argv)
{
	double *wall, *rss, *rsum, *psum, *nseen;
	long usec = 0;
	int i, n, status, argi = 1;

	if (argc > 3 && strcmp(argv[1], "-s") == 0) {
		usec = strtol(argv[2], NULL, 10);
		argi = 3;
	}
	if (argc < argi + 2 || (n = (int)strtol(argv[argi], NULL, 10)) < 1 ||
	    (argi == 3 && usec < 1)) {
		fputs("usage: looptree [-s USEC] N command [arg ...]\n", stderr);
		return 2;
	}
	argi++;
	pagekb = sysconf(_SC_PAGESIZE) / 1024;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
		perror("looptree: PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	wall = calloc((size_t)n, sizeof(*wall));
	rss = calloc((size_t)n, sizeof(*rss));
	rsum = calloc((size_t)n, sizeof(*rsum));
	psum = calloc((size_t)n, sizeof(*psum));
	nseen = calloc((size_t)n, sizeof(*nseen));
	for (i = 0; i < n; i++) {
		struct timespec pause = { 0, usec * 1000 };
		struct rusage ru;
		double t0, t1;
		long maxrss = 0, rs, ps, rmax = 0, pmax = 0;
		pid_t pid, w;
		int failed = 0;

		nprocs = 0;
		t0 = now_ms();
		if ((pid = fork()) == 0) {
			/* The figures, not the output, are the point. */
			int fd = open("/dev/null", O_WRONLY);

			if (fd != -1)
				dup2(fd, 1);
			prctl(PR_SET_CHILD_SUBREAPER, 0);
			execvp(argv[argi], argv + argi);
			_exit(127);
		}
		if (pid == -1)
			return 1;
		for (;;) {
			w = wait4(-1, &status, usec ? WNOHANG : 0, &ru);
			if (w == -1 && errno == EINTR)
				continue;
			if (w == -1 && errno == ECHILD)
				break;
			if (w == -1)
				return 1;
			if (w == 0) {
				sample(t0, &rs, &ps);
				if (rs > rmax)
					rmax = rs;
				if (ps > pmax)
					pmax = ps;
				nanosleep(&pause, NULL);
				continue;
			}
			if (ru.ru_maxrss > maxrss)
				maxrss = ru.ru_maxrss;
			if (w == pid && (!WIFEXITED(status) ||
			    WEXITSTATUS(status) != 0))
				failed = 1;
		}
		t1 = now_ms();
		if (failed) {
			fprintf(stderr, "looptree: %s failed\n", argv[argi]);
			return 1;
		}
		wall[i] = t1 - t0;
		rss[i] = (double)maxrss / 1024;
		rsum[i] = (double)rmax / 1024;
		psum[i] = (double)pmax / 1024;
		nseen[i] = nprocs;
	}
	qsort(wall, (size_t)n, sizeof(*wall), cmp);
	qsort(rss, (size_t)n, sizeof(*rss), cmp);
	qsort(rsum, (size_t)n, sizeof(*rsum), cmp);
	qsort(psum, (size_t)n, sizeof(*psum), cmp);
	qsort(nseen, (size_t)n, sizeof(*nseen), cmp);
	printf("{\"runs\":%d,\"wallMsMedian\":%.3f,\"wallMsP90\":%.3f,"
	    "\"rssMbMedian\":%.2f,\"rssMbMax\":%.2f", n, wall[n / 2],
	    wall[n * 9 / 10], rss[n / 2], rss[n - 1]);
	if (usec) {
		printf(",\"sampleUs\":%ld,\"sumRssMbMedian\":%.2f,"
		    "\"sumRssMbMax\":%.2f,\"sumPssMbMedian\":%.2f,"
		    "\"sumPssMbMax\":%.2f,\"procsSeenMedian\":%.0f,"
		    "\"procs\":[", usec, rsum[n / 2], rsum[n - 1],
		    psum[n / 2], psum[n - 1], nseen[n / 2]);
		for (i = 0; i < nprocs; i++) {
			printf("%s{\"name\":", i ? "," : "");
			json_str(procs[i].name);
			printf(",\"firstMs\":%.1f,\"lastMs\":%.1f,"
			    "\"rssMb\":%.2f,\"pssMb\":%.2f}", procs[i].first,
			    procs[i].last, (double)procs[i].rss / 1024,
			    (double)procs[i].pss / 1024);
		}
		putchar(']');
	}
	puts("}");
	free(wall);
	free(rss);
	free(rsum);
	free(psum);
	free(nseen);
	return 0;
}
