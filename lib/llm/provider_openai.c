/*
 * provider_openai: OpenAI Chat Completions, and through it every
 * OpenAI-compatible server.  Translates only: our history into messages
 * (tool arguments as a JSON string, each result as a "tool" message
 * right after its call), their chunks into reply calls.  Tool-call
 * fragments are keyed by index (by id where a server leaves index out)
 * and parsed only once the stream is complete.
 */
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "provider.h"
#include "reply.h"
#include "schema.h"
#include "sse.h"
#include "core/buf.h"
#include "core/context.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

/* Reply keys: tool calls use their index; text and thinking these. */
#define KEY_TEXT	(-1000000)
#define KEY_THINK	(-2000000)

static const char *const reasoning_fields[] = {
	"reasoning_content", "reasoning", "reasoning_text",
};

static struct json_object *
user_content(struct json_object *content)
{
	struct json_object *parts, *b, *p, *url;
	const char *type;
	size_t i, n;
	char *s;

	if (jsonx_is(content, json_type_string))
		return jsonx_ref(content);
	parts = json_object_new_array();
	n = json_object_array_length(content);
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		type = jsonx_str(b, "type");
		p = json_object_new_object();
		if (strcmp(type, "image") == 0) {
			jsonx_set_str(p, "type", "image_url");
			url = json_object_new_object();
			s = xasprintf("data:%s;base64,%s",
			    jsonx_str(b, "mimeType") ? jsonx_str(b, "mimeType") :
			    "image/png", jsonx_str(b, "data") ?
			    jsonx_str(b, "data") : "");
			jsonx_set_str(url, "url", s);
			free(s);
			jsonx_set(p, "image_url", url);
		} else if (strcmp(type, "text") == 0) {
			jsonx_set_str(p, "type", "text");
			jsonx_set(p, "text", jsonx_ref(jsonx_get(b, "text")));
		} else {
			json_object_put(p);
			continue;
		}
		json_object_array_add(parts, p);
	}
	return parts;
}

static struct json_object *
assistant(struct json_object *m)
{
	struct json_object *out = json_object_new_object(), *calls, *c, *f;
	struct json_object *content = jsonx_arr(m, "content"), *b;
	struct buf text, think;
	const char *type, *field = NULL, *s;
	size_t i, n = content ? json_object_array_length(content) : 0;

	buf_init(&text, PI_MAX_TEXT);
	buf_init(&think, PI_MAX_TEXT);
	calls = json_object_new_array();
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		type = jsonx_str(b, "type");
		if (strcmp(type, "text") == 0 &&
		    (s = jsonx_str(b, "text")) != NULL)
			buf_adds(&text, s);
		else if (strcmp(type, "thinking") == 0 &&
		    (s = jsonx_str(b, "thinking")) != NULL) {
			/*
			 * Reasoning goes back in the field it came in (the
			 * signature names it): DeepSeek refuses a tool turn
			 * without its reasoning_content.
			 */
			if (field == NULL)
				field = jsonx_str(b, "thinkingSignature");
			if (think.len)
				buf_addc(&think, '\n');
			buf_adds(&think, s);
		} else if (strcmp(type, "toolCall") == 0) {
			c = json_object_new_object();
			jsonx_set(c, "id", jsonx_ref(jsonx_get(b, "id")));
			jsonx_set_str(c, "type", "function");
			f = json_object_new_object();
			jsonx_set(f, "name", jsonx_ref(jsonx_get(b, "name")));
			s = jsonx_obj(b, "arguments") ?
			    jsonx_string(jsonx_obj(b, "arguments"), NULL) : "{}";
			jsonx_set_str(f, "arguments", s);
			jsonx_set(c, "function", f);
			json_object_array_add(calls, c);
		}
	}
	jsonx_set_str(out, "role", "assistant");
	jsonx_set(out, "content", text.len ? json_object_new_string_len(
	    text.data, (int)text.len) : NULL);
	for (i = 0; field && i < sizeof(reasoning_fields) /
	    sizeof(*reasoning_fields); i++)
		if (strcmp(field, reasoning_fields[i]) == 0 && think.len)
			jsonx_set(out, field, json_object_new_string_len(
			    think.data, (int)think.len));
	if (json_object_array_length(calls) > 0)
		jsonx_set(out, "tool_calls", calls);
	else
		json_object_put(calls);
	if (text.len == 0 && jsonx_get(out, "tool_calls") == NULL) {
		json_object_put(out);
		out = NULL;	/* nothing to say: the API refuses it */
	}
	buf_release(&text);
	buf_release(&think);
	return out;
}

