/* render: see render.h. */
#include "render.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

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

/*
 * Text from outside (the model, a tool, a file) goes to a terminal, so
 * its control characters are shown, never obeyed: an escape sequence in
 * a file the model read must not clear the screen or set the clipboard.
 * Newlines and tabs pass; a CR before a newline goes; the rest of C0,
 * DEL and the C1 controls become ^X notation or U+FFFD.
 */
static void
safe(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n' || p[i] == '\t' || (p[i] >= 0x20 &&
		    p[i] != 0x7f && !(p[i] == 0xc2 && i + 1 < n &&
		    p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)))
			(void)buf_addc(b, (char)p[i]);
		else if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
			continue;
		else if (p[i] == 0xc2) {
			(void)buf_adds(b, "\xef\xbf\xbd");
			i++;
		} else {
			(void)buf_addc(b, '^');
			(void)buf_addc(b, p[i] == 0x7f ? '?' : (char)(p[i] +
			    64));
		}
	}
}

static void
safes(struct buf *b, const char *s)
{
	safe(b, s, strlen(s));
}

/* Bytes that may end a line or not. */
static void
text(struct render *r, const char *s, size_t n)
{
	if (n == 0)
		return;
	safe(&r->out, s, n);
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
	safes(&r->out, b);
	if (color != NULL)
		reset(r);
	(void)buf_addc(&r->out, '\n');
}

static int
flush(struct render *r)
{
	int rc = 0;

	if (r->out.len > 0 && pi_write_all(r->fd, r->out.data, r->out.len) ==
	    -1) {
		r->gone = errno == EPIPE;
		rc = -1;
	}
	buf_reset(&r->out);
	return rc;
}

/* The first line of s, at most max bytes, cut at a character. */
static void
first_line(char *b, size_t size, const char *s, size_t max)
{
	size_t n = s ? strcspn(s, "\n") : 0;
	int cut;

	if (n > max)
		n = max;
	if (n >= size - 4)
		n = size - 5;
	/* Not inside a UTF-8 sequence: back to its lead byte. */
	while (n > 0 && s != NULL && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	cut = s != NULL && s[n] != '\0';
	memcpy(b, s ? s : "", n);
	b[n] = '\0';
	if (cut)
		(void)snprintf(b + n, size - n, " …");
}

/* How a call reads in one line: what it acts on. */
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
			first_line(s, sizeof(s), p, SHORT_ARGS);
	} else if ((p = jsonx_str(input, "pattern")) != NULL)
		first_line(s, sizeof(s), p, SHORT_ARGS);
	else if (input == NULL || json_object_object_length(input) == 0)
		*s = '\0';
	else
		first_line(s, sizeof(s), jsonx_string(input, NULL),
		    SHORT_ARGS);
	(void)snprintf(b, size, "%s", s);
}

static void
call_line(struct render *r, const char *name, const char *args)
{
	nl(r);
	(void)buf_adds(&r->out, "→ ");
	sgr(r, C_TOOL);
	safes(&r->out, name);
	reset(r);
	if (*args != '\0') {
		(void)buf_addc(&r->out, ' ');
		safes(&r->out, args);
	}
	(void)buf_addc(&r->out, '\n');
}

static struct render_tool *
tool(struct render *r, const char *id, const char *name, int make)
{
	size_t i;
	struct render_tool *t = NULL;

	if (id == NULL || *id == '\0')
		id = "-";
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
	(void)snprintf(t->id, sizeof(t->id), "%s", id);
	(void)snprintf(t->name, sizeof(t->name), "%s", name ? name : "?");
	t->args[0] = '\0';
	t->shown = t->hidden = 0;
	t->updates = 0;
	return t;
}

/*
 * Before a tool's output or outcome: when other lines came since its
 * own, say again whose they are, so parallel calls can be told apart.
 */
