/*
 * sandbox: run one job (an argv to exec, or a function of ours) confined,
 * and supervise it (reference/sandbox.md section 5).
 *
 * The calling process is the supervisor and never runs the job.  It
 * makes a private temp directory and, where it can, a cgroup; then a
 * child in new mount, pid, ipc and uts namespaces (and net when the
 * network is off; and user when not root) becomes process 1 of its pid
 * namespace, dies with the supervisor, builds the view of mountview.h,
 * and forks the command process, which confines itself (confine.h) and
 * runs the job.  When the command exits, process 1 exits after it and
 * the kernel kills whatever is left in the namespace.
 *
 * sandbox_start returns once the command is about to run, or with an
 * error (status PI_EXIT_SANDBOX, code naming the layer) when a layer
 * that must hold could not be had.  With allow_degraded, a missing layer
 * is instead listed in the status (sandbox_status) and the job runs.
 * sandbox_run then streams the job's stdout and stderr to a callback
 * until it ends, enforces the deadline, and turns an interrupt (set by
 * the caller's signal handler) into a graceful stop: SIGTERM to the
 * command's process group, then SIGKILL of everything after the grace
 * period.  sandbox_release removes the temp directory and the cgroup.
 *
 * The caller blocks SIGINT, SIGTERM and SIGHUP (their handlers set the
 * interrupt flag); sandbox_run unblocks them only while it waits, so no
 * signal is lost between a check and the wait.
 */
#ifndef PI_SANDBOX_H
#define PI_SANDBOX_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"
#include "gitguard.h"
#include "core/util.h"

struct json_object;
struct pi_error;

struct sandbox_policy {
	const char *workspace;		/* absolute and real */
	struct strv allow_write;	/* absolute and real, existing */
	struct strv allow_read;		/* shown read-only even if hidden */
	struct strv masks;		/* hidden: default and --deny-read */
	int network;
	int allow_degraded;
	int protect_git;		/* gitguard.h, in the writable paths */
	long long timeout_ms;
	long long grace_ms;
	long long memory_max;
	long pids_max;
};

/* What a job runs: argv (argv[0] a path), or fn in the command process. */
struct sandbox_job {
	char *const *argv;
	int (*fn)(void *arg);		/* its return is the exit status */
	void *arg;
	const char *input;		/* stdin for argv; NULL: /dev/null */
	size_t input_len;
};

struct sandbox {
	pid_t pid;		/* process 1, or the command without a pid ns */
	int pidfd;
	int out, err, report;	/* read ends */
	int life;		/* held open: the child sees EOF when we die */
	int lock;		/* flock on tmpdir while the call lives */
	int pidns, userns;
	int landlock_abi, landlock_errata;
	const char *tmp_view;	/* where the temp directory appears */
	char *tmpdir;		/* on the host */
	struct cgroup cg;
	struct gitguard guard;	/* what of git stays read-only */
	struct strv env;	/* the job's environment */
	struct json_object *degraded;
	int have_exit, exit_status;	/* the command's wait status */
	int reaped;
};

struct sandbox_outcome {
	int exited, code;	/* exit status, when exited */
	int signal;		/* killing signal, when not */
	int timed_out;
	int interrupted;	/* the signal that stopped us, or 0 */
	int stopped;		/* the output callback asked for a stop */
	long long duration_ms;
};

struct sandbox_io {
	/* stream 1 or 2; return -1 to stop the job (it is killed). */
	int (*output)(void *arg, int stream, const char *p, size_t n);
	/* Called about once a second while the job runs; may be NULL. */
	int (*tick)(void *arg);
	void *arg;
	volatile sig_atomic_t *interrupt;
};

/*
 * What pi-tool hides by default, to p->masks: the home directories
 * (HOME's, the user's in passwd(5), /home and /root), and in them, were
 * they shown, the files that hold keys, tokens and passwords; pi's own
 * directories and the sessions database (place.h); the files of uid 0
 * that no capability guards.  What tools need of a home (git's own
 * configuration) is shown read-only, to p->allow_read.
 */
void sandbox_default_masks(struct sandbox_policy *p);
/* Drop the masks that are real_path, as given or once resolved. */
void sandbox_unmask(struct sandbox_policy *p, const char *real_path);

int sandbox_start(struct sandbox *sb, const struct sandbox_policy *p,
    const struct sandbox_job *job, struct pi_error *e);
int sandbox_run(struct sandbox *sb, const struct sandbox_policy *p,
    const struct sandbox_io *io, struct sandbox_outcome *o,
    struct pi_error *e);
/* SIGTERM: a graceful stop; SIGKILL: everything, now. */
void sandbox_stop(struct sandbox *sb, int sig);
/* {"enforced":[..],"degraded":[{"layer","reason"}],"landlock":{..},..} */
struct json_object *sandbox_status(const struct sandbox *sb,
    const struct sandbox_policy *p);
/* After sandbox_run: push to made each <root>/.git the call made. */
void sandbox_git_made(const struct sandbox *sb, struct strv *made);
void sandbox_release(struct sandbox *sb);

/* Internal: the child side (sandbox_child.c). */
struct sandbox_child {
	struct sandbox *sb;
	const struct sandbox_policy *p;
	const struct sandbox_job *job;
	int out, err, report, life;	/* write ends; life: read end */
	int joined;	/* read end: a byte once the supervisor put it in its
			 * cgroup, '1' done, '0' failed; -1: join itself
			 * (cgroup_self_join), or there is none */
	uid_t uid;			/* the supervisor's ids */
	gid_t gid;
	struct strv read_roots, write_roots, devices;
};
_Noreturn void sandbox_child_init(struct sandbox_child *c);
_Noreturn void sandbox_child_command(struct sandbox_child *c);
/* Wipe the environment this copy of the supervisor inherited. */
void sandbox_child_scrub(void);
/* A record on the report pipe, written whole (< PIPE_BUF). */
enum { REPORT_DEGRADED = 1, REPORT_FATAL, REPORT_READY, REPORT_EXIT };
struct sandbox_report {
	int kind;
	int status;
	char layer[24];
	char msg[448];
};
void sandbox_report(int fd, int kind, int status, const char *layer,
    const char *msg);

#endif
