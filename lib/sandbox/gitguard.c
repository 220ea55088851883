/* gitguard: see gitguard.h.  _XOPEN_SOURCE for realpath. */
#define _XOPEN_SOURCE 700
#include "gitguard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitfile.h"
#include "gitfind.h"
#include "core/place.h"
#include "core/banned.h"

#define MAX_INCLUDE	10		/* git's own limit on nesting */

/* The innermost writable root that holds path, or NULL. */
static const char *
root_of(const struct gitguard *g, const char *path)
{
	const char *best = NULL;
	size_t i;

	for (i = 0; g->roots[i] != NULL; i++)
		if (place_holds(g->roots[i], path) && (best == NULL ||
		    strlen(g->roots[i]) > strlen(best)))
			best = g->roots[i];
	return best;
}

static int
has(const struct strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return 1;
	return 0;
}

/* Keep path read-only, and pin the directories that lead to it. */
static void
keep(struct gitguard *g, const char *path)
{
	const char *root = root_of(g, path);
	size_t i;
	char *p;

	if (root == NULL || strcmp(root, path) == 0 || has(&g->ro, path))
		return;
	for (i = 0; g->exempt != NULL && g->exempt[i] != NULL; i++)
		if (strcmp(g->exempt[i], path) == 0)
			return;
	strv_push(&g->ro, path);
	p = xstrdup(path);
	for (i = strlen(root) + 1; p[i] != '\0'; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (!has(&g->pins, p))
			strv_push(&g->pins, p);
		p[i] = '/';
	}
	free(p);
}

/* Whether the missing part of a path holds "", "." or "..". */
static int
odd_parts(const char *p)
{
	for (; *p != '\0'; p++)
		if (p[0] == '/' && (p[1] == '/' || (p[1] == '.' &&
		    (p[2] == '/' || p[2] == '\0' || (p[2] == '.' &&
		    (p[3] == '/' || p[3] == '\0'))))))
			return 1;
	return 0;
}

/*
 * Make what is missing of abs, inside a root: directories, the last
 * an empty file when asked.  What is there of it must be real.
 */
static int
make_missing(struct gitguard *g, const char *abs, int file)
{
	char real[PATH_MAX], *head = xstrdup(abs), *s, *target = NULL, c;
	struct stat st;
	int fd, rc = -1;

	while ((s = strrchr(head, '/')) != NULL && s != head) {
		*s = '\0';
		if (lstat(head, &st) == 0)
			break;
	}
	if (s == NULL || s == head || realpath(head, real) == NULL ||
	    odd_parts(abs + (s - head)))
		goto out;
	target = xasprintf("%s%s", real, abs + (s - head));
	if (root_of(g, target) == NULL)
		goto out;
	for (s = target + strlen(real) + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (c == '\0' && file) {
			if ((fd = open(target, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0644)) == -1)
				goto out;
			close(fd);
		} else if (mkdir(target, 0755) == -1 && errno != EEXIST)
			goto out;
		if (c == '\0')
			break;
		*s = c;
	}
	rc = 0;
out:
	free(target);
	free(head);
	return rc;
}

/*
 * path against base (unless absolute; "~/" is $HOME), real when it is
 * there.  A missing one inside a root is made when asked (a directory,
 * or with file an empty file), so that it can be covered.
 */
static char *
resolve(struct gitguard *g, const char *base, const char *path, int make,
    int file)
{
	const char *home = getenv("HOME");
	char real[PATH_MAX], *abs;

	if (strncmp(path, "~/", 2) == 0 && home != NULL && *home == '/')
		abs = xasprintf("%s/%s", home, path + 2);
	else if (*path == '/')
		abs = xstrdup(path);
	else
		abs = xasprintf("%s/%s", base, path);
	if (realpath(abs, real) == NULL && (!make || errno != ENOENT ||
	    make_missing(g, abs, file) == -1 || realpath(abs, real) == NULL)) {
		free(abs);
		return NULL;
	}
	free(abs);
	return xstrdup(real);
}

/* core.hooksPath: the hooks directory (made if missing). */
static void
hooks(struct gitguard *g, const char *value, const char *wt)
{
	char *dir = resolve(g, wt, value, 1, 0), *slash;

	if (dir == NULL)
		return;
	keep(g, dir);
	/* husky: .husky/_/pre-commit runs .husky/pre-commit. */
	if ((slash = strrchr(dir, '/')) != NULL && strcmp(slash, "/_") == 0) {
		*slash = '\0';
		keep(g, dir);
	}
	free(dir);
}

