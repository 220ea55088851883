/*
 * truncate: pi's shared truncation of tool output (truncate.ts).
 *
 * Text is cut by two limits, lines and bytes, whichever is hit first.
 * Lines are what splitting on '\n' gives, so "a\nb\n" is three lines, the
 * last one empty, and "" is one.  Bytes are counted as given: pass valid
 * UTF-8 (utf8_sanitize first) and the counts are pi's.
 *
 * truncate_head keeps the beginning, whole lines only; when the first
 * line alone is over the byte limit nothing is kept and
 * first_line_exceeds_limit is set.  truncate_tail keeps the end, whole
 * lines, except that when the last line alone is over the byte limit its
 * end is kept, cut on a character boundary, and last_line_partial is
 * set.  Neither allocates: what is kept is always a prefix (head) or a
 * suffix (tail) of the input, and the functions return its length.
 *
 * A caller that streams, like read, offers lines one by one to
 * truncate_head_line, which keeps the same books as truncate_head.
 *
 * format_size prints a size as pi does: "512B", "50.0KB", "1.5MB"
 * (1024 base, one decimal, halves rounded up as JavaScript's toFixed).
 */
#ifndef PI_TRUNCATE_H
#define PI_TRUNCATE_H

#include <stddef.h>

/* pi's defaults, for tools whose caller gave no limits. */
#define TRUNCATE_MAX_LINES	2000
#define TRUNCATE_MAX_BYTES	(50 * 1024)

/* Room for any format_size result, NUL included. */
#define FORMAT_SIZE_LEN		32

enum truncate_by {
	TRUNCATE_NONE,		/* nothing was cut */
	TRUNCATE_LINES,		/* the line limit was hit first */
	TRUNCATE_BYTES		/* the byte limit was hit first */
};

/* pi's TruncationResult, less the content. */
struct truncation {
	size_t max_lines;
	size_t max_bytes;
	int truncated;
	enum truncate_by by;
	size_t total_lines;	/* of the whole input */
	size_t total_bytes;
	size_t output_lines;	/* of what is kept */
	size_t output_bytes;
	int last_line_partial;		/* tail only */
	int first_line_exceeds_limit;	/* head only */
};

/* Start the books for truncate_head_line. */
void truncate_init(struct truncation *t, size_t max_lines, size_t max_bytes);
/*
 * Offer the next line, len bytes without its '\n'.  Returns 1 when the
 * line is kept (the output so far, lines joined by '\n', still fits),
 * else 0; once a line is refused every later one is, and lines are only
 * counted into the totals.
 */
int truncate_head_line(struct truncation *t, size_t len);

/*
 * Fill t for p[0..n) and return how many bytes to keep: p[0..ret) for
 * head, p[n - ret..n) for tail (ret == t->output_bytes).
 */
size_t truncate_head(struct truncation *t, const char *p, size_t n,
    size_t max_lines, size_t max_bytes);
size_t truncate_tail(struct truncation *t, const char *p, size_t n,
    size_t max_lines, size_t max_bytes);

/* "lines", "bytes", or NULL for TRUNCATE_NONE (pi's truncatedBy). */
const char *truncate_by_name(enum truncate_by by);

/*
 * Bytes in the longest prefix of p[0..n) with at most max_chars
 * characters, never ending inside one (grep's 500-character lines).
 */
size_t truncate_chars(const char *p, size_t n, size_t max_chars);

/* bytes as pi's formatSize, written to out; returns out. */
char *format_size(char out[FORMAT_SIZE_LEN], unsigned long long bytes);

#endif
