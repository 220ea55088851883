/* truncate: see truncate.h. */
#include "truncate.h"

#include <stdio.h>
#include <string.h>

#include "core/banned.h"

void
truncate_init(struct truncation *t, size_t max_lines, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->max_lines = max_lines;
	t->max_bytes = max_bytes;
	t->by = TRUNCATE_NONE;
}

int
truncate_head_line(struct truncation *t, size_t len)
{
	size_t sep = t->output_lines > 0;

	t->total_bytes += len + (t->total_lines > 0);
	if (t->truncated) {
		t->total_lines++;
		return 0;
	}
	if (t->total_lines++ >= t->max_lines) {
		t->truncated = 1;
		t->by = TRUNCATE_LINES;
		return 0;
	}
	/* Written so that no sum can wrap around. */
	if (len > t->max_bytes || sep > t->max_bytes - len ||
	    t->output_bytes > t->max_bytes - len - sep) {
		t->truncated = 1;
		t->by = TRUNCATE_BYTES;
		t->first_line_exceeds_limit = t->output_lines == 0;
		return 0;
	}
	t->output_lines++;
	t->output_bytes += len + sep;
	return 1;
}

static size_t
count_lines(const char *p, size_t n)
{
	const char *q, *end = p + n;
	size_t lines = 1;

	while ((q = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		lines++;
		p = q + 1;
	}
	return lines;
}

size_t
truncate_head(struct truncation *t, const char *p, size_t n,
    size_t max_lines, size_t max_bytes)
{
	const char *q, *s = p, *end = p + n;

	truncate_init(t, max_lines, max_bytes);
	for (;;) {
		q = memchr(s, '\n', (size_t)(end - s));
		if (!truncate_head_line(t, (size_t)((q ? q : end) - s)))
			break;
		if (q == NULL)
			break;
		s = q + 1;
	}
	/* The rest is only counted, as if offered line by line. */
	t->total_lines = count_lines(p, n);
	t->total_bytes = n;
	return t->output_bytes;
}

size_t
truncate_tail(struct truncation *t, const char *p, size_t n,
    size_t max_lines, size_t max_bytes)
{
	size_t start, end = n, len, sep, k;

	truncate_init(t, max_lines, max_bytes);
	t->total_lines = count_lines(p, n);
	t->total_bytes = n;
	if (t->total_lines <= max_lines && n <= max_bytes) {
		t->output_lines = t->total_lines;
		t->output_bytes = n;
		return n;
	}
	t->truncated = 1;
	t->by = TRUNCATE_LINES;
	while (t->output_lines < max_lines) {
		for (start = end; start > 0 && p[start - 1] != '\n'; start--)
			;
		len = end - start;
		sep = t->output_lines > 0;
		if (len + sep > max_bytes - t->output_bytes) {
			t->by = TRUNCATE_BYTES;
			if (t->output_lines == 0) {
				/* Keep the end of the line, on a boundary. */
				k = n - max_bytes;
				while (k < n && ((unsigned char)p[k] & 0xc0) ==
				    0x80)
					k++;
				t->output_lines = 1;
				t->output_bytes = n - k;
				t->last_line_partial = 1;
			}
			break;
		}
		t->output_lines++;
		t->output_bytes += len + sep;
		if (start == 0)
			break;
		end = start - 1;
	}
	/* pi's rule, quirk included: a full line count wins. */
	if (t->output_lines >= max_lines && t->output_bytes <= max_bytes)
		t->by = TRUNCATE_LINES;
	return t->output_bytes;
}

const char *
truncate_by_name(enum truncate_by by)
{
	switch (by) {
	case TRUNCATE_LINES:
		return "lines";
	case TRUNCATE_BYTES:
		return "bytes";
	default:
		return NULL;
	}
}

size_t
truncate_chars(const char *p, size_t n, size_t max_chars)
{
	size_t i, chars = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)p[i] & 0xc0) != 0x80 &&
		    chars++ == max_chars)
			return i;
	return n;
}

char *
format_size(char out[FORMAT_SIZE_LEN], unsigned long long bytes)
{
	unsigned long long tenths;

	/*
	 * In integers, so that halves round up as toFixed(1) does (printf
	 * would round 1280 bytes, 1.25KB, to even: "1.2KB").
	 */
	if (bytes < 1024)
		snprintf(out, FORMAT_SIZE_LEN, "%lluB", bytes);
	else if (bytes < 1024 * 1024) {
		tenths = (bytes * 10 + 512) / 1024;
		snprintf(out, FORMAT_SIZE_LEN, "%llu.%lluKB", tenths / 10,
		    tenths % 10);
	} else {
		tenths = bytes / 1048576 * 10 +
		    ((bytes % 1048576) * 10 + 524288) / 1048576;
		snprintf(out, FORMAT_SIZE_LEN, "%llu.%lluMB", tenths / 10,
		    tenths % 10);
	}
	return out;
}
