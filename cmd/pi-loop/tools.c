/*
 * The tool pipeline (seed 9.3), built once: (1) pi-tool --list; (2)
 * every call through pi-tool's sandbox, with its options; (3) the
 * loop's own tools; (4) custom tools from --tool-dir, which pi-tool
 * lists and runs; (5) the policy: --tools, --deny-tools and a policy
 * file's scopes; (6) the schemas are fitted to each API by pi-llm; (7)
 * a tool that has not started when the run is aborted never starts,
 * and a signal reaches every pi-tool's process group (stage.c).
 *
 * The calls of one message run in parallel, up to --parallel; their
 * events go out as they come, a line at a time; their results are
 * recorded in the order the model asked for them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/place.h"
#include "core/util.h"
#include "core/banned.h"

static const struct {
	const char *name;
	unsigned scopes;
} builtin[] = {
	{ "read", SCOPE_READ }, { "write", SCOPE_WRITE },
	{ "edit", SCOPE_WRITE }, { "bash", SCOPE_EXEC }, { "ls", SCOPE_READ },
	{ "grep", SCOPE_READ }, { "find", SCOPE_READ },
};

static const char *const scope_names[] = {
	"read", "write", "exec", "network", "session"
};

static const char **names;	/* the tools the model is given */
static struct tool *all;	/* every tool the pipeline knows */
static size_t nall;

/* The tools pi-loop runs itself (layer 3). */
static const char loop_tools[] =
    "{\"type\":\"tool\",\"name\":\"session_branch\",\"description\":"
    "\"Branch the current session at its latest message, so that "
    "another approach can be tried later from here.  Returns the id "
    "of the new session; this run goes on in the current one.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}\n"
    "{\"type\":\"tool\",\"name\":\"agent_interrupt\",\"description\":"
    "\"Stop this run gracefully: no further model call or tool "
    "starts after this one.  Use it when the task cannot go on.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"reason\":"
    "{\"type\":\"string\",\"description\":\"Why the run stops\"}}}}\n";

static unsigned
scope_bit(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(scope_names) / sizeof(*scope_names); i++)
		if (strcmp(s, scope_names[i]) == 0)
			return 1u << i;
	return 0;
}

static int
in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		p += strspn(p, ", ");
		if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == ',' ||
		    p[n] == ' '))
			return 1;
		p += strcspn(p, ", ");
	}
	return 0;
}

static int
in_array(struct json_object *a, const char *name)
{
	size_t i;

	for (i = 0; a != NULL && i < json_object_array_length(a); i++)
		if (json_object_get_string(json_object_array_get_idx(a, i)) &&
		    strcmp(json_object_get_string(
		    json_object_array_get_idx(a, i)), name) == 0)
			return 1;
	return 0;
}

/* The policy file: {"tools":[..],"denyTools":[..],"scopes":[..],
 * "toolScopes":{"name":[..]}}; all keys optional. */
static struct json_object *
read_policy(struct pi_error *e)
{
	struct json_object *p;
	struct pi_error why;
	struct buf b;

	buf_init(&b, 1u << 20);
	if (buf_read_file(&b, L.o.policy) == -1) {
		pi_err(e, PI_EXIT_CONFIG, "policy", "%s: %s", L.o.policy,
		    strerror(errno));
		buf_release(&b);
		return NULL;
	}
	p = jsonx_parse(b.data ? b.data : "", b.len, &why);
	buf_release(&b);
	if (p == NULL) {
		pi_err(e, PI_EXIT_CONFIG, "policy", "%s: %s", L.o.policy,
		    why.msg);
		return NULL;
	}
	if (!jsonx_is(p, json_type_object)) {
		json_object_put(p);
		pi_err(e, PI_EXIT_CONFIG, "policy", "%s: not a JSON object",
		    L.o.policy);
		return NULL;
	}
	json_object_object_foreach(p, k, v) {
		if ((strcmp(k, "tools") == 0 || strcmp(k, "denyTools") == 0 ||
		    strcmp(k, "scopes") == 0) && !jsonx_is(v, json_type_array)) {
			pi_err(e, PI_EXIT_CONFIG, "policy", "%s: \"%s\" must "
			    "be an array of names", L.o.policy, k);
			json_object_put(p);
			return NULL;
		}
	}
	return p;
}

