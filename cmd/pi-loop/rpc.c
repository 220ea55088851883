/*
 * --rpc: NDJSON commands on stdin, in the shape of pi's RPC mode, each
 * answered by one "response" line that echoes its id, whatever became
 * of it.  Commands that only change queues or settings are answered at
 * once, even mid-run; those that need the loop idle (a prompt, compact,
 * branch, new_session) wait for it.  EOF when idle ends the process.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define MAX_COMMAND	(64u << 20)

/* Commands that wait until the loop is idle. */
struct deferred {
	struct json_object *cmd;
	struct deferred *next;
};

static struct deferred *deferred, **deferred_end = &deferred;
static struct json_object *abort_ids;	/* aborts answered at the run's end */
static struct buf line;

static void
respond(struct json_object *id, const char *command, int ok,
    struct json_object *data, const char *error)
{
	struct json_object *r = json_object_new_object();

	jsonx_set_str(r, "type", "response");
	jsonx_set(r, "id", id ? jsonx_ref(id) : NULL);
	jsonx_set_str(r, "command", command);
	jsonx_set_bool(r, "success", ok);
	if (ok && data != NULL)
		jsonx_set(r, "data", data);
	else
		json_object_put(data);
	if (!ok)
		jsonx_set_str(r, "error", error ? error : "failed");
	loop_emit(r);
}

static void
queue(struct queued **q, const char *text)
{
	struct queued *m = xcalloc(1, sizeof(*m));

	m->text = xstrdup(text);
	while (*q != NULL)
		q = &(*q)->next;
	*q = m;
}

static int
count(const struct queued *q)
{
	int n = 0;

	for (; q != NULL; q = q->next)
		n++;
	return n;
}

/* The messages of the session's context, as pi-llm would get them. */
static struct json_object *
messages(int *ok)
{
	const char *args[] = { "context", L.session, NULL };
	struct json_object *all = json_object_new_array(), *o;
	const char *s, *end, *nl;
	struct pi_error e;
	struct buf out;

	buf_init(&out, (size_t)-1);
	*ok = sess_run(args, NULL, &out, &e) == 0;
	for (s = out.data, end = s + out.len; s != NULL && s < end;
	    s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		o = jsonx_parse(s, (size_t)(nl - s), NULL);
		if (jsonx_str(o, "role") != NULL)
			json_object_array_add(all, o);
		else
			json_object_put(o);
	}
	buf_release(&out);
	return all;
}

static struct json_object *
state(void)
{
	struct json_object *d = json_object_new_object(), *m;
	int ok;

	m = messages(&ok);
	jsonx_set_str(d, "sessionId", L.session);
	jsonx_set(d, "model", L.model ? json_object_new_string(L.model) :
	    NULL);
	jsonx_set_str(d, "thinkingLevel", L.thinking ? L.thinking : "off");
	jsonx_set_bool(d, "isStreaming", L.running);
	jsonx_set_int(d, "messageCount", (int64_t)json_object_array_length(m));
	jsonx_set_int(d, "pendingMessageCount", count(L.steering) +
	    count(L.follow_up) + count(L.prompts));
	jsonx_set_int(d, "steeringQueue", count(L.steering));
	jsonx_set_int(d, "followUpQueue", count(L.follow_up));
	jsonx_set_str(d, "workspace", L.workspace);
	json_object_put(m);
	return d;
}

static void
record_setting(const char *type, const char *k1, const char *v1,
    const char *k2, const char *v2)
{
	struct json_object *o = json_object_new_object();
	char tag[37];

	/* Tagged, so that the next run waits until it is stored. */
	pi_uuid7(tag);
	jsonx_set_str(o, "type", type);
	jsonx_set_str(o, k1, v1);
	if (k2 != NULL)
		jsonx_set_str(o, k2, v2);
	jsonx_set_str(o, "messageId", tag);
	(void)record(o, tag);
	json_object_put(o);
}

