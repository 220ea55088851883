/*
 * pi: the front for people, in the spirit of git's dispatcher.
 *
 *   pi [-n] [-p] [pi-loop option ...] prompt ...
 *       runs  pi-loop -c ... | pi-view  (-n: a new session instead of
 *       continuing this workspace's; -p: pi-loop -p, the answer only);
 *   pi llm|loop|sess|tool|view [arg ...]
 *       runs pi-llm, pi-loop, ... with the arguments.
 *
 * It adds nothing the programs lack: every option but -n goes to
 * pi-loop as it is.  Its exit status is pi-loop's, or pi-view's when the
 * run succeeded but showing it did not.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/util.h"
#include "core/banned.h"

static const char usage_text[] =
    "usage: pi [-hnpV] [pi-loop option ...] prompt ...\n"
    "       pi llm | loop | sess | tool | view [arg ...]\n";

static char dir[PATH_MAX];

static _Noreturn void
usage(void)
{
	fputs(usage_text, stderr);
	exit(PI_EXIT_USAGE);
}

/*
 * pi-loop's short options in one argument, alone or clustered ("-cp"):
 * whether they print something else than events, or choose a session.
 */
static void
short_options(const char *a, int *print, int *session)
{
	for (a++; *a != '\0'; a++) {
		if (strchr("hpV", *a) != NULL)
			*print = 1;
		if (*a == 'c' || *a == 's')
			*session = 1;
		/* The rest of the argument is the option's value. */
		if (strchr("dmstw", *a) != NULL)
			return;
	}
}

/* The program: next to this executable, else on PATH. */
static char *
program(const char *name)
{
	char *p;

	if (*dir != '\0') {
		p = xasprintf("%s/%s", dir, name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return xstrdup(name);
}

static _Noreturn void
run(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "pi: %s: %s\n", argv[0], strerror(errno));
	exit(errno == ENOENT ? 127 : 126);
}

static pid_t loop_pid;

/* A signal sent to pi alone is the run's: pi-loop ends it properly. */
static void
forward(int sig)
{
	if (loop_pid > 0)
		(void)kill(loop_pid, sig);
}

static int
loop_into_view(char **loop)
{
	char *view[] = { program("pi-view"), NULL };
	int fd[2], st, loop_st = 0, view_st = 0, n = 2;
	pid_t lp, vp, w;

	if (pipe(fd) == -1) {
		fprintf(stderr, "pi: pipe: %s\n", strerror(errno));
		return PI_EXIT_FAIL;
	}
	if ((lp = fork()) == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		run(loop);
	}
	if (lp != -1 && (vp = fork()) == 0) {
		/* Ctrl-C stops the run; pi-view shows its end, then EOF. */
		signal(SIGINT, SIG_IGN);
		dup2(fd[0], 0);
		close(fd[0]);
		close(fd[1]);
		run(view);
	}
	close(fd[0]);
	close(fd[1]);
	if (lp == -1 || vp == -1) {
		fprintf(stderr, "pi: fork: %s\n", strerror(errno));
		return PI_EXIT_FAIL;
	}
	/*
	 * Ctrl-C reaches both through the terminal, so pi only waits; a
	 * SIGTERM or SIGHUP sent to pi alone goes on to pi-loop.
	 */
	loop_pid = lp;
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	while (n > 0 && (w = wait(&st)) != -1) {
		if (w == lp)
			loop_st = proc_exit_code(st), n--;
		else if (w == vp)
			view_st = proc_exit_code(st), n--;
	}
	free(view[0]);
	return loop_st != 0 ? loop_st : view_st;
}

int
main(int argc, char **argv)
{
	static const char *const progs[] = { "llm", "loop", "sess", "tool",
	    "view" };
	static char new_flag[] = "--new", continue_flag[] = "-c";
	char **loop, *name, *slash;
	int i, k = 0, nflag = 0, print = 0, session = 0, status;
	ssize_t n;
	size_t j;

	pi_check_fds();
	pi_unblock_signals();
	if ((n = readlink("/proc/self/exe", dir, sizeof(dir) - 1)) > 0) {
		dir[n] = '\0';
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
	} else
		*dir = '\0';
	if (argc < 2)
		usage();
	for (j = 0; j < sizeof(progs) / sizeof(progs[0]); j++)
		if (strcmp(argv[1], progs[j]) == 0) {
			name = xasprintf("pi-%s", progs[j]);
			argv[1] = program(name);
			free(name);
			run(argv + 1);
		}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(usage_text, stdout);
		return fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		puts("pi " PI_VERSION);
		return fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL;
	}
	loop = xcalloc((size_t)argc + 3, sizeof(*loop));
	loop[k++] = program("pi-loop");
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			while (i < argc)
				loop[k++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "-n") == 0) {
			nflag = 1;
			continue;
		}
		/* What is not an event stream does not go to pi-view. */
		if (strcmp(argv[i], "--rpc") == 0 ||
		    strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "--version") == 0)
			print = 1;
		if (strcmp(argv[i], "--new") == 0 ||
		    strcmp(argv[i], "--no-session") == 0)
			session = 1;
		if (argv[i][0] == '-' && argv[i][1] != '-')
			short_options(argv[i], &print, &session);
		loop[k++] = argv[i];
	}
	/* This workspace's session goes on, unless told otherwise. */
	if (nflag || !session) {
		memmove(loop + 2, loop + 1, (size_t)(k - 1) * sizeof(*loop));
		loop[1] = nflag ? new_flag : continue_flag;
		k++;
	}
	loop[k] = NULL;
	if (print)
		run(loop);
	status = loop_into_view(loop);
	free(loop[0]);
	free(loop);
	return status;
}
