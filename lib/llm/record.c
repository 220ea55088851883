/* record: see record.h. */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

/* The decoder's alphabet; the encoder is pi_base64 in util.c. */
static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
unbase64(const char *s, struct buf *out)
{
	uint32_t v = 0;
	int bits = 0;
	const char *k;

	for (; *s && *s != '='; s++) {
		if ((k = strchr(b64, *s)) == NULL)
			return -1;
		v = v << 6 | (uint32_t)(k - b64);
		if ((bits += 6) >= 8) {
			bits -= 8;
			if (buf_addc(out, (int)(v >> bits & 0xff)) == -1)
				return -1;
		}
	}
	return 0;
}

void
record_hash(const char *url, const char *body, size_t len, char out[32])
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; url[i]; i++)
		h = (h ^ (unsigned char)url[i]) * 1099511628211ull;
	h *= 1099511628211ull;	/* the NUL between them */
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)body[i]) * 1099511628211ull;
	snprintf(out, 32, "fnv1a64:%016llx", (unsigned long long)h);
}

int
record_create(struct recording *rec, const char *path, struct pi_error *e)
{
	memset(rec, 0, sizeof(*rec));
	rec->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (rec->fd == -1)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "cannot create "
		    "'%s': %s", path, strerror(errno));
	return 0;
}

/* A recording is written as it goes: a crash keeps what came before. */
static void
put(struct recording *rec, struct json_object *o)
{
	ndjson_write(rec->fd, o);
	json_object_put(o);
}

void
record_begin(struct recording *rec, struct json_object *header)
{
	put(rec, header);
}

static struct json_object *
line(struct recording *rec, const char *type, long long ts)
{
	struct json_object *o = json_object_new_object();

	jsonx_set_str(o, "type", type);
	jsonx_set_int(o, "attempt", rec->attempt);
	jsonx_set_int(o, "ts", ts);
	return o;
}

long long
record_chunk(struct recording *rec, const char *p, size_t n)
{
	long long ts = event_clock_ms();
	struct json_object *o = line(rec, "chunk", ts);
	char *s;

	if (utf8_valid(p, n))
		jsonx_set(o, "data", json_object_new_string_len(p, (int)n));
	else {
		s = pi_base64(p, n);
		jsonx_set_str(o, "b64", s);
		free(s);
	}
	put(rec, o);
	return ts;
}

static const char *const outcomes[] = {
	[HTTP_DONE] = "done", [HTTP_NETWORK] = "network",
	[HTTP_TRUNCATED] = "truncated", [HTTP_IDLE] = "idle",
	[HTTP_ABORTED] = "network", [HTTP_STOPPED] = "stopped",
	[HTTP_TLS] = "tls",
};

void
record_end(struct recording *rec, const struct http_result *res)
{
	struct json_object *o = line(rec, "end", event_clock_ms());

	jsonx_set_str(o, "outcome", outcomes[res->outcome]);
	jsonx_set_int(o, "status", res->status);
	if (res->content_type[0])
		jsonx_set_str(o, "contentType", res->content_type);
	if (res->retry_after_ms >= 0)
		jsonx_set_int(o, "retryAfterMs", res->retry_after_ms);
	if (res->should_retry >= 0)
		jsonx_set_int(o, "shouldRetry", res->should_retry);
	if (res->detail[0])
		jsonx_set_str(o, "detail", res->detail);
	if (res->errbody.len)
		jsonx_set(o, "errorBody", jsonx_new_str(res->errbody.data,
		    res->errbody.len));
	put(rec, o);
	rec->attempt++;
}

long long
record_retry(struct recording *rec, long long delay_ms)
{
	long long ts = event_clock_ms();
	struct json_object *o;

	rec->attempt--;		/* it belongs to the attempt that failed */
	o = line(rec, "retry", ts);
	rec->attempt++;
	jsonx_set_int(o, "delayMs", delay_ms);
	put(rec, o);
	return ts;
}

struct json_object *
record_header(struct recording *rec)
{
	return json_object_array_get_idx(rec->lines, rec->head);
}

static int
is_header(struct json_object *o)
{
	const char *type = jsonx_str(o, "type");

	return type != NULL && strcmp(type, "recording") == 0;
}

int
record_next(struct recording *rec, struct pi_error *e)
{
	size_t n;

	rec->attempt = 0;
	if (!rec->playing) {
		rec->calls++;
		return 0;
	}
	n = json_object_array_length(rec->lines);
	if (rec->calls > 0)
		rec->head = rec->stop;
	if (rec->head >= n)
		return pi_err(e, PI_EXIT_INPUT, "replay_mismatch", "the "
		    "recording holds %d call%s: there is no call %d to "
		    "replay", rec->calls, rec->calls == 1 ? "" : "s",
		    rec->calls + 1);
	rec->calls++;
	for (rec->stop = rec->head + 1; rec->stop < n; rec->stop++)
		if (is_header(json_object_array_get_idx(rec->lines,
		    rec->stop)))
			break;
	rec->next = rec->head + 1;
	rec->start_ms = jsonx_int(record_header(rec), "timestamp", 0);
	return 0;
}

