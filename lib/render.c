/* render: see render.h. */
#include "render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonx.h"
#include "util.h"
#include "banned.h"

#define SHORT_ARGS	100	/* bytes of a tool call's arguments shown */

enum { B_NONE, B_TEXT, B_THINKING };

/* SGR parameters for what is what. */
#define C_DIM	"2"
#define C_THINK	"2;3"
#define C_BOLD	"1"
#define C_TOOL	"36"
#define C_OK	"32"
#define C_BAD	"31"
#define C_WARN	"33"

void
render_init(struct render *r, int fd, int color, int quiet, int verbose)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->color = color;
	r->quiet = quiet;
	r->verbose = verbose;
	buf_init(&r->out, (size_t)-1);
	for (i = 0; i < RENDER_TOOLS; i++)
		buf_init(&r->tools[i].partial, 1u << 20);
}

void
render_release(struct render *r)
{
	size_t i;

	buf_release(&r->out);
	for (i = 0; i < RENDER_TOOLS; i++)
		buf_release(&r->tools[i].partial);
}

static void
sgr(struct render *r, const char *code)
{
	if (r->color)
		(void)buf_addf(&r->out, "\033[%sm", code);
}

static void
reset(struct render *r)
{
	if (r->color)
		(void)buf_adds(&r->out, "\033[0m");
}

/* Bytes that may end a line or not. */
static void
text(struct render *r, const char *s, size_t n)
{
	if (n == 0)
		return;
	(void)buf_add(&r->out, s, n);
	r->col = s[n - 1] != '\n';
}

static void
texts(struct render *r, const char *s)
{
	text(r, s, strlen(s));
}

/* End the open line, if one is open. */
static void
nl(struct render *r)
{
	if (r->col)
		(void)buf_addc(&r->out, '\n');
	r->col = 0;
	r->block = B_NONE;
}

