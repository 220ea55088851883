/*
 * gitguard: what of the git repositories in a call's writable areas
 * must not change, because git on the host runs it or takes its
 * configuration or paths from it (pi-tool(1), SANDBOX and CAVEATS).
 *
 * gitguard_scan looks, in each writable root, for the repository that
 * holds the root and for those below it: every submodule its index
 * names, at any depth, its linked work trees, and others as far as
 * gitfind.h looks; GITGUARD_REPOS in all.  Of each repository it keeps,
 * in ro, what is to be read-only:
 *   - its git directory, whole: a .git directory, or the one a .git
 *     file names, and the common directory its commondir file names
 *     (config, hooks, info, modules, worktrees, the index, refs and
 *     objects: no commit is made in the sandbox);
 *   - the .git file itself;
 *   - the hooks directory that core.hooksPath names in the repository's
 *     or the user's configuration (made when missing; husky's ".../_"
 *     stubs run the scripts of their parent, which is kept too), a
 *     core.fsmonitor program given as a path, and the files the
 *     configuration includes (an empty one made when missing);
 *   - .husky and .pre-commit-config.yaml at the top of its work tree.
 * and, in pins, every directory between a writable root and those, to
 * be bound over itself so that it cannot be renamed away and replaced.
 * Only paths inside a writable root are kept: the rest of the view is
 * read-only anyway.  A git directory that is itself one of the exempt
 * paths (an explicit --allow-write) is left as it is.  absent lists
 * <root>/.git for each root that has none, for gitguard_made to look
 * at after the call.
 *
 * Roots are real absolute paths; so is everything kept.  Nothing here
 * fails: what cannot be read is passed over.
 */
#ifndef PI_GITGUARD_H
#define PI_GITGUARD_H

#include <stddef.h>

#include "gitfind.h"
#include "core/util.h"

#define GITGUARD_REPOS	256	/* repositories, submodules included */

struct gitguard {
	struct strv ro;		/* sorted; none inside another */
	struct strv pins;	/* sorted; none inside an ro path */
	struct strv absent;
	/* While scanning. */
	const char *const *roots;
	const char *const *exempt;
	struct gitfind find;	/* its bounds, gitfind.h */
	struct strv seen;	/* work trees done */
	struct strv hookv;	/* the user's own core.hooksPath */
	const char *wt;		/* the work tree whose config is read */
	size_t hashlen;		/* of its index */
};

void gitguard_scan(struct gitguard *g, const char *const *roots,
    const char *const *exempt);
/* Push to made the paths of absent that exist now. */
void gitguard_made(const struct gitguard *g, struct strv *made);
void gitguard_release(struct gitguard *g);

#endif
