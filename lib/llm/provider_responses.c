/*
 * provider_responses: the OpenAI Responses API.  The history goes as
 * input items: messages, function_call items with their arguments as a
 * JSON string, function_call_output items matched by call_id (never by
 * the fc_ item id), and reasoning items replayed whole from the thinking
 * block's signature.  The stream is items keyed by output_index, each
 * ended by output_item.done; response.completed, .incomplete and .failed
 * are the terminal events.  Nothing is stored server-side (store:false),
 * so each request carries the whole conversation.
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

#define ITEM_ID_MAX 64

static int
is_type(struct json_object *o, const char *type)
{
	const char *t = jsonx_str(o, "type");

	return t != NULL && strcmp(t, type) == 0;
}

static struct json_object *
text_part(const char *type, const char *text)
{
	struct json_object *p = json_object_new_object();

	jsonx_set_str(p, "type", type);
	jsonx_set_str(p, "text", text);
	return p;
}

static struct json_object *
image_part(struct json_object *b)
{
	struct json_object *p = json_object_new_object();
	const char *mime = jsonx_str(b, "mimeType");
	const char *data = jsonx_str(b, "data");
	char *url;

	url = xasprintf("data:%s;base64,%s", mime ? mime : "image/png",
	    data ? data : "");
	jsonx_set_str(p, "type", "input_image");
	jsonx_set_str(p, "image_url", url);
	free(url);
	return p;
}

/* User content, or a tool result's, as input_text and input_image parts. */
static struct json_object *
input_parts(struct json_object *content)
{
	struct json_object *parts = json_object_new_array(), *b;
	const char *t;
	size_t i, n;

	if (jsonx_is(content, json_type_string)) {
		if (*json_object_get_string(content))
			json_object_array_add(parts, text_part("input_text",
			    json_object_get_string(content)));
		return parts;
	}
	n = jsonx_is(content, json_type_array) ?
	    json_object_array_length(content) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		if (is_type(b, "text") && (t = jsonx_str(b, "text")) && *t)
			json_object_array_add(parts, text_part("input_text",
			    t));
		else if (is_type(b, "image"))
			json_object_array_add(parts, image_part(b));
	}
	return parts;
}

/*
 * The reasoning item a thinking block carries, if it can be replayed:
 * with store:false the server knows nothing of it but what it holds, so
 * one without encrypted_content is no use (its id alone is a 404).
 */
static struct json_object *
reasoning_item(struct json_object *b)
{
	const char *sig = jsonx_str(b, "thinkingSignature");
	struct json_object *item;

	if (sig == NULL || *sig != '{' ||
	    (item = jsonx_parse(sig, strlen(sig), NULL)) == NULL)
		return NULL;
	if (!is_type(item, "reasoning") ||
	    jsonx_str(item, "encrypted_content") == NULL) {
		json_object_put(item);
		return NULL;
	}
	return item;
}

static int
good_id(const char *id, const char *prefix)
{
	return id != NULL && strncmp(id, prefix, strlen(prefix)) == 0 &&
	    strlen(id) <= ITEM_ID_MAX;
}

/*
 * Whether an assistant turn can go with its item ids.  The server pairs
 * a reasoning item with the id of the item after it, so a turn sends all
 * its ids or none (OpenAI's Codex sends none).  Function-call item ids
 * are not kept (toolCallId is the call_id), so a turn with calls goes
 * without ids, as does one whose reasoning cannot be replayed.
 */
static int
turn_has_ids(struct json_object *content)
{
	struct json_object *b, *item;
	const char *t;
	size_t i, n = json_object_array_length(content);
	int ok = 1;

	for (i = 0; ok && i < n; i++) {
		b = json_object_array_get_idx(content, i);
		if (is_type(b, "toolCall"))
			ok = 0;
		else if (is_type(b, "thinking")) {
			item = reasoning_item(b);
			ok = item != NULL &&
			    good_id(jsonx_str(item, "id"), "rs_");
			json_object_put(item);
		} else if (is_type(b, "text") && (t = jsonx_str(b, "text")) &&
		    *t)
			ok = good_id(jsonx_str(b, "textSignature"), "msg_");
	}
	return ok;
}

