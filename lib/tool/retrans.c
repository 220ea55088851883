/*
 * retrans: see retrans.h.  One pass, left to right; the only state is
 * whether what came last can be repeated, which decides if a '{' opens
 * an interval or is a literal brace (PCRE reads "a{" and "{2}" at the
 * start as text, ERE as errors).
 */
#include "retrans.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "core/banned.h"

#define RE_SPECIAL	".[]()*+?{}|^$\\"

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte for \xHH at s (after the 'x'), or -1. */
static int
hex2(const char *s)
{
	if (hexval(s[0]) == -1 || hexval(s[1]) == -1)
		return -1;
	return hexval(s[0]) << 4 | hexval(s[1]);
}

/* A control escape (\t \n \r \f \v) as its character, else 0. */
static int
control(int c)
{
	switch (c) {
	case 't':
		return '\t';
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	case 'f':
		return '\f';
	case 'v':
		return '\v';
	}
	return 0;
}

/* Length of an interval {n}, {n,}, {n,m} or {,m} at s, or 0. */
static size_t
interval(const char *s)
{
	size_t i = 1, digits = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == ',')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	return s[i] == '}' && digits != 0 ? i + 1 : 0;
}

/*
 * Translate the bracket expression at s into o; returns what follows
 * it, or NULL with e filled.  PCRE escapes a ']', '-' or '^' where POSIX
 * moves it: ']' first, '^' not first, '-' last.
 */
static const char *
bracket(const char *s, struct buf *o, struct buf *body, struct pi_error *e)
{
	const char *p = s + 1, *q;
	int neg = 0, rb = 0, dash = 0, caret = 0, c;

	buf_reset(body);
	if (*p == '^') {
		neg = 1;
		p++;
	}
	if (*p == ']') {
		rb = 1;
		p++;
	}
	while (*p != '\0' && *p != ']') {
		if (p[0] == '[' && p[1] == ':' &&
		    (q = strstr(p, ":]")) != NULL) {
			(void)buf_add(body, p, (size_t)(q + 2 - p));
			p = q + 2;
			continue;
		}
		if (*p != '\\' || p[1] == '\0') {
			(void)buf_addc(body, *p++);
			continue;
		}
		c = p[1];
		p += 2;
		if (c == 'd')
			(void)buf_adds(body, "0-9");
		else if (c == 's')
			(void)buf_adds(body, "[:space:]");
		else if (c == 'w')
			(void)buf_adds(body, "[:alnum:]_");
		else if (c == 'D' || c == 'S' || c == 'W') {
			pi_err(e, PI_EXIT_INPUT, "bad_pattern", "\\D, \\S "
			    "and \\W cannot be used inside [...]");
			return NULL;
		} else if (c == ']')
			rb = 1;
		else if (c == '-')
			dash = 1;
		else if (c == '^')
			caret = 1;
		else if (c == 'x' && hex2(p) > 0) {
			(void)buf_addc(body, hex2(p));
			p += 2;
		} else
			(void)buf_addc(body, control(c) ? control(c) : c);
	}
	if (*p != ']') {
		/* Unterminated: regcomp says so in its own words. */
		(void)buf_adds(o, s);
		return s + strlen(s);
	}
	if (caret && !neg && !rb && body->len == 0 && !dash)
		(void)buf_adds(o, "\\^");
	else if (caret && !neg && !rb && body->len == 0)
		(void)buf_adds(o, "[-^]");
	else
		(void)buf_addf(o, "[%s%s%s%s%s]", neg ? "^" : "",
		    rb ? "]" : "", body->data, caret ? "^" : "",
		    dash ? "-" : "");
	return p + 1;
}

/*
 * Translate the escape at s (a '\') into o; returns what follows it, or
 * NULL with e filled for a PCRE letter escape ERE has no match for.
 */
static const char *
escape(const char *s, struct buf *o, struct pi_error *e)
{
	int c = (unsigned char)s[1], x;

	if (c == '\0') {
		(void)buf_addc(o, '\\');
		return s + 1;
	}
	if (c == 'd' || c == 'D')
		(void)buf_adds(o, c == 'd' ? "[0-9]" : "[^0-9]");
	else if (c == 'A')
		(void)buf_addc(o, '^');
	else if (c == 'z' || c == 'Z')
		(void)buf_addc(o, '$');
	else if (control(c))
		(void)buf_addc(o, control(c));
	else if (c == 'x' && (x = hex2(s + 2)) > 0) {
		if (strchr(RE_SPECIAL, x) != NULL)
			(void)buf_addc(o, '\\');
		(void)buf_addc(o, x);
		return s + 4;
	} else if (strchr(RE_SPECIAL "wWsSbB<>123456789", c) != NULL) {
		(void)buf_addc(o, '\\');
		(void)buf_addc(o, c);
	} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
		pi_err(e, PI_EXIT_INPUT, "bad_pattern", "\\%c is not "
		    "supported", c);
		return NULL;
	} else
		(void)buf_addc(o, c);
	return s + 2;
}

char *
retrans_ere(const char *s, int *icase, struct pi_error *e)
{
	struct buf o, body;
	size_t n, len = strlen(s);
	int atom = 0;

	/*
	 * Nothing grows more than five times ("[\w]" is 4 bytes in and 12
	 * out, "\w" inside a bracket 2 in and 10 out), so the ceilings are
	 * never reached and the (void)s below lose nothing.
	 */
	if (len > (SIZE_MAX - 16) / 8) {
		pi_err(e, PI_EXIT_INPUT, "bad_pattern", "The pattern is too "
		    "long.");
		return NULL;
	}
	buf_init(&o, 8 * len + 16);
	buf_init(&body, 8 * len + 16);
	if (strncmp(s, "(?i)", 4) == 0) {
		*icase = 1;
		s += 4;
	}
	while (*s != '\0') {
		switch (*s) {
		case '\\':
			s = escape(s, &o, e);
			atom = 1;
			if (s == NULL)
				goto fail;
			continue;
		case '[':
			s = bracket(s, &o, &body, e);
			atom = 1;
			if (s == NULL)
				goto fail;
			continue;
		case '(':
			atom = 0;
			if (s[1] == '?' && s[2] == ':') {
				(void)buf_addc(&o, '(');
				s += 3;
				continue;
			}
			if (s[1] == '?' && (s[2] == 'P' || s[2] == '<') &&
			    strchr(s, '>') != NULL && s[3] != '=' &&
			    s[3] != '!') {
				(void)buf_addc(&o, '(');
				s = strchr(s, '>') + 1;
				continue;
			}
			if (s[1] == '?') {
				pi_err(e, PI_EXIT_INPUT, "bad_pattern",
				    "(?...) groups such as lookahead and "
				    "lookbehind are not supported");
				goto fail;
			}
			break;
		case '{':
			if (atom && (n = interval(s)) != 0) {
				(void)buf_add(&o, s, n);
				s += n;
				continue;
			}
			(void)buf_adds(&o, "\\{");
			s++;
			continue;
		case '}':
			(void)buf_adds(&o, "\\}");
			s++;
			continue;
		case '|':
		case '^':
			atom = 0;
			break;
		default:
			atom = 1;
			break;
		}
		(void)buf_addc(&o, *s++);
	}
	buf_release(&body);
	return buf_detach(&o, NULL);
fail:
	buf_release(&body);
	buf_release(&o);
	return NULL;
}
