/* provider: the tables behind provider.h. */
#include "provider.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

/*
 * Base URLs follow the official SDKs: OpenAI-style ones end in /v1 (the
 * API appends /chat/completions), Anthropic's does not (it appends
 * /v1/messages).
 */
static const struct provider providers[] = {
	{ "openai", "openai-completions", "https://api.openai.com/v1",
	    "OPENAI_API_KEY", { 0 } },
	{ "anthropic", "anthropic-messages", "https://api.anthropic.com",
	    "ANTHROPIC_API_KEY", { 0 } },
	{ "openrouter", "openai-completions", "https://openrouter.ai/api/v1",
	    "OPENROUTER_API_KEY", { 0 } },
	{ "groq", "openai-completions", "https://api.groq.com/openai/v1",
	    "GROQ_API_KEY", { 1, 0, 0, 0, 0 } },
	{ "deepseek", "openai-completions", "https://api.deepseek.com/v1",
	    "DEEPSEEK_API_KEY", { 1, 0, 1, 0, 0 } },
	{ "mistral", "openai-completions", "https://api.mistral.ai/v1",
	    "MISTRAL_API_KEY", { 1, 0, 1, 0, 0 } },
	{ "xai", "openai-completions", "https://api.x.ai/v1",
	    "XAI_API_KEY", { 1, 0, 1, 0, 0 } },
	{ "ollama", "openai-completions", "http://localhost:11434/v1",
	    NULL, { 1, 0, 0, 0, 0 } },
	{ "llamacpp", "openai-completions", "http://localhost:8080/v1",
	    NULL, { 1, 0, 1, 0, 0 } },
	{ "vllm", "openai-completions", "http://localhost:8000/v1",
	    NULL, { 1, 0, 1, 0, 0 } },
	{ "lmstudio", "openai-completions", "http://localhost:1234/v1",
	    NULL, { 1, 0, 1, 0, 0 } },
	{ "google", "google-generative-ai",
	    "https://generativelanguage.googleapis.com/v1beta",
	    "GEMINI_API_KEY", { 0 } },
	{ "faux", "faux", "", NULL, { 0 } },
};

static const struct api *const apis[] = {
	&api_openai_completions,
	&api_anthropic_messages,
	&api_google_generative_ai,
	&api_openai_responses,
};

const struct provider *
provider_table(size_t *n)
{
	*n = sizeof(providers) / sizeof(providers[0]);
	return providers;
}

const struct provider *
provider_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (strcmp(providers[i].name, name) == 0)
			return &providers[i];
	return NULL;
}

const char *
provider_guess(const char *model)
{
	if (strncmp(model, "claude", 6) == 0)
		return "anthropic";
	if (strncmp(model, "gemini", 6) == 0)
		return "google";
	return "openai";
}

const struct api *
api_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (strcmp(apis[i]->name, name) == 0)
			return apis[i];
	return NULL;
}

const char *
api_names(void)
{
	return "openai-completions|openai-responses|anthropic-messages|"
	    "google-generative-ai";
}

void *
sse_stream_new(size_t size, struct reply *r, sse_event_fn *fn,
    const char *terminal)
{
	struct sse_stream *s = xcalloc(1, size);

	sse_init(&s->sse, fn, s);
	s->r = r;
	s->terminal = terminal;
	return s;
}

static int
json_event(void *arg, const char *event, const char *data, size_t len,
    struct pi_error *e)
{
	struct sse_stream *s = arg;
	struct json_object *o;
	struct pi_error why;
	int rc;

	if (s->done)
		return 0;
	if ((o = jsonx_parse(data, len, &why)) == NULL)
		return pi_err(e, PI_EXIT_TEMP, "bad_response",
		    "a stream event is not JSON: %s", why.msg);
	/* The JSON type is the truth; the SSE name fills in if it is gone. */
	if (jsonx_str(o, "type") == NULL && *event)
		jsonx_set_str(o, "type", event);
	rc = s->dispatch(s, o, e);
	json_object_put(o);
	return rc;
}

void *
sse_stream_new_json(size_t size, struct reply *r,
    int (*dispatch)(void *s, struct json_object *o, struct pi_error *e),
    const char *terminal)
{
	struct sse_stream *s = sse_stream_new(size, r, json_event, terminal);

	s->dispatch = dispatch;
	return s;
}

int
sse_stream_push(void *arg, const char *p, size_t n, struct pi_error *e)
{
	struct sse_stream *s = arg;

	return sse_push(&s->sse, p, n, e);
}

int
sse_stream_end(void *arg, struct pi_error *e)
{
	struct sse_stream *s = arg;

	if (!s->done)
		return pi_err(e, PI_EXIT_TEMP, "truncated_stream",
		    "the stream ended before %s", s->terminal);
	return 0;
}

void
sse_stream_free(void *arg)
{
	struct sse_stream *s = arg;

	if (s == NULL)
		return;
	sse_release(&s->sse);
	free(s);
}

void
llm_request_header(struct llm_request *q, const char *fmt, ...)
{
	va_list ap;
	char *h;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	h = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(h, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (q->nheaders == LLM_MAX_HEADERS) {
		free(h);
		return;
	}
	q->headers[q->nheaders++] = h;
	q->headers[q->nheaders] = NULL;
}

void
llm_request_release(struct llm_request *q)
{
	size_t i;

	for (i = 0; i < q->nheaders; i++)
		free(q->headers[i]);
	free(q->url);
	json_object_put(q->body);
	memset(q, 0, sizeof(*q));
}

static const char *const thinking_names[] = { "none", "low", "medium", "high" };

long
thinking_budget(enum thinking t)
{
	static const long budgets[] = { 0, 1024, 8192, 32768 };

	return t <= THINK_NONE ? 0 : budgets[t];
}

const char *
thinking_name(enum thinking t)
{
	return t == THINK_OFF ? "off" : thinking_names[t];
}

int
thinking_parse(const char *s, enum thinking *t)
{
	size_t i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, thinking_names[i]) == 0) {
			*t = (enum thinking)i;
			return 0;
		}
	if (strcmp(s, "off") == 0) {
		*t = THINK_NONE;
		return 0;
	}
	return -1;
}
