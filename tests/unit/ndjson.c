/*
 * ndjson: the reader sees the same lines however the bytes are cut, and
 * names the line of every error; the writer puts out whole lines.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tap.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"

static const char lines[] =
    "{\"type\":\"a\",\"n\":1}\n"
    "\n"
    "{\"role\":\"user\",\"content\":\"h\xc3\xa9 \xf0\x9f\x98\x80\"}\n"
    "  \t\n"
    "{ \"type\" : \"b\" , \"x\" : [1, {\"y\": null}] }\n";

/* What record() makes of lines: lineno, a space, compact JSON. */
static const char want[] =
    "1 {\"type\":\"a\",\"n\":1}\n"
    "3 {\"role\":\"user\",\"content\":\"h\xc3\xa9 \xf0\x9f\x98\x80\"}\n"
    "5 {\"type\":\"b\",\"x\":[1,{\"y\":null}]}\n";

static struct buf got;

static int
record(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	size_t len;
	const char *s = jsonx_string(o, &len);

	(void)arg;
	(void)e;
	if (buf_addf(&got, "%zu ", lineno) == -1 ||
	    buf_add(&got, s, len) == -1 || buf_addc(&got, '\n') == -1)
		abort();
	return 0;
}

static int
stop(void *arg, struct json_object *o, size_t lineno, struct pi_error *e)
{
	(void)arg;
	(void)o;
	return pi_err(e, PI_EXIT_FAIL, "test", "stop at %zu", lineno);
}

/* Push s cut at one place (cut > n: one byte at a time), then finish. */
static int
feed(const char *name, const char *s, size_t n, size_t cut,
    struct pi_error *e)
{
	struct ndjson_reader r;
	size_t i;
	int rc = 0;

	buf_reset(&got);
	ndjson_reader_init(&r, name, record, NULL);
	if (cut > n) {
		for (i = 0; i < n && rc == 0; i++)
			rc = ndjson_reader_push(&r, s + i, 1, e);
	} else if ((rc = ndjson_reader_push(&r, s, cut, e)) == 0)
		rc = ndjson_reader_push(&r, s + cut, n - cut, e);
	if (rc == 0)
		rc = ndjson_reader_finish(&r, e);
	ndjson_reader_release(&r);
	return rc;
}

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A bad-line handler that counts and passes over. */
static size_t passed;
static char passed_msg[512];

static int
pass_over(void *arg, const struct pi_error *le, struct pi_error *e)
{
	(void)arg;
	(void)e;
	passed++;
	(void)snprintf(passed_msg, sizeof(passed_msg), "%s", le->msg);
	return 0;
}

/*
 * A line over PI_MAX_LINE between two good ones, pushed in pieces (the
 * long one's end in a piece of its own, or not): passed over when a
 * handler says so, and the line after it read, numbered right.
 */
static void
long_line(void)
{
	struct ndjson_reader r;
	struct pi_error e;
	size_t size = PI_MAX_LINE + 100, i, piece;
	char *big = xmalloc(size);
	int rc = 0, with_end;

	memset(big, 'x', size);
	for (with_end = 0; with_end < 2; with_end++) {
		buf_reset(&got);
		passed = 0;
		ndjson_reader_init(&r, "stdin", record, NULL);
		r.bad = pass_over;
		rc = ndjson_reader_push(&r, "{\"type\":\"a\"}\n", 13, &e);
		for (i = 0; rc == 0 && i < size; i += piece) {
			piece = size - i < 1000000 ? size - i : 1000000;
			rc = ndjson_reader_push(&r, big + i, piece, &e);
		}
		if (rc == 0 && with_end)
			rc = ndjson_reader_push(&r, "\n{\"type\":\"b\"}\n", 14,
			    &e);
		else if (rc == 0)
			rc = ndjson_reader_push(&r, "xx\n{\"type\":\"b\"}\n",
			    16, &e);
		if (rc == 0)
			rc = ndjson_reader_finish(&r, &e);
		ndjson_reader_release(&r);
		ok(rc == 0 && passed == 1, "a line too long is passed over "
		    "when a handler says so (%s)", with_end ? "its newline "
		    "after the cut" : "more of it after the cut");
		ok(starts(passed_msg, "stdin:2: line longer than"),
		    "and named: %s", passed_msg);
		is_str(got.data, "1 {\"type\":\"a\"}\n3 {\"type\":\"b\"}\n",
		    "the lines around it are read");
	}
	free(big);
}


/* Every way of cutting bad must fail with status 3 and this prefix. */
static void
is_input_error(const char *bad, const char *prefix, const char *name)
{
	struct pi_error e;
	size_t n = strlen(bad), cut, wrong = 0;

	for (cut = 0; cut <= n + 1; cut++) {
		memset(&e, 0, sizeof(e));
		/* A prefix seen twice is a message formatted into itself. */
		if (feed("stdin", bad, n, cut, &e) != -1 ||
		    e.status != PI_EXIT_INPUT || !starts(e.msg, prefix) ||
		    strstr(e.msg + 1, prefix) != NULL)
			if (wrong++ == 0)
				diag("cut at %zu: status %d, \"%s\"", cut,
				    e.status, e.msg);
	}
	ok(wrong == 0, "%s: \"%s...\", status 3, however cut", name, prefix);
}

