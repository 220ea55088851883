/* sandbox: see sandbox.h.  The supervisor's side. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "landlock.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/place.h"
#include "core/rmtree.h"
#include "core/util.h"
#include "core/banned.h"

extern char **environ;

/*
 * Below a home directory, were it shown (--allow-read of it, or a
 * workspace that is one): what holds keys, tokens, passwords, and what
 * was typed at a prompt.  The home itself is hidden by default, so this
 * list is a second wall, not the first.
 */
static const char *const credentials[] = {
	".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".docker", ".kube",
	".git-credentials", ".config/git/credentials", ".config/gcloud",
	".azure", ".password-store", ".npmrc", ".pypirc", ".cargo/credentials",
	".cargo/credentials.toml", ".pgpass", ".my.cnf", ".vault-token",
	".s3cfg", ".boto", ".config/rclone", ".terraform.d", ".terraformrc",
	".cache/huggingface", ".huggingface", ".gem/credentials", ".m2",
	".config/hub", ".config/glab-cli", ".config/containers",
	".local/share/keyrings", ".config/op", ".mozilla",
	".config/google-chrome", ".config/chromium", ".bash_history",
	".zsh_history", ".python_history", ".psql_history", ".mysql_history",
	".sqlite_history", ".node_repl_history", ".local/share/fish",
	".lesshst", ".viminfo",
};

/* What tools need of a home, shown read-only: git's own configuration. */
static const char *const home_shown[] = {
	".gitconfig", ".config/git/config", ".config/git/ignore",
	".config/git/attributes",
};

static void
push_under(struct strv *v, const char *dir, const char *sub, int present)
{
	struct stat st;
	char *s = xasprintf("%s/%s", dir, sub);

	if (!present || stat(s, &st) == 0)
		strv_push(v, s);
	free(s);
}

static void
add_home(struct sandbox_policy *p, const char *home)
{
	char real[PATH_MAX];
	size_t i;

	if (realpath(home, real) == NULL || strcmp(real, "/") == 0)
		return;
	for (i = 0; i < p->masks.n; i++)
		if (strcmp(p->masks.v[i], real) == 0)
			return;
	strv_push(&p->masks, real);
	for (i = 0; i < sizeof(credentials) / sizeof(credentials[0]); i++)
		push_under(&p->masks, real, credentials[i], 0);
	for (i = 0; i < sizeof(home_shown) / sizeof(home_shown[0]); i++)
		push_under(&p->allow_read, real, home_shown[i], 1);
}

/* $VAR/sub if VAR is an absolute path, else $HOME/fallback/sub. */
static void
add_xdg(struct sandbox_policy *p, const char *var, const char *fallback)
{
	const char *v = getenv(var), *home = getenv("HOME");
	char *s = NULL;

	if (v != NULL && *v == '/')
		s = xasprintf("%s/pi", v);
	else if (home != NULL && *home == '/')
		s = xasprintf("%s/%s/pi", home, fallback);
	if (s != NULL)
		strv_push(&p->masks, s);
	free(s);
}

