/* context: see context.h. */
#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "event.h"
#include "jsonx.h"
#include "ndjson.h"
#include "util.h"
#include "banned.h"

void
context_init(struct context *c)
{
	memset(c, 0, sizeof(*c));
	c->messages = json_object_new_array();
	c->tools = json_object_new_array();
}

void
context_release(struct context *c)
{
	free(c->system);
	json_object_put(c->messages);
	json_object_put(c->tools);
	memset(c, 0, sizeof(*c));
}

static int
bad(struct pi_error *e, const char *name, size_t lineno, const char *what)
{
	return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: %s", name,
	    lineno, what);
}

static int
valid_blocks(struct json_object *content)
{
	size_t i, n = json_object_array_length(content);
	struct json_object *b;

	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		if (jsonx_str(b, "type") == NULL)
			return 0;
	}
	return 1;
}

int
context_check_message(struct json_object *m, int pi_roles, const char *name,
    size_t lineno, struct pi_error *e)
{
	const char *role = jsonx_str(m, "role");
	struct json_object *content = jsonx_get(m, "content");

	if (role == NULL)
		return bad(e, name, lineno, "message has no \"role\"");
	if (pi_roles && (strcmp(role, "bashExecution") == 0 ||
	    strcmp(role, "custom") == 0))
		return 0;
	if (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0 &&
	    strcmp(role, "toolResult") != 0)
		return pi_err(e, PI_EXIT_INPUT, "bad_input",
		    "%s:%zu: unknown role '%s'", name, lineno, role);
	if (!jsonx_is(content, json_type_string) &&
	    !jsonx_is(content, json_type_array))
		return pi_err(e, PI_EXIT_INPUT, "bad_input",
		    "%s:%zu: %s message has no \"content\" string or array",
		    name, lineno, role);
	if (jsonx_is(content, json_type_array) && !valid_blocks(content))
		return pi_err(e, PI_EXIT_INPUT, "bad_input",
		    "%s:%zu: a content block has no \"type\"", name, lineno);
	if (strcmp(role, "toolResult") == 0 &&
	    jsonx_str(m, "toolCallId") == NULL)
		return bad(e, name, lineno,
		    "toolResult message has no \"toolCallId\"");
	return 0;
}

static int
add_message(struct context *c, struct json_object *m, const char *name,
    size_t lineno, struct pi_error *e)
{
	const char *role = jsonx_str(m, "role");

	if (role != NULL && strcmp(role, "system") == 0) {
		char *t = content_text(jsonx_get(m, "content"), "\n");

		free(c->system);
		c->system = t;
		return 0;
	}
	if (context_check_message(m, 0, name, lineno, e) == -1)
		return -1;
	if (strcmp(role, "assistant") == 0)
		c->assistant_count++;
	json_object_array_add(c->messages, jsonx_ref(m));
	return 0;
}

/* The name of the call a result answers, from the history so far. */
static const char *
call_name(struct context *c, const char *id)
{
	size_t i, j, n = json_object_array_length(c->messages);
	struct json_object *m, *content, *b;

	for (i = n; i-- > 0;) {
		m = json_object_array_get_idx(c->messages, i);
		if ((content = jsonx_arr(m, "content")) == NULL)
			continue;
		for (j = 0; j < json_object_array_length(content); j++) {
			b = json_object_array_get_idx(content, j);
			if (jsonx_str(b, "id") != NULL &&
			    strcmp(jsonx_str(b, "id"), id) == 0)
				return jsonx_str(b, "name");
		}
	}
	return "";
}

