/* capture: see capture.h. */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truncate.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

void
capture_init(struct capture *c, size_t max_bytes, size_t max_lines,
    size_t ceiling, const char *dir, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->max_bytes = max_bytes < 16 ? 16 : max_bytes;
	c->max_lines = max_lines < 2 ? 2 : max_lines;
	c->ceiling = ceiling;
	buf_init(&c->head, c->max_bytes);
	c->ring = xmalloc(c->max_bytes);
	c->last = -1;
	c->fd = -1;
	c->dir = dir ? xstrdup(dir) : NULL;
	c->name = xstrdup(name ? name : "output");
}

void
capture_release(struct capture *c)
{
	buf_release(&c->head);
	free(c->ring);
	if (c->fd != -1)
		close(c->fd);
	free(c->path);
	free(c->dir);
	free(c->name);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void
lose_file(struct capture *c, const char *what)
{
	snprintf(c->why, sizeof(c->why), "%s: %s", what, strerror(errno));
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	if (c->path != NULL)
		unlink(c->path);
	free(c->path);
	c->path = NULL;
}

/* Start the file with what memory holds: all of it, so far. */
static void
spill(struct capture *c)
{
	char rnd[37];

	if (c->dir == NULL) {
		snprintf(c->why, sizeof(c->why), "no output directory");
		return;
	}
	pi_uuid7(rnd);
	c->path = xasprintf("%s/%s-%.8s.log", c->dir, c->name, rnd + 28);
	c->fd = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (c->fd == -1) {
		lose_file(c, c->path);
		return;
	}
	if (pi_write_all(c->fd, c->head.data, c->head.len) == -1)
		lose_file(c, c->path);
}

static int
spilled(const struct capture *c)
{
	return c->path != NULL || c->why[0] != '\0';
}

int
capture_add(struct capture *c, const char *p, size_t n, struct pi_error *e)
{
	size_t i, nl = 0, k;

	if (c->total > c->ceiling || n > c->ceiling - c->total)
		return pi_err(e, PI_EXIT_TOOL, "output_limit",
		    "output passed the ceiling of %zu bytes", c->ceiling);
	for (i = 0; i < n; i++)
		if (p[i] == '\n')
			nl++;
	if (!spilled(c) && (c->total + n > c->max_bytes ||
	    c->newlines + nl + 1 > c->max_lines))
		spill(c);
	if (c->fd != -1 && pi_write_all(c->fd, p, n) == -1)
		lose_file(c, c->path);
	/* The head stops growing at its ceiling; the ring never does. */
	k = c->max_bytes - c->head.len;
	(void)buf_add(&c->head, p, n < k ? n : k);
	for (i = n > c->max_bytes ? n - c->max_bytes : 0; i < n; i++) {
		c->ring[c->ring_pos] = p[i];
		c->ring_pos = (c->ring_pos + 1) % c->max_bytes;
		if (c->ring_len < c->max_bytes)
			c->ring_len++;
	}
	c->total += n;
	c->newlines += nl;
	if (n > 0)
		c->last = (unsigned char)p[n - 1];
	return 0;
}

/* The ring in order, as one string. */
static char *
ring_flat(const struct capture *c)
{
	char *t = xmalloc(c->ring_len + 1);
	size_t start = (c->ring_pos + c->max_bytes - c->ring_len) %
	    c->max_bytes, i;

	for (i = 0; i < c->ring_len; i++)
		t[i] = c->ring[(start + i) % c->max_bytes];
	t[c->ring_len] = '\0';
	return t;
}

/* Where the tail starts: a line start, at most half the limits back. */
static size_t
tail_start(const struct capture *c, const char *tail)
{
	size_t hb = c->max_bytes / 2, hl = c->max_lines / 2, start, lines, i;
	const char *nl;

	start = c->ring_len - (c->ring_len < hb ? c->ring_len : hb);
	if (start > 0 && tail[start - 1] != '\n') {
		nl = memchr(tail + start, '\n', c->ring_len - start);
		if (nl != NULL && (size_t)(nl - tail) + 1 < c->ring_len)
			start = (size_t)(nl - tail) + 1;
		else	/* One huge last line: a piece of it. */
			while (start < c->ring_len &&
			    (tail[start] & 0xc0) == 0x80)
				start++;
	}
	for (lines = 0, i = c->ring_len - 1; i > start; i--)
		if (tail[i - 1] == '\n' && ++lines == hl)
			return i;
	return start;
}

int
capture_text(struct capture *c, struct buf *out)
{
	size_t hb = c->max_bytes / 2, hl = c->max_lines / 2, i, n;
	size_t head_len = 0, head_lines = 0, off, tail_lines = 0, all;
	char *tail, size[FORMAT_SIZE_LEN], limit[FORMAT_SIZE_LEN];

	if (!spilled(c)) {
		(void)buf_add(out, c->head.data, c->head.len);
		return 0;
	}
	all = c->newlines + (c->last != '\n' && c->total > 0);
	/* Head: whole lines within half the limits. */
	n = c->head.len < hb ? c->head.len : hb;
	for (i = 0; i < n && head_lines < hl; i++)
		if (c->head.data[i] == '\n') {
			head_lines++;
			head_len = i + 1;
		}
	if (head_len == 0) {
		/* A first line longer than half the limit: a piece of it. */
		head_len = utf8_whole(c->head.data, n);
		head_lines = 1;
	}
	tail = ring_flat(c);
	off = tail_start(c, tail);
	for (i = off; i < c->ring_len; i++)
		if (tail[i] == '\n')
			tail_lines++;
	if (c->last != '\n')
		tail_lines++;
	(void)buf_add(out, c->head.data, head_len);
	if (head_len > 0 && c->head.data[head_len - 1] != '\n')
		(void)buf_addc(out, '\n');
	format_size(size, c->total - head_len -
	    (c->ring_len - off));
	format_size(limit, c->max_bytes);
	if (head_lines + tail_lines <= all) {
		(void)buf_addf(out, "[... %zu lines (%s) left out ...]\n",
		    all - head_lines - tail_lines, size);
		(void)buf_add(out, tail + off, c->ring_len - off);
		(void)buf_adds(out, c->last == '\n' ? "\n" : "\n\n");
		(void)buf_addf(out, "[Showing lines 1-%zu and %zu-%zu of "
		    "%zu (%s limit). ", head_lines, all - tail_lines + 1, all,
		    all, limit);
	} else {
		/* Lines too long to count by: say it in bytes. */
		(void)buf_addf(out, "[... %s left out ...]\n", size);
		(void)buf_add(out, tail + off, c->ring_len - off);
		format_size(size, c->total);
		(void)buf_adds(out, c->last == '\n' ? "\n" : "\n\n");
		(void)buf_addf(out, "[Showing the first and last bytes of "
		    "%s (%s limit). ", size, limit);
	}
	free(tail);
	if (c->path != NULL)
		(void)buf_addf(out, "Full output: %s]", c->path);
	else
		(void)buf_addf(out, "The full output could not be kept "
		    "(%s).]", c->why);
	return 1;
}