static void config_file(struct gitguard *g, const char *file, int depth);

/* What a config file names that git runs or reads: see gitguard.h. */
struct conf {
	struct gitguard *g;
	const char *file;
	int depth;
};

static void
config_value(void *arg, const char *sect, const char *key, char *val)
{
	struct conf *c = arg;
	struct gitguard *g = c->g;
	char *dir, *p;

	if (strcmp(sect, "core") == 0 && strcasecmp(key, "hookspath") == 0) {
		if (g->wt != NULL)
			hooks(g, val, g->wt);
		else
			strv_push(&g->hookv, val);
	} else if (strcmp(sect, "core") == 0 && g->wt != NULL &&
	    strcasecmp(key, "fsmonitor") == 0 && strchr(val, '/') != NULL) {
		/* A program (a shell command line): its first word. */
		val[strcspn(val, " \t")] = '\0';
		if ((p = resolve(g, g->wt, val, 0, 0)) != NULL)
			keep(g, p);
		free(p);
	} else if (strcmp(sect, "extensions") == 0 &&
	    strcasecmp(key, "objectformat") == 0)
		g->hashlen = strcasecmp(val, "sha256") == 0 ? 32 : 20;
	else if ((strcmp(sect, "include") == 0 ||
	    strcmp(sect, "includeif") == 0) && strcasecmp(key, "path") == 0 &&
	    *val != '\0') {
		dir = xstrdup(c->file);
		*strrchr(dir, '/') = '\0';
		p = resolve(g, *dir ? dir : "/", val, 1, 1);
		free(dir);
		if (p == NULL)
			return;
		keep(g, p);
		if (c->depth < MAX_INCLUDE)
			config_file(g, p, c->depth + 1);
		free(p);
	}
}

static void
config_file(struct gitguard *g, const char *file, int depth)
{
	struct conf c = { g, file, depth };

	gitfile_config(file, config_value, &c);
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void repo(struct gitguard *g, const char *wt);

/* A submodule of the work tree g->wt, from its index. */
static void
gitlink(void *arg, const char *path)
{
	struct gitguard *g = arg;
	char real[PATH_MAX], *p = xasprintf("%s/%s", g->wt, path);
	const char *wt = g->wt;

	if (realpath(p, real) != NULL && is_dir(real)) {
		repo(g, real);
		g->wt = wt;
	}
	free(p);
}

/* The linked work trees of a repository: worktrees/NAME/gitdir. */
static void
worktrees(struct gitguard *g, const char *common)
{
	char *dir = xasprintf("%s/worktrees", common), *p, *line, *s;
	const char *wt = g->wt;
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s/gitdir", dir, de->d_name);
		line = gitfile_line(p);
		/* It names the .git file of the work tree. */
		if (line != NULL && *line == '/' &&
		    (s = strrchr(line, '/')) != NULL && s != line &&
		    strcmp(s, "/.git") == 0) {
			*s = '\0';
			if (root_of(g, line) != NULL && is_dir(line)) {
				repo(g, line);
				g->wt = wt;
			}
		}
		free(line);
		free(p);
	}
	closedir(d);
	free(dir);
}

/*
 * The repository whose work tree is wt (it holds a .git), and those it
 * leads to: its submodules and its linked work trees.
 */
