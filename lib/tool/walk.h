/*
 * walk: the directory walk grep and find share, as rg and fd walk by
 * default.  Entries come in strcmp order, depth first; hidden ones are
 * included, .git is skipped, symlinks are reported but never followed,
 * and what git would ignore is left out: .gitignore files (those of
 * the directories above the root, up to the top of the work tree, as
 * well as those met on the way) and .git/info/exclude, with git's
 * precedence (pathmatch.h).  Outside a git work tree only the
 * .gitignore files met on the way count.
 *
 * The caller's visit function sees every entry that is not ignored:
 * dfd is its directory, open, and name its name there (for openat and
 * fstatat; dfd stays the walk's), path is its path below the root
 * (without "./", '/' between components), and st is what lstat says
 * of it.  It returns WALK_GO to go on (into the entry, when it is a
 * directory), WALK_PRUNE to go on without entering it, or WALK_STOP to
 * end the walk.
 *
 * Memory holds one sorted listing per directory on the current path
 * and the rules of the .gitignore files that apply there; a listing is
 * cut at WALK_LISTING_MAX bytes of names, a .gitignore read only up to
 * WALK_IGNORE_MAX, and a path may be WALK_PATH_MAX bytes long (longer
 * ones are skipped, directories among them counted as unreadable).
 * The walk owns all of it, and path is valid only during the call.
 *
 * Errors: walk_run returns -1 and fills e (code "permission_denied" or
 * "io_error", message "Cannot read directory PATH: why") only when the
 * root cannot be opened as a directory.  Below it, a directory that
 * cannot be opened or listed is skipped and counted in unreadable, and
 * an entry that vanishes is skipped silently.
 */
#ifndef PI_WALK_H
#define PI_WALK_H

#include <stddef.h>

#include "pathmatch.h"
#include "core/buf.h"

struct pi_error;
struct stat;
struct walk_level;

#define WALK_IGNORE_MAX		(1u << 20)	/* read of one .gitignore */
#define WALK_LISTING_MAX	(64u << 20)	/* names in one directory */
#define WALK_PATH_MAX		(1u << 20)	/* a path below the top */

enum { WALK_GO, WALK_PRUNE, WALK_STOP };

struct walk {
	/*
	 * The entry's path from the top of the work tree (from the root
	 * when there is none), so that each .gitignore sees the path
	 * relative to its own directory; what visit gets is path + rel.
	 */
	struct buf path;
	size_t rel;
	struct walk_level *lv;
	size_t nlv;
	size_t caplv;
	struct pathmatch_ignore exclude;
	int (*visit)(void *arg, int dfd, const char *name, const char *path,
	    const struct stat *st);
	void *arg;
	unsigned long unreadable;	/* directories skipped */
};

void walk_init(struct walk *w, int (*visit)(void *arg, int dfd,
    const char *name, const char *path, const struct stat *st), void *arg);
/* Walk below the directory root once, calling visit: 0, or -1 with e. */
int walk_run(struct walk *w, const char *root, struct pi_error *e);
void walk_release(struct walk *w);

#endif
