/*
 * provider_google: Google Gemini (generativelanguage v1beta), streamed
 * with alt=sse.  Our history becomes user and model "contents": calls
 * as functionCall parts with object args, the results of a turn as one
 * user content of functionResponse parts right after it, and every
 * thoughtSignature on the part it came with, since the server checks.
 * Each chunk of the stream is a whole GenerateContentResponse whose
 * parts are deltas (a call comes whole, in one part) and whose
 * usageMetadata is a running total.  A reply is complete only when a
 * chunk with a finishReason came and the connection then closed.
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

#define API_NAME "google-generative-ai"

/*
 * Gemini 3 refuses a replayed call without its signature, and a call
 * made by another model has none: Google documents this value as the
 * way to say so.
 */
#define NO_SIGNATURE "skip_thought_signature_validator"

static struct json_object *
text_part(const char *text, const char *sig)
{
	struct json_object *p = json_object_new_object();

	jsonx_set_str(p, "text", text);
	if (sig != NULL && *sig)
		jsonx_set_str(p, "thoughtSignature", sig);
	return p;
}

static struct json_object *
image_part(struct json_object *img)
{
	struct json_object *p = json_object_new_object(), *d;

	d = json_object_new_object();
	jsonx_set_str(d, "mimeType", jsonx_str(img, "mimeType") ?
	    jsonx_str(img, "mimeType") : "image/png");
	jsonx_set_str(d, "data", jsonx_str(img, "data") ?
	    jsonx_str(img, "data") : "");
	jsonx_set(p, "inlineData", d);
	return p;
}

static struct json_object *
content(const char *role, struct json_object *parts)
{
	struct json_object *c = json_object_new_object();

	jsonx_set_str(c, "role", role);
	jsonx_set(c, "parts", parts);
	return c;
}

/* User text and images; empty text is refused, so dropped. */
static void
user_parts(struct json_object *out, struct json_object *blocks)
{
	struct json_object *b;
	const char *type, *t;
	size_t i, n;

	if (jsonx_is(blocks, json_type_string)) {
		if (*json_object_get_string(blocks))
			json_object_array_add(out, text_part(
			    json_object_get_string(blocks), NULL));
		return;
	}
	n = jsonx_is(blocks, json_type_array) ?
	    json_object_array_length(blocks) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(blocks, i);
		if ((type = jsonx_str(b, "type")) == NULL)
			continue;
		if (strcmp(type, "text") == 0 &&
		    (t = jsonx_str(b, "text")) != NULL && *t)
			json_object_array_add(out, text_part(t, NULL));
		else if (strcmp(type, "image") == 0)
			json_object_array_add(out, image_part(b));
	}
}

static struct json_object *
call_part(struct json_object *b, const char *model)
{
	struct json_object *p = json_object_new_object(), *f;
	const char *sig = jsonx_str(b, "thoughtSignature");

	/*
	 * No id: Gemini matches results to calls by name and position,
	 * and leaves the id out itself (pi-mono sends none either).
	 */
	f = json_object_new_object();
	jsonx_set_str(f, "name", jsonx_str(b, "name") ? jsonx_str(b, "name") :
	    "");
	jsonx_set(f, "args", jsonx_obj(b, "arguments") ?
	    jsonx_copy(jsonx_obj(b, "arguments")) : json_object_new_object());
	jsonx_set(p, "functionCall", f);
	if (sig != NULL && *sig)
		jsonx_set_str(p, "thoughtSignature", sig);
	else if (strstr(model, "gemini-3") != NULL)
		jsonx_set_str(p, "thoughtSignature", NO_SIGNATURE);
	return p;
}

/* A model turn; names learns each call's name, for results without one. */
static struct json_object *
model_parts(struct json_object *m, const char *model,
    struct json_object *names)
{
	struct json_object *out = json_object_new_array(), *blocks, *b, *p;
	const char *type, *t, *sig;
	size_t i, n;

