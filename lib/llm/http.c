/* http: see http.h. */
#include "http.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "curlfn.h"
#include "core/util.h"
#include "core/banned.h"

struct xfer {
	const struct http_request *req;
	struct http_result *res;
	CURL *curl;
	long long last_byte_ms;
	int status_known;
	int stopped;
	int dir_only;		/* this try left the CA bundle out */
};

void
http_result_init(struct http_result *res)
{
	memset(res, 0, sizeof(*res));
	buf_init(&res->errbody, PI_MAX_ERRBODY);
	res->retry_after_ms = -1;
	res->should_retry = -1;
}

void
http_result_release(struct http_result *res)
{
	buf_release(&res->errbody);
}

static void
copy_value(char *dst, size_t size, const char *v, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

/* "Name: value\r\n" -> 1 if it is name, with the trimmed value. */
static int
header_is(const char *line, size_t n, const char *name, const char **v,
    size_t *vn)
{
	size_t k = strlen(name);

	if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return 0;
	line += k + 1, n -= k + 1;
	while (n > 0 && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n > 0 && isspace((unsigned char)line[n - 1]))
		n--;
	*v = line;
	*vn = n;
	return 1;
}

static size_t
on_header(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	struct http_result *res = x->res;
	size_t n = size * nmemb, vn;
	const char *v;
	char tmp[128];
	double d;
	time_t t;

	x->last_byte_ms = pi_mono_ms();
	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* A new response (after a 100 Continue, say) starts over. */
		res->retry_after_ms = -1;
		res->should_retry = -1;
		res->content_type[0] = '\0';
		return n;
	}
	if (header_is(p, n, "retry-after-ms", &v, &vn)) {
		copy_value(tmp, sizeof(tmp), v, vn);
		d = strtod(tmp, NULL);
		if (d > 0)
			res->retry_after_ms = (long long)d;
	} else if (header_is(p, n, "retry-after", &v, &vn) &&
	    res->retry_after_ms < 0) {
		char *end;

		copy_value(tmp, sizeof(tmp), v, vn);
		d = strtod(tmp, &end);
		if (end != tmp && *end == '\0' && d >= 0)
			res->retry_after_ms = (long long)(d * 1000);
		else if ((t = curlfn.getdate(tmp, NULL)) != -1)
			res->retry_after_ms = t > time(NULL) ?
			    (long long)(t - time(NULL)) * 1000 : 0;
	} else if (header_is(p, n, "x-should-retry", &v, &vn)) {
		res->should_retry = vn == 4 && strncasecmp(v, "true", 4) == 0;
	} else if (header_is(p, n, "content-type", &v, &vn)) {
		copy_value(res->content_type, sizeof(res->content_type), v, vn);
	} else if (header_is(p, n, "x-request-id", &v, &vn) ||
	    header_is(p, n, "request-id", &v, &vn)) {
		copy_value(res->request_id, sizeof(res->request_id), v, vn);
	}
	return n;
}

static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	struct http_result *res = x->res;
	size_t n = size * nmemb;

	x->last_byte_ms = pi_mono_ms();
	if (!x->status_known) {
		curlfn.easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE,
		    &res->status);
		x->status_known = 1;
	}
	res->body_bytes += (long long)n;
	if (res->status < 200 || res->status > 299) {
		/* Past the ceiling the error body is cut, not failed. */
		if (res->errbody.len < res->errbody.max)
			buf_add(&res->errbody, p, n < res->errbody.max -
			    res->errbody.len ? n : res->errbody.max -
			    res->errbody.len);
		return n;
	}
	if (x->req->on_data(x->req->arg, p, n) == -1) {
		x->stopped = 1;
		return 0;
	}
	return n;
}

static struct curl_slist *
make_headers(const char *const *h)
{
	struct curl_slist *list = NULL, *l;

	for (; h != NULL && *h != NULL; h++) {
		if ((l = curlfn.slist_append(list, *h)) == NULL) {
			curlfn.slist_free_all(list);
			return NULL;
		}
		list = l;
	}
	/* A server that never answers 100-continue costs a second. */
	return curlfn.slist_append(list, "Expect:");
}

