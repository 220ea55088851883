/* ndjson: see ndjson.h. */
#include "ndjson.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonx.h"
#include "util.h"
#include "banned.h"

void
ndjson_reader_init(struct ndjson_reader *r, const char *name,
    ndjson_line_fn *fn, void *arg)
{
	buf_init(&r->line, PI_MAX_LINE);
	r->lineno = 0;
	r->name = name;
	r->fn = fn;
	r->arg = arg;
	r->stop = NULL;
	r->bad = NULL;
	r->skipping = 0;
}

void
ndjson_reader_release(struct ndjson_reader *r)
{
	buf_release(&r->line);
}

static int
is_blank(const char *p, size_t n)
{
	while (n--)
		if (strchr(" \t\r", *p++) == NULL)
			return 0;
	return 1;
}

/* A line that is not one: the end, or reported and passed over. */
static int
bad_line(struct ndjson_reader *r, struct pi_error *e, const char *fmt,
    const char *what)
{
	struct pi_error le;

	pi_err(&le, PI_EXIT_INPUT, "bad_input", fmt, r->name, r->lineno, what);
	if (r->bad != NULL)
		return r->bad(r->arg, &le, e);
	*e = le;
	return -1;
}

static int
line(struct ndjson_reader *r, const char *p, size_t n, struct pi_error *e)
{
	struct json_object *o;
	struct pi_error why;
	int rc;

	r->lineno++;
	if (is_blank(p, n))
		return 0;
	if ((o = jsonx_parse(p, n, &why)) == NULL)
		return bad_line(r, e, "%s:%zu: %s", why.msg);
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return bad_line(r, e, "%s:%zu: %s", "not a JSON object");
	}
	if (jsonx_str(o, "type") == NULL && jsonx_str(o, "role") == NULL) {
		json_object_put(o);
		return bad_line(r, e, "%s:%zu: %s",
		    "object has no string \"type\" or \"role\"");
	}
	rc = r->fn(r->arg, o, r->lineno, e);
	json_object_put(o);
	return rc;
}

/*
 * A line past PI_MAX_LINE: the end, or, when bad passes over it, the
 * rest of it skipped (nl: its end, when in sight).
 */
static int
too_long(struct ndjson_reader *r, const char *nl, struct pi_error *e)
{
	char what[64];

	if (r->bad == NULL)
		return pi_err(e, PI_EXIT_INPUT, "bad_input",
		    "%s:%zu: line longer than %u bytes", r->name,
		    r->lineno + 1, PI_MAX_LINE);
	r->lineno++;
	buf_reset(&r->line);
	r->skipping = nl == NULL;
	(void)snprintf(what, sizeof(what), "line longer than %u bytes",
	    PI_MAX_LINE);
	return bad_line(r, e, "%s:%zu: %s", what);
}

int
ndjson_reader_push(struct ndjson_reader *r, const char *p, size_t n,
    struct pi_error *e)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		if (r->skipping) {
			if (nl == NULL)
				return 0;
			r->skipping = 0;
		} else if (nl == NULL) {
			if (buf_add(&r->line, p, n) == -1)
				return too_long(r, nl, e);
			return 0;
		} else if (r->line.len == 0) {
			/* The common case: the line is whole in this read. */
			k = (size_t)(nl - p);
			if (k > PI_MAX_LINE) {
				if (too_long(r, nl, e) == -1)
					return -1;
			} else if (line(r, p, k, e) == -1)
				return -1;
		} else {
			if (buf_add(&r->line, p, (size_t)(nl - p)) == -1) {
				if (too_long(r, nl, e) == -1)
					return -1;
			} else if (line(r, r->line.data, r->line.len, e) == -1)
				return -1;
			buf_reset(&r->line);
		}
		k = (size_t)(nl - p);
		p += k + 1;
		n -= k + 1;
	}
	return 0;
}

int
ndjson_reader_finish(struct ndjson_reader *r, struct pi_error *e)
{
	if (r->line.len > 0 && !is_blank(r->line.data, r->line.len))
		return pi_err(e, PI_EXIT_INPUT, "truncated_input",
		    "%s:%zu: truncated stream: last line has no newline",
		    r->name, r->lineno + 1);
	return 0;
}

int
ndjson_read_fd(struct ndjson_reader *r, int fd, struct pi_error *e)
{
	char b[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, b, sizeof(b));
		if (n == -1 && errno == EINTR && r->stop != NULL && *r->stop)
			return pi_err(e, 128 + (int)*r->stop, "aborted",
			    "%s: interrupted by signal %d", r->name,
			    (int)*r->stop);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return pi_err(e, PI_EXIT_FAIL, "io", "%s: read: %s",
			    r->name, strerror(errno));
		if (n == 0)
			return ndjson_reader_finish(r, e);
		if (ndjson_reader_push(r, b, (size_t)n, e) == -1)
			return -1;
	}
}

int
ndjson_write(int fd, struct json_object *o)
{
	const char *s;
	size_t len;
	char small[4096], *line;
	int rc;

	s = jsonx_string(o, &len);
	/* One write(2) for line and newline, so the line leaves whole. */
	line = len + 1 <= sizeof(small) ? small : xmalloc(len + 1);
	memcpy(line, s, len);
	line[len] = '\n';
	rc = pi_write_all(fd, line, len + 1);
	if (line != small)
		free(line);
	return rc;
}

void
ndjson_batch_init(struct ndjson_batch *w, int fd)
{
	w->fd = fd;
	w->failed = 0;
	/* Room for the largest line as well as a batch of small ones. */
	buf_init(&w->b, PI_MAX_LINE + NDJSON_BATCH + 1);
}

int
ndjson_batch_flush(struct ndjson_batch *w)
{
	if (w->failed)
		return -1;
	if (w->b.len > 0 && pi_write_all(w->fd, w->b.data, w->b.len) == -1) {
		w->failed = 1;
		return -1;
	}
	buf_reset(&w->b);
	return 0;
}

int
ndjson_batch_line(struct ndjson_batch *w, const char *p, size_t n)
{
	if (w->failed)
		return -1;
	if (w->b.len + n + 1 > NDJSON_BATCH && ndjson_batch_flush(w) == -1)
		return -1;
	if (buf_add(&w->b, p, n) == -1 || buf_addc(&w->b, '\n') == -1) {
		errno = EFBIG;
		return -1;
	}
	return w->b.len >= NDJSON_BATCH ? ndjson_batch_flush(w) : 0;
}

int
ndjson_batch_obj(struct ndjson_batch *w, struct json_object *o)
{
	size_t len;
	const char *s = jsonx_string(o, &len);

	return ndjson_batch_line(w, s, len);
}

void
ndjson_batch_release(struct ndjson_batch *w)
{
	buf_release(&w->b);
}
