/*
 * confine: what a sandboxed process does to itself before it runs
 * anything of the model's, in this order (reference/sandbox.md 5.3):
 * a new session (no terminal, so no TIOCSTI into the user's shell);
 * exactly fds 0-2 (plus the report fd, which closes on exec); rlimits;
 * every capability dropped from all five sets with the securebits locked
 * first, so uid 0 gets none back at execve; no_new_privs; Landlock; and
 * the seccomp deny-list last, since it forbids calls the steps before
 * it make.
 *
 * Each step that fails is named in the pi_error (code = the layer:
 * "caps", "nnp", "landlock", "seccomp", ...).  confine_layers tells
 * which steps to treat as optional: a failure of one of those is
 * reported through the degraded callback and the process goes on.
 */
#ifndef PI_CONFINE_H
#define PI_CONFINE_H

struct pi_error;

struct confine {
	int in, out, err;	/* become fds 0, 1, 2 */
	int keep;		/* one more fd to keep (becomes 3), or -1 */
	const char *dir;	/* working directory */
	long cpu_seconds;	/* RLIMIT_CPU, 0 for none */
	long nproc;		/* RLIMIT_NPROC, 0 for none */
	int landlock_abi;	/* 0: no Landlock */
	const char *const *read_roots, *const *write_roots;
	const char *const *devices;
	int deny_network;
	int degradable;		/* Landlock and seccomp may fail */
	/* Called for a layer that failed when degradable; keep is the fd. */
	void (*degraded)(void *arg, int keep, const struct pi_error *e);
	void *arg;
};

/* *keep follows the kept fd: c->keep at first, 3 once moved. */
int confine_self(const struct confine *c, int *keep, struct pi_error *e);
/* Just the privilege part: capabilities, no_new_privs, seccomp. */
int confine_privileges(int deny_network, struct pi_error *e);

#endif