/* A whole line of its own, in a colour. */
static void line(struct render *r, const char *color, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
line(struct render *r, const char *color, const char *fmt, ...)
{
	va_list ap;
	char b[1024];

	nl(r);
	va_start(ap, fmt);
	(void)vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (color != NULL)
		sgr(r, color);
	(void)buf_adds(&r->out, b);
	if (color != NULL)
		reset(r);
	(void)buf_addc(&r->out, '\n');
}

static int
flush(struct render *r)
{
	int rc = 0;

	if (r->out.len > 0 && pi_write_all(r->fd, r->out.data, r->out.len) ==
	    -1)
		rc = -1;
	buf_reset(&r->out);
	return rc;
}

/* The first line of s, at most max bytes, into b (a C string). */
static void
first_line(char *b, size_t size, const char *s, size_t max)
{
	size_t n = s ? strcspn(s, "\n") : 0;

	if (n > max)
		n = max;
	if (n >= size)
		n = size - 1;
	memcpy(b, s ? s : "", n);
	b[n] = '\0';
	if (s != NULL && (s[n] != '\0'))
		(void)snprintf(b + n, size - n, "%s", n + 4 < size ? " …" :
		    "");
}

/* How a call reads in one line: its name and what it acts on. */
static void
short_args(char *b, size_t size, const char *name,
    struct json_object *input)
{
	const char *p;
	char s[SHORT_ARGS + 8];

	if (jsonx_is(input, json_type_string))
		input = NULL;
	if (strcmp(name, "bash") == 0 && (p = jsonx_str(input, "command")))
		first_line(s, sizeof(s), p, SHORT_ARGS);
	else if ((p = jsonx_str(input, "file_path")) != NULL ||
	    (p = jsonx_str(input, "path")) != NULL) {
		if (jsonx_str(input, "pattern") != NULL)
			(void)snprintf(s, sizeof(s), "%.60s in %.40s",
			    jsonx_str(input, "pattern"), p);
		else
			(void)snprintf(s, sizeof(s), "%.*s", SHORT_ARGS, p);
	} else if ((p = jsonx_str(input, "pattern")) != NULL)
		(void)snprintf(s, sizeof(s), "%.*s", SHORT_ARGS, p);
	else if (input == NULL || json_object_object_length(input) == 0)
		*s = '\0';
	else
		first_line(s, sizeof(s), jsonx_string(input, NULL),
		    SHORT_ARGS);
	(void)snprintf(b, size, "%s", s);
}

static void
call_line(struct render *r, const char *name, struct json_object *input)
{
	char args[SHORT_ARGS + 16];

	short_args(args, sizeof(args), name, input);
	nl(r);
	(void)buf_adds(&r->out, "→ ");
	sgr(r, C_TOOL);
	(void)buf_adds(&r->out, name);
	reset(r);
	if (*args != '\0')
		(void)buf_addf(&r->out, " %s", args);
	(void)buf_addc(&r->out, '\n');
}

static struct render_tool *
tool(struct render *r, const char *id, const char *name, int make)
{
	size_t i;
	struct render_tool *t = NULL;

	if (id == NULL)
		id = "";
	for (i = 0; i < RENDER_TOOLS; i++)
		if (r->tools[i].id[0] != '\0' &&
		    strcmp(r->tools[i].id, id) == 0)
			return &r->tools[i];
	if (!make)
		return NULL;
	for (i = 0; i < RENDER_TOOLS && t == NULL; i++)
		if (r->tools[i].id[0] == '\0')
			t = &r->tools[i];
	if (t == NULL)		/* more at once than we follow: reuse one */
		t = &r->tools[0];
	buf_reset(&t->partial);
	(void)snprintf(t->id, sizeof(t->id), "%s", *id ? id : "-");
	(void)snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
	t->shown = t->hidden = 0;
	t->updates = 0;
	return t;
}

/* One line of a tool's output, or a count of those not shown. */
static void
output_line(struct render *r, struct render_tool *t, const char *s, size_t n)
{
	if (!r->verbose && t->shown >= RENDER_LINES) {
		t->hidden++;
		return;
	}
	t->shown++;
	nl(r);
	sgr(r, C_DIM);
	(void)buf_adds(&r->out, "  │ ");
	reset(r);
	(void)buf_add(&r->out, s, n);
	(void)buf_addc(&r->out, '\n');
}

static void
output(struct render *r, struct render_tool *t, const char *s, size_t n)
{
	const char *nlp;
	size_t k;

	while (n > 0) {
		if ((nlp = memchr(s, '\n', n)) == NULL) {
			(void)buf_add(&t->partial, s, n);
			return;
		}
		k = (size_t)(nlp - s);
		if (t->partial.len > 0) {
			(void)buf_add(&t->partial, s, k);
			output_line(r, t, t->partial.data, t->partial.len);
			buf_reset(&t->partial);
		} else
			output_line(r, t, s, k);
		s += k + 1;
		n -= k + 1;
	}
}

static void
output_end(struct render *r, struct render_tool *t)
{
	if (t->partial.len > 0)
		output_line(r, t, t->partial.data, t->partial.len);
	buf_reset(&t->partial);
	if (t->hidden > 0)
		line(r, C_DIM, "  │ … %ld more line%s (-v shows all)", t->hidden,
		    t->hidden == 1 ? "" : "s");
}

static void
duration(char *b, size_t size, int64_t ms)
{
	if (ms < 1000)
		(void)snprintf(b, size, "%lld ms", (long long)ms);
	else if (ms < 60000)
		(void)snprintf(b, size, "%.1f s", (double)ms / 1000);
	else
		(void)snprintf(b, size, "%lldm%02llds", (long long)ms / 60000,
		    (long long)(ms / 1000) % 60);
}

static void
tool_end(struct render *r, struct json_object *o)
{
	const char *id = jsonx_str(o, "toolCallId");
	struct render_tool *t = tool(r, id, jsonx_str(o, "toolName"), 1);
	struct json_object *err = jsonx_obj(o, "error");
	const char *out = jsonx_str(o, "output"), *code;
	char d[32], why[200];

	/* Tools that stream nothing: their result, cut as output is. */
	if (!t->updates && out != NULL)
		output(r, t, out, strlen(out));
	output_end(r, t);
	duration(d, sizeof(d), jsonx_int(o, "durationMs", 0));
	nl(r);
	if (jsonx_bool(o, "success", 0)) {
		(void)buf_adds(&r->out, "  ");
		sgr(r, C_OK);
		(void)buf_adds(&r->out, "✓ ok");
		reset(r);
		(void)buf_addf(&r->out, " · %s\n", d);
	} else {
		code = jsonx_str(err, "code");
		if (code != NULL && strcmp(code, "exit_status") == 0 &&
		    jsonx_get(o, "exitCode") != NULL)
			(void)snprintf(why, sizeof(why), "exit %lld",
			    (long long)jsonx_int(o, "exitCode", 0));
		else
			first_line(why, sizeof(why), jsonx_str(err,
			    "message") ? jsonx_str(err, "message") : out,
			    120);
		(void)buf_adds(&r->out, "  ");
		sgr(r, C_BAD);
		(void)buf_addf(&r->out, "✗ %s%s%s", code && strcmp(code,
		    "exit_status") ? code : "", code && strcmp(code,
		    "exit_status") ? ": " : "", why);
		reset(r);
		(void)buf_addf(&r->out, " · %s\n", d);
	}
	t->id[0] = '\0';
	if (!r->loop) {
		r->closed = 1;
		r->status = jsonx_bool(o, "success", 0) ? 0 : PI_EXIT_TOOL;
	}
}

/* The exit status an error code stands for (DESIGN.md 7). */
static int
status_of(const char *code, int recoverable)
{
	static const struct { const char *code; int status; } map[] = {
		{ "usage", 2 }, { "bad_input", 3 }, { "truncated_input", 3 },
		{ "unknown_id", 3 }, { "auth", 4 }, { "no_key", 4 },
		{ "not_found", 4 }, { "config", 4 }, { "faux_script", 4 },
		{ "unknown_model", 4 }, { "context_overflow", 5 },
		{ "provider_error", 5 }, { "invalid_request", 5 },
		{ "quota_exceeded", 5 }, { "replay_mismatch", 3 },
		{ "sandbox", 7 }, { "idle_timeout", 124 }, { "timeout", 124 },
		{ "aborted", 130 },
	};
	size_t i;

	for (i = 0; code != NULL && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(code, map[i].code) == 0)
			return map[i].status;
	return recoverable ? PI_EXIT_TEMP : PI_EXIT_FAIL;
}

/* Text that may hold several lines, each after a prefix. */
static void
prefixed(struct render *r, const char *prefix, const char *color,
    const char *s)
{
	const char *p = s, *e;

	nl(r);
	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		if (color != NULL)
			sgr(r, color);
		(void)buf_adds(&r->out, prefix);
		(void)buf_add(&r->out, p, e ? (size_t)(e - p) : strlen(p));
		if (color != NULL)
			reset(r);
		(void)buf_addc(&r->out, '\n');
		p = e ? e + 1 : NULL;
	}
}