void
sandbox_default_masks(struct sandbox_policy *p)
{
	const char *home = getenv("HOME"), *pi = getenv("PI_HOME");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	struct passwd *pw = getpwuid(getuid());
	glob_t g;
	size_t i;
	char *db;

	if (home != NULL && *home == '/')
		add_home(p, home);
	if (pw != NULL && pw->pw_dir != NULL && *pw->pw_dir == '/' &&
	    (home == NULL || strcmp(home, pw->pw_dir) != 0))
		add_home(p, pw->pw_dir);
	/* Everyone else's too. */
	add_home(p, "/home");
	add_home(p, "/root");
	/* git reads its own from $XDG_CONFIG_HOME/git, wherever that is. */
	if (xdg != NULL && *xdg == '/')
		for (i = 1; i < sizeof(home_shown) / sizeof(home_shown[0]);
		    i++)
			push_under(&p->allow_read, xdg, home_shown[i] + 8, 1);
	/* pi's own: keys, and every session's conversation. */
	if (pi != NULL && *pi == '/')
		strv_push(&p->masks, pi);
	else {
		add_xdg(p, "XDG_CONFIG_HOME", ".config");
		add_xdg(p, "XDG_DATA_HOME", ".local/share");
	}
	db = place_sessions_db();
	place_db_paths(db, &p->masks);
	free(db);
	/* uid 0 owns these, and owners read without any capability. */
	strv_push(&p->masks, "/etc/shadow");
	strv_push(&p->masks, "/etc/gshadow");
	if (glob("/etc/ssh/ssh_host_*_key", 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			strv_push(&p->masks, g.gl_pathv[i]);
		globfree(&g);
	}
}

void
sandbox_unmask(struct sandbox_policy *p, const char *real_path)
{
	char buf[PATH_MAX];
	size_t i, j;

	for (i = 0; i < p->masks.n; i++) {
		if (strcmp(p->masks.v[i], real_path) != 0 &&
		    (realpath(p->masks.v[i], buf) == NULL ||
		    strcmp(buf, real_path) != 0))
			continue;
		free(p->masks.v[i]);
		for (j = i; j < p->masks.n; j++)
			p->masks.v[j] = p->masks.v[j + 1];
		p->masks.n--;
		i--;
	}
}

/* The caller's PATH without relative parts, or a usual one. */
static char *
safe_path(void)
{
	const char *path = getenv("PATH");
	char *copy, *part, *save = NULL;
	struct buf b;

	if (path == NULL || *path == '\0')
		return xstrdup("/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:"
		    "/usr/sbin:/sbin");
	buf_init(&b, 1 << 16);
	copy = xstrdup(path);
	for (part = copy; part != NULL; part = save) {
		if ((save = strchr(part, ':')) != NULL)
			*save++ = '\0';
		if (*part == '/')
			(void)buf_addf(&b, "%s%s", b.len ? ":" : "", part);
	}
	free(copy);
	return buf_detach(&b, NULL);
}

/*
 * The environment of a job: an allowlist of the caller's, plus fixed
 * values.  Nothing else: no key, token or proxy reaches a tool.
 */
static void
make_env(struct strv *env, const char *workspace, const char *tmp)
{
	static const char *const pass[] = {
		"LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "HOME", "NO_COLOR",
	};
	char **ep, *s;
	size_t i;

	s = safe_path();
	strv_push(env, "PATH=");
	free(env->v[env->n - 1]);
	env->v[env->n - 1] = xasprintf("PATH=%s", s);
	free(s);
	for (ep = environ; *ep != NULL; ep++) {
		for (i = 0; i < sizeof(pass) / sizeof(pass[0]); i++) {
			size_t n = strlen(pass[i]);

			if (strncmp(*ep, pass[i], n) == 0 && (*ep)[n] == '=')
				strv_push(env, *ep);
		}
		if (strncmp(*ep, "LC_", 3) == 0 && strchr(*ep, '=') != NULL)
			strv_push(env, *ep);
	}
	strv_push(env, "TERM=dumb");
	strv_push(env, "SHELL=/bin/bash");
	s = xasprintf("TMPDIR=%s", tmp);
	strv_push(env, s);
	free(s);
	s = xasprintf("PWD=%s", workspace);
	strv_push(env, s);
	free(s);
}

/*
 * The layers, in the order they are applied; a pi_error's code is one
 * of these static strings.
 */
static const char *const layers[] = {
	"user", "mount", "pid", "ipc", "uts", "net", "processes", "memory",
	"setsid", "fds", "rlimits", "caps", "nnp", "landlock", "seccomp",
};

static const char *
layer_name(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++)
		if (strcmp(layers[i], s) == 0)
			return layers[i];
	return "sandbox";
}

static void
degrade(struct sandbox *sb, const char *layer, const char *reason)
{
	struct json_object *d = json_object_new_object();

	jsonx_set_str(d, "layer", layer);
	jsonx_set_str(d, "reason", reason);
	json_object_array_add(sb->degraded, d);
}

