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

static int
network(struct http_result *res, CURLcode rc)
{
	res->outcome = HTTP_NETWORK;
	copy_value(res->detail, sizeof(res->detail), curlfn.easy_strerror(rc),
	    strlen(curlfn.easy_strerror(rc)));
	return -1;
}

int
http_post(const struct http_request *req, struct http_result *res)
{
	struct xfer x;
	struct curl_slist *headers;
	CURLM *multi;
	CURLMsg *msg;
	CURLcode rc = CURLE_OK;
	int running = 1, left, done = 0, ret = -1;
	long long wait;

	memset(&x, 0, sizeof(x));
	x.req = req;
	x.res = res;
	if ((headers = make_headers(req->headers)) == NULL ||
	    (x.curl = curlfn.easy_init()) == NULL ||
	    (multi = curlfn.multi_init()) == NULL) {
		curlfn.easy_cleanup(x.curl);
		curlfn.slist_free_all(headers);
		res->outcome = HTTP_NETWORK;
		copy_value(res->detail, sizeof(res->detail), "curl init", 9);
		return -1;
	}
	curlfn.easy_setopt(x.curl, CURLOPT_URL, req->url);
	curlfn.easy_setopt(x.curl, CURLOPT_HTTPHEADER, headers);
	curlfn.easy_setopt(x.curl, CURLOPT_POST, 1L);
	curlfn.easy_setopt(x.curl, CURLOPT_POSTFIELDS, req->body);
	curlfn.easy_setopt(x.curl, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)req->body_len);
	curlfn.easy_setopt(x.curl, CURLOPT_WRITEFUNCTION, on_body);
	curlfn.easy_setopt(x.curl, CURLOPT_WRITEDATA, &x);
	curlfn.easy_setopt(x.curl, CURLOPT_HEADERFUNCTION, on_header);
	curlfn.easy_setopt(x.curl, CURLOPT_HEADERDATA, &x);
	curlfn.easy_setopt(x.curl, CURLOPT_NOSIGNAL, 1L);
	curlfn.easy_setopt(x.curl, CURLOPT_CONNECTTIMEOUT_MS,
	    req->connect_timeout_ms);
	curlfn.easy_setopt(x.curl, CURLOPT_TCP_NODELAY, 1L);
	curlfn.easy_setopt(x.curl, CURLOPT_USERAGENT, "pi/" PI_VERSION);
	curlfn.easy_setopt(x.curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curlfn.multi_add_handle(multi, x.curl);

	x.last_byte_ms = pi_mono_ms();
	while (!done) {
		if (req->abort != NULL && *req->abort) {
			res->outcome = HTTP_ABORTED;
			goto out;
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
		wait = x.last_byte_ms + req->idle_ms - pi_mono_ms();
		if (req->idle_ms > 0 && wait <= 0) {
			res->outcome = HTTP_IDLE;
			goto out;
		}
		if (req->idle_ms <= 0 || wait > 50)
			wait = 50;
		curlfn.multi_poll(multi, NULL, 0, (int)wait, NULL);
	}
	if (x.stopped) {
		res->outcome = HTTP_STOPPED;
		goto out;
	}
	if (rc != CURLE_OK) {
		network(res, rc);
		if (rc == CURLE_PARTIAL_FILE)
			res->outcome = HTTP_TRUNCATED;
		goto out;
	}
	if (!x.status_known)
		curlfn.easy_getinfo(x.curl, CURLINFO_RESPONSE_CODE, &res->status);
	res->outcome = HTTP_DONE;
	ret = 0;
out:
	curlfn.multi_remove_handle(multi, x.curl);
	curlfn.easy_cleanup(x.curl);
	curlfn.multi_cleanup(multi);
	curlfn.slist_free_all(headers);
	return ret;
}
