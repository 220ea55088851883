/*
 * udiff: the diff of known replacements, for the cases edit's tests
 * (tools_fs.c) cannot reach or do not show: hunk ranges of one and of no
 * lines, changes whose lines touch, a change that changes nothing, and
 * the cap on the table of the longest common subsequence.  Where diff -u
 * has an answer, the expected text is its output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "core/buf.h"
#include "core/util.h"
#include "tool/udiff.h"

struct rep {
	size_t at, old_len;	/* replaced in base */
	const char *new;	/* put in its place */
};

/* The diff of base to base with reps[0..n) applied; *first as returned. */
static char *
diff(const char *base, const struct rep *reps, size_t n, size_t *first)
{
	struct udiff_change *c = xcalloc(n + 1, sizeof(*c));
	struct buf res, d;
	size_t i, at = 0;

	buf_init(&res, 1u << 26);
	buf_init(&d, 1u << 26);
	for (i = 0; i < n; i++) {
		buf_add(&res, base + at, reps[i].at - at);
		buf_adds(&res, reps[i].new);
		at = reps[i].at + reps[i].old_len;
		c[i].at = reps[i].at;
		c[i].old_len = reps[i].old_len;
		c[i].new_len = strlen(reps[i].new);
	}
	buf_adds(&res, base + at);
	*first = udiff_append(&d, "f", base, strlen(base), res.data, res.len,
	    c, n);
	buf_release(&res);
	free(c);
	return buf_detach(&d, NULL);
}

#define HEAD "--- a/f\n+++ b/f\n"

#define is_diff(base, reps, want, want_first, name) do { \
	size_t f_; \
	char *d_ = diff((base), (reps), sizeof(reps) / sizeof((reps)[0]), \
	    &f_); \
	is_str(d_, (want), name); \
	is_int(f_, (want_first), name ": first changed line"); \
	free(d_); \
} while (0)

static void
test_ranges(void)
{
	static const struct rep one[] = { { 0, 2, "b\n" } };
	static const struct rep all[] = { { 0, 4, "" } };
	static const struct rep nonl[] = { { 0, 1, "" } };
	static const struct rep into_empty[] = { { 0, 0, "a\n" } };
	static const struct rep before[] = { { 0, 2, "x\na\n" } };

	is_diff("a\n", one, HEAD "@@ -1 +1 @@\n-a\n+b\n", 1,
	    "a one-line hunk has no count");
	is_diff("a\nb\n", all, HEAD "@@ -1,2 +0,0 @@\n-a\n-b\n", 1,
	    "all lines deleted: +0,0");
	is_diff("a", nonl, HEAD "@@ -1 +0,0 @@\n-a\n"
	    "\\ No newline at end of file\n", 1,
	    "the last line, without a newline, deleted");
	is_diff("", into_empty, HEAD "@@ -0,0 +1 @@\n+a\n", 1,
	    "into an empty text: -0,0");
	is_diff("a\nb\nc\n", before, HEAD "@@ -1,3 +1,4 @@\n+x\n a\n b\n"
	    " c\n", 1, "a line put back unchanged is context");
}

static void
test_blocks(void)
{
	/* Separate changes to lines 2 and 3 print as diff -u prints them. */
	static const struct rep touch[] = { { 2, 2, "B\n" }, { 4, 2, "C\n" } };
	/* Two changes on one line are one change of that line. */
	static const struct rep line[] = { { 2, 1, "B" }, { 6, 1, "D" } };
	/* A replacement by the same text leaves no trace. */
	static const struct rep same[] = { { 0, 2, "a\n" },
	    { 18, 2, "J\n" } };
	static const struct rep none[] = { { 2, 2, "b\n" } };
	size_t first;
	char *s;

	is_diff("a\nb\nc\nd\n", touch, HEAD "@@ -1,4 +1,4 @@\n a\n-b\n-c\n"
	    "+B\n+C\n d\n", 2, "changes whose lines touch are one");
	is_diff("a\nb c d\ne\n", line, HEAD "@@ -1,3 +1,3 @@\n a\n-b c d\n"
	    "+B c D\n e\n", 2, "two changes in one line");
	is_diff("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", same, HEAD
	    "@@ -7,4 +7,4 @@\n g\n h\n i\n-j\n+J\n", 10,
	    "an unchanged replacement is left out");
	s = diff("a\nb\n", none, 1, &first);
	is_str(s, "", "nothing changed: nothing appended");
	is_int(first, 0, "nothing changed: 0 returned");
	free(s);
}

/* Lines "line 1\n".."line n\n", line 1 and line n as given. */
static char *
lines(size_t n, const char *first, const char *last)
{
	struct buf b;
	size_t i;

	buf_init(&b, 1u << 26);
	buf_adds(&b, first);
	for (i = 2; i < n; i++)
		buf_addf(&b, "line %zu\n", i);
	buf_adds(&b, last);
	return buf_detach(&b, NULL);
}

static size_t
count(const char *s, const char *pat)
{
	size_t k = 0;

	for (; (s = strstr(s, pat)) != NULL; s++)
		k++;
	return k;
}

/*
 * A region whose first and last lines change: the lines between are
 * context while the table, (old lines + 1) * (new lines + 1) cells,
 * fits, and are replaced with the rest once it does not.
 */
static void
test_cap(void)
{
	size_t n, first;
	char *base, *res, *s;
	struct rep r;

	/* The most lines on both sides that still fit. */
	for (n = 1; (n + 2) * (n + 2) <= UDIFF_LCS_CELLS; n++)
		;
	base = lines(n, "first\n", "last\n");
	res = lines(n, "FIRST\n", "LAST\n");
	r = (struct rep){ 0, strlen(base), res };
	s = diff(base, &r, 1, &first);
	is_int(count(s, "@@ -"), 2, "table fits: two hunks");
	is_int(count(s, "\n-"), 2, "table fits: two lines out");
	is_int(first, 1, "table fits: first changed line");
	free(s);
	free(base);

	/* One old line more: one row too many. */
	base = lines(n + 1, "first\n", "last\n");
	r = (struct rep){ 0, strlen(base), res };
	s = diff(base, &r, 1, &first);
	is_int(count(s, "@@ -"), 1, "too large: one hunk");
	is_int(count(s, "\n-"), n + 1, "too large: all old lines out");
	/* Less one for the "+++" line. */
	is_int(count(s, "\n+") - 1, n, "too large: all new lines in");
	is_int(first, 1, "too large: first changed line");
	free(s);
	free(base);
	free(res);
}

int
main(void)
{
	test_ranges();
	test_blocks();
	test_cap();
	return done_testing();
}
