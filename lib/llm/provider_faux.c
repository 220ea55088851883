/* provider_faux: see faux_run in provider.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm.h"
#include "provider.h"
#include "reply.h"
#include "core/buf.h"
#include "core/context.h"
#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

/* Read lines up to the one wanted; the script may be a file or a pipe. */
static struct json_object *
script_line(const char *path, size_t want, struct pi_error *e)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lineno = 0, seen = 0;
	ssize_t n;
	struct json_object *o = NULL;

	if ((f = fopen(path, "re")) == NULL) {
		pi_err(e, PI_EXIT_CONFIG, "faux_script", "cannot open faux "
		    "script '%s': %s", path, strerror(errno));
		return NULL;
	}
	while ((n = getline(&line, &cap, f)) != -1) {
		lineno++;
		while (n > 0 && strchr(" \t\r\n", line[n - 1]))
			n--;
		if (n == 0)
			continue;
		if (seen++ < want)
			continue;
		if ((o = jsonx_parse(line, (size_t)n, e)) == NULL)
			pi_err(e, PI_EXIT_CONFIG, "faux_script", "%s:%zu: %s",
			    path, lineno, e->msg);
		break;
	}
	if (o == NULL && n == -1)
		pi_err(e, PI_EXIT_CONFIG, "faux_script", "%s: the script has "
		    "%zu replies; this call asks for reply %zu", path, seen,
		    want + 1);
	free(line);
	fclose(f);
	return o;
}

static int
pause_ms(long ms, volatile sig_atomic_t *abort)
{
	struct timespec ts;

	if (ms > 0) {
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000;
		nanosleep(&ts, NULL);
	}
	return abort != NULL && *abort ? -1 : 0;
}

struct faux {
	struct reply *r;
	long delay, chunk;
	long after;		/* chunks before the scripted error; -1 none */
	long chunks;
	struct json_object *error;
	volatile sig_atomic_t *abort;
};

