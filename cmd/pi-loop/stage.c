/*
 * The machinery: the stages' command lines, children and their pipes,
 * the one poll loop, the recorder co-process, and stdout.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/proc.h"
#include "core/util.h"
#include "core/banned.h"

#define MAX_CAPTURE	(512u << 20)	/* what a pi-sess verb may print */

/* Only this writes stdout (but -p's answer, at the end). */
void
loop_emit(struct json_object *ev)
{
	if (!L.o.print && !L.stdout_gone && ndjson_write(1, ev) == -1) {
		L.stdout_gone = 1;
		loop_stop(TERM_DISCONNECTED, PI_EXIT_PIPE,
		    "the reader of standard output went away");
	}
	json_object_put(ev);
}

void
loop_error_event(const char *code, const char *msg, int recoverable)
{
	struct json_object *ev = event_new("error");

	jsonx_set_str(ev, "code", code);
	jsonx_set_str(ev, "message", msg);
	jsonx_set_bool(ev, "recoverable", recoverable);
	if (*L.session)
		jsonx_set_str(ev, "sessionId", L.session);
	loop_emit(ev);
}

static void
signal_children(int sig, int tools_too)
{
	struct child *c;

	for (c = L.children; c != NULL; c = c->next)
		if (c->kind == K_LLM || (tools_too && c->kind == K_TOOL))
			proc_kill(&c->p, sig);
}

/*
 * The end of an abort's grace: SIGTERM once, to each stage process
 * itself, which stops what it runs in its own way (pi-tool its sandbox);
 * not to its group, where the sandbox's own processes would hear it too.
 */
static void
term_children(void)
{
	struct child *c;

	for (c = L.children; c != NULL; c = c->next)
		if ((c->kind == K_LLM || c->kind == K_TOOL) && !c->termed &&
		    c->p.pid > 0 && !c->p.reaped) {
			(void)kill(c->p.pid, SIGTERM);
			c->termed = 1;
		}
}

/*
 * The run must end.  The first reason given is the one reported.  The
 * model call in flight is interrupted so that it ends its message
 * (pi-llm keeps what it had, stopReason aborted); running tools get the
 * grace period of an abort, or none when the time is up or stdout gone.
 */
void
loop_stop(enum term t, int code, const char *fmt, ...)
{
	va_list ap;

	if (L.term != TERM_NONE)
		return;
	L.term = t;
	L.term_code = code;
	va_start(ap, fmt);
	(void)vsnprintf(L.term_msg, sizeof(L.term_msg), fmt, ap);
	va_end(ap);
	switch (t) {
	case TERM_ABORT:
		signal_children(SIGINT, 0);
		L.abort_at = pi_mono_ms();
		abort_subagents(L.session);
		break;
	case TERM_TIMEOUT:
	case TERM_DISCONNECTED:
		abort_subagents(L.session);
		/* FALLTHROUGH */
	case TERM_ERROR:
		signal_children(SIGINT, 0);
		L.abort_at = pi_mono_ms() - L.o.grace_ms;
		break;
	case TERM_IDLE:
		signal_children(SIGTERM, 0);
		/* And SIGKILL if it does not go (timers()). */
		L.abort_at = pi_mono_ms() - L.o.grace_ms;
		break;
	default:
		break;
	}
}

/*
 * Sub-agents: runs of child sessions (pi-loop --parent) that hold their
 * session's lock on this host are stopped with the parent: SIGTERM,
 * which makes each abort its own in turn.
 */
