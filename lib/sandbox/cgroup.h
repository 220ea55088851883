/*
 * cgroup: a control group per tool call, where one can be made, for the
 * limits rlimits cannot give: a process count that holds for uid 0
 * (RLIMIT_NPROC does nothing for root) and a memory limit over the whole
 * tree, page cache and tmpfs included.
 *
 * cgroup_create makes a child of the caller's own cgroup in the v2
 * hierarchy when its pids and memory controllers can be had there, else
 * in the v1 pids and memory hierarchies, and writes the limits.  What
 * could not be made is simply absent (has_pids, has_memory stay 0) and
 * why is kept in reason[]: the caller decides whether that is fatal.
 * The files a process joins by are opened at once, so the sandboxed
 * child can join with cgroup_join (async-signal-safe, no allocation)
 * before it starts anything.  cgroup_kill kills every member;
 * cgroup_remove takes the directories away once they are empty.
 *
 * The cost of a move: any move of a whole process takes the global
 * threadgroup lock, whose first writer waits for an RCU grace period
 * (10-30 ms when moves are far apart).  A single-threaded process that
 * moves itself as one thread ("0" into v1's tasks) takes no such lock,
 * so on v1 the child joins itself (cgroup_self_join); on v2, where only
 * a threaded cgroup has a thread file, the supervisor moves it with
 * cgroup_join_pid while it builds its view.
 */
#ifndef PI_CGROUP_H
#define PI_CGROUP_H

#include <sys/types.h>

struct cgroup {
	char *dir[2];		/* made directories (one for v2) */
	int join[2];		/* v1: their tasks; v2: cgroup.procs; or -1 */
	int n;
	int version;		/* 1 or 2; 0 when none was made */
	int has_pids, has_memory;
	char reason[256];
};

void cgroup_init(struct cgroup *cg);
int cgroup_create(struct cgroup *cg, const char *name, long pids_max,
    long long memory_max);
int cgroup_join(const struct cgroup *cg);
/* Whether a (single-threaded) child should join itself, first thing. */
int cgroup_self_join(const struct cgroup *cg);
/* Put another process in (the slow move; see above). */
int cgroup_join_pid(const struct cgroup *cg, pid_t pid);
void cgroup_kill(const struct cgroup *cg);
void cgroup_remove(struct cgroup *cg);
/* Remove the (empty) cgroup of that name a killed call left behind. */
void cgroup_sweep(const char *name);

#endif
