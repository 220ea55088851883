/*
 * The verbs that change the tree: new, branch, name, label, rm,
 * compact, lock and unlock.  Each runs in one transaction: it happens
 * whole or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sess.h"
#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/place.h"
#include "core/rmtree.h"
#include "core/util.h"
#include "store/projection.h"
#include "store/store.h"
#include "core/banned.h"

#define MAX_SUMMARY	(16u << 20)

/* The answer for a stored entry: its id, or with --json an entry line. */
static int
print_entry(const struct store_session *ss, const char *type)
{
	struct json_object *o = event_new("entry");

	jsonx_set_str(o, "id", ss->head_id);
	jsonx_set_str(o, "sessionId", ss->id);
	jsonx_set_str(o, "entryType", type);
	return sess_print_id(ss->head_id, o) == -1 ? PI_EXIT_PIPE : 0;
}

/* Append an entry of type with data (a new object, put here). */
static int
append_obj(struct store_session *ss, const char *type,
    struct json_object *data, struct pi_error *e)
{
	struct store_new_entry ne;
	struct store_pos pos;
	int rc;

	memset(&ne, 0, sizeof(ne));
	ne.type = type;
	ne.data = data;
	rc = store_append(&db, ss, &ne, &pos, e);
	json_object_put(data);
	return rc;
}

/* A session_info entry, and the name it gives (NULL when cleared). */
static int
set_name(struct store_session *ss, const char *text, struct pi_error *e)
{
	struct json_object *d = json_object_new_object();
	struct store_new_entry ne;
	struct store_pos pos;
	size_t a = strspn(text, " \t\r\n"), n = strlen(text + a);
	char *name;
	int rc;

	while (n > 0 && strchr(" \t\r\n", text[a + n - 1]) != NULL)
		n--;
	name = xstrndup(text + a, n);
	jsonx_set(d, "name", jsonx_new_str(name, n));
	memset(&ne, 0, sizeof(ne));
	ne.type = "session_info";
	ne.data = d;
	rc = store_append(&db, ss, &ne, &pos, e);
	json_object_put(d);
	free(name);
	return rc;
}

/* The entry id names, which must be on the path ending at head. */
static int
entry_on_path(const char *id, struct store_pos head,
    const struct store_session *ss, struct store_pos *pos, char full[],
    struct pi_error *e)
{
	int on;

	if (sess_entry(id, pos, full, e) == -1 ||
	    (on = store_on_path(&db, head, *pos, e)) == -1)
		return -1;
	if (!on)
		return pi_err(e, PI_EXIT_INPUT, "not_on_path", "entry '%s' "
		    "is not in session '%s'", full, ss->id);
	return 0;
}

static int
done(int rc, struct pi_error *e)
{
	if (rc == -1) {
		store_rollback(&db);
		return sess_fail(e);
	}
	if (store_commit(&db, e) == -1)
		return sess_fail(e);
	return 0;
}

int
verb_new(int argc, char **argv)
{
	struct store_session parent, ss;
	struct store_pos bp = { 0, 0 };
	struct pi_error e;
	char full[STORE_ID_MAX + 1];
	char *cwd;
	int rc = -1;

	(void)argc;
	(void)argv;
	memset(&parent, 0, sizeof(parent));
	memset(&ss, 0, sizeof(ss));
	if ((cwd = sess_dir(opt.cwd)) == NULL) {
		pi_err(&e, PI_EXIT_USAGE, "bad_dir", "--cwd %s: %s",
		    opt.cwd ? opt.cwd : ".", strerror(errno));
		return sess_fail(&e);
	}
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1) {
		free(cwd);
		return sess_fail(&e);
	}
	if (opt.parent != NULL && sess_find(opt.parent, &parent, &e) == -1)
		goto out;
	if (opt.at != NULL &&
	    entry_on_path(opt.at, parent.head, &parent, &bp, full, &e) == -1)
		goto out;
	if (store_session_new(&db, NULL, parent.seq, bp, cwd, NULL, 0, &ss,
	    &e) == -1)
		goto out;
	if (opt.name != NULL && set_name(&ss, opt.name, &e) == -1)
		goto out;
	rc = 0;