/* A layer the caller wants is missing: refuse, or note it. */
static int
missing(struct sandbox *sb, const struct sandbox_policy *p,
    const char *layer, const char *reason, struct pi_error *e)
{
	if (!p->allow_degraded)
		return pi_err(e, PI_EXIT_SANDBOX, layer,
		    "sandbox layer '%s' cannot be applied: %s", layer, reason);
	degrade(sb, layer, reason);
	return 0;
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void
child_paths(struct sandbox_child *c, int view)
{
	static const char *const devs[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
		"/dev/urandom",
	};
	static const char *const private[] = { "/var/tmp", "/dev/shm", "/run" };
	size_t i;

	strv_release(&c->write_roots);
	strv_push(&c->read_roots, "/");
	strv_push(&c->write_roots, c->p->workspace);
	strv_push(&c->write_roots, c->sb->tmp_view);
	/* Without a mount namespace these are the host's own. */
	for (i = 0; view && i < sizeof(private) / sizeof(private[0]); i++)
		if (is_dir(private[i]))
			strv_push(&c->write_roots, private[i]);
	for (i = 0; i < c->p->allow_write.n; i++)
		strv_push(&c->write_roots, c->p->allow_write.v[i]);
	for (i = 0; c->devices.n == 0 && i < sizeof(devs) / sizeof(devs[0]);
	    i++)
		strv_push(&c->devices, devs[i]);
}

/*
 * A call killed outright (SIGKILL) leaves its temp directory and its
 * cgroup behind.  A live call holds a lock on its directory (process 1
 * of its sandbox shares it), so what can be locked here is left over:
 * take it away, with the cgroup of the same name.  Young directories
 * are spared, since a call locks its own just after making it.
 */
static void
sweep(const char *base)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if ((d = opendir(base)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "pi-tool.", 8) != 0)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			continue;
		if (fstat(fd, &st) == 0 && st.st_uid == getuid() &&
		    st.st_ctime < time(NULL) - 60 &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0) {
			cgroup_sweep(de->d_name);
			rmtree_at(dirfd(d), de->d_name);
		}
		close(fd);
	}
	closedir(d);
}

static int
tmpdir(struct sandbox *sb, struct pi_error *e)
{
	const char *base = getenv("TMPDIR");
	char *t;

	if (base == NULL || *base != '/')
		base = "/tmp";
	sweep(base);
	t = xasprintf("%s/pi-tool.XXXXXX", base);
	if (mkdtemp(t) == NULL) {
		pi_err(e, PI_EXIT_SANDBOX, "tmp",
		    "cannot make a temp directory in '%s': %s", base,
		    strerror(errno));
		free(t);
		return -1;
	}
	sb->tmpdir = t;
	if ((sb->lock = open(t, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    flock(sb->lock, LOCK_EX) == -1)
		return pi_err(e, PI_EXIT_SANDBOX, "tmp", "cannot lock '%s': %s",
		    t, strerror(errno));
	return 0;
}

static void
close_pair(int p[2])
{
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* Read the child's records until the command is about to run. */
static int
await_ready(struct sandbox *sb, struct pi_error *e)
{
	struct sandbox_report r;
	struct pollfd pfd = { sb->report, POLLIN, 0 };
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, 30000) == 0)
			return pi_err(e, PI_EXIT_SANDBOX, "sandbox",
			    "sandbox: no word from the sandbox in 30 s");
		n = read(sb->report, &r, sizeof(r));
		if (n == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(r))
			return pi_err(e, PI_EXIT_SANDBOX, "sandbox",
			    "sandbox: it ended before the command started");
		r.layer[sizeof(r.layer) - 1] = r.msg[sizeof(r.msg) - 1] = '\0';
		switch (r.kind) {
		case REPORT_DEGRADED:
			degrade(sb, r.layer, r.msg);
			break;
		case REPORT_FATAL:
			return pi_err(e, PI_EXIT_SANDBOX, layer_name(r.layer),
			    "sandbox layer '%s' cannot be applied: %s",
			    r.layer, r.msg);
		case REPORT_READY:
			return 0;
		}
	}
}

static void
child_release(struct sandbox_child *c)
{
	strv_release(&c->read_roots);
	strv_release(&c->write_roots);
	strv_release(&c->devices);
}

/* Without namespaces (degraded): the command is our own child. */
static pid_t
spawn_plain(struct sandbox_child *c, const struct sandbox_policy *p,
    int saved, struct pi_error *e)
{
	static const char *const ns[] = { "mount", "pid", "ipc", "uts" };
	char reason[160];
	pid_t pid;
	size_t i;

	snprintf(reason, sizeof(reason), "cannot make namespaces: clone: %s",
	    strerror(saved));
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (missing(c->sb, p, ns[i], reason, e) == -1)
			return -1;
	if (!p->network && missing(c->sb, p, "net", reason, e) == -1)
		return -1;
	c->sb->pidns = c->sb->userns = 0;
	c->sb->tmp_view = c->sb->tmpdir;
	child_paths(c, 0);
	strv_release(&c->sb->env);
	make_env(&c->sb->env, p->workspace, c->sb->tmp_view);
	if ((pid = fork()) == -1) {
		pi_err(e, PI_EXIT_SANDBOX, "pid", "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
		    cgroup_join(&c->sb->cg) == -1)
			_exit(127);
		sandbox_child_scrub();
		sandbox_child_command(c);
	}
	return pid;
}

