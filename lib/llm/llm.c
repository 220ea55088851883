/* llm: see llm.h. */
#include "llm.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "http.h"
#include "provider.h"
#include "record.h"
#include "reply.h"
#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

/* What providers say when the context does not fit (pi's overflow.ts). */
static const char *const overflow_patterns[] = {
	"prompt is too long",
	"input is too long for requested model",
	"exceeds the context window",
	"input token count.*exceeds the maximum",
	"maximum prompt length is [0-9]+",
	"reduce the length of the messages",
	"maximum context length is [0-9]+ tokens",
	"exceeds the limit of [0-9]+",
	"exceeds the available context size",
	"greater than the context length",
	"context window exceeds limit",
	"exceeded model token limit",
	"too large for model with [0-9]+ maximum context length",
	"model_context_window_exceeded",
	"context[_ ]length[_ ]exceeded",
	"too many tokens",
	"token limit exceeded",
	"prompt too long; exceeded max context length",
};

int
llm_is_overflow(const char *message)
{
	regex_t re;
	size_t i;
	int hit;

	if (message == NULL)
		return 0;
	for (i = 0; i < sizeof(overflow_patterns) / sizeof(*overflow_patterns);
	    i++) {
		if (regcomp(&re, overflow_patterns[i],
		    REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
			continue;
		hit = regexec(&re, message, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return 1;
	}
	return 0;
}

/* The error object's words, from any of the providers' shapes. */
static void
error_words(struct json_object *body, const char **message, const char **type)
{
	struct json_object *err = jsonx_get(body, "error");

	*message = NULL;
	*type = NULL;
	if (jsonx_is(body, json_type_array))
		err = jsonx_get(json_object_array_get_idx(body, 0), "error");
	if (jsonx_is(err, json_type_string)) {
		*message = json_object_get_string(err);
		return;
	}
	*message = jsonx_str(err, "message");
	if ((*type = jsonx_str(err, "type")) == NULL &&
	    (*type = jsonx_str(err, "status")) == NULL)
		*type = jsonx_str(err, "code");
	if (*message == NULL)
		*message = jsonx_str(body, "message");
}

static int
quota_gone(const char *body)
{
	return strstr(body, "insufficient_quota") != NULL ||
	    strstr(body, "enforced_spend_limit_reached") != NULL ||
	    strstr(body, "PerDay") != NULL;
}

int
llm_http_error(long status, const char *body, size_t len, struct pi_error *e)
{
	struct json_object *o = jsonx_parse(body, len, NULL);
	const char *msg, *type;
	char words[400];
	int rc;

	error_words(o, &msg, &type);
	if (msg != NULL)
		snprintf(words, sizeof(words), "%s%s%s%s", msg,
		    type ? " (" : "", type ? type : "", type ? ")" : "");
	else
		snprintf(words, sizeof(words), "%.*s", len > 200 ? 200 :
		    (int)len, body);
	if (llm_is_overflow(words) || llm_is_overflow(body))
		rc = pi_err(e, PI_EXIT_REFUSED, "context_overflow",
		    "HTTP %ld: %s", status, words);
	else if (status == 401 || status == 403 || strstr(body,
	    "API_KEY_INVALID") != NULL)
		rc = pi_err(e, PI_EXIT_CONFIG, "auth", "HTTP %ld: %s",
		    status, words);
	else if (status == 404)
		rc = pi_err(e, PI_EXIT_CONFIG, "not_found", "HTTP %ld: %s",
		    status, words);
	else if (status == 429 && quota_gone(body))
		rc = pi_err(e, PI_EXIT_REFUSED, "quota_exceeded",
		    "HTTP %ld: %s", status, words);
	else if (status == 429)
		rc = pi_err(e, PI_EXIT_TEMP, "rate_limited", "HTTP %ld: %s",
		    status, words);
	else if (status == 529 || status == 503)
		rc = pi_err(e, PI_EXIT_TEMP, "overloaded", "HTTP %ld: %s",
		    status, words);
	else if (status >= 500 || status == 408 || status == 409)
		rc = pi_err(e, PI_EXIT_TEMP, "server_error", "HTTP %ld: %s",
		    status, words);
	else
		rc = pi_err(e, PI_EXIT_REFUSED, "invalid_request",
		    "HTTP %ld: %s", status, words);
	json_object_put(o);
	return rc;
}

int
llm_stream_error(const char *type, const char *message, struct pi_error *e)
{
	static const char *const temporary[] = {
		"overloaded_error", "rate_limit_error", "api_error",
		"server_error", "timeout_error", "RESOURCE_EXHAUSTED",
		"UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "overloaded",
		"rate_limit_exceeded", "internal_error",
	};
	size_t i;

	if (message == NULL)
		message = "the provider reported an error";
	if (type == NULL)
		type = "error";
	if (llm_is_overflow(message) || llm_is_overflow(type))
		return pi_err(e, PI_EXIT_REFUSED, "context_overflow",
		    "%s (%s)", message, type);
	for (i = 0; i < sizeof(temporary) / sizeof(*temporary); i++)
		if (strcmp(type, temporary[i]) == 0)
			return pi_err(e, PI_EXIT_TEMP, strstr(type, "overload") ?
			    "overloaded" : strstr(type, "rate") ?
			    "rate_limited" : "server_error", "%s (%s)",
			    message, type);
	return pi_err(e, PI_EXIT_REFUSED, "provider_error", "%s (%s)",
	    message, type);
}

/* Gemini puts its hint in the body: details[].retryDelay "34.4s". */
static long long
body_retry_delay(const char *body, size_t len)
{
	struct json_object *o = jsonx_parse(body, len, NULL), *d, *err;
	long long ms = -1;
	const char *s;
	size_t i, n;

	err = jsonx_get(jsonx_is(o, json_type_array) ?
	    json_object_array_get_idx(o, 0) : o, "error");
	d = jsonx_arr(err, "details");
	n = d ? json_object_array_length(d) : 0;
	for (i = 0; i < n; i++)
		if ((s = jsonx_str(json_object_array_get_idx(d, i),
		    "retryDelay")) != NULL)
			ms = (long long)(strtod(s, NULL) * 1000);
	json_object_put(o);
	return ms;
}

static long long
backoff(const struct llm_opts *o, int attempt)
{
	long long ms = o->backoff_ms;
	unsigned r;
	int i;

	for (i = 0; i < attempt && ms < 8000; i++)
		ms *= 2;
	if (ms > 8000)
		ms = 8000;
	/* Jitter in [0.75, 1] keeps a crowd of clients from marching. */
	r = (unsigned)(pi_mono_us() % 1000);
	return ms - ms * (long long)r / 4000;
}

static int
nap(long long ms, volatile sig_atomic_t *abort)
{
	long long until = pi_mono_ms() + ms, left;
	struct timespec ts;

	while ((left = until - pi_mono_ms()) > 0) {
		if (abort != NULL && *abort)
			return -1;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		nanosleep(&ts, NULL);
	}
	return abort != NULL && *abort ? -1 : 0;
}

static int
announce(struct reply *r, int attempt, int max, long long delay,
    const struct pi_error *why, long status, struct pi_error *e)
{
	struct json_object *ev = event_new("retry");
	int rc;

	jsonx_set_int(ev, "attempt", attempt);
	jsonx_set_int(ev, "maxRetries", max);
	jsonx_set_int(ev, "delayMs", delay);
	jsonx_set_str(ev, "reason", why->msg);
	jsonx_set_str(ev, "code", why->code);
	if (status > 0)
		jsonx_set_int(ev, "status", status);
	rc = r->emit(r->arg, ev);
	json_object_put(ev);
	if (rc == -1)
		return pi_err(e, PI_EXIT_PIPE, "output_closed",
		    "the reader of stdout went away");
	return 0;
}

/*
 * Whether a failed attempt may be tried again: on an error status the
 * server's x-should-retry wins, then the error's own class.  Once an event of the
 * attempt is out, the failure stands: the reader has seen half a reply.
 */
static int
retryable(const struct pi_error *e, const struct http_result *res,
    int wrote)
{
	if (wrote)
		return 0;
	if (res->outcome == HTTP_DONE && res->status > 299 &&
	    res->should_retry != -1)
		return res->should_retry;
	return pi_is_temporary(e);
}

/*
 * A key is never printed: a server's error may quote the key it was
 * sent, and every message below may reach stderr or an event.
 */
static void
redact(char *msg, const char *key)
{
	size_t k = key ? strlen(key) : 0;
	char *p;

	/* Shorter than that is no real key, and "[key]" must fit in it. */
	if (k < 8)
		return;
	while ((p = strstr(msg, key)) != NULL) {
		memcpy(p, "[key]", 5);
		memmove(p + 5, p + k, strlen(p + k) + 1);
	}
}

struct attempt {
	const struct api *api;
	struct recording *rec;
	void *stream;
	struct pi_error err;
	int failed;
	int json_body;		/* a 200 that is JSON, not a stream */
	struct buf body;
	struct http_result *res;
};

static int
on_data(void *arg, const char *p, size_t n)
{
	struct attempt *a = arg;
	int rc;

	/* A recorded slice's events carry the time it arrived, as replayed. */
	if (a->rec != NULL && !a->rec->playing)
		event_clock_set(record_chunk(a->rec, p, n));
	if (a->body.len == 0 && !a->json_body && a->res->content_type[0] &&
	    strncasecmp(a->res->content_type, "application/json", 16) == 0)
		a->json_body = 1;
	if (a->json_body) {
		/* Past the ceiling it is cut; it is only read for words. */
		buf_add(&a->body, p, n);
		return 0;
	}
	rc = a->api->stream_push(a->stream, p, n, &a->err);
	if (a->rec != NULL && !a->rec->playing)
		event_clock_reset();
	if (rc == -1) {
		a->failed = 1;
		return -1;
	}
	return 0;
}

static int
aborted(const struct llm_opts *o, struct pi_error *e)
{
	int sig = (int)*o->abort;

	return pi_err(e, 128 + sig, "aborted", "aborted by %s",
	    sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal");
}

/* A 2xx answer in plain JSON: an error in disguise, or a wrong server. */
static int
json_answer(struct attempt *a, struct pi_error *e)
{
	struct json_object *o = jsonx_parse(a->body.data, a->body.len, NULL);
	const char *msg, *type;
	int rc;

	error_words(o, &msg, &type);
	if (msg != NULL)
		rc = llm_stream_error(type, msg, e);
	else
		rc = pi_err(e, PI_EXIT_TEMP, "bad_response", "HTTP %ld: a "
		    "JSON answer where an event stream was expected",
		    a->res->status);
	json_object_put(o);
	return rc;
}

/* One exchange; 0 when the reply ended, else -1 with a->err filled. */
static int
exchange(struct attempt *a, const struct llm_request *q, const char *body,
    size_t len, const struct llm_opts *o)
{
	struct http_request hr;
	struct http_result *res = a->res;
	char host[128];
	int rc;

	memset(&hr, 0, sizeof(hr));
	hr.url = q->url;
	hr.headers = (const char *const *)q->headers;
	hr.body = body;
	hr.body_len = len;
	hr.idle_ms = o->idle_ms;
	hr.connect_timeout_ms = o->connect_timeout_ms;
	hr.abort = o->abort;
	hr.on_data = on_data;
	hr.arg = a;
	if (a->rec != NULL && a->rec->playing)
		rc = record_play(a->rec, &hr, res, &a->err);
	else
		rc = http_post(o->http, &hr, res);
	if (a->rec != NULL && !a->rec->playing)
		record_end(a->rec, res);
	if (rc == 0) {
		if (res->status < 200 || res->status > 299)
			return llm_http_error(res->status, res->errbody.data,
			    res->errbody.len, &a->err);
		if (a->json_body)
			return json_answer(a, &a->err);
		return a->api->stream_end(a->stream, &a->err);
	}
	switch (res->outcome) {
	case HTTP_ABORTED:
		return aborted(o, &a->err);
	case HTTP_IDLE:
		return pi_err(&a->err, PI_EXIT_TIMEOUT, "idle_timeout",
		    "no data from the provider for %ld s", o->idle_ms / 1000);
	case HTTP_STOPPED:
		return -1;	/* a->err was filled by the parser */
	case HTTP_TLS:
		http_url_host(host, sizeof(host), q->url);
		return pi_err(&a->err, PI_EXIT_CONFIG, "tls_certificate",
		    "cannot verify the TLS certificate of '%s': %s", host,
		    res->detail);
	case HTTP_TRUNCATED:
		return pi_err(&a->err, PI_EXIT_TEMP, "truncated_stream",
		    "the connection closed in the middle of the stream (%s)",
		    res->detail);
	default:
		return pi_err(&a->err, PI_EXIT_TEMP, "network", "%s: %s",
		    q->url, res->detail);
	}
}

/*
 * A new recording opens with the request's fingerprint; a replay
 * refuses a request that is not the recorded one, unless told not to,
 * and plays it under the recorded message id and start time, so that
 * the events come out the same.
 */
static int
recording_start(const struct llm_opts *o, const struct llm_call *c,
    const struct llm_request *q, const char *body, size_t len,
    struct reply *r, struct pi_error *e)
{
	struct json_object *h;
	const char *want;
	char hash[32];

	if (record_next(o->rec, e) == -1)
		return -1;
	record_hash(q->url, body, len, hash);
	if (o->rec->playing) {
		h = record_header(o->rec);
		if (jsonx_str(h, "messageId") != NULL)
			snprintf(r->message_id, sizeof(r->message_id), "%s",
			    jsonx_str(h, "messageId"));
		r->timestamp = jsonx_int(h, "timestamp", r->timestamp);
		if (o->rec->clock)
			event_clock_set(r->timestamp);
		want = jsonx_str(h, "requestHash");
		if (!o->replay_loose && (want == NULL || strcmp(want, hash)))
			return pi_err(e, PI_EXIT_INPUT, "replay_mismatch",
			    "the request is not the recorded one (%s, "
			    "recorded %s): use --replay-loose to play it "
			    "anyway", hash, want ? want : "none");
		return 0;
	}
	h = json_object_new_object();
	jsonx_set_str(h, "type", "recording");
	jsonx_set_int(h, "v", 1);
	jsonx_set_str(h, "api", c->api);
	jsonx_set_str(h, "provider", c->provider);
	jsonx_set_str(h, "model", c->model);
	jsonx_set_str(h, "url", q->url);
	jsonx_set_str(h, "requestHash", hash);
	jsonx_set_str(h, "messageId", r->message_id);
	jsonx_set_int(h, "timestamp", r->timestamp);
	record_begin(o->rec, h);
	return 0;
}

int
llm_stream(const struct api *api, const struct llm_call *c,
    const struct llm_opts *o, struct reply *r, struct pi_error *e)
{
	struct llm_request q;
	struct http_result res;
	struct attempt a;
	const char *body;
	size_t len, lines;
	long long delay;
	size_t i;
	int attempt, rc = -1;

	memset(&q, 0, sizeof(q));
	if (api->request(c, &q, e) == -1)
		goto out;
	/* The user's headers (models.json) come after the API's own. */
	for (i = 0; c->headers && i < json_object_array_length(c->headers);
	    i++)
		llm_request_header(&q, "%s", json_object_get_string(
		    json_object_array_get_idx(c->headers, i)));
	body = jsonx_string(q.body, &len);
	if (o->rec != NULL && recording_start(o, c, &q, body, len, r, e) == -1)
		goto out;
	for (attempt = 0;; attempt++) {
		memset(&a, 0, sizeof(a));
		a.api = api;
		a.rec = o->rec;
		a.res = &res;
		buf_init(&a.body, PI_MAX_ERRBODY);
		http_result_init(&res);
		reply_reset(r);
		lines = r->lines;
		a.stream = api->stream_new(r);
		rc = exchange(&a, &q, body, len, o);
		api->stream_free(a.stream);
		buf_release(&a.body);
		if (rc == 0) {
			http_result_release(&res);
			break;
		}
		*e = a.err;
		redact(e->msg, c->api_key);
		if (!retryable(e, &res, r->lines != lines) ||
		    attempt >= o->max_retries || (o->abort && *o->abort)) {
			http_result_release(&res);
			break;
		}
		delay = res.retry_after_ms;
		if (delay < 0)
			delay = body_retry_delay(res.errbody.data,
			    res.errbody.len);
		if (delay > LLM_MAX_HINT_MS) {
			http_result_release(&res);
			pi_err(e, PI_EXIT_TEMP, e->code, "%s; the server asks "
			    "to wait %lld s, more than the %d s pi-llm waits",
			    a.err.msg, delay / 1000, LLM_MAX_HINT_MS / 1000);
			rc = -1;
			break;
		}
		if (delay < 0)
			delay = backoff(o, attempt);
		/* A replay waits as the recorded call did, and not at all. */
		if (o->rec != NULL && o->rec->playing)
			delay = record_retry_delay(o->rec);
		else if (o->rec != NULL)
			event_clock_set(record_retry(o->rec, delay));
		rc = announce(r, attempt + 1, o->max_retries, delay, e,
		    res.status, e);
		if (o->rec != NULL && !o->rec->playing)
			event_clock_reset();
		http_result_release(&res);
		if (rc == -1)
			break;
		if ((o->rec == NULL || !o->rec->playing) &&
		    nap(delay, o->abort) == -1) {
			rc = aborted(o, e);
			break;
		}
	}
out:
	llm_request_release(&q);
	return rc;
}
