/*
 * provider_anthropic: Anthropic Messages.  The system prompt goes as
 * blocks, tool arguments as objects, and all results of one assistant
 * turn as tool_result blocks at the head of the next user message.
 * Thinking blocks come back with their signatures byte for byte, since
 * the server checks them.  Usage in message_delta is a running total:
 * it overwrites, never adds.
 */
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "provider.h"
#include "reply.h"
#include "schema.h"
#include "sse.h"
#include "core/context.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define ANTHROPIC_VERSION "2023-06-01"
#define DEFAULT_MAX_TOKENS 8192

static struct json_object *
text_block(const char *text)
{
	struct json_object *b = json_object_new_object();

	jsonx_set_str(b, "type", "text");
	jsonx_set_str(b, "text", text);
	return b;
}

static struct json_object *
image_block(struct json_object *img)
{
	struct json_object *b = json_object_new_object(), *src;

	src = json_object_new_object();
	jsonx_set_str(src, "type", "base64");
	jsonx_set_str(src, "media_type", jsonx_str(img, "mimeType") ?
	    jsonx_str(img, "mimeType") : "image/png");
	jsonx_set_str(src, "data", jsonx_str(img, "data") ?
	    jsonx_str(img, "data") : "");
	jsonx_set_str(b, "type", "image");
	jsonx_set(b, "source", src);
	return b;
}

/* User content as blocks; empty text is refused by the API, so dropped. */
static void
user_blocks(struct json_object *out, struct json_object *content)
{
	struct json_object *b;
	const char *type, *t;
	size_t i, n;

	if (jsonx_is(content, json_type_string)) {
		if (*json_object_get_string(content))
			json_object_array_add(out, text_block(
			    json_object_get_string(content)));
		return;
	}
	n = json_object_array_length(content);
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		type = jsonx_str(b, "type");
		if (strcmp(type, "text") == 0 &&
		    (t = jsonx_str(b, "text")) != NULL && *t)
			json_object_array_add(out, text_block(t));
		else if (strcmp(type, "image") == 0)
			json_object_array_add(out, image_block(b));
	}
}

static struct json_object *
assistant_blocks(struct json_object *m)
{
	struct json_object *out = json_object_new_array(), *content, *b, *o;
	const char *type, *t, *sig;
	size_t i, n;

	content = jsonx_arr(m, "content");
	n = content ? json_object_array_length(content) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		type = jsonx_str(b, "type");
		t = jsonx_str(b, "text");
		if (strcmp(type, "text") == 0 && t != NULL && *t) {
			json_object_array_add(out, text_block(t));
		} else if (strcmp(type, "thinking") == 0) {
			t = jsonx_str(b, "thinking");
			sig = jsonx_str(b, "thinkingSignature");
			o = json_object_new_object();
			if (jsonx_bool(b, "redacted", 0) && sig != NULL) {
				jsonx_set_str(o, "type", "redacted_thinking");
				jsonx_set_str(o, "data", sig);
			} else if (sig != NULL && *sig) {
				jsonx_set_str(o, "type", "thinking");
				jsonx_set_str(o, "thinking", t ? t : "");
				jsonx_set_str(o, "signature", sig);
			} else if (t != NULL && *t) {
				/* Unsigned thinking would be refused. */
				json_object_put(o);
				o = text_block(t);
			} else {
				json_object_put(o);
				continue;
			}
			json_object_array_add(out, o);
		} else if (strcmp(type, "toolCall") == 0) {
			o = json_object_new_object();
			jsonx_set_str(o, "type", "tool_use");
			jsonx_set(o, "id", jsonx_ref(jsonx_get(b, "id")));
			jsonx_set(o, "name", jsonx_ref(jsonx_get(b, "name")));
			jsonx_set(o, "input", jsonx_obj(b, "arguments") ?
			    jsonx_ref(jsonx_obj(b, "arguments")) :
			    json_object_new_object());
			json_object_array_add(out, o);
		}
	}
	return out;
}

