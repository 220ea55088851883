/*
 * nosys: run a command with some system calls made to fail, so a test
 * can show what pi-tool does on a kernel without a feature.
 *
 *   nosys [-e errno] call... -- command [arg...]
 *
 * Each call (a name, e.g. landlock_create_ruleset) fails with errno
 * (default ENOSYS), for the command and all it starts.  "clone-ns"
 * stands for clone with any CLONE_NEW* flag, which fails with EPERM as
 * in a container that forbids namespaces.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int err = ENOSYS, i = 1, nr;

	if (argc > 2 && strcmp(argv[1], "-e") == 0) {
		err = (int)strtol(argv[2], NULL, 10);
		i = 3;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return 125;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "clone-ns") == 0) {
			/* NEWNS, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
			static const unsigned long bits[] = { 0x00020000,
			    0x04000000, 0x08000000, 0x10000000, 0x20000000,
			    0x40000000 };
			size_t b;

			for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
				if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				    SCMP_SYS(clone), 1, SCMP_A0(
				    SCMP_CMP_MASKED_EQ, bits[b], bits[b])) != 0)
					return 125;
			continue;
		}
		if ((nr = seccomp_syscall_resolve_name(argv[i])) ==
		    __NR_SCMP_ERROR) {
			fprintf(stderr, "nosys: unknown call '%s'\n", argv[i]);
			return 125;
		}
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0) != 0)
			return 125;
	}
	if (i + 1 >= argc) {
		fputs("usage: nosys [-e errno] call... -- command [arg...]\n",
		    stderr);
		return 125;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    seccomp_load(ctx) != 0) {
		perror("nosys");
		return 125;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror(argv[i + 1]);
	return 127;
}
