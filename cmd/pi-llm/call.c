/* call: see call.h. */
#include "call.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "llm/curlfn.h"
#include "llm/llm.h"
#include "llm/reply.h"
#include "core/banned.h"

struct stage S;

static int
emit(void *arg, struct json_object *ev)
{
	(void)arg;
	return ndjson_write(1, ev);
}

/* Report a failure on stderr and, in band, as the stream's last line. */
int
call_fail(const struct pi_error *e, const char *message_id)
{
	struct json_object *ev;

	if (e->status == PI_EXIT_PIPE)
		return PI_EXIT_PIPE;
	fprintf(stderr, "pi-llm: %s\n", e->msg);
	ev = event_new("error");
	jsonx_set_str(ev, "code", e->code ? e->code : "error");
	jsonx_set_str(ev, "message", e->msg);
	jsonx_set_bool(ev, "recoverable", pi_is_temporary(e));
	jsonx_set_int(ev, "exitCode", e->status);
	if (message_id != NULL)
		jsonx_set_str(ev, "messageId", message_id);
	if (ndjson_write(1, ev) == -1 && errno == EPIPE) {
		json_object_put(ev);
		return PI_EXIT_PIPE;
	}
	json_object_put(ev);
	return e->status;
}

static int
unknown_provider(const char *name, struct pi_error *e)
{
	return pi_err(e, PI_EXIT_CONFIG, "unknown_provider", "unknown "
	    "provider '%s' (see --list-providers)", name);
}

/*
 * [provider/]model and a provider name -> a provider row and a model.
 * A model may hold slashes of its own (openrouter/meta-llama/llama-3):
 * only a known provider name before the first one is taken off.  A
 * missing model is a usage error (2), an unknown provider a
 * configuration error (4).
 */
static int
resolve(const struct call_opts *o, const struct provider **pp,
    const char **model, struct pi_error *e)
{
	const struct provider *p = NULL;
	const char *m = o->model, *slash;
	char name[64];
	size_t k;

	if (m != NULL && (slash = strchr(m, '/')) != NULL &&
	    (k = (size_t)(slash - m)) < sizeof(name)) {
		memcpy(name, m, k);
		name[k] = '\0';
		if ((p = config_provider(&S.cfg, name)) != NULL &&
		    (o->provider == NULL || strcmp(o->provider, name) == 0))
			m = slash + 1;
		else
			p = NULL;
	}
	if (o->provider != NULL &&
	    (p = config_provider(&S.cfg, o->provider)) == NULL)
		return unknown_provider(o->provider, e);
	if ((m == NULL || *m == '\0') && p != NULL &&
	    strcmp(p->api, "faux") == 0)
		m = "faux";
	if (m == NULL || *m == '\0')
		return pi_err(e, PI_EXIT_USAGE, "usage", "no model: give -m "
		    "[provider/]model or set PI_MODEL");
	if (p == NULL &&
	    (p = config_provider(&S.cfg, provider_guess(m))) == NULL)
		return unknown_provider(provider_guess(m), e);
	*pp = p;
	*model = m;
	return 0;
}

/* --api, else the model's own (models.json), else its provider's. */
static const char *
api_of(const struct provider *p, const char *model)
{
	struct json_object *info = catalog_find(&S.catalog, p->name, model);

	if (S.api != NULL)
		return S.api;
	if (info != NULL && jsonx_str(info, "api") != NULL)
		return jsonx_str(info, "api");
	return p->api;
}

/*
 * --record writes the provider's answers to a file, --replay plays them
 * instead of the network (see record.h); the file is opened by the
 * first call that goes to a provider, and kept for the calls after it.
 */
static int
recording(const struct provider *p, const char *model, struct pi_error *e)
{
	if (S.record == NULL && S.replay == NULL)
		return 0;
	if (strcmp(api_of(p, model), "faux") == 0)
		return pi_err(e, PI_EXIT_USAGE, "usage", "the faux provider "
		    "makes no requests to record or replay");
	if (S.rec_open)
		return 0;
	if (S.record ? record_create(&S.rec, S.record, e) :
	    record_open(&S.rec, S.replay, e))
		return -1;
	S.rec.clock = S.replay_clock;
	S.rec_open = 1;
	return 0;
}

static int
call(const struct call_opts *co, const struct provider *p,
    const char *model, struct context *ctx, struct reply *r,
    struct pi_error *e)
{
	struct llm_call c;
	struct llm_opts o;
	const struct api *api;
	struct json_object *info;
	char *base, *key = NULL;
	size_t n;
	int rc = -1;

