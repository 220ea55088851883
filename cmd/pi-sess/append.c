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
 *
 * Without --follow the first line that is not stored ends the run.
 * With it (pi-loop's recorder), only the end of stdin does: a line not
 * stored is reported and passed over, answers stop when stdout fails
 * but storing goes on, and the exit status at the end says what went
 * wrong first (follow_status).
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
	/* With --follow: what went wrong, for the end. */
	size_t refused;		/* lines that are no entry (exit 3) */
	size_t lost;		/* entries the store failed to take */
	int status;		/* the first of those failures' status */
	int out_errno;		/* stdout failed: no more answers */
};

/*
 * An answer on stdout.  When stdout fails (the writer went away),
 * --follow goes on storing what comes, unanswered: the writer may be
 * gone, but what it sent before is still to be kept.
 */
static int
answer(struct app *a, struct json_object *ev, struct pi_error *e)
{
	if (a->out_errno != 0) {
		json_object_put(ev);
		return 0;
	}
	if (sess_out(ev) == 0)
		return 0;
	if (!opt.follow)
		return pi_err(e, errno == EPIPE ? PI_EXIT_PIPE : PI_EXIT_FAIL,
		    "pipe", "stdout: %s", strerror(errno));
	a->out_errno = errno;
	fprintf(stderr, "pi-sess: stdout: %s: storing the rest of stdin "
	    "unanswered\n", strerror(errno));
	return 0;
}

/*
 * A line that was not stored, le saying why: its location is added
 * here.  Without --follow it ends the run; with --follow it is
 * reported (stderr, and an error line naming it) and reading goes on.
 */
static int
not_stored(struct app *a, struct pi_error *e, size_t lineno, const char *tag,
    const struct pi_error *le)
{
	struct json_object *ev;
	struct pi_error fe;

	if (le->status == PI_EXIT_INPUT)
		pi_err(&fe, le->status, le->code, "stdin:%zu: %s", lineno,
		    le->msg);
	else
		pi_err(&fe, le->status, le->code, "stdin:%zu: not stored: %s",
		    lineno, le->msg);
	if (!opt.follow) {
		*e = fe;
		return -1;
	}
	fprintf(stderr, "pi-sess: %s (line skipped)\n", fe.msg);
	if (fe.status == PI_EXIT_INPUT)
		a->refused++;
	else if (a->lost++ == 0)
		a->status = fe.status;
	ev = event_new("error");
	jsonx_set_str(ev, "code", fe.code);
	jsonx_set_str(ev, "message", fe.msg);
	jsonx_set_bool(ev, "recoverable", 1);
	jsonx_set_int(ev, "exitCode", fe.status);
	jsonx_set_int(ev, "line", (int64_t)lineno);
	if (tag != NULL)
		jsonx_set_str(ev, "messageId", tag);
	return answer(a, ev, e);
}

/* A line that is no entry. */
static int
refuse(struct app *a, struct pi_error *e, size_t lineno, const char *tag,
    const char *why)
{
	struct pi_error le;

	pi_err(&le, PI_EXIT_INPUT, "bad_input", "%s", why);
	return not_stored(a, e, lineno, tag, &le);
}