out:
	free(cwd);
	store_session_release(&parent);
	if ((rc = done(rc, &e)) == 0 &&
	    sess_print_id(ss.id, sess_json(&ss)) == -1)
		rc = PI_EXIT_PIPE;
	store_session_release(&ss);
	return rc;
}

int
verb_branch(int argc, char **argv)
{
	struct store_session ss, b;
	struct store_pos bp;
	struct pi_error e;
	char full[STORE_ID_MAX + 1];
	int rc = -1;

	memset(&ss, 0, sizeof(ss));
	memset(&b, 0, sizeof(b));
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1)
		return sess_fail(&e);
	if (sess_find(argv[0], &ss, &e) == -1)
		goto out;
	bp = ss.head;
	if (argc == 2 &&
	    entry_on_path(argv[1], ss.head, &ss, &bp, full, &e) == -1)
		goto out;
	if (store_session_new(&db, NULL, ss.seq, bp, ss.cwd, NULL, 0, &b,
	    &e) == -1)
		goto out;
	rc = 0;
out:
	store_session_release(&ss);
	if ((rc = done(rc, &e)) == 0 && sess_print_id(b.id, sess_json(&b)) ==
	    -1)
		rc = PI_EXIT_PIPE;
	store_session_release(&b);
	return rc;
}

int
verb_name(int argc, char **argv)
{
	struct store_session ss;
	struct pi_error e;
	int rc = -1;

	(void)argc;
	memset(&ss, 0, sizeof(ss));
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1)
		return sess_fail(&e);
	if (sess_find(argv[0], &ss, &e) == -1 || set_name(&ss, argv[1],
	    &e) == -1)
		goto out;
	rc = 0;
out:
	if ((rc = done(rc, &e)) == 0)
		rc = print_entry(&ss, "session_info");
	store_session_release(&ss);
	return rc;
}

int
verb_label(int argc, char **argv)
{
	struct store_session ss;
	struct store_pos pos;
	struct json_object *d;
	struct pi_error e;
	char full[STORE_ID_MAX + 1];
	int rc = -1;

	(void)argc;
	memset(&ss, 0, sizeof(ss));
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1)
		return sess_fail(&e);
	if (sess_entry(argv[0], &pos, full, &e) == -1)
		goto out;
	/* By default the label goes where the entry was made, as in pi. */
	if (opt.session != NULL) {
		if (sess_find(opt.session, &ss, &e) == -1 ||
		    entry_on_path(full, ss.head, &ss, &pos, full, &e) == -1)
			goto out;
	} else if (store_session_get(&db, pos.sess, &ss, &e) == -1)
		goto out;
	d = json_object_new_object();
	jsonx_set_str(d, "targetId", full);
	if (*argv[1] != '\0')
		jsonx_set(d, "label", jsonx_new_str(argv[1], strlen(argv[1])));
	if (append_obj(&ss, "label", d, &e) == -1)
		goto out;
	rc = 0;
out:
	if ((rc = done(rc, &e)) == 0)
		rc = print_entry(&ss, "label");
	store_session_release(&ss);
	return rc;
}