struct json_object *
context_tool_result(struct json_object *ev, const char *tool_name)
{
	const char *tool = jsonx_str(ev, "toolName");
	struct json_object *m, *content, *block, *out;

	m = json_object_new_object();
	jsonx_set_str(m, "role", "toolResult");
	jsonx_set_str(m, "toolCallId", jsonx_str(ev, "toolCallId"));
	jsonx_set_str(m, "toolName", tool ? tool : tool_name ? tool_name : "");
	if ((content = jsonx_arr(ev, "content")) != NULL)
		content = jsonx_ref(content);
	else {
		content = json_object_new_array();
		block = json_object_new_object();
		jsonx_set_str(block, "type", "text");
		out = jsonx_get(ev, "output");
		jsonx_set(block, "text", jsonx_is(out, json_type_string) ?
		    jsonx_ref(out) : json_object_new_string(out == NULL ? "" :
		    jsonx_string(out, NULL)));
		json_object_array_add(content, block);
	}
	jsonx_set(m, "content", content);
	jsonx_set_bool(m, "isError", !jsonx_bool(ev, "success", 0));
	jsonx_set_int(m, "timestamp", jsonx_int(ev, "ts", event_clock_ms()));
	return m;
}

static int
add_tool_end(struct context *c, struct json_object *ev, const char *name,
    size_t lineno, struct pi_error *e)
{
	const char *id = jsonx_str(ev, "toolCallId");
	struct json_object *m;
	int rc;

	if (id == NULL)
		return bad(e, name, lineno,
		    "tool_execution_end has no \"toolCallId\"");
	m = context_tool_result(ev, call_name(c, id));
	rc = add_message(c, m, name, lineno, e);
	json_object_put(m);
	return rc;
}

static int
add_tool(struct context *c, struct json_object *o, const char *name,
    size_t lineno, struct pi_error *e)
{
	struct json_object *t, *schema;
	const char *tname = jsonx_str(o, "name");

	if (tname == NULL)
		return bad(e, name, lineno, "tool line has no \"name\"");
	schema = jsonx_obj(o, "inputSchema");
	if (schema == NULL)
		schema = jsonx_obj(o, "parameters");
	t = json_object_new_object();
	jsonx_set_str(t, "name", tname);
	jsonx_set_str(t, "description", jsonx_str(o, "description") ?
	    jsonx_str(o, "description") : "");
	if (schema != NULL)
		jsonx_set(t, "inputSchema", jsonx_ref(schema));
	else {
		schema = json_object_new_object();
		jsonx_set_str(schema, "type", "object");
		jsonx_set(schema, "properties", json_object_new_object());
		jsonx_set(t, "inputSchema", schema);
	}
	json_object_array_add(c->tools, t);
	return 0;
}

int
context_add_line(struct context *c, struct json_object *o, const char *name,
    size_t lineno, struct pi_error *e)
{
	const char *type = jsonx_str(o, "type");
	struct json_object *m;

	if (type == NULL)
		return add_message(c, o, name, lineno, e);
	if (strcmp(type, "message_end") == 0) {
		if ((m = jsonx_obj(o, "message")) == NULL)
			return bad(e, name, lineno,
			    "message_end has no \"message\" object");
		return add_message(c, m, name, lineno, e);
	}
	if (strcmp(type, "tool_execution_end") == 0)
		return add_tool_end(c, o, name, lineno, e);
	if (strcmp(type, "tool") == 0)
		return add_tool(c, o, name, lineno, e);
	if (strcmp(type, "system") == 0) {
		const char *t = jsonx_str(o, "text");

		if (t == NULL)
			t = jsonx_str(o, "content");
		if (t == NULL)
			return bad(e, name, lineno,
			    "system line has no \"text\" string");
		free(c->system);
		c->system = xstrdup(t);
	}
	return 0;
}

struct reader_arg {
	struct context *c;
	const char *name;
};

static int
on_line(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	struct reader_arg *a = arg;

	return context_add_line(a->c, o, a->name, lineno, e);
}

int
context_read_fd(struct context *c, int fd, const char *name,
    volatile sig_atomic_t *stop, struct pi_error *e)
{
	struct ndjson_reader r;
	struct reader_arg a = { c, name };
	int rc;

	ndjson_reader_init(&r, name, on_line, &a);
	r.stop = stop;
	rc = ndjson_read_fd(&r, fd, e);
	ndjson_reader_release(&r);
	return rc;
}

void
context_add_user_text(struct context *c, const char *text)
{
	struct json_object *m = json_object_new_object();

	jsonx_set_str(m, "role", "user");
	jsonx_set_str(m, "content", text);
	jsonx_set_int(m, "timestamp", pi_now_ms());
	json_object_array_add(c->messages, m);
}

