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

/* Whether a is b or a directory above it. */
static int
holds(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

static int
mask(const struct mountview *v, const char *path, int nullfd,
    struct pi_error *e)
{
	char real[PATH_MAX];
	struct stat st;
	size_t i;

	if (lstat(path, &st) == -1 || realpath(path, real) == NULL ||
	    stat(real, &st) == -1)
		return 0;
	if (holds(real, v->workspace))
		return 0;
	for (i = 0; v->writable != NULL && v->writable[i] != NULL; i++)
		if (holds(real, v->writable[i]))
			return 0;
	if (S_ISDIR(st.st_mode))
		return tmpfs(real, MS_RDONLY | MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, "mode=000,size=4k", e);
	/* On a nodev mount, opening /dev/null fails: unreadable. */
	return bind_fd(nullfd, real, ATTR_RDONLY | ATTR_NODEV, 0, e);
}

/*
 * .git/hooks and .git/config run code later, outside any sandbox, when
 * a person uses git: keep them read-only.  .git itself is bound over
 * itself so that it is a mount point, which cannot be renamed away and
 * replaced by a .git of the model's making.
 */
static int
protect_git(const char *ws, struct pi_error *e)
{
	static const char *const parts[] = { "hooks", "config" };
	char *git = xasprintf("%s/.git", ws), *p = NULL, real[PATH_MAX];
	struct stat st;
	size_t i;
	int fd = -1, rc = -1;

	if (lstat(git, &st) == -1 || !S_ISDIR(st.st_mode)) {
		free(git);
		return 0;
	}
	if ((fd = open(git, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    bind_fd(fd, git, ATTR_NOSUID | ATTR_NODEV, 0, e) == -1)
		goto out;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		close(fd);
		fd = -1;
		free(p);
		p = xasprintf("%s/%s", git, parts[i]);
		/* No hooks yet: make the directory, so it can be covered. */
		if (i == 0 && lstat(p, &st) == -1 && mkdir(p, 0755) == -1) {
			fail(e, "cannot make", p);
			goto out;
		}
			if ((fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1) {
			if (errno == ENOENT)
				continue;
			fail(e, "cannot open", p);
			goto out;
		}
		/* A symlink (hooks -> ../.husky) is followed once, here. */
		if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			if ((fd = open(p, O_PATH | O_CLOEXEC)) == -1)
				continue;
			if (realpath(p, real) == NULL) {
				fail(e, "cannot resolve", p);
				goto out;
			}
			free(p);
			p = xstrdup(real);
		}
		if (bind_fd(fd, p, ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, 0,
		    e) == -1)
			goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	free(p);
	free(git);
	return rc;
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
	char path[64];
	size_t i;
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
	if (bind_fd(wsfd, v->workspace, ATTR_NOSUID | ATTR_NODEV,
	    ATTR_RDONLY, e) == -1)
		goto out;
	for (i = 0; v->writable != NULL && v->writable[i] != NULL; i++)
		if (bind_fd(wfd[i], v->writable[i], ATTR_NOSUID | ATTR_NODEV,
		    ATTR_RDONLY, e) == -1)
			goto out;
	for (i = 0; v->readable != NULL && v->readable[i] != NULL; i++)
		if (bind_fd(rfd[i], v->readable[i], ATTR_RDONLY |
		    ATTR_NOSUID | ATTR_NODEV, 0, e) == -1)
			goto out;
	if (v->protect_git && protect_git(v->workspace, e) == -1)
		goto out;
	for (i = 0; v->masks != NULL && v->masks[i] != NULL; i++)
		if (mask(v, v->masks[i], devfd[0], e) == -1)
			goto out;
	if (build_proc(e) == -1)
		goto out;
	rc = 0;
out:
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
