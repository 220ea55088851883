/*
 * An agent run (seed 9.2, 9.4, 9.8): agent_start, then turns until a
 * termination condition holds, then agent_end, always the last line.
 *
 * A turn: the context from pi-sess, one pi-llm call whose events go
 * straight to stdout, the assistant message recorded and stored before
 * any of its tools starts (I9), the tools, their results recorded in
 * the order the model asked for them.  Steering is taken between turns
 * (and between tool calls, in tools.c); follow-ups when the model would
 * otherwise stop.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

static const char *const term_names[] = {
	[TERM_NONE] = "none",
	[TERM_NO_TOOL_CALLS] = "no_tool_calls",
	[TERM_TIMEOUT] = "timeout_48h",
	[TERM_IDLE] = "idle_timeout_120s",
	[TERM_ABORT] = "abort_signal",
	[TERM_DISCONNECTED] = "gateway_disconnected",
	[TERM_MAX_TURNS] = "max_turns",
	[TERM_BUDGET] = "budget_exceeded",
	[TERM_ERROR] = "error",
};

struct json_object *
user_message(const char *text)
{
	struct json_object *t = jsonx_new_str(text, strlen(text));
	struct json_object *m = context_user_message(t, event_clock_ms());

	json_object_put(t);
	return m;
}

int
post_message(struct json_object *message, const char *role)
{
	struct json_object *ev, *line;
	char id[37];
	const char *call = jsonx_str(message, "toolCallId");

	pi_uuid7(id);
	ev = event_new("message_start");
	jsonx_set_str(ev, "messageId", id);
	jsonx_set_str(ev, "role", role);
	if (call != NULL)
		jsonx_set_str(ev, "toolCallId", call);
	loop_emit(ev);
	ev = event_new("message_end");
	jsonx_set_str(ev, "messageId", id);
	jsonx_set_str(ev, "role", role);
	if (call != NULL)
		jsonx_set_str(ev, "toolCallId", call);
	jsonx_set(ev, "message", jsonx_ref(message));
	line = json_object_new_object();
	jsonx_set_str(line, "type", "message_end");
	jsonx_set_str(line, "messageId", id);
	jsonx_set(line, "message", jsonx_ref(message));
	loop_emit(ev);
	if (record(line, id) == -1) {
		json_object_put(line);
		loop_stop(TERM_ERROR, PI_EXIT_FAIL, "pi-sess append is gone");
		return -1;
	}
	json_object_put(line);
	return 0;
}

void
on_llm_line(struct child *c, struct json_object *o)
{
	const char *type = jsonx_str(o, "type"), *code, *msg;

	(void)c;
	if (type != NULL && strcmp(type, "message_end") == 0) {
		json_object_put(L.llm_end);
		L.llm_end = jsonx_ref(o);
	} else if (type != NULL && strcmp(type, "error") == 0) {
		code = jsonx_str(o, "code");
		msg = jsonx_str(o, "message");
		(void)snprintf(L.llm_error, sizeof(L.llm_error), "%s",
		    code ? code : "error");
		(void)snprintf(L.llm_error_msg, sizeof(L.llm_error_msg), "%s",
		    msg ? msg : "");
	}
	if (!L.llm_quiet)
		loop_emit(jsonx_ref(o));
}

int
run_llm(const char *ctx, size_t len, int tools)
{
	const char *args[16];
	char idle[32], **argv;
	struct child *c;
	struct buf in;
	struct pi_error e;
	size_t n = 0;
	int code;

	if (L.model != NULL) {
		args[n++] = "-m";
		args[n++] = L.model;
	}
	if (L.thinking != NULL) {
		args[n++] = "-t";
		args[n++] = L.thinking;
	}
	if (L.o.api != NULL) {
		args[n++] = "--api";
		args[n++] = L.o.api;
	}
	if (L.o.base_url != NULL) {
		args[n++] = "--base-url";
		args[n++] = L.o.base_url;
	}
	if (L.o.idle_ms > 0) {
		/* pi-llm takes whole seconds; our own timer is exact. */
		(void)snprintf(idle, sizeof(idle), "%lld",
		    L.o.idle_ms >= 86400000 ? 86400 :
		    (L.o.idle_ms + 999) / 1000);
		args[n++] = "--idle-timeout";
		args[n++] = idle;
	}
	args[n] = NULL;
	json_object_put(L.llm_end);
	L.llm_end = NULL;
	*L.llm_error = *L.llm_error_msg = '\0';
	buf_init(&in, (size_t)-1);
	if (tools)
		(void)buf_add(&in, L.tool_lines.data, L.tool_lines.len);
	(void)buf_add(&in, ctx, len);
	argv = stage_argv("pi-llm", args);
	c = child_start(K_LLM, argv, in.data, in.len, 0, &e);
	stage_argv_free(argv);
	buf_release(&in);
	if (c == NULL) {
		loop_stop(TERM_ERROR, e.status, "%s", e.msg);
		return e.status;
	}
	if (pump(child_done, c) == -1) {
		child_free(c);
		loop_stop(TERM_ERROR, PI_EXIT_FAIL, "poll: %s",
		    strerror(errno));
		return PI_EXIT_FAIL;
	}
	code = c->code;
	child_free(c);
	return code;
}

