/* mountview: see mountview.h. */
#define _GNU_SOURCE
#include "mountview.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/place.h"
#include "core/util.h"
#include "core/banned.h"

/* mount_setattr(2), Linux 5.12; glibc 2.36's header clashes with ours. */
#define SYS_MOUNT_SETATTR	442
#define ATTR_RDONLY	0x1
#define ATTR_NOSUID	0x2
#define ATTR_NODEV	0x4
#define ATTR_NOEXEC	0x8
#define AT_RECURSIVE_	0x8000

struct mount_attr_ {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static const char *const devices[] = {
	"null", "zero", "full", "random", "urandom",
};
#define NDEV (sizeof(devices) / sizeof(devices[0]))

static int
fail(struct pi_error *e, const char *what, const char *path)
{
	return pi_err(e, PI_EXIT_SANDBOX, "mount", "mount: %s '%s': %s",
	    what, path, strerror(errno));
}

static int
setattr(const char *path, unsigned flags, uint64_t set, uint64_t clr,
    struct pi_error *e)
{
	struct mount_attr_ a = { set, clr, 0, 0 };

	if (syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path, flags, &a, sizeof(a))
	    == -1)
		return fail(e, "mount_setattr", path);
	return 0;
}

static char *
fd_path(int fd)
{
	return xasprintf("/proc/self/fd/%d", fd);
}

/* mkdir -p for a mount point; the last part a file when !dir. */
static int
mountpoint(const char *path, int dir, struct pi_error *e)
{
	char *p = xstrdup(path), *s;
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0) {
		free(p);
		return 0;
	}
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST)
			goto fail;
		*s = '/';
	}
	if (dir ? mkdir(p, 0755) == -1 && errno != EEXIST :
	    (fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) == -1 ||
	    close(fd) == -1)
		goto fail;
	free(p);
	return 0;
fail:
	fail(e, "cannot make mount point", p);
	free(p);
	return -1;
}

/* Bind what fd names onto path, then set and clear attributes. */
static int
bind_fd(int fd, const char *path, uint64_t set, uint64_t clr,
    struct pi_error *e)
{
	char *src = fd_path(fd);
	struct stat st;
	int rc = -1;

	if (fstat(fd, &st) == -1 || mountpoint(path, S_ISDIR(st.st_mode),
	    e) == -1)
		goto out;
	if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) == -1) {
		fail(e, "cannot bind", path);
		goto out;
	}
	rc = setattr(path, 0, set, clr, e);
out:
	free(src);
	return rc;
}

static int
tmpfs(const char *path, unsigned long flags, const char *opts,
    struct pi_error *e)
{
	if (mount("tmpfs", path, "tmpfs", flags, opts) == -1)
		return fail(e, "cannot mount tmpfs on", path);
	return 0;
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
open_all(const char *const *paths, int **fds, struct pi_error *e)
{
	size_t n = 0, i;

	while (paths != NULL && paths[n] != NULL)
		n++;
	*fds = xcalloc(n + 1, sizeof(int));
	for (i = 0; i < n; i++)
		if (((*fds)[i] = open(paths[i], O_PATH | O_CLOEXEC)) == -1)
			return fail(e, "cannot open", paths[i]);
	return 0;
}

static void
close_all(const char *const *paths, int *fds)
{
	size_t i;

	for (i = 0; fds != NULL && paths != NULL && paths[i] != NULL; i++)
		if (fds[i] > 0)
			close(fds[i]);
	free(fds);
}

static int
build_dev(const int *devfd, struct pi_error *e)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },
		{ "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" },
		{ "/proc/self/fd/2", "/dev/stderr" },
	};
	char path[64];
	size_t i;

	if (tmpfs("/dev", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k", e)
	    == -1)
		return -1;
	for (i = 0; i < NDEV; i++) {
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		/* Binds inherit nodev from the view: clear it on these. */
		if (bind_fd(devfd[i], path, 0, ATTR_NODEV | ATTR_RDONLY, e)
		    == -1)
			return -1;
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][0], links[i][1]) == -1)
			return fail(e, "cannot link", links[i][1]);
	if (mkdir("/dev/shm", 01777) == -1)
		return fail(e, "cannot make", "/dev/shm");
	if (tmpfs("/dev/shm", MS_NOSUID | MS_NODEV, "mode=01777,size=1g", e)
	    == -1)
		return -1;
	/* Nothing new in /dev itself. */
	return setattr("/dev", 0, ATTR_RDONLY, 0, e);
}