/* Read a whole file ("-": stdin) of at most max bytes. */
static char *
slurp(const char *path, size_t max, struct pi_error *e)
{
	struct buf b;

	buf_init(&b, max);
	if (buf_read_file(&b, path) == -1) {
		pi_err(e, PI_EXIT_INPUT, "bad_file", "%s: %s", path,
		    errno == EFBIG ? "too large" : strerror(errno));
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

int
verb_compact(int argc, char **argv)
{
	struct store_session ss;
	struct store_pos kept;
	struct projection p;
	struct json_object *d;
	struct pi_error e;
	char full[STORE_ID_MAX + 1], *summary = NULL;
	long long tokens = opt.tokens_before;
	int rc = -1;

	(void)argc;
	if (opt.summary_file == NULL || opt.first_kept == NULL) {
		fprintf(stderr, "pi-sess: compact needs --summary-file and "
		    "--first-kept\n");
		return PI_EXIT_USAGE;
	}
	memset(&ss, 0, sizeof(ss));
	projection_init(&p);
	if ((summary = slurp(opt.summary_file, MAX_SUMMARY, &e)) == NULL)
		return sess_fail(&e);
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1) {
		free(summary);
		return sess_fail(&e);
	}
	if (sess_find(argv[0], &ss, &e) == -1 ||
	    entry_on_path(opt.first_kept, ss.head, &ss, &kept, full,
	    &e) == -1)
		goto out;
	if (tokens < 0) {
		/* pi's estimate of what is being compacted: chars / 4. */
		if (projection_build(&p, &db, ss.head, &e) == -1)
			goto out;
		tokens = (long long)(p.chars + 3) / 4;
	}
	d = json_object_new_object();
	jsonx_set(d, "summary", jsonx_new_str(summary, strlen(summary)));
	jsonx_set_str(d, "firstKeptEntryId", full);
	jsonx_set_int(d, "tokensBefore", tokens);
	if (append_obj(&ss, "compaction", d, &e) == -1)
		goto out;
	rc = 0;
out:
	free(summary);
	projection_release(&p);
	if ((rc = done(rc, &e)) == 0)
		rc = print_entry(&ss, "compaction");
	store_session_release(&ss);
	return rc;
}

/* Sessions below seq, depth first, into v (seq itself first). */
struct subtree {
	int64_t *v;
	size_t n, cap;
	struct buf kids;
};

static int
add_session(void *arg, const struct store_session *ss)
{
	struct subtree *t = arg;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n++] = ss->seq;
	(void)buf_addf(&t->kids, "%s%s", t->kids.len ? ", " : "", ss->id);
	return 0;
}

/* The pid's start time in clock ticks (/proc/PID/stat), or 0. */
static long long
proc_start(long pid)
{
	char path[64], b[1024], *p;
	long long start = 0;
	ssize_t n;
	int fd, field;

	(void)snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	/* The name may hold spaces and ')': fields start after the last. */
	if ((p = strrchr(b, ')')) == NULL)
		return 0;
	for (field = 2; *p != '\0' && field < 22; p++)
		if (*p == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		start = start * 10 + (*p++ - '0');
	return start;
}

static void
this_host(char host[256])
{
	if (gethostname(host, 255) == -1)
		(void)snprintf(host, 256, "localhost");
	host[255] = '\0';
}

/* Is the holder of l gone?  Only a process on this host can be told. */
static int
holder_gone(const struct store_lock *l)
{
	char host[256];

	this_host(host);
	if (l->pid <= 0)
		return 1;
	if (strcmp(host, l->host) != 0)
		return 0;
	if (kill((pid_t)l->pid, 0) == -1 && errno == ESRCH)
		return 1;
	/* The pid lives, but is it the same process, or a reuse? */
	return l->start != 0 && proc_start(l->pid) != 0 &&
	    proc_start(l->pid) != l->start;
}

static int
locked_err(const struct store_session *ss, struct pi_error *e)
{
	char when[32];

	sess_when(when, ss->lock.at);
	return pi_err(e, PI_EXIT_TEMP, "locked", "session '%s' is locked by "
	    "pid %ld on %s (since %s)", ss->id, ss->lock.pid, ss->lock.host,
	    when);
}

/* The full outputs of removed sessions go with them (pi-loop(1)). */
static void
rm_outputs(const struct strv *ids)
{
	char *path = opt.db ? xstrdup(opt.db) : store_default_path(), *p;
	size_t i;

	for (i = 0; i < ids->n; i++) {
		p = place_outputs(path, ids->v[i]);
		rmtree_at(AT_FDCWD, p);
		free(p);
	}
	free(path);
}

int
verb_rm(int argc, char **argv)
{
	struct store_session ss, sub;
	struct strv ids = { NULL, 0 };
	struct subtree t;
	struct pi_error e;
	size_t i;
	int rc = -1;

	(void)argc;
	memset(&t, 0, sizeof(t));
	memset(&ss, 0, sizeof(ss));
	buf_init(&t.kids, 4096);
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1) {
		rc = sess_fail(&e);
		goto free;
	}
	if (sess_find(argv[0], &ss, &e) == -1)
		goto out;
	add_session(&t, &ss);
	buf_reset(&t.kids);
	for (i = 0; i < t.n; i++)
		if (store_children(&db, t.v[i], add_session, &t, &e) == -1)
			goto out;
	if (t.n > 1 && !opt.recursive) {
		pi_err(&e, PI_EXIT_FAIL, "has_branches", "session '%s' has "
		    "branches (%s): remove them first, or use -r", ss.id,
		    t.kids.data);
		goto out;
	}
	for (i = 0; i < t.n; i++) {
		if (store_session_get(&db, t.v[i], &sub, &e) == -1)
			goto out;
		if (sub.lock.pid > 0 && !holder_gone(&sub.lock) && !opt.force) {
			locked_err(&sub, &e);
			store_session_release(&sub);
			goto out;
		}
		strv_push(&ids, sub.id);
		store_session_release(&sub);
	}
	if (store_session_rm(&db, t.v, t.n, &e) == -1)
		goto out;
	rc = 0;
out:
	if ((rc = done(rc, &e)) == 0)
		rm_outputs(&ids);
free:
	strv_release(&ids);
	store_session_release(&ss);
	buf_release(&t.kids);
	free(t.v);
	return rc;
}