static struct json_object *
tool_result(struct json_object *m)
{
	struct json_object *o = json_object_new_object(), *content, *blocks;
	size_t i, n;
	int images = 0;
	char *text;

	content = jsonx_get(m, "content");
	n = jsonx_is(content, json_type_array) ?
	    json_object_array_length(content) : 0;
	for (i = 0; i < n; i++)
		if (strcmp(jsonx_str(json_object_array_get_idx(content, i),
		    "type"), "image") == 0)
			images = 1;
	jsonx_set_str(o, "type", "tool_result");
	jsonx_set(o, "tool_use_id", jsonx_ref(jsonx_get(m, "toolCallId")));
	if (images) {
		blocks = json_object_new_array();
		user_blocks(blocks, content);
		jsonx_set(o, "content", blocks);
	} else {
		text = content_text(content, "\n");
		jsonx_set_str(o, "content", text);
		free(text);
	}
	if (jsonx_bool(m, "isError", 0))
		jsonx_set_bool(o, "is_error", 1);
	return o;
}

static struct json_object *
message(const char *role, struct json_object *blocks)
{
	struct json_object *m = json_object_new_object();

	jsonx_set_str(m, "role", role);
	jsonx_set(m, "content", blocks);
	return m;
}

static struct json_object *
messages(const struct llm_call *c)
{
	struct json_object *out = json_object_new_array(), *m, *blocks;
	struct json_object *results = NULL;	/* the open user message */
	const char *role;
	size_t i, n = json_object_array_length(c->messages);

	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(c->messages, i);
		role = jsonx_str(m, "role");
		if (strcmp(role, "toolResult") == 0) {
			/* Consecutive results share one user message. */
			if (results == NULL) {
				results = json_object_new_array();
				json_object_array_add(out, message("user",
				    results));
			}
			json_object_array_add(results, tool_result(m));
			continue;
		}
		if (strcmp(role, "user") == 0) {
			/* Text after results joins them, results first. */
			blocks = results ? results : json_object_new_array();
			user_blocks(blocks, jsonx_get(m, "content"));
			if (results == NULL) {
				if (json_object_array_length(blocks) > 0)
					json_object_array_add(out,
					    message("user", blocks));
				else
					json_object_put(blocks);
			}
			results = NULL;
			continue;
		}
		results = NULL;
		blocks = assistant_blocks(m);
		if (json_object_array_length(blocks) > 0)
			json_object_array_add(out, message("assistant", blocks));
		else
			json_object_put(blocks);
	}
	return out;
}

static struct json_object *
tools(struct json_object *defs)
{
	struct json_object *out = json_object_new_array();
	size_t i, n = json_object_array_length(defs);

	for (i = 0; i < n; i++)
		json_object_array_add(out, schema_tool(
		    json_object_array_get_idx(defs, i), "anthropic-messages",
		    "input_schema"));
	return out;
}

static int
starts_with_thinking(struct json_object *m)
{
	const char *t = jsonx_str(json_object_array_get_idx(
	    jsonx_arr(m, "content"), 0), "type");

	return t != NULL && (strcmp(t, "thinking") == 0 ||
	    strcmp(t, "redacted_thinking") == 0);
}

static int
is_prompt(struct json_object *m)
{
	struct json_object *content = jsonx_arr(m, "content");
	size_t i, n = json_object_array_length(content);

	for (i = 0; i < n; i++)
		if (strcmp(jsonx_str(json_object_array_get_idx(content, i),
		    "type"), "tool_result") != 0)
			return 1;
	return 0;
}

/*
 * With thinking on, the API wants every assistant message of the tool
 * loop under way (since the last prompt) to open with its thinking
 * block.  A history from another model, or from a call without -t, has
 * none to give, and the request would be refused: then thinking stays
 * off for this call.
 */
