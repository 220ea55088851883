/*
 * gitfind: see gitfind.h.  _GNU_SOURCE for getdents64's d_type, which
 * spares a stat of every entry of the directories listed.
 */
#define _GNU_SOURCE
#include "gitfind.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"
#include "core/banned.h"

static int
lstat_git(const char *dir)
{
	struct stat st;
	char *p = xasprintf("%s/.git", dir);
	int rc = lstat(p, &st) == 0;

	free(p);
	return rc;
}

struct dirq {
	char *path;
	int depth;
};

/* getdents64(2)'s record: no DIR, whose fdopendir costs three calls. */
struct dent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

struct queue {
	struct dirq *v;
	size_t n, cap;
};

static void
enqueue(struct queue *q, char *path, int depth)
{
	if (q->n == q->cap)
		q->v = xrealloc(q->v, (q->cap = q->cap ? 2 * q->cap : 64) *
		    sizeof(*q->v));
	q->v[q->n].path = path;
	q->v[q->n++].depth = depth;
}

/* List the directory d of q: whether it holds a .git; its own queued. */
static int
list_dir(int fd, struct queue *q, const struct dirq *d)
{
	char buf[32768];
	struct dent *de;
	struct stat st;
	long got, off;
	int found = 0, dir;

	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (off = 0; off < got; off += de->reclen) {
			de = (struct dent *)(buf + off);
			if (strcmp(de->name, ".git") == 0)
				found = 1;
			if (strcmp(de->name, ".") == 0 ||
			    strcmp(de->name, "..") == 0 ||
			    strcmp(de->name, ".git") == 0)
				continue;
			dir = de->type == DT_DIR || (de->type == DT_UNKNOWN &&
			    fstatat(fd, de->name, &st, AT_SYMLINK_NOFOLLOW) ==
			    0 && S_ISDIR(st.st_mode));
			/* No more is queued than can ever be looked at. */
			if (dir && q->n < GITFIND_DIRS + GITFIND_LOOKS)
				enqueue(q, xasprintf("%s/%s", d->path,
				    de->name), d->depth + 1);
		}
	return found;
}

void
gitfind(const char *root, struct gitfind *f,
    void (*fn)(void *arg, const char *wt), void *arg)
{
	struct queue q = { NULL, 0, 0 };
	struct dirq d;
	size_t head;
	int fd, found;

	enqueue(&q, xstrdup(root), 0);
	for (head = 0; head < q.n && f->listed < GITFIND_DIRS &&
	    f->looked < GITFIND_LOOKS; head++) {
		d = q.v[head];
		if (d.depth == GITFIND_DEPTH) {
			f->looked++;
			found = lstat_git(d.path);
		} else if ((fd = open(d.path, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1) {
			f->listed++;
			found = list_dir(fd, &q, &d);
			close(fd);
		} else
			found = 0;
		if (found)
			fn(arg, d.path);
	}
	while (q.n > 0)
		free(q.v[--q.n].path);
	free(q.v);
}

