/* truncate: pi's head and tail truncation, and formatSize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "core/buf.h"
#include "core/util.h"
#include "tool/truncate.h"

static void
is_size(unsigned long long n, const char *want)
{
	char out[FORMAT_SIZE_LEN];

	is_str(format_size(out, n), want, want);
}

/* "Line 1\nLine 2\n...Line n", as pi's tests build their input. */
static char *
numbered(size_t n)
{
	struct buf b;
	size_t i;

	buf_init(&b, 1u << 24);
	for (i = 1; i <= n; i++)
		buf_addf(&b, "%sLine %zu", i > 1 ? "\n" : "", i);
	return buf_detach(&b, NULL);
}

static void
test_head(void)
{
	struct truncation t;
	char *s, *big;
	size_t n;

	n = truncate_head(&t, "line 1\nline 2\nline 3", 20, 2000, 51200);
	is_int(n, 20, "head: within limits keeps all");
	ok(!t.truncated && t.by == TRUNCATE_NONE, "head: not truncated");
	is_int(t.total_lines, 3, "head: three lines");
	ok(truncate_by_name(t.by) == NULL, "head: truncatedBy null");

	s = numbered(100);
	n = truncate_head(&t, s, strlen(s), 10, 51200);
	ok(t.truncated && t.by == TRUNCATE_LINES, "head: cut by lines");
	is_int(t.output_lines, 10, "head: ten lines kept");
	is_int(t.total_lines, 100, "head: of 100");
	is_int(t.total_bytes, strlen(s), "head: total bytes");
	ok(n == strlen("Line 1\nLine 2\nLine 3\nLine 4\nLine 5\nLine 6\n"
	    "Line 7\nLine 8\nLine 9\nLine 10") && s[n] == '\n',
	    "head: a prefix of whole lines");
	is_str(truncate_by_name(t.by), "lines", "head: truncatedBy lines");
	free(s);

	/* 20 bytes: "Line 1\nLine 2\nLine 3" is 20, the next would be 27. */
	s = numbered(5);
	n = truncate_head(&t, s, strlen(s), 2000, 20);
	is_int(n, 20, "head: exactly at the byte limit");
	ok(t.by == TRUNCATE_BYTES, "head: cut by bytes");
	is_int(t.output_lines, 3, "head: three lines fit");
	is_int(t.output_bytes, 20, "head: output bytes");
	free(s);

	big = xmalloc(100);
	memset(big, 'x', 99);
	big[99] = '\0';
	n = truncate_head(&t, big, 99, 2000, 50);
	ok(n == 0 && t.first_line_exceeds_limit && t.by == TRUNCATE_BYTES,
	    "head: a first line over the limit keeps nothing");
	free(big);

	n = truncate_head(&t, "a\nb\n", 4, 2000, 51200);
	is_int(t.total_lines, 3, "head: a final newline makes a line");
	n = truncate_head(&t, "", 0, 2000, 51200);
	ok(n == 0 && t.total_lines == 1 && !t.truncated,
	    "head: empty text is one empty line");

	/* Line and byte limits together: lines hit first. */
	s = numbered(50);
	n = truncate_head(&t, s, strlen(s), 5, 1000);
	ok(t.by == TRUNCATE_LINES && t.output_lines == 5, "head: lines first");
	n = truncate_head(&t, s, strlen(s), 50, 30);
	ok(t.by == TRUNCATE_BYTES && t.output_lines == 4 && n == 27,
	    "head: bytes first");
	free(s);
}

static void
test_head_line(void)
{
	struct truncation t;

	truncate_init(&t, 3, 10);
	ok(truncate_head_line(&t, 4), "line: first fits");
	ok(truncate_head_line(&t, 5), "line: second fits (4+1+5)");
	ok(!truncate_head_line(&t, 0), "line: third (11 bytes) does not");
	ok(t.by == TRUNCATE_BYTES && !t.first_line_exceeds_limit,
	    "line: by bytes, not the first line");
	ok(!truncate_head_line(&t, 0), "line: nothing after a refusal");
	is_int(t.total_lines, 4, "line: all counted");
	is_int(t.total_bytes, 12, "line: bytes counted with separators");
	is_int(t.output_bytes, 10, "line: output bytes");

	truncate_init(&t, 2, 100);
	truncate_head_line(&t, 1);
	truncate_head_line(&t, 1);
	ok(!truncate_head_line(&t, 1) && t.by == TRUNCATE_LINES,
	    "line: by lines after max_lines");
}

static void
test_tail(void)
{
	struct truncation t;
	char *s, *big;
	const char *p;
	size_t n;

	s = numbered(100);
	n = truncate_tail(&t, s, strlen(s), 10, 51200);
	p = s + strlen(s) - n;
	ok(t.by == TRUNCATE_LINES && t.output_lines == 10,
	    "tail: ten lines by lines");
	ok(strncmp(p, "Line 91\n", 8) == 0 && p[-1] == '\n',
	    "tail: a suffix of whole lines");
	free(s);

	s = numbered(5);
	n = truncate_tail(&t, s, strlen(s), 2000, 20);
	p = s + strlen(s) - n;
	is_str(p, "Line 3\nLine 4\nLine 5", "tail: bytes keep the last lines");
	ok(t.by == TRUNCATE_BYTES && !t.last_line_partial, "tail: by bytes");
	free(s);

	/* A last line too long on its own: its end, on a boundary. */
	big = xasprintf("first\n%s", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	n = truncate_tail(&t, big, strlen(big), 2000, 5);
	p = big + strlen(big) - n;
	is_str(p, "\xc3\xa9\xc3\xa9", "tail: partial line on a boundary");
	ok(t.last_line_partial && t.by == TRUNCATE_BYTES &&
	    t.output_lines == 1, "tail: lastLinePartial");
	free(big);

	n = truncate_tail(&t, "abc", 3, 2000, 51200);
	ok(n == 3 && !t.truncated, "tail: within limits keeps all");
}

int
main(void)
{
	is_size(0, "0B");
	is_size(1023, "1023B");
	is_size(1024, "1.0KB");
	is_size(1280, "1.3KB");		/* 1.25: toFixed rounds up */
	is_size(51200, "50.0KB");
	is_size(61440, "60.0KB");
	is_size(1048575, "1024.0KB");
	is_size(1048576, "1.0MB");
	is_size(5u << 20, "5.0MB");
	is_size(1572864, "1.5MB");
	is_size(1625292, "1.5MB");

	test_head();
	test_head_line();
	test_tail();

	is_int(truncate_chars("abcdef", 6, 3), 3, "chars: ASCII");
	is_int(truncate_chars("\xc3\xa9\xc3\xa9z", 5, 1), 2,
	    "chars: never inside a character");
	is_int(truncate_chars("ab", 2, 5), 2, "chars: short stays whole");
	return done_testing();
}