static void
thinking(struct render *r, const char *s)
{
	const char *e;

	if (r->quiet || s == NULL)
		return;
	if (r->block != B_THINKING)
		nl(r);
	r->block = B_THINKING;
	while (*s != '\0') {
		if (!r->col) {
			sgr(r, C_THINK);
			(void)buf_adds(&r->out, "┆ ");
		} else
			sgr(r, C_THINK);
		e = strchr(s, '\n');
		text(r, s, e ? (size_t)(e - s + 1) : strlen(s));
		reset(r);
		s = e ? e + 1 : s + strlen(s);
	}
}

static void
assistant_text(struct render *r, const char *s)
{
	if (s == NULL || *s == '\0')
		return;
	if (r->block != B_TEXT)
		nl(r);
	r->block = B_TEXT;
	texts(r, s);
}

/* The text of a content: a string, or its text blocks. */
static void
content_lines(struct render *r, struct json_object *c, const char *prefix,
    const char *color)
{
	size_t i;
	struct json_object *b;

	if (jsonx_is(c, json_type_string)) {
		prefixed(r, prefix, color, json_object_get_string(c));
		return;
	}
	for (i = 0; c != NULL && i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if (jsonx_str(b, "text") != NULL)
			prefixed(r, prefix, color, jsonx_str(b, "text"));
		else if (jsonx_str(b, "type") &&
		    strcmp(jsonx_str(b, "type"), "image") == 0)
			prefixed(r, prefix, color, "[image]");
	}
}

