/* reply: see reply.h. */
#include "reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

void
reply_init(struct reply *r, const char *provider, const char *api,
    const char *model, reply_emit_fn *emit, void *arg)
{
	memset(r, 0, sizeof(*r));
	r->provider = xstrdup(provider);
	r->api = xstrdup(api);
	r->model = xstrdup(model);
	r->emit = emit;
	r->arg = arg;
	r->stop = STOP_END_TURN;
	pi_uuid7(r->message_id);
	r->timestamp = event_clock_ms();
}

static void
block_release(struct reply_block *b)
{
	buf_release(&b->text);
	buf_release(&b->sig);
	free(b->id);
	free(b->name);
	json_object_put(b->args);
}

void
reply_reset(struct reply *r)
{
	size_t i;

	for (i = 0; i < r->nblocks; i++)
		block_release(&r->blocks[i]);
	r->nblocks = 0;
	r->text_chars = 0;
	memset(&r->usage, 0, sizeof(r->usage));
	r->stop = STOP_END_TURN;
}

void
reply_release(struct reply *r)
{
	reply_reset(r);
	free(r->blocks);
	free(r->provider);
	free(r->api);
	free(r->model);
	memset(r, 0, sizeof(*r));
}

static int
emit(struct reply *r, struct json_object *ev, struct pi_error *e)
{
	int rc = r->emit(r->arg, ev);

	json_object_put(ev);
	if (rc == -1)
		return pi_err(e, PI_EXIT_PIPE, "output_closed",
		    "the reader of stdout went away");
	r->lines++;
	return 0;
}

static struct json_object *
event_for(struct reply *r, const char *type)
{
	struct json_object *ev = event_new(type);

	jsonx_set_str(ev, "messageId", r->message_id);
	return ev;
}

int
reply_start(struct reply *r, struct pi_error *e)
{
	struct json_object *ev, *u;

	if (r->started)
		return 0;
	r->started = 1;
	ev = event_for(r, "message_start");
	jsonx_set_str(ev, "role", "assistant");
	jsonx_set_str(ev, "provider", r->provider);
	jsonx_set_str(ev, "api", r->api);
	jsonx_set_str(ev, "model", r->model);
	u = json_object_new_object();
	jsonx_set_int(u, "inputTokens", r->usage.input || r->usage.cache_read ?
	    r->usage.input + r->usage.cache_read + r->usage.cache_write :
	    r->input_estimate);
	jsonx_set(ev, "usage", u);
	return emit(r, ev, e);
}

struct reply_block *
reply_find(struct reply *r, int key)
{
	size_t i;

	for (i = r->nblocks; i-- > 0;)
		if (r->blocks[i].key == key)
			return &r->blocks[i];
	return NULL;
}

int
reply_has_tools(const struct reply *r)
{
	size_t i;

	for (i = 0; i < r->nblocks; i++)
		if (r->blocks[i].kind == BLOCK_TOOL)
			return 1;
	return 0;
}

static struct reply_block *
block_new(struct reply *r, enum block_kind kind, int key)
{
	struct reply_block *b;

	if (r->nblocks == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->blocks = xrealloc(r->blocks, r->cap * sizeof(*r->blocks));
	}
	b = &r->blocks[r->nblocks++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->key = key;
	b->open = 1;
	buf_init(&b->text, PI_MAX_TEXT);
	buf_init(&b->sig, PI_MAX_TEXT);
	return b;
}

/* The open block for key, made if missing; NULL if key is another kind. */
static struct reply_block *
block_get(struct reply *r, int key, enum block_kind kind)
{
	struct reply_block *b = reply_find(r, key);

	if (b != NULL && b->open && b->kind == kind)
		return b;
	if (b != NULL && b->open)
		return NULL;
	return block_new(r, kind, key);
}

static int
too_long(struct pi_error *e)
{
	return pi_err(e, PI_EXIT_TEMP, "bad_response",
	    "a content block is longer than %u bytes", PI_MAX_TEXT);
}

static int
delta(struct reply *r, int key, enum block_kind kind, const char *s, size_t n,
    struct pi_error *e)
{
	struct reply_block *b;
	struct json_object *ev;
	size_t before;

	if (n == 0)
		return 0;
	if (reply_start(r, e) == -1)
		return -1;
	if ((b = block_get(r, key, kind)) == NULL)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "content block %d changed its type mid-stream", key);
	before = b->text.len;
	if (utf8_sanitize(&b->text, s, n) == -1)
		return too_long(e);
	ev = event_for(r, kind == BLOCK_TEXT ? "text_delta" : "thinking_delta");
	jsonx_set(ev, "delta", json_object_new_string_len(b->text.data + before,
	    (int)(b->text.len - before)));
	jsonx_set_int(ev, "contentIndex", (int64_t)(b - r->blocks));
	if (kind == BLOCK_TEXT) {
		jsonx_set_int(ev, "index", (int64_t)r->text_chars);
		r->text_chars += utf8_count(b->text.data + before,
		    b->text.len - before);
	}
	return emit(r, ev, e);
}