/* The repositories of the writable paths: what git must find as it was. */
static void
guard(struct sandbox *sb, const struct sandbox_policy *p)
{
	struct strv roots = { NULL, 0 };
	size_t i;

	strv_push(&roots, p->workspace);
	for (i = 0; i < p->allow_write.n; i++)
		strv_push(&roots, p->allow_write.v[i]);
	gitguard_scan(&sb->guard, strv_list(&roots),
	    strv_list(&p->allow_write));
	strv_release(&roots);
}

int
sandbox_start(struct sandbox *sb, const struct sandbox_policy *p,
    const struct sandbox_job *job, struct pi_error *e)
{
	struct sandbox_child c;
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, rep[2] = { -1, -1 };
	int life[2] = { -1, -1 }, joined[2] = { -1, -1 }, saved, we_move;
	char ok;
	char name[64], reason[400];
	long flags;
	pid_t pid;

	memset(sb, 0, sizeof(*sb));
	sb->pid = -1;
	sb->pidfd = sb->out = sb->err = sb->report = sb->life = -1;
	sb->lock = -1;
	cgroup_init(&sb->cg);
	sb->degraded = json_object_new_array();
	sb->landlock_abi = landlock_abi(&sb->landlock_errata);
	sb->userns = geteuid() != 0;
	sb->pidns = 1;
	sb->tmp_view = "/tmp";
	if (tmpdir(sb, e) == -1)
		return -1;
	if (p->protect_git)
		guard(sb, p);
	snprintf(name, sizeof(name), "%s", strrchr(sb->tmpdir, '/') + 1);
	cgroup_create(&sb->cg, name, p->pids_max, p->memory_max);
	/* RLIMIT_NPROC holds for other uids; uid 0 needs the cgroup. */
	if (!sb->cg.has_pids && !sb->userns) {
		snprintf(reason, sizeof(reason), "no pids cgroup (%s), and "
		    "RLIMIT_NPROC does not hold for uid 0", sb->cg.reason);
		if (missing(sb, p, "processes", reason, e) == -1)
			return -1;
	}
	/* Who puts the child in its cgroup: see cgroup.h. */
	we_move = sb->cg.n > 0 && !cgroup_self_join(&sb->cg);
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    pipe2(rep, O_CLOEXEC) == -1 || pipe2(life, O_CLOEXEC) == -1 ||
	    (we_move && pipe2(joined, O_CLOEXEC) == -1)) {
		pi_err(e, PI_EXIT_SANDBOX, "fds", "pipe: %s", strerror(errno));
		goto fail;
	}
	memset(&c, 0, sizeof(c));
	c.sb = sb;
	c.p = p;
	c.job = job;
	c.out = out[1];
	c.err = err[1];
	c.report = rep[1];
	c.life = life[0];
	c.joined = joined[0];
	c.uid = getuid();
	c.gid = getgid();
	child_paths(&c, 1);
	make_env(&sb->env, p->workspace, sb->tmp_view);
	flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
	    SIGCHLD;
	if (!p->network)
		flags |= CLONE_NEWNET;
	if (sb->userns)
		flags |= CLONE_NEWUSER;
	/* A fork into new namespaces: no stack of its own is needed. */
	pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		close(out[0]);
		close(err[0]);
		close(rep[0]);
		close(life[1]);
		if (we_move)
			close(joined[1]);
		sandbox_child_init(&c);
	}
	saved = errno;
	/* Its cgroup, while it builds its view; it waits for the answer. */
	if (pid > 0 && we_move) {
		ok = cgroup_join_pid(&sb->cg, pid) == 0 ? '1' : '0';
		(void)write(joined[1], &ok, 1);
	}
	if (pid == -1 && (pid = spawn_plain(&c, p, saved, e)) == -1) {
		child_release(&c);
		goto fail;
	}
	child_release(&c);
	sb->pid = pid;
	sb->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	sb->out = out[0];
	sb->err = err[0];
	sb->report = rep[0];
	sb->life = life[1];
	close(out[1]);
	close(err[1]);
	close(rep[1]);
	close(life[0]);
	close_pair(joined);
	if (await_ready(sb, e) == -1)
		return -1;
	return 0;
