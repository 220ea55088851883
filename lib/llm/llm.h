/*
 * llm: one model call, start to finish.  Builds the request through the
 * API's functions, posts it, feeds the stream to the API's parser, and
 * retries what is worth retrying: connection failures, 408, 409, 429,
 * 5xx and 529, and a stream that broke, but only while nothing has been
 * written for the attempt (once output has started, a failure is
 * reported, never silently retried).  Each retry is announced by a retry
 * event and waits for the server's hint (retry-after-ms, retry-after, a
 * RetryInfo delay in the body; at most LLM_MAX_HINT_MS) or exponential
 * backoff with jitter.
 *
 * On failure e says why, with the exit status of DESIGN.md section 7;
 * the reply is left for the caller to end (reply_fail) and report.
 */
#ifndef PI_LLM_H
#define PI_LLM_H

#include <signal.h>
#include <stddef.h>

struct api;
struct http_client;
struct llm_call;
struct recording;
struct pi_error;
struct reply;

#define LLM_MAX_HINT_MS 60000

struct llm_opts {
	int max_retries;
	long idle_ms;
	long connect_timeout_ms;
	long backoff_ms;	/* first backoff step; doubles, capped at 8 s */
	volatile sig_atomic_t *abort;	/* holds the signal number */
	struct http_client *http;	/* kept from call to call */
	struct recording *rec;	/* --record or --replay, or NULL */
	int replay_loose;	/* play even if the request changed */
};

int llm_stream(const struct api *api, const struct llm_call *c,
    const struct llm_opts *o, struct reply *r, struct pi_error *e);

/* An HTTP error answer (status, body) as a pi_error. */
int llm_http_error(long status, const char *body, size_t len,
    struct pi_error *e);
/* An error the provider sent inside a 200 stream. */
int llm_stream_error(const char *type, const char *message,
    struct pi_error *e);
int llm_is_overflow(const char *message);

#endif
