/*
 * setid: try to give a file a set-id bit, a file capability or a device
 * node by one system call, and say what happened, for the pi-tool
 * escape suite (tests/2150).
 *
 *   setid HOW FILE
 *
 * The mode asked for is 06755 (setuid and setgid).  It prints "open"
 * when the call worked and "blocked: <call>: <reason>" when it did not,
 * and exits 0 either way (1 for bad usage); the test then looks at the
 * file from the host.  A call the seccomp filter kills ends the helper
 * by SIGSYS before it prints anything.
 *
 *   chmod fchmod fchmodat  the calls of those names (FILE exists)
 *   fchmodat2              syscall 452, which libc may not wrap
 *   x32                    chmod through the x32 ABI (nr | 0x40000000)
 *   i386                   chmod through int 0x80, the 32-bit ABI
 *   creat open openat      create FILE with the mode
 *   tmpfile                open(O_TMPFILE) in FILE's directory with the
 *                          mode, then linkat it to FILE
 *   mknod                  a regular FILE with the mode
 *   mknod-chr              a character device FILE (1:3, /dev/null)
 *   xattr                  set security.capability on FILE: cap_setuid
 *                          permitted and effective
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MODE	06755

/* x86_64 has the old calls; elsewhere they say ENOSYS. */
#ifndef SYS_chmod
#define SYS_chmod	-1
#define SYS_creat	-1
#define SYS_open	-1
#endif

static int
result(long rc, const char *what)
{
	if (rc == -1)
		printf("blocked: %s: %s\n", what, strerror(errno));
	else
		printf("open\n");
	return 0;
}

/* chmod(path, MODE) by int 0x80, the path copied below 4 GiB. */
static long
chmod_i386(const char *path)
{
#if defined(__x86_64__)
	char *low;
	long rc;

	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return -1;
	snprintf(low, 4096, "%s", path);
	/* 15 is chmod in the i386 table. */
	__asm__ volatile ("int $0x80" : "=a"(rc) : "a"(15L),
	    "b"((long)(uintptr_t)low), "c"((long)MODE) : "memory");
	if (rc < 0 && rc > -4096) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
#else
	(void)path;
	errno = ENOSYS;
	return -1;
#endif
}

static long
tmpfile_link(const char *path)
{
	char dir[4096], proc[64];
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((fd = open(dirname(dir), O_TMPFILE | O_WRONLY, MODE)) == -1)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int
main(int argc, char **argv)
{
	/* VFS_CAP_REVISION_2, cap_setuid (7) permitted, effective flag. */
	static const uint32_t cap[5] = { 0x02000001, 1u << 7, 0, 0, 0 };
	const char *how, *f;
	int fd;

	if (argc != 3) {
		fputs("usage: setid how file\n", stderr);
		return 1;
	}
	how = argv[1];
	f = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(how, "chmod") == 0)
		return result(syscall(SYS_chmod, f, MODE), how);
	if (strcmp(how, "fchmod") == 0) {
		if ((fd = open(f, O_RDONLY)) == -1)
			return result(-1, "open");
		return result(syscall(SYS_fchmod, fd, MODE), how);
	}
	if (strcmp(how, "fchmodat") == 0)
		return result(syscall(SYS_fchmodat, AT_FDCWD, f, MODE), how);
	if (strcmp(how, "fchmodat2") == 0)
		return result(syscall(452, AT_FDCWD, f, MODE, 0), how);
	if (strcmp(how, "x32") == 0)
		return result(SYS_chmod == -1 ? syscall(-1) :
		    syscall(0x40000000 | SYS_chmod, f, MODE), how);
	if (strcmp(how, "i386") == 0)
		return result(chmod_i386(f), how);
	if (strcmp(how, "creat") == 0)
		return result(syscall(SYS_creat, f, MODE), how);
	if (strcmp(how, "open") == 0)
		return result(syscall(SYS_open, f, O_CREAT | O_WRONLY, MODE),
		    how);
	if (strcmp(how, "openat") == 0)
		return result(syscall(SYS_openat, AT_FDCWD, f,
		    O_CREAT | O_WRONLY, MODE), how);
	if (strcmp(how, "tmpfile") == 0)
		return result(tmpfile_link(f), how);
	if (strcmp(how, "mknod") == 0)
		return result(mknod(f, S_IFREG | MODE, 0), how);
	if (strcmp(how, "mknod-chr") == 0)
		return result(mknod(f, S_IFCHR | 0666, makedev(1, 3)), how);
	if (strcmp(how, "xattr") == 0)
		return result(setxattr(f, "security.capability", cap,
		    sizeof(cap), 0), how);
	fprintf(stderr, "setid: unknown call '%s'\n", how);
	return 1;
}