void
http_client_init(struct http_client *c)
{
	memset(c, 0, sizeof(*c));
}

void
http_client_release(struct http_client *c)
{
	if (c->easy != NULL)
		curlfn.easy_cleanup(c->easy);
	if (c->multi != NULL)
		curlfn.multi_cleanup(c->multi);
	memset(c, 0, sizeof(*c));
}

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/*
 * Whether the CA directory alone may stand for libcurl's built-in trust:
 * an OpenSSL backend (which looks certificates up in a hashed directory
 * one by one) and a built-in bundle and directory both.
 */
static int
dir_will_do(CURL *h)
{
	static const char *const openssl[] = {
		"OpenSSL/", "LibreSSL/", "BoringSSL", "quictls/",
	};
	const curl_version_info_data *v = curlfn.version_info(CURLVERSION_NOW);
	char *file = NULL, *dir = NULL;
	size_t i;

	if (v == NULL || v->ssl_version == NULL)
		return 0;
	for (i = 0; i < sizeof(openssl) / sizeof(openssl[0]); i++)
		if (strncmp(v->ssl_version, openssl[i],
		    strlen(openssl[i])) == 0)
			break;
	if (i == sizeof(openssl) / sizeof(openssl[0]))
		return 0;
	/* CURLINFO_CAINFO and _CAPATH are libcurl 7.84's: older say no. */
	if (curlfn.easy_getinfo(h, CURLINFO_CAINFO, &file) != CURLE_OK ||
	    curlfn.easy_getinfo(h, CURLINFO_CAPATH, &dir) != CURLE_OK)
		return 0;
	return file != NULL && dir != NULL;
}

/* See http.h; 1 when the built-in bundle was left out. */
static int
tls_trust(struct http_client *c, CURL *h)
{
	const char *file = env("CURL_CA_BUNDLE"), *dir = NULL;

	if (file == NULL) {
		file = env("SSL_CERT_FILE");
		dir = env("SSL_CERT_DIR");
	}
	if (file != NULL)
		curlfn.easy_setopt(h, CURLOPT_CAINFO, file);
	if (dir != NULL)
		curlfn.easy_setopt(h, CURLOPT_CAPATH, dir);
	if (file != NULL || dir != NULL)
		return 0;
	if (!c->checked) {
		c->dir_only = dir_will_do(h);
		c->checked = 1;
	}
	if (c->dir_only)
		curlfn.easy_setopt(h, CURLOPT_CAINFO, (char *)NULL);
	return c->dir_only;
}

/* The certificate or the trust store is wrong: no retry mends that. */
static int
tls_failed(CURLcode rc)
{
	return rc == CURLE_PEER_FAILED_VERIFICATION ||
	    rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CERTPROBLEM ||
	    rc == CURLE_SSL_ISSUER_ERROR || rc == CURLE_SSL_CRL_BADFILE ||
	    rc == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
}

/* scheme://[user@]host[:port]/... */
void
http_url_host(char *dst, size_t size, const char *url)
{
	const char *p = strstr(url, "://"), *end, *at;

	p = p != NULL ? p + 3 : url;
	end = p + strcspn(p, "/?#");
	if ((at = memchr(p, '@', (size_t)(end - p))) != NULL)
		p = at + 1;
	copy_value(dst, size, p, (size_t)(end - p));
}

static void
setup(struct http_client *c, struct xfer *x, struct curl_slist *headers,
    char *errbuf)
{
	const struct http_request *req = x->req;
	CURL *h = x->curl;

	curlfn.easy_reset(h);
	curlfn.easy_setopt(h, CURLOPT_URL, req->url);
	curlfn.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curlfn.easy_setopt(h, CURLOPT_POST, 1L);
	curlfn.easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
	curlfn.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)req->body_len);
	curlfn.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curlfn.easy_setopt(h, CURLOPT_WRITEDATA, x);
	curlfn.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curlfn.easy_setopt(h, CURLOPT_HEADERDATA, x);
	curlfn.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curlfn.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curlfn.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
	    req->connect_timeout_ms);
	curlfn.easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
	curlfn.easy_setopt(h, CURLOPT_USERAGENT, "pi/" PI_VERSION);
	curlfn.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	x->dir_only = tls_trust(c, h);
}

