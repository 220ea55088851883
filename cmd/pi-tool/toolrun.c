/* toolrun: see toolrun.h. */
#include "toolrun.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/utf8.h"
#include "core/util.h"
#include "sandbox/sandbox.h"
#include "tool/capture.h"
#include "tool/toolcall.h"
#include "tool/tools.h"
#include "tool/truncate.h"
#include "core/banned.h"

/* Streamed output events stop here; the output itself goes on. */
#define STREAM_BUDGET	(1u << 20)

/* One run, as the sandbox's callbacks see it. */
struct run {
	const struct toolrun_env *env;
	const struct toolcall *call;
	const struct tool_def *builtin;	/* for fn jobs */
	int is_command;			/* bash or custom: stream it */
	int is_custom;
	struct capture cap;		/* what the model will see */
	struct buf result;		/* stdout of our own code, kept */
	size_t streamed;
	char carry[3][4];		/* a character cut short, per stream */
	size_t carry_len[3];
	int over_ceiling;
	int gone;			/* the reader of the events left */
	struct pi_error cap_err;
};

/* How a run ended: NULL code when it simply succeeded. */
struct ending {
	const char *code;
	char msg[512];
	int status;
};

static int
emit(struct run *r, struct json_object *ev)
{
	if (r->gone) {
		json_object_put(ev);
		return -1;
	}
	if (r->env->emit(r->env->arg, ev) == -1)
		r->gone = 1;
	return r->gone ? -1 : 0;
}

static struct json_object *
tool_event(const char *type, const struct toolcall *c)
{
	struct json_object *ev = event_new(type);

	jsonx_set_str(ev, "toolCallId", c->id);
	jsonx_set_str(ev, "toolName", c->name);
	if (c->message_id != NULL)
		jsonx_set_str(ev, "messageId", c->message_id);
	return ev;
}

/* Text of one stream, cut on a character boundary, as an update. */
static int
stream_update(struct run *r, int stream, const char *p, size_t n, int last)
{
	struct json_object *ev;
	struct buf t;
	size_t whole;

	buf_init(&t, n + sizeof(r->carry[0]));
	(void)buf_add(&t, r->carry[stream], r->carry_len[stream]);
	(void)buf_add(&t, p, n);
	whole = last ? t.len : utf8_whole(t.data, t.len);
	r->carry_len[stream] = t.len - whole;
	memcpy(r->carry[stream], t.data + whole, t.len - whole);
	if (whole == 0) {
		buf_release(&t);
		return 0;
	}
	ev = tool_event("tool_execution_update", r->call);
	jsonx_set_str(ev, "updateType", stream == 1 ? "stdout" : "stderr");
	jsonx_set(ev, "content", jsonx_new_str(t.data, whole));
	buf_release(&t);
	return emit(r, ev);
}

static int
on_output(void *arg, int stream, const char *p, size_t n)
{
	struct run *r = arg;

	if (!r->is_command && stream == 1) {
		/* A built-in tool's answer, or a --schema answer. */
		if (buf_add(&r->result, p, n) == -1) {
			r->over_ceiling = 1;
			return -1;
		}
		return 0;
	}
	if (capture_add(&r->cap, p, n, &r->cap_err) == -1) {
		r->over_ceiling = 1;
		return -1;
	}
	if (!r->is_command || r->streamed >= STREAM_BUDGET)
		return 0;
	r->streamed += n;
	return stream_update(r, stream, p, n, 0);
}

/* Past the streaming budget, a word a second that it is still going. */
static int
on_tick(void *arg)
{
	struct run *r = arg;
	struct json_object *ev;
	char size[FORMAT_SIZE_LEN];

	if (!r->is_command || r->streamed < STREAM_BUDGET)
		return 0;
	ev = tool_event("tool_execution_update", r->call);
	jsonx_set_str(ev, "updateType", "progress");
	format_size(size, r->cap.total);
	jsonx_set(ev, "content", json_object_new_string(size));
	jsonx_set_int(ev, "bytes", (int64_t)r->cap.total);
	return emit(r, ev);
}

/* In the sandbox: run a built-in tool and answer with its result. */
static int
run_builtin(void *arg)
{
	struct run *r = arg;
	struct tool_result res;
	struct json_object *o;
	int rc;

	tool_result_init(&res);
	r->builtin->run(r->call->input, r->env->limits, &res);
	o = tool_result_to_json(&res);
	rc = ndjson_write(1, o);
	json_object_put(o);
	tool_result_release(&res);
	return rc == 0 ? 0 : 1;
}

static const char *
shell(void)
{
	return access("/bin/bash", X_OK) == 0 ? "/bin/bash" :
	    access("/usr/bin/bash", X_OK) == 0 ? "/usr/bin/bash" : "/bin/sh";
}

