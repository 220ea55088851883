/* rmtree: see rmtree.h. */
#define _XOPEN_SOURCE 700	/* fdopendir, openat, unlinkat */
#include "rmtree.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

static void
walk(int at, const char *name, dev_t dev, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (depth > 4096 || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW)
	    == -1)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(at, name, 0);
		return;
	}
	if (st.st_dev != dev)
		return;
	(void)fchmodat(at, name, 0700, 0);
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			walk(dirfd(d), de->d_name, dev, depth + 1);
	closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

void
rmtree_at(int at, const char *name)
{
	struct stat st;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		walk(at, name, st.st_dev, 0);
}