/*
 * A "tool" message holds only text, so images from a run of results go
 * after it in one user message.
 */
static void
flush_images(struct json_object *msgs, struct json_object **images)
{
	struct json_object *m;

	if (*images == NULL)
		return;
	m = json_object_new_object();
	jsonx_set_str(m, "role", "user");
	jsonx_set(m, "content", user_content(*images));
	json_object_array_add(msgs, m);
	json_object_put(*images);
	*images = NULL;
}

static struct json_object *
tool_result(struct json_object *m, struct json_object **images)
{
	struct json_object *out = json_object_new_object(), *content, *b, *t;
	size_t i, n;
	char *text;

	content = jsonx_get(m, "content");
	text = content_text(content, "\n");
	n = jsonx_is(content, json_type_array) ?
	    json_object_array_length(content) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		if (jsonx_str(b, "type") == NULL ||
		    strcmp(jsonx_str(b, "type"), "image") != 0)
			continue;
		if (*images == NULL) {
			*images = json_object_new_array();
			t = json_object_new_object();
			jsonx_set_str(t, "type", "text");
			jsonx_set_str(t, "text",
			    "Attached image(s) from tool result:");
			json_object_array_add(*images, t);
		}
		json_object_array_add(*images, jsonx_ref(b));
	}
	jsonx_set_str(out, "role", "tool");
	jsonx_set(out, "tool_call_id", jsonx_ref(jsonx_get(m, "toolCallId")));
	jsonx_set_str(out, "content", *text ? text : *images ?
	    "(see attached image)" : "");
	free(text);
	return out;
}

static struct json_object *
messages(const struct llm_call *c)
{
	struct json_object *msgs = json_object_new_array(), *m, *o, *images = NULL;
	const char *role;
	size_t i, n = json_object_array_length(c->messages);

	if (c->system != NULL) {
		o = json_object_new_object();
		jsonx_set_str(o, "role", c->compat.developer_role ?
		    "developer" : "system");
		jsonx_set_str(o, "content", c->system);
		json_object_array_add(msgs, o);
	}
	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(c->messages, i);
		role = jsonx_str(m, "role");
		if (strcmp(role, "toolResult") == 0) {
			json_object_array_add(msgs, tool_result(m, &images));
			continue;
		}
		flush_images(msgs, &images);
		if (strcmp(role, "user") == 0) {
			o = json_object_new_object();
			jsonx_set_str(o, "role", "user");
			jsonx_set(o, "content",
			    user_content(jsonx_get(m, "content")));
			if (jsonx_is(jsonx_get(o, "content"), json_type_array) &&
			    json_object_array_length(jsonx_get(o,
			    "content")) == 0)
				json_object_put(o);
			else
				json_object_array_add(msgs, o);
		} else if ((o = assistant(m)) != NULL)
			json_object_array_add(msgs, o);
	}
	flush_images(msgs, &images);
	return msgs;
}

static struct json_object *
tools(struct json_object *defs)
{
	struct json_object *out = json_object_new_array(), *t;
	size_t i, n = json_object_array_length(defs);

	for (i = 0; i < n; i++) {
		t = json_object_new_object();
		jsonx_set_str(t, "type", "function");
		jsonx_set(t, "function", schema_tool(
		    json_object_array_get_idx(defs, i), "openai-completions",
		    "parameters"));
		json_object_array_add(out, t);
	}
	return out;
}