/* "[sandbox degraded: landlock (...); seccomp (...)]", and a blank line. */
static void
degraded_notice(const struct sandbox *sb, struct buf *out)
{
	struct json_object *d;
	size_t i, n = json_object_array_length(sb->degraded);

	for (i = 0; i < n; i++) {
		d = json_object_array_get_idx(sb->degraded, i);
		(void)buf_addf(out, "%s%s (%s)", i ? "; " :
		    "[sandbox degraded: ", jsonx_str(d, "layer"),
		    jsonx_str(d, "reason"));
	}
	if (n)
		(void)buf_adds(out, "]\n\n");
}

static void blank_line(struct buf *b);

/*
 * A repository the call made where there was none: git on the host
 * would run its hooks and read its config, which the call wrote.  It
 * cannot be prevented (git init is a fair request); it is said.
 */
static void
git_notice(const struct sandbox *sb, struct buf *out)
{
	struct strv made = { NULL, 0 };
	size_t i;

	sandbox_git_made(sb, &made);
	for (i = 0; i < made.n; i++) {
		blank_line(out);
		(void)buf_addf(out, "[pi-tool: this call made the git "
		    "repository %s: git on the host runs its hooks and reads "
		    "its config, both written here; check them before using "
		    "git there]", made.v[i]);
	}
	strv_release(&made);
}

/* End text with one empty line, whatever it ended with. */
static void
blank_line(struct buf *b)
{
	while (b->len < 2 || b->data[b->len - 1] != '\n' ||
	    b->data[b->len - 2] != '\n')
		if (buf_addc(b, '\n') == -1)
			break;
}

