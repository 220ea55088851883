/*
 * append: record a stream in a session, a message at a time.
 *
 * The closure rule of DESIGN.md section 2 picks the messages: the
 * message of a message_end, the toolResult a tool_execution_end stands
 * for, and bare lines with a role.  pi's own entry lines (model_change,
 * thinking_level_change, session_info, custom, custom_message,
 * branch_summary, message) are stored as they are, and a system line as
 * a system-prompt entry when it changes the prompt.  Everything else is
 * passed over.  Each stored entry is one transaction, answered at once
 * with an "entry" line, so the writer can wait until it is durable
 * (invariant I9).
 *
 * A tool result is stored once: pi-loop reports one both as
 * tool_execution_end and as a toolResult message_end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sess.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "store/projection.h"
#include "store/store.h"
#include "core/banned.h"

struct app {
	struct store_session ss;
	/* The results stored since the last assistant message. */
	char **results;
	size_t nres, capres;
	char *system;		/* the session's system prompt */
	int system_known;
	size_t refused;
};

/* A line that cannot be stored: with --follow, report it and go on. */
static int
refuse(struct app *a, struct pi_error *e, size_t lineno, const char *why)
{
	struct json_object *ev;
	struct pi_error le;

	pi_err(&le, PI_EXIT_INPUT, "bad_input", "stdin:%zu: %s", lineno,
	    why);
	if (!opt.follow) {
		*e = le;
		return -1;
	}
	fprintf(stderr, "pi-sess: %s (line skipped)\n", le.msg);
	a->refused++;
	ev = event_new("error");
	jsonx_set_str(ev, "code", le.code);
	jsonx_set_str(ev, "message", le.msg);
	jsonx_set_bool(ev, "recoverable", 1);
	jsonx_set_int(ev, "line", (int64_t)lineno);
	if (sess_out(ev) == -1)
		return pi_err(e, PI_EXIT_PIPE, "pipe", "stdout: %s",
		    strerror(errno));
	return 0;
}

static int
on_bad(void *arg, const struct pi_error *le, struct pi_error *e)
{
	struct app *a = arg;
	const char *msg = strchr(le->msg, ' ');
	size_t lineno = 0;

	/* le says "stdin:LINE: why"; say it again through refuse. */
	(void)sscanf(le->msg, "stdin:%zu:", &lineno);
	return refuse(a, e, lineno, msg ? msg + 1 : le->msg);
}

static int
seen_result(struct app *a, const char *id)
{
	size_t i;

	for (i = 0; i < a->nres; i++)
		if (strcmp(a->results[i], id) == 0)
			return 1;
	return 0;
}

static void
forget_results(struct app *a)
{
	while (a->nres > 0)
		free(a->results[--a->nres]);
}

static void
remember_result(struct app *a, const char *id)
{
	if (a->nres == a->capres) {
		a->capres = a->capres ? 2 * a->capres : 8;
		a->results = xrealloc(a->results,
		    a->capres * sizeof(*a->results));
	}
	a->results[a->nres++] = xstrdup(id);
}

/*
 * The results stored since the last assistant message, read from the
 * session, so that a result reported again by a later append (after a
 * restart) is stored once too.
 */
static int
recent_result(void *arg, const struct store_entry *en, struct pi_error *e)
{
	struct app *a = arg;

	(void)e;
	if (en->role != NULL && strcmp(en->role, "assistant") == 0)
		return 1;
	if (en->tool_call_id != NULL && en->role != NULL &&
	    strcmp(en->role, "toolResult") == 0)
		remember_result(a, en->tool_call_id);
	return 0;
}

/*
 * tag: the writer's name for the line, answered as messageId: a message's
 * own id, or the messageId of another line, which is not stored.
 */
static int
store_one(struct app *a, const struct store_new_entry *ne, const char *tag,
    struct pi_error *e)
{
	struct json_object *ev;
	struct store_pos pos;