static int
thinking_possible(struct json_object *msgs)
{
	struct json_object *m;
	size_t i = json_object_array_length(msgs);
	const char *role;

	while (i-- > 0) {
		m = json_object_array_get_idx(msgs, i);
		role = jsonx_str(m, "role");
		if (strcmp(role, "user") == 0 && is_prompt(m))
			return 1;
		if (strcmp(role, "assistant") == 0 && !starts_with_thinking(m))
			return 0;
	}
	return 1;
}

static int
request(const struct llm_call *c, struct llm_request *q, struct pi_error *e)
{
	struct json_object *b = json_object_new_object(), *sys, *th, *msgs;
	long budget = thinking_budget(c->thinking), max = c->max_tokens;

	(void)e;
	q->url = xasprintf("%s/v1/messages", c->base_url);
	llm_request_header(q, "Content-Type: application/json");
	llm_request_header(q, "Accept: text/event-stream");
	llm_request_header(q, "anthropic-version: " ANTHROPIC_VERSION);
	if (c->api_key != NULL && *c->api_key)
		llm_request_header(q, "x-api-key: %s", c->api_key);
	if (max <= 0)
		max = DEFAULT_MAX_TOKENS + budget;
	/* A default past the model's own limit would be refused. */
	if (c->max_tokens <= 0 && c->model_max_tokens > 0 &&
	    max > c->model_max_tokens)
		max = c->model_max_tokens;
	/* The budget must stay under max_tokens, and be 1024 or more. */
	if (budget >= max)
		budget = max - 1024;
	if (budget < 1024)
		budget = 0;
	jsonx_set_str(b, "model", c->model);
	jsonx_set_int(b, "max_tokens", max);
	if (c->system != NULL && *c->system) {
		sys = json_object_new_array();
		json_object_array_add(sys, text_block(c->system));
		jsonx_set(b, "system", sys);
	}
	msgs = messages(c);
	jsonx_set(b, "messages", msgs);
	if (json_object_array_length(c->tools) > 0)
		jsonx_set(b, "tools", tools(c->tools));
	if (budget > 0 && thinking_possible(msgs)) {
		th = json_object_new_object();
		jsonx_set_str(th, "type", "enabled");
		jsonx_set_int(th, "budget_tokens", budget);
		jsonx_set(b, "thinking", th);
	}
	jsonx_set_bool(b, "stream", 1);
	q->body = b;
	return 0;
}

struct stream {
	struct sse_stream base;
	struct usage usage;
};

/* Fields present overwrite: message_delta repeats running totals. */
static void
usage(struct stream *s, struct json_object *u)
{
	struct json_object *v;

	if (u == NULL)
		return;
	if ((v = jsonx_get(u, "input_tokens")) && !jsonx_is(v, json_type_null))
		s->usage.input = json_object_get_int64(v);
	if ((v = jsonx_get(u, "output_tokens")) && !jsonx_is(v, json_type_null))
		s->usage.output = json_object_get_int64(v);
	if ((v = jsonx_get(u, "cache_read_input_tokens")) &&
	    !jsonx_is(v, json_type_null))
		s->usage.cache_read = json_object_get_int64(v);
	if ((v = jsonx_get(u, "cache_creation_input_tokens")) &&
	    !jsonx_is(v, json_type_null))
		s->usage.cache_write = json_object_get_int64(v);
	reply_set_usage(s->base.r, &s->usage);
}

static int
stop(struct stream *s, const char *why, struct pi_error *e)
{
	if (strcmp(why, "tool_use") == 0)
		reply_set_stop(s->base.r, STOP_TOOL_USE);
	else if (strcmp(why, "max_tokens") == 0 ||
	    strcmp(why, "model_context_window_exceeded") == 0)
		reply_set_stop(s->base.r, STOP_MAX_TOKENS);
	else if (strcmp(why, "stop_sequence") == 0)
		reply_set_stop(s->base.r, STOP_STOP_SEQUENCE);
	else if (strcmp(why, "refusal") == 0)
		return pi_err(e, PI_EXIT_REFUSED, "content_filter",
		    "the model refused to answer (stop_reason refusal)");
	return 0;
}