/* Drive one transfer to its end; its CURLcode, or -1 with outcome set. */
static int
transfer(CURLM *multi, struct xfer *x)
{
	const struct http_request *req = x->req;
	CURLMsg *msg;
	CURLcode rc = CURLE_OK;
	int running = 1, left, done = 0;
	long long wait;

	curlfn.multi_add_handle(multi, x->curl);
	x->last_byte_ms = pi_mono_ms();
	while (!done) {
		if (req->abort != NULL && *req->abort) {
			x->res->outcome = HTTP_ABORTED;
			return -1;
		}
		if (curlfn.multi_perform(multi, &running) != CURLM_OK)
			break;
		while ((msg = curlfn.multi_info_read(multi, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE) {
				rc = msg->data.result;
				done = 1;
			}
		if (done || !running)
			break;
		if (req->abort != NULL && *req->abort)
			continue;
		wait = x->last_byte_ms + req->idle_ms - pi_mono_ms();
		if (req->idle_ms > 0 && wait <= 0) {
			x->res->outcome = HTTP_IDLE;
			return -1;
		}
		if (req->idle_ms <= 0 || wait > 50)
			wait = 50;
		curlfn.multi_poll(multi, NULL, 0, (int)wait, NULL);
	}
	return (int)rc;
}

int
http_post(struct http_client *c, const struct http_request *req,
    struct http_result *res)
{
	struct xfer x;
	struct curl_slist *headers;
	char errbuf[CURL_ERROR_SIZE];
	const char *why;
	int rc, ret = -1;

	memset(&x, 0, sizeof(x));
	x.req = req;
	x.res = res;
	if (c->easy == NULL)
		c->easy = curlfn.easy_init();
	if (c->multi == NULL)
		c->multi = curlfn.multi_init();
	if ((headers = make_headers(req->headers)) == NULL ||
	    c->easy == NULL || c->multi == NULL) {
		curlfn.slist_free_all(headers);
		res->outcome = HTTP_NETWORK;
		copy_value(res->detail, sizeof(res->detail), "curl init", 9);
		return -1;
	}
	x.curl = c->easy;
	for (;;) {
		errbuf[0] = '\0';
		setup(c, &x, headers, errbuf);
		rc = transfer(c->multi, &x);
		curlfn.multi_remove_handle(c->multi, x.curl);
		/* Refused by the directory alone: the bundle may know it. */
		if (rc != CURLE_PEER_FAILED_VERIFICATION || !x.dir_only ||
		    x.status_known)
			break;
		c->dir_only = 0;
	}
	/* The errors are the handle's: nothing of them outlives the call. */
	curlfn.easy_setopt(x.curl, CURLOPT_ERRORBUFFER, (char *)NULL);
	if (rc == -1)
		goto out;
	if (x.stopped) {
		res->outcome = HTTP_STOPPED;
		goto out;
	}
	if (rc != CURLE_OK) {
		why = errbuf[0] ? errbuf : curlfn.easy_strerror((CURLcode)rc);
		copy_value(res->detail, sizeof(res->detail), why, strlen(why));
		res->outcome = rc == CURLE_PARTIAL_FILE ? HTTP_TRUNCATED :
		    tls_failed((CURLcode)rc) ? HTTP_TLS : HTTP_NETWORK;
		goto out;
	}
	if (!x.status_known)
		curlfn.easy_getinfo(x.curl, CURLINFO_RESPONSE_CODE, &res->status);
	res->outcome = HTTP_DONE;
	ret = 0;
out:
	curlfn.slist_free_all(headers);
	return ret;
}
