/*
 * gitfind: the work trees below a directory, found as cheaply as can be
 * (a call pays for it each time): breadth first, following no symbolic
 * link, listing the directories down to GITFIND_DEPTH - 1 levels below
 * root and only looking for a .git in those of the last level, at most
 * GITFIND_DIRS listed and GITFIND_LOOKS looked at in all, for every
 * root given the same struct gitfind (zeroed first).  fn gets each
 * directory that holds a .git (root included), as root's path and the
 * names below it.  A .git directory is not entered.  Nothing here
 * fails: what cannot be listed is passed over.
 */
#ifndef PI_GITFIND_H
#define PI_GITFIND_H

#include <stddef.h>

#define GITFIND_DEPTH	2	/* levels below a root */
#define GITFIND_DIRS	500	/* directories listed in all */
#define GITFIND_LOOKS	2000	/* and on the last level looked at */

struct gitfind {
	size_t listed, looked;
};

void gitfind(const char *root, struct gitfind *f,
    void (*fn)(void *arg, const char *wt), void *arg);

#endif