int
reply_text(struct reply *r, int key, const char *s, size_t n,
    struct pi_error *e)
{
	return delta(r, key, BLOCK_TEXT, s, n, e);
}

int
reply_thinking(struct reply *r, int key, const char *s, size_t n,
    struct pi_error *e)
{
	return delta(r, key, BLOCK_THINKING, s, n, e);
}

int
reply_signature(struct reply *r, int key, enum block_kind kind,
    const char *s, size_t n, struct pi_error *e)
{
	struct reply_block *b;

	if (reply_start(r, e) == -1)
		return -1;
	if ((b = reply_find(r, key)) == NULL || b->kind != kind)
		b = block_new(r, kind, key);
	/* Signatures are opaque: kept byte for byte, never re-encoded. */
	if (buf_add(&b->sig, s, n) == -1)
		return too_long(e);
	return 0;
}

int
reply_redacted(struct reply *r, int key, const char *data,
    struct pi_error *e)
{
	struct reply_block *b;

	if (reply_start(r, e) == -1)
		return -1;
	b = block_new(r, BLOCK_THINKING, key);
	b->redacted = 1;
	if (buf_adds(&b->text, "[Reasoning redacted]") == -1 ||
	    buf_adds(&b->sig, data) == -1)
		return too_long(e);
	return 0;
}

int
reply_tool_begin(struct reply *r, int key, const char *id, const char *name,
    struct pi_error *e)
{
	struct reply_block *b;
	struct json_object *ev;
	char uuid[37];

	if (reply_start(r, e) == -1)
		return -1;
	b = block_new(r, BLOCK_TOOL, key);
	if (id == NULL || *id == '\0') {
		pi_uuid7(uuid);
		b->id = xasprintf("call_%.8s%.4s", uuid + 24, uuid + 9);
	} else
		b->id = xstrdup(id);
	b->name = xstrdup(name ? name : "");
	ev = event_for(r, "toolcall_start");
	jsonx_set_str(ev, "toolCallId", b->id);
	jsonx_set_str(ev, "toolName", b->name);
	jsonx_set_int(ev, "contentIndex", (int64_t)(b - r->blocks));
	return emit(r, ev, e);
}

int
reply_tool_args(struct reply *r, int key, const char *s, size_t n,
    struct pi_error *e)
{
	struct reply_block *b = reply_find(r, key);
	struct json_object *ev;

	if (b == NULL || b->kind != BLOCK_TOOL || !b->open)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "tool arguments for a call that has not started");
	if (n == 0)
		return 0;
	if (buf_add(&b->text, s, n) == -1)
		return too_long(e);
	ev = event_for(r, "toolcall_delta");
	jsonx_set_str(ev, "toolCallId", b->id);
	jsonx_set(ev, "delta", jsonx_new_str(s, n));
	return emit(r, ev, e);
}

