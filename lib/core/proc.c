/* proc: see proc.h.  Linux: pipe2 and close_range live here. */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "banned.h"

void
proc_init(struct proc *p)
{
	memset(p, 0, sizeof(*p));
	p->in = p->out = p->err = -1;
}

int
proc_pipe(int fd[2])
{
	return pipe2(fd, O_CLOEXEC | O_NONBLOCK);
}

int
proc_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The child's side: only async-signal-safe calls from here on. */
static _Noreturn void
child(char *const argv[], int fd0, int fd1, int fd2, pid_t parent,
    int die_with_us)
{
	int i;
	sigset_t none;

	(void)setpgid(0, 0);
	/* The parent may have died before this: then so do we. */
	if (die_with_us && (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
	    getppid() != parent))
		_exit(127);
	/* Signals we ignore or block would stay so across exec. */
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			(void)signal(i, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	/* Lift them above 2 first, so none is overwritten before use. */
	fd0 = fcntl(fd0, F_DUPFD, 3);
	fd1 = fcntl(fd1, F_DUPFD, 3);
	fd2 = fcntl(fd2, F_DUPFD, 3);
	if (fd0 == -1 || fd1 == -1 || fd2 == -1 || dup2(fd0, 0) == -1 ||
	    dup2(fd1, 1) == -1 || dup2(fd2, 2) == -1)
		_exit(127);
	(void)syscall(SYS_close_range, 3u, ~0u, 0);
	execvp(argv[0], argv);
	_exit(errno == ENOENT ? 127 : 126);
}

int
proc_spawn(struct proc *p, char *const argv[], int flags, struct pi_error *e)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int null = -1, fd0 = 0, fd1 = 1, fd2 = 2, saved;
	pid_t pid, self = getpid();
	sigset_t all, old;

	proc_init(p);
	if (((flags & PROC_IN) && pipe2(in, O_CLOEXEC) == -1) ||
	    ((flags & PROC_OUT) && pipe2(out, O_CLOEXEC) == -1) ||
	    ((flags & PROC_ERR) && pipe2(err, O_CLOEXEC) == -1) ||
	    ((flags & (PROC_NULL_IN | PROC_NULL_ERR)) &&
	    (null = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1))
		goto fail;
	if (flags & PROC_IN)
		fd0 = in[0];
	else if (flags & PROC_NULL_IN)
		fd0 = null;
	if (flags & PROC_OUT)
		fd1 = out[1];
	if (flags & PROC_ERR)
		fd2 = err[1];
	else if (flags & PROC_NULL_ERR)
		fd2 = null;
	/*
	 * The child is born with every signal blocked, so that none runs the
	 * parent's handlers in it before child() sets them back.
	 */
	sigfillset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0)
		child(argv, fd0, fd1, fd2, self,
		    (flags & PROC_DIE_WITH_US) != 0);
	saved = errno;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	if (pid == -1)
		goto fail;
	/* Both sides set the group, so it is there before either acts. */
	(void)setpgid(pid, pid);
	p->pid = pid;
	if (flags & PROC_IN) {
		close(in[0]);
		p->in = in[1];
		(void)proc_nonblock(p->in);
	}
	if (flags & PROC_OUT) {
		close(out[1]);
		p->out = out[0];
		(void)proc_nonblock(p->out);
	}
	if (flags & PROC_ERR) {
		close(err[1]);
		p->err = err[0];
		(void)proc_nonblock(p->err);
	}
	if (null != -1)
		close(null);
	return 0;
fail:
	saved = errno;
	if (in[0] != -1)
		close(in[0]), close(in[1]);
	if (out[0] != -1)
		close(out[0]), close(out[1]);
	if (err[0] != -1)
		close(err[0]), close(err[1]);
	if (null != -1)
		close(null);
	return pi_err(e, PI_EXIT_FAIL, "spawn", "cannot start %s: %s",
	    argv[0], strerror(saved));
}

void
proc_kill(struct proc *p, int sig)
{
	if (p->pid > 0 && !p->reaped)
		(void)kill(-p->pid, sig);
}

int
proc_reap(struct proc *p)
{
	pid_t r;

	if (p->pid <= 0 || p->reaped)
		return 1;
	while ((r = waitpid(p->pid, &p->status, WNOHANG)) == -1 &&
	    errno == EINTR)
		;
	if (r == p->pid || (r == -1 && errno == ECHILD)) {
		p->reaped = 1;
		return 1;
	}
	return 0;
}

int
proc_wait(struct proc *p)
{
	if (p->pid <= 0)
		return 0;
	while (!p->reaped) {
		if (waitpid(p->pid, &p->status, 0) == p->pid)
			p->reaped = 1;
		else if (errno != EINTR) {
			p->reaped = 1;
			p->status = 127 << 8;
		}
	}
	return proc_exit_code(p->status);
}

int
proc_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return PI_EXIT_FAIL;
}

void
proc_close_in(struct proc *p)
{
	if (p->in != -1)
		close(p->in);
	p->in = -1;
}

void
proc_close(struct proc *p)
{
	proc_close_in(p);
	if (p->out != -1)
		close(p->out);
	if (p->err != -1)
		close(p->err);
	p->out = p->err = -1;
}