fail:
	close_pair(out);
	close_pair(err);
	close_pair(rep);
	close_pair(life);
	close_pair(joined);
	return -1;
}

void
sandbox_stop(struct sandbox *sb, int sig)
{
	if (sb->pid <= 0 || sb->reaped)
		return;
	if (sig == SIGKILL) {
		kill(sb->pid, SIGKILL);
		if (!sb->pidns)
			kill(-sb->pid, SIGKILL);
		cgroup_kill(&sb->cg);
		return;
	}
	/* Process 1 passes it to the command's group. */
	kill(sb->pidns ? sb->pid : -sb->pid, sig);
}

/* Process 1 (or the command) has ended: collect it. */
static void
reap(struct sandbox *sb)
{
	int st;

	if (waitpid(sb->pid, &st, 0) == -1)
		st = 0;
	sb->reaped = 1;
	if (sb->pidns)
		return;
	/* No namespace killed the rest: do it, as process 1's end would. */
	sb->have_exit = 1;
	sb->exit_status = st;
	kill(-sb->pid, SIGKILL);
	cgroup_kill(&sb->cg);
}

static void
read_report(struct sandbox *sb)
{
	struct sandbox_report r;
	ssize_t n = read(sb->report, &r, sizeof(r));

	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n != (ssize_t)sizeof(r)) {
		close(sb->report);
		sb->report = -1;
		return;
	}
	if (r.kind == REPORT_EXIT) {
		sb->have_exit = 1;
		sb->exit_status = r.status;
	}
}

/* Returns -1 when the callback asked for a stop. */
static int
read_output(struct sandbox *sb, int *fd, int stream,
    const struct sandbox_io *io)
{
	char chunk[65536];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	(void)sb;
	return io->output(io->arg, stream, chunk, (size_t)n);
}

static long long
min_wait(long long a, long long b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

int
sandbox_run(struct sandbox *sb, const struct sandbox_policy *p,
    const struct sandbox_io *io, struct sandbox_outcome *o,
    struct pi_error *e)
{
	long long start = pi_mono_ms(), now, nap, kill_at = -1, drain = -1;
	long long deadline = start + p->timeout_ms, tick = start + 1000;
	struct pollfd pfd[4];
	struct timespec ts;
	sigset_t mask;
	int i, n;

	memset(o, 0, sizeof(*o));
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGHUP);
	while (sb->out != -1 || sb->err != -1 || !sb->reaped) {
		now = pi_mono_ms();
		if (io->interrupt != NULL && *io->interrupt) {
			/* A second signal does not wait for the grace. */
			if (o->interrupted)
				kill_at = now;
			else {
				o->interrupted = *io->interrupt;
				sandbox_stop(sb, SIGTERM);
				kill_at = now + p->grace_ms;
			}
			*io->interrupt = 0;
		}
		if (!sb->have_exit && !o->timed_out && now >= deadline) {
			o->timed_out = 1;
			sandbox_stop(sb, SIGKILL);
		}
		if (kill_at >= 0 && now >= kill_at) {
			sandbox_stop(sb, SIGKILL);
			kill_at = -1;
		}
		if (io->tick != NULL && now >= tick) {
			tick = now + 1000;
			if (io->tick(io->arg) == -1 && !o->stopped) {
				o->stopped = 1;
				sandbox_stop(sb, SIGKILL);
			}
		}
		/* Gone, but something outside it holds a pipe: stop waiting. */
		if (sb->reaped && drain < 0)
			drain = now + 2000;
		if (drain >= 0 && now >= drain)
			break;
		n = 0;
		if (sb->out != -1)
			pfd[n++] = (struct pollfd){ sb->out, POLLIN, 0 };
		if (sb->err != -1)
			pfd[n++] = (struct pollfd){ sb->err, POLLIN, 0 };
		if (sb->report != -1)
			pfd[n++] = (struct pollfd){ sb->report, POLLIN, 0 };
		if (!sb->reaped && sb->pidfd != -1)
			pfd[n++] = (struct pollfd){ sb->pidfd, POLLIN, 0 };
		nap = tick - now;
		if (!sb->have_exit && !o->timed_out)
			nap = min_wait(nap, deadline - now);
		nap = min_wait(nap, kill_at >= 0 ? kill_at - now : -1);
		nap = min_wait(nap, drain >= 0 ? drain - now : -1);
		if (!sb->reaped && sb->pidfd == -1)
			nap = min_wait(nap, 20);
		if (nap < 0)
			nap = 0;
		ts.tv_sec = nap / 1000;
		ts.tv_nsec = (nap % 1000) * 1000000;
		if (ppoll(pfd, (nfds_t)n, &ts, &mask) == -1) {
			if (errno == EINTR)
				continue;
			return pi_err(e, PI_EXIT_FAIL, "internal", "ppoll: %s",
			    strerror(errno));
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == sb->report)
				read_report(sb);
			else if (pfd[i].fd == sb->pidfd)
				reap(sb);
			else if (read_output(sb, pfd[i].fd == sb->out ?
			    &sb->out : &sb->err, pfd[i].fd == sb->out ? 1 : 2,
			    io) == -1 && !o->stopped) {
				o->stopped = 1;
				sandbox_stop(sb, SIGKILL);
			}
		}
		if (!sb->reaped && sb->pidfd == -1 &&
		    waitpid(sb->pid, NULL, WNOHANG | WNOWAIT) == sb->pid)
			reap(sb);
	}
	while (sb->report != -1)
		read_report(sb);
	o->duration_ms = pi_mono_ms() - start;
	if (sb->have_exit && WIFEXITED(sb->exit_status)) {
		o->exited = 1;
		o->code = WEXITSTATUS(sb->exit_status);
	} else if (sb->have_exit && WIFSIGNALED(sb->exit_status))
		o->signal = WTERMSIG(sb->exit_status);
	else
		o->signal = SIGKILL;
	return 0;
}