static void
set_model(struct json_object *id, struct json_object *cmd)
{
	const char *p = jsonx_str(cmd, "provider"), *m = jsonx_str(cmd,
	    "modelId");
	struct json_object *d;

	if (m == NULL)
		m = jsonx_str(cmd, "model");
	if (m == NULL || *m == '\0') {
		respond(id, "set_model", 0, NULL, "set_model needs modelId");
		return;
	}
	free(L.model);
	L.model = p && *p && !strchr(m, '/') ? xasprintf("%s/%s", p, m) :
	    xstrdup(m);
	if (p != NULL && *p != '\0')
		record_setting("model_change", "provider", p, "modelId", m);
	d = json_object_new_object();
	jsonx_set_str(d, "model", L.model);
	respond(id, "set_model", 1, d, NULL);
}

static void
set_thinking(struct json_object *id, struct json_object *cmd)
{
	static const char *const levels[] = { "off", "none", "low",
	    "medium", "high" };
	const char *l = jsonx_str(cmd, "level");
	size_t i;

	for (i = 0; l != NULL && i < sizeof(levels) / sizeof(*levels); i++)
		if (strcmp(l, levels[i]) == 0)
			break;
	if (l == NULL || i == sizeof(levels) / sizeof(*levels)) {
		respond(id, "set_thinking_level", 0, NULL, "level must be "
		    "one of off, low, medium, high");
		return;
	}
	free(L.thinking);
	L.thinking = strcmp(l, "off") == 0 || strcmp(l, "none") == 0 ? NULL :
	    xstrdup(l);
	record_setting("thinking_level_change", "thinkingLevel", l, NULL,
	    NULL);
	respond(id, "set_thinking_level", 1, NULL, NULL);
}

static void
defer(struct json_object *cmd)
{
	struct deferred *d = xcalloc(1, sizeof(*d));

	d->cmd = jsonx_ref(cmd);
	*deferred_end = d;
	deferred_end = &d->next;
}

/* One command, answered now or deferred until the loop is idle. */
static void
command(struct json_object *cmd)
{
	struct json_object *id = jsonx_get(cmd, "id");
	const char *type = jsonx_str(cmd, "type");
	const char *msg = jsonx_str(cmd, "message"), *how;
	char err[256];
	int ok;

	if (type == NULL) {
		respond(id, "parse", 0, NULL, "Failed to parse command: no "
		    "string \"type\"");
		return;
	}
	if (strcmp(type, "prompt") == 0 || strcmp(type, "steer") == 0 ||
	    strcmp(type, "follow_up") == 0) {
		if (msg == NULL) {
			(void)snprintf(err, sizeof(err), "%s needs a "
			    "\"message\" string", type);
			respond(id, type, 0, NULL, err);
			return;
		}
		how = strcmp(type, "prompt") == 0 ?
		    jsonx_str(cmd, "streamingBehavior") : type;
		if (!L.running)
			queue(&L.prompts, msg);
		else if (how != NULL && strcmp(how, "steer") == 0)
			queue(&L.steering, msg);
		else if (how != NULL && (strcmp(how, "followUp") == 0 ||
		    strcmp(how, "follow_up") == 0))
			queue(&L.follow_up, msg);
		else {
			respond(id, type, 0, NULL, "Agent is already "
			    "processing a prompt.  Use steer or follow_up, "
			    "or give streamingBehavior.");
			return;
		}
		respond(id, type, 1, NULL, NULL);
	} else if (strcmp(type, "abort") == 0) {
		if (!L.running) {
			respond(id, type, 1, NULL, NULL);
			return;
		}
		json_object_array_add(abort_ids, id ? jsonx_ref(id) : NULL);
		loop_stop(TERM_ABORT, PI_EXIT_SIGINT, "aborted by the RPC "
		    "peer");
	} else if (strcmp(type, "get_state") == 0)
		respond(id, type, 1, state(), NULL);
	else if (strcmp(type, "get_messages") == 0) {
		struct json_object *d = json_object_new_object();

		jsonx_set(d, "messages", messages(&ok));
		if (ok)
			respond(id, type, 1, d, NULL);
		else {
			json_object_put(d);
			respond(id, type, 0, NULL, "pi-sess context failed");
		}
	} else if (strcmp(type, "set_model") == 0)
		set_model(id, cmd);
	else if (strcmp(type, "set_thinking_level") == 0)
		set_thinking(id, cmd);
	else if (strcmp(type, "compact") == 0) {
		/* pi aborts the run first, then compacts. */
		if (L.running)
			loop_stop(TERM_ABORT, PI_EXIT_SIGINT, "aborted for "
			    "compaction");
		defer(cmd);
	} else if (strcmp(type, "branch") == 0 ||
	    strcmp(type, "new_session") == 0) {
		if (L.running) {
			respond(id, type, 0, NULL, "A run is under way: abort "
			    "it or wait until it ends.");
			return;
		}
		defer(cmd);
	} else {
		(void)snprintf(err, sizeof(err), "Unknown command: %s", type);
		respond(id, type, 0, NULL, err);
	}
}