/* Are all the names in the comma-separated list tools?  0, or -1. */
static int
check_list(const char *list, const char *opt, struct pi_error *e)
{
	const char *p = list;
	char name[128];
	size_t len, k;

	while (p != NULL && *p != '\0') {
		p += strspn(p, ", ");
		if ((len = strcspn(p, ", ")) == 0)
			break;
		(void)snprintf(name, sizeof(name), "%.*s", (int)len, p);
		for (k = 0; k < nall && strcmp(all[k].name, name) != 0; k++)
			;
		if (k == nall)
			return pi_err(e, PI_EXIT_USAGE, "usage",
			    "%s: no tool '%s'", opt, name);
		p += len;
	}
	return 0;
}

static unsigned
tool_scopes(const char *name, int layer, struct json_object *policy)
{
	struct json_object *own = jsonx_arr(jsonx_obj(policy, "toolScopes"),
	    name);
	unsigned s = 0;
	size_t i;

	if (own != NULL) {
		for (i = 0; i < json_object_array_length(own); i++)
			s |= scope_bit(json_object_get_string(
			    json_object_array_get_idx(own, i)));
		return s;
	}
	for (i = 0; i < sizeof(builtin) / sizeof(*builtin); i++)
		if (strcmp(builtin[i].name, name) == 0)
			s = builtin[i].scopes;
	if (layer == 4)
		s = SCOPE_EXEC;
	if (strcmp(name, "session_branch") == 0)
		s = SCOPE_SESSION;
	if ((s & SCOPE_EXEC) && L.o.network)
		s |= SCOPE_NETWORK;
	return s;
}

static int
allowed(const struct tool *t, struct json_object *policy)
{
	struct json_object *scopes = jsonx_arr(policy, "scopes");
	unsigned ok = 0;
	size_t i;

	if (L.o.tools != NULL && !in_list(L.o.tools, t->name))
		return 0;
	if (L.o.deny_tools != NULL && in_list(L.o.deny_tools, t->name))
		return 0;
	if (jsonx_arr(policy, "tools") != NULL &&
	    !in_array(jsonx_arr(policy, "tools"), t->name))
		return 0;
	if (in_array(jsonx_arr(policy, "denyTools"), t->name))
		return 0;
	if (scopes == NULL)
		return 1;
	for (i = 0; i < json_object_array_length(scopes); i++)
		ok |= scope_bit(json_object_get_string(
		    json_object_array_get_idx(scopes, i)));
	return (t->scopes & ~ok) == 0;
}


static void
add_tool(struct json_object *def, int layer, struct json_object *policy)
{
	struct tool *t;
	const char *name = jsonx_str(def, "name");

	if (name == NULL)
		return;
	all = xrealloc(all, (nall + 1) * sizeof(*all));
	t = &all[nall++];
	t->name = xstrdup(name);
	t->def = jsonx_ref(def);
	t->scopes = tool_scopes(name, layer, policy);
}

static int
is_builtin(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(builtin) / sizeof(*builtin); i++)
		if (strcmp(builtin[i].name, name) == 0)
			return 1;
	return 0;
}

/* Each line of text, parsed, to add_tool. */
static void
add_lines(const char *text, size_t len, int layer,
    struct json_object *policy)
{
	const char *p = text, *end = text + len, *nl;
	struct json_object *o;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		o = jsonx_parse(p, (size_t)(nl - p), NULL);
		if (jsonx_str(o, "type") && strcmp(jsonx_str(o, "type"),
		    "tool") == 0)
			add_tool(o, layer ? layer : is_builtin(jsonx_str(o,
			    "name") ? jsonx_str(o, "name") : "") ? 1 : 4,
			    policy);
		json_object_put(o);
	}
}

/*
 * pi-tool's argv, with the sandbox of the run for every invocation,
 * --list included (a custom tool's --schema runs in it): the
 * workspace, the network, the paths shown, the database hidden wherever
 * it is, and, once there is a session, where its full outputs go.
 */