static int
add_line(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	(void)lineno, (void)e;
	json_object_array_add(arg, jsonx_ref(o));
	return 0;
}

int
record_open(struct recording *rec, const char *path, struct pi_error *e)
{
	struct ndjson_reader r;
	int fd, rc;

	memset(rec, 0, sizeof(*rec));
	rec->playing = 1;
	rec->fd = -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "cannot open "
		    "'%s': %s", path, strerror(errno));
	rec->lines = json_object_new_array();
	ndjson_reader_init(&r, path, add_line, rec->lines);
	rc = ndjson_read_fd(&r, fd, e);
	ndjson_reader_release(&r);
	close(fd);
	if (rc == -1)
		return -1;
	if (!is_header(json_object_array_get_idx(rec->lines, 0)))
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:1: not a "
		    "recording", path);
	return 0;
}

void
record_close(struct recording *rec)
{
	/* Zeroed, never opened: fd 0 is stdin, not ours. */
	if (rec->fd > 2 && !rec->playing)
		close(rec->fd);
	json_object_put(rec->lines);
	memset(rec, 0, sizeof(*rec));
	rec->fd = -1;
}

long long
record_retry_delay(struct recording *rec)
{
	struct json_object *o;
	size_t i;

	for (i = rec->head + 1; i < rec->stop; i++) {
		o = json_object_array_get_idx(rec->lines, i);
		if (strcmp(jsonx_str(o, "type"), "retry") != 0 ||
		    jsonx_int(o, "attempt", -1) != rec->attempt - 1)
			continue;
		if (rec->clock)
			event_clock_set(jsonx_int(o, "ts", 0));
		return jsonx_int(o, "delayMs", 0);
	}
	return 0;
}

static enum http_outcome
outcome_of(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(outcomes) / sizeof(*outcomes); i++)
		if (outcomes[i] && s && strcmp(s, outcomes[i]) == 0)
			return (enum http_outcome)i;
	return HTTP_NETWORK;
}

static void
set_result(struct http_result *res, struct json_object *end)
{
	const char *s;

	res->status = (long)jsonx_int(end, "status", 0);
	res->retry_after_ms = jsonx_int(end, "retryAfterMs", -1);
	res->should_retry = (int)jsonx_int(end, "shouldRetry", -1);
	if ((s = jsonx_str(end, "contentType")) != NULL)
		snprintf(res->content_type, sizeof(res->content_type), "%s", s);
	if ((s = jsonx_str(end, "detail")) != NULL)
		snprintf(res->detail, sizeof(res->detail), "%s", s);
	if ((s = jsonx_str(end, "errorBody")) != NULL)
		buf_add(&res->errbody, s, strlen(s));
}

int
record_play(struct recording *rec, const struct http_request *req,
    struct http_result *res, struct pi_error *e)
{
	struct json_object *o, *end = NULL;
	size_t i, n = rec->stop, first;
	struct buf data;
	const char *s;
	int rc = 0;

	/* The end line first: status and headers come before the body. */
	for (first = rec->next; first < n; first++) {
		o = json_object_array_get_idx(rec->lines, first);
		if (jsonx_int(o, "attempt", -1) == rec->attempt)
			break;
	}
	for (i = first; i < n && end == NULL; i++) {
		o = json_object_array_get_idx(rec->lines, i);
		if (strcmp(jsonx_str(o, "type"), "end") == 0 &&
		    jsonx_int(o, "attempt", -1) == rec->attempt)
			end = o;
	}
	if (end == NULL) {
		res->outcome = HTTP_STOPPED;
		return pi_err(e, PI_EXIT_INPUT, "replay_mismatch", "the "
		    "recording has no attempt %d: the replay took another "
		    "path", rec->attempt + 1);
	}
	set_result(res, end);
	buf_init(&data, PI_MAX_LINE);
	for (i = first; i < n && rc == 0; i++) {
		o = json_object_array_get_idx(rec->lines, i);
		if (o == end)
			break;
		if (strcmp(jsonx_str(o, "type"), "chunk") != 0)
			continue;
		buf_reset(&data);
		if ((s = jsonx_str(o, "data")) != NULL)
			buf_add(&data, s, (size_t)json_object_get_string_len(
			    jsonx_get(o, "data")));
		else if ((s = jsonx_str(o, "b64")) != NULL)
			unbase64(s, &data);
		if (rec->clock)
			event_clock_set(jsonx_int(o, "ts", 0));
		res->body_bytes += (long long)data.len;
		if (req->on_data(req->arg, data.data, data.len) == -1) {
			res->outcome = HTTP_STOPPED;
			rc = -1;
		}
	}
	buf_release(&data);
	if (rec->clock)
		event_clock_set(jsonx_int(end, "ts", 0));
	rec->next = i + 1;
	rec->attempt++;
	if (rc == -1)
		return -1;
	res->outcome = outcome_of(jsonx_str(end, "outcome"));
	if (res->outcome == HTTP_STOPPED) {
		/* The recorded parser stopped here; this one did not. */
		res->outcome = HTTP_NETWORK;
		snprintf(res->detail, sizeof(res->detail), "the recording "
		    "stops where the recorded call stopped");
	}
	return res->outcome == HTTP_DONE ? 0 : -1;
}