/* Parse the arguments of a finished call; {} when there were none. */
static int
tool_finish(struct reply *r, struct reply_block *b, struct pi_error *e)
{
	struct json_object *ev;
	struct pi_error perr;
	const char *p = b->text.data;
	size_t n = b->text.len;

	while (n > 0 && strchr(" \t\r\n", *p))
		p++, n--;
	if (b->args == NULL && n == 0)
		b->args = json_object_new_object();
	else if (b->args == NULL)
		b->args = jsonx_parse(p, n, &perr);
	ev = event_for(r, "toolcall_end");
	jsonx_set_str(ev, "toolCallId", b->id);
	jsonx_set_str(ev, "toolName", b->name);
	if (!jsonx_is(b->args, json_type_object)) {
		/*
		 * The model wrote arguments that are not a JSON object.  The
		 * call is kept (the model must see its mistake in the tool
		 * result), with {} as input and the raw text beside it.
		 */
		json_object_put(b->args);
		b->args = json_object_new_object();
		jsonx_set(ev, "input", json_object_new_object());
		jsonx_set(ev, "invalidArguments",
		    jsonx_new_str(b->text.data, b->text.len));
	} else
		jsonx_set(ev, "input", jsonx_ref(b->args));
	return emit(r, ev, e);
}

static int
block_end(struct reply *r, struct reply_block *b, struct pi_error *e)
{
	if (!b->open)
		return 0;
	b->open = 0;
	if (b->kind == BLOCK_TOOL)
		return tool_finish(r, b, e);
	return 0;
}

int
reply_block_end(struct reply *r, int key, struct pi_error *e)
{
	struct reply_block *b = reply_find(r, key);

	return b == NULL ? 0 : block_end(r, b, e);
}

int
reply_tool_whole(struct reply *r, int key, const char *id, const char *name,
    struct json_object *args, struct pi_error *e)
{
	struct reply_block *b;
	const char *s;
	size_t n;

	if (reply_tool_begin(r, key, id, name, e) == -1)
		return -1;
	if (jsonx_is(args, json_type_object)) {
		s = jsonx_string(args, &n);
		if (reply_tool_args(r, key, s, n, e) == -1)
			return -1;
		b = reply_find(r, key);
		b->args = jsonx_ref(args);
	}
	return reply_block_end(r, key, e);
}

void
reply_set_usage(struct reply *r, const struct usage *u)
{
	r->usage = *u;
}

void
reply_set_stop(struct reply *r, enum stop_reason s)
{
	r->stop = s;
}

static int64_t
usage_total(const struct usage *u)
{
	if (u->total > 0)
		return u->total;
	return u->input + u->output + u->cache_read + u->cache_write;
}

/* Dollars to 12 significant digits: no 0.00013000000000000002. */
static struct json_object *
money(double d)
{
	char s[32];

	snprintf(s, sizeof(s), "%.12g", d);
	return json_object_new_double_s(strtod(s, NULL), s);
}

struct json_object *
usage_message_json(const struct usage *u, const struct price *p)
{
	struct json_object *o = json_object_new_object(), *c;
	double ci, co, cr, cw;

	jsonx_set_int(o, "input", u->input);
	jsonx_set_int(o, "output", u->output);
	jsonx_set_int(o, "cacheRead", u->cache_read);
	jsonx_set_int(o, "cacheWrite", u->cache_write);
	jsonx_set_int(o, "totalTokens", usage_total(u));
	if (p != NULL && p->known) {
		ci = p->input * (double)u->input / 1e6;
		co = p->output * (double)u->output / 1e6;
		cr = p->cache_read * (double)u->cache_read / 1e6;
		cw = p->cache_write * (double)u->cache_write / 1e6;
		c = json_object_new_object();
		jsonx_set(c, "input", money(ci));
		jsonx_set(c, "output", money(co));
		jsonx_set(c, "cacheRead", money(cr));
		jsonx_set(c, "cacheWrite", money(cw));
		jsonx_set(c, "total", money(ci + co + cr + cw));
		jsonx_set(o, "cost", c);
	}
	return o;
}

static struct json_object *
usage_event_json(const struct usage *u, struct json_object *msgusage)
{
	struct json_object *o = json_object_new_object(), *cost;

	jsonx_set_int(o, "inputTokens", u->input + u->cache_read +
	    u->cache_write);
	jsonx_set_int(o, "outputTokens", u->output);
	if (u->reasoning > 0)
		jsonx_set_int(o, "thinkingTokens", u->reasoning);
	if (u->cache_read > 0)
		jsonx_set_int(o, "cacheReadTokens", u->cache_read);
	if (u->cache_write > 0)
		jsonx_set_int(o, "cacheWriteTokens", u->cache_write);
	jsonx_set_int(o, "totalTokens", usage_total(u));
	if ((cost = jsonx_get(msgusage, "cost")) != NULL)
		jsonx_set(o, "cost", jsonx_ref(jsonx_get(cost, "total")));
	return o;
}

