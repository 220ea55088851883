/* cgroup: see cgroup.h. */
#define _GNU_SOURCE
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "core/banned.h"

void
cgroup_init(struct cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->join[0] = cg->join[1] = -1;
}

static int
put(const char *dir, const char *file, const char *value)
{
	char *path = xasprintf("%s/%s", dir, file);
	size_t n = strlen(value);
	int fd, rc = -1;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) != -1) {
		if (write(fd, value, n) == (ssize_t)n)
			rc = 0;
		if (close(fd) == -1)
			rc = -1;
	}
	free(path);
	return rc;
}

static int
exists(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = access(path, F_OK) == 0;

	free(path);
	return rc;
}

/*
 * Where the hierarchy holding controller (or the v2 one, for NULL) is
 * mounted, joined with the caller's place in it.
 */
static char *
own_dir(const char *controller)
{
	char line[4096], mnt[2048], root[2048], type[64], opts[1024];
	char *dir = NULL, *rel = NULL, *p, *q;
	FILE *f;
	int want_v2 = controller == NULL;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return NULL;
	while (rel == NULL && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		/* hierarchy-id:controller-list:path */
		if ((p = strchr(line, ':')) == NULL ||
		    (q = strchr(p + 1, ':')) == NULL)
			continue;
		*q = '\0';
		if (want_v2 ? strcmp(line, "0") == 0 && p[1] == '\0' :
		    strstr(p + 1, controller) != NULL)
			rel = xstrdup(q + 1);
	}
	fclose(f);
	if (rel == NULL || (f = fopen("/proc/self/mountinfo", "re")) == NULL)
		goto out;
	while (dir == NULL && fgets(line, sizeof(line), f) != NULL) {
		/* id parent maj:min root mountpoint opts ... - type src opts */
		if (sscanf(line, "%*s %*s %*s %2047s %2047s", root, mnt) != 2 ||
		    (p = strstr(line, " - ")) == NULL ||
		    sscanf(p + 3, "%63s %*s %1023s", type, opts) != 2)
			continue;
		if (want_v2 ? strcmp(type, "cgroup2") != 0 :
		    strcmp(type, "cgroup") != 0 || strstr(opts, controller) ==
		    NULL)
			continue;
		/* A mount of a subtree shows the path below its root. */
		p = rel;
		if (strcmp(root, "/") != 0) {
			if (strncmp(rel, root, strlen(root)) != 0)
				continue;
			p += strlen(root);
		}
		dir = xasprintf("%s%s", mnt, p);
	}
	fclose(f);
out:
	free(rel);
	return dir;
}

