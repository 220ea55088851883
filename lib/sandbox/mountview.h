/*
 * mountview: the file system a sandboxed command sees, built by the
 * sandbox's init inside its new mount namespace (reference/sandbox.md
 * 5.2).  Everything is read-only, nosuid and nodev; /tmp is the call's
 * private temp directory; /var/tmp, /dev/shm and /run are empty private
 * tmpfs (host sockets live under /run); /dev holds only null, zero,
 * full, random, urandom and the fd links; /proc is a fresh procfs of the
 * new pid namespace with /proc/sys and its kin read-only.
 *
 * Then the paths given are laid over that, a parent before what is
 * below it: the workspace and each writable path bound back writable
 * (nosuid, nodev still), each readable path bound back read-only, and
 * each masked path covered: a directory by an empty read-only tmpfs
 * that holds only the mount points of what is shown below it (a home
 * directory hidden, the workspace in it shown), a file by an unusable
 * /dev/null.  So the more specific path wins: a credential directory
 * masked inside a shown home stays hidden, a workspace inside a masked
 * home is shown; on one path, what is shown wins.  Last, each git_pins
 * directory is bound over itself, so that it cannot be renamed away and
 * replaced, and each git_ro path is bound read-only (gitguard.h).
 *
 * Paths must be absolute and real (no symlinks), as the supervisor
 * resolved them.  Handles on every source are taken before anything is
 * hidden, since a workspace may live under /tmp.  A masked path that is
 * not there, a mask of "/", and a git path that a mask hid are skipped.
 * Errors carry the code "mount".
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
	const char *const *git_pins;	/* may be NULL */
	const char *const *git_ro;
};

int mountview_build(const struct mountview *v, struct pi_error *e);

#endif