static int
request(const struct llm_call *c, struct llm_request *q, struct pi_error *e)
{
	static const char *const effort[] = { NULL, "low", "medium", "high" };
	struct json_object *b = json_object_new_object(), *so;

	(void)e;
	q->url = xasprintf("%s/chat/completions", c->base_url);
	llm_request_header(q, "Content-Type: application/json");
	llm_request_header(q, "Accept: text/event-stream");
	if (c->api_key != NULL && *c->api_key)
		llm_request_header(q, "Authorization: Bearer %s", c->api_key);
	jsonx_set_str(b, "model", c->model);
	jsonx_set(b, "messages", messages(c));
	jsonx_set_bool(b, "stream", 1);
	if (!c->compat.no_stream_usage) {
		so = json_object_new_object();
		jsonx_set_bool(so, "include_usage", 1);
		jsonx_set(b, "stream_options", so);
	}
	/* Never an empty list: OpenAI refuses "tools":[]. */
	if (json_object_array_length(c->tools) > 0)
		jsonx_set(b, "tools", tools(c->tools));
	if (c->max_tokens > 0)
		jsonx_set_int(b, c->compat.max_tokens_field ? "max_tokens" :
		    "max_completion_tokens", c->max_tokens);
	if (c->compat.thinking_format && c->thinking != THINK_OFF)
		jsonx_set_bool(b, "enable_thinking", c->thinking > THINK_NONE);
	else if (c->thinking > THINK_NONE && !c->compat.no_reasoning_effort)
		jsonx_set_str(b, "reasoning_effort", effort[c->thinking]);
	q->body = b;
	return 0;
}

struct stream {
	struct sse_stream base;
	int content_filter;
	int text_key, think_key;
	int last_kind;		/* -1, BLOCK_TEXT or BLOCK_THINKING */
	int last_tool;		/* key of the newest tool call, -1 none */
};

static void
usage(struct stream *s, struct json_object *u)
{
	struct usage x;
	int64_t prompt = jsonx_int(u, "prompt_tokens", 0);
	int64_t cached = jsonx_int(jsonx_obj(u, "prompt_tokens_details"),
	    "cached_tokens", 0);

	memset(&x, 0, sizeof(x));
	/* prompt_tokens includes the cached part; pi counts them apart. */
	x.input = prompt - cached;
	x.cache_read = cached;
	x.output = jsonx_int(u, "completion_tokens", 0);
	x.reasoning = jsonx_int(jsonx_obj(u, "completion_tokens_details"),
	    "reasoning_tokens", 0);
	reply_set_usage(s->base.r, &x);
}

/* Text and thinking alternate in one sequence of blocks. */
static int
prose(struct stream *s, int kind, const char *p, const char *field,
    struct pi_error *e)
{
	int key;

	if (s->last_kind != kind) {
		if (s->last_kind == BLOCK_TEXT)
			reply_block_end(s->base.r, s->text_key, e);
		if (s->last_kind == BLOCK_THINKING)
			reply_block_end(s->base.r, s->think_key, e);
		if (kind == BLOCK_TEXT)
			s->text_key--;
		else
			s->think_key--;
		s->last_kind = kind;
		if (kind == BLOCK_THINKING &&
		    reply_signature(s->base.r, s->think_key, BLOCK_THINKING, field,
		    strlen(field), e) == -1)
			return -1;
	}
	key = kind == BLOCK_TEXT ? s->text_key : s->think_key;
	return kind == BLOCK_TEXT ? reply_text(s->base.r, key, p, strlen(p), e) :
	    reply_thinking(s->base.r, key, p, strlen(p), e);
}

static int
tool_delta(struct stream *s, struct json_object *tc, struct pi_error *e)
{
	struct json_object *f = jsonx_obj(tc, "function");
	const char *id = jsonx_str(tc, "id"), *name = jsonx_str(f, "name");
	const char *args = jsonx_str(f, "arguments");
	struct reply_block *b;
	int key = (int)jsonx_int(tc, "index", -1);
	size_t i;

	if (key < 0) {
		/* No index: find the call by id, else it is the newest. */
		key = s->last_tool;
		for (i = 0; id && i < s->base.r->nblocks; i++)
			if (s->base.r->blocks[i].kind == BLOCK_TOOL &&
			    strcmp(s->base.r->blocks[i].id, id) == 0)
				key = s->base.r->blocks[i].key;
		if (key < 0 || (id && *id && reply_find(s->base.r, key) &&
		    strcmp(reply_find(s->base.r, key)->id, id) != 0))
			key = s->last_tool + 1;
	}
	b = reply_find(s->base.r, key);
	if (b != NULL && b->open && id && *id && strcmp(b->id, id) != 0) {
		/* A server that reuses an index for a new call. */
		if (reply_block_end(s->base.r, key, e) == -1)
			return -1;
		b = NULL;
	}
	if (b == NULL || !b->open) {
		if (reply_tool_begin(s->base.r, key, id, name, e) == -1)
			return -1;
		if (key > s->last_tool)
			s->last_tool = key;
	}
	if (args != NULL && *args)
		return reply_tool_args(s->base.r, key, args, strlen(args), e);
	return 0;
}