static struct json_object *
block_json(const struct reply_block *b)
{
	struct json_object *o = json_object_new_object();

	switch (b->kind) {
	case BLOCK_TEXT:
		jsonx_set_str(o, "type", "text");
		jsonx_set(o, "text", json_object_new_string_len(b->text.data,
		    (int)b->text.len));
		if (b->sig.len)
			jsonx_set(o, "textSignature", json_object_new_string_len(
			    b->sig.data, (int)b->sig.len));
		break;
	case BLOCK_THINKING:
		jsonx_set_str(o, "type", "thinking");
		jsonx_set(o, "thinking", json_object_new_string_len(
		    b->text.data, (int)b->text.len));
		if (b->sig.len)
			jsonx_set(o, "thinkingSignature",
			    jsonx_new_str(b->sig.data, b->sig.len));
		if (b->redacted)
			jsonx_set_bool(o, "redacted", 1);
		break;
	case BLOCK_TOOL:
		jsonx_set_str(o, "type", "toolCall");
		jsonx_set_str(o, "id", b->id);
		jsonx_set_str(o, "name", b->name);
		jsonx_set(o, "arguments", b->args ? jsonx_ref(b->args) :
		    json_object_new_object());
		if (b->sig.len)
			jsonx_set(o, "thoughtSignature",
			    jsonx_new_str(b->sig.data, b->sig.len));
		break;
	}
	return o;
}

struct json_object *
reply_message(struct reply *r, const char *error)
{
	struct json_object *m = json_object_new_object(), *content;
	size_t i;

	content = json_object_new_array();
	for (i = 0; i < r->nblocks; i++) {
		/* A tool call cut off mid-stream is not a call. */
		if (r->blocks[i].kind == BLOCK_TOOL && r->blocks[i].open)
			continue;
		json_object_array_add(content, block_json(&r->blocks[i]));
	}
	jsonx_set_str(m, "role", "assistant");
	jsonx_set(m, "content", content);
	jsonx_set_str(m, "api", r->api);
	jsonx_set_str(m, "provider", r->provider);
	jsonx_set_str(m, "model", r->model);
	jsonx_set(m, "usage", usage_message_json(&r->usage, &r->price));
	jsonx_set_str(m, "stopReason", stop_message_name(r->stop));
	jsonx_set_int(m, "timestamp", r->timestamp);
	if (error != NULL)
		jsonx_set_str(m, "errorMessage", error);
	return m;
}

static int
write_end(struct reply *r, const char *error, struct pi_error *e)
{
	struct json_object *ev, *msg;

	if (reply_start(r, e) == -1)
		return -1;
	r->ended = 1;
	msg = reply_message(r, error);
	ev = event_for(r, "message_end");
	jsonx_set_str(ev, "stopReason", stop_event_name(r->stop));
	jsonx_set(ev, "usage", usage_event_json(&r->usage,
	    jsonx_get(msg, "usage")));
	if (r->context_window > 0)
		jsonx_set_int(ev, "contextWindow", r->context_window);
	if (error != NULL)
		jsonx_set_str(ev, "errorMessage", error);
	jsonx_set(ev, "message", msg);
	return emit(r, ev, e);
}

int
reply_end(struct reply *r, struct pi_error *e)
{
	size_t i;

	if (r->ended)
		return 0;
	if (reply_start(r, e) == -1)
		return -1;
	for (i = 0; i < r->nblocks; i++)
		if (block_end(r, &r->blocks[i], e) == -1)
			return -1;
	/* Some APIs say "stop" on a tool turn; the calls say otherwise. */
	if (reply_has_tools(r) && r->stop == STOP_END_TURN)
		r->stop = STOP_TOOL_USE;
	return write_end(r, NULL, e);
}

int
reply_fail(struct reply *r, enum stop_reason s, const char *why,
    struct pi_error *e)
{
	if (r->ended || (s == STOP_ERROR && !r->started))
		return 0;
	r->stop = s;
	return write_end(r, why, e);
}
