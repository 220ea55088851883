/*
 * mountview: the file system a sandboxed command sees, built by the
 * sandbox's init inside its new mount namespace (reference/sandbox.md
 * 5.2).  Everything is read-only, nosuid and nodev; /tmp is the call's
 * private temp directory; /var/tmp, /dev/shm and /run are empty private
 * tmpfs (host sockets live under /run); /dev holds only null, zero,
 * full, random, urandom and the fd links; /proc is a fresh procfs of the
 * new pid namespace with /proc/sys and its kin read-only.  Then the
 * workspace and each writable path are bound back writable (nosuid,
 * nodev still), each readable path is bound back read-only even where
 * the view hides it, the workspace's .git/hooks and .git/config are
 * bound read-only (and .git over itself, so it cannot be renamed away
 * and replaced), and each masked path is covered: a directory by an
 * empty read-only tmpfs, a file by an unusable /dev/null.
 *
 * Paths must be absolute and real (no symlinks), as the supervisor
 * resolved them.  Handles on every source are taken before anything is
 * hidden, since a workspace may live under /tmp.  A masked path that
 * does not exist is skipped; one that holds the workspace or a writable
 * path is skipped too, since hiding it would hide what the call
 * was given.  Errors carry the code "mount".
 */
#ifndef PI_MOUNTVIEW_H
#define PI_MOUNTVIEW_H

struct pi_error;

struct mountview {
	const char *workspace;
	const char *tmpdir;		/* host directory mounted at /tmp */
	const char *const *writable;	/* NULL-terminated */
	const char *const *readable;
	const char *const *masks;
	int protect_git;
};

int mountview_build(const struct mountview *v, struct pi_error *e);

#endif
