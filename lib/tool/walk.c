/*
 * walk: see walk.h.  Directories are opened with openat from their
 * parent, O_NOFOLLOW, so a symlink swapped in mid-walk is not entered,
 * and each level's .gitignore is pushed on entry and popped on leaving.
 */
#define _XOPEN_SOURCE 700	/* realpath */
#include "walk.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "core/banned.h"

/* The rules of one .gitignore, for the directory path[0..dirlen). */
struct walk_level {
	struct pathmatch_ignore ig;
	size_t dirlen;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read at most max bytes of a regular file at dfd/name into b. */
static int
read_small(int dfd, const char *name, struct buf *b, size_t max)
{
	struct stat st;
	char tmp[4096];
	ssize_t n;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	while (b->len < max && (n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		if ((size_t)n > max - b->len)
			n = (ssize_t)(max - b->len);
		if (buf_add(b, tmp, (size_t)n) == -1)
			break;
	}
	close(fd);
	return 0;
}

/* Push the rules of dfd/name for directory path[0..dirlen), if any. */
static int
push_rules(struct walk *w, int dfd, const char *name, size_t dirlen)
{
	struct walk_level *l;
	struct buf text;

	buf_init(&text, WALK_IGNORE_MAX);
	if (read_small(dfd, name, &text, WALK_IGNORE_MAX) == -1 ||
	    text.len == 0) {
		buf_release(&text);
		return 0;
	}
	if (w->nlv == w->caplv) {
		w->caplv = w->caplv ? w->caplv * 2 : 8;
		w->lv = xrealloc(w->lv, w->caplv * sizeof(*w->lv));
	}
	l = &w->lv[w->nlv++];
	pathmatch_ignore_init(&l->ig);
	pathmatch_ignore_add(&l->ig, text.data, text.len);
	l->dirlen = dirlen;
	buf_release(&text);
	return 1;
}

static void
pop_rules(struct walk *w)
{
	pathmatch_ignore_release(&w->lv[--w->nlv].ig);
}

void
walk_init(struct walk *w, int (*visit)(void *, int, const char *,
    const char *, const struct stat *), void *arg)
{
	buf_init(&w->path, WALK_PATH_MAX);
	w->rel = 0;
	w->lv = NULL;
	w->nlv = w->caplv = 0;
	pathmatch_ignore_init(&w->exclude);
	w->visit = visit;
	w->arg = arg;
	w->unreadable = 0;
}

/*
 * Find the work tree holding root (a ".git" in it or above, up to '/')
 * and load what git would apply there before the walk reaches root:
 * .git/info/exclude and the .gitignore files of the directories from
 * the top down to root's parent.  Outside a work tree only the
 * .gitignore files met by the walk count.
 */
static void
walk_top(struct walk *w, const char *root)
{
	struct stat st;
	struct buf text;
	const char *top;
	char *abs, *f;
	size_t len, k;
	int found = 0;

	if ((abs = realpath(root, NULL)) == NULL)
		return;
	for (len = strlen(abs); ; len--) {
		if (len == 0 || abs[len] == '/' || abs[len] == '\0') {
			f = xasprintf("%.*s/.git", (int)len, abs);
			found = lstat(f, &st) == 0;
			free(f);
		}
		if (found || len == 0)
			break;
	}
	if (!found) {
		free(abs);
		return;
	}
	top = abs + len + (abs[len] == '/');
	if (*top != '\0' && buf_adds(&w->path, top) == -1) {
		free(abs);
		return;
	}
	w->rel = w->path.len + (w->path.len != 0);
	if (S_ISDIR(st.st_mode)) {
		f = xasprintf("%.*s/.git/info/exclude", (int)len, abs);
		buf_init(&text, WALK_IGNORE_MAX);
		if (read_small(AT_FDCWD, f, &text, WALK_IGNORE_MAX) == 0)
			pathmatch_ignore_add(&w->exclude, text.data, text.len);
		buf_release(&text);
		free(f);
	}
	/* The directories from the top down to root's parent. */
	for (k = 0; k < w->path.len; k++) {
		if (k != 0 && w->path.data[k] != '/')
			continue;
		f = xasprintf("%.*s%s%.*s/.gitignore", (int)len, abs,
		    k != 0 ? "/" : "", (int)k, w->path.data);
		push_rules(w, AT_FDCWD, f, k);
		free(f);
	}
	free(abs);
}

void
walk_release(struct walk *w)
{
	while (w->nlv > 0)
		pop_rules(w);
	free(w->lv);
	w->lv = NULL;
	w->caplv = 0;
	pathmatch_ignore_release(&w->exclude);
	buf_release(&w->path);
}

/* Is the entry at w->path ignored?  The deepest rules speak first. */
static int
ignored(const struct walk *w, int is_dir)
{
	const struct walk_level *l;
	size_t i;
	int r;

	for (i = w->nlv; i-- > 0; ) {
		l = &w->lv[i];
		r = pathmatch_ignore_check(&l->ig,
		    w->path.data + l->dirlen + (l->dirlen != 0), is_dir);
		if (r != PATHMATCH_NONE)
			return r == PATHMATCH_IGNORED;
	}
	return pathmatch_ignore_check(&w->exclude, w->path.data, is_dir) ==
	    PATHMATCH_IGNORED;
}

/*
 * The names in directory dfd, sorted, as pointers into names; -1 when
 * it cannot be read at all.  A listing over WALK_LISTING_MAX is cut
 * short.
 */
static int
list(int dfd, struct buf *names, char ***v, size_t *n)
{
	struct dirent *de;
	DIR *d;
	size_t i, off;
	int fd;

	*v = NULL;
	*n = 0;
	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (buf_add(names, de->d_name, strlen(de->d_name) + 1) == -1)
			break;
		++*n;
	}
	closedir(d);
	*v = xcalloc(*n + 1, sizeof(**v));
	for (i = off = 0; i < *n; i++) {
		(*v)[i] = names->data + off;
		off += strlen((*v)[i]) + 1;
	}
	qsort(*v, *n, sizeof(**v), by_name);
	return 0;
}

/* Walk the directory open at dfd, whose path is w->path; closes dfd. */
static int
walk_dir(struct walk *w, int dfd)
{
	struct buf names;
	struct stat st;
	char **v;
	size_t dirlen = w->path.len, n, i;
	int rc = WALK_GO, pushed, fd, is_dir;

	pushed = push_rules(w, dfd, ".gitignore", dirlen);
	buf_init(&names, WALK_LISTING_MAX);
	if (list(dfd, &names, &v, &n) == -1)
		w->unreadable++;
	for (i = 0; i < n && rc != WALK_STOP; i++) {
		if (strcmp(v[i], ".git") == 0 ||
		    fstatat(dfd, v[i], &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		is_dir = S_ISDIR(st.st_mode);
		w->path.len = dirlen;
		if ((dirlen != 0 && buf_addc(&w->path, '/') == -1) ||
		    buf_adds(&w->path, v[i]) == -1) {
			w->unreadable += is_dir;
			continue;
		}
		if (ignored(w, is_dir))
			continue;
		rc = w->visit(w->arg, dfd, v[i], w->path.data + w->rel, &st);
		if (!is_dir || rc != WALK_GO)
			continue;
		fd = openat(dfd, v[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			w->unreadable++;
		else
			rc = walk_dir(w, fd);
	}
	w->path.len = dirlen;
	w->path.data[dirlen] = '\0';
	if (pushed)
		pop_rules(w);
	free(v);
	buf_release(&names);
	close(dfd);
	return rc == WALK_STOP ? WALK_STOP : WALK_GO;
}

int
walk_run(struct walk *w, const char *root, struct pi_error *e)
{
	int fd;

	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return pi_err(e, PI_EXIT_INPUT, errno == EACCES ?
		    "permission_denied" : "io_error",
		    "Cannot read directory %s: %s", root, strerror(errno));
	walk_top(w, root);
	walk_dir(w, fd);
	return 0;
}