static void
own_lines(struct render *r, struct render_tool *t)
{
	if (r->last_tool == t)
		return;
	r->last_tool = t;
	nl(r);
	sgr(r, C_DIM);
	(void)buf_adds(&r->out, "  ↳ ");
	safes(&r->out, t->name);
	if (t->args[0] != '\0') {
		(void)buf_addc(&r->out, ' ');
		safes(&r->out, t->args);
	}
	reset(r);
	(void)buf_addc(&r->out, '\n');
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
	own_lines(r, t);
	nl(r);
	sgr(r, C_DIM);
	(void)buf_adds(&r->out, n > 0 ? "  │ " : "  │");
	reset(r);
	safe(&r->out, s, n);
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

/* "  ✓ read · 20 ms" or "  ✗ bash: exit 3 · 290 ms". */
static void
outcome(struct render *r, int ok, const char *name, const char *why,
    const char *took)
{
	nl(r);
	(void)buf_adds(&r->out, "  ");
	sgr(r, ok ? C_OK : C_BAD);
	(void)buf_adds(&r->out, ok ? "✓ " : "✗ ");
	safes(&r->out, name);
	if (why != NULL && *why != '\0') {
		(void)buf_adds(&r->out, ": ");
		safes(&r->out, why);
	}
	reset(r);
	if (took != NULL)
		(void)buf_addf(&r->out, " · %s", took);
	(void)buf_addc(&r->out, '\n');
}

static void
tool_end(struct render *r, struct json_object *o)
{
	const char *id = jsonx_str(o, "toolCallId");
	struct render_tool *t = tool(r, id, jsonx_str(o, "toolName"), 1);
	struct json_object *err = jsonx_obj(o, "error");
	const char *out = jsonx_str(o, "output"), *code, *msg;
	char d[32], why[200];
	int ok = jsonx_bool(o, "success", 0);

	msg = jsonx_str(err, "message");
	/* Tools that stream nothing: their result, cut as output is, but
	 * not when it only repeats the error below. */
	if (!t->updates && out != NULL && !(msg != NULL &&
	    strcmp(msg, out) == 0))
		output(r, t, out, strlen(out));
	output_end(r, t);
	own_lines(r, t);
	duration(d, sizeof(d), jsonx_int(o, "durationMs", 0));
	*why = '\0';
	if (!ok) {
		code = jsonx_str(err, "code");
		if (code != NULL && strcmp(code, "exit_status") == 0 &&
		    jsonx_get(o, "exitCode") != NULL)
			(void)snprintf(why, sizeof(why), "exit %lld",
			    (long long)jsonx_int(o, "exitCode", 0));
		else {
			char first[140];

			first_line(first, sizeof(first), msg ? msg : out, 120);
			(void)snprintf(why, sizeof(why), "%.48s%s%s", code ?
			    code : "", code ? ": " : "", first);
		}
	}
	outcome(r, ok, t->name, why, d);
	t->id[0] = '\0';
	r->last_tool = NULL;
	if (!r->loop) {
		r->closed = 1;
		r->status = ok ? 0 : PI_EXIT_TOOL;
	}
}

/*
 * The exit status in o's key, when it is a whole number from lo to 255;
 * else bad, or absent when there is no such key.  A status from
 * outside must not wrap: exit(256) is a success.
 */
static int
exit_status(struct json_object *o, const char *key, int lo, int absent,
    int bad)
{
	struct json_object *v = jsonx_get(o, key);
	double d;

	if (v == NULL)
		return absent;
	if (!jsonx_is(v, json_type_int) && !jsonx_is(v, json_type_double))
		return bad;
	d = json_object_get_double(v);
	return d >= lo && d <= 255 && d == (int)d ? (int)d : bad;
}

/* a + b, held at the ends of long long rather than overflowing. */
static long long
sat_add(long long a, long long b)
{
	if (b > 0 && a > LLONG_MAX - b)
		return LLONG_MAX;
	if (b < 0 && a < LLONG_MIN - b)
		return LLONG_MIN;
	return a + b;
}

/* The exit status an error stands for: its exitCode, else its code's. */
static int
status_of(struct json_object *o)
{
	static const struct { const char *code; int status; } map[] = {
		{ "usage", 2 }, { "bad_input", 3 }, { "truncated_input", 3 },
		{ "unknown_id", 3 }, { "replay_mismatch", 3 }, { "auth", 4 },
		{ "no_api_key", 4 }, { "not_found", 4 }, { "bad_config", 4 },
		{ "unknown_provider", 4 }, { "faux_script", 4 },
		{ "context_overflow", 5 }, { "provider_error", 5 },
		{ "invalid_request", 5 }, { "quota_exceeded", 5 },
		{ "content_filter", 5 }, { "sandbox", 7 },
		{ "idle_timeout", 124 }, { "timeout", 124 }, { "aborted", 130 },
	};
	const char *code = jsonx_str(o, "code");
	size_t i;
	int st = exit_status(o, "exitCode", 1, -1, -1);

	if (st != -1)
		return st;
	for (i = 0; code != NULL && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(code, map[i].code) == 0)
			return map[i].status;
	return jsonx_bool(o, "recoverable", 0) ? PI_EXIT_TEMP : PI_EXIT_FAIL;
}

/*
 * An error, unless it was just said: a failed call is reported by its
 * message, by an error event and by agent_end, in the same words.
 */
static void
error_line(struct render *r, const char *prefix, const char *msg)
{
	if (msg == NULL)
		msg = "";
	if (*r->last_error != '\0' && (strstr(msg, r->last_error) != NULL ||
	    strstr(r->last_error, msg) != NULL))
		return;
	(void)snprintf(r->last_error, sizeof(r->last_error), "%s", msg);
	line(r, C_BAD, "✗ %s%s", prefix, msg);
}

/* Text that may hold several lines, each after a prefix. */
static void
prefixed(struct render *r, const char *prefix, const char *color,
    const char *s)
{
	const char *p = s, *e;
	size_t plen = strlen(prefix), n;

	nl(r);
	while (p != NULL && *p != '\0') {
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (color != NULL)
			sgr(r, color);
		/* No trailing space after the prefix of an empty line. */
		(void)buf_add(&r->out, prefix, n > 0 ? plen : plen -
		    (prefix[plen - 1] == ' '));
		safe(&r->out, p, n);
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
		sgr(r, C_THINK);
		if (!r->col)
			(void)buf_adds(&r->out, "┆ ");
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

/*
 * The text of a content or of a block: a string as it is; anything
 * else that is not a list, a block or null (true, 5, {...} where a
 * string belongs) as its JSON, so that a malformed message is seen,
 * never dropped and never a crash.  NULL when there is nothing to show.
 */
static const char *
as_text(struct json_object *v)
{
	if (v == NULL || jsonx_is(v, json_type_array) ||
	    jsonx_is(v, json_type_object))
		return NULL;
	if (jsonx_is(v, json_type_string))
		return json_object_get_string(v);
	return jsonx_string(v, NULL);
}

/* The text of a content: a string, or its text blocks. */
static void
content_lines(struct render *r, struct json_object *c, const char *prefix,
    const char *color)
{
	size_t i;
	struct json_object *b;
	const char *s;

	if (!jsonx_is(c, json_type_array)) {
		if ((s = as_text(c)) != NULL ||
		    (c != NULL && (s = jsonx_string(c, NULL)) != NULL))
			prefixed(r, prefix, color, s);
		return;
	}
	for (i = 0; i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if ((s = as_text(jsonx_get(b, "text"))) != NULL ||
		    (s = as_text(b)) != NULL)
			prefixed(r, prefix, color, s);
		else if (jsonx_str(b, "type") &&
		    strcmp(jsonx_str(b, "type"), "image") == 0)
			prefixed(r, prefix, color, "[image]");
	}
}

/* Output lines, cut as a tool's are, outside any live tool. */
static void
cut_output(struct render *r, const char *s)
{
	struct render_tool t;

	memset(&t, 0, sizeof(t));
	buf_init(&t.partial, 1u << 20);
	r->last_tool = &t;
	if (s != NULL)
		output(r, &t, s, strlen(s));
	output_end(r, &t);
	buf_release(&t.partial);
	r->last_tool = NULL;
}

/* A whole message, as a session file or a context holds it. */
static void
message(struct render *r, struct json_object *m)
{
	const char *role = jsonx_str(m, "role");
	struct json_object *c = jsonx_get(m, "content"), *b;
	const char *type, *s;
	char args[SHORT_ARGS + 16], why[64];
	size_t i;

	if (role == NULL)
		return;
	if (strcmp(role, "system") == 0) {
		line(r, C_DIM, "· system prompt");
		return;
	}
	if (strcmp(role, "user") == 0 || strcmp(role, "custom") == 0) {
		content_lines(r, c, "> ", C_BOLD);
		return;
	}
	if (strcmp(role, "bashExecution") == 0) {
		s = jsonx_str(m, "command") ? jsonx_str(m, "command") : "";
		first_line(args, sizeof(args), s, SHORT_ARGS);
		call_line(r, "bash", args);
		cut_output(r, jsonx_str(m, "output"));
		*why = '\0';
		if (jsonx_bool(m, "cancelled", 0))
			(void)snprintf(why, sizeof(why), "cancelled");
		else if (jsonx_int(m, "exitCode", 0) != 0)
			(void)snprintf(why, sizeof(why), "exit %lld",
			    (long long)jsonx_int(m, "exitCode", 0));
		outcome(r, *why == '\0', "bash", why, NULL);
		return;
	}
	if (strcmp(role, "toolResult") == 0) {
		if ((s = as_text(c)) != NULL)
			cut_output(r, s);
		for (i = 0; jsonx_is(c, json_type_array) &&
		    i < json_object_array_length(c); i++) {
			b = json_object_array_get_idx(c, i);
			if ((s = as_text(jsonx_get(b, "text"))) != NULL ||
			    (s = as_text(b)) != NULL)
				cut_output(r, s);
		}
		outcome(r, !jsonx_bool(m, "isError", 0),
		    jsonx_str(m, "toolName") ? jsonx_str(m, "toolName") :
		    "tool", NULL, NULL);
		return;
	}
	if (strcmp(role, "assistant") != 0)
		return;
	if (!jsonx_is(c, json_type_array)) {
		assistant_text(r, as_text(c) ? as_text(c) : c != NULL ?
		    jsonx_string(c, NULL) : NULL);
		nl(r);
		return;
	}
	for (i = 0; i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if ((type = jsonx_str(b, "type")) == NULL) {
			assistant_text(r, as_text(b));
			continue;
		}
		if (strcmp(type, "text") == 0)
			assistant_text(r, as_text(jsonx_get(b, "text")));
		else if (strcmp(type, "thinking") == 0)
			thinking(r, as_text(jsonx_get(b, "thinking")));
		else if (strcmp(type, "toolCall") == 0) {
			s = jsonx_str(b, "name") ? jsonx_str(b, "name") : "?";
			short_args(args, sizeof(args), s,
			    jsonx_obj(b, "arguments"));
			call_line(r, s, args);
		}
	}
	nl(r);
	if ((s = jsonx_str(m, "errorMessage")) != NULL)
		error_line(r, "error: ", s);
}

static void
account(struct render *r, struct json_object *o)
{
	struct json_object *m = jsonx_obj(o, "message");
	struct json_object *u = jsonx_obj(m, "usage");
	long long total = jsonx_int(u, "totalTokens", 0);

	if (total == 0)
		total = sat_add(sat_add(jsonx_int(u, "input", 0),
		    jsonx_int(u, "output", 0)), sat_add(jsonx_int(u,
		    "cacheRead", 0), jsonx_int(u, "cacheWrite", 0)));
	r->tokens = sat_add(r->tokens, total);
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
	(void)buf_addf(&r->out, " %lld tokens", tokens);
	/* No price is not a price of nothing: a cost of 0 is left out. */
	if (cost > 0)
		(void)buf_addf(&r->out, " · $%.4f", cost);
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
		error_line(r, "error: ", err ? err : "the call failed");
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
	else if (strcmp(type, "compaction") == 0)
		line(r, C_DIM, "⋯ compaction: %zu characters of summary, the "
		    "context kept from %.13s", jsonx_str(o, "summary") ?
		    strlen(jsonx_str(o, "summary")) : 0,
		    jsonx_str(o, "firstKeptEntryId") ?
		    jsonx_str(o, "firstKeptEntryId") : "?");
	else if (strcmp(type, "branch_summary") == 0) {
		first_line(b, sizeof(b), jsonx_str(o, "summary"), 120);
		line(r, C_DIM, "⋯ branch summary: %s", b);
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

/*
 * In a session file, an entry whose parent is not the line before it
 * starts a branch: say where it forks.
 */
static void
fork_mark(struct render *r, struct json_object *o)
{
	const char *id = jsonx_str(o, "id"), *parent = jsonx_str(o, "parentId");

	if (id == NULL)
		return;
	if (parent != NULL && *r->last_id != '\0' &&
	    strcmp(parent, r->last_id) != 0)
		line(r, C_WARN, "⎇ a branch from %.13s", parent);
	(void)snprintf(r->last_id, sizeof(r->last_id), "%s", id);
}

static void
agent_end(struct render *r, struct json_object *o)
{
	struct json_object *err = jsonx_obj(o, "error");
	const char *reason = jsonx_str(o, "terminationReason");

	r->status = exit_status(o, "exitCode", 0, reason &&
	    strcmp(reason, "no_tool_calls") == 0 ? 0 : PI_EXIT_FAIL,
	    PI_EXIT_FAIL);
	if (err != NULL && r->status != 0 && jsonx_str(err, "message"))
		error_line(r, "", jsonx_str(err, "message"));
	summary(r, (long)jsonx_int(o, "totalTurns", 0),
	    jsonx_int(o, "totalTokens", 0), jsonx_num(o, "cost", 0),
	    jsonx_int(o, "durationMs", 0), reason, r->status);
	r->closed = 1;
}

/* The lines of a live stream: 1 when type is one, else 0. */
static int
live_event(struct render *r, const char *type, struct json_object *o)
{
	struct render_tool *t;
	const char *s;
	char b[200];

	if (strcmp(type, "agent_start") == 0) {
		r->loop = r->live = 1;
		r->closed = 0;
		line(r, C_DIM, "● session %s · model %s · %zu tools",
		    jsonx_str(o, "sessionId") ? jsonx_str(o, "sessionId") : "?",
		    jsonx_str(o, "model") && *jsonx_str(o, "model") ?
		    jsonx_str(o, "model") : "(default)",
		    jsonx_arr(o, "tools") ?
		    json_object_array_length(jsonx_arr(o, "tools")) : 0);
	} else if (strcmp(type, "message_start") == 0) {
		r->live = 1;
		r->streamed = 0;
	} else if (strcmp(type, "text_delta") == 0) {
		r->streamed = 1;
		r->last_tool = NULL;
		assistant_text(r, jsonx_str(o, "delta"));
	} else if (strcmp(type, "thinking_delta") == 0) {
		r->streamed = 1;
		r->last_tool = NULL;
		thinking(r, jsonx_str(o, "delta"));
	} else if (strcmp(type, "toolcall_start") == 0 ||
	    strcmp(type, "toolcall_delta") == 0)
		r->streamed = 1;
	else if (strcmp(type, "toolcall_end") == 0) {
		r->streamed = 1;
		/* pi-loop shows it when it runs; pi-llm alone, now. */
		if (!r->loop) {
			s = jsonx_str(o, "toolName") ? jsonx_str(o, "toolName") :
			    "?";
			short_args(b, sizeof(b), s, jsonx_obj(o, "input"));
			call_line(r, s, b);
		}
	} else if (strcmp(type, "message_end") == 0)
		message_end(r, o);
	else if (strcmp(type, "tool_execution_start") == 0) {
		r->live = 1;
		s = jsonx_str(o, "toolName") ? jsonx_str(o, "toolName") : "?";
		t = tool(r, jsonx_str(o, "toolCallId"), s, 1);
		short_args(t->args, sizeof(t->args), s, jsonx_obj(o, "input"));
		call_line(r, s, t->args);
		r->last_tool = t;
	} else if (strcmp(type, "tool_execution_update") == 0) {
		t = tool(r, jsonx_str(o, "toolCallId"),
		    jsonx_str(o, "toolName"), 1);
		s = jsonx_str(o, "updateType");
		if (s != NULL && strcmp(s, "progress") == 0) {
			own_lines(r, t);
			line(r, C_DIM, "  … %s", jsonx_str(o, "content") ?
			    jsonx_str(o, "content") : "");
		} else if ((s = jsonx_str(o, "content")) != NULL) {
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
		else
			line(r, C_WARN, "⋯ compacted: %zu characters of "
			    "summary, the context kept from %.13s",
			    jsonx_str(o, "summary") ?
			    strlen(jsonx_str(o, "summary")) : 0,
			    jsonx_str(o, "firstKeptEntryId") ?
			    jsonx_str(o, "firstKeptEntryId") : "?");
	} else if (strcmp(type, "error") == 0) {
		(void)snprintf(b, sizeof(b), "%s: ", jsonx_str(o, "code") ?
		    jsonx_str(o, "code") : "error");
		error_line(r, b, jsonx_str(o, "message"));
		if (!r->loop) {
			r->closed = 1;
			r->status = status_of(o);
		}
	} else if (strcmp(type, "agent_end") == 0)
		agent_end(r, o);
	else
		return 0;
	return 1;
}

int
render_event(struct render *r, struct json_object *o)
{
	const char *type = jsonx_str(o, "type");
	int known = 1;

	/* An error is said once per message, call or run, not per stream. */
	if (type == NULL || strcmp(type, "message") == 0 ||
	    strcmp(type, "agent_start") == 0 ||
	    strcmp(type, "turn_start") == 0 ||
	    strcmp(type, "message_start") == 0 ||
	    strcmp(type, "tool_execution_start") == 0)
		*r->last_error = '\0';
	if (type == NULL)
		message(r, o);
	else if (live_event(r, type, o))
		;
	else if (strcmp(type, "session") == 0) {
		line(r, C_DIM, "● session %s · %s", jsonx_str(o, "id") ?
		    jsonx_str(o, "id") : "?", jsonx_str(o, "cwd") ?
		    jsonx_str(o, "cwd") : "");
		*r->last_id = '\0';
	} else if (strcmp(type, "context") == 0)
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
	else if (strcmp(type, "message") == 0) {
		fork_mark(r, o);
		message(r, jsonx_obj(o, "message"));
	} else {
		fork_mark(r, o);
		known = entry(r, type, o);
	}
	/* The duration of a stream: from its first event to its last. */
	if (known && jsonx_int(o, "ts", 0) > 0) {
		if (r->first_ts == 0)
			r->first_ts = jsonx_int(o, "ts", 0);
		r->last_ts = jsonx_int(o, "ts", 0);
	}
	return flush(r);
}

int
render_finish(struct render *r, void (*warn)(const char *))
{
	nl(r);
	if (r->live && !r->closed && !r->gone) {
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