static struct json_object *
message_item(struct json_object *b, int ids)
{
	struct json_object *o = json_object_new_object(), *parts;

	parts = json_object_new_array();
	json_object_array_add(parts, text_part("output_text",
	    jsonx_str(b, "text")));
	jsonx_set_str(o, "type", "message");
	jsonx_set_str(o, "role", "assistant");
	jsonx_set(o, "content", parts);
	if (ids)
		jsonx_set_str(o, "id", jsonx_str(b, "textSignature"));
	return o;
}

static struct json_object *
call_item(struct json_object *b)
{
	struct json_object *o = json_object_new_object(), *args;

	args = jsonx_obj(b, "arguments");
	jsonx_set_str(o, "type", "function_call");
	jsonx_set(o, "call_id", jsonx_ref(jsonx_get(b, "id")));
	jsonx_set(o, "name", jsonx_ref(jsonx_get(b, "name")));
	jsonx_set_str(o, "arguments", args ? jsonx_string(args, NULL) : "{}");
	return o;
}

static void
assistant_items(struct json_object *input, struct json_object *m)
{
	struct json_object *content = jsonx_arr(m, "content"), *b, *item;
	const char *t;
	size_t i, n;
	int ids;

	if (content == NULL)
		return;
	ids = turn_has_ids(content);
	n = json_object_array_length(content);
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		if (is_type(b, "text") && (t = jsonx_str(b, "text")) && *t)
			json_object_array_add(input, message_item(b, ids));
		else if (is_type(b, "toolCall"))
			json_object_array_add(input, call_item(b));
		else if (is_type(b, "thinking") &&
		    (item = reasoning_item(b)) != NULL) {
			if (!ids)
				json_object_object_del(item, "id");
			json_object_array_add(input, item);
		}
		/* Thinking with no item to replay has nowhere to go. */
	}
}

/* The output is a string unless the tool gave images. */
static struct json_object *
output_item(struct json_object *m)
{
	struct json_object *o = json_object_new_object(), *content, *b;
	size_t i, n;
	int images = 0;
	char *text;

	content = jsonx_get(m, "content");
	n = jsonx_is(content, json_type_array) ?
	    json_object_array_length(content) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(content, i);
		images |= is_type(b, "image");
	}
	jsonx_set_str(o, "type", "function_call_output");
	jsonx_set(o, "call_id", jsonx_ref(jsonx_get(m, "toolCallId")));
	if (images)
		jsonx_set(o, "output", input_parts(content));
	else {
		text = content_text(content, "\n");
		jsonx_set_str(o, "output", text);
		free(text);
	}
	return o;
}

static struct json_object *
input(const struct llm_call *c)
{
	struct json_object *items = json_object_new_array(), *m, *o, *parts;
	const char *role;
	size_t i, n = json_object_array_length(c->messages);

	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(c->messages, i);
		role = jsonx_str(m, "role");
		if (strcmp(role, "toolResult") == 0)
			json_object_array_add(items, output_item(m));
		else if (strcmp(role, "assistant") == 0)
			assistant_items(items, m);
		else {
			parts = input_parts(jsonx_get(m, "content"));
			if (json_object_array_length(parts) == 0) {
				json_object_put(parts);
				continue;
			}
			o = json_object_new_object();
			jsonx_set_str(o, "role", "user");
			jsonx_set(o, "content", parts);
			json_object_array_add(items, o);
		}
	}
	return items;
}

/* Flat, unlike Chat Completions: that nested shape is a 400 here. */
static struct json_object *
tools(struct json_object *defs)
{
	struct json_object *out = json_object_new_array(), *t;
	size_t i, n = json_object_array_length(defs);

	for (i = 0; i < n; i++) {
		t = schema_tool(json_object_array_get_idx(defs, i),
		    "openai-responses", "parameters");
		jsonx_set_str(t, "type", "function");
		jsonx_set_bool(t, "strict", 0);
		json_object_array_add(out, t);
	}
	return out;
}