/* A whole message, as a session file or a context holds it. */
static void
message(struct render *r, struct json_object *m)
{
	const char *role = jsonx_str(m, "role");
	struct json_object *c = jsonx_get(m, "content"), *b;
	struct render_tool t;
	const char *type, *s;
	size_t i;

	if (role == NULL)
		return;
	if (strcmp(role, "user") == 0 || strcmp(role, "custom") == 0) {
		content_lines(r, c, "> ", C_BOLD);
		return;
	}
	if (strcmp(role, "bashExecution") == 0) {
		call_line(r, "bash", NULL);
		prefixed(r, "  $ ", NULL, jsonx_str(m, "command"));
		s = jsonx_str(m, "output");
		memset(&t, 0, sizeof(t));
		buf_init(&t.partial, 1u << 20);
		if (s != NULL)
			output(r, &t, s, strlen(s));
		output_end(r, &t);
		buf_release(&t.partial);
		return;
	}
	if (strcmp(role, "toolResult") == 0) {
		memset(&t, 0, sizeof(t));
		buf_init(&t.partial, 1u << 20);
		for (i = 0; jsonx_is(c, json_type_array) &&
		    i < json_object_array_length(c); i++)
			if ((s = jsonx_str(json_object_array_get_idx(c, i),
			    "text")) != NULL)
				output(r, &t, s, strlen(s));
		output_end(r, &t);
		buf_release(&t.partial);
		if (jsonx_bool(m, "isError", 0))
			line(r, C_BAD, "  ✗ failed");
		else
			line(r, C_OK, "  ✓ ok");
		return;
	}
	if (strcmp(role, "assistant") != 0)
		return;
	if (jsonx_is(c, json_type_string)) {
		assistant_text(r, json_object_get_string(c));
		nl(r);
		return;
	}
	for (i = 0; c != NULL && i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if ((type = jsonx_str(b, "type")) == NULL)
			continue;
		if (strcmp(type, "text") == 0)
			assistant_text(r, jsonx_str(b, "text"));
		else if (strcmp(type, "thinking") == 0)
			thinking(r, jsonx_str(b, "thinking"));
		else if (strcmp(type, "toolCall") == 0)
			call_line(r, jsonx_str(b, "name") ? jsonx_str(b,
			    "name") : "?", jsonx_obj(b, "arguments"));
	}
	nl(r);
	if ((s = jsonx_str(m, "errorMessage")) != NULL)
		line(r, C_BAD, "✗ error: %s", s);
}

static void
account(struct render *r, struct json_object *o)
{
	struct json_object *m = jsonx_obj(o, "message");
	struct json_object *u = jsonx_obj(m, "usage");
	long long total = jsonx_int(u, "totalTokens", 0);

	if (total == 0)
		total = jsonx_int(u, "input", 0) + jsonx_int(u, "output", 0) +
		    jsonx_int(u, "cacheRead", 0) + jsonx_int(u, "cacheWrite", 0);
	r->tokens += total;
	r->cost += jsonx_num(jsonx_obj(u, "cost"), "total", 0);
}

static void
summary(struct render *r, long turns, long long tokens, double cost,
    long long ms, const char *reason, int status)
{
	char d[32];

	nl(r);
	sgr(r, C_DIM);
	(void)buf_adds(&r->out, "──");
	if (turns > 0)
		(void)buf_addf(&r->out, " %ld turn%s ·", turns,
		    turns == 1 ? "" : "s");
	(void)buf_addf(&r->out, " %lld tokens · $%.4f", tokens, cost);
	if (ms >= 0) {
		duration(d, sizeof(d), ms);
		(void)buf_addf(&r->out, " · %s", d);
	}
	if (reason != NULL)
		(void)buf_addf(&r->out, " · %s", reason);
	if (status != 0)
		(void)buf_addf(&r->out, " · exit %d", status);
	reset(r);
	(void)buf_addc(&r->out, '\n');
	r->summarized = 1;
}

static void
message_end(struct render *r, struct json_object *o)
{
	struct json_object *m = jsonx_obj(o, "message");
	const char *role = jsonx_str(o, "role"), *stop, *err;

	if (role == NULL)
		role = jsonx_str(m, "role");
	if (role != NULL && strcmp(role, "user") == 0) {
		content_lines(r, jsonx_get(m, "content"), "> ", C_BOLD);
		return;
	}
	if (role != NULL && strcmp(role, "assistant") != 0)
		return;		/* tool results were shown with their tool */
	/* A message that streamed nothing: a whole one, shown whole. */
	if (!r->streamed)
		message(r, m);
	r->streamed = 0;
	nl(r);
	stop = jsonx_str(o, "stopReason");
	err = jsonx_str(o, "errorMessage");
	if (stop != NULL && strcmp(stop, "aborted") == 0)
		line(r, C_WARN, "✗ aborted");
	else if (stop != NULL && strcmp(stop, "error") == 0)
		line(r, C_BAD, "✗ error: %s", err ? err : "the call failed");
	account(r, o);
	(void)snprintf(r->stop_buf, sizeof(r->stop_buf), "%s",
	    stop ? stop : "");
	r->stop = r->stop_buf;
	if (!r->loop) {
		r->closed = 1;
		r->status = stop && strcmp(stop, "aborted") == 0 ?
		    PI_EXIT_SIGINT : stop && strcmp(stop, "error") == 0 ?
		    PI_EXIT_FAIL : 0;
	}
}