	blocks = jsonx_arr(m, "content");
	n = blocks ? json_object_array_length(blocks) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(blocks, i);
		if ((type = jsonx_str(b, "type")) == NULL)
			continue;
		/* A signed empty part is still the server's to see again. */
		if (strcmp(type, "text") == 0) {
			t = jsonx_str(b, "text");
			sig = jsonx_str(b, "textSignature");
			if ((t != NULL && *t) || (sig != NULL && *sig))
				json_object_array_add(out, text_part(t ? t : "",
				    sig));
		} else if (strcmp(type, "thinking") == 0 &&
		    !jsonx_bool(b, "redacted", 0)) {
			/* Only this model's thinking is left as thinking. */
			t = jsonx_str(b, "thinking");
			sig = jsonx_str(b, "thinkingSignature");
			if ((t == NULL || *t == '\0') && (sig == NULL || !*sig))
				continue;
			p = text_part(t ? t : "", sig);
			jsonx_set_bool(p, "thought", 1);
			json_object_array_add(out, p);
		} else if (strcmp(type, "toolCall") == 0) {
			json_object_array_add(out, call_part(b, model));
			if (jsonx_str(b, "id") != NULL)
				jsonx_set(names, jsonx_str(b, "id"),
				    jsonx_ref(jsonx_get(b, "name")));
		}
	}
	return out;
}

/*
 * A result's response must be an object.  Images cannot go in it (on
 * Gemini before 3), so they are gathered into *images, a user content
 * sent after the run of results.
 */
static struct json_object *
response_part(struct json_object *m, struct json_object *names,
    struct json_object **images)
{
	struct json_object *p = json_object_new_object(), *f, *r, *body, *b;
	const char *name = jsonx_str(m, "toolName"), *id;
	size_t i, n;
	char *text;
	int had = 0;

	body = jsonx_get(m, "content");
	n = jsonx_is(body, json_type_array) ?
	    json_object_array_length(body) : 0;
	for (i = 0; i < n; i++) {
		b = json_object_array_get_idx(body, i);
		if (jsonx_str(b, "type") == NULL ||
		    strcmp(jsonx_str(b, "type"), "image") != 0)
			continue;
		if (*images == NULL) {
			*images = json_object_new_array();
			json_object_array_add(*images,
			    text_part("Tool result image:", NULL));
		}
		json_object_array_add(*images, image_part(b));
		had = 1;
	}
	if ((name == NULL || *name == '\0') &&
	    (id = jsonx_str(m, "toolCallId")) != NULL)
		name = jsonx_str(names, id);
	text = content_text(body, "\n");
	r = json_object_new_object();
	jsonx_set_str(r, jsonx_bool(m, "isError", 0) ? "error" : "output",
	    *text ? text : had ? "(see attached image)" : "");
	free(text);
	f = json_object_new_object();
	jsonx_set_str(f, "name", name ? name : "");
	jsonx_set(f, "response", r);
	jsonx_set(p, "functionResponse", f);
	return p;
}

static void
flush_images(struct json_object *out, struct json_object **images)
{
	if (*images != NULL)
		json_object_array_add(out, content("user", *images));
	*images = NULL;
}

static struct json_object *
contents(const struct llm_call *c)
{
	struct json_object *out = json_object_new_array(), *m, *parts;
	struct json_object *results = NULL, *images = NULL, *names;
	const char *role;
	size_t i, n = json_object_array_length(c->messages);

	names = json_object_new_object();
	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(c->messages, i);
		role = jsonx_str(m, "role");
		if (strcmp(role, "toolResult") == 0) {
			/*
			 * One user content answers the whole model turn: the
			 * server counts its parts against the calls.
			 */
			if (results == NULL) {
				results = json_object_new_array();
				json_object_array_add(out, content("user",
				    results));
			}
			json_object_array_add(results, response_part(m, names,
			    &images));
			continue;
		}
		results = NULL;
		flush_images(out, &images);
		parts = json_object_new_array();
		if (strcmp(role, "user") == 0)
			user_parts(parts, jsonx_get(m, "content"));
		else {
			json_object_put(parts);
			parts = model_parts(m, c->model, names);
		}
		if (json_object_array_length(parts) > 0)
			json_object_array_add(out, content(strcmp(role,
			    "user") == 0 ? "user" : "model", parts));
		else
			json_object_put(parts);
	}
	flush_images(out, &images);
	json_object_put(names);
	return out;
}

/* True when an object schema names no property. */
static int
no_properties(struct json_object *schema)
{
	struct json_object *p = jsonx_obj(schema, "properties");

	return p == NULL || json_object_object_length(p) == 0;
}