struct json_object *
context_user_message(struct json_object *content, int64_t ts)
{
	struct json_object *m = json_object_new_object(), *c, *b;

	jsonx_set_str(m, "role", "user");
	if (jsonx_is(content, json_type_string)) {
		c = json_object_new_array();
		b = json_object_new_object();
		jsonx_set_str(b, "type", "text");
		jsonx_set(b, "text", jsonx_ref(content));
		json_object_array_add(c, b);
	} else
		c = content ? jsonx_ref(content) : json_object_new_array();
	jsonx_set(m, "content", c);
	jsonx_set_int(m, "timestamp", ts);
	return m;
}

char *
content_text(struct json_object *content, const char *sep)
{
	struct buf b;
	struct json_object *blk;
	const char *t;
	size_t i, n;

	if (jsonx_is(content, json_type_string))
		return xstrdup(json_object_get_string(content));
	buf_init(&b, (size_t)-1 / 2);
	n = jsonx_is(content, json_type_array) ?
	    json_object_array_length(content) : 0;
	for (i = 0; i < n; i++) {
		blk = json_object_array_get_idx(content, i);
		if (strcmp(jsonx_str(blk, "type") ? jsonx_str(blk, "type") :
		    "", "text") != 0 || (t = jsonx_str(blk, "text")) == NULL)
			continue;
		if (b.len > 0)
			buf_adds(&b, sep);
		buf_adds(&b, t);
	}
	return buf_detach(&b, NULL);
}

char *
tool_id_normalise(const char *id, size_t max)
{
	size_t i, n = strlen(id), keep;
	unsigned long h = 2166136261u;
	int changed = n > max;
	char *s;

	s = xmalloc((n > max ? n : max) + 10);
	memcpy(s, id, n + 1);
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '-')) {
			s[i] = '_';
			changed = 1;
		}
	if (!changed)
		return s;
	/*
	 * Cutting or replacing can make two ids one, and then a result
	 * answers the wrong call; a hash of the whole original keeps them
	 * apart, the same each time the history is sent.
	 */
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)id[i]) * 16777619u;
	keep = max > 9 ? max - 9 : 0;
	if (keep > n)
		keep = n;
	snprintf(s + keep, 10, "_%08lx", h & 0xffffffffu);
	return s;
}

static int
same_model(struct json_object *m, const char *provider, const char *api,
    const char *model)
{
	const char *p = jsonx_str(m, "provider"), *a = jsonx_str(m, "api");
	const char *mo = jsonx_str(m, "model");

	return p && a && mo && strcmp(p, provider) == 0 &&
	    strcmp(a, api) == 0 && strcmp(mo, model) == 0;
}

/* An assistant message as the target model may see it. */
static struct json_object *
prepare_assistant(struct json_object *m, int same, size_t id_max,
    struct json_object *idmap)
{
	struct json_object *out = jsonx_copy(m), *content, *nc, *b, *t;
	const char *type, *id;
	char *nid;
	size_t i, n;