/* The session's context: the whole stream, and its first line. */
static int
get_context(struct buf *ctx, struct json_object **head)
{
	const char *args[] = { "context", L.session, NULL };
	const char *nl;
	struct pi_error e;
	int code;

	buf_init(ctx, (size_t)-1);
	code = sess_run(args, NULL, ctx, &e);
	if (code != 0) {
		loop_stop(TERM_ERROR, code == -1 ? e.status : code,
		    "pi-sess context failed (exit %d)", code);
		return -1;
	}
	nl = memchr(ctx->data, '\n', ctx->len);
	*head = nl ? jsonx_parse(ctx->data, (size_t)(nl - ctx->data), NULL) :
	    NULL;
	return 0;
}

/* The session's model and thinking level, for a run that names none. */
static void
session_settings(struct json_object *head)
{
	struct json_object *m = jsonx_obj(head, "model");
	const char *t = jsonx_str(head, "thinkingLevel");

	if (L.model == NULL && m != NULL && jsonx_str(m, "provider") &&
	    jsonx_str(m, "modelId"))
		L.model = xasprintf("%s/%s", jsonx_str(m, "provider"),
		    jsonx_str(m, "modelId"));
	if (L.thinking == NULL && t != NULL && strcmp(t, "off") != 0)
		L.thinking = xstrdup(t);
}

static void
emit_agent_start(void)
{
	struct json_object *ev = event_new("agent_start"), *names;
	const char *const *n;
	const char *model = L.model ? L.model : getenv("PI_MODEL");

	jsonx_set_str(ev, "sessionId", L.session);
	jsonx_set_str(ev, "model", model ? model : "");
	names = json_object_new_array();
	for (n = tool_names(); *n != NULL; n++)
		json_object_array_add(names, json_object_new_string(*n));
	jsonx_set(ev, "tools", names);
	jsonx_set_str(ev, "thinkingLevel", L.thinking ? L.thinking : "off");
	if (*L.resumed)
		jsonx_set_str(ev, "resumedFrom", L.resumed);
	if (L.o.parent != NULL)
		jsonx_set_str(ev, "parentSessionId", L.o.parent);
	jsonx_set_str(ev, "workspace", L.workspace);
	jsonx_set_int(ev, "timestamp", event_clock_ms());
	loop_emit(ev);
}

static void
emit_turn_start(const char *turn_id, struct json_object *head,
    struct buf *ctx)
{
	struct json_object *ev = event_new("turn_start"), *all, *o;
	const char *p, *end, *nl;

	jsonx_set_str(ev, "turnId", turn_id);
	jsonx_set_int(ev, "turnIndex", L.turns - 1);
	jsonx_set_str(ev, "sessionId", L.session);
	if (!L.o.verbose_context)
		jsonx_set_int(ev, "messages", jsonx_int(head, "messages", 0));
	else {
		/* The whole context, messages only, as pi-llm reads it. */
		all = json_object_new_array();
		for (p = ctx->data, end = p + ctx->len; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			o = jsonx_parse(p, (size_t)(nl - p), NULL);
			if (jsonx_str(o, "role") != NULL)
				json_object_array_add(all, o);
			else
				json_object_put(o);
		}
		jsonx_set(ev, "messages", all);
	}
	loop_emit(ev);
}

static void
emit_turn_end(const char *turn_id, int has_calls)
{
	struct json_object *ev = event_new("turn_end");

	jsonx_set_str(ev, "turnId", turn_id);
	jsonx_set_int(ev, "turnIndex", L.turns - 1);
	jsonx_set_bool(ev, "hasToolCalls", has_calls);
	jsonx_set_bool(ev, "shouldContinue", L.term == TERM_NONE);
	if (L.term != TERM_NONE)
		jsonx_set_str(ev, "terminationReason", term_names[L.term]);
	loop_emit(ev);
}

