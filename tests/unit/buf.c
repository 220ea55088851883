/* buf: the ceiling holds exactly, and a refused add changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "core/buf.h"

int
main(void)
{
	struct buf b;
	char *p, big[300];
	size_t len;

	buf_init(&b, 10);
	is_int(b.len, 0, "a new buffer is empty");
	ok(b.data != NULL && b.data[0] == '\0', "and is a C string");

	ok(buf_add(&b, "hello", 5) == 0, "add within the ceiling");
	ok(buf_addc(&b, ' ') == 0, "addc");
	ok(buf_adds(&b, "wor") == 0, "adds up to one byte short");
	is_str(b.data, "hello wor", "contents are NUL-terminated");
	ok(buf_add(&b, "ld", 2) == -1, "an add past the ceiling fails");
	is_int(b.len, 9, "and leaves the length alone");
	is_str(b.data, "hello wor", "and the contents");
	ok(buf_addc(&b, 'l') == 0, "exactly the ceiling is allowed");
	ok(buf_addc(&b, 'd') == -1, "one byte more is not");
	ok(buf_add(&b, "", 0) == 0, "an empty add at the ceiling is fine");
	is_str(b.data, "hello worl", "contents after filling up");

	buf_reset(&b);
	is_int(b.len, 0, "reset empties");
	is_str(b.data, "", "reset leaves an empty string");
	ok(buf_addf(&b, "%d-%s", 42, "x") == 0, "addf");
	is_str(b.data, "42-x", "addf formats");
	ok(buf_addf(&b, "%s", "1234567") == -1, "addf past the ceiling fails");
	is_str(b.data, "42-x", "and leaves the contents alone");
	is_int(b.len, 4, "and the length");

	ok(buf_add(&b, "\0z", 2) == 0, "embedded NUL is data");
	is_int(b.len, 6, "length counts it");
	ok(memcmp(b.data, "42-x\0z", 7) == 0, "and a NUL still ends it");

	p = buf_detach(&b, &len);
	is_int(len, 6, "detach gives the length");
	ok(memcmp(p, "42-x\0z", 7) == 0, "detach gives the bytes");
	free(p);
	is_int(b.len, 0, "detach leaves the buffer empty");
	is_int(b.max, 10, "with the same ceiling");
	ok(buf_adds(&b, "again") == 0, "and usable");
	is_str(b.data, "again", "after detach");
	buf_release(&b);
	is_int(b.len, 0, "release empties");
	is_int(b.max, 10, "release keeps the ceiling");

	p = buf_detach(&b, &len);
	ok(p != NULL && p[0] == '\0' && len == 0,
	    "detach of an empty buffer is a freeable empty string");
	free(p);

	/* Growth past the first allocation keeps what was there. */
	buf_init(&b, 1000);
	memset(big, 'a', sizeof(big));
	ok(buf_add(&b, big, sizeof(big)) == 0 &&
	    buf_add(&b, big, sizeof(big)) == 0 &&
	    buf_add(&b, big, sizeof(big)) == 0, "grow to 900 bytes");
	ok(b.len == 900 && b.data[899] == 'a' && b.data[900] == '\0',
	    "grown contents intact and terminated");
	ok(buf_add(&b, big, sizeof(big)) == -1, "the 1000-byte ceiling holds");
	is_int(b.len, 900, "after a refused grow");
	buf_release(&b);

	buf_init(&b, (size_t)-1);
	ok(buf_add(&b, "x", 1) == 0 && buf_add(&b, big, (size_t)-1) == -1,
	    "a length that would overflow is refused");
	is_int(b.len, 1, "and changes nothing");
	buf_release(&b);
	return done_testing();
}
