/*
 * retrans: PCRE/Rust patterns in, POSIX ERE out, compared byte for
 * byte; every refused construct with its message; and, for the
 * brackets, that regcomp reads the result as intended.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "core/util.h"
#include "tool/retrans.h"

/* s translates to want, and (?i) is seen or not as want_icase says. */
static void
tr(const char *s, const char *want, int want_icase)
{
	struct pi_error e;
	char *got;
	int icase = 0;

	got = retrans_ere(s, &icase, &e);
	if (got == NULL)
		diag("refused: %s", e.msg);
	is_str(got, want, s);
	if (want_icase || icase)
		is_int(icase, want_icase, "and (?i) is seen");
	free(got);
}

/* s is refused with message msg. */
static void
no(const char *s, const char *msg)
{
	struct pi_error e;
	char *got;
	int icase = 0;

	memset(&e, 0, sizeof(e));
	got = retrans_ere(s, &icase, &e);
	if (!ok(got == NULL, "%s is refused", s))
		diag("got \"%s\"", got);
	else {
		is_str(e.code, "bad_pattern", "as bad_pattern");
		is_str(e.msg, msg, "saying why");
	}
	free(got);
}

/* The translation of s, compiled, matches text (1) or not (0). */
static void
re(const char *s, const char *text, int want)
{
	struct pi_error e;
	regex_t rx;
	char *ere;
	int icase = 0, rc;

	if ((ere = retrans_ere(s, &icase, &e)) == NULL) {
		ok(0, "%s translates: %s", s, e.msg);
		return;
	}
	if ((rc = regcomp(&rx, ere, REG_EXTENDED | REG_NOSUB |
	    (icase ? REG_ICASE : 0))) != 0) {
		ok(0, "%s (as %s) compiles: %d", s, ere, rc);
		free(ere);
		return;
	}
	ok((regexec(&rx, text, 0, NULL, 0) == 0) == want, "%s %s \"%s\"", s,
	    want ? "matches" : "does not match", text);
	regfree(&rx);
	free(ere);
}

static void
escapes(void)
{
	tr("", "", 0);
	tr("abc", "abc", 0);
	tr("a.b*c+d?", "a.b*c+d?", 0);
	tr("^a|b$", "^a|b$", 0);
	tr("\\d+", "[0-9]+", 0);
	tr("\\D", "[^0-9]", 0);
	tr("\\Aa\\z", "^a$", 0);
	tr("a\\Z", "a$", 0);
	tr("a\\tb", "a\tb", 0);
	tr("\\n\\r\\f\\v", "\n\r\f\v", 0);
	tr("\\x41B", "AB", 0);
	tr("\\x2e", "\\.", 0);
	tr("\\x5c", "\\\\", 0);
	tr("\\x7b", "\\{", 0);
	tr("\\xe9", "\xe9", 0);
	tr("\\w\\W\\s\\S\\b\\B\\<\\>", "\\w\\W\\s\\S\\b\\B\\<\\>", 0);
	tr("(a)\\1", "(a)\\1", 0);
	tr("\\.\\[\\]\\(\\)\\*\\+\\?\\{\\}\\|\\^\\$\\\\",
	    "\\.\\[\\]\\(\\)\\*\\+\\?\\{\\}\\|\\^\\$\\\\", 0);
	tr("\\-\\/\\@\\#\\ \\'", "-/@# '", 0);
	tr("\\0", "0", 0);
	tr("a\\", "a\\", 0);
	tr("caf\xc3\xa9", "caf\xc3\xa9", 0);
}

static void
groups(void)
{
	tr("(?i)abc", "abc", 1);
	tr("(?i)", "", 1);
	tr("(?:a|b)c", "(a|b)c", 0);
	tr("(?P<name>a)", "(a)", 0);
	tr("(?<name>a)", "(a)", 0);
	tr("(a)(b)", "(a)(b)", 0);
	tr("a(", "a(", 0);
	tr("a)", "a)", 0);
}

static void
intervals(void)
{
	tr("a{2}", "a{2}", 0);
	tr("a{2,}", "a{2,}", 0);
	tr("a{2,5}", "a{2,5}", 0);
	tr("a{,5}", "a{,5}", 0);
	tr("(ab){3}", "(ab){3}", 0);
	tr("[ab]{3}", "[ab]{3}", 0);
	tr("\\d{4}", "[0-9]{4}", 0);
	tr("{2}", "\\{2\\}", 0);
	tr("a|{2}", "a|\\{2\\}", 0);
	tr("^{2}", "^\\{2\\}", 0);
	tr("({2})", "(\\{2\\})", 0);
	tr("a{", "a\\{", 0);
	tr("a{}", "a\\{\\}", 0);
	tr("a{,}", "a\\{,\\}", 0);
	tr("a{x}", "a\\{x\\}", 0);
	tr("a{2", "a\\{2", 0);
	tr("main() {", "main() \\{", 0);
	tr("}", "\\}", 0);
}