static void
writer(void)
{
	struct json_object *o;
	char rd[256], *big;
	int fd[2];
	ssize_t n;
	FILE *f;
	size_t len;

	o = json_object_new_object();
	jsonx_set_str(o, "type", "text_delta");
	jsonx_set_str(o, "delta", "a/b \"q\" \xc3\xa9\n");
	if (pipe(fd) == -1)
		abort();
	ok(ndjson_write(fd[1], o) == 0, "ndjson_write to a pipe");
	close(fd[1]);
	n = read(fd[0], rd, sizeof(rd) - 1);
	rd[n > 0 ? n : 0] = '\0';
	is_str(rd, "{\"type\":\"text_delta\",\"delta\":\"a/b \\\"q\\\" "
	    "\xc3\xa9\\n\"}\n", "one compact line, slash kept, one newline");
	is_int(read(fd[0], rd, sizeof(rd)), 0, "and nothing more");
	close(fd[0]);

	/* Larger than any small on-stack copy the writer might keep. */
	big = malloc(200000);
	memset(big, 'z', 199999);
	big[199999] = '\0';
	jsonx_set_str(o, "delta", big);
	f = tmpfile();
	ok(f != NULL && ndjson_write(fileno(f), o) == 0, "write a 200 kB line");
	len = f ? (size_t)ftell(f) : 0;
	is_int(len, 199999 +
	    strlen("{\"type\":\"text_delta\",\"delta\":\"\"}\n"), "all of it");
	if (f && fseek(f, -2, SEEK_END) == 0)
		ok(fread(rd, 1, 2, f) == 2 && memcmp(rd, "}\n", 2) == 0,
		    "ending in a newline");
	else
		ok(0, "ending in a newline");
	if (f)
		fclose(f);
	free(big);

	signal(SIGPIPE, SIG_IGN);
	if (pipe(fd) == -1)
		abort();
	close(fd[0]);
	errno = 0;
	ok(ndjson_write(fd[1], o) == -1, "writing to a closed pipe fails");
	is_int(errno, EPIPE, "with EPIPE");
	close(fd[1]);
	json_object_put(o);
}

int
main(void)
{
	struct ndjson_reader r;
	struct pi_error e;
	size_t n = sizeof(lines) - 1, cut, wrong = 0;
	int fd[2];

	buf_init(&got, 1 << 20);
	for (cut = 0; cut <= n + 1; cut++)
		if (feed("stdin", lines, n, cut, &e) != 0 ||
		    got.len != sizeof(want) - 1 ||
		    memcmp(got.data, want, got.len) != 0)
			if (wrong++ == 0)
				diag("cut at %zu gave:\n%s", cut, got.data);
	ok(wrong == 0, "the same lines, numbered, however the input is cut");

	is_input_error("{\"type\":\"a\"}\n\n[1,2]\n", "stdin:3:",
	    "an array");
	is_input_error("\"hello\"\n", "stdin:1:", "a string");
	is_input_error("{\"type\":\"a\"}\n{\"x\":1}\n", "stdin:2:",
	    "no type or role");
	is_input_error("{\"type\":7}\n", "stdin:1:", "a type that is a number");
	is_input_error("\n\n\n{\"type\":\n", "stdin:4:", "invalid JSON");
	is_input_error("{\"type\":\"a\"} x\n", "stdin:1:", "trailing garbage");
	is_input_error("{\"type\":\"a\"}\n{\"type\":\"b\"}", "stdin:2:",
	    "a partial last line");

	memset(&e, 0, sizeof(e));
	ok(feed("in.ndjson", "\n{\"type\":\"a\"}\n{\"type\"", 22, 0, &e) == -1,
	    "a partial last line fails at finish");
	ok(starts(e.msg, "in.ndjson:3:"), "named after the reader: %s", e.msg);
	ok(strstr(e.msg, "truncated") != NULL, "and says truncated");
	is_int(e.status, PI_EXIT_INPUT, "status 3");
	is_str(got.data, "2 {\"type\":\"a\"}\n", "the lines before it count");

	ok(feed("stdin", "", 0, 0, &e) == 0 && got.len == 0,
	    "empty input is fine");
	ok(feed("stdin", "\n\n", 2, 0, &e) == 0 && got.len == 0,
	    "blank lines alone are fine");

	ndjson_reader_init(&r, "stdin", stop, NULL);
	ok(ndjson_reader_push(&r, "{\"type\":\"a\"}\n{\"type\":\"b\"}\n", 26,
	    &e) == -1, "a callback's -1 stops the reader");
	is_str(e.msg, "stop at 1", "at the first line");
	ndjson_reader_release(&r);

	if (pipe(fd) == -1)
		abort();
	ok(write(fd[1], lines, n) == (ssize_t)n, "fill a pipe");
	close(fd[1]);
	buf_reset(&got);
	ndjson_reader_init(&r, "stdin", record, NULL);
	ok(ndjson_read_fd(&r, fd[0], &e) == 0, "ndjson_read_fd");
	is_str(got.data, want, "reads the same lines");
	ndjson_reader_release(&r);
	close(fd[0]);

	writer();
	long_line();
	buf_release(&got);
	return done_testing();
}
