/*
 * buf: a growable byte buffer with a hard ceiling (curl's dynbuf).
 *
 * The contents are always NUL-terminated, so data can be used as a C
 * string when it holds no NUL.  buf_add fails, leaving the buffer as it
 * was, when the result would exceed the ceiling given to buf_init; that
 * is how every input limit in pi is enforced.  buf_release frees the
 * contents and leaves an empty buffer with the same ceiling.
 */
#ifndef PI_BUF_H
#define PI_BUF_H

#include <stddef.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max;
};

void buf_init(struct buf *b, size_t max);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
int buf_add(struct buf *b, const void *p, size_t n);
int buf_addc(struct buf *b, int c);
int buf_adds(struct buf *b, const char *s);
int buf_addf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hand the contents to the caller (free with free) and reset. */
char *buf_detach(struct buf *b, size_t *len);
/*
 * Append what fd holds, to its end: 0, or -1 with errno set, EFBIG when
 * it is more than the ceiling allows (a directory fails with EISDIR).
 */
int buf_read_fd(struct buf *b, int fd);
/* The same for the file at path ("-": standard input). */
int buf_read_file(struct buf *b, const char *path);

#endif