static struct json_object *
tools(struct json_object *defs)
{
	struct json_object *out, *decls, *d, *f, *schema;
	size_t i, n = json_object_array_length(defs);

	decls = json_object_new_array();
	for (i = 0; i < n; i++) {
		d = json_object_array_get_idx(defs, i);
		f = json_object_new_object();
		jsonx_set(f, "name", jsonx_ref(jsonx_get(d, "name")));
		if (jsonx_str(d, "description") != NULL)
			jsonx_set(f, "description", jsonx_ref(jsonx_get(d,
			    "description")));
		/*
		 * An object with no properties is refused ("should be
		 * non-empty for OBJECT type"); a tool without arguments
		 * says so by having no parameters.
		 */
		schema = schema_for_api(jsonx_obj(d, "inputSchema"), API_NAME);
		if (schema != NULL && !no_properties(schema))
			jsonx_set(f, "parameters", schema);
		else
			json_object_put(schema);
		json_object_array_add(decls, f);
	}
	out = json_object_new_array();
	f = json_object_new_object();
	jsonx_set(f, "functionDeclarations", decls);
	json_object_array_add(out, f);
	return out;
}

static struct json_object *
generation_config(const struct llm_call *c)
{
	struct json_object *g = json_object_new_object(), *t;

	if (c->max_tokens > 0)
		jsonx_set_int(g, "maxOutputTokens", c->max_tokens);
	if (c->thinking != THINK_OFF) {
		/* Budget 0 turns thinking off on models that allow it. */
		t = json_object_new_object();
		if (c->thinking > THINK_NONE)
			jsonx_set_bool(t, "includeThoughts", 1);
		jsonx_set_int(t, "thinkingBudget",
		    thinking_budget(c->thinking));
		jsonx_set(g, "thinkingConfig", t);
	}
	if (json_object_object_length(g) == 0) {
		json_object_put(g);
		return NULL;
	}
	return g;
}

static int
request(const struct llm_call *c, struct llm_request *q, struct pi_error *e)
{
	struct json_object *b = json_object_new_object(), *sys, *parts, *g;
	const char *model = c->model;

	(void)e;
	/* "models/gemini-x", as Google's own lists name them, is the same. */
	if (strncmp(model, "models/", 7) == 0)
		model += 7;
	/* The key goes in a header: in the URL it would reach logs. */
	q->url = xasprintf("%s/models/%s:streamGenerateContent?alt=sse",
	    c->base_url, model);
	llm_request_header(q, "Content-Type: application/json");
	llm_request_header(q, "Accept: text/event-stream");
	if (c->api_key != NULL && *c->api_key)
		llm_request_header(q, "x-goog-api-key: %s", c->api_key);
	jsonx_set(b, "contents", contents(c));
	if (c->system != NULL && *c->system) {
		parts = json_object_new_array();
		json_object_array_add(parts, text_part(c->system, NULL));
		sys = json_object_new_object();
		jsonx_set(sys, "parts", parts);
		jsonx_set(b, "systemInstruction", sys);
	}
	if (json_object_array_length(c->tools) > 0)
		jsonx_set(b, "tools", tools(c->tools));
	if ((g = generation_config(c)) != NULL)
		jsonx_set(b, "generationConfig", g);
	q->body = b;
	return 0;
}

struct stream {
	struct sse_stream base;
	int next_key;		/* blocks are keyed in order of arrival */
	int key, kind;		/* the open text or thinking block, or -1 */
	struct buf bare;	/* a JSON object sent without data: */
	int depth, in_string, escaped;	/* where bare's scan stands */
};

/* Finish reasons that mean a filter cut the reply off. */
static const char *const filtered[] = {
	"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII",
	"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION",
};

static void
usage(struct stream *s, struct json_object *u)
{
	struct usage x;
	int64_t cached = jsonx_int(u, "cachedContentTokenCount", 0);
	int64_t thoughts = jsonx_int(u, "thoughtsTokenCount", 0);

	/*
	 * Running totals: the last wins whole.  The prompt count includes
	 * the cached part, and the candidates count leaves out thoughts;
	 * pi counts the one apart and the other in.
	 */
	memset(&x, 0, sizeof(x));
	x.input = jsonx_int(u, "promptTokenCount", 0) - cached;
	x.cache_read = cached;
	x.output = jsonx_int(u, "candidatesTokenCount", 0) + thoughts;
	x.reasoning = thoughts;
	x.total = jsonx_int(u, "totalTokenCount", 0);
	reply_set_usage(s->base.r, &x);
}

static int
close_prose(struct stream *s, struct pi_error *e)
{
	if (s->kind == -1)
		return 0;
	s->kind = -1;
	return reply_block_end(s->base.r, s->key, e);
}

/*
 * Text parts are deltas of one block until the kind changes.  A
 * signature belongs to its part: a second one starts a new block, so
 * that two signatures never run together.
 */
