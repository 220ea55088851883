/*
 * sse: one fixture, fed whole, split at every byte and one byte at a
 * time, with LF, CRLF and CR line ends, must give the same events.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "core/buf.h"
#include "core/util.h"
#include "llm/sse.h"

/* Written with LF; the CRLF and CR variants are derived from it. */
static const char fixture[] =
    "\xef\xbb\xbf" "event: message_start\n"
    "data: {\"a\":1}\n"
    "\n"
    ": keepalive\n"
    "\n"
    "data: line one\n"
    ": a comment between data lines\n"
    "data: line two\n"
    "data:\n"
    "\n"
    "event: ping\n"
    "\n"
    "data:x\n"
    "\n"
    "data:  x\n"
    "\n"
    "bogus\n"
    "data\n"
    "\n"
    "id: 7\n"
    "retry: 1000\n"
    "foo: bar\n"
    "\xef\xbb\xbf" "data: a BOM is only skipped at the start\n"
    "event: delta\n"
    "data: caf\xc3\xa9 \xf0\x9f\x98\x80\n"
    "\n"
    "data: never dispatched\n"
    "data: no end";

/* Events as event \1 data \2, in order. */
static const char want[] =
    "message_start\1{\"a\":1}\2"
    "\1line one\nline two\n\2"
    "\1x\2"
    "\1 x\2"
    "\1\2"
    "delta\1caf\xc3\xa9 \xf0\x9f\x98\x80\2";

static struct buf got;

static int
record(void *arg, const char *event, const char *data, size_t len,
    struct pi_error *e)
{
	(void)arg;
	(void)e;
	if (buf_adds(&got, event) == -1 || buf_addc(&got, 1) == -1 ||
	    buf_add(&got, data, len) == -1 || buf_addc(&got, 2) == -1)
		abort();
	return 0;
}

static int
stop(void *arg, const char *event, const char *data, size_t len,
    struct pi_error *e)
{
	(void)arg;
	(void)event;
	(void)data;
	(void)len;
	return pi_err(e, PI_EXIT_FAIL, "test", "stopped by callback");
}

/* Feed s in pieces cut at the offsets in cuts (ascending), then compare. */
static int
feed(const char *s, size_t n, const size_t *cuts, size_t ncuts)
{
	struct sse_parser p;
	struct pi_error e;
	size_t i, at = 0, end;
	int rc = 0;

	buf_reset(&got);
	sse_init(&p, record, NULL);
	for (i = 0; i <= ncuts && rc == 0; i++) {
		end = i < ncuts ? cuts[i] : n;
		rc = sse_push(&p, s + at, end - at, &e);
		at = end;
	}
	sse_release(&p);
	return rc == 0 && got.len == sizeof(want) - 1 &&
	    memcmp(got.data, want, got.len) == 0;
}

/* The fixture with each LF replaced by eol. */
static char *
variant(const char *eol, size_t *n)
{
	struct buf b;
	const char *s;

	buf_init(&b, 1 << 20);
	for (s = fixture; *s; s++)
		if (*s == '\n' ? buf_adds(&b, eol) : buf_addc(&b, *s))
			abort();
	return buf_detach(&b, n);
}

static void
all_splits(const char *eol, const char *name)
{
	char *s;
	size_t n, i, *cuts, bad = 0, first = 0;

	s = variant(eol, &n);
	ok(feed(s, n, NULL, 0), "%s: whole", name);
	for (i = 0; i <= n; i++)
		if (!feed(s, n, &i, 1) && bad++ == 0)
			first = i;
	if (!ok(bad == 0, "%s: split in two at each of %zu places", name,
	    n + 1))
		diag("%zu bad splits, the first at byte %zu", bad, first);
	cuts = malloc(n * sizeof(*cuts));
	for (i = 0; i < n; i++)
		cuts[i] = i + 1;
	ok(feed(s, n, cuts, n), "%s: one byte per push", name);
	free(cuts);
	free(s);
}

static void
pushes(const char *a, const char *b, const char *w, const char *name)
{
	struct sse_parser p;
	struct pi_error e;

	buf_reset(&got);
	sse_init(&p, record, NULL);
	ok(sse_push(&p, a, strlen(a), &e) == 0 &&
	    sse_push(&p, b, strlen(b), &e) == 0, "%s: pushes succeed", name);
	ok(got.len == strlen(w) && memcmp(got.data, w, got.len) == 0,
	    "%s", name);
	sse_release(&p);
}

int
main(void)
{
	struct sse_parser p;
	struct pi_error e;
	struct buf big;
	size_t i, off;

	buf_init(&got, 8u << 20);
	all_splits("\n", "LF");
	all_splits("\r\n", "CRLF");
	all_splits("\r", "CR");

	pushes("data: caf\xc3", "\xa9\n\n", "\1caf\xc3\xa9\2",
	    "a two-byte character cut between pushes arrives whole");
	pushes("data: \xf0\x9f", "\x98\x80\n\n", "\1\xf0\x9f\x98\x80\2",
	    "a four-byte character cut between pushes arrives whole");
	pushes("data: a\r", "\ndata: b\r\n\r\n", "\1a\nb\2",
	    "CRLF cut between pushes is one line end");
	pushes("data: a\r", "\r", "\1a\2", "CR then CR is a blank line");
	pushes("\xef\xbb", "\xbf" "data: b\n\n", "\1b\2",
	    "a BOM cut between pushes is still skipped");

	/* A 2 MiB data line, pushed in 64 KiB reads. */
	buf_init(&big, 4u << 20);
	buf_adds(&big, "event: big\ndata: ");
	for (i = 0; i < 2u << 20; i++)
		buf_addc(&big, 'a' + i % 26);
	buf_adds(&big, "\n\n");
	buf_reset(&got);
	sse_init(&p, record, NULL);
	for (off = 0; off < big.len; off += 65536)
		if (sse_push(&p, big.data + off, big.len - off < 65536 ?
		    big.len - off : 65536, &e) == -1)
			break;
	sse_release(&p);
	ok(off >= big.len, "a 2 MiB data line is accepted");
	ok(got.len == 4 + (2u << 20) + 1 &&
	    memcmp(got.data, "big\1", 4) == 0 &&
	    memcmp(got.data + 4, big.data + 17, 2u << 20) == 0 &&
	    got.data[got.len - 1] == 2, "and delivered whole, as one event");
	buf_release(&big);

	sse_init(&p, stop, NULL);
	e.msg[0] = '\0';
	ok(sse_push(&p, "data: a\n\ndata: b\n\n", 18, &e) == -1,
	    "a callback's -1 stops the parser");
	is_str(e.msg, "stopped by callback", "and its error comes back");
	sse_release(&p);

	buf_release(&got);
	return done_testing();
}
