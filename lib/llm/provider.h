/*
 * provider: who pi-llm can talk to.  A provider is a row (name, wire API,
 * base URL, key variable, compatibility switches); a wire API is a set of
 * functions that translate our context into its request and its stream
 * into reply calls.  A new API is one file, provider_NAME.c, plus a row
 * in apis[] in provider.c; a new OpenAI-compatible server is one row in
 * providers[].
 */
#ifndef PI_PROVIDER_H
#define PI_PROVIDER_H

#include <signal.h>
#include <stddef.h>

#include "sse.h"

struct json_object;
struct pi_error;
struct reply;

enum thinking { THINK_OFF = -1, THINK_NONE, THINK_LOW, THINK_MEDIUM, THINK_HIGH };

/* What OpenAI-compatible servers disagree about. */
struct compat {
	int max_tokens_field;	/* send max_tokens, not max_completion_tokens */
	int no_stream_usage;	/* stream_options.include_usage is refused */
	int no_reasoning_effort;
	int developer_role;	/* system prompt as role developer */
	int thinking_format;	/* 1: enable_thinking (qwen, zai) */
};

struct provider {
	const char *name;
	const char *api;
	const char *base_url;
	const char *key_env;	/* NULL: a local server, no key needed */
	struct compat compat;
};

const struct provider *provider_find(const char *name);
const struct provider *provider_table(size_t *n);
/* The provider a bare model name most likely belongs to. */
const char *provider_guess(const char *model);

/* Everything one call needs, after the context has been prepared. */
struct llm_call {
	const char *provider;
	const char *api;
	const char *base_url;
	const char *model;
	const char *api_key;	/* NULL or "" when none */
	struct compat compat;
	const char *system;	/* NULL: none */
	struct json_object *messages;	/* prepared for this API */
	struct json_object *tools;	/* [{name, description, inputSchema}] */
	enum thinking thinking;	/* THINK_OFF: not asked */
	long max_tokens;	/* 0: the API's default */
	long model_max_tokens;	/* the model's output limit; 0: unknown */
	struct json_object *headers;	/* extra "Name: value"s, or NULL */
};

#define LLM_MAX_HEADERS 24

struct llm_request {
	char *url;
	char *headers[LLM_MAX_HEADERS + 1];
	size_t nheaders;
	struct json_object *body;
};

void llm_request_header(struct llm_request *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void llm_request_release(struct llm_request *q);

struct api {
	const char *name;
	size_t id_max;		/* longest tool-call id it accepts */
	int (*request)(const struct llm_call *c, struct llm_request *q,
	    struct pi_error *e);
	void *(*stream_new)(struct reply *r);
	/* Raw body bytes in; -1 with e filled on an in-stream error. */
	int (*stream_push)(void *s, const char *p, size_t n,
	    struct pi_error *e);
	/* EOF: -1 unless the terminal event came (the reply is ended). */
	int (*stream_end)(void *s, struct pi_error *e);
	void (*stream_free)(void *s);
};

const struct api *api_find(const char *name);

/*
 * The stream half of an SSE-based API.  A provider's stream struct
 * starts with a struct sse_stream; sse_stream_new allocates size bytes
 * and sets the parser to call fn with the struct as its argument.  The
 * provider sets done when its terminal event arrives; without it, EOF is
 * a truncated stream ("the stream ended before TERMINAL").
 */
struct sse_stream {
	struct sse_parser sse;
	struct reply *r;
	int done;
	const char *terminal;
	/* For sse_stream_new_json: one parsed event, "type" filled in. */
	int (*dispatch)(void *s, struct json_object *o, struct pi_error *e);
};

void *sse_stream_new(size_t size, struct reply *r, sse_event_fn *fn,
    const char *terminal);
/*
 * For APIs whose events are JSON with a "type" (Anthropic, Responses):
 * each event's data is parsed, its SSE name fills in a missing "type",
 * and dispatch gets it; nothing after the terminal event is read.
 */
void *sse_stream_new_json(size_t size, struct reply *r,
    int (*dispatch)(void *s, struct json_object *o, struct pi_error *e),
    const char *terminal);
int sse_stream_push(void *s, const char *p, size_t n, struct pi_error *e);
int sse_stream_end(void *s, struct pi_error *e);
void sse_stream_free(void *s);
const char *api_names(void);

extern const struct api api_openai_completions;
extern const struct api api_anthropic_messages;
extern const struct api api_google_generative_ai;
extern const struct api api_openai_responses;

/* Thinking budgets in tokens (DESIGN.md section 3). */
long thinking_budget(enum thinking t);
const char *thinking_name(enum thinking t);
int thinking_parse(const char *s, enum thinking *t);

#endif

/*
 * faux: a scripted provider for demos and tests, no network.  The script
 * is NDJSON; the reply to a context holding k assistant messages is its
 * line k+1 (so an agent loop walks through it).  The reply goes through
 * the same reply calls as a real stream.  man/pi-llm.1 has the format.
 */
struct context;
int faux_run(const char *script, const struct context *ctx,
    volatile sig_atomic_t *abort, struct reply *r, struct pi_error *e);