/* What is laid over the view; on one path, in this order. */
enum { OP_HIDE, OP_RO, OP_RW };

struct op {
	char *path;
	int kind;
	int fd;		/* a bind's source */
	int is_dir;
};

static int
by_op(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : x->kind - y->kind;
}

static void
add_op(struct op *ops, size_t *n, const char *path, int kind, int fd)
{
	struct stat st;

	ops[*n].path = xstrdup(path);
	ops[*n].kind = kind;
	ops[*n].fd = fd;
	ops[*n].is_dir = fd == -1 ? stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode) : fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	++*n;
}

/*
 * Cover ops[i]: a directory by an empty tmpfs holding the mount points
 * of what is shown below it (the ops after it that it holds), then made
 * read-only; a file by /dev/null, which a nodev mount makes unusable.
 */
static int
hide(struct op *ops, size_t n, size_t i, int nullfd, struct pi_error *e)
{
	size_t j;
	int holes = 0;

	if (!ops[i].is_dir)
		return bind_fd(nullfd, ops[i].path, ATTR_RDONLY | ATTR_NODEV,
		    0, e);
	for (j = i + 1; j < n && place_holds(ops[i].path, ops[j].path); j++)
		holes |= ops[j].kind != OP_HIDE;
	if (!holes)
		return tmpfs(ops[i].path, MS_RDONLY | MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, "mode=000,size=4k", e);
	if (tmpfs(ops[i].path, MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "mode=0755,size=4k", e) == -1)
		return -1;
	for (j = i + 1; j < n && place_holds(ops[i].path, ops[j].path); j++)
		if (ops[j].kind != OP_HIDE &&
		    mountpoint(ops[j].path, ops[j].is_dir, e) == -1)
			return -1;
	return setattr(ops[i].path, 0, ATTR_RDONLY, 0, e);
}

/*
 * The workspace, writable, readable and masked paths, a parent before
 * what it holds.  A mask inside a mask has nothing to hide; a mask of
 * what is not there is skipped.
 */
static int
lay(struct op *ops, size_t n, int nullfd, struct pi_error *e)
{
	size_t *stack = xcalloc(n + 1, sizeof(*stack)), depth = 0, i;
	struct stat st;
	int rc = -1;

	qsort(ops, n, sizeof(*ops), by_op);
	for (i = 0; i < n; i++) {
		while (depth > 0 && !place_holds(ops[stack[depth - 1]].path,
		    ops[i].path))
			depth--;
		if (ops[i].kind == OP_HIDE) {
			if ((depth > 0 && ops[stack[depth - 1]].kind ==
			    OP_HIDE) || lstat(ops[i].path, &st) == -1)
				continue;
			if (hide(ops, n, i, nullfd, e) == -1)
				goto out;
		} else if (bind_fd(ops[i].fd, ops[i].path, ops[i].kind ==
		    OP_RO ? ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV :
		    ATTR_NOSUID | ATTR_NODEV, ops[i].kind == OP_RO ? 0 :
		    ATTR_RDONLY, e) == -1)
			goto out;
		stack[depth++] = i;
	}
	rc = 0;
out:
	free(stack);
	return rc;
}

/*
 * The repositories' parts that git on the host runs or reads
 * (gitguard.h): pins bound over themselves, then the rest read-only.
 * A path a mask hid is passed over; one that became a symlink since
 * the supervisor looked is refused.
 */
static int
guard_git(const struct mountview *v, struct pi_error *e)
{
	const char *const *lists[2] = { v->git_pins, v->git_ro };
	const char *path;
	struct stat st;
	size_t l, i;
	int fd, rc;

	for (l = 0; l < 2; l++)
		for (i = 0; lists[l] != NULL && lists[l][i] != NULL; i++) {
			path = lists[l][i];
			fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (fd == -1 && (errno == ENOENT || errno == ENOTDIR))
				continue;
			if (fd == -1)
				return fail(e, "cannot open", path);
			if (fstat(fd, &st) == -1 || S_ISLNK(st.st_mode)) {
				close(fd);
				errno = ELOOP;
				return fail(e, "cannot protect", path);
			}
			rc = bind_fd(fd, path, l == 0 ? ATTR_NOSUID |
			    ATTR_NODEV : ATTR_RDONLY | ATTR_NOSUID |
			    ATTR_NODEV, 0, e);
			close(fd);
			if (rc == -1)
				return -1;
		}
	return 0;
}

