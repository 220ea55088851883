/* confine: see confine.h. */
#define _GNU_SOURCE
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "denylist.h"
#include "landlock.h"
#include "core/util.h"
#include "core/banned.h"

static int
fds(const struct confine *c, int *kept, struct pi_error *e)
{
	int src[4] = { c->in, c->out, c->err, c->keep }, i;

	/*
	 * Lift every source out of the way first: one of them may sit on
	 * a number another must take.
	 */
	for (i = 0; i < 4; i++)
		if (src[i] != -1 &&
		    (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 10)) == -1)
			goto fail;
	for (i = 0; i < 3; i++)
		if (dup2(src[i], i) == -1)
			goto fail;
	if (src[3] != -1 && dup3(src[3], 3, O_CLOEXEC) == -1)
		goto fail;
	*kept = src[3] == -1 ? -1 : 3;
	if (syscall(SYS_close_range, src[3] == -1 ? 3u : 4u, ~0u, 0) == -1)
		goto fail;
	return 0;
fail:
	return pi_err(e, PI_EXIT_SANDBOX, "fds", "fds: %s", strerror(errno));
}

static int
limit(int resource, rlim_t v)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) == -1)
		return -1;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v)
		v = rl.rlim_max;
	rl.rlim_cur = rl.rlim_max = v;
	return setrlimit(resource, &rl);
}

static int
rlimits(const struct confine *c, struct pi_error *e)
{
	if (limit(RLIMIT_CORE, 0) == -1 ||
	    limit(RLIMIT_NOFILE, 4096) == -1 ||
	    (c->cpu_seconds > 0 && limit(RLIMIT_CPU,
	    (rlim_t)c->cpu_seconds) == -1) ||
	    (c->nproc > 0 && limit(RLIMIT_NPROC, (rlim_t)c->nproc) == -1))
		return pi_err(e, PI_EXIT_SANDBOX, "rlimits", "rlimits: %s",
		    strerror(errno));
	return 0;
}

static int
drop_caps(struct pi_error *e)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int cap;

	/*
	 * An ordinary user outside any user namespace holds nothing, and
	 * may not touch securebits or the bounding set; no_new_privs keeps
	 * setuid and file capabilities from giving it any.
	 */
	if (geteuid() != 0 && syscall(SYS_capget, &h, d) == 0 &&
	    (d[0].permitted | d[1].permitted) == 0)
		return 0;

	/*
	 * Lock uid 0 out of capabilities first, while CAP_SETPCAP is
	 * held: without NOROOT the next execve would grant them all again.
	 */
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "caps", "caps: securebits: %s",
		    strerror(errno));
	for (cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EINVAL)
			return pi_err(e, PI_EXIT_SANDBOX, "caps",
			    "caps: bounding set: %s", strerror(errno));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "caps", "caps: ambient: %s",
		    strerror(errno));
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) == -1 ||
	    syscall(SYS_capget, &h, d) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "caps", "caps: capset: %s",
		    strerror(errno));
	if (d[0].effective | d[0].permitted | d[0].inheritable |
	    d[1].effective | d[1].permitted | d[1].inheritable)
		return pi_err(e, PI_EXIT_SANDBOX, "caps",
		    "caps: capabilities left after capset");
	return 0;
}

int
confine_privileges(int deny_network, struct pi_error *e)
{
	if (drop_caps(e) == -1)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "nnp", "no_new_privs: %s",
		    strerror(errno));
	return denylist_load(deny_network, e);
}

/* A failed optional layer: told, then forgiven when allowed. */
static int
optional(const struct confine *c, int keep, struct pi_error *e)
{
	if (!c->degradable)
		return -1;
	c->degraded(c->arg, keep, e);
	return 0;
}

int
confine_self(const struct confine *c, int *keep, struct pi_error *e)
{
	struct landlock_rules rules;

	*keep = c->keep;
	if (setsid() == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "setsid", "setsid: %s",
		    strerror(errno));
	if (fds(c, keep, e) == -1)
		return -1;
	if (chdir(c->dir) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "workspace",
		    "cannot enter '%s': %s", c->dir, strerror(errno));
	if (rlimits(c, e) == -1 || drop_caps(e) == -1)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "nnp", "no_new_privs: %s",
		    strerror(errno));
	rules.read = c->read_roots;
	rules.write = c->write_roots;
	rules.devices = c->devices;
	rules.deny_tcp = c->deny_network;
	if (landlock_enforce(&rules, c->landlock_abi, e) == -1 &&
	    optional(c, *keep, e) == -1)
		return -1;
	if (denylist_load(c->deny_network, e) == -1 &&
	    optional(c, *keep, e) == -1)
		return -1;
	return 0;
}