	if (store_begin(&db, e) == -1)
		return -1;
	if (store_append(&db, &a->ss, ne, &pos, e) == -1) {
		store_rollback(&db);
		return -1;
	}
	if (store_commit(&db, e) == -1)
		return -1;
	ev = event_new("entry");
	jsonx_set_str(ev, "id", a->ss.head_id);
	jsonx_set_str(ev, "sessionId", a->ss.id);
	jsonx_set_str(ev, "entryType", ne->type);
	if (ne->role != NULL)
		jsonx_set_str(ev, "role", ne->role);
	if (tag != NULL)
		jsonx_set_str(ev, "messageId", tag);
	if (ne->tool_call_id != NULL)
		jsonx_set_str(ev, "toolCallId", ne->tool_call_id);
	if (sess_out(ev) == -1)
		return pi_err(e, PI_EXIT_PIPE, "pipe", "stdout: %s",
		    strerror(errno));
	return 0;
}

/* The system prompt the session has now, looked up once. */
static const char *
current_system(struct app *a, struct pi_error *e, int *failed)
{
	struct projection p;

	if (a->system_known)
		return a->system;
	projection_init(&p);
	if (projection_build(&p, &db, a->ss.head, e) == -1)
		*failed = 1;
	a->system = p.system;
	p.system = NULL;
	projection_release(&p);
	a->system_known = 1;
	return a->system;
}

static int
system_prompt(struct app *a, const char *text, struct pi_error *e)
{
	struct store_new_entry ne;
	struct json_object *d, *inner;
	const char *now;
	int failed = 0, rc;

	now = current_system(a, e, &failed);
	if (failed)
		return -1;
	if (now != NULL && strcmp(now, text) == 0)
		return 0;
	d = json_object_new_object();
	jsonx_set_str(d, "customType", PROJECTION_SYSTEM_TYPE);
	inner = json_object_new_object();
	jsonx_set(inner, "text", jsonx_new_str(text, strlen(text)));
	jsonx_set(d, "data", inner);
	memset(&ne, 0, sizeof(ne));
	ne.type = "custom";
	ne.data = jsonx_string(d, NULL);
	rc = store_one(a, &ne, NULL, e);
	if (rc == 0) {
		free(a->system);
		a->system = xstrdup(text);
	}
	json_object_put(d);
	return rc;
}

static int
message(struct app *a, struct json_object *m, const char *message_id,
    size_t lineno, struct pi_error *e)
{
	struct store_new_entry ne;
	struct pi_error le;
	const char *role = jsonx_str(m, "role"), *id;
	char *text;
	int rc;

	if (role != NULL && strcmp(role, "system") == 0) {
		text = content_text(jsonx_get(m, "content"), "\n");
		rc = system_prompt(a, text ? text : "", e);
		free(text);
		return rc;
	}
	if (context_check_message(m, 1, "stdin", lineno, &le) == -1)
		return refuse(a, e, lineno, strchr(le.msg, ' ') + 1);
	memset(&ne, 0, sizeof(ne));
	ne.type = "message";
	ne.role = role;
	ne.message_id = message_id;
	if (strcmp(role, "toolResult") == 0) {
		id = jsonx_str(m, "toolCallId");
		if (seen_result(a, id))
			return 0;
		ne.tool_call_id = id;
	}
	ne.data = jsonx_string(m, NULL);
	if (store_one(a, &ne, ne.message_id, e) == -1)
		return -1;
	if (strcmp(role, "assistant") == 0)
		forget_results(a);
	else if (ne.tool_call_id != NULL)
		remember_result(a, ne.tool_call_id);
	return 0;
}

/* What each of pi's entry types must carry: "key:type" pairs. */
static const struct {
	const char *type;
	const char *need[2];
} pi_entries[] = {
	{ "model_change", { "provider", "modelId" } },
	{ "thinking_level_change", { "thinkingLevel", NULL } },
	{ "session_info", { NULL, NULL } },
	{ "custom", { "customType", NULL } },
	{ "custom_message", { "customType", NULL } },
	{ "branch_summary", { "summary", NULL } },
};

static int
pi_entry(struct app *a, struct json_object *o, size_t k, size_t lineno,
    struct pi_error *e)
{
	struct store_new_entry ne;
	struct json_object *d;
	const char *key, *name;
	char why[128];
	size_t i;
	int rc;

