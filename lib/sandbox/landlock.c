/* landlock: see landlock.h. */
#define _GNU_SOURCE
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"
#include "core/banned.h"

/* The kernel's uapi, as of ABI 8 (Linux 6.18 runs ABI 7). */
#define SYS_LL_CREATE	444
#define SYS_LL_ADD	445
#define SYS_LL_RESTRICT	446

#define LL_VERSION	(1u << 0)
#define LL_ERRATA	(1u << 1)
#define LL_PATH_BENEATH	1

#define FS_EXECUTE	(1ull << 0)
#define FS_WRITE_FILE	(1ull << 1)
#define FS_READ_FILE	(1ull << 2)
#define FS_READ_DIR	(1ull << 3)
#define FS_REMOVE_DIR	(1ull << 4)
#define FS_REMOVE_FILE	(1ull << 5)
#define FS_MAKE_CHAR	(1ull << 6)
#define FS_MAKE_DIR	(1ull << 7)
#define FS_MAKE_REG	(1ull << 8)
#define FS_MAKE_SOCK	(1ull << 9)
#define FS_MAKE_FIFO	(1ull << 10)
#define FS_MAKE_BLOCK	(1ull << 11)
#define FS_MAKE_SYM	(1ull << 12)
#define FS_REFER	(1ull << 13)	/* ABI 2 */
#define FS_TRUNCATE	(1ull << 14)	/* ABI 3 */
#define FS_IOCTL_DEV	(1ull << 15)	/* ABI 5 */
#define NET_BIND_TCP	(1ull << 0)	/* ABI 4 */
#define NET_CONNECT_TCP	(1ull << 1)
#define SCOPE_ABSTRACT	(1ull << 0)	/* ABI 6 */
#define SCOPE_SIGNAL	(1ull << 1)

/* Rights that only make sense on a file (EINVAL on others for files). */
#define FS_FILE_RIGHTS	(FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | \
	FS_TRUNCATE | FS_IOCTL_DEV)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

int
landlock_abi(int *errata)
{
	long abi, err;

	abi = syscall(SYS_LL_CREATE, NULL, 0, LL_VERSION);
	if (abi < 0)
		return 0;
	err = syscall(SYS_LL_CREATE, NULL, 0, LL_ERRATA);
	if (errata != NULL)
		*errata = err < 0 ? 0 : (int)err;
	return (int)abi;
}

uint64_t
landlock_fs_rights(int abi)
{
	uint64_t r;

	if (abi < 1)
		return 0;
	r = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_READ_DIR |
	    FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR |
	    FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK |
	    FS_MAKE_SYM;
	if (abi >= 2)
		r |= FS_REFER;
	if (abi >= 3)
		r |= FS_TRUNCATE;
	if (abi >= 5)
		r |= FS_IOCTL_DEV;
	return r;
}

static int
add_rules(int ruleset, const char *const *paths, uint64_t allowed,
    uint64_t handled, struct pi_error *e)
{
	struct ll_path_beneath pb;
	struct stat st;
	int fd;

	for (; paths != NULL && *paths != NULL; paths++) {
		fd = open(*paths, O_PATH | O_CLOEXEC);
		if (fd == -1 || fstat(fd, &st) == -1) {
			if (fd != -1)
				close(fd);
			return pi_err(e, PI_EXIT_SANDBOX, "landlock",
			    "landlock: cannot open '%s': %s", *paths,
			    strerror(errno));
		}
		pb.allowed_access = allowed & handled;
		if (!S_ISDIR(st.st_mode))
			pb.allowed_access &= FS_FILE_RIGHTS;
		pb.parent_fd = fd;
		if (syscall(SYS_LL_ADD, ruleset, LL_PATH_BENEATH, &pb, 0)
		    == -1) {
			close(fd);
			return pi_err(e, PI_EXIT_SANDBOX, "landlock",
			    "landlock: rule for '%s': %s", *paths,
			    strerror(errno));
		}
		close(fd);
	}
	return 0;
}

int
landlock_enforce(const struct landlock_rules *r, int abi, struct pi_error *e)
{
	struct ll_ruleset_attr attr;
	uint64_t handled, readable, writable;
	size_t size;
	int fd, rc = -1;

	if (abi < 1)
		return pi_err(e, PI_EXIT_SANDBOX, "landlock",
		    "landlock: not available in this kernel");
	memset(&attr, 0, sizeof(attr));
	handled = landlock_fs_rights(abi);
	attr.handled_access_fs = handled;
	/* The kernel reads only as much of the struct as its ABI has. */
	size = sizeof(attr.handled_access_fs);
	if (abi >= 4) {
		if (r->deny_tcp)
			attr.handled_access_net = NET_BIND_TCP |
			    NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = SCOPE_ABSTRACT | SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	fd = (int)syscall(SYS_LL_CREATE, &attr, size, 0);
	if (fd == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "landlock",
		    "landlock: create_ruleset: %s", strerror(errno));
	readable = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
	/* Writable trees get everything except making and driving devices. */
	writable = handled & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK | FS_IOCTL_DEV);
	if (add_rules(fd, r->read, readable, handled, e) == -1 ||
	    add_rules(fd, r->write, writable, handled, e) == -1 ||
	    add_rules(fd, r->devices, FS_READ_FILE | FS_WRITE_FILE |
	    FS_TRUNCATE, handled, e) == -1)
		goto out;
	if (syscall(SYS_LL_RESTRICT, fd, 0) == -1) {
		pi_err(e, PI_EXIT_SANDBOX, "landlock",
		    "landlock: restrict_self: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}
