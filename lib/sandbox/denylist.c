/* denylist: see denylist.h. */
#include "denylist.h"

#include <errno.h>
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

static int
fail(struct pi_error *e, const char *what, int rc)
{
	return pi_err(e, PI_EXIT_SANDBOX, "seccomp", "seccomp: %s: %s", what,
	    strerror(rc < 0 ? -rc : rc));
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
