/*
 * utf8: keep text from outside valid.  Model and tool output may hold
 * invalid UTF-8 (a byte cut in half by a broken server, a binary file);
 * json-c passes such bytes through, so each invalid sequence is replaced
 * by U+FFFD before it enters a line (cf. mblaze safe_u8putstr.c).
 */
#ifndef PI_UTF8_H
#define PI_UTF8_H

#include <stddef.h>

struct buf;

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
size_t utf8_seqlen(const unsigned char *p, size_t n);
int utf8_valid(const char *p, size_t n);
/*
 * Append p to out with each maximal invalid subpart (a lone byte, or a
 * sequence cut short) replaced by one U+FFFD; -1 if out is full.
 */
int utf8_sanitize(struct buf *out, const char *p, size_t n);
/*
 * The length of p without a sequence cut short at its end, so a stream
 * read in chunks is never split inside a character.
 */
size_t utf8_whole(const char *p, size_t n);
/* Code points in p (an invalid byte counts as one). */
size_t utf8_count(const char *p, size_t n);

#endif