int
verb_lock(int argc, char **argv)
{
	struct store_session ss;
	struct store_lock l;
	struct json_object *o;
	struct pi_error e;
	int rc = -1;

	(void)argc;
	memset(&ss, 0, sizeof(ss));
	memset(&l, 0, sizeof(l));
	/* By default the lock is the caller's: the shell or pi-loop. */
	l.pid = opt.pid > 0 ? opt.pid : (long)getppid();
	l.start = proc_start(l.pid);
	l.at = pi_now_ms();
	this_host(l.host);
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1)
		return sess_fail(&e);
	if (sess_find(argv[0], &ss, &e) == -1)
		goto out;
	if (ss.lock.pid > 0) {
		if (ss.lock.pid == l.pid && strcmp(ss.lock.host, l.host) == 0 &&
		    (ss.lock.start == l.start || ss.lock.start == 0)) {
			rc = 0;		/* already ours */
			goto out;
		}
		if (holder_gone(&ss.lock))
			fprintf(stderr, "pi-sess: taking over the lock of "
			    "session '%s' from pid %ld, which is gone\n",
			    ss.id, ss.lock.pid);
		else if (opt.force)
			fprintf(stderr, "pi-sess: taking the lock of session "
			    "'%s' from pid %ld on %s (--force)\n", ss.id,
			    ss.lock.pid, ss.lock.host);
		else {
			locked_err(&ss, &e);
			goto out;
		}
	}
	if (store_lock_set(&db, ss.seq, &l, &e) == -1)
		goto out;
	rc = 0;
out:
	if ((rc = done(rc, &e)) == 0 && opt.json) {
		o = event_new("lock");
		jsonx_set_str(o, "sessionId", ss.id);
		jsonx_set_int(o, "pid", l.pid);
		jsonx_set_str(o, "host", l.host);
		if (sess_out(o) == -1)
			rc = PI_EXIT_PIPE;
	}
	store_session_release(&ss);
	return rc;
}

int
verb_unlock(int argc, char **argv)
{
	struct store_session ss;
	struct store_lock none;
	struct pi_error e;
	char host[256];
	long pid = opt.pid > 0 ? opt.pid : (long)getppid();
	int rc = -1, mine;

	(void)argc;
	memset(&ss, 0, sizeof(ss));
	memset(&none, 0, sizeof(none));
	this_host(host);
	if (sess_open(1, &e) == -1 || store_begin(&db, &e) == -1)
		return sess_fail(&e);
	if (sess_find(argv[0], &ss, &e) == -1)
		goto out;
	mine = ss.lock.pid == pid && strcmp(ss.lock.host, host) == 0;
	if (ss.lock.pid > 0 && !mine && !holder_gone(&ss.lock) &&
	    !opt.force) {
		locked_err(&ss, &e);
		goto out;
	}
	if (ss.lock.pid > 0 && store_lock_set(&db, ss.seq, &none, &e) == -1)
		goto out;
	rc = 0;
out:
	rc = done(rc, &e);
	store_session_release(&ss);
	return rc;
}