static int
request(const struct llm_call *c, struct llm_request *q, struct pi_error *e)
{
	static const char *const effort[] = { NULL, "low", "medium", "high" };
	struct json_object *b = json_object_new_object(), *r, *inc;

	(void)e;
	q->url = xasprintf("%s/responses", c->base_url);
	llm_request_header(q, "Content-Type: application/json");
	llm_request_header(q, "Accept: text/event-stream");
	if (c->api_key != NULL && *c->api_key)
		llm_request_header(q, "Authorization: Bearer %s", c->api_key);
	jsonx_set_str(b, "model", c->model);
	if (c->system != NULL && *c->system)
		jsonx_set_str(b, "instructions", c->system);
	jsonx_set(b, "input", input(c));
	if (json_object_array_length(c->tools) > 0)
		jsonx_set(b, "tools", tools(c->tools));
	if (c->max_tokens > 0)
		jsonx_set_int(b, "max_output_tokens", c->max_tokens);
	if (c->thinking > THINK_NONE) {
		r = json_object_new_object();
		jsonx_set_str(r, "effort", effort[c->thinking]);
		jsonx_set_str(r, "summary", "auto");
		jsonx_set(b, "reasoning", r);
		/* Without it the reasoning cannot be replayed statelessly. */
		inc = json_object_new_array();
		json_object_array_add(inc, json_object_new_string(
		    "reasoning.encrypted_content"));
		jsonx_set(b, "include", inc);
	}
	jsonx_set_bool(b, "store", 0);
	jsonx_set_bool(b, "stream", 1);
	q->body = b;
	return 0;
}

struct stream {
	struct sse_stream base;
	int64_t part;		/* the summary part being streamed */
};

/* input_tokens counts the cached part too; pi counts them apart. */
static void
usage(struct stream *s, struct json_object *u)
{
	struct usage x;
	int64_t cached;

	memset(&x, 0, sizeof(x));
	cached = jsonx_int(jsonx_obj(u, "input_tokens_details"),
	    "cached_tokens", 0);
	x.input = jsonx_int(u, "input_tokens", 0) - cached;
	x.cache_read = cached;
	x.output = jsonx_int(u, "output_tokens", 0);
	x.reasoning = jsonx_int(jsonx_obj(u, "output_tokens_details"),
	    "reasoning_tokens", 0);
	x.total = jsonx_int(u, "total_tokens", 0);
	reply_set_usage(s->base.r, &x);
}

/*
 * The summary parts of one reasoning item are paragraphs of one block.
 * Items come one after another, so a new part whose block has text
 * (a block exists once text came) is the next paragraph of that item.
 */
static int
summary_delta(struct stream *s, int idx, struct json_object *o,
    struct pi_error *e)
{
	int64_t part = jsonx_int(o, "summary_index", 0);
	const char *d = jsonx_str(o, "delta");
	struct reply_block *b = reply_find(s->base.r, idx);

	if (d == NULL)
		return 0;
	if (part != s->part && b != NULL &&
	    reply_thinking(s->base.r, idx, "\n\n", 2, e) == -1)
		return -1;
	s->part = part;
	return reply_thinking(s->base.r, idx, d, strlen(d), e);
}

/* Arguments that came whole, in the finished item, when no delta did. */
static int
tool_fill(struct stream *s, int idx, const char *args, struct pi_error *e)
{
	struct reply_block *b = reply_find(s->base.r, idx);

	if (b == NULL || b->kind != BLOCK_TOOL || !b->open ||
	    b->text.len > 0 || args == NULL)
		return 0;
	return reply_tool_args(s->base.r, idx, args, strlen(args), e);
}

static int
item_added(struct stream *s, int idx, struct json_object *item,
    struct pi_error *e)
{
	/* Text and reasoning blocks start with their first delta. */
	if (!is_type(item, "function_call"))
		return 0;
	return reply_tool_begin(s->base.r, idx, jsonx_str(item, "call_id"),
	    jsonx_str(item, "name"), e);
}

static int
item_done(struct stream *s, int idx, struct json_object *item,
    struct pi_error *e)
{
	struct reply_block *b = reply_find(s->base.r, idx);
	const char *sig, *id = jsonx_str(item, "id");
	size_t n;