/* The id of a line that is not JSON, if one can be seen in it. */
static struct json_object *
salvage_id(const char *s, size_t n)
{
	const char *p = s, *end = s + n, *q;

	while ((p = memchr(p, '"', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) > 4 && memcmp(p, "\"id\"", 4) == 0) {
			for (q = p + 4; q < end && isspace((unsigned char)*q);
			    q++)
				;
			if (q < end && *q == ':') {
				for (q++; q < end &&
				    isspace((unsigned char)*q); q++)
					;
				if (q < end && *q == '"') {
					p = ++q;
					while (q < end && *q != '"')
						q++;
					return jsonx_new_str(p,
					    (size_t)(q - p));
				}
				if (q < end && (isdigit((unsigned char)*q) ||
				    *q == '-'))
					return json_object_new_int64(
					    strtoll(q, NULL, 10));
			}
		}
		p++;
	}
	return NULL;
}

static void
one_line(const char *s, size_t n)
{
	struct json_object *o, *id;
	struct pi_error e;
	char err[600];

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		return;
	o = jsonx_parse(s, n, &e);
	if (o == NULL || !jsonx_is(o, json_type_object)) {
		id = o ? jsonx_ref(jsonx_get(o, "id")) : salvage_id(s, n);
		(void)snprintf(err, sizeof(err), "Failed to parse command: %s",
		    o ? "not a JSON object" : e.msg);
		respond(id, "parse", 0, NULL, err);
		json_object_put(id);
		json_object_put(o);
		return;
	}
	command(o);
	json_object_put(o);
}

/* The rest of a line over the ceiling: answered once, then dropped. */
static int skipping;

/*
 * A command may run the agent, which reads more of stdin through here:
 * a whole line is handled where it lies, and a pieced one is taken out
 * of the buffer first.
 */
void
rpc_input(const char *p, size_t n)
{
	const char *nl, *start;
	char *cmd;
	size_t len;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		len = nl != NULL ? (size_t)(nl - p) : n;
		start = p;
		if (!skipping && (nl == NULL || line.len > 0) &&
		    buf_add(&line, p, len) == -1) {
			respond(NULL, "parse", 0, NULL, "Failed to parse "
			    "command: longer than 64 MiB");
			buf_reset(&line);
			skipping = 1;
		}
		if (nl == NULL)
			return;
		n -= len + 1;
		p = nl + 1;
		if (skipping)
			skipping = 0;
		else if (line.len > 0) {
			cmd = buf_detach(&line, &len);
			one_line(cmd, len);
			free(cmd);
		} else
			one_line(start, len);
	}
}

void
rpc_eof(void)
{
	if (line.len > 0 && !skipping)
		one_line(line.data, line.len);
	buf_reset(&line);
	skipping = 0;
}

/* Work to do between runs: any prompt, deferred command, or the end. */
static int
work(void *arg)
{
	(void)arg;
	return L.prompts != NULL || deferred != NULL || L.stdin_eof ||
	    L.stdout_gone || L.signalled;
}

