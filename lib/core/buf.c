/* buf: see buf.h. */
#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "banned.h"

static char empty[1];

void
buf_init(struct buf *b, size_t max)
{
	b->data = empty;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void
buf_release(struct buf *b)
{
	if (b->cap)
		free(b->data);
	buf_init(b, b->max);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

static int
grow(struct buf *b, size_t n)
{
	size_t want, cap;

	if (n > b->max || b->len > b->max - n)
		return -1;
	want = b->len + n + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap = cap < ((size_t)-1) / 2 ? cap * 2 : want;
	if (b->cap)
		b->data = xrealloc(b->data, cap);
	else
		b->data = xmalloc(cap);
	b->cap = cap;
	return 0;
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (grow(b, n) == -1)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_addc(struct buf *b, int c)
{
	char ch = (char)c;

	return buf_add(b, &ch, 1);
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(b, (size_t)n) == -1)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *
buf_detach(struct buf *b, size_t *len)
{
	char *p = b->cap ? b->data : xstrdup("");

	if (len)
		*len = b->len;
	buf_init(b, b->max);
	return p;
}

int
buf_read_fd(struct buf *b, int fd)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (buf_add(b, chunk, (size_t)n) == -1) {
			errno = EFBIG;
			return -1;
		}
	}
	return 0;
}

int
buf_read_file(struct buf *b, const char *path)
{
	int fd, rc, saved;

	if (strcmp(path, "-") == 0)
		return buf_read_fd(b, 0);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = buf_read_fd(b, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