static char **
tool_argv(const char *first)
{
	struct strv a = { NULL, 0 }, db = { NULL, 0 };
	char **argv, *out;
	size_t i;

	if (first != NULL)
		strv_push(&a, first);
	strv_push(&a, "-w");
	strv_push(&a, L.workspace);
	if (L.o.network)
		strv_push(&a, "--network");
	if (L.o.allow_degraded)
		strv_push(&a, "--allow-degraded");
	if (L.o.tool_dir != NULL) {
		strv_push(&a, "--tool-dir");
		strv_push(&a, L.o.tool_dir);
	}
	for (i = 0; i < L.o.allow_read.n; i++) {
		strv_push(&a, "--allow-read");
		strv_push(&a, L.o.allow_read.v[i]);
	}
	place_db_paths(L.dbpath, &db);
	for (i = 0; i < db.n; i++) {
		strv_push(&a, "--deny-read");
		strv_push(&a, db.v[i]);
	}
	if (*L.session) {
		out = place_outputs(L.dbpath, L.session);
		strv_push(&a, "--output-dir");
		strv_push(&a, out);
		free(out);
	}
	argv = stage_argv("pi-tool", strv_list(&a));
	strv_release(&db);
	strv_release(&a);
	return argv;
}

struct child *
tools_list_start(struct pi_error *e)
{
	struct child *c;
	char **argv = tool_argv("--list");

	c = child_start(K_CAPTURE, argv, NULL, 0, 0, e);
	stage_argv_free(argv);
	return c;
}

int
tools_build(struct child *list, struct pi_error *e)
{
	struct json_object *policy = NULL;
	struct buf out;
	size_t i;
	int code;

	if (pump(child_done, list) == -1)
		return pi_err(e, PI_EXIT_FAIL, "tools", "poll: %s",
		    strerror(errno));
	code = list->code;
	out = list->out;
	buf_init(&list->out, 1);
	child_free(list);
	if (L.o.policy != NULL && (policy = read_policy(e)) == NULL) {
		buf_release(&out);
		return -1;
	}
	/* 3: some custom tool is unusable; pi-tool has said which. */
	if (code != 0 && code != PI_EXIT_INPUT) {
		buf_release(&out);
		json_object_put(policy);
		return pi_err(e, code, "tools", "pi-tool --list failed (exit "
		    "%d)", code);
	}
	add_lines(out.data ? out.data : "", out.len, 0, policy);
	buf_release(&out);
	add_lines(loop_tools, strlen(loop_tools), 3, policy);
	/* Names that are no tool are a mistake worth saying. */
	if (check_list(L.o.tools, "--tools", e) == -1 ||
	    check_list(L.o.deny_tools, "--deny-tools", e) == -1) {
		json_object_put(policy);
		return -1;
	}
	buf_init(&L.tool_lines, (size_t)-1);
	L.tools = xcalloc(nall + 1, sizeof(*L.tools));
	names = xcalloc(nall + 1, sizeof(*names));
	for (i = 0; i < nall; i++)
		if (allowed(&all[i], policy)) {
			L.tools[L.ntools] = all[i];
			names[L.ntools++] = all[i].name;
			(void)buf_adds(&L.tool_lines,
			    jsonx_string(all[i].def, NULL));
			(void)buf_addc(&L.tool_lines, '\n');
		}
	json_object_put(policy);
	return 0;
}

const char *const *
tool_names(void)
{
	static const char *none[] = { NULL };

	return names ? names : none;
}

static const struct tool *
find_tool(const char *name, int allowed_only)
{
	size_t i;

	for (i = 0; i < (allowed_only ? L.ntools : nall); i++) {
		const struct tool *t = allowed_only ? &L.tools[i] : &all[i];

		if (strcmp(t->name, name) == 0)
			return t;
	}
	return NULL;
}

/* The state of the calls of the message being worked on. */
enum { C_WAITING, C_RUNNING, C_DONE };

struct call {
	const char *id, *name;
	struct json_object *input;
	int state;
	struct child *child;
	struct json_object *end;	/* its tool_execution_end */
	long long started;
	int duplicate;		/* its id is an earlier call's */
};

static struct call *calls;
static size_t ncalls;
static const char *message_id;

void
on_tool_line(struct child *c, struct json_object *o)
{
	const char *type = jsonx_str(o, "type");
	struct call *k = c->idx >= 0 && (size_t)c->idx < ncalls ?
	    &calls[c->idx] : NULL;

	if (k != NULL && type != NULL &&
	    strcmp(type, "tool_execution_end") == 0) {
		json_object_put(k->end);
		k->end = jsonx_ref(o);
	}
	loop_emit(jsonx_ref(o));
}