static int
block_start(struct stream *s, int idx, struct json_object *cb,
    struct pi_error *e)
{
	const char *type = jsonx_str(cb, "type"), *t;

	if (type == NULL)
		return 0;
	if (strcmp(type, "tool_use") == 0)
		return reply_tool_begin(s->base.r, idx, jsonx_str(cb, "id"),
		    jsonx_str(cb, "name"), e);
	if (strcmp(type, "redacted_thinking") == 0)
		return reply_redacted(s->base.r, idx, jsonx_str(cb, "data") ?
		    jsonx_str(cb, "data") : "", e);
	if (strcmp(type, "text") == 0 && (t = jsonx_str(cb, "text")) != NULL)
		return reply_text(s->base.r, idx, t, strlen(t), e);
	if (strcmp(type, "thinking") == 0 &&
	    (t = jsonx_str(cb, "thinking")) != NULL)
		return reply_thinking(s->base.r, idx, t, strlen(t), e);
	return 0;	/* server tools and the like: not ours to run */
}

static int
block_delta(struct stream *s, int idx, struct json_object *d,
    struct pi_error *e)
{
	const char *type = jsonx_str(d, "type"), *t;

	if (type == NULL)
		return 0;
	if (strcmp(type, "text_delta") == 0 && (t = jsonx_str(d, "text")))
		return reply_text(s->base.r, idx, t, strlen(t), e);
	if (strcmp(type, "thinking_delta") == 0 &&
	    (t = jsonx_str(d, "thinking")))
		return reply_thinking(s->base.r, idx, t, strlen(t), e);
	if (strcmp(type, "signature_delta") == 0 &&
	    (t = jsonx_str(d, "signature")))
		return reply_signature(s->base.r, idx, BLOCK_THINKING, t, strlen(t),
		    e);
	if (strcmp(type, "input_json_delta") == 0 &&
	    (t = jsonx_str(d, "partial_json")))
		return reply_tool_args(s->base.r, idx, t, strlen(t), e);
	return 0;
}

static int
dispatch(void *arg, struct json_object *o, struct pi_error *e)
{
	struct stream *s = arg;
	const char *type = jsonx_str(o, "type"), *why;
	struct json_object *err;
	int idx = (int)jsonx_int(o, "index", 0);

	if (type == NULL || strcmp(type, "ping") == 0)
		return 0;
	if (strcmp(type, "error") == 0) {
		err = jsonx_obj(o, "error");
		return llm_stream_error(jsonx_str(err, "type"),
		    jsonx_str(err, "message"), e);
	}
	if (strcmp(type, "message_start") == 0) {
		usage(s, jsonx_obj(jsonx_obj(o, "message"), "usage"));
		return reply_start(s->base.r, e);
	}
	if (strcmp(type, "content_block_start") == 0)
		return block_start(s, idx, jsonx_obj(o, "content_block"), e);
	if (strcmp(type, "content_block_delta") == 0)
		return block_delta(s, idx, jsonx_obj(o, "delta"), e);
	if (strcmp(type, "content_block_stop") == 0)
		return reply_block_end(s->base.r, idx, e);
	if (strcmp(type, "message_delta") == 0) {
		usage(s, jsonx_obj(o, "usage"));
		why = jsonx_str(jsonx_obj(o, "delta"), "stop_reason");
		return why ? stop(s, why, e) : 0;
	}
	if (strcmp(type, "message_stop") == 0) {
		s->base.done = 1;
		return reply_end(s->base.r, e);
	}
	return 0;
}

static void *
stream_new(struct reply *r)
{
	struct stream *s = sse_stream_new_json(sizeof(*s), r, dispatch,
	    "message_stop");

	return s;
}

const struct api api_anthropic_messages = {
	"anthropic-messages", 64, request, stream_new, sse_stream_push,
	sse_stream_end, sse_stream_free,
};