static int
exit_code(void)
{
	switch (L.term) {
	case TERM_NO_TOOL_CALLS:
	case TERM_NONE:
		return 0;
	case TERM_TIMEOUT:
	case TERM_IDLE:
		return PI_EXIT_TIMEOUT;
	case TERM_MAX_TURNS:
		return PI_EXIT_MAXTURNS;
	case TERM_BUDGET:
		return PI_EXIT_BUDGET;
	case TERM_DISCONNECTED:
		return PI_EXIT_PIPE;
	case TERM_ABORT:
		return L.term_code ? L.term_code : PI_EXIT_SIGINT;
	case TERM_ERROR:
		return L.term_code ? L.term_code : PI_EXIT_FAIL;
	}
	return PI_EXIT_FAIL;
}

static void
emit_agent_end(int code)
{
	struct json_object *ev = event_new("agent_end"), *err;

	jsonx_set_str(ev, "sessionId", L.session);
	jsonx_set_int(ev, "totalTurns", L.turns);
	jsonx_set_int(ev, "totalTokens", L.tokens);
	jsonx_set_int(ev, "durationMs", pi_now_ms() - L.started);
	jsonx_set_str(ev, "terminationReason", term_names[L.term]);
	jsonx_set(ev, "cost", json_object_new_double(L.cost));
	jsonx_set_int(ev, "exitCode", code);
	if (L.term != TERM_NO_TOOL_CALLS && *L.term_msg) {
		err = json_object_new_object();
		jsonx_set_str(err, "code", *L.llm_error && L.term == TERM_ERROR ?
		    L.llm_error : term_names[L.term]);
		jsonx_set_str(err, "message", L.term_msg);
		jsonx_set(ev, "error", err);
	}
	loop_emit(ev);
}

/* Queued messages become user messages of the run. */
static int
inject(struct queued **q, int all)
{
	struct queued *m;
	struct json_object *msg;
	int n = 0;

	while ((m = *q) != NULL) {
		*q = m->next;
		msg = user_message(m->text);
		(void)post_message(msg, "user");
		json_object_put(msg);
		free(m->text);
		free(m);
		n++;
		if (!all)
			break;
	}
	return n;
}

/* What the assistant message cost and how big the context was. */
static void
account(struct json_object *message)
{
	struct json_object *u = jsonx_obj(message, "usage");
	long long total = jsonx_int(u, "totalTokens", 0);

	if (total == 0)
		total = jsonx_int(u, "input", 0) + jsonx_int(u, "output", 0) +
		    jsonx_int(u, "cacheRead", 0) + jsonx_int(u, "cacheWrite", 0);
	L.tokens += total;
	L.cost += jsonx_num(jsonx_obj(u, "cost"), "total", 0);
	if (total > 0)
		L.last_context_tokens = total;
}

static int
has_tool_calls(struct json_object *message)
{
	struct json_object *c = jsonx_arr(message, "content");
	size_t i;

	for (i = 0; c != NULL && i < json_object_array_length(c); i++)
		if (jsonx_str(json_object_array_get_idx(c, i), "type") &&
		    strcmp(jsonx_str(json_object_array_get_idx(c, i), "type"),
		    "toolCall") == 0)
			return 1;
	return 0;
}