/* A result pi-loop makes itself: the start and end events. */
static void
own_result(struct call *k, int ok, const char *code, const char *text)
{
	struct json_object *ev = event_new("tool_execution_start"), *err;

	jsonx_set_str(ev, "toolCallId", k->id);
	jsonx_set_str(ev, "toolName", k->name);
	jsonx_set(ev, "input", k->input ? jsonx_ref(k->input) :
	    json_object_new_object());
	if (message_id != NULL)
		jsonx_set_str(ev, "messageId", message_id);
	loop_emit(ev);
	ev = event_new("tool_execution_end");
	jsonx_set_str(ev, "toolCallId", k->id);
	jsonx_set_str(ev, "toolName", k->name);
	jsonx_set_bool(ev, "success", ok);
	jsonx_set(ev, "output", jsonx_new_str(text, strlen(text)));
	jsonx_set_int(ev, "durationMs", pi_mono_ms() - k->started);
	if (message_id != NULL)
		jsonx_set_str(ev, "messageId", message_id);
	if (!ok) {
		err = json_object_new_object();
		jsonx_set_str(err, "code", code);
		jsonx_set(err, "message", jsonx_new_str(text, strlen(text)));
		jsonx_set(ev, "error", err);
	}
	k->end = jsonx_ref(ev);
	k->state = C_DONE;
	loop_emit(ev);
}

static void
session_branch(struct call *k)
{
	const char *args[] = { "branch", L.session, NULL };
	struct pi_error e;
	struct buf out;
	char *text;
	int code;

	buf_init(&out, 1u << 16);
	code = stage_run("pi-sess", args, NULL, &out, &e);
	while (out.len > 0 && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	if (code == 0 && out.len > 0) {
		text = xasprintf("Created session %s, a branch of session %s "
		    "at its latest message.  This run goes on in %s.",
		    out.data, L.session, L.session);
		own_result(k, 1, NULL, text);
		free(text);
	} else
		own_result(k, 0, "branch_failed", "The session could not be "
		    "branched (pi-sess branch failed).");
	buf_release(&out);
}

static void
start_call(struct call *k)
{
	const struct tool *t = find_tool(k->name, 1);
	struct json_object *in;
	struct pi_error e;
	char **argv, *text;

	k->started = pi_mono_ms();
	if (k->duplicate) {
		text = xasprintf("This call did not run: its id %s is that of "
		    "an earlier call in the same message.", k->id);
		own_result(k, 0, "duplicate_id", text);
		free(text);
		return;
	}
	if (t == NULL) {
		text = find_tool(k->name, 0) ? xasprintf("Tool %s is not "
		    "allowed in this run (policy).", k->name) :
		    xasprintf("Tool %s not found", k->name);
		own_result(k, 0, find_tool(k->name, 0) ? "denied_tool" :
		    "unknown_tool", text);
		free(text);
		return;
	}
	if (strcmp(k->name, "session_branch") == 0) {
		session_branch(k);
		return;
	}
	if (strcmp(k->name, "agent_interrupt") == 0) {
		own_result(k, 1, NULL, "Stopping: no further model call or "
		    "tool will start in this run.");
		loop_stop(TERM_ABORT, PI_EXIT_SIGINT, "the agent stopped "
		    "itself (agent_interrupt)%s%s",
		    jsonx_str(k->input, "reason") ? ": " : "",
		    jsonx_str(k->input, "reason") ?
		    jsonx_str(k->input, "reason") : "");
		return;
	}
	in = json_object_new_object();
	jsonx_set_str(in, "toolCallId", k->id);
	jsonx_set_str(in, "toolName", k->name);
	jsonx_set(in, "input", k->input ? jsonx_ref(k->input) :
	    json_object_new_object());
	if (message_id != NULL)
		jsonx_set_str(in, "messageId", message_id);
	text = xasprintf("%s\n", jsonx_string(in, NULL));
	json_object_put(in);
	argv = tool_argv(NULL);
	k->child = child_start(K_TOOL, argv, text, strlen(text),
	    (int)(k - calls), &e);
	stage_argv_free(argv);
	free(text);
	if (k->child == NULL) {
		own_result(k, 0, "spawn", e.msg);
		return;
	}
	k->state = C_RUNNING;
}

/* A pi-tool has ended: its result, or one saying why there is none. */
static void
finish_call(struct call *k)
{
	int code = k->child->code;
	char *text;

	child_free(k->child);
	k->child = NULL;
	k->state = C_DONE;
	if (k->end != NULL && code != PI_EXIT_SANDBOX)
		return;
	json_object_put(k->end);
	k->end = NULL;
	if (code == PI_EXIT_SANDBOX) {
		text = xasprintf("The sandbox could not be set up; the tool "
		    "did not run (pi-tool exit %d).", code);
		own_result(k, 0, "sandbox", text);
		loop_stop(TERM_ERROR, PI_EXIT_SANDBOX, "pi-tool could not set "
		    "up the sandbox for %s", k->name);
	} else {
		text = xasprintf(L.term == TERM_NONE ? "The tool ended "
		    "without a result (pi-tool exit %d)." : "The tool was "
		    "stopped: the run is ending (exit %d).", code);
		own_result(k, 0, L.term == TERM_NONE ? "tool_failed" :
		    "aborted", text);
	}
	free(text);
}

static int
one_finished(void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < ncalls; i++)
		if (calls[i].state == C_RUNNING && calls[i].child->done)
			return 1;
	return 0;
}

