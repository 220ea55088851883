/* sse: see sse.h. */
#include "sse.h"

#include <string.h>

#include "core/util.h"
#include "core/banned.h"

void
sse_init(struct sse_parser *p, sse_event_fn *fn, void *arg)
{
	buf_init(&p->line, PI_MAX_LINE);
	buf_init(&p->data, PI_MAX_EVENT);
	buf_init(&p->event, 256);
	p->has_data = 0;
	p->after_cr = 0;
	p->seen_line = 0;
	p->fn = fn;
	p->other = NULL;
	p->arg = arg;
}

void
sse_set_other(struct sse_parser *p, sse_line_fn *fn)
{
	p->other = fn;
}

void
sse_release(struct sse_parser *p)
{
	buf_release(&p->line);
	buf_release(&p->data);
	buf_release(&p->event);
}

static int
dispatch(struct sse_parser *p, struct pi_error *e)
{
	int rc = 0;

	if (p->has_data)
		rc = p->fn(p->arg, p->event.data, p->data.data, p->data.len, e);
	buf_reset(&p->data);
	buf_reset(&p->event);
	p->has_data = 0;
	return rc;
}

static int
field(struct sse_parser *p, const char *s, size_t n, struct pi_error *e)
{
	const char *colon, *v;
	size_t k, vn;

	if (!p->seen_line) {
		p->seen_line = 1;
		if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
			s += 3, n -= 3;
	}
	if (n == 0)
		return dispatch(p, e);
	if (s[0] == ':')
		return 0;
	colon = memchr(s, ':', n);
	k = colon ? (size_t)(colon - s) : n;
	v = colon ? colon + 1 : s + n;
	vn = n - (size_t)(v - s);
	if (vn > 0 && *v == ' ')
		v++, vn--;
	if (k == 4 && memcmp(s, "data", 4) == 0) {
		if ((p->has_data && buf_addc(&p->data, '\n') == -1) ||
		    buf_add(&p->data, v, vn) == -1)
			return pi_err(e, PI_EXIT_TEMP, "bad_response",
			    "SSE event data longer than %u bytes",
			    PI_MAX_EVENT);
		p->has_data = 1;
	} else if (k == 5 && memcmp(s, "event", 5) == 0) {
		buf_reset(&p->event);
		if (buf_add(&p->event, v, vn) == -1)
			return pi_err(e, PI_EXIT_TEMP, "bad_response",
			    "SSE event name too long");
	} else if (p->other != NULL && !(k == 2 && memcmp(s, "id", 2) == 0) &&
	    !(k == 5 && memcmp(s, "retry", 5) == 0))
		return p->other(p->arg, s, n, e);
	/* id, retry and unknown fields mean nothing to a one-shot call. */
	return 0;
}

int
sse_push(struct sse_parser *p, const char *s, size_t n, struct pi_error *e)
{
	size_t i;

	while (n > 0) {
		if (p->after_cr) {
			p->after_cr = 0;
			if (*s == '\n') {
				s++, n--;
				continue;
			}
		}
		for (i = 0; i < n && s[i] != '\n' && s[i] != '\r'; i++)
			;
		if (i == n) {
			if (buf_add(&p->line, s, n) == -1)
				return pi_err(e, PI_EXIT_TEMP, "bad_response",
				    "SSE line longer than %u bytes",
				    PI_MAX_LINE);
			return 0;
		}
		if (p->line.len > 0) {
			if (buf_add(&p->line, s, i) == -1)
				return pi_err(e, PI_EXIT_TEMP, "bad_response",
				    "SSE line longer than %u bytes",
				    PI_MAX_LINE);
			if (field(p, p->line.data, p->line.len, e) == -1)
				return -1;
			buf_reset(&p->line);
		} else if (field(p, s, i, e) == -1)
			return -1;
		p->after_cr = s[i] == '\r';
		s += i + 1;
		n -= i + 1;
	}
	return 0;
}
