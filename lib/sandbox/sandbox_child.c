/*
 * sandbox_child: the two processes inside the sandbox (see sandbox.h).
 * Process 1 of the new pid namespace builds the view and reaps; the
 * command process confines itself and runs the job.  Both leave with
 * _exit: atexit handlers (LeakSanitizer among them) belong to the
 * supervisor, and the seccomp filter forbids what LeakSanitizer does.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine.h"
#include "mountview.h"
#include "core/util.h"
#include "core/banned.h"

extern char **environ;

void
sandbox_report(int fd, int kind, int status, const char *layer,
    const char *msg)
{
	struct sandbox_report r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.status = status;
	snprintf(r.layer, sizeof(r.layer), "%s", layer ? layer : "");
	snprintf(r.msg, sizeof(r.msg), "%s", msg ? msg : "");
	/* One write under PIPE_BUF is atomic: the two writers never mix. */
	(void)!write(fd, &r, sizeof(r));
}

static _Noreturn void
fatal(struct sandbox_child *c, const struct pi_error *e)
{
	sandbox_report(c->report, REPORT_FATAL, 0, e->code, e->msg);
	_exit(127);
}

static void
degraded(void *arg, int fd, const struct pi_error *e)
{
	(void)arg;
	sandbox_report(fd, REPORT_DEGRADED, 0, e->code, e->msg);
}

/* A layer failed: the end, unless the caller accepts less. */
static void
layer_failed(struct sandbox_child *c, const struct pi_error *e)
{
	if (!c->p->allow_degraded)
		fatal(c, e);
	degraded(c, c->report, e);
}

/*
 * This process is a copy of pi-tool, whose environment may hold API
 * keys: /proc/self/environ shows the block the kernel put them in, and
 * a built-in tool asked to read that file runs right here.  Zero the
 * block (its bounds are fields 50 and 51 of /proc/self/stat); the job
 * gets its own environment, built from an allowlist.
 */
void
sandbox_child_scrub(void)
{
	char stat[4096], *p;
	unsigned long start = 0, end = 0;
	ssize_t n;
	int fd, field;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if ((fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)) == -1)
		_exit(126);
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0 || (p = strrchr((stat[n] = '\0', stat), ')')) == NULL)
		_exit(126);
	/* Field 2 is "(comm)", which may hold spaces: count after it. */
	for (field = 2; *p != '\0' && field < 51; p++)
		if (*p == ' ' && ++field == 50)
			start = strtoul(p + 1, NULL, 10);
	if (field == 51)
		end = strtoul(p, NULL, 10);
	if (start == 0 || end <= start)
		_exit(126);
	memset((void *)start, 0, end - start);
	environ = NULL;
}

static void
reset_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE,
	    SIGCHLD };
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* stdin for an argv job: the input in a sealed memory file. */
static int
input_fd(const struct sandbox_job *job)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	if (job->input == NULL)
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	if ((fd = memfd_create("input", MFD_CLOEXEC)) == -1)
		return -1;
	while (off < job->input_len) {
		n = write(fd, job->input + off, job->input_len - off);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

_Noreturn void
sandbox_child_command(struct sandbox_child *c)
{
	const struct sandbox_job *job = c->job;
	struct confine cf;
	struct pi_error e;
	struct rlimit rl;
	int in, status;

	reset_signals();
	if ((in = input_fd(job)) == -1) {
		pi_err(&e, PI_EXIT_SANDBOX, "fds", "stdin: %s",
		    strerror(errno));
		fatal(c, &e);
	}
	memset(&cf, 0, sizeof(cf));
	cf.in = in;
	cf.out = c->out;
	cf.err = c->err;
	cf.keep = c->report;
	cf.dir = c->p->workspace;
	cf.cpu_seconds = c->p->timeout_ms / 1000 + 5;
	/* RLIMIT_NPROC counts per real uid, and never for uid 0. */
	if (!c->sb->cg.has_pids && getuid() != 0)
		cf.nproc = c->p->pids_max;
	cf.landlock_abi = c->sb->landlock_abi;
	cf.read_roots = strv_list(&c->read_roots);
	cf.write_roots = strv_list(&c->write_roots);
	cf.devices = strv_list(&c->devices);
	cf.deny_network = !c->p->network;
	cf.degradable = c->p->allow_degraded;
	cf.degraded = degraded;
	cf.arg = c;
	if (confine_self(&cf, &c->report, &e) == -1)
		fatal(c, &e);
	sandbox_report(c->report, REPORT_READY, 0, NULL, NULL);
	if (job->fn != NULL) {
		close(c->report);
		environ = c->sb->env.v;
		status = job->fn(job->arg);
		_exit(status);
	}
	/*
	 * Without a memory cgroup, the address space is capped instead, at
	 * the last moment: our own code (and a sanitizer's) needs none.
	 */
	rl.rlim_cur = rl.rlim_max = (rlim_t)c->p->memory_max;
	if (!c->sb->cg.has_memory && setrlimit(RLIMIT_AS, &rl) == -1) {
		pi_err(&e, PI_EXIT_SANDBOX, "memory", "RLIMIT_AS: %s",
		    strerror(errno));
		fatal(c, &e);
	}
	execve(job->argv[0], job->argv, c->sb->env.v);
	/* Still confined: the supervisor reads 127 plus this line. */
	dprintf(2, "%s: %s\n", job->argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static volatile sig_atomic_t command_pid;

/* A stop asked of process 1 is passed on to the command's group. */
static void
forward(int sig)
{
	if (command_pid > 0)
		kill(-command_pid, sig);
}

static int
write_map(const char *file, const char *map)
{
	size_t n = strlen(map);
	int fd, rc = -1;

	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	if (write(fd, map, n) == (ssize_t)n)
		rc = 0;
	close(fd);
	return rc;
}

/* In a new user namespace: be the same uid and gid as outside. */
static int
map_ids(uid_t uid, gid_t gid, struct pi_error *e)
{
	char map[64];

	snprintf(map, sizeof(map), "%lu %lu 1", (unsigned long)uid,
	    (unsigned long)uid);
	if (write_map("/proc/self/setgroups", "deny") == -1 ||
	    write_map("/proc/self/uid_map", map) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "user", "user: uid_map: %s",
		    strerror(errno));
	snprintf(map, sizeof(map), "%lu %lu 1", (unsigned long)gid,
	    (unsigned long)gid);
	if (write_map("/proc/self/gid_map", map) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "user", "user: gid_map: %s",
		    strerror(errno));
	return 0;
}

/* The supervisor gone before PR_SET_PDEATHSIG took: leave now. */
static void
check_life(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };

	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLIN)))
		_exit(1);
}