void
abort_subagents(const char *session)
{
	const char *args[] = { "--json", "show", session, NULL };
	struct json_object *o, *kids, *lock;
	struct pi_error e;
	struct buf out;
	char host[256];
	size_t i;

	if (*session == '\0' || gethostname(host, sizeof(host) - 1) == -1)
		return;
	host[sizeof(host) - 1] = '\0';
	buf_init(&out, 16u << 20);
	if (sess_run(args, NULL, &out, &e) != 0) {
		buf_release(&out);
		return;
	}
	o = jsonx_parse(out.data ? out.data : "", out.len, NULL);
	buf_release(&out);
	kids = jsonx_arr(o, "branches");
	for (i = 0; kids != NULL && i < json_object_array_length(kids); i++) {
		args[2] = json_object_get_string(
		    json_object_array_get_idx(kids, i));
		buf_init(&out, 16u << 20);
		if (args[2] != NULL && sess_run(args, NULL, &out, &e) == 0) {
			struct json_object *k = jsonx_parse(out.data ?
			    out.data : "", out.len, NULL);

			lock = jsonx_obj(k, "lock");
			if (lock != NULL && jsonx_int(lock, "pid", 0) > 0 &&
			    jsonx_int(lock, "pid", 0) != getpid() &&
			    jsonx_str(lock, "host") != NULL &&
			    strcmp(jsonx_str(lock, "host"), host) == 0)
				(void)kill((pid_t)jsonx_int(lock, "pid", 0),
				    SIGTERM);
			json_object_put(k);
		}
		buf_release(&out);
	}
	json_object_put(o);
}