/* Record the results that are ready, in the model's order. */
static void
record_ready(size_t *next, struct json_object *results)
{
	struct json_object *m;

	while (*next < ncalls && calls[*next].state == C_DONE) {
		/* One result per id: the provider would take no second. */
		if (calls[*next].duplicate) {
			++*next;
			continue;
		}
		m = context_tool_result(calls[*next].end, calls[*next].name);
		json_object_array_add(results, jsonx_ref(m));
		(void)post_message(m, "toolResult");
		json_object_put(m);
		++*next;
	}
}

int
tools_run(struct json_object *assistant, const char *mid,
    struct json_object **results)
{
	struct json_object *content = jsonx_arr(assistant, "content"), *b;
	size_t i, j, next = 0, recorded = 0, running = 0;
	long parallel = L.o.parallel > 0 ? L.o.parallel : 1;
	const char *why;
	int steered = 0;

	*results = json_object_new_array();
	ncalls = 0;
	calls = xcalloc(json_object_array_length(content) + 1, sizeof(*calls));
	message_id = mid;
	for (i = 0; i < json_object_array_length(content); i++) {
		b = json_object_array_get_idx(content, i);
		if (!jsonx_str(b, "type") ||
		    strcmp(jsonx_str(b, "type"), "toolCall") != 0)
			continue;
		calls[ncalls].id = jsonx_str(b, "id") ? jsonx_str(b, "id") : "";
		calls[ncalls].name = jsonx_str(b, "name") ?
		    jsonx_str(b, "name") : "";
		calls[ncalls].input = jsonx_obj(b, "arguments");
		for (j = 0; j < ncalls; j++)
			if (strcmp(calls[j].id, calls[ncalls].id) == 0)
				calls[ncalls].duplicate = 1;
		ncalls++;
	}
	for (;;) {
		/* Steering goes in between calls: the rest are skipped. */
		if (L.steering != NULL)
			steered = 1;
		while (next < ncalls && (long)running < parallel &&
		    L.term == TERM_NONE && !steered) {
			start_call(&calls[next]);
			if (calls[next].state == C_RUNNING)
				running++;
			next++;
		}
		record_ready(&recorded, *results);
		if (running == 0)
			break;
		if (pump(one_finished, NULL) == -1)
			break;
		for (i = 0; i < ncalls; i++)
			if (calls[i].state == C_RUNNING &&
			    calls[i].child->done) {
				finish_call(&calls[i]);
				running--;
			}
	}
	/* Those never started still get a result: every call has one. */
	why = steered ? "Skipped due to queued user message." :
	    "Skipped: the run was stopped before this tool started.";
	for (; next < ncalls; next++) {
		calls[next].started = pi_mono_ms();
		own_result(&calls[next], 0, steered ? "skipped" : "aborted",
		    why);
	}
	record_ready(&recorded, *results);
	for (i = 0; i < ncalls; i++) {
		if (calls[i].child != NULL)
			child_free(calls[i].child);
		json_object_put(calls[i].end);
	}
	free(calls);
	calls = NULL;
	ncalls = 0;
	message_id = NULL;
	return wait_stored();
}