static void
repo(struct gitguard *g, const char *wt)
{
	static const char *const tops[] = { ".husky",
	    ".pre-commit-config.yaml" };
	char *dotgit, *gitdir = NULL, *common = NULL, *line, *p;
	struct stat st;
	size_t i;

	if (has(&g->seen, wt) || g->seen.n >= GITGUARD_REPOS)
		return;
	strv_push(&g->seen, wt);
	g->wt = wt;
	g->hashlen = 20;
	dotgit = xasprintf("%s/.git", wt);
	if (lstat(dotgit, &st) == -1)
		goto out;
	if (S_ISREG(st.st_mode)) {
		/* "gitdir: path", the path relative to the work tree. */
		keep(g, dotgit);
		if ((line = gitfile_line(dotgit)) != NULL &&
		    strncmp(line, "gitdir:", 7) == 0)
			gitdir = resolve(g, wt, line + 7 + strspn(line + 7,
			    " \t"), 0, 0);
		free(line);
	} else
		gitdir = resolve(g, wt, ".git", 0, 0);
	if (gitdir == NULL || !is_dir(gitdir))
		goto out;
	keep(g, gitdir);
	p = xasprintf("%s/commondir", gitdir);
	if ((line = gitfile_line(p)) != NULL && *line != '\0' &&
	    (common = resolve(g, gitdir, line, 0, 0)) != NULL)
		keep(g, common);
	free(line);
	free(p);
	p = xasprintf("%s/config", common ? common : gitdir);
	config_file(g, p, 0);
	free(p);
	p = xasprintf("%s/config.worktree", gitdir);
	config_file(g, p, 0);
	free(p);
	for (i = 0; i < g->hookv.n; i++)
		hooks(g, g->hookv.v[i], wt);
	for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		p = xasprintf("%s/%s", wt, tops[i]);
		line = lstat(p, &st) == 0 ? resolve(g, wt, tops[i], 0, 0) :
		    NULL;
		if (line != NULL)
			keep(g, line);
		free(line);
		free(p);
	}
	p = xasprintf("%s/index", gitdir);
	gitfile_gitlinks(p, g->hashlen, gitlink, g);
	free(p);
	worktrees(g, common ? common : gitdir);
out:
	free(common);
	free(gitdir);
	free(dotgit);
}

/* The repository that holds root, found as git finds it. */
static void
enclosing(struct gitguard *g, const char *root)
{
	char *p = xstrdup(root), *s, *dotgit;
	struct stat st;
	int found = 0;

	while (!found && (s = strrchr(p, '/')) != NULL && s != p) {
		*s = '\0';
		dotgit = xasprintf("%s/.git", p);
		if (lstat(dotgit, &st) == 0) {
			repo(g, p);
			found = 1;
		}
		free(dotgit);
	}
	free(p);
}

static void
found(void *arg, const char *wt)
{
	repo(arg, wt);
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, and none of v inside a path of ro (nor, for ro, another). */
static void
tidy(struct strv *v, const struct strv *ro)
{
	size_t i, j, k = 0;
	int inside;

	if (v->n == 0)
		return;
	qsort(v->v, v->n, sizeof(*v->v), by_path);
	for (i = 0; i < v->n; i++) {
		inside = 0;
		for (j = 0; j < (v == ro ? k : ro->n) && !inside; j++)
			inside = place_holds(ro->v[j], v->v[i]);
		if (inside)
			free(v->v[i]);
		else
			v->v[k++] = v->v[i];
	}
	v->n = k;
	v->v[k] = NULL;
}

void
gitguard_scan(struct gitguard *g, const char *const *roots,
    const char *const *exempt)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	char *users[3], *p;
	struct stat st;
	size_t i;

	memset(g, 0, sizeof(*g));
	g->roots = roots;
	g->exempt = exempt;
	/* The user's own: a relative hooksPath is in every work tree. */
	users[0] = xstrdup("/etc/gitconfig");
	users[1] = xdg != NULL && *xdg == '/' ?
	    xasprintf("%s/git/config", xdg) : xstrdup("~/.config/git/config");
	users[2] = xstrdup("~/.gitconfig");
	for (i = 0; i < 3; i++) {
		if ((p = resolve(g, "/", users[i], 0, 0)) != NULL)
			config_file(g, p, 0);
		free(p);
		free(users[i]);
	}
	for (i = 0; roots[i] != NULL; i++) {
		enclosing(g, roots[i]);
		gitfind(roots[i], &g->find, found, g);
		p = xasprintf("%s/.git", roots[i]);
		if (lstat(p, &st) == -1 && errno == ENOENT)
			strv_push(&g->absent, p);
		free(p);
	}
	strv_release(&g->hookv);
	strv_release(&g->seen);
	tidy(&g->ro, &g->ro);
	tidy(&g->pins, &g->ro);
	g->roots = g->exempt = NULL;
	g->wt = NULL;
}

void
gitguard_made(const struct gitguard *g, struct strv *made)
{
	struct stat st;
	size_t i;

	for (i = 0; i < g->absent.n; i++)
		if (lstat(g->absent.v[i], &st) == 0)
			strv_push(made, g->absent.v[i]);
}

void
gitguard_release(struct gitguard *g)
{
	strv_release(&g->ro);
	strv_release(&g->pins);
	strv_release(&g->absent);
}
