/*
 * pi-tool: run exactly one tool call in a sandbox and stream its events.
 *
 * Reads one tool call on stdin (pi-llm's toolcall_end event, or
 * {toolCallId, toolName, input}, or pi's toolCall block) and writes
 * tool_execution_start, tool_execution_update as output arrives, and
 * tool_execution_end.  The process that reads the call never runs it:
 * bash, custom tools and the built-in tools alike run in the sandbox of
 * sandbox.h, and this one only reads pipes and writes events.  Its exit
 * status says how the call went (DESIGN.md section 7).
 */
#define _XOPEN_SOURCE 700	/* realpath */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "capture.h"
#include "event.h"
#include "jsonx.h"
#include "ndjson.h"
#include "sandbox.h"
#include "tooldir.h"
#include "tools.h"
#include "truncate.h"
#include "utf8.h"
#include "util.h"
#include "validate.h"
#include "banned.h"

/* Streamed output events stop here; the output itself goes on. */
#define STREAM_BUDGET	(1u << 20)
#define MAX_CALL	(64u << 20)

static volatile sig_atomic_t got_signal;

static const char *wflag, *tool_dir_flag, *output_dir_flag;
static int list_flag, degraded_flag;
static struct sandbox_policy policy;
static struct tool_limits limits = { 51200, 2000 };

static _Noreturn void
usage_to(FILE *f, int status)
{
	fputs("usage: pi-tool [-hV] [-w dir] [--allow-degraded] "
	    "[--allow-read path]\n"
	    "               [--allow-write path] [--deny-read path] "
	    "[--grace sec]\n"
	    "               [--max-output bytes] [--memory bytes] "
	    "[--network | --no-network]\n"
	    "               [--output-dir dir] [--processes n] "
	    "[--timeout sec] [--tool-dir dir]\n"
	    "       pi-tool --list [--tool-dir dir]\n", f);
	exit(status);
}

static _Noreturn void
usage(void)
{
	usage_to(stderr, PI_EXIT_USAGE);
}

static _Noreturn void errx_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* A bad option value: say which, then how to call, and exit 2. */
static _Noreturn void
errx_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("pi-tool: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage();
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

static void
check_fds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
}

struct call {
	char *id, *name, *message_id;
	struct json_object *input;
	const struct tool_def *builtin;
	char *custom;			/* path of a custom tool */
	struct json_object *schema;	/* a custom tool's */
};

struct run {
	struct call *call;
	struct capture cap;
	struct buf result;		/* a built-in tool's answer */
	size_t streamed[3];
	char carry[3][4];
	size_t carry_len[3];
	int is_command;
	int pipe_gone;
	struct pi_error cap_err;
	int over_ceiling;
};

static int stdout_gone;

static int
emit(struct json_object *ev)
{
	int rc = 0;

	if (!stdout_gone && ndjson_write(1, ev) == -1) {
		if (errno == EPIPE)
			stdout_gone = 1;
		rc = -1;
	}
	json_object_put(ev);
	return rc;
}

static struct json_object *
tool_event(const char *type, const struct call *c)
{
	struct json_object *ev = event_new(type);

	jsonx_set_str(ev, "toolCallId", c->id);
	jsonx_set_str(ev, "toolName", c->name);
	if (c->message_id != NULL)
		jsonx_set_str(ev, "messageId", c->message_id);
	return ev;
}

static int
fail(const struct pi_error *e, const struct call *c)
{
	struct json_object *ev;

	fprintf(stderr, "pi-tool: %s\n", e->msg);
	ev = event_new("error");
	jsonx_set_str(ev, "code", e->code ? e->code : "error");
	jsonx_set_str(ev, "message", e->msg);
	jsonx_set_bool(ev, "recoverable", pi_is_temporary(e));
	if (c != NULL && c->id != NULL)
		jsonx_set_str(ev, "toolCallId", c->id);
	if (emit(ev) == -1 && stdout_gone)
		return PI_EXIT_PIPE;
	return e->status;
}

/* The first string of o's keys a..., or NULL. */
static const char *
str_of(struct json_object *o, const char *a, const char *b)
{
	return jsonx_str(o, a) ? jsonx_str(o, a) : jsonx_str(o, b);
}