static void
brackets(void)
{
	tr("[abc]", "[abc]", 0);
	tr("[^abc]", "[^abc]", 0);
	tr("[a-z]", "[a-z]", 0);
	tr("[\\d]", "[0-9]", 0);
	tr("[\\s]", "[[:space:]]", 0);
	tr("[\\w.-]", "[[:alnum:]_.-]", 0);
	tr("[^\\d]", "[^0-9]", 0);
	tr("[[:alpha:]_]", "[[:alpha:]_]", 0);
	tr("[\\]]", "[]]", 0);
	tr("[a\\]]", "[]a]", 0);
	tr("[]a]", "[]a]", 0);
	tr("[^]a]", "[^]a]", 0);
	tr("[^\\]]", "[^]]", 0);
	tr("[\\-x]", "[x-]", 0);
	tr("[a\\-z]", "[az-]", 0);
	tr("[\\^]", "\\^", 0);
	tr("[\\^\\-]", "[-^]", 0);
	tr("[\\^a]", "[a^]", 0);
	tr("[^\\^]", "[^^]", 0);
	tr("[\\]\\-\\^]", "[]^-]", 0);
	tr("[\\x41-\\x43]", "[A-C]", 0);
	tr("[\\t ]", "[\t ]", 0);
	tr("[\\\\]", "[\\]", 0);
	tr("[\\.]", "[.]", 0);
	tr("[\\p]", "[p]", 0);
	tr("[{}]", "[{}]", 0);
	tr("[abc", "[abc", 0);
	tr("x[abc", "x[abc", 0);
	tr("[a]{2}[", "[a]{2}[", 0);

	re("x[\\]]y", "x]y", 1);
	re("x[\\]]y", "x\\y", 0);
	re("p[\\^]q", "p^q", 1);
	re("a[\\-x]b", "a-b", 1);
	re("a[\\-x]b", "awb", 0);
	re("[\\^\\-]", "-", 1);
	re("[\\^\\-]", "^", 1);
	re("[\\^\\-]", "a", 0);
	re("^[\\]\\-\\^]+$", "]-^", 1);
	re("^[\\w.-]+@[\\w.-]+$", "user@example.com", 1);
	re("^[\\w.-]+$", "a b", 0);
	re("^[^\\d]$", "7", 0);
	re("^[^\\d]$", "x", 1);
	re("[\\\\]", "\\", 1);
	re("(?i)^HELLO$", "hello", 1);
}

/* What tools_search.c once checked through grep, here at the source. */
static void
semantics(void)
{
	re("v\\D$", "vx", 1);
	re("v\\D$", "v1", 0);
	re("(?:v|i)\\d", "v12", 1);
	re("(?:v|i)\\d", "x12", 0);
	re("a\\tb", "a\tb", 1);
	re("a\\tb", "atb", 0);
	re("main\\(\\) {", "int main() {", 1);
	re("^x{2}$", "xx", 1);
	re("^x{2}$", "xxx", 0);
	re("\\x41B", "AB", 1);
	re("(?P<n>A)B", "AB", 1);
	re("o\\.b", "foo.bar", 1);
	re("o\\.b", "foxbar", 0);
	re("\\bv\\w{2}\\b", "v12", 1);
	re("\\bv\\w{2}\\b", "v123", 0);
	re("\\Aab\\z", "ab", 1);
	re("\\Aab\\z", "xab", 0);
}

static void
refused(void)
{
	const char *group = "(?...) groups such as lookahead and lookbehind "
	    "are not supported";

	no("\\p{L}", "\\p is not supported");
	no("\\P{L}", "\\P is not supported");
	no("a\\K", "\\K is not supported");
	no("\\e", "\\e is not supported");
	no("\\G", "\\G is not supported");
	no("\\h", "\\h is not supported");
	no("\\Q.\\E", "\\Q is not supported");
	no("\\x", "\\x is not supported");
	no("\\x4", "\\x is not supported");
	no("\\xzz", "\\x is not supported");
	no("\\x00", "\\x is not supported");
	no("\\u00e9", "\\u is not supported");
	no("[\\D]", "\\D, \\S and \\W cannot be used inside [...]");
	no("[a\\S]", "\\D, \\S and \\W cannot be used inside [...]");
	no("[^\\W]", "\\D, \\S and \\W cannot be used inside [...]");
	no("(?=x)", group);
	no("(?!x)", group);
	no("(?<=x)", group);
	no("(?<!x)", group);
	no("a(?i)b", group);
	no("(?i)(?i)a", group);
	no("(?s).", group);
	no("(?P=name)", group);
	no("(?Px)", group);
	no("(?<name", group);
	no("(?", group);
	no("ok|\\p{L}", "\\p is not supported");
}

/* Nothing grows past five times its length plus a little. */
static void
growth(void)
{
	static const char *const worst[] = {
		"[\\w\\w\\w\\w\\w\\w\\w\\w]", "\\D\\D\\D\\D", "{{{{}}}}",
		"[\\s\\s\\s\\s]", "(?i)[\\w]{2}\\d\\D{,3}",
	};
	struct pi_error e;
	size_t i;
	char *got;
	int icase;

	for (i = 0; i < sizeof(worst) / sizeof(worst[0]); i++) {
		got = retrans_ere(worst[i], &icase, &e);
		ok(got != NULL && strlen(got) <= 5 * strlen(worst[i]) + 1,
		    "%s grows %zu to %zu", worst[i], strlen(worst[i]),
		    got ? strlen(got) : 0);
		free(got);
	}
}

int
main(void)
{
	escapes();
	groups();
	intervals();
	brackets();
	semantics();
	refused();
	growth();
	return done_testing();
}