/* One model call and its tools.  1: go on, 0: the run ends. */
static int
turn(void)
{
	struct json_object *head = NULL, *message, *results = NULL;
	struct buf ctx;
	char turn_id[37];
	const char *mid;
	int code, calls;

	if (get_context(&ctx, &head) == -1)
		return 0;
	pi_uuid7(turn_id);
	L.turns++;
	emit_turn_start(turn_id, head, &ctx);
	json_object_put(head);
	code = run_llm(ctx.data, ctx.len, 1);
	buf_release(&ctx);
	message = L.llm_end ? jsonx_obj(L.llm_end, "message") : NULL;
	if (message != NULL) {
		/* I9: stored before anything acts on it. */
		mid = jsonx_str(L.llm_end, "messageId");
		if (record(L.llm_end, mid) == -1 || wait_stored() == -1) {
			emit_turn_end(turn_id, 0);
			return 0;
		}
		account(message);
		json_object_put(L.last_assistant);
		L.last_assistant = jsonx_ref(message);
	}
	if (code != 0 && L.term == TERM_NONE) {
		if (strcmp(L.llm_error, "context_overflow") == 0 &&
		    !L.overflow_retried) {
			L.overflow_retried = 1;
			emit_turn_end(turn_id, 0);
			return compact_now("overflow", NULL, NULL) == 0 &&
			    L.term == TERM_NONE;
		}
		if (strcmp(L.llm_error, "idle_timeout") == 0)
			loop_stop(TERM_IDLE, PI_EXIT_TIMEOUT, "%s",
			    L.llm_error_msg);
		else
			loop_stop(TERM_ERROR, code, "pi-llm: %s",
			    *L.llm_error_msg ? L.llm_error_msg :
			    "the model call failed");
	}
	if (L.term != TERM_NONE || message == NULL) {
		if (L.term == TERM_NONE)
			loop_stop(TERM_ERROR, PI_EXIT_FAIL, "pi-llm ended "
			    "without a message");
		emit_turn_end(turn_id, 0);
		return 0;
	}
	calls = has_tool_calls(message);
	if (!calls) {
		if (L.follow_up == NULL && L.steering == NULL)
			loop_stop(TERM_NO_TOOL_CALLS, 0, "%s", "");
		emit_turn_end(turn_id, 0);
		if (L.term != TERM_NONE)
			return 0;
		if (inject(&L.steering, 1) == 0)
			(void)inject(&L.follow_up, 0);
		return wait_stored() == 0;
	}
	(void)tools_run(message, jsonx_str(L.llm_end, "messageId"), &results);
	json_object_put(results);
	if (L.term == TERM_NONE && L.o.max_turns > 0 &&
	    L.turns >= L.o.max_turns)
		loop_stop(TERM_MAX_TURNS, PI_EXIT_MAXTURNS, "the run reached "
		    "--max-turns %ld", L.o.max_turns);
	if (L.term == TERM_NONE && L.o.max_cost >= 0 && L.cost > L.o.max_cost)
		loop_stop(TERM_BUDGET, PI_EXIT_BUDGET, "the run cost $%.4f, "
		    "more than --max-cost $%.4f", L.cost, L.o.max_cost);
	emit_turn_end(turn_id, 1);
	return L.term == TERM_NONE;
}

static void
start_settings(void)
{
	struct json_object *head = NULL, *line;
	struct buf ctx;
	const char *t;

	/* A setting the RPC peer changed just before is stored first. */
	if (wait_stored() == -1 || get_context(&ctx, &head) == -1)
		return;
	buf_release(&ctx);
	t = jsonx_str(head, "thinkingLevel");
	if (L.thinking != NULL && (t == NULL || strcmp(t, L.thinking) != 0)) {
		line = json_object_new_object();
		jsonx_set_str(line, "type", "thinking_level_change");
		jsonx_set_str(line, "thinkingLevel", L.thinking);
		(void)record(line, NULL);
		json_object_put(line);
	}
	session_settings(head);
	json_object_put(head);
}

int
run_agent(struct json_object *prompts)
{
	struct json_object *line;
	size_t i;
	int code;

	L.running = 1;
	L.term = TERM_NONE;
	L.term_code = 0;
	*L.term_msg = '\0';
	L.abort_at = 0;
	L.turns = 0;
	L.tokens = 0;
	L.cost = 0;
	L.overflow_retried = 0;
	L.started = pi_now_ms();
	L.deadline = L.o.timeout_ms > 0 ? pi_mono_ms() + L.o.timeout_ms : 0;
	/* A session made for this run has no settings to learn yet. */
	if (*L.resumed || L.runs > 0 || L.thinking != NULL)
		start_settings();
	L.runs++;
	emit_agent_start();
	/* The prompt used is part of the session: resuming finds it. */
	line = json_object_new_object();
	jsonx_set_str(line, "type", "system");
	jsonx_set(line, "text", jsonx_new_str(L.system, strlen(L.system)));
	(void)record(line, NULL);
	json_object_put(line);
	for (i = 0; prompts != NULL && i < json_object_array_length(prompts);
	    i++)
		(void)post_message(json_object_array_get_idx(prompts, i),
		    "user");
	if (wait_stored() == 0)
		while (L.term == TERM_NONE) {
			if (L.steering != NULL) {
				(void)inject(&L.steering, 1);
				if (wait_stored() == -1)
					break;
			}
			if (compact_maybe("threshold") == -1 ||
			    L.term != TERM_NONE || !turn())
				break;
		}
	if (L.term == TERM_NONE)
		loop_stop(TERM_ERROR, PI_EXIT_FAIL, "the run stopped");
	(void)wait_stored();
	code = exit_code();
	if (L.term == TERM_ERROR && *L.llm_error == '\0' && *L.term_msg)
		loop_error_event("loop", L.term_msg, 0);
	if (L.term != TERM_NO_TOOL_CALLS && *L.term_msg)
		fprintf(stderr, "pi-loop: %s\n", L.term_msg);
	emit_agent_end(code);
	L.running = 0;
	return code;
}
