/* utf8: see utf8.h. */
#include "utf8.h"

#include "buf.h"
#include "banned.h"

size_t
utf8_seqlen(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

int
utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_seqlen(p + i, n - i)) == 0)
			return 0;
		i += k;
	}
	return 1;
}

/*
 * How many bytes one U+FFFD stands for at an invalid p: the maximal
 * subpart of a well-formed sequence (Unicode's recommended practice, and
 * what WHATWG decoders do), so a character cut short is one U+FFFD.
 */
static size_t
invalid_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 1;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len && i < n; i++) {
		if (p[i] < lo || p[i] > hi)
			break;
		lo = 0x80, hi = 0xbf;
	}
	return i;
}

int
utf8_sanitize(struct buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_seqlen(p + i, n - i)) != 0) {
			i += k;
			continue;
		}
		if (buf_add(out, s + start, i - start) == -1 ||
		    buf_add(out, "\xef\xbf\xbd", 3) == -1)
			return -1;
		i += invalid_len(p + i, n - i);
		start = i;
	}
	return buf_add(out, s + start, n - start);
}

size_t
utf8_count(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			count++;
	return count;
}

size_t
utf8_whole(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i, need;

	/* Look back at most three bytes for the lead byte of a sequence. */
	for (i = n; i > 0 && n - i < 4; i--) {
		if ((u[i - 1] & 0xc0) == 0x80)
			continue;
		need = u[i - 1] >= 0xf0 ? 4 : u[i - 1] >= 0xe0 ? 3 :
		    u[i - 1] >= 0xc0 ? 2 : 1;
		return n - (i - 1) < need ? i - 1 : n;
	}
	return n;
}
