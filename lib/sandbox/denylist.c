/* denylist: see denylist.h.  _GNU_SOURCE for O_TMPFILE. */
#define _GNU_SOURCE
#include "denylist.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include <seccomp.h>

#include "core/util.h"
#include "core/banned.h"

static const char *const denied[] = {
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
	"keyctl", "add_key", "request_key", "bpf", "perf_event_open",
	"userfaultfd", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module", "mount", "umount2",
	"pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns",
	"open_by_handle_at", "name_to_handle_at", "swapon", "swapoff",
	"reboot", "acct", "syslog", "quotactl", "lookup_dcookie", "vhangup",
	"fanotify_init", "iopl", "ioperm", "uselib",
};

/* The CLONE_NEW* bits of clone(2)'s flags, one rule each. */
static const unsigned long clone_new[] = {
	0x00000080,	/* CLONE_NEWTIME */
	0x00020000,	/* CLONE_NEWNS */
	0x02000000,	/* CLONE_NEWCGROUP */
	0x04000000,	/* CLONE_NEWUTS */
	0x08000000,	/* CLONE_NEWIPC */
	0x10000000,	/* CLONE_NEWUSER */
	0x20000000,	/* CLONE_NEWPID */
	0x40000000,	/* CLONE_NEWNET */
};

static const unsigned long ioctl_denied[] = {
	0x5412,		/* TIOCSTI */
	0x541c,		/* TIOCLINUX */
};

static const unsigned long persona_denied[] = {
	0x0040000,	/* ADDR_NO_RANDOMIZE */
	0x0400000,	/* READ_IMPLIES_EXEC */
};

/*
 * The calls that give a file its mode, and which argument holds the
 * mode: set-id bits there are refused.  open and openat take the mode
 * only with O_CREAT or O_TMPFILE in their flags, so those are asked for
 * too (a mode without them means nothing); creat always creates.
 * fchmodat2 (Linux 6.6) is named by number where libseccomp 2.5 does not
 * know it: 452 on every architecture of the unified table.
 */
static const struct mode_call {
	const char *name;
	int nr;			/* when libseccomp has no name for it */
	unsigned mode_arg;
	int flags_arg;		/* -1: no flags to look at */
} mode_calls[] = {
	{ "chmod", -1, 1, -1 }, { "fchmod", -1, 1, -1 },
	{ "fchmodat", -1, 2, -1 }, { "fchmodat2", 452, 2, -1 },
	{ "creat", -1, 1, -1 }, { "open", -1, 2, 1 }, { "openat", -1, 3, 2 },
	{ "mknod", -1, 1, -1 }, { "mknodat", -1, 2, -1 },
};

/* O_TMPFILE without the O_DIRECTORY it includes. */
#define TMPFILE_BIT	(O_TMPFILE & ~O_DIRECTORY)

static int
fail(struct pi_error *e, const char *what, int rc)
{
	return pi_err(e, PI_EXIT_SANDBOX, "seccomp", "seccomp: %s: %s", what,
	    strerror(rc < 0 ? -rc : rc));
}

/*
 * One rule: EPERM when argument a masked with mask is value and, with
 * flags_arg >= 0, that argument holds flag.
 */
static int
refuse_masked(scmp_filter_ctx ctx, int nr, unsigned a, uint64_t mask,
    uint64_t value, int flags_arg, uint64_t flag)
{
	struct scmp_arg_cmp cmp[2];
	unsigned n = 0;

	cmp[n++] = (struct scmp_arg_cmp){ a, SCMP_CMP_MASKED_EQ, mask, value };
	if (flags_arg >= 0)
		cmp[n++] = (struct scmp_arg_cmp){ (unsigned)flags_arg,
		    SCMP_CMP_MASKED_EQ, flag, flag };
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, n, cmp);
}

/*
 * No set-id file may come out of a call: a setuid file left in the
 * workspace gives its owner's uid (root's, when pi-tool runs as root)
 * to whoever runs it on the host later.  mknod also makes no device.
 */
static int
refuse_setid(scmp_filter_ctx ctx)
{
	static const uint64_t bits[] = { S_ISUID, S_ISGID };
	const struct mode_call *m;
	size_t i, b;
	int nr, rc;

	for (i = 0; i < sizeof(mode_calls) / sizeof(mode_calls[0]); i++) {
		m = &mode_calls[i];
		if ((nr = seccomp_syscall_resolve_name(m->name)) ==
		    __NR_SCMP_ERROR && (nr = m->nr) < 0)
			continue;
		for (b = 0; b < 2; b++) {
			if ((rc = refuse_masked(ctx, nr, m->mode_arg, bits[b],
			    bits[b], m->flags_arg, O_CREAT)))
				return rc;
			if (m->flags_arg >= 0 && (rc = refuse_masked(ctx, nr,
			    m->mode_arg, bits[b], bits[b], m->flags_arg,
			    TMPFILE_BIT)))
				return rc;
		}
		if (strncmp(m->name, "mknod", 5) == 0 &&
		    ((rc = refuse_masked(ctx, nr, m->mode_arg, S_IFMT,
		    S_IFCHR, -1, 0)) || (rc = refuse_masked(ctx, nr,
		    m->mode_arg, S_IFMT, S_IFBLK, -1, 0))))
			return rc;
	}
	/* Its mode is behind a pointer, out of a filter's sight. */
	if ((nr = seccomp_syscall_resolve_name("openat2")) != __NR_SCMP_ERROR)
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	return 0;
}

int
denylist_load(int deny_network, struct pi_error *e)
{
	scmp_filter_ctx ctx;
	size_t i;
	int nr, rc;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return pi_err(e, PI_EXIT_SANDBOX, "seccomp",
		    "seccomp: cannot make a filter");
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		/* A call this architecture does not have needs no rule. */
		if ((nr = seccomp_syscall_resolve_name(denied[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0)))
			goto bad;
	}
	for (i = 0; i < sizeof(clone_new) / sizeof(clone_new[0]); i++)
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    clone_new[i], clone_new[i]))))
			goto bad;
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(clone3), 0)))
		goto bad;
	for (i = 0; i < sizeof(ioctl_denied) / sizeof(ioctl_denied[0]); i++)
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffu, ioctl_denied[i]))))
			goto bad;
	for (i = 0; i < sizeof(persona_denied) / sizeof(persona_denied[0]);
	    i++)
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    persona_denied[i], persona_denied[i]))))
			goto bad;
	if ((rc = refuse_setid(ctx)))
		goto bad;
	if (deny_network && (rc = seccomp_rule_add(ctx,
	    SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 0)))
		goto bad;
	if ((rc = seccomp_load(ctx))) {
		seccomp_release(ctx);
		return fail(e, "cannot load the filter", rc);
	}
	seccomp_release(ctx);
	return 0;
bad:
	seccomp_release(ctx);
	return fail(e, "cannot add a rule", rc);
}