static int
on_bad(void *arg, const struct pi_error *le, struct pi_error *e)
{
	struct app *a = arg;
	const char *msg = strchr(le->msg, ' ');
	size_t lineno = 0;

	/* le says "stdin:LINE: why"; say it again through refuse. */
	(void)sscanf(le->msg, "stdin:%zu:", &lineno);
	return refuse(a, e, lineno, NULL, msg ? msg + 1 : le->msg);
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
 * Store one entry, lineno's, in a transaction of its own, and answer
 * it.  tag: the writer's name for the line, answered as messageId: a
 * message's own id, or the messageId of another line, which is not
 * stored.  1 when stored, 0 when not but reading goes on, or -1.
 */
static int
store_one(struct app *a, const struct store_new_entry *ne, const char *tag,
    size_t lineno, struct pi_error *e)
{
	struct json_object *ev;
	struct store_pos pos;
	struct pi_error le;
	const char *role, *call;

	if (store_begin(&db, &le) == -1)
		return not_stored(a, e, lineno, tag, &le);
	if (store_append(&db, &a->ss, ne, &pos, &le) == -1) {
		store_rollback(&db);
		return not_stored(a, e, lineno, tag, &le);
	}
	if (store_commit(&db, &le) == -1)
		return not_stored(a, e, lineno, tag, &le);
	ev = event_new("entry");
	jsonx_set_str(ev, "id", a->ss.head_id);
	jsonx_set_str(ev, "sessionId", a->ss.id);
	jsonx_set_str(ev, "entryType", ne->type);
	if (strcmp(ne->type, "message") == 0) {
		role = jsonx_str(ne->data, "role");
		jsonx_set_str(ev, "role", role);
		if (strcmp(role, "toolResult") == 0 &&
		    (call = jsonx_str(ne->data, "toolCallId")) != NULL)
			jsonx_set_str(ev, "toolCallId", call);
	}
	if (tag != NULL)
		jsonx_set_str(ev, "messageId", tag);
	return answer(a, ev, e) == -1 ? -1 : 1;
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
	a->system_known = !*failed;
	return a->system;
}

static int
system_prompt(struct app *a, const char *text, size_t lineno,
    struct pi_error *e)
{
	struct store_new_entry ne;
	struct json_object *d, *inner;
	struct pi_error le;
	const char *now;
	int failed = 0, rc;

	now = current_system(a, &le, &failed);
	if (failed)
		return not_stored(a, e, lineno, NULL, &le);
	if (now != NULL && strcmp(now, text) == 0)
		return 0;
	d = json_object_new_object();
	jsonx_set_str(d, "customType", PROJECTION_SYSTEM_TYPE);
	inner = json_object_new_object();
	jsonx_set(inner, "text", jsonx_new_str(text, strlen(text)));
	jsonx_set(d, "data", inner);
	memset(&ne, 0, sizeof(ne));
	ne.type = "custom";
	ne.data = d;
	if ((rc = store_one(a, &ne, NULL, lineno, e)) == 1) {
		free(a->system);
		a->system = xstrdup(text);
	}
	json_object_put(d);
	return rc == -1 ? -1 : 0;
}

static int
message(struct app *a, struct json_object *m, const char *message_id,
    size_t lineno, struct pi_error *e)
{
	struct store_new_entry ne;
	const char *role = jsonx_str(m, "role"), *id = NULL;
	char *text;
	int rc;

	if (role != NULL && strcmp(role, "system") == 0) {
		text = content_text(jsonx_get(m, "content"), "\n");
		rc = system_prompt(a, text ? text : "", lineno, e);
		free(text);
		return rc;
	}
	if (role != NULL && strcmp(role, "toolResult") == 0 &&
	    (id = jsonx_str(m, "toolCallId")) != NULL && seen_result(a, id))
		return 0;
	memset(&ne, 0, sizeof(ne));
	ne.type = "message";
	ne.message_id = message_id;
	ne.data = m;
	/* The store checks the message: one check for every way in. */
	if ((rc = store_one(a, &ne, message_id, lineno, e)) != 1)
		return rc;
	if (strcmp(role, "assistant") == 0)
		forget_results(a);
	else if (strcmp(role, "toolResult") == 0)
		remember_result(a, id);
	return 0;
}

/* pi's entry lines that append stores (the store checks their fields). */
static const char *const pi_entries[] = {
	"model_change", "thinking_level_change", "session_info", "custom",
	"custom_message", "branch_summary",
};

static int
pi_entry(struct app *a, struct json_object *o, const char *type,
    size_t lineno, struct pi_error *e)
{
	struct store_new_entry ne;
	struct json_object *d;
	int rc;

	d = json_object_new_object();
	json_object_object_foreach(o, okey, val) {
		if (strcmp(okey, "type") != 0 && strcmp(okey, "id") != 0 &&
		    strcmp(okey, "parentId") != 0 &&
		    strcmp(okey, "timestamp") != 0 && strcmp(okey, "v") != 0 &&
		    strcmp(okey, "ts") != 0 && strcmp(okey, "messageId") != 0)
			json_object_object_add(d, okey, jsonx_ref(val));
	}
	memset(&ne, 0, sizeof(ne));
	ne.type = type;
	ne.data = d;
	rc = store_one(a, &ne, jsonx_str(o, "messageId"), lineno, e);
	json_object_put(d);
	return rc == -1 ? -1 : 0;
}

static int
on_line(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	struct app *a = arg;
	struct json_object *m;
	const char *type = jsonx_str(o, "type"), *t, *tag;
	size_t k;
	int rc;

	if (type == NULL)
		return message(a, o, NULL, lineno, e);
	tag = jsonx_str(o, "messageId");
	if (strcmp(type, "message_end") == 0 || strcmp(type, "message") == 0) {
		if ((m = jsonx_obj(o, "message")) == NULL)
			return refuse(a, e, lineno, tag, strcmp(type,
			    "message") ? "message_end has no \"message\" "
			    "object" : "message entry has no \"message\" "
			    "object");
		return message(a, m, tag, lineno, e);
	}
	if (strcmp(type, "tool_execution_end") == 0) {
		if (jsonx_str(o, "toolCallId") == NULL)
			return refuse(a, e, lineno, tag, "tool_execution_end "
			    "has no \"toolCallId\"");
		m = context_tool_result(o, NULL);
		rc = message(a, m, NULL, lineno, e);
		json_object_put(m);
		return rc;
	}
	if (strcmp(type, "system") == 0) {
		if ((t = jsonx_str(o, "text")) == NULL &&
		    (t = jsonx_str(o, "content")) == NULL)
			return refuse(a, e, lineno, tag, "system line has no "
			    "\"text\" string");
		return system_prompt(a, t, lineno, e);
	}
	for (k = 0; k < sizeof(pi_entries) / sizeof(pi_entries[0]); k++)
		if (strcmp(type, pi_entries[k]) == 0)
			return pi_entry(a, o, type, lineno, e);
	return 0;
}

/*
 * How a --follow run went: the first failure to store an entry, else
 * stdout's failure, else lines that were no entries, else 0.
 */
static int
follow_status(const struct app *a)
{
	if (a->refused + a->lost > 0)
		fprintf(stderr, "pi-sess: stdin: %zu line%s not stored\n",
		    a->refused + a->lost, a->refused + a->lost == 1 ? "" : "s");
	if (a->lost > 0)
		return a->status;
	if (a->out_errno != 0)
		return a->out_errno == EPIPE ? PI_EXIT_PIPE : PI_EXIT_FAIL;
	return a->refused > 0 ? PI_EXIT_INPUT : 0;
}

int
verb_append(int argc, char **argv)
{
	struct ndjson_reader r;
	struct json_object *ev;
	struct app a;
	struct pi_error e, oe;
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
		/* Reading stopped: stdin failed, or (no --follow) a line. */
		if (e.status != PI_EXIT_PIPE) {
			ev = event_new("error");
			jsonx_set_str(ev, "code", e.code ? e.code : "error");
			jsonx_set_str(ev, "message", e.msg);
			jsonx_set_bool(ev, "recoverable", pi_is_temporary(&e));
			jsonx_set_int(ev, "exitCode", e.status);
			(void)answer(&a, ev, &oe);
			rc = sess_fail(&e);
		} else
			rc = PI_EXIT_PIPE;
		if (opt.follow && a.lost > 0)
			rc = follow_status(&a);
	} else if (opt.follow)
		rc = follow_status(&a);
	ndjson_reader_release(&r);
	forget_results(&a);
	free(a.results);
	free(a.system);
	store_session_release(&a.ss);
	return rc;
}