	if (is_type(item, "reasoning") &&
	    jsonx_str(item, "encrypted_content") != NULL) {
		/*
		 * The whole item, to be sent back as it came; without its
		 * encrypted content (no -t) it could not be.
		 */
		sig = jsonx_string(item, &n);
		if (reply_signature(s->base.r, idx, BLOCK_THINKING, sig, n,
		    e) == -1)
			return -1;
	} else if (is_type(item, "message") && b != NULL &&
	    b->kind == BLOCK_TEXT && id != NULL) {
		if (reply_signature(s->base.r, idx, BLOCK_TEXT, id, strlen(id),
		    e) == -1)
			return -1;
	} else if (is_type(item, "function_call")) {
		/* Without an added event, the finished item says it all. */
		if (b == NULL && item_added(s, idx, item, e) == -1)
			return -1;
		if (tool_fill(s, idx, jsonx_str(item, "arguments"), e) == -1)
			return -1;
	}
	return reply_block_end(s->base.r, idx, e);
}

static int
finished(struct stream *s, struct json_object *o, struct pi_error *e)
{
	struct json_object *resp = jsonx_obj(o, "response");
	const char *why;

	s->base.done = 1;
	usage(s, jsonx_obj(resp, "usage"));
	if (is_type(o, "response.incomplete")) {
		why = jsonx_str(jsonx_obj(resp, "incomplete_details"),
		    "reason");
		if (why != NULL && strcmp(why, "content_filter") == 0)
			return pi_err(e, PI_EXIT_REFUSED, "content_filter",
			    "the provider's content filter stopped the reply");
		/* max_output_tokens, or a reason we do not know yet. */
		reply_set_stop(s->base.r, STOP_MAX_TOKENS);
	}
	return reply_end(s->base.r, e);
}

/*
 * An error event comes flat ({code, message}) or nested ({error:{...}});
 * response.failed holds its own in response.error.  An error stops the
 * parser, so the response.failed that follows an error event is never
 * read: the error is told once.
 */
static int
failed(struct stream *s, struct json_object *o, struct pi_error *e)
{
	struct json_object *err = o;
	const char *code;

	if (is_type(o, "response.failed")) {
		usage(s, jsonx_obj(jsonx_obj(o, "response"), "usage"));
		err = jsonx_obj(jsonx_obj(o, "response"), "error");
	} else if (jsonx_obj(o, "error") != NULL)
		err = jsonx_obj(o, "error");
	if ((code = jsonx_str(err, "code")) == NULL)
		code = jsonx_str(err, "type");
	return llm_stream_error(code, jsonx_str(err, "message"), e);
}

static int
dispatch(void *arg, struct json_object *o, struct pi_error *e)
{
	struct stream *s = arg;
	const char *type = jsonx_str(o, "type"), *d;
	int idx = (int)jsonx_int(o, "output_index", 0);

	if (type == NULL)
		return 0;
	if (strcmp(type, "response.output_item.added") == 0)
		return item_added(s, idx, jsonx_obj(o, "item"), e);
	if (strcmp(type, "response.output_item.done") == 0)
		return item_done(s, idx, jsonx_obj(o, "item"), e);
	if (strcmp(type, "response.reasoning_summary_text.delta") == 0)
		return summary_delta(s, idx, o, e);
	d = jsonx_str(o, "delta");
	if (strcmp(type, "response.reasoning_text.delta") == 0 && d)
		return reply_thinking(s->base.r, idx, d, strlen(d), e);
	/* A refusal is what the model said, so it is text. */
	if ((strcmp(type, "response.output_text.delta") == 0 ||
	    strcmp(type, "response.refusal.delta") == 0) && d)
		return reply_text(s->base.r, idx, d, strlen(d), e);
	if (strcmp(type, "response.function_call_arguments.delta") == 0 && d)
		return reply_tool_args(s->base.r, idx, d, strlen(d), e);
	if (strcmp(type, "response.completed") == 0 ||
	    strcmp(type, "response.incomplete") == 0)
		return finished(s, o, e);
	if (strcmp(type, "error") == 0 ||
	    strcmp(type, "response.failed") == 0)
		return failed(s, o, e);
	return 0;	/* created, in_progress, part and done echoes, ... */
}

static void *
stream_new(struct reply *r)
{
	struct stream *s = sse_stream_new_json(sizeof(*s), r, dispatch,
	    "response.completed");

	s->part = -1;
	return s;
}

const struct api api_openai_responses = {
	"openai-responses", 64, request, stream_new, sse_stream_push,
	sse_stream_end, sse_stream_free,
};