	if (jsonx_is(jsonx_get(out, "content"), json_type_string)) {
		/* A hand-written history may say it in a string. */
		t = json_object_new_object();
		jsonx_set_str(t, "type", "text");
		jsonx_set(t, "text", jsonx_ref(jsonx_get(out, "content")));
		nc = json_object_new_array();
		json_object_array_add(nc, t);
		jsonx_set(out, "content", nc);
	}
	content = jsonx_arr(out, "content");
	n = content ? json_object_array_length(content) : 0;
	nc = json_object_new_array();
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		type = jsonx_str(b, "type");
		if (type != NULL && strcmp(type, "thinking") == 0 && !same) {
			/* Another model's reasoning is only text to this one. */
			if (jsonx_bool(b, "redacted", 0) ||
			    jsonx_str(b, "thinking") == NULL ||
			    *jsonx_str(b, "thinking") == '\0')
				continue;
			t = json_object_new_object();
			jsonx_set_str(t, "type", "text");
			jsonx_set_str(t, "text", jsonx_str(b, "thinking"));
			json_object_array_add(nc, t);
			continue;
		}
		if (type != NULL && strcmp(type, "thinking") == 0 &&
		    jsonx_str(b, "thinkingSignature") == NULL &&
		    (jsonx_str(b, "thinking") == NULL ||
		    *jsonx_str(b, "thinking") == '\0'))
			continue;
		b = jsonx_ref(b);
		if (!same) {
			json_object_object_del(b, "textSignature");
			json_object_object_del(b, "thoughtSignature");
		}
		if (type != NULL && strcmp(type, "toolCall") == 0 &&
		    (id = jsonx_str(b, "id")) != NULL) {
			nid = tool_id_normalise(id, id_max);
			if (strcmp(nid, id) != 0) {
				jsonx_set_str(idmap, id, nid);
				jsonx_set_str(b, "id", nid);
			}
			free(nid);
		}
		json_object_array_add(nc, b);
	}
	jsonx_set(out, "content", nc);
	return out;
}

static int
has_id(struct json_object *ids, const char *id)
{
	return jsonx_get(ids, id) != NULL;
}

static void
synth_results(struct json_object *out, struct json_object *pending)
{
	struct json_object *r, *content, *blk;

	json_object_object_foreach(pending, id, name) {
		r = json_object_new_object();
		jsonx_set_str(r, "role", "toolResult");
		jsonx_set_str(r, "toolCallId", id);
		jsonx_set(r, "toolName", jsonx_ref(name));
		content = json_object_new_array();
		blk = json_object_new_object();
		jsonx_set_str(blk, "type", "text");
		jsonx_set_str(blk, "text", "No result provided");
		json_object_array_add(content, blk);
		jsonx_set(r, "content", content);
		jsonx_set_bool(r, "isError", 1);
		json_object_array_add(out, r);
	}
}

struct json_object *
context_prepare(const struct context *c, const char *provider,
    const char *api, const char *model, size_t id_max)
{
	struct json_object *out = json_object_new_array();
	struct json_object *idmap = json_object_new_object();
	struct json_object *pending = json_object_new_object();
	struct json_object *m, *pm, *content, *b;
	const char *role, *stop, *id, *mapped;
	size_t i, j, n = json_object_array_length(c->messages);

	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(c->messages, i);
		role = jsonx_str(m, "role");
		if (strcmp(role, "toolResult") == 0) {
			id = jsonx_str(m, "toolCallId");
			mapped = jsonx_str(idmap, id);
			if (mapped != NULL)
				id = mapped;
			if (!has_id(pending, id))
				continue;	/* answers no call we kept */
			json_object_object_del(pending, id);
			pm = jsonx_copy(m);
			jsonx_set_str(pm, "toolCallId", id);
			json_object_array_add(out, pm);
			continue;
		}
		/* A user or assistant message closes the calls before it. */
		synth_results(out, pending);
		json_object_put(pending);
		pending = json_object_new_object();
		if (strcmp(role, "user") == 0) {
			json_object_array_add(out, jsonx_ref(m));
			continue;
		}
		stop = jsonx_str(m, "stopReason");
		if (stop != NULL && (strcmp(stop, "error") == 0 ||
		    strcmp(stop, "aborted") == 0))
			continue;
		pm = prepare_assistant(m, same_model(m, provider, api, model),
		    id_max, idmap);
		content = jsonx_arr(pm, "content");
		for (j = 0; j < json_object_array_length(content); j++) {
			b = json_object_array_get_idx(content, j);
			if (jsonx_str(b, "type") && strcmp(jsonx_str(b, "type"),
			    "toolCall") == 0 && jsonx_str(b, "id"))
				jsonx_set_str(pending, jsonx_str(b, "id"),
				    jsonx_str(b, "name") ? jsonx_str(b, "name") :
				    "");
		}
		json_object_array_add(out, pm);
	}
	synth_results(out, pending);
	json_object_put(pending);
	json_object_put(idmap);
	return out;
}