static int
prose(struct stream *s, struct json_object *p, const char *sig,
    struct pi_error *e)
{
	struct reply_block *b;
	const char *t = jsonx_str(p, "text");
	int kind = jsonx_bool(p, "thought", 0) ? BLOCK_THINKING : BLOCK_TEXT;
	int rc;

	if (t == NULL)
		t = "";
	b = s->kind == kind ? reply_find(s->base.r, s->key) : NULL;
	if (s->kind != kind || (sig != NULL && b != NULL && b->sig.len > 0)) {
		if (close_prose(s, e) == -1)
			return -1;
		s->key = s->next_key++;
		s->kind = kind;
	}
	rc = kind == BLOCK_TEXT ?
	    reply_text(s->base.r, s->key, t, strlen(t), e) :
	    reply_thinking(s->base.r, s->key, t, strlen(t), e);
	if (rc == 0 && sig != NULL)
		rc = reply_signature(s->base.r, s->key, (enum block_kind)kind,
		    sig, strlen(sig), e);
	return rc;
}

static int
id_taken(struct reply *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->nblocks; i++)
		if (r->blocks[i].kind == BLOCK_TOOL &&
		    strcmp(r->blocks[i].id, id) == 0)
			return 1;
	return 0;
}

/* A whole call; its signature goes on before the call is closed. */
static int
call(struct stream *s, struct json_object *fc, const char *sig,
    struct pi_error *e)
{
	struct json_object *args = jsonx_obj(fc, "args");
	const char *id = jsonx_str(fc, "id"), *a;
	int key;
	size_t n;

	if (close_prose(s, e) == -1)
		return -1;
	key = s->next_key++;
	/* No id, or one used twice: results must still find their call. */
	if (id != NULL && id_taken(s->base.r, id))
		id = NULL;
	if (reply_tool_begin(s->base.r, key, id, jsonx_str(fc, "name"),
	    e) == -1)
		return -1;
	if (args != NULL) {
		a = jsonx_string(args, &n);
		if (reply_tool_args(s->base.r, key, a, n, e) == -1)
			return -1;
	}
	if (sig != NULL && reply_signature(s->base.r, key, BLOCK_TOOL, sig,
	    strlen(sig), e) == -1)
		return -1;
	return reply_block_end(s->base.r, key, e);
}

static int
part(struct stream *s, struct json_object *p, struct pi_error *e)
{
	struct json_object *fc = jsonx_obj(p, "functionCall");
	const char *sig = jsonx_str(p, "thoughtSignature");

	if (sig != NULL && *sig == '\0')
		sig = NULL;
	if (fc != NULL)
		return call(s, fc, sig, e);
	/* A bare signature is an empty text part to give back. */
	if (jsonx_str(p, "text") != NULL || sig != NULL)
		return prose(s, p, sig, e);
	return 0;	/* inlineData, executableCode: nothing pi shows */
}

static int
finish(struct stream *s, const char *why, struct pi_error *e)
{
	size_t i;

	s->base.done = 1;
	if (strcmp(why, "STOP") == 0)
		return 0;	/* tool use too: reply_end sees the calls */
	if (strcmp(why, "MAX_TOKENS") == 0) {
		reply_set_stop(s->base.r, STOP_MAX_TOKENS);
		return 0;
	}
	for (i = 0; i < sizeof(filtered) / sizeof(*filtered); i++)
		if (strcmp(why, filtered[i]) == 0)
			return pi_err(e, PI_EXIT_REFUSED, "content_filter",
			    "the provider's filter stopped the reply "
			    "(finishReason %s)", why);
	/*
	 * The model wrote a call that does not parse: the same request
	 * may well go right next time, so it is temporary (75), as any
	 * reply that cannot be understood is.
	 */
	if (strcmp(why, "MALFORMED_FUNCTION_CALL") == 0)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "the model wrote a malformed function call "
		    "(finishReason %s)", why);
	/* OTHER, LANGUAGE, UNEXPECTED_TOOL_CALL, any newer reason. */
	return pi_err(e, PI_EXIT_REFUSED, "provider_error",
	    "the reply ended with finishReason %s", why);
}

static int
stream_error(struct json_object *err, struct pi_error *e)
{
	if (jsonx_is(err, json_type_string))
		return llm_stream_error(NULL, json_object_get_string(err), e);
	return llm_stream_error(jsonx_str(err, "status") ? jsonx_str(err,
	    "status") : jsonx_str(err, "code"), jsonx_str(err, "message"), e);
}