/* Take the one tool call of the input; other lines are passed over. */
static int
read_call(struct call *c, struct pi_error *e)
{
	struct buf in;
	struct json_object *o, *input;
	const char *type;
	size_t lineno = 0, found = 0;
	char *line, *nl, chunk[65536];
	ssize_t n;
	int rc = -1;

	buf_init(&in, MAX_CALL);
	while ((n = read(0, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR && !got_signal)
			continue;
		if (n == -1)
			return pi_err(e, got_signal ? 128 + got_signal :
			    PI_EXIT_INPUT, "bad_input", "stdin: %s",
			    strerror(errno));
		if (buf_add(&in, chunk, (size_t)n) == -1) {
			buf_release(&in);
			return pi_err(e, PI_EXIT_INPUT, "bad_input",
			    "stdin: over %u bytes", MAX_CALL);
		}
	}
	for (line = in.data; line < in.data + in.len; line = nl + 1) {
		lineno++;
		if ((nl = memchr(line, '\n', in.data + in.len - line)) == NULL)
			nl = in.data + in.len;
		*nl = '\0';
		if (line[strspn(line, " \t\r")] == '\0')
			continue;
		if ((o = jsonx_parse(line, (size_t)(nl - line), e)) == NULL) {
			pi_err(e, PI_EXIT_INPUT, "bad_input", "stdin:%zu: %s",
			    lineno, e->msg);
			goto out;
		}
		type = jsonx_str(o, "type");
		input = jsonx_get(o, "input") ? jsonx_get(o, "input") :
		    jsonx_get(o, "arguments");
		if ((type != NULL && strcmp(type, "toolcall_end") != 0 &&
		    strcmp(type, "toolCall") != 0) || (type == NULL &&
		    jsonx_str(o, "toolName") == NULL && jsonx_str(o, "name") ==
		    NULL)) {
			json_object_put(o);
			continue;
		}
		if (found++) {
			json_object_put(o);
			pi_err(e, PI_EXIT_INPUT, "bad_input", "stdin:%zu: a "
			    "second tool call; pi-tool runs exactly one",
			    lineno);
			goto out;
		}
		c->id = xstrdup(str_of(o, "toolCallId", "id") ?
		    str_of(o, "toolCallId", "id") : "");
		c->name = str_of(o, "toolName", "name") ?
		    xstrdup(str_of(o, "toolName", "name")) : NULL;
		if (jsonx_str(o, "messageId") != NULL)
			c->message_id = xstrdup(jsonx_str(o, "messageId"));
		if (jsonx_is(input, json_type_string)) {
			/* pi-llm gives a string when the model's JSON broke. */
			c->input = jsonx_parse(json_object_get_string(input),
			    strlen(json_object_get_string(input)), NULL);
			if (c->input == NULL)
				c->input = jsonx_ref(input);
		} else
			c->input = input ? jsonx_ref(input) :
			    json_object_new_object();
		json_object_put(o);
		if (c->name == NULL || *c->id == '\0') {
			pi_err(e, PI_EXIT_INPUT, "bad_input", "stdin:%zu: a tool "
			    "call needs toolCallId and toolName", lineno);
			goto out;
		}
	}
	if (found == 0)
		pi_err(e, PI_EXIT_INPUT, "bad_input", "stdin: no tool call");
	else
		rc = 0;
out:
	buf_release(&in);
	return rc;
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
	return emit(ev);
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
	if (!r->is_command || r->streamed[0] >= STREAM_BUDGET)
		return 0;
	r->streamed[0] += n;
	return stream_update(r, stream, p, n, 0);
}

/* Past the streaming budget, a word a second that it is still going. */
static int
on_tick(void *arg)
{
	struct run *r = arg;
	struct json_object *ev;
	char size[FORMAT_SIZE_LEN];

	if (!r->is_command || r->streamed[0] < STREAM_BUDGET)
		return 0;
	ev = tool_event("tool_execution_update", r->call);
	jsonx_set_str(ev, "updateType", "progress");
	format_size(size, r->cap.total);
	jsonx_set(ev, "content", json_object_new_string(size));
	jsonx_set_int(ev, "bytes", (int64_t)r->cap.total);
	return emit(ev);
}

/* In the sandbox: run a built-in tool and answer with its result. */
static int
run_builtin(void *arg)
{
	struct call *c = arg;
	struct tool_result res;
	struct json_object *o;
	int rc;

	tool_result_init(&res);
	c->builtin->run(c->input, &limits, &res);
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

static char *output_dir;
static char output_why[160];

/* Where full outputs are kept: ours alone, and seen by later calls. */
static void
setup_output_dir(void)
{
	const char *base = getenv("TMPDIR");
	struct stat st;
	char *d;

	if (output_dir_flag != NULL)
		d = xstrdup(output_dir_flag);
	else
		d = xasprintf("%s/pi-tool-output.%lu", base && *base == '/' ?
		    base : "/tmp", (unsigned long)getuid());
	if (mkdir(d, 0700) == -1 && errno != EEXIST) {
		snprintf(output_why, sizeof(output_why), "%s: %s", d,
		    strerror(errno));
		free(d);
		return;
	}
	if (lstat(d, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		snprintf(output_why, sizeof(output_why), "%s is not a "
		    "directory of ours that only we may read", d);
		free(d);
		return;
	}
	output_dir = d;
}

static const char *
degraded_notice(struct sandbox *sb, struct buf *out)
{
	struct json_object *d;
	size_t i, n = json_object_array_length(sb->degraded);

	for (i = 0; i < n; i++) {
		d = json_object_array_get_idx(sb->degraded, i);
		(void)buf_addf(out, "%s%s (%s)", i ? "; " : "[sandbox degraded: ",
		    jsonx_str(d, "layer"), jsonx_str(d, "reason"));
	}
	if (n)
		(void)buf_adds(out, "]\n\n");
	return out->data;
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

struct ending {
	const char *code;
	char msg[512];
	int status;
};

static void
ending(struct ending *x, const char *code, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

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

/* How a run ended, for any kind of tool; 0 when it simply ran. */
static int
stopped(struct run *r, const struct sandbox_outcome *o, struct ending *x)
{
	const char *what = r->call->custom ? "Tool" : r->is_command ?
	    "Command" : r->call->name;

	if (o->timed_out)
		ending(x, "timeout", PI_EXIT_TIMEOUT, "%s timed out after %g "
		    "seconds", what, (double)policy.timeout_ms / 1000);
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
	const char *what = r->call->custom ? "Tool" : "Command";
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

static void
end_builtin(struct run *r, const struct sandbox_outcome *o,
    struct json_object *ev, struct buf *text, struct ending *x)
{
	struct tool_result res;
	struct json_object *answer, *content, *block;
	size_t notice = text->len, i;

	tool_result_init(&res);
	answer = stopped(r, o, x) ? NULL : jsonx_parse(r->result.data,
	    r->result.len, NULL);
	if (x->code == NULL && (answer == NULL ||
	    tool_result_from_json(&res, answer) == -1)) {
		/* It died: what it said on stderr is all there is. */
		ending(x, "internal", PI_EXIT_FAIL, "%s ended without a result "
		    "(%s %d)", r->call->name, o->exited ? "exit status" :
		    "signal", o->exited ? o->code : o->signal);
		(void)buf_addf(text, "%s", x->msg);
		if (r->cap.total > 0) {
			(void)buf_adds(text, ":\n");
			capture_text(&r->cap, text);
		}
	} else if (x->code != NULL)
		(void)buf_adds(text, x->msg);
	else {
		(void)buf_add(text, res.output.data, res.output.len);
		if (res.error_code != NULL)
			ending(x, res.error_code, PI_EXIT_TOOL, "%s",
			    res.output.data);
		jsonx_set_bool(ev, "truncated", res.truncated);
		if (res.details != NULL)
			jsonx_set(ev, "details", jsonx_ref(res.details));
		if (res.content != NULL) {
			content = json_object_new_array();
			/* The model must see the notice with the image too. */
			if (notice > 0) {
				block = json_object_new_object();
				jsonx_set_str(block, "type", "text");
				jsonx_set(block, "text", jsonx_new_str(text->data,
				    notice));
				json_object_array_add(content, block);
			}
			for (i = 0; i < json_object_array_length(res.content);
			    i++)
				json_object_array_add(content, jsonx_ref(
				    json_object_array_get_idx(res.content, i)));
			jsonx_set(ev, "content", content);
		}
	}
	json_object_put(answer);
	tool_result_release(&res);
}

/* The supervisor's whole job for one call. */
static int
run_call(struct call *c)
{
	struct sandbox sb;
	struct sandbox_job job;
	struct sandbox_outcome o;
	struct sandbox_io io;
	struct run r;
	struct ending x;
	struct pi_error e;
	struct json_object *ev;
	struct buf text;
	char *argv[4] = { NULL }, *input = NULL, *name;
	size_t i;
	int status;

	memset(&job, 0, sizeof(job));
	memset(&r, 0, sizeof(r));
	memset(&x, 0, sizeof(x));
	r.call = c;
	if (c->builtin != NULL && c->builtin->run != NULL) {
		job.fn = run_builtin;
		job.arg = c;
	} else if (c->builtin != NULL) {
		argv[0] = (char *)shell();
		argv[1] = (char *)"-c";
		argv[2] = (char *)jsonx_str(c->input, "command");
		r.is_command = 1;
	} else {
		argv[0] = c->custom;
		input = xasprintf("%s\n", jsonx_string(c->input, NULL));
		job.input = input;
		job.input_len = strlen(input);
		r.is_command = 1;
	}
	job.argv = argv;
	/* The full output file is named after the call. */
	name = xstrdup(c->id);
	for (i = 0; name[i]; i++)
		if (strchr("/.", name[i]) != NULL || name[i] < ' ')
			name[i] = '_';
	capture_init(&r.cap, limits.max_bytes, limits.max_lines,
	    PI_MAX_OUTPUT, output_dir, name);
	free(name);
	if (output_dir == NULL)
		snprintf(r.cap.why, sizeof(r.cap.why), "%s", output_why);
	buf_init(&r.result, TOOL_MAX_OUTPUT + (1u << 20));
	buf_init(&text, PI_MAX_OUTPUT + (1u << 20));
	if (sandbox_start(&sb, &policy, &job, &e) == -1) {
		status = fail(&e, c);
		goto out;
	}
	ev = tool_event("tool_execution_start", c);
	jsonx_set(ev, "input", jsonx_ref(c->input));
	jsonx_set(ev, "sandbox", sandbox_status(&sb, &policy));
	if (emit(ev) == -1) {
		status = PI_EXIT_PIPE;
		goto out;
	}
	io.output = on_output;
	io.tick = on_tick;
	io.arg = &r;
	io.interrupt = &got_signal;
	if (sandbox_run(&sb, &policy, &io, &o, &e) == -1) {
		status = fail(&e, c);
		goto out;
	}
	for (i = 1; i <= 2; i++)
		if (r.carry_len[i] > 0)
			(void)stream_update(&r, (int)i, "", 0, 1);
	degraded_notice(&sb, &text);
	ev = tool_event("tool_execution_end", c);
	/* Placeholders, so that the keys come in this order. */
	jsonx_set_bool(ev, "success", 0);
	jsonx_set_str(ev, "output", "");
	jsonx_set_int(ev, "durationMs", o.duration_ms);
	if (r.is_command)
		end_command(&r, &o, ev, &text, &x);
	else
		end_builtin(&r, &o, ev, &text, &x);
	jsonx_set_bool(ev, "success", x.code == NULL);
	jsonx_set(ev, "output", jsonx_new_str(text.data, text.len));
	if (x.code != NULL) {
		struct json_object *err = json_object_new_object();

		jsonx_set_str(err, "code", x.code);
		jsonx_set_str(err, "message", x.msg);
		jsonx_set(ev, "error", err);
	}
	jsonx_set(ev, "degraded", jsonx_ref(sb.degraded));
	status = x.code == NULL ? PI_EXIT_OK : x.status;
	if (emit(ev) == -1)
		status = PI_EXIT_PIPE;
out:
	if (stdout_gone)
		status = PI_EXIT_PIPE;
	sandbox_release(&sb);
	capture_release(&r.cap);
	buf_release(&r.result);
	buf_release(&text);
	free(input);
	return status;
}

/* A custom tool's definition: its --schema answer, asked in the sandbox. */
static struct json_object *
custom_definition(const char *name, const char *path, struct pi_error *e)
{
	char *argv[] = { (char *)path, (char *)"--schema", NULL };
	long long saved = policy.timeout_ms;
	struct json_object *def = NULL;
	struct sandbox_outcome o;
	struct sandbox_job job;
	struct sandbox_io io;
	struct sandbox sb;
	struct call c;
	struct run r;

	memset(&c, 0, sizeof(c));
	memset(&r, 0, sizeof(r));
	memset(&job, 0, sizeof(job));
	c.id = (char *)"schema";
	c.name = (char *)name;
	r.call = &c;
	buf_init(&r.result, 1u << 20);
	capture_init(&r.cap, 4096, 100, 1u << 20, NULL, "schema");
	job.argv = argv;
	if (policy.timeout_ms > 10000)
		policy.timeout_ms = 10000;
	io = (struct sandbox_io){ on_output, NULL, &r, &got_signal };
	if (sandbox_start(&sb, &policy, &job, e) == -1 ||
	    sandbox_run(&sb, &policy, &io, &o, e) == -1)
		goto out;
	if (o.interrupted)
		pi_err(e, 128 + o.interrupted, "aborted", "interrupted");
	else if (!o.exited || o.code != 0 || r.over_ceiling)
		pi_err(e, PI_EXIT_INPUT, "bad_tool", "'%s --schema' failed "
		    "(%s %d)", path, o.exited ? "exit status" : "signal",
		    o.exited ? o.code : o.signal);
	else
		def = tooldir_definition(name, r.result.data, r.result.len, e);
out:
	policy.timeout_ms = saved;
	sandbox_release(&sb);
	capture_release(&r.cap);
	buf_release(&r.result);
	return def;
}

static void
warnx_tool(const char *name, const char *msg)
{
	fprintf(stderr, "pi-tool: custom tool '%s': %s\n", name, msg);
}

static int
list_tools(void)
{
	const struct tool_def *t;
	struct json_object *ev;
	struct strv names = { NULL, 0 };
	struct pi_error e;
	size_t i, n;
	int status = PI_EXIT_OK;

	t = tools_all(&n);
	for (i = 0; i < n; i++) {
		ev = event_new("tool");
		jsonx_set_str(ev, "name", t[i].name);
		jsonx_set_str(ev, "description", t[i].description);
		jsonx_set(ev, "inputSchema", jsonx_parse(t[i].schema,
		    strlen(t[i].schema), NULL));
		if (emit(ev) == -1)
			return PI_EXIT_PIPE;
	}
	if (tool_dir_flag == NULL)
		return PI_EXIT_OK;
	if (tooldir_list(tool_dir_flag, &names, &e) == -1)
		return fail(&e, NULL);
	for (i = 0; i < names.n && status != PI_EXIT_PIPE; i++) {
		char *path = tooldir_find(tool_dir_flag, names.v[i]);

		if (tools_find(names.v[i]) != NULL) {
			warnx_tool(names.v[i], "has the name of a built-in "
			    "tool; skipped");
			status = PI_EXIT_INPUT;
		} else if ((ev = custom_definition(names.v[i], path, &e))
		    != NULL) {
			if (emit(ev) == -1)
				status = PI_EXIT_PIPE;
		} else if (e.status == PI_EXIT_INPUT) {
			warnx_tool(names.v[i], e.msg);
			status = PI_EXIT_INPUT;
		} else {
			status = fail(&e, NULL);
			free(path);
			break;
		}
		free(path);
	}
	strv_release(&names);
	return status;
}

/* A call the model got wrong: it hears why, as the tool's result. */
static int
refuse(struct call *c, const char *code, const char *text)
{
	struct json_object *ev, *err;

	ev = tool_event("tool_execution_start", c);
	jsonx_set(ev, "input", jsonx_ref(c->input));
	if (emit(ev) == -1)
		return PI_EXIT_PIPE;
	ev = tool_event("tool_execution_end", c);
	jsonx_set_bool(ev, "success", 0);
	jsonx_set_str(ev, "output", text);
	jsonx_set_int(ev, "durationMs", 0);
	err = json_object_new_object();
	jsonx_set_str(err, "code", code);
	jsonx_set_str(err, "message", text);
	jsonx_set(ev, "error", err);
	if (emit(ev) == -1)
		return PI_EXIT_PIPE;
	fprintf(stderr, "pi-tool: %s: %s\n", c->name, code);
	return PI_EXIT_INPUT;
}

/* Find the tool and check the input against its schema. */
static int
resolve(struct call *c, struct pi_error *e)
{
	struct json_object *schema, *def;
	struct buf msg;
	char *text;
	int rc;

	if ((c->builtin = tools_find(c->name)) != NULL) {
		tools_prepare(c->builtin, c->input);
		schema = jsonx_parse(c->builtin->schema,
		    strlen(c->builtin->schema), NULL);
	} else if ((c->custom = tooldir_find(tool_dir_flag, c->name)) != NULL) {
		if ((def = custom_definition(c->name, c->custom, e)) == NULL) {
			if (e->status != PI_EXIT_INPUT)
				return -1;
			text = xasprintf("Tool %s is broken: %s", c->name,
			    e->msg);
			rc = refuse(c, "bad_tool", text);
			free(text);
			return rc;
		}
		schema = jsonx_ref(jsonx_obj(def, "inputSchema"));
		json_object_put(def);
	} else {
		text = xasprintf("Tool %s not found", c->name);
		rc = refuse(c, "unknown_tool", text);
		free(text);
		return rc;
	}
	buf_init(&msg, 1u << 20);
	rc = validate_input(schema, c->input, c->name, &msg) == 0 ? 0 :
	    refuse(c, "invalid_arguments", msg.data);
	buf_release(&msg);
	json_object_put(schema);
	return rc;
}

static long long
seconds(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v > 0) || v > 604800)
		errx_usage("%s: '%s' is not a number of seconds up to a week",
		    what, s);
	return (long long)(v * 1000 + 0.5);
}

static long long
bytes(const char *s, const char *what, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (errno || end == s || *end != '\0' || v < min || v > max)
		errx_usage("%s: '%s' is not a size from %lld to %lld bytes "
		    "(K, M and G may follow)", what, s, min, max);
	return v;
}

/* An existing path, made absolute and real. */
static char *
real(const char *path, const char *what)
{
	char buf[PATH_MAX];

	if (realpath(path, buf) == NULL)
		errx_usage("%s '%s': %s", what, path, strerror(errno));
	return xstrdup(buf);
}

static void
remove_mask(const char *path)
{
	size_t i, j;

	for (i = 0; i < policy.masks.n; i++) {
		char buf[PATH_MAX];
		const char *m = policy.masks.v[i];

		if (strcmp(m, path) != 0 && (realpath(m, buf) == NULL ||
		    strcmp(buf, path) != 0))
			continue;
		free(policy.masks.v[i]);
		for (j = i; j < policy.masks.n; j++)
			policy.masks.v[j] = policy.masks.v[j + 1];
		policy.masks.n--;
		i--;
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow-degraded", no_argument, NULL, 'D' },
		{ "allow-read", required_argument, NULL, 'R' },
		{ "allow-write", required_argument, NULL, 'W' },
		{ "deny-read", required_argument, NULL, 'X' },
		{ "grace", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, 'l' },
		{ "max-output", required_argument, NULL, 'o' },
		{ "memory", required_argument, NULL, 'm' },
		{ "network", no_argument, NULL, 'n' },
		{ "no-network", no_argument, NULL, 'N' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "processes", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "tool-dir", required_argument, NULL, 'T' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct strv reads = { NULL, 0 }, denies = { NULL, 0 };
	struct sigaction sa;
	struct pi_error e;
	struct call call;
	sigset_t block;
	char cwd[PATH_MAX], *p;
	size_t i;
	int ch, status;

	check_fds();
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	policy.timeout_ms = 120000;
	policy.grace_ms = 2000;
	policy.memory_max = 2LL << 30;
	policy.pids_max = 512;
	policy.protect_git = 1;
	sandbox_default_masks(&policy);
	while ((ch = getopt_long(argc, argv, "hVw:", longopts, NULL)) != -1)
		switch (ch) {
		case 'D':
			degraded_flag = 1;
			break;
		case 'R':
			strv_push(&reads, optarg);
			break;
		case 'W':
			p = real(optarg, "--allow-write");
			if (strcmp(p, "/") == 0)
				errx_usage("--allow-write: refusing to make / "
				    "writable");
			strv_push(&policy.allow_write, p);
			free(p);
			break;
		case 'X':
			strv_push(&denies, optarg);
			break;
		case 'g':
			policy.grace_ms = seconds(optarg, "--grace");
			break;
		case 'h':
			usage_to(stdout, PI_EXIT_OK);
		case 'l':
			list_flag = 1;
			break;
		case 'o':
			limits.max_bytes = (size_t)bytes(optarg, "--max-output",
			    1024, 64LL << 20);
			break;
		case 'm':
			policy.memory_max = bytes(optarg, "--memory", 16LL << 20,
			    1LL << 50);
			break;
		case 'n':
			policy.network = 1;
			break;
		case 'N':
			policy.network = 0;
			break;
		case 'O':
			output_dir_flag = optarg;
			break;
		case 'p':
			policy.pids_max = (long)bytes(optarg, "--processes", 1,
			    1 << 22);
			break;
		case 't':
			policy.timeout_ms = seconds(optarg, "--timeout");
			break;
		case 'T':
			tool_dir_flag = optarg;
			break;
		case 'V':
			puts("pi-tool " PI_VERSION);
			return PI_EXIT_OK;
		case 'w':
			wflag = optarg;
			break;
		default:
			usage();
		}
	if (optind != argc)
		usage();
	policy.allow_degraded = degraded_flag;
	if (wflag == NULL && getcwd(cwd, sizeof(cwd)) == NULL)
		errx_usage("cannot find the current directory: %s",
		    strerror(errno));
	p = real(wflag ? wflag : cwd, "workspace");
	policy.workspace = p;
	if (strcmp(p, "/") == 0)
		errx_usage("workspace: refusing to make / writable");
	/* --allow-read wins over a default mask; --deny-read over both. */
	for (i = 0; i < reads.n; i++) {
		p = real(reads.v[i], "--allow-read");
		remove_mask(p);
		strv_push(&policy.allow_read, p);
		free(p);
	}
	for (i = 0; i < denies.n; i++) {
		p = denies.v[i][0] == '/' ? xstrdup(denies.v[i]) :
		    xasprintf("%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".",
		    denies.v[i]);
		strv_push(&policy.masks, p);
		free(p);
	}
	if (tool_dir_flag != NULL) {
		p = real(tool_dir_flag, "--tool-dir");
		strv_push(&policy.allow_read, p);
		tool_dir_flag = policy.allow_read.v[policy.allow_read.n - 1];
		free(p);
	}
	setup_output_dir();
	if (output_dir != NULL)
		strv_push(&policy.allow_read, output_dir);
	/* From here on a signal is taken only where sandbox_run waits. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	memset(&call, 0, sizeof(call));
	if (list_flag) {
		sigprocmask(SIG_BLOCK, &block, NULL);
		status = list_tools();
		goto out;
	}
	if (read_call(&call, &e) == -1) {
		status = fail(&e, &call);
		goto out;
	}
	sigprocmask(SIG_BLOCK, &block, NULL);
	if ((status = resolve(&call, &e)) == -1)
		status = fail(&e, &call);
	else if (status == 0) {
		/* bash's own timeout can only shorten ours. */
		double t = jsonx_num(call.input, "timeout", 0);

		if (call.builtin != NULL && call.builtin->run == NULL &&
		    t > 0 && t * 1000 < (double)policy.timeout_ms)
			policy.timeout_ms = (long long)(t * 1000 + 0.5);
		status = run_call(&call);
	}
out:
	free(call.id);
	free(call.name);
	free(call.message_id);
	free(call.custom);
	json_object_put(call.input);
	free((char *)policy.workspace);
	strv_release(&policy.allow_write);
	strv_release(&policy.allow_read);
	strv_release(&policy.masks);
	strv_release(&reads);
	strv_release(&denies);
	free(output_dir);
	return status;
}
