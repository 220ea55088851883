/* serve: see serve.h. */
#include "serve.h"

#include <sys/select.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "call.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "core/banned.h"

struct server {
	const struct call_opts *defaults;
	struct context ctx;
	size_t lines;		/* context lines since the last call */
	struct pi_error bad;	/* the first bad one among them */
	int has_bad;
	int calls;
	int status;		/* once it must stop: the exit status */
};

static int
put(struct json_object *o)
{
	int rc = ndjson_write(1, o);

	json_object_put(o);
	return rc;
}

static int
ready(void)
{
	struct json_object *o = event_new("serve");

	jsonx_set_str(o, "program", "pi-llm");
	jsonx_set_str(o, "version", PI_VERSION);
	jsonx_set_int(o, "protocol", SERVE_PROTOCOL);
	jsonx_set_int(o, "pid", (int64_t)getpid());
	return put(o);
}

static int
bad_field(struct pi_error *e, size_t lineno, const char *key,
    const char *want)
{
	return pi_err(e, PI_EXIT_USAGE, "usage", "stdin:%zu: call line: "
	    "\"%s\" must be %s", lineno, key, want);
}

/* The flags, with what the call line says for its own call. */
static int
options(struct server *sv, struct json_object *line, size_t lineno,
    struct call_opts *o, struct pi_error *e)
{
	struct json_object *v;

	*o = *sv->defaults;
	if ((v = jsonx_get(line, "model")) != NULL) {
		if ((o->model = jsonx_str(line, "model")) == NULL)
			return bad_field(e, lineno, "model", "a string");
	}
	if ((v = jsonx_get(line, "provider")) != NULL) {
		if ((o->provider = jsonx_str(line, "provider")) == NULL)
			return bad_field(e, lineno, "provider", "a string");
	}
	if ((v = jsonx_get(line, "thinking")) != NULL &&
	    (!jsonx_is(v, json_type_string) ||
	    thinking_parse(json_object_get_string(v), &o->thinking) == -1))
		return bad_field(e, lineno, "thinking", "one of none, low, "
		    "medium, high");
	if ((v = jsonx_get(line, "maxTokens")) != NULL) {
		if (!jsonx_is(v, json_type_int) ||
		    json_object_get_int64(v) < 1 ||
		    json_object_get_int64(v) > 10000000)
			return bad_field(e, lineno, "maxTokens", "a number "
			    "from 1 to 10000000");
		o->max_tokens = (long)json_object_get_int64(v);
	}
	if ((v = jsonx_get(line, "prompt")) != NULL) {
		if (!jsonx_is(v, json_type_string))
			return bad_field(e, lineno, "prompt", "a string");
		context_add_user_text(&sv->ctx, json_object_get_string(v));
	}
	return 0;
}

static int
call_end(struct server *sv, struct json_object *line, int status,
    const struct pi_error *why)
{
	struct json_object *o = event_new("call_end");

	jsonx_set_int(o, "call", sv->calls);
	if (jsonx_get(line, "id") != NULL)
		jsonx_set(o, "id", jsonx_ref(jsonx_get(line, "id")));
	jsonx_set_int(o, "exitCode", status);
	if (status != 0)
		jsonx_set_str(o, "error", why->msg);
	return put(o);
}

/* One call line: the call, its call_end, and a fresh context. */
static int
one_call(struct server *sv, struct json_object *line, size_t lineno,
    struct pi_error *e)
{
	struct call_opts o;
	struct pi_error why;
	int status;

	sv->calls++;
	memset(&why, 0, sizeof(why));
	if (sv->has_bad) {
		why = sv->bad;
		status = call_fail(&why, NULL);
	} else if (options(sv, line, lineno, &o, &why) == -1) {
		fprintf(stderr, "pi-llm: %s\n", why.msg);
		status = why.status;
	} else
		status = run_call(&o, &sv->ctx, &why);
	if (status != PI_EXIT_PIPE && call_end(sv, line, status, &why) == -1)
		status = PI_EXIT_PIPE;
	context_release(&sv->ctx);
	context_init(&sv->ctx);
	sv->lines = 0;
	sv->has_bad = 0;
	/* A replay's clock was the recorded call's. */
	event_clock_reset();
	if (status == PI_EXIT_PIPE || S.signal == SIGTERM) {
		sv->status = status == PI_EXIT_PIPE ? PI_EXIT_PIPE :
		    PI_EXIT_SIGTERM;
		return pi_err(e, sv->status, "stop", "stop serving");
	}
	/* SIGINT ended this call only. */
	S.signal = 0;
	return 0;
}

static int
on_line(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	struct server *sv = arg;
	const char *type = jsonx_str(o, "type");

	if (type != NULL && strcmp(type, "call") == 0)
		return one_call(sv, o, lineno, e);
	sv->lines++;
	/* A bad line fails its call, when the call line comes. */
	if (!sv->has_bad && context_add_line(&sv->ctx, o, "stdin", lineno,
	    &sv->bad) == -1)
		sv->has_bad = 1;
	return 0;
}

static int
on_bad(void *arg, const struct pi_error *le, struct pi_error *out)
{
	struct server *sv = arg;

	(void)out;
	sv->lines++;
	if (!sv->has_bad) {
		sv->bad = *le;
		sv->has_bad = 1;
	}
	return 0;
}

/*
 * Wait for input, or for a signal: SIGINT and SIGTERM are blocked
 * between the look at S.signal and the wait, so that neither can slip
 * in between and leave the wait to the next line.
 */
static void
wait_input(void)
{
	sigset_t block, old;
	fd_set in;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	FD_ZERO(&in);
	FD_SET(0, &in);
	if (!S.signal)
		(void)pselect(1, &in, NULL, NULL, NULL, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int
serve(const struct call_opts *defaults)
{
	struct server sv;
	struct ndjson_reader r;
	struct pi_error e;
	char b[65536];
	ssize_t n;

	memset(&sv, 0, sizeof(sv));
	sv.defaults = defaults;
	sv.status = -1;
	context_init(&sv.ctx);
	ndjson_reader_init(&r, "stdin", on_line, &sv);
	r.bad = on_bad;
	if (ready() == -1)
		sv.status = errno == EPIPE ? PI_EXIT_PIPE : PI_EXIT_FAIL;
	while (sv.status == -1) {
		wait_input();
		if (S.signal) {
			sv.status = 128 + (int)S.signal;
			break;
		}
		if ((n = read(0, b, sizeof(b))) == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			pi_err(&e, PI_EXIT_INPUT, "bad_input", "cannot read "
			    "stdin: %s", strerror(errno));
		} else if (n > 0) {
			if (ndjson_reader_push(&r, b, (size_t)n, &e) == 0 ||
			    sv.status != -1)
				continue;
		} else if (ndjson_reader_finish(&r, &e) == 0) {
			if (sv.lines == 0) {
				sv.status = 0;
				break;
			}
			pi_err(&e, PI_EXIT_INPUT, "bad_input", "stdin: the "
			    "input ends with %zu line%s and no call line",
			    sv.lines, sv.lines == 1 ? "" : "s");
		}
		fprintf(stderr, "pi-llm: %s\n", e.msg);
		sv.status = e.status;
	}
	ndjson_reader_release(&r);
	context_release(&sv.ctx);
	return sv.status;
}
