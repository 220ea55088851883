/*
 * landlock: the Landlock ruleset of a sandboxed process.
 *
 * landlock_abi asks the kernel which ABI it runs (0 when Landlock is
 * absent or disabled).  landlock_fs_rights gives every file-system right
 * an ABI knows, so a ruleset handles all of them and nothing a newer
 * kernel adds is silently left open to the extent pi-tool knows it.
 * Debian 12's <linux/landlock.h> stops at ABI 2, so the definitions live
 * in landlock.c.
 *
 * landlock_enforce builds one ruleset: read (and execute) beneath every
 * read root, every right but device creation and device ioctls beneath
 * every write root, read and write on each device file, TCP bind and
 * connect denied when deny_tcp is set, abstract unix sockets and signals
 * scoped to the sandbox (ABI 6 and later), and restricts the calling
 * process.  A path that cannot be opened is an error, never a rule
 * silently skipped.  no_new_privs must already be set.
 */
#ifndef PI_LANDLOCK_H
#define PI_LANDLOCK_H

#include <stdint.h>

struct pi_error;

/* The newest ABI whose rights this file knows. */
#define LANDLOCK_KNOWN_ABI 8

struct landlock_rules {
	const char *const *read;	/* NULL-terminated lists of paths */
	const char *const *write;
	const char *const *devices;
	int deny_tcp;
};

int landlock_abi(int *errata);
uint64_t landlock_fs_rights(int abi);
int landlock_enforce(const struct landlock_rules *r, int abi,
    struct pi_error *e);

#endif