	if (strcmp(api_of(p, model), "faux") == 0) {
		const char *script = S.faux_script ? S.faux_script :
		    getenv("PI_FAUX_SCRIPT");

		if (script == NULL)
			return pi_err(e, PI_EXIT_CONFIG, "faux_script",
			    "the faux provider needs --faux-script or "
			    "PI_FAUX_SCRIPT");
		return faux_run(script, ctx, &S.signal, r, e);
	}
	api = api_find(api_of(p, model));
	memset(&c, 0, sizeof(c));
	base = xstrdup(S.base_url ? S.base_url : p->base_url);
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		base[--n] = '\0';
	if (config_key(&S.cfg, p, &key, e) == -1)
		goto out;
	/* A server of one's own (--base-url) may want no key at all. */
	if (key == NULL && p->key_env != NULL && S.base_url == NULL &&
	    S.replay == NULL) {
		pi_err(e, PI_EXIT_CONFIG, "no_api_key", "no API key for "
		    "provider '%s': set %s or PI_API_KEY, or put one in %s",
		    p->name, p->key_env, S.cfg.auth_path);
		goto out;
	}
	if (config_headers(&S.cfg, p, model, key, &c.headers, e) == -1)
		goto out;
	c.provider = p->name;
	c.api = api->name;
	c.base_url = base;
	c.model = model;
	c.api_key = key;
	c.compat = p->compat;
	c.system = ctx->system;
	c.messages = context_prepare(ctx, p->name, api->name, model,
	    api->id_max);
	c.tools = ctx->tools;
	c.thinking = co->thinking;
	c.max_tokens = co->max_tokens;
	if ((info = catalog_find(&S.catalog, p->name, model)) != NULL)
		c.model_max_tokens = (long)jsonx_int(info, "maxTokens", 0);
	memset(&o, 0, sizeof(o));
	o.max_retries = (int)S.retries;
	o.idle_ms = S.idle * 1000;
	o.connect_timeout_ms = 30000;
	o.backoff_ms = 500;
	o.abort = &S.signal;
	o.http = &S.http;
	if (S.rec_open)
		o.rec = &S.rec;
	o.replay_loose = S.replay_loose;
	rc = llm_stream(api, &c, &o, r, e);
	json_object_put(c.messages);
out:
	json_object_put(c.headers);
	free(key);
	free(base);
	return rc;
}

/* The call failed or was stopped: end the message and say why. */
static int
ended(struct reply *r, const struct pi_error *e)
{
	struct pi_error e2 = *e;

	if (e->status == PI_EXIT_SIGINT || e->status == PI_EXIT_SIGTERM) {
		/* Stopped, not failed: the partial message stands. */
		if (reply_fail(r, STOP_ABORTED, e->msg, &e2) == -1)
			return PI_EXIT_PIPE;
		return S.signal == SIGINT ? PI_EXIT_SIGINT : PI_EXIT_SIGTERM;
	}
	if (reply_fail(r, STOP_ERROR, e->msg, &e2) == -1)
		return PI_EXIT_PIPE;
	return call_fail(e, r->started ? r->message_id : NULL);
}

int
run_call(const struct call_opts *o, struct context *ctx, struct pi_error *e)
{
	const struct provider *p = NULL;
	struct json_object *info;
	const char *model = NULL;
	struct reply r;
	int status = 0;

	if (resolve(o, &p, &model, e) == -1) {
		if (e->status != PI_EXIT_USAGE)
			return call_fail(e, NULL);
		fprintf(stderr, "pi-llm: %s\n", e->msg);
		return e->status;
	}
	if (S.system != NULL) {
		free(ctx->system);
		ctx->system = xstrdup(S.system);
	}
	if (json_object_array_length(ctx->messages) == 0) {
		pi_err(e, PI_EXIT_INPUT, "bad_input", "nothing to send: no "
		    "prompt and no messages on stdin");
		return call_fail(e, NULL);
	}
	reply_init(&r, p->name, api_of(p, model), model, emit, NULL);
	/* libcurl only for a call that goes out: see curlfn.h. */
	if (!S.curl && strcmp(api_of(p, model), "faux") != 0 &&
	    S.replay == NULL) {
		if (curlfn_load(e) == -1) {
			status = call_fail(e, NULL);
			goto out;
		}
		S.curl = 1;
	}
	if ((info = catalog_find(&S.catalog, p->name, model)) != NULL) {
		catalog_price(info, &r.price);
		r.context_window = jsonx_int(info, "contextWindow", 0);
	}
	if (recording(p, model, e) == -1) {
		status = call_fail(e, NULL);
		goto out;
	}
	/* Until the provider counts, four bytes of context make a token. */
	r.input_estimate = (int64_t)(strlen(jsonx_string(ctx->messages,
	    NULL)) + (ctx->system ? strlen(ctx->system) : 0)) / 4;
	if (call(o, p, model, ctx, &r, e) == -1)
		status = ended(&r, e);
out:
	reply_release(&r);
	return status;
}

void
stage_release(void)
{
	/* The connections go before libcurl does. */
	if (S.curl)
		http_client_release(&S.http);
	curlfn_unload();
	if (S.rec_open)
		record_close(&S.rec);
	catalog_release(&S.catalog);
	config_release(&S.cfg);
	free(S.system);
}