_Noreturn void
sandbox_child_init(struct sandbox_child *c)
{
	struct mountview v;
	struct sigaction sa;
	struct pi_error e;
	pid_t pid;
	int status = 0;
	char joined = 0;

	reset_signals();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		_exit(1);
	check_life(c->life);
	/* Still one thread: the cheap move (cgroup.h). */
	if (c->joined == -1 && cgroup_join(&c->sb->cg) == -1) {
		pi_err(&e, PI_EXIT_SANDBOX, "cgroup", "cgroup: cannot join: %s",
		    strerror(errno));
		fatal(c, &e);
	}
	/* While still dumpable: its /proc files are ours to write only so. */
	if (c->sb->userns && map_ids(c->uid, c->gid, &e) == -1)
		layer_failed(c, &e);
	sandbox_child_scrub();
	prctl(PR_SET_NAME, "pi-sandbox", 0, 0, 0);
	memset(&v, 0, sizeof(v));
	v.workspace = c->p->workspace;
	v.tmpdir = c->sb->tmpdir;
	v.writable = strv_list(&c->p->allow_write);
	v.readable = strv_list(&c->p->allow_read);
	v.masks = strv_list(&c->p->masks);
	v.git_pins = strv_list(&c->sb->guard.pins);
	v.git_ro = strv_list(&c->sb->guard.ro);
	if (mountview_build(&v, &e) == -1)
		layer_failed(c, &e);
	/* Nothing is forked before the supervisor has put us in the cgroup. */
	if (c->joined != -1 && (read(c->joined, &joined, 1) != 1 ||
	    joined != '1')) {
		pi_err(&e, PI_EXIT_SANDBOX, "cgroup", "cgroup: cannot join");
		fatal(c, &e);
	}
	if ((pid = fork()) == -1) {
		pi_err(&e, PI_EXIT_SANDBOX, "pid", "fork: %s",
		    strerror(errno));
		fatal(c, &e);
	}
	if (pid == 0)
		sandbox_child_command(c);
	command_pid = pid;
	/* Keep only the report pipe: nothing else is process 1's business. */
	if ((c->report != 3 && dup3(c->report, 3, O_CLOEXEC) == -1) ||
	    syscall(SYS_close_range, 4u, ~0u, 0) == -1)
		_exit(1);
	c->report = 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Process 1 runs nothing of the model's, but keeps no power either. */
	if (confine_privileges(!c->p->network, &e) == -1 &&
	    !c->p->allow_degraded) {
		kill(-pid, SIGKILL);
		fatal(c, &e);
	}
	/* Reap everything; the command's end is ours. */
	for (;;) {
		pid_t w = waitpid(-1, &status, 0);

		if (w == pid)
			break;
		if (w == -1 && errno != EINTR)
			_exit(1);
	}
	sandbox_report(c->report, REPORT_EXIT, status, NULL, NULL);
	_exit(0);
}