static int
aborted(struct faux *f, struct pi_error *e)
{
	int sig = (int)*f->abort;

	return pi_err(e, 128 + sig, "aborted", "aborted by %s",
	    sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal");
}

static int
scripted_error(struct faux *f, struct pi_error *e)
{
	return llm_stream_error(jsonx_str(f->error, "type"),
	    jsonx_str(f->error, "message"), e);
}

/* Before each chunk: the pause, the abort check, the scripted error. */
static int
tick(struct faux *f, struct pi_error *e)
{
	if (pause_ms(f->delay, f->abort) == -1)
		return aborted(f, e);
	if (f->error != NULL && f->chunks >= f->after)
		return scripted_error(f, e);
	f->chunks++;
	return 0;
}

/* The length of the next chunk: chunk code points, or one word. */
static size_t
next_piece(const char *s, size_t n, long chunk)
{
	size_t i = 0, k;
	long cps = 0;

	if (chunk > 0) {
		while (i < n && cps < chunk) {
			k = utf8_seqlen((const unsigned char *)s + i, n - i);
			i += k ? k : 1;
			cps++;
		}
		return i;
	}
	while (i < n && strchr(" \n\t", s[i]) == NULL)
		i++;
	while (i < n && strchr(" \n\t", s[i]) != NULL)
		i++;
	return i;
}

static int
stream_text(struct faux *f, int key, int thinking, const char *s,
    struct pi_error *e)
{
	size_t n = strlen(s), k;
	int rc;

	while (n > 0) {
		if (tick(f, e) == -1)
			return -1;
		k = next_piece(s, n, f->chunk);
		rc = thinking ? reply_thinking(f->r, key, s, k, e) :
		    reply_text(f->r, key, s, k, e);
		if (rc == -1)
			return -1;
		s += k, n -= k;
	}
	return reply_block_end(f->r, key, e);
}

static int
stream_block(struct faux *f, int key, struct json_object *b,
    struct pi_error *e)
{
	const char *type = jsonx_str(b, "type"), *s, *sig;
	struct json_object *args;
	size_t n, k;

	if (type == NULL)
		return 0;
	if (strcmp(type, "text") == 0 && (s = jsonx_str(b, "text")) != NULL)
		return stream_text(f, key, 0, s, e);
	if (strcmp(type, "thinking") == 0 &&
	    (s = jsonx_str(b, "thinking")) != NULL) {
		if ((sig = jsonx_str(b, "thinkingSignature")) != NULL &&
		    reply_signature(f->r, key, BLOCK_THINKING, sig,
		    strlen(sig), e) == -1)
			return -1;
		return stream_text(f, key, 1, s, e);
	}
	if (strcmp(type, "toolCall") != 0)
		return 0;
	if (tick(f, e) == -1 || reply_tool_begin(f->r, key,
	    jsonx_str(b, "id"), jsonx_str(b, "name"), e) == -1)
		return -1;
	args = jsonx_obj(b, "arguments");
	s = args ? jsonx_string(args, &n) : "{}";
	n = strlen(s);
	while (n > 0) {
		if (tick(f, e) == -1)
			return -1;
		k = f->chunk > 0 ? next_piece(s, n, f->chunk) : n;
		if (reply_tool_args(f->r, key, s, k, e) == -1)
			return -1;
		s += k, n -= k;
	}
	return reply_block_end(f->r, key, e);
}

static int64_t
chars_of(struct json_object *o)
{
	size_t n;

	if (o == NULL)
		return 0;
	jsonx_string(o, &n);
	return (int64_t)n;
}

int
faux_run(const char *script, const struct context *ctx,
    volatile sig_atomic_t *abort, struct reply *r, struct pi_error *e)
{
	struct json_object *line, *content, *u, *blocks = NULL;
	struct usage usage;
	struct faux f;
	size_t i, n;
	int rc = -1, stop;

	if ((line = script_line(script, ctx->assistant_count, e)) == NULL)
		return -1;
	memset(&f, 0, sizeof(f));
	f.r = r;
	f.abort = abort;
	f.delay = (long)jsonx_int(line, "delayMs", 0);
	f.chunk = (long)jsonx_int(line, "chunkSize", 0);
	f.error = jsonx_obj(line, "error");
	f.after = (long)jsonx_int(f.error, "after", 0);
	if (f.error != NULL && jsonx_get(f.error, "status") != NULL) {
		/* An HTTP failure: nothing streams before it. */
		const char *body = jsonx_string(f.error, &n);

		rc = llm_http_error((long)jsonx_int(f.error, "status", 500),
		    body, n, e);
		goto out;
	}
	content = jsonx_is(line, json_type_string) ? line :
	    jsonx_get(line, "content");
	if (jsonx_is(content, json_type_string)) {
		blocks = json_object_new_array();
		u = json_object_new_object();
		jsonx_set_str(u, "type", "text");
		jsonx_set(u, "text", jsonx_ref(content));
		json_object_array_add(blocks, u);
	} else
		blocks = jsonx_ref(jsonx_arr(line, "content"));
	memset(&usage, 0, sizeof(usage));
	/* A rough count, four bytes a token, unless the script says. */
	usage.input = chars_of(ctx->messages) / 4 + (ctx->system ?
	    (int64_t)strlen(ctx->system) / 4 : 0);
	usage.output = chars_of(blocks) / 4;
	if ((u = jsonx_obj(line, "usage")) != NULL) {
		usage.input = jsonx_int(u, "input", usage.input);
		usage.output = jsonx_int(u, "output", usage.output);
		usage.cache_read = jsonx_int(u, "cacheRead", 0);
		usage.cache_write = jsonx_int(u, "cacheWrite", 0);
	}
	reply_set_usage(r, &usage);
	if (pause_ms(f.delay, abort) == -1) {
		rc = aborted(&f, e);
		goto out;
	}
	if (reply_start(r, e) == -1)
		goto out;
	n = blocks ? json_object_array_length(blocks) : 0;
	for (i = 0; i < n; i++)
		if (stream_block(&f, (int)i, json_object_array_get_idx(blocks,
		    i), e) == -1)
			goto out;
	if (f.error != NULL) {
		rc = scripted_error(&f, e);
		goto out;
	}
	if ((stop = stop_parse(jsonx_str(line, "stopReason"))) >= 0)
		reply_set_stop(r, (enum stop_reason)stop);
	rc = reply_end(r, e);
out:
	json_object_put(blocks);
	json_object_put(line);
	return rc;
}
