/*
 * proc: children with pipes, each in a process group of its own.
 *
 * proc_spawn starts argv with its standard input, output and error each
 * a pipe to us, /dev/null, or ours, as the flags say; the child gets
 * those three fds and no other, and leads a new process group, so that
 * proc_kill reaches everything it started.  The ends we keep are
 * non-blocking and close-on-exec.  The caller reads and writes them,
 * then proc_reap or proc_wait collects the status.
 *
 * proc_exit_code turns a wait status into an exit code: killed by
 * signal n gives 128 + n, and an exit code passes through unchanged,
 * 128 and above included, since the stages' own 130, 141 and 143 say
 * how they ended (DESIGN.md section 7).  Unlike execline, which makes
 * any exit of 128 or more 128, a stage that exits 130 and one killed by
 * SIGINT give the same code: both were interrupted.
 *
 * Errors: proc_spawn returns -1 with e filled (the exec failing is seen
 * as the child's exit 127).  Nothing here exits or prints.
 */
#ifndef PI_PROC_H
#define PI_PROC_H

#include <sys/types.h>

struct pi_error;

enum {
	PROC_IN = 1,		/* a pipe to the child's stdin */
	PROC_OUT = 2,		/* a pipe from its stdout */
	PROC_ERR = 4,		/* a pipe from its stderr */
	PROC_NULL_IN = 8,	/* its stdin is /dev/null */
	PROC_NULL_ERR = 16,	/* its stderr is /dev/null */
	PROC_DIE_WITH_US = 32	/* killed when we die, even by SIGKILL */
};

struct proc {
	pid_t pid;		/* 0: none; also the process group */
	int in, out, err;	/* our ends, or -1 */
	int status;		/* the wait status, once reaped */
	int reaped;
};

void proc_init(struct proc *p);
int proc_spawn(struct proc *p, char *const argv[], int flags,
    struct pi_error *e);
/* Signal the child's whole process group; no-op once reaped. */
void proc_kill(struct proc *p, int sig);
/* Reap without waiting: 1 when it has ended (status set), else 0. */
int proc_reap(struct proc *p);
/* Wait for the end: the exit code (see above). */
int proc_wait(struct proc *p);
int proc_exit_code(int status);
/* Close our ends (the child sees EOF on stdin). */
void proc_close_in(struct proc *p);
void proc_close(struct proc *p);

/* pipe2 with O_CLOEXEC | O_NONBLOCK on both ends: 0 or -1. */
int proc_pipe(int fd[2]);
/* Make fd non-blocking: 0 or -1. */
int proc_nonblock(int fd);

#endif