struct json_object *
sandbox_status(const struct sandbox *sb, const struct sandbox_policy *p)
{
	struct json_object *o = json_object_new_object(), *a, *d;
	size_t i, j;
	int lost;

	a = json_object_new_array();
	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		if ((strcmp(layers[i], "user") == 0 && !sb->userns) ||
		    (strcmp(layers[i], "net") == 0 && p->network))
			continue;
		for (lost = 0, j = 0; j < json_object_array_length(
		    sb->degraded); j++) {
			d = json_object_array_get_idx(sb->degraded, j);
			if (strcmp(jsonx_str(d, "layer"), layers[i]) == 0)
				lost = 1;
		}
		if (!lost)
			json_object_array_add(a, json_object_new_string(
			    layers[i]));
	}
	jsonx_set(o, "enforced", a);
	jsonx_set(o, "degraded", jsonx_ref(sb->degraded));
	d = json_object_new_object();
	jsonx_set_int(d, "abi", sb->landlock_abi);
	jsonx_set_int(d, "errata", sb->landlock_errata);
	jsonx_set(o, "landlock", d);
	jsonx_set_bool(o, "network", p->network);
	jsonx_set_str(o, "processLimit", sb->cg.has_pids ? "cgroup" :
	    sb->userns || getuid() != 0 ? "rlimit" : "none");
	jsonx_set_str(o, "memoryLimit", sb->cg.has_memory ? "cgroup" :
	    "rlimit");
	if (sb->cg.version)
		jsonx_set_int(o, "cgroupVersion", sb->cg.version);
	jsonx_set_bool(o, "userNamespace", sb->userns);
	return o;
}

void
sandbox_git_made(const struct sandbox *sb, struct strv *made)
{
	gitguard_made(&sb->guard, made);
}

void
sandbox_release(struct sandbox *sb)
{
	if (sb->pid > 0 && !sb->reaped) {
		sandbox_stop(sb, SIGKILL);
		reap(sb);
	}
	if (sb->out != -1)
		close(sb->out);
	if (sb->err != -1)
		close(sb->err);
	if (sb->report != -1)
		close(sb->report);
	if (sb->pidfd != -1)
		close(sb->pidfd);
	if (sb->life != -1)
		close(sb->life);
	cgroup_remove(&sb->cg);
	if (sb->tmpdir != NULL)
		rmtree_at(AT_FDCWD, sb->tmpdir);
	gitguard_release(&sb->guard);
	if (sb->lock != -1)
		close(sb->lock);
	free(sb->tmpdir);
	strv_release(&sb->env);
	json_object_put(sb->degraded);
	memset(sb, 0, sizeof(*sb));
	sb->pid = -1;
	sb->pidfd = sb->out = sb->err = sb->report = sb->life = -1;
	sb->lock = -1;
}
