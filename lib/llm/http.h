/*
 * http: one streaming POST over libcurl, nothing else.
 *
 * The body of a 2xx answer goes to on_data as it arrives, in whatever
 * slices the network gives; any other status has its body kept (up to
 * PI_MAX_ERRBODY) for the caller to read the provider's error from.  The
 * idle timeout counts from the last byte received (headers included),
 * not curl's averaged low-speed limit, and is checked at least every
 * 50 ms; a set *abort flag (a signal handler's) ends the transfer at once,
 * since the poll it waits in is interrupted by the signal.
 *
 * http_post returns 0 when the exchange completed (whatever the status)
 * and -1 otherwise, with res->outcome saying why.  The caller calls
 * curl_global_init once.
 *
 * A client is what one exchange leaves to the next: libcurl's handles,
 * and in them the open connections (HTTP/1.1 keep-alive, HTTP/2), the
 * TLS sessions to resume and the DNS cache.  http_client_init zeroes
 * it, the first http_post makes the handles, http_client_release closes
 * them.
 *
 * Trusted CA certificates come from CURL_CA_BUNDLE (a file, as curl(1)
 * reads it), else SSL_CERT_FILE and SSL_CERT_DIR (a file and a hashed
 * directory, as OpenSSL reads them), each replacing libcurl's built-in
 * one.  With none of them set and an OpenSSL backend built with a CA
 * directory, the directory alone is used: OpenSSL then reads the one or
 * two certificates a chain needs, where the built-in bundle costs some
 * 40 ms of CPU to parse at every start.  A certificate that fails
 * against the directory alone is tried at once against the bundle too,
 * so the trust is never narrower than libcurl's own.  A certificate that
 * fails verification ends the exchange as HTTP_TLS, which is permanent.
 */
#ifndef PI_HTTP_H
#define PI_HTTP_H

#include <signal.h>
#include <stddef.h>

#include "core/buf.h"

enum http_outcome {
	HTTP_DONE,
	HTTP_NETWORK,	/* connect, reset: temporary */
	HTTP_TRUNCATED,	/* the body was cut off mid-way */
	HTTP_IDLE,	/* no byte for idle_ms */
	HTTP_ABORTED,	/* *abort was set */
	HTTP_STOPPED,	/* on_data returned -1 */
	HTTP_TLS	/* the server's certificate failed: permanent */
};

struct http_request {
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;
	size_t body_len;
	long idle_ms;
	long connect_timeout_ms;
	volatile sig_atomic_t *abort;
	/* Called with each slice of a 2xx body; -1 stops the transfer. */
	int (*on_data)(void *arg, const char *p, size_t n);
	void *arg;
};

struct http_result {
	enum http_outcome outcome;
	long status;
	struct buf errbody;
	long long retry_after_ms;	/* -1: no hint */
	int should_retry;		/* -1: no x-should-retry header */
	char content_type[128];
	char request_id[128];
	char detail[256];		/* curl's words on a network failure */
	long long body_bytes;
};

struct http_client {
	void *multi;		/* CURLM * */
	void *easy;		/* CURL * */
	int dir_only;		/* 1: the CA directory alone will do */
	int checked;		/* dir_only is known */
};

void http_client_init(struct http_client *c);
void http_client_release(struct http_client *c);

void http_result_init(struct http_result *res);
void http_result_release(struct http_result *res);
int http_post(struct http_client *c, const struct http_request *req,
    struct http_result *res);
/* The host (and port) of a URL, for messages, cut to fit size. */
void http_url_host(char *dst, size_t size, const char *url);

#endif