	for (i = 0; i < 2 && (key = pi_entries[k].need[i]) != NULL; i++)
		if (jsonx_str(o, key) == NULL) {
			(void)snprintf(why, sizeof(why), "%s has no string "
			    "\"%s\"", pi_entries[k].type, key);
			return refuse(a, e, lineno, why);
		}
	d = json_object_new_object();
	json_object_object_foreach(o, okey, val) {
		if (strcmp(okey, "type") != 0 && strcmp(okey, "id") != 0 &&
		    strcmp(okey, "parentId") != 0 &&
		    strcmp(okey, "timestamp") != 0 && strcmp(okey, "v") != 0 &&
		    strcmp(okey, "ts") != 0 && strcmp(okey, "messageId") != 0)
			json_object_object_add(d, okey, jsonx_ref(val));
	}
	memset(&ne, 0, sizeof(ne));
	ne.type = pi_entries[k].type;
	ne.data = jsonx_string(d, NULL);
	if (strcmp(ne.type, "session_info") == 0 &&
	    (name = jsonx_str(d, "name")) != NULL) {
		ne.names = 1;
		ne.name = *name ? name : NULL;
	}
	rc = store_one(a, &ne, jsonx_str(o, "messageId"), e);
	json_object_put(d);
	return rc;
}

static int
on_line(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	struct app *a = arg;
	struct json_object *m;
	const char *type = jsonx_str(o, "type"), *t;
	size_t k;
	int rc;

	if (type == NULL)
		return message(a, o, NULL, lineno, e);
	if (strcmp(type, "message_end") == 0 || strcmp(type, "message") == 0) {
		if ((m = jsonx_obj(o, "message")) == NULL)
			return refuse(a, e, lineno, strcmp(type, "message") ?
			    "message_end has no \"message\" object" :
			    "message entry has no \"message\" object");
		return message(a, m, jsonx_str(o, "messageId"), lineno, e);
	}
	if (strcmp(type, "tool_execution_end") == 0) {
		if (jsonx_str(o, "toolCallId") == NULL)
			return refuse(a, e, lineno, "tool_execution_end has "
			    "no \"toolCallId\"");
		m = context_tool_result(o, NULL);
		rc = message(a, m, NULL, lineno, e);
		json_object_put(m);
		return rc;
	}
	if (strcmp(type, "system") == 0) {
		if ((t = jsonx_str(o, "text")) == NULL &&
		    (t = jsonx_str(o, "content")) == NULL)
			return refuse(a, e, lineno, "system line has no "
			    "\"text\" string");
		return system_prompt(a, t, e);
	}
	for (k = 0; k < sizeof(pi_entries) / sizeof(pi_entries[0]); k++)
		if (strcmp(type, pi_entries[k].type) == 0)
			return pi_entry(a, o, k, lineno, e);
	return 0;
}

int
verb_append(int argc, char **argv)
{
	struct ndjson_reader r;
	struct json_object *ev;
	struct app a;
	struct pi_error e;
	int rc = 0;

	(void)argc;
	memset(&a, 0, sizeof(a));
	if (sess_open(0, &e) == -1 || sess_find(argv[0], &a.ss, &e) == -1) {
		if (strcmp(e.code, "no_database") == 0)
			pi_err(&e, PI_EXIT_INPUT, "unknown_id",
			    "no session '%s'", argv[0]);
		return sess_fail(&e);
	}
	if (store_walk_back(&db, a.ss.head, recent_result, &a, &e) == -1) {
		store_session_release(&a.ss);
		return sess_fail(&e);
	}
	ndjson_reader_init(&r, "stdin", on_line, &a);
	if (opt.follow)
		r.bad = on_bad;
	if (ndjson_read_fd(&r, 0, &e) == -1) {
		if (e.status != PI_EXIT_PIPE) {
			ev = event_new("error");
			jsonx_set_str(ev, "code", e.code ? e.code : "error");
			jsonx_set_str(ev, "message", e.msg);
			jsonx_set_bool(ev, "recoverable", pi_is_temporary(&e));
			jsonx_set_int(ev, "exitCode", e.status);
			(void)sess_out(ev);
			rc = sess_fail(&e);
		} else
			rc = PI_EXIT_PIPE;
	} else if (a.refused > 0) {
		fprintf(stderr, "pi-sess: stdin: %zu line%s not stored\n",
		    a.refused, a.refused == 1 ? "" : "s");
		rc = PI_EXIT_INPUT;
	}
	ndjson_reader_release(&r);
	forget_results(&a);
	free(a.results);
	free(a.system);
	store_session_release(&a.ss);
	return rc;
}
