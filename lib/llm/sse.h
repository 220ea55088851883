/*
 * sse: a push-style text/event-stream parser (the WHATWG rules).
 *
 * Bytes in, events out, no I/O.  Lines end in LF, CR or CRLF, also when
 * the CR and LF arrive in different pushes; a line is handled only once
 * it is whole, so a UTF-8 character cut between two reads arrives intact.
 * Several data: lines join with LF, comments (":...") and unknown fields
 * are skipped, a leading BOM is dropped, and an event is dispatched on a
 * blank line.  An event left without its blank line at EOF is discarded,
 * as the spec says; whether a stream ended properly is the provider's
 * call, made from its terminal event.
 *
 * A line that is no field of the spec (not data, event, id or retry, not
 * a comment, not blank) is skipped, as the spec says, unless the owner
 * asked with sse_set_other to see it: Gemini sends some errors as bare
 * JSON spread over several lines, outside any data: line.
 */
#ifndef PI_SSE_H
#define PI_SSE_H

#include <stddef.h>

#include "core/buf.h"

struct pi_error;

/* event is "" when the event had no event: line.  Return -1 to stop. */
typedef int sse_event_fn(void *arg, const char *event, const char *data,
    size_t len, struct pi_error *e);

/* A line that is no SSE field, without its line end.  -1 stops. */
typedef int sse_line_fn(void *arg, const char *line, size_t len,
    struct pi_error *e);

struct sse_parser {
	struct buf line;
	struct buf data;
	struct buf event;
	int has_data;
	int after_cr;
	int seen_line;
	sse_event_fn *fn;
	sse_line_fn *other;	/* NULL: such lines are skipped */
	void *arg;
};

void sse_init(struct sse_parser *p, sse_event_fn *fn, void *arg);
int sse_push(struct sse_parser *p, const char *s, size_t n,
    struct pi_error *e);
void sse_release(struct sse_parser *p);
/* Hand lines that are no field to fn (with the parser's arg). */
void sse_set_other(struct sse_parser *p, sse_line_fn *fn);

#endif