/* pi's entry lines (pi-sess export and log) other than messages. */
static int
entry(struct render *r, const char *type, struct json_object *o)
{
	char b[200];

	if (strcmp(type, "model_change") == 0)
		line(r, C_DIM, "· model %s/%s", jsonx_str(o, "provider") ?
		    jsonx_str(o, "provider") : "?", jsonx_str(o, "modelId") ?
		    jsonx_str(o, "modelId") : "?");
	else if (strcmp(type, "thinking_level_change") == 0)
		line(r, C_DIM, "· thinking %s", jsonx_str(o, "thinkingLevel") ?
		    jsonx_str(o, "thinkingLevel") : "?");
	else if (strcmp(type, "compaction") == 0 ||
	    strcmp(type, "branch_summary") == 0) {
		first_line(b, sizeof(b), jsonx_str(o, "summary"), 120);
		line(r, C_DIM, "⋯ %s: %s", strcmp(type, "compaction") == 0 ?
		    "compaction" : "branch summary", b);
	} else if (strcmp(type, "session_info") == 0)
		line(r, C_DIM, "· named %s", jsonx_str(o, "name") ?
		    jsonx_str(o, "name") : "");
	else if (strcmp(type, "label") == 0)
		line(r, C_DIM, "· label %s on %s", jsonx_str(o, "label") ?
		    jsonx_str(o, "label") : "(cleared)",
		    jsonx_str(o, "targetId") ? jsonx_str(o, "targetId") : "?");
	else if (strcmp(type, "custom") == 0 && jsonx_str(o, "customType") &&
	    strcmp(jsonx_str(o, "customType"), "pi.system") == 0)
		line(r, C_DIM, "· system prompt");
	else if (strcmp(type, "custom_message") == 0)
		content_lines(r, jsonx_get(o, "content"), "> ", C_BOLD);
	else
		return 0;
	return 1;
}

static void
agent_end(struct render *r, struct json_object *o)
{
	struct json_object *err = jsonx_obj(o, "error");
	const char *reason = jsonx_str(o, "terminationReason");

	r->status = (int)jsonx_int(o, "exitCode", reason &&
	    strcmp(reason, "no_tool_calls") == 0 ? 0 : PI_EXIT_FAIL);
	if (err != NULL && r->status != 0 && jsonx_str(err, "message"))
		line(r, C_BAD, "✗ %s", jsonx_str(err, "message"));
	summary(r, (long)jsonx_int(o, "totalTurns", 0),
	    jsonx_int(o, "totalTokens", 0), jsonx_num(o, "cost", 0),
	    jsonx_int(o, "durationMs", 0), reason, r->status);
	r->closed = 1;
}