/* Switch the loop to another session: the recorder and lock follow. */
static int
switch_session(const char *id)
{
	const char *unlock[] = { "unlock", "--pid", NULL, L.session, NULL };
	const char *lock[] = { "lock", "--pid", NULL, NULL, NULL };
	char pid[32];
	struct pi_error e;

	(void)snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	unlock[2] = lock[2] = pid;
	lock[3] = id;
	if (sess_run(lock, NULL, NULL, &e) != 0)
		return -1;
	recorder_stop();
	(void)sess_run(unlock, NULL, NULL, &e);
	(void)snprintf(L.session, sizeof(L.session), "%s", id);
	*L.resumed = '\0';
	return recorder_start(&e);
}

static void
run_deferred(struct json_object *cmd)
{
	struct json_object *id = jsonx_get(cmd, "id"), *d = NULL;
	const char *type = jsonx_str(cmd, "type");
	const char *args[8];
	struct pi_error e;
	struct buf out;
	size_t n = 0;
	int code;

	if (strcmp(type, "compact") == 0) {
		L.term = TERM_NONE;
		code = compact_now("manual", jsonx_str(cmd,
		    "customInstructions"), &d);
		L.term = TERM_NONE;
		if (d != NULL)
			respond(id, type, 1, d, NULL);
		else
			respond(id, type, 0, NULL, code == 1 ? "Nothing to "
			    "compact, or the summary failed" :
			    "compaction failed");
		return;
	}
	buf_init(&out, 1u << 16);
	if (strcmp(type, "branch") == 0) {
		args[n++] = "branch";
		args[n++] = L.session;
		if (jsonx_str(cmd, "entryId") != NULL)
			args[n++] = jsonx_str(cmd, "entryId");
	} else {
		args[n++] = "new";
		args[n++] = "--cwd";
		args[n++] = L.workspace;
		if (jsonx_str(cmd, "parentSession") != NULL) {
			args[n++] = "--parent";
			args[n++] = jsonx_str(cmd, "parentSession");
		}
	}
	args[n] = NULL;
	code = sess_run(args, NULL, &out, &e);
	while (out.len > 0 && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	if (code != 0 || out.len == 0 || switch_session(out.data) == -1)
		respond(id, type, 0, NULL, strcmp(type, "branch") == 0 ?
		    "pi-sess branch failed (an unknown entry?)" :
		    "pi-sess new failed");
	else {
		d = json_object_new_object();
		jsonx_set_str(d, "sessionId", L.session);
		jsonx_set_bool(d, "cancelled", 0);
		respond(id, type, 1, d, NULL);
	}
	buf_release(&out);
}

void
rpc_run_ended(void)
{
	size_t i;

	for (i = 0; abort_ids != NULL && i < json_object_array_length(abort_ids);
	    i++)
		respond(json_object_array_get_idx(abort_ids, i), "abort", 1,
		    NULL, NULL);
	json_object_put(abort_ids);
	abort_ids = json_object_new_array();
}

int
rpc_main(void)
{
	struct json_object *prompts;
	struct deferred *d;
	struct queued *q;
	int code = 0;

	buf_init(&line, MAX_COMMAND);
	abort_ids = json_object_new_array();
	(void)proc_nonblock(0);
	for (;;) {
		if (pump(work, NULL) == -1)
			break;
		if (L.signalled) {
			code = 128 + L.signalled;
			break;
		}
		while ((d = deferred) != NULL && !L.stdout_gone) {
			if ((deferred = d->next) == NULL)
				deferred_end = &deferred;
			run_deferred(d->cmd);
			json_object_put(d->cmd);
			free(d);
		}
		if (L.prompts != NULL && !L.stdout_gone) {
			q = L.prompts;
			L.prompts = q->next;
			prompts = json_object_new_array();
			json_object_array_add(prompts, user_message(q->text));
			free(q->text);
			free(q);
			code = run_agent(prompts);
			json_object_put(prompts);
			rpc_run_ended();
			if (code == PI_EXIT_PIPE)
				break;
			/* A signal ends the run, then the process. */
			if (L.signalled) {
				code = 128 + L.signalled;
				break;
			}
			continue;
		}
		if (L.stdout_gone) {
			code = PI_EXIT_PIPE;
			break;
		}
		if (L.stdin_eof && L.prompts == NULL && deferred == NULL) {
			code = 0;
			break;
		}
	}
	json_object_put(abort_ids);
	buf_release(&line);
	return code;
}