/* One GenerateContentResponse, or an error in its place. */
static int
chunk(struct stream *s, struct json_object *o, struct pi_error *e)
{
	struct json_object *err, *cands, *cand, *parts, *u;
	const char *why;
	size_t i, n;

	if (jsonx_is(o, json_type_array)) {
		/* Errors have come as [{"error":...}]. */
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			if (chunk(s, json_object_array_get_idx(o, i), e) == -1)
				return -1;
		return 0;
	}
	if ((err = jsonx_get(o, "error")) != NULL &&
	    !jsonx_is(err, json_type_null))
		return stream_error(err, e);
	/*
	 * No reply_start here: message_start waits for the first content,
	 * so a prompt blocked or a call botched at once is an error before
	 * any output, and a temporary one can still be retried.
	 */
	if ((u = jsonx_obj(o, "usageMetadata")) != NULL)
		usage(s, u);
	cands = jsonx_arr(o, "candidates");
	cand = cands ? json_object_array_get_idx(cands, 0) : NULL;
	if (cand == NULL) {
		why = jsonx_str(jsonx_obj(o, "promptFeedback"), "blockReason");
		if (why != NULL)
			return pi_err(e, PI_EXIT_REFUSED, "content_filter",
			    "the prompt was blocked (blockReason %s)", why);
		return 0;
	}
	parts = jsonx_arr(jsonx_obj(cand, "content"), "parts");
	n = parts ? json_object_array_length(parts) : 0;
	for (i = 0; i < n; i++)
		if (part(s, json_object_array_get_idx(parts, i), e) == -1)
			return -1;
	if ((why = jsonx_str(cand, "finishReason")) != NULL)
		return finish(s, why, e);
	return 0;
}

static int
parse_chunk(struct stream *s, const char *p, size_t n, struct pi_error *e)
{
	struct json_object *o;
	int rc;

	if ((o = jsonx_parse(p, n, e)) == NULL)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "a stream chunk is not JSON: %s", e->msg);
	rc = chunk(s, o, e);
	json_object_put(o);
	return rc;
}

static int
on_event(void *arg, const char *event, const char *data, size_t len,
    struct pi_error *e)
{
	(void)event;
	return parse_chunk(arg, data, len, e);
}

/*
 * A line outside the SSE fields: part of a JSON object sent bare, over
 * several lines, as google-genai expects errors may come.  Lines are
 * gathered while braces and brackets (outside strings) stay open.
 */
static int
on_other(void *arg, const char *line, size_t n, struct pi_error *e)
{
	struct stream *s = arg;
	size_t i, len;
	char c, *whole;
	int rc;

	if (s->bare.len == 0) {
		for (i = 0; i < n && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		if (i == n || (line[i] != '{' && line[i] != '['))
			return 0;	/* a field we do not know: skipped */
	}
	if (buf_add(&s->bare, line, n) == -1 || buf_addc(&s->bare, '\n') == -1)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "a bare JSON object in the stream is too long");
	for (i = 0; i < n; i++) {
		c = line[i];
		if (s->in_string) {
			if (s->escaped)
				s->escaped = 0;
			else if (c == '\\')
				s->escaped = 1;
			else if (c == '"')
				s->in_string = 0;
		} else if (c == '"')
			s->in_string = 1;
		else if (c == '{' || c == '[')
			s->depth++;
		else if (c == '}' || c == ']')
			s->depth--;
	}
	if (s->depth > 0)
		return 0;
	s->depth = s->in_string = s->escaped = 0;
	whole = buf_detach(&s->bare, &len);
	rc = parse_chunk(s, whole, len, e);
	free(whole);
	return rc;
}

static int
stream_end(void *arg, struct pi_error *e)
{
	struct stream *s = arg;

	if (s->bare.len > 0)
		return pi_err(e, PI_EXIT_TEMP, "truncated_stream",
		    "the stream ended inside a JSON object");
	if (sse_stream_end(s, e) == -1)
		return -1;
	return reply_end(s->base.r, e);
}

static void *
stream_new(struct reply *r)
{
	struct stream *s = sse_stream_new(sizeof(*s), r, on_event,
	    "a finishReason");

	sse_set_other(&s->base.sse, on_other);
	s->kind = -1;
	buf_init(&s->bare, PI_MAX_EVENT);
	return s;
}

static void
stream_free(void *arg)
{
	struct stream *s = arg;

	if (s == NULL)
		return;
	buf_release(&s->bare);
	sse_stream_free(s);
}

const struct api api_google_generative_ai = {
	API_NAME, 64, request, stream_new, sse_stream_push, stream_end,
	stream_free,
};