static enum stop_reason
finish(const char *why, int *filtered)
{
	if (strcmp(why, "length") == 0)
		return STOP_MAX_TOKENS;
	if (strcmp(why, "tool_calls") == 0 || strcmp(why, "function_call") == 0)
		return STOP_TOOL_USE;
	if (strcmp(why, "content_filter") == 0)
		*filtered = 1;
	return STOP_END_TURN;
}

static int
choice(struct stream *s, struct json_object *ch, struct pi_error *e)
{
	struct json_object *d = jsonx_obj(ch, "delta"), *calls;
	const char *p, *why;
	size_t i, n;

	for (i = 0; i < sizeof(reasoning_fields) / sizeof(*reasoning_fields);
	    i++)
		if ((p = jsonx_str(d, reasoning_fields[i])) != NULL && *p) {
			/* The first non-empty field only: some send two. */
			if (prose(s, BLOCK_THINKING, p, reasoning_fields[i],
			    e) == -1)
				return -1;
			break;
		}
	if ((p = jsonx_str(d, "content")) != NULL && *p &&
	    prose(s, BLOCK_TEXT, p, NULL, e) == -1)
		return -1;
	if ((calls = jsonx_arr(d, "tool_calls")) != NULL) {
		n = json_object_array_length(calls);
		for (i = 0; i < n; i++)
			if (tool_delta(s, json_object_array_get_idx(calls, i),
			    e) == -1)
				return -1;
	}
	if ((why = jsonx_str(ch, "finish_reason")) != NULL)
		reply_set_stop(s->base.r, finish(why, &s->content_filter));
	return 0;
}

static int
on_event(void *arg, const char *event, const char *data, size_t len,
    struct pi_error *e)
{
	struct stream *s = arg;
	struct json_object *o, *choices, *err, *u;
	int rc = 0;

	(void)event;
	if (s->base.done)
		return 0;
	while (len > 0 && (*data == ' ' || *data == '\t'))
		data++, len--;
	if (len >= 6 && memcmp(data, "[DONE]", 6) == 0) {
		s->base.done = 1;
		if (s->content_filter)
			return pi_err(e, PI_EXIT_REFUSED, "content_filter",
			    "the provider's content filter stopped the reply");
		return reply_end(s->base.r, e);
	}
	if ((o = jsonx_parse(data, len, e)) == NULL)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "a stream chunk is not JSON: %s", e->msg);
	if ((err = jsonx_get(o, "error")) != NULL && !jsonx_is(err,
	    json_type_null)) {
		rc = llm_stream_error(jsonx_str(err, "type") ? jsonx_str(err,
		    "type") : jsonx_str(err, "code"), jsonx_is(err,
		    json_type_string) ? json_object_get_string(err) :
		    jsonx_str(err, "message"), e);
		json_object_put(o);
		return rc;
	}
	if (reply_start(s->base.r, e) == -1) {
		json_object_put(o);
		return -1;
	}
	choices = jsonx_arr(o, "choices");
	if (choices && json_object_array_length(choices) > 0) {
		rc = choice(s, json_object_array_get_idx(choices, 0), e);
		u = jsonx_obj(json_object_array_get_idx(choices, 0), "usage");
		if (u != NULL)
			usage(s, u);	/* Moonshot puts it here */
	}
	if ((u = jsonx_obj(o, "usage")) != NULL)
		usage(s, u);
	json_object_put(o);
	return rc;
}

static void *
stream_new(struct reply *r)
{
	struct stream *s = sse_stream_new(sizeof(*s), r, on_event,
	    "[DONE]");

	s->text_key = KEY_TEXT;
	s->think_key = KEY_THINK;
	s->last_kind = -1;
	s->last_tool = -1;
	return s;
}

const struct api api_openai_completions = {
	"openai-completions", 40, request, stream_new, sse_stream_push,
	sse_stream_end, sse_stream_free,
};