static void ending(struct ending *x, const char *code, int status,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
ending(struct ending *x, const char *code, int status, const char *fmt, ...)
{
	va_list ap;

	x->code = code;
	x->status = status;
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
}

/* How a run was stopped, for any kind of tool; 0 when it was not. */
static int
stopped(const struct run *r, const struct sandbox_outcome *o,
    struct ending *x)
{
	const char *what = r->is_custom ? "Tool" : r->is_command ?
	    "Command" : r->call->name;

	if (o->timed_out)
		ending(x, "timeout", PI_EXIT_TIMEOUT, "%s timed out after %g "
		    "seconds", what, (double)r->env->policy->timeout_ms / 1000);
	else if (o->interrupted)
		ending(x, "aborted", 128 + o->interrupted, "%s aborted", what);
	else if (r->over_ceiling)
		ending(x, "output_limit", PI_EXIT_TOOL, "%s stopped: its output "
		    "passed the ceiling of %u MiB", what, PI_MAX_OUTPUT >> 20);
	else
		return 0;
	return 1;
}

static void
end_command(struct run *r, const struct sandbox_outcome *o,
    struct json_object *ev, struct buf *text, struct ending *x)
{
	const char *what = r->is_custom ? "Tool" : "Command";
	size_t notice = text->len;
	int truncated;

	truncated = capture_text(&r->cap, text);
	if (text->len == notice)
		(void)buf_adds(text, "(no output)");
	if (!stopped(r, o, x)) {
		if (o->exited && o->code != 0)
			ending(x, "exit_status", PI_EXIT_TOOL, "%s exited with "
			    "code %d", what, o->code);
		else if (!o->exited)
			ending(x, "signal", PI_EXIT_TOOL, "%s was killed by "
			    "signal %d (%s)", what, o->signal,
			    strsignal(o->signal));
	}
	if (x->code != NULL) {
		blank_line(text);
		(void)buf_adds(text, x->msg);
	}
	jsonx_set(ev, "exitCode", o->exited ? json_object_new_int(o->code) :
	    NULL);
	if (!o->exited)
		jsonx_set_int(ev, "signal", o->signal);
	jsonx_set_bool(ev, "truncated", truncated);
	if (truncated && r->cap.path != NULL)
		jsonx_set_str(ev, "fullOutputPath", r->cap.path);
}

/* The image blocks of a result, after the notice the model must see. */
static struct json_object *
content_with(struct json_object *content, const struct buf *text,
    size_t notice)
{
	struct json_object *all = json_object_new_array(), *block;
	size_t i;

	if (notice > 0) {
		block = json_object_new_object();
		jsonx_set_str(block, "type", "text");
		jsonx_set(block, "text", jsonx_new_str(text->data, notice));
		json_object_array_add(all, block);
	}
	for (i = 0; i < json_object_array_length(content); i++)
		json_object_array_add(all, jsonx_ref(json_object_array_get_idx(
		    content, i)));
	return all;
}

static void
end_builtin(struct run *r, const struct sandbox_outcome *o,
    struct json_object *ev, struct buf *text, struct ending *x)
{
	struct tool_result res;
	struct json_object *answer;
	size_t notice = text->len;

	tool_result_init(&res);
	answer = stopped(r, o, x) ? NULL : jsonx_parse(r->result.data,
	    r->result.len, NULL);
	if (x->code == NULL && (answer == NULL ||
	    tool_result_from_json(&res, answer) == -1)) {
		/* It died: what it said on stderr is all there is. */
		ending(x, "internal", PI_EXIT_FAIL, "%s ended without a result "
		    "(%s %d)", r->call->name, o->exited ? "exit status" :
		    "signal", o->exited ? o->code : o->signal);
		(void)buf_adds(text, x->msg);
		if (r->cap.total > 0) {
			(void)buf_adds(text, ":\n");
			capture_text(&r->cap, text);
		}
	} else if (x->code != NULL)
		(void)buf_adds(text, x->msg);
	else {
		(void)buf_add(text, res.output.data, res.output.len);
		/* Arguments the schema let through but the tool refused
		 * are bad input all the same. */
		if (res.error_code != NULL)
			ending(x, res.error_code, strcmp(res.error_code,
			    "invalid_arguments") == 0 ? PI_EXIT_INPUT :
			    PI_EXIT_TOOL, "%s", res.output.data);
		jsonx_set_bool(ev, "truncated", res.truncated);
		if (res.details != NULL)
			jsonx_set(ev, "details", jsonx_ref(res.details));
		if (res.content != NULL)
			jsonx_set(ev, "content", content_with(res.content, text,
			    notice));
	}
	json_object_put(answer);
	tool_result_release(&res);
}

static int
fail(struct run *r, const struct pi_error *e)
{
	struct json_object *ev;

	fprintf(stderr, "pi-tool: %s\n", e->msg);
	ev = event_new("error");
	jsonx_set_str(ev, "code", e->code ? e->code : "error");
	jsonx_set_str(ev, "message", e->msg);
	jsonx_set_bool(ev, "recoverable", pi_is_temporary(e));
	jsonx_set_int(ev, "exitCode", e->status);
	jsonx_set_str(ev, "toolCallId", r->call->id);
	return emit(r, ev) == -1 ? PI_EXIT_PIPE : e->status;
}

/* The end event, from the outcome; returns the exit status. */
static int
finish(struct run *r, const struct sandbox *sb,
    const struct sandbox_outcome *o)
{
	struct json_object *ev, *err;
	struct ending x;
	struct buf text;
	size_t i;
	int status;

	memset(&x, 0, sizeof(x));
	for (i = 1; i <= 2; i++)
		if (r->carry_len[i] > 0)
			(void)stream_update(r, (int)i, "", 0, 1);
	buf_init(&text, PI_MAX_OUTPUT + (1u << 20));
	degraded_notice(sb, &text);
	ev = tool_event("tool_execution_end", r->call);
	/* Placeholders, so that the keys come in this order. */
	jsonx_set_bool(ev, "success", 0);
	jsonx_set_str(ev, "output", "");
	jsonx_set_int(ev, "durationMs", o->duration_ms);
	if (r->is_command)
		end_command(r, o, ev, &text, &x);
	else
		end_builtin(r, o, ev, &text, &x);
	git_notice(sb, &text);
	jsonx_set_bool(ev, "success", x.code == NULL);
	jsonx_set(ev, "output", jsonx_new_str(text.data, text.len));
	if (x.code != NULL) {
		err = json_object_new_object();
		jsonx_set_str(err, "code", x.code);
		jsonx_set_str(err, "message", x.msg);
		jsonx_set(ev, "error", err);
	}
	jsonx_set(ev, "degraded", jsonx_ref(sb->degraded));
	buf_release(&text);
	status = x.code == NULL ? PI_EXIT_OK : x.status;
	if (emit(r, ev) == -1)
		status = PI_EXIT_PIPE;
	return status;
}

static void
run_init(struct run *r, const struct toolrun_env *env,
    const struct toolcall *c, size_t keep)
{
	char *name;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->env = env;
	r->call = c;
	/* The full output file is named after the call. */
	name = xstrdup(c->id);
	for (i = 0; name[i]; i++)
		if (strchr("/.", name[i]) != NULL || name[i] < ' ')
			name[i] = '_';
	capture_init(&r->cap, env->limits->max_bytes, env->limits->max_lines,
	    PI_MAX_OUTPUT, env->output_dir, name);
	free(name);
	if (env->output_dir == NULL)
		snprintf(r->cap.why, sizeof(r->cap.why), "%s",
		    env->output_why ? env->output_why : "no output directory");
	buf_init(&r->result, keep);
}

static void
run_release(struct run *r)
{
	capture_release(&r->cap);
	buf_release(&r->result);
}

int
toolrun_call(const struct toolrun_env *env, const struct toolcall *c,
    const struct tool_def *builtin, const char *custom)
{
	struct sandbox_outcome o;
	struct sandbox_job job;
	struct sandbox_io io;
	struct sandbox sb;
	struct pi_error e;
	struct json_object *ev;
	struct run r;
	char *argv[4] = { NULL }, *input = NULL;
	int status;

	memset(&job, 0, sizeof(job));
	run_init(&r, env, c, TOOL_MAX_OUTPUT + (1u << 20));
	if (builtin != NULL && builtin->run != NULL) {
		r.builtin = builtin;
		job.fn = run_builtin;
		job.arg = &r;
	} else if (builtin != NULL) {
		argv[0] = (char *)shell();
		argv[1] = (char *)"-c";
		argv[2] = (char *)jsonx_str(c->input, "command");
		r.is_command = 1;
	} else {
		argv[0] = (char *)custom;
		input = xasprintf("%s\n", jsonx_string(c->input, NULL));
		job.input = input;
		job.input_len = strlen(input);
		r.is_command = r.is_custom = 1;
	}
	job.argv = argv;
	if (sandbox_start(&sb, env->policy, &job, &e) == -1) {
		status = fail(&r, &e);
		goto out;
	}
	ev = tool_event("tool_execution_start", c);
	jsonx_set(ev, "input", jsonx_ref(c->input));
	jsonx_set(ev, "sandbox", sandbox_status(&sb, env->policy));
	if (emit(&r, ev) == -1) {
		status = PI_EXIT_PIPE;
		goto out;
	}
	io = (struct sandbox_io){ on_output, on_tick, &r, env->interrupt };
	if (sandbox_run(&sb, env->policy, &io, &o, &e) == -1)
		status = fail(&r, &e);
	else
		status = finish(&r, &sb, &o);
out:
	if (r.gone)
		status = PI_EXIT_PIPE;
	sandbox_release(&sb);
	run_release(&r);
	free(input);
	return status;
}

int
toolrun_refuse(const struct toolrun_env *env, const struct toolcall *c,
    const char *code, const char *text)
{
	struct json_object *ev, *err;
	struct run r;
	int status = PI_EXIT_INPUT;

	memset(&r, 0, sizeof(r));
	r.env = env;
	r.call = c;
	ev = tool_event("tool_execution_start", c);
	jsonx_set(ev, "input", jsonx_ref(c->input));
	if (emit(&r, ev) == -1)
		return PI_EXIT_PIPE;
	ev = tool_event("tool_execution_end", c);
	jsonx_set_bool(ev, "success", 0);
	jsonx_set_str(ev, "output", text);
	jsonx_set_int(ev, "durationMs", 0);
	err = json_object_new_object();
	jsonx_set_str(err, "code", code);
	jsonx_set_str(err, "message", text);
	jsonx_set(ev, "error", err);
	if (emit(&r, ev) == -1)
		status = PI_EXIT_PIPE;
	fprintf(stderr, "pi-tool: %s: %s\n", c->name, code);
	return status;
}

int
toolrun_collect(const struct toolrun_env *env, char *const argv[],
    struct buf *out, struct pi_error *e)
{
	struct toolcall c = { (char *)"collect", argv[0], NULL, NULL };
	struct sandbox_outcome o;
	struct sandbox_job job;
	struct sandbox_io io;
	struct sandbox sb;
	struct run r;
	int rc = -1;

	memset(&job, 0, sizeof(job));
	job.argv = argv;
	run_init(&r, env, &c, 0);
	/* Collect straight into the caller's buffer, at its ceiling. */
	buf_release(&r.result);
	r.result = *out;
	io = (struct sandbox_io){ on_output, NULL, &r, env->interrupt };
	if (sandbox_start(&sb, env->policy, &job, e) == -1 ||
	    sandbox_run(&sb, env->policy, &io, &o, e) == -1)
		goto out;
	if (o.interrupted)
		pi_err(e, 128 + o.interrupted, "aborted", "interrupted");
	else if (!o.exited || o.code != 0 || r.over_ceiling)
		pi_err(e, PI_EXIT_INPUT, "bad_tool", "'%s %s' failed (%s %d)",
		    argv[0], argv[1] ? argv[1] : "", o.exited ?
		    "exit status" : "signal", o.exited ? o.code : o.signal);
	else
		rc = 0;
out:
	*out = r.result;
	buf_init(&r.result, 0);
	sandbox_release(&sb);
	run_release(&r);
	return rc;
}
