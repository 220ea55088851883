/* utf8: what counts as valid, and how invalid input is repaired. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "core/util.h"

#define U(s) (const unsigned char *)(s), sizeof(s) - 1
#define FFFD "\xef\xbf\xbd"

static void
is_seqlen(const char *s, size_t n, size_t want, const char *name)
{
	is_int(utf8_seqlen((const unsigned char *)s, n), want, name);
}

static void
is_sanitized(const char *in, size_t n, const char *want, const char *name)
{
	struct buf b;

	buf_init(&b, 1024);
	ok(utf8_sanitize(&b, in, n) == 0, "sanitize %s", name);
	ok(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0,
	    "sanitize %s: right bytes", name);
	ok(utf8_valid(b.data, b.len), "sanitize %s: result is valid", name);
	buf_release(&b);
}

int
main(void)
{
	struct buf b;

	is_int(utf8_seqlen(U("A")), 1, "ASCII is one byte");
	is_int(utf8_seqlen(U("\x7f")), 1, "DEL is one byte");
	is_int(utf8_seqlen(U("\xc3\xa9")), 2, "U+00E9 is two bytes");
	is_int(utf8_seqlen(U("\xc2\x80")), 2, "U+0080, smallest two-byte");
	is_int(utf8_seqlen(U("\xe2\x82\xac")), 3, "U+20AC is three bytes");
	is_int(utf8_seqlen(U("\xe0\xa0\x80")), 3, "U+0800, smallest three");
	is_int(utf8_seqlen(U("\xef\xbf\xbf")), 3, "U+FFFF");
	is_int(utf8_seqlen(U("\xed\x9f\xbf")), 3, "U+D7FF, below surrogates");
	is_int(utf8_seqlen(U("\xf0\x9f\x98\x80")), 4, "U+1F600 is four bytes");
	is_int(utf8_seqlen(U("\xf0\x90\x80\x80")), 4, "U+10000, smallest four");
	is_int(utf8_seqlen(U("\xf4\x8f\xbf\xbf")), 4, "U+10FFFF, the largest");
	is_int(utf8_seqlen(U("\xc3\xa9zz")), 2, "trailing bytes not counted");

	is_int(utf8_seqlen(U("\xc0\x80")), 0, "overlong C0 80");
	is_int(utf8_seqlen(U("\xc1\xbf")), 0, "overlong C1 BF");
	is_int(utf8_seqlen(U("\xe0\x80\x80")), 0, "overlong E0 80 80");
	is_int(utf8_seqlen(U("\xe0\x9f\xbf")), 0, "overlong E0 9F BF");
	is_int(utf8_seqlen(U("\xf0\x8f\xbf\xbf")), 0, "overlong F0 8F BF BF");
	is_int(utf8_seqlen(U("\xed\xa0\x80")), 0, "surrogate U+D800");
	is_int(utf8_seqlen(U("\xed\xbf\xbf")), 0, "surrogate U+DFFF");
	is_int(utf8_seqlen(U("\xf4\x90\x80\x80")), 0, "U+110000 is too big");
	is_int(utf8_seqlen(U("\xf5\x80\x80\x80")), 0, "F5 never starts one");
	is_int(utf8_seqlen(U("\xff")), 0, "FF is never valid");
	is_int(utf8_seqlen(U("\x80")), 0, "a lone continuation byte");
	is_int(utf8_seqlen(U("\xc3")), 0, "truncated two-byte");
	is_int(utf8_seqlen(U("\xe2\x82")), 0, "truncated three-byte");
	is_int(utf8_seqlen(U("\xf0\x9f\x98")), 0, "truncated four-byte");
	is_int(utf8_seqlen(U("\xe2\x82" "A")), 0, "three-byte cut by ASCII");
	is_seqlen("\xf0\x9f\x98\x80", 3, 0, "n shorter than the sequence");
	is_seqlen("\xc3\xa9", 1, 0, "n of 1 for a two-byte sequence");

	ok(utf8_valid("", 0), "empty is valid");
	ok(utf8_valid("h\xc3\xa9llo \xf0\x9f\x98\x80", 11), "mixed is valid");
	ok(!utf8_valid("ab\xc3", 3), "truncated at the end is not");
	ok(!utf8_valid("a\xed\xa0\x80z", 5), "a surrogate inside is not");
	ok(utf8_valid("a\0b", 3), "NUL is valid UTF-8");

	is_sanitized("plain", 5, "plain", "ASCII untouched");
	is_sanitized("caf\xc3\xa9 \xf0\x9f\x98\x80", 10,
	    "caf\xc3\xa9 \xf0\x9f\x98\x80", "valid multibyte untouched");
	is_sanitized("a\xff" "b", 3, "a" FFFD "b", "FF becomes U+FFFD");
	is_sanitized("\x80\x80", 2, FFFD FFFD, "each stray continuation");
	is_sanitized("x\xc0\x80y", 4, "x" FFFD FFFD "y", "overlong C0 80");
	is_sanitized("\xed\xa0\x80", 3, FFFD FFFD FFFD, "surrogate ED A0 80");
	is_sanitized("\xf4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD,
	    "F4 90 80 80 past U+10FFFF");
	is_sanitized("ok\xc3", 3, "ok" FFFD, "truncated at the end");
	is_sanitized("\xc3" "A", 2, FFFD "A", "lead byte cut by ASCII");
	is_sanitized(FFFD, 3, FFFD, "U+FFFD itself stays one");

	/* A sequence cut short is one U+FFFD: its maximal subpart. */
	is_sanitized("\xe2\x82" "A", 3, FFFD "A", "cut E2 82 then A");
	is_sanitized("\xf0\x9f\x98", 3, FFFD, "cut four-byte at the end");
	is_sanitized("\xf0\x9f" "\xf0\x9f\x98\x80", 6, FFFD "\xf0\x9f\x98\x80",
	    "cut four-byte before a whole one");

	buf_init(&b, 4);
	ok(utf8_sanitize(&b, "ab\xff", 3) == -1, "sanitize past the ceiling");
	buf_release(&b);

	is_int(utf8_count("", 0), 0, "count of nothing");
	is_int(utf8_count("abc", 3), 3, "count ASCII");
	is_int(utf8_count("caf\xc3\xa9", 5), 4, "count with a two-byte char");
	is_int(utf8_count("\xf0\x9f\x98\x80!", 5), 2, "count an emoji");
	is_int(utf8_count("a\xff" "b", 3), 3, "an invalid byte counts as one");
	return done_testing();
}