int
render_event(struct render *r, struct json_object *o)
{
	const char *type = jsonx_str(o, "type"), *s;
	struct render_tool *t;
	struct json_object *m;
	char b[200];

	if (jsonx_int(o, "ts", 0) > 0) {
		if (r->first_ts == 0)
			r->first_ts = jsonx_int(o, "ts", 0);
		r->last_ts = jsonx_int(o, "ts", 0);
	}
	if (type == NULL) {
		message(r, o);
		return flush(r);
	}
	if (strcmp(type, "agent_start") == 0) {
		r->loop = r->live = 1;
		r->closed = 0;
		m = jsonx_arr(o, "tools");
		line(r, C_DIM, "● session %s · model %s · %zu tools",
		    jsonx_str(o, "sessionId") ? jsonx_str(o, "sessionId") : "?",
		    jsonx_str(o, "model") && *jsonx_str(o, "model") ?
		    jsonx_str(o, "model") : "(default)",
		    m ? json_object_array_length(m) : 0);
	} else if (strcmp(type, "message_start") == 0) {
		r->live = 1;
		r->streamed = 0;
	} else if (strcmp(type, "text_delta") == 0) {
		r->streamed = 1;
		assistant_text(r, jsonx_str(o, "delta"));
	} else if (strcmp(type, "thinking_delta") == 0) {
		r->streamed = 1;
		thinking(r, jsonx_str(o, "delta"));
	} else if (strcmp(type, "toolcall_start") == 0 ||
	    strcmp(type, "toolcall_delta") == 0)
		r->streamed = 1;
	else if (strcmp(type, "toolcall_end") == 0) {
		r->streamed = 1;
		/* pi-loop shows it when it runs; pi-llm alone, now. */
		if (!r->loop)
			call_line(r, jsonx_str(o, "toolName") ?
			    jsonx_str(o, "toolName") : "?",
			    jsonx_obj(o, "input"));
	} else if (strcmp(type, "message_end") == 0)
		message_end(r, o);
	else if (strcmp(type, "tool_execution_start") == 0) {
		r->live = 1;
		s = jsonx_str(o, "toolName") ? jsonx_str(o, "toolName") : "?";
		(void)tool(r, jsonx_str(o, "toolCallId"), s, 1);
		call_line(r, s, jsonx_obj(o, "input"));
	} else if (strcmp(type, "tool_execution_update") == 0) {
		t = tool(r, jsonx_str(o, "toolCallId"),
		    jsonx_str(o, "toolName"), 1);
		s = jsonx_str(o, "updateType");
		if (s != NULL && strcmp(s, "progress") == 0)
			line(r, C_DIM, "  … %s", jsonx_str(o, "content") ?
			    jsonx_str(o, "content") : "");
		else if ((s = jsonx_str(o, "content")) != NULL) {
			t->updates = 1;
			output(r, t, s, strlen(s));
		}
	} else if (strcmp(type, "tool_execution_end") == 0)
		tool_end(r, o);
	else if (strcmp(type, "retry") == 0)
		line(r, C_WARN, "⟳ retry %lld in %lld ms: %s",
		    (long long)jsonx_int(o, "attempt", 0),
		    (long long)jsonx_int(o, "delayMs", 0),
		    jsonx_str(o, "reason") ? jsonx_str(o, "reason") : "");
	else if (strcmp(type, "compaction_start") == 0)
		line(r, C_WARN, "⋯ compacting the context (%s, %lld tokens)",
		    jsonx_str(o, "reason") ? jsonx_str(o, "reason") : "?",
		    (long long)jsonx_int(o, "tokensBefore", 0));
	else if (strcmp(type, "compaction_end") == 0) {
		if ((s = jsonx_str(o, "error")) != NULL)
			line(r, C_WARN, "⋯ no compaction: %s", s);
		else {
			first_line(b, sizeof(b), jsonx_str(o, "summary"), 100);
			line(r, C_WARN, "⋯ compacted: %s", b);
		}
	} else if (strcmp(type, "error") == 0) {
		line(r, C_BAD, "✗ %s: %s", jsonx_str(o, "code") ?
		    jsonx_str(o, "code") : "error", jsonx_str(o, "message") ?
		    jsonx_str(o, "message") : "");
		if (!r->loop) {
			r->closed = 1;
			r->status = status_of(jsonx_str(o, "code"),
			    jsonx_bool(o, "recoverable", 0));
		}
	} else if (strcmp(type, "agent_end") == 0)
		agent_end(r, o);
	else if (strcmp(type, "session") == 0)
		line(r, C_DIM, "● session %s · %s", jsonx_str(o, "id") ?
		    jsonx_str(o, "id") : "?", jsonx_str(o, "cwd") ?
		    jsonx_str(o, "cwd") : "");
	else if (strcmp(type, "context") == 0)
		line(r, C_DIM, "● context of %s · %lld messages",
		    jsonx_str(o, "sessionId") ? jsonx_str(o, "sessionId") : "?",
		    (long long)jsonx_int(o, "messages", 0));
	else if (strcmp(type, "system") == 0)
		line(r, C_DIM, "· system prompt, %zu characters",
		    jsonx_str(o, "text") ? strlen(jsonx_str(o, "text")) : 0);
	else if (strcmp(type, "response") == 0)
		line(r, jsonx_bool(o, "success", 0) ? C_DIM : C_BAD,
		    "· %s %s%s%s", jsonx_str(o, "command") ?
		    jsonx_str(o, "command") : "?", jsonx_bool(o, "success", 0) ?
		    "ok" : "failed", jsonx_str(o, "error") ? ": " : "",
		    jsonx_str(o, "error") ? jsonx_str(o, "error") : "");
	else if (strcmp(type, "message") == 0)
		message(r, jsonx_obj(o, "message"));
	else
		(void)entry(r, type, o);
	return flush(r);
}

int
render_finish(struct render *r, void (*warn)(const char *))
{
	nl(r);
	if (r->live && !r->closed) {
		if (warn != NULL)
			warn("the stream ended before its closing event");
		if (r->status == 0)
			r->status = PI_EXIT_FAIL;
	}
	if (!r->summarized && r->stop != NULL && !r->loop)
		summary(r, 0, r->tokens, r->cost, r->last_ts - r->first_ts,
		    r->stop, r->status);
	(void)flush(r);
	return r->status;
}