static int
make(struct cgroup *cg, const char *parent, const char *name,
    const char *join_file)
{
	char *dir = xasprintf("%s/%s", parent, name), *path;
	int fd;

	if (mkdir(dir, 0700) == -1) {
		snprintf(cg->reason, sizeof(cg->reason), "mkdir %s: %s", dir,
		    strerror(errno));
		free(dir);
		return -1;
	}
	path = xasprintf("%s/%s", dir, join_file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
	if (fd == -1) {
		snprintf(cg->reason, sizeof(cg->reason), "%s: %s", dir,
		    strerror(errno));
		rmdir(dir);
		free(dir);
		return -1;
	}
	cg->dir[cg->n] = dir;
	cg->join[cg->n++] = fd;
	return 0;
}

static void
limit_pids(struct cgroup *cg, const char *dir, long pids_max)
{
	char v[32];

	snprintf(v, sizeof(v), "%ld", pids_max);
	if (put(dir, "pids.max", v) == 0)
		cg->has_pids = 1;
}

static int
try_v2(struct cgroup *cg, const char *name, long pids_max,
    long long memory_max)
{
	char *parent = own_dir(NULL), v[32];

	if (parent == NULL)
		return -1;
	/* Needs the controllers handed down; fails where it may not. */
	if (!exists(parent, "cgroup.subtree_control") ||
	    (put(parent, "cgroup.subtree_control", "+pids +memory") == -1 &&
	    put(parent, "cgroup.subtree_control", "+pids") == -1) ||
	    make(cg, parent, name, "cgroup.procs") == -1) {
		free(parent);
		return -1;
	}
	free(parent);
	if (!exists(cg->dir[0], "pids.max")) {
		cgroup_remove(cg);
		return -1;
	}
	cg->version = 2;
	limit_pids(cg, cg->dir[0], pids_max);
	snprintf(v, sizeof(v), "%lld", memory_max);
	if (put(cg->dir[0], "memory.max", v) == 0) {
		/* No swap to hide in; absent where there is no swap. */
		(void)put(cg->dir[0], "memory.swap.max", "0");
		cg->has_memory = 1;
	}
	return 0;
}

static void
try_v1(struct cgroup *cg, const char *name, long pids_max,
    long long memory_max)
{
	char *parent, v[32];

	if ((parent = own_dir("pids")) != NULL &&
	    make(cg, parent, name, "tasks") == 0)
		limit_pids(cg, cg->dir[cg->n - 1], pids_max);
	free(parent);
	if ((parent = own_dir("memory")) != NULL &&
	    make(cg, parent, name, "tasks") == 0) {
		snprintf(v, sizeof(v), "%lld", memory_max);
		if (put(cg->dir[cg->n - 1], "memory.limit_in_bytes", v) == 0)
			cg->has_memory = 1;
		if (exists(cg->dir[cg->n - 1], "memory.memsw.limit_in_bytes"))
			(void)put(cg->dir[cg->n - 1],
			    "memory.memsw.limit_in_bytes", v);
	}
	free(parent);
	if (cg->n > 0)
		cg->version = 1;
}

int
cgroup_create(struct cgroup *cg, const char *name, long pids_max,
    long long memory_max)
{
	if (try_v2(cg, name, pids_max, memory_max) == 0)
		return 0;
	try_v1(cg, name, pids_max, memory_max);
	if (cg->n == 0 && cg->reason[0] == '\0')
		snprintf(cg->reason, sizeof(cg->reason),
		    "no writable cgroup hierarchy");
	return cg->n > 0 ? 0 : -1;
}

int
cgroup_join(const struct cgroup *cg)
{
	int i;

	for (i = 0; i < cg->n; i++)
		if (write(cg->join[i], "0", 1) != 1)
			return -1;
	return 0;
}

int
cgroup_self_join(const struct cgroup *cg)
{
	return cg->version == 1;
}

int
cgroup_join_pid(const struct cgroup *cg, pid_t pid)
{
	char b[32];
	int i, n = snprintf(b, sizeof(b), "%ld", (long)pid);

	for (i = 0; i < cg->n; i++)
		if (write(cg->join[i], b, (size_t)n) != n)
			return -1;
	return 0;
}

void
cgroup_kill(const struct cgroup *cg)
{
	char *path, line[32];
	FILE *f;
	int i, round, found;

	for (i = 0; i < cg->n; i++) {
		if (cg->version == 2 && put(cg->dir[i], "cgroup.kill", "1")
		    == 0)
			continue;
		/* v1: kill what is listed until nothing is (forks race us). */
		path = xasprintf("%s/cgroup.procs", cg->dir[i]);
		for (round = 0; round < 100; round++) {
			if ((f = fopen(path, "re")) == NULL)
				break;
			found = 0;
			while (fgets(line, sizeof(line), f) != NULL) {
				long pid = strtol(line, NULL, 10);

				if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
					found = 1;
			}
			fclose(f);
			if (!found)
				break;
		}
		free(path);
	}
}

void
cgroup_remove(struct cgroup *cg)
{
	struct timespec ms = { 0, 1000000 };
	int i, tries;

	for (i = 0; i < cg->n; i++) {
		if (cg->join[i] != -1)
			close(cg->join[i]);
		/* The last members may still be on their way out. */
		for (tries = 0; tries < 200 && rmdir(cg->dir[i]) == -1 &&
		    errno == EBUSY; tries++)
			nanosleep(&ms, NULL);
		free(cg->dir[i]);
	}
	cgroup_init(cg);
}

void
cgroup_sweep(const char *name)
{
	static const char *const controllers[] = { NULL, "pids", "memory" };
	char *parent, *dir;
	size_t i;

	for (i = 0; i < sizeof(controllers) / sizeof(controllers[0]); i++) {
		if ((parent = own_dir(controllers[i])) == NULL)
			continue;
		dir = xasprintf("%s/%s", parent, name);
		(void)rmdir(dir);
		free(dir);
		free(parent);
	}
}