/* The path of a stage: next to this executable, else on PATH. */
static char *
stage_path(const char *name)
{
	char *p;

	if (L.stage_dir != NULL) {
		p = xasprintf("%s/%s", L.stage_dir, name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return xstrdup(name);
}

/*
 * A stage's argv.  PI_LLM, PI_TOOL and PI_SESS hold a command line for
 * sh, so a wrapper or a pipeline can stand in: the arguments follow it.
 */
char **
stage_argv(const char *name, const char *const *args)
{
	static const struct { const char *name, *env; } envs[] = {
		{ "pi-llm", "PI_LLM" }, { "pi-tool", "PI_TOOL" },
		{ "pi-sess", "PI_SESS" },
	};
	const char *cmd = NULL;
	size_t i, n = 0, k = 0;
	char **argv;

	for (i = 0; i < sizeof(envs) / sizeof(envs[0]); i++)
		if (strcmp(envs[i].name, name) == 0)
			cmd = getenv(envs[i].env);
	while (args[n] != NULL)
		n++;
	/* sh -c CMD NAME, -d DB, the arguments and the NULL. */
	argv = xcalloc(4 + 2 + n + 1, sizeof(*argv));
	if (cmd != NULL && *cmd != '\0') {
		argv[k++] = xstrdup("/bin/sh");
		argv[k++] = xstrdup("-c");
		argv[k++] = xasprintf("%s \"$@\"", cmd);
		argv[k++] = xstrdup(name);
	} else
		argv[k++] = stage_path(name);
	if (strcmp(name, "pi-sess") == 0 && L.db != NULL) {
		argv[k++] = xstrdup("-d");
		argv[k++] = xstrdup(L.db);
	}
	for (i = 0; i < n; i++)
		argv[k++] = xstrdup(args[i]);
	return argv;
}

void
stage_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

static int on_child_line(void *arg, struct json_object *o, size_t lineno,
    struct pi_error *e);

extern char **environ;

/* proc_spawn, with keys only for pi-llm (stagenv.c). */
static int
spawn(struct proc *p, char **argv, int flags, int keys, struct pi_error *e)
{
	char **saved = environ;
	int rc;

	if (!keys)
		environ = stage_env();
	rc = proc_spawn(p, argv, flags, e);
	environ = saved;
	return rc;
}

struct child *
child_start(enum child_kind kind, char **argv, const char *input,
    size_t inlen, int idx, struct pi_error *e)
{
	struct child *c = xcalloc(1, sizeof(*c));
	/*
	 * A model call or a tool must not outlive the loop, even killed by
	 * SIGKILL; the recorder must, to store what it was given.
	 */
	int flags = PROC_OUT | (input != NULL || kind == K_RECORDER ?
	    PROC_IN : PROC_NULL_IN) | (kind == K_RECORDER ? 0 :
	    PROC_DIE_WITH_US);

	c->kind = kind;
	c->idx = idx;
	c->last_ms = pi_mono_ms();
	buf_init(&c->out, MAX_CAPTURE);
	buf_init(&c->in, (size_t)-1);
	/* The caller frees argv; the reader keeps the name. */
	c->name = xstrdup(argv[0]);
	ndjson_reader_init(&c->r, c->name, on_child_line, c);
	if (input != NULL)
		(void)buf_add(&c->in, input, inlen);
	if (spawn(&c->p, argv, flags, kind == K_LLM, e) == -1) {
		buf_release(&c->out);
		buf_release(&c->in);
		ndjson_reader_release(&c->r);
		free(c->name);
		free(c);
		return NULL;
	}
	if (input != NULL && inlen == 0)
		proc_close_in(&c->p);
	c->next = L.children;
	L.children = c;
	return c;
}

void
child_free(struct child *c)
{
	struct child **pp;

	if (c == NULL)
		return;
	for (pp = &L.children; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (!c->p.reaped) {
		proc_kill(&c->p, SIGKILL);
		(void)proc_wait(&c->p);
	}
	proc_close(&c->p);
	buf_release(&c->out);
	buf_release(&c->in);
	ndjson_reader_release(&c->r);
	free(c->name);
	free(c);
}

int
child_done(void *arg)
{
	return ((struct child *)arg)->done;
}

static void
unwait(const char *id)
{
	size_t i;

	for (i = 0; id != NULL && i < L.nwaiting; i++)
		if (strcmp(L.waiting[i], id) == 0) {
			free(L.waiting[i]);
			L.waiting[i] = L.waiting[--L.nwaiting];
			return;
		}
}

static void
on_recorder_line(struct json_object *o)
{
	const char *type = jsonx_str(o, "type");

	if (type != NULL && strcmp(type, "entry") == 0)
		unwait(jsonx_str(o, "messageId"));
}

static int
on_child_line(void *arg, struct json_object *o, size_t lineno,
    struct pi_error *e)
{
	struct child *c = arg;

	(void)lineno;
	(void)e;
	c->last_ms = pi_mono_ms();
	switch (c->kind) {
	case K_LLM:
		on_llm_line(c, o);
		break;
	case K_TOOL:
		on_tool_line(c, o);
		break;
	case K_RECORDER:
		on_recorder_line(o);
		break;
	case K_CAPTURE:
		break;
	}
	return 0;
}

/* Read what a child wrote; at EOF, mark it. */
static void
child_read(struct child *c)
{
	char b[65536];
	struct pi_error e;
	ssize_t n;

	while ((n = read(c->p.out, b, sizeof(b))) > 0) {
		if (c->kind == K_CAPTURE) {
			if (buf_add(&c->out, b, (size_t)n) == -1)
				loop_stop(TERM_ERROR, PI_EXIT_FAIL, "%s: more "
				    "output than %u bytes", c->r.name,
				    MAX_CAPTURE);
		} else if (ndjson_reader_push(&c->r, b, (size_t)n, &e) == -1) {
			loop_stop(TERM_ERROR, PI_EXIT_FAIL, "%s", e.msg);
			proc_kill(&c->p, SIGTERM);
		}
	}
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		c->eof = 1;
		if (c->kind != K_CAPTURE &&
		    ndjson_reader_finish(&c->r, &e) == -1)
			loop_stop(TERM_ERROR, PI_EXIT_FAIL, "%s", e.msg);
		close(c->p.out);
		c->p.out = -1;
	}
}

static void
child_write(struct child *c)
{
	ssize_t n;

	while (c->inoff < c->in.len) {
		n = write(c->p.in, c->in.data + c->inoff, c->in.len - c->inoff);
		if (n == -1) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			break;	/* it does not read on: EPIPE */
		}
		c->inoff += (size_t)n;
	}
	if (c->kind != K_RECORDER)
		proc_close_in(&c->p);
	buf_reset(&c->in);
	c->inoff = 0;
}

static void
on_signal_byte(int sig)
{
	if (sig == SIGCHLD)
		return;
	L.signalled = sig;
	/* Between runs (--rpc), the signal ends the process: rpc.c. */
	if (!L.running)
		return;
	if (L.term == TERM_ABORT || L.term == TERM_TIMEOUT ||
	    L.term == TERM_DISCONNECTED) {
		/* A second signal: no grace. */
		signal_children(SIGKILL, 1);
		return;
	}
	loop_stop(TERM_ABORT, 128 + sig, "interrupted by %s",
	    sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	    "a signal");
}

static void
read_stdin(void)
{
	char b[65536];
	ssize_t n;

	n = read(0, b, sizeof(b));
	if (n > 0) {
		rpc_input(b, (size_t)n);
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	L.stdin_eof = 1;
	rpc_eof();
	/* The peer hung up: mid-run, the run ends; idle, we do. */
	if (L.running)
		loop_stop(TERM_DISCONNECTED, PI_EXIT_PIPE, "the RPC peer "
		    "closed standard input");
}

/* Timers: the model's silence, the hard limit, an abort's grace. */
static long long
timers(void)
{
	long long now = pi_mono_ms(), wait = 1000, left;
	struct child *c;

	for (c = L.children; c != NULL; c = c->next) {
		if (c->kind != K_LLM || c->eof || L.o.idle_ms <= 0)
			continue;
		left = c->last_ms + L.o.idle_ms - now;
		if (left <= 0)
			loop_stop(TERM_IDLE, PI_EXIT_TIMEOUT, "no event from "
			    "the model for %lld s", L.o.idle_ms / 1000);
		else if (left < wait)
			wait = left;
	}
	if (L.running && L.deadline > 0) {
		left = L.deadline - now;
		if (left <= 0)
			loop_stop(TERM_TIMEOUT, PI_EXIT_TIMEOUT, "the run "
			    "reached its time limit (%lld s)",
			    L.o.timeout_ms / 1000);
		else if (left < wait)
			wait = left;
	}
	if (L.abort_at > 0) {
		left = L.abort_at + L.o.grace_ms - now;
		if (left <= 0)
			term_children();
		if (left <= -2000)
			signal_children(SIGKILL, 1);
		if (left > 0 && left < wait)
			wait = left;
		else if (left <= 0 && left > -2000 && wait > 100)
			wait = 100;
	}
	return wait;
}

int
pump(int (*done)(void *), void *arg)
{
	struct pollfd pfd[256];
	struct child *c, *who[256];
	unsigned char sigs[64];
	long long wait;
	ssize_t n, i;
	size_t k, np;

	for (;;) {
		for (c = L.children; c != NULL; c = c->next)
			if (!c->done && c->eof && proc_reap(&c->p)) {
				c->code = proc_exit_code(c->p.status);
				c->done = 1;
			}
		if (done(arg))
			return 0;
		wait = timers();
		np = 0;
		pfd[np].fd = L.sigfd[0];
		pfd[np].events = POLLIN;
		who[np++] = NULL;
		if (L.o.rpc && !L.stdin_eof) {
			pfd[np].fd = 0;
			pfd[np].events = POLLIN;
			who[np++] = NULL;
		}
		for (c = L.children; c != NULL && np < 254; c = c->next) {
			if (c->p.out != -1) {
				pfd[np].fd = c->p.out;
				pfd[np].events = POLLIN;
				who[np++] = c;
			}
			if (c->p.in != -1 && c->inoff < c->in.len) {
				pfd[np].fd = c->p.in;
				pfd[np].events = POLLOUT;
				who[np++] = c;
			}
		}
		if (poll(pfd, np, (int)wait) == -1 && errno != EINTR)
			return -1;
		for (k = 0; k < np; k++) {
			if (pfd[k].revents == 0)
				continue;
			if (pfd[k].fd == L.sigfd[0]) {
				n = read(L.sigfd[0], sigs, sizeof(sigs));
				for (i = 0; i < n; i++)
					on_signal_byte(sigs[i]);
			} else if (who[k] == NULL)
				read_stdin();
			else if (pfd[k].events == POLLIN)
				child_read(who[k]);
			else
				child_write(who[k]);
		}
	}
}

/*
 * A stage run to its end while nothing else is read: a pi-sess verb or
 * pi-tool --list, which are quick (a reader of the database never
 * waits for a writer).
 */
int
sess_run(const char *const *args, const char *input, struct buf *out,
    struct pi_error *e)
{
	return stage_run("pi-sess", args, input, out, e);
}

int
stage_run(const char *name, const char *const *args, const char *input,
    struct buf *out, struct pi_error *e)
{
	char **argv = stage_argv(name, args);
	struct proc p;
	struct pollfd pfd[2];
	char b[65536];
	size_t off = 0, inlen = input ? strlen(input) : 0;
	ssize_t n;
	int code;

	if (spawn(&p, argv, PROC_OUT | (input ? PROC_IN : PROC_NULL_IN),
	    strcmp(name, "pi-llm") == 0, e) == -1) {
		stage_argv_free(argv);
		return -1;
	}
	stage_argv_free(argv);
	if (input != NULL && inlen == 0)
		proc_close_in(&p);
	while (p.out != -1) {
		pfd[0].fd = p.out;
		pfd[0].events = POLLIN;
		pfd[1].fd = p.in;
		pfd[1].events = POLLOUT;
		if (poll(pfd, p.in != -1 ? 2 : 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p.in != -1 && pfd[1].revents) {
			n = write(p.in, input + off, inlen - off);
			if (n > 0)
				off += (size_t)n;
			if ((n == -1 && errno != EAGAIN) || off == inlen)
				proc_close_in(&p);
		}
		if (pfd[0].revents) {
			n = read(p.out, b, sizeof(b));
			if (n > 0 && out != NULL)
				(void)buf_add(out, b, (size_t)n);
			if (n == 0 || (n == -1 && errno != EAGAIN &&
			    errno != EINTR)) {
				close(p.out);
				p.out = -1;
			}
		}
	}
	proc_close(&p);
	code = proc_wait(&p);
	return code;
}

int
recorder_start(struct pi_error *e)
{
	const char *args[] = { "append", "--follow", L.session, NULL };
	char **argv = stage_argv("pi-sess", args);

	L.recorder = child_start(K_RECORDER, argv, NULL, 0, 0, e);
	stage_argv_free(argv);
	return L.recorder ? 0 : -1;
}

static int
recorder_ended(void *arg)
{
	(void)arg;
	return L.recorder == NULL || L.recorder->done;
}

/* Close the recorder's input and wait until it has stored everything. */
void
recorder_stop(void)
{
	if (L.recorder == NULL)
		return;
	proc_close_in(&L.recorder->p);
	(void)pump(recorder_ended, NULL);
	if (L.recorder->code != 0 && L.recorder->code != PI_EXIT_INPUT &&
	    L.term_code == 0)
		fprintf(stderr, "pi-loop: the recorder exited %d\n",
		    L.recorder->code);
	child_free(L.recorder);
	L.recorder = NULL;
	while (L.nwaiting > 0)
		free(L.waiting[--L.nwaiting]);
}

int
record(struct json_object *line, const char *wait_id)
{
	struct child *r = L.recorder;
	size_t len;
	const char *s = jsonx_string(line, &len);

	if (r == NULL || r->done || r->p.in == -1)
		return -1;
	if (wait_id != NULL) {
		if (L.nwaiting == L.capwaiting) {
			L.capwaiting = L.capwaiting ? 2 * L.capwaiting : 16;
			L.waiting = xrealloc(L.waiting,
			    L.capwaiting * sizeof(*L.waiting));
		}
		L.waiting[L.nwaiting++] = xstrdup(wait_id);
	}
	/* Queued: the poll loop writes it while it reads the answers. */
	(void)buf_add(&r->in, s, len);
	(void)buf_addc(&r->in, '\n');
	child_write(r);
	return 0;
}

/* How long a stored line may take: the database's own busy wait, and
 * some. */
#define STORE_WAIT_MS	35000

static long long store_wait_since;

static int
all_stored(void *arg)
{
	long long now = pi_mono_ms();

	(void)arg;
	if (L.nwaiting == 0 || L.recorder == NULL || L.recorder->done)
		return 1;
	/* An abort waits for the recorder only as long as for a tool. */
	if (L.abort_at > 0 && now - L.abort_at > L.o.grace_ms + 3000)
		return 1;
	return now - store_wait_since > STORE_WAIT_MS;
}

int
wait_stored(void)
{
	store_wait_since = pi_mono_ms();
	if (pump(all_stored, NULL) == -1)
		return -1;
	if (L.nwaiting > 0) {
		loop_stop(TERM_ERROR, L.recorder && L.recorder->code ?
		    L.recorder->code : PI_EXIT_FAIL, "pi-sess append "
		    "stopped before it stored every message (exit %d)",
		    L.recorder ? L.recorder->code : -1);
		return -1;
	}
	return 0;
}