static int
build_proc(struct pi_error *e)
{
	static const char *const ro[] = {
		"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus",
		"/proc/fs",
	};
	size_t i;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) == -1)
		return fail(e, "cannot mount", "/proc");
	for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		if (access(ro[i], F_OK) == -1)
			continue;
		if (mount(ro[i], ro[i], NULL, MS_BIND | MS_REC, NULL) == -1)
			return fail(e, "cannot bind", ro[i]);
		if (setattr(ro[i], AT_RECURSIVE_, ATTR_RDONLY, 0, e) == -1)
			return -1;
	}
	return 0;
}

int
mountview_build(const struct mountview *v, struct pi_error *e)
{
	int *wfd = NULL, *rfd = NULL, devfd[NDEV], wsfd = -1, tmpfd = -1;
	char path[64], real[PATH_MAX];
	struct op *ops = NULL;
	size_t i, n = 0, max;
	int rc = -1;

	for (i = 0; i < NDEV; i++)
		devfd[i] = -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		fail(e, "cannot make private", "/");
		goto out;
	}
	/* Handles first: the workspace may be under /tmp, soon hidden. */
	if ((wsfd = open(v->workspace, O_PATH | O_CLOEXEC)) == -1) {
		fail(e, "cannot open", v->workspace);
		goto out;
	}
	if ((tmpfd = open(v->tmpdir, O_PATH | O_CLOEXEC)) == -1) {
		fail(e, "cannot open", v->tmpdir);
		goto out;
	}
	for (i = 0; i < NDEV; i++) {
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		if ((devfd[i] = open(path, O_PATH | O_CLOEXEC)) == -1) {
			fail(e, "cannot open", path);
			goto out;
		}
	}
	if (open_all(v->writable, &wfd, e) == -1 ||
	    open_all(v->readable, &rfd, e) == -1)
		goto out;
	for (max = 1, i = 0; v->writable != NULL && v->writable[i]; i++)
		max++;
	for (i = 0; v->readable != NULL && v->readable[i]; i++)
		max++;
	for (i = 0; v->masks != NULL && v->masks[i]; i++)
		max++;
	ops = xcalloc(max, sizeof(*ops));
	add_op(ops, &n, v->workspace, OP_RW, wsfd);
	for (i = 0; v->writable != NULL && v->writable[i] != NULL; i++)
		add_op(ops, &n, v->writable[i], OP_RW, wfd[i]);
	for (i = 0; v->readable != NULL && v->readable[i] != NULL; i++)
		add_op(ops, &n, v->readable[i], OP_RO, rfd[i]);
	/* Masks as they are now, on the host, before /tmp is replaced. */
	for (i = 0; v->masks != NULL && v->masks[i] != NULL; i++)
		if (realpath(v->masks[i], real) != NULL &&
		    strcmp(real, "/") != 0)
			add_op(ops, &n, real, OP_HIDE, -1);
	if (setattr("/", AT_RECURSIVE_, ATTR_RDONLY | ATTR_NOSUID |
	    ATTR_NODEV, 0, e) == -1)
		goto out;
	if (bind_fd(tmpfd, "/tmp", ATTR_NOSUID | ATTR_NODEV, ATTR_RDONLY, e)
	    == -1)
		goto out;
	if ((is_dir("/var/tmp") && tmpfs("/var/tmp", MS_NOSUID | MS_NODEV,
	    "mode=01777,size=1g", e) == -1) ||
	    (is_dir("/run") && tmpfs("/run", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=64m", e) == -1) ||
	    build_dev(devfd, e) == -1)
		goto out;
	if (lay(ops, n, devfd[0], e) == -1 || guard_git(v, e) == -1 ||
	    build_proc(e) == -1)
		goto out;
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(ops[i].path);
	free(ops);
	close_all(v->writable, wfd);
	close_all(v->readable, rfd);
	for (i = 0; i < NDEV; i++)
		if (devfd[i] != -1)
			close(devfd[i]);
	if (wsfd != -1)
		close(wsfd);
	if (tmpfd != -1)
		close(tmpfd);
	return rc;
}
