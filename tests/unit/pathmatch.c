/* pathmatch: globs, {a,b} alternatives and .gitignore rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "core/buf.h"
#include "core/util.h"
#include "tool/pathmatch.h"

static void
m(const char *pat, const char *path, int want)
{
	is_int(pathmatch(pat, path), want, pat);
	if (pathmatch(pat, path) != want)
		diag("pattern \"%s\", path \"%s\"", pat, path);
}

static void
gf(const char *pat, int flags, const char *path, int is_dir, int want)
{
	struct pathmatch_glob gl;
	struct pi_error e;

	if (!ok(pathmatch_glob_init(&gl, pat, flags, &e) == 0,
	    "glob %s compiles", pat))
		diag("%s", e.msg);
	if (!ok(pathmatch_glob_match(&gl, path, is_dir) == want,
	    "glob %s%s %s %s%s", pat, flags & PATHMATCH_ICASE ? " (icase)" :
	    "", want ? "matches" : "does not match", path, is_dir ? "/" : ""))
		diag("%zu alternatives", gl.n);
	pathmatch_glob_release(&gl);
}

static void
g(const char *pat, const char *path, int is_dir, int want)
{
	gf(pat, 0, path, is_dir, want);
}

/* The same glob matched with case and without. */
static void
gi(const char *pat, const char *path, int want, int want_icase)
{
	gf(pat, 0, path, 0, want);
	gf(pat, PATHMATCH_ICASE, path, 0, want_icase);
}

static void
ig(const struct pathmatch_ignore *set, const char *path, int is_dir,
    int want)
{
	static const char *const word[] = { "none", "ignored", "kept" };
	int got = pathmatch_ignore_check(set, path, is_dir);

	is_str(word[got], word[want], path);
}

static void
wildmatch_cases(void)
{
	/* Most of these come from git's t3070-wildmatch.sh. */
	m("foo", "foo", 1);
	m("foo", "bar", 0);
	m("", "", 1);
	m("", "a", 0);
	m("???", "foo", 1);
	m("??", "foo", 0);
	m("*", "foo", 1);
	m("*", "", 1);
	m("f*", "foo", 1);
	m("*f", "foo", 0);
	m("*foo*", "foo", 1);
	m("*ob*a*r*", "foobar", 1);
	m("*ab", "aaaaaaabababab", 1);
	m("foo\\*", "foo*", 1);
	m("foo\\*bar", "foobar", 0);
	m("f\\\\oo", "f\\oo", 1);
	m("\\[ab]", "[ab]", 1);
	m("\\?", "?", 1);
	m("\\?", "x", 0);
	m("*[al]?", "ball", 1);
	m("[ten]", "ten", 0);
	m("**[!te]", "ten", 1);
	m("**[!ten]", "ten", 0);
	m("t[a-g]n", "ten", 1);
	m("t[!a-g]n", "ten", 0);
	m("t[!a-g]n", "ton", 1);
	m("t[^a-g]n", "ton", 1);
	m("a[]]b", "a]b", 1);
	m("a[]-]b", "a-b", 1);
	m("a[]-]b", "a]b", 1);
	m("a[]-]b", "aab", 0);
	m("a[]a-]b", "aab", 1);
	m("[!]-]", "]", 0);
	m("[!]-]", "a", 1);
	m("a[c-c]st", "acrt", 0);
	m("a[c-c]rt", "acrt", 1);
	m("[a\\]b]", "]", 1);
	m("[a\\-z]", "-", 1);
	m("[a\\-z]", "m", 0);
	m("]", "]", 1);
	m("[ab", "[ab", 1);
	m("a[", "a[", 1);
	m("a[", "ab", 0);
	m("\\", "\\", 1);
	m("[[:alpha:]][[:digit:]][[:upper:]]", "a1B", 1);
	m("[[:digit:][:upper:][:space:]]", "a", 0);
	m("[[:digit:][:upper:][:space:]]", "A", 1);
	m("[[:digit:][:upper:][:space:]]", "1", 1);
	m("[[:digit:][:upper:][:space:]]", " ", 1);
	m("[a-c[:digit:]x-z]", "5", 1);
	m("[a-c[:digit:]x-z]", "b", 1);
	m("[a-c[:digit:]x-z]", "y", 1);
	m("[a-c[:digit:]x-z]", "q", 0);
	m("[[:nope:]]", "n", 0);
	m("-*-*-*-*-*-*-12-*-*-*-m-*-*-*",
	    "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", 1);
	m("-*-*-*-*-*-*-12-*-*-*-m-*-*-*",
	    "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", 0);
	m("XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
	    "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", 1);
	m("XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
	    "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", 0);

	/* '/' is crossed only by a "**" that is a whole component. */
	m("foo*bar", "foo/baz/bar", 0);
	m("foo**bar", "foo/baz/bar", 0);
	m("foo?bar", "foo/bar", 0);
	m("foo[/]bar", "foo/bar", 0);
	m("foo[!a]bar", "foo/bar", 0);
	m("f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", 0);
	m("f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", 1);
	m("foo/**/bar", "foo/baz/bar", 1);
	m("foo/**/**/bar", "foo/baz/bar", 1);
	m("foo/**/bar", "foo/b/a/z/bar", 1);
	m("foo/**/**/bar", "foo/b/a/z/bar", 1);
	m("foo/**/bar", "foo/bar", 1);
	m("foo/**/**/bar", "foo/bar", 1);
	m("foo/**/bar", "foobar", 0);
	m("foo/**/bar", "foo/barx", 0);
	m("**/foo", "foo", 1);
	m("**/foo", "XXX/foo", 1);
	m("**/foo", "bar/baz/foo", 1);
	m("**/foo", "bar/bazfoo", 0);
	m("*/foo", "bar/baz/foo", 0);
	m("**/bar*", "foo/bar/baz", 0);
	m("**/bar/*", "deep/foo/bar/baz", 1);
	m("**/bar/*", "deep/foo/bar/baz/", 0);
	m("**/bar/**", "deep/foo/bar/baz/", 1);
	m("**/bar/*", "deep/foo/bar", 0);
	m("**/bar/**", "deep/foo/bar/", 1);
	m("**/bar/**", "deep/foo/bar", 0);
	m("**/bar**", "foo/bar/baz", 0);
	m("*/bar/**", "foo/bar/baz/x", 1);
	m("*/bar/**", "deep/foo/bar/baz/x", 0);
	m("**/bar/*/*", "deep/foo/bar/baz/x", 1);
	m("**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt",
	    1);
	m("**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz",
	    0);
	m("*/*/*", "foo", 0);
	m("*/*/*", "foo/bar", 0);
	m("*/*/*", "foo/bba/arr", 1);
	m("*/*/*", "foo/bb/aa/rr", 0);
	m("**/**/**", "foo/bb/aa/rr", 1);
	m("*X*i", "abcXdefXghi", 1);
	m("*X*i", "ab/cXd/efXg/hi", 0);
	m("*/*X*/*/*i", "ab/cXd/efXg/hi", 1);
	m("**/*X*/**/*i", "ab/cXd/efXg/hi", 1);
	m("**", "a/b/c", 1);
	m("**", "", 1);
	m("a/**", "a/b/c", 1);
	m("a/**", "a", 0);
	m("**/*.c", "a.c", 1);
	m("**/*.c", "x/y/a.c", 1);
	m("**/*.c", "x/y/a.h", 0);
	m("**.c", "x/a.c", 0);
	m("*", ".hidden", 1);

	/* One character is one UTF-8 sequence. */
	m("?", "\xc3\xa9", 1);
	m("??", "\xc3\xa9", 0);
	m("[\xc3\xa9]", "\xc3\xa9", 1);
	m("[a-z]", "\xc3\xa9", 0);
	m("[\xc3\xa0-\xc3\xbf]", "\xc3\xa9", 1);
	m("*[\xc3\xa9]", "x\xc3\xa9", 1);
	m("[!a]", "\xc3\xa9", 1);
	m("?", "\xff", 1);

	/* Backtracking stays bounded (this would take years if not). */
	m("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0);
	m("**/**/**/**/**/**/**/**/**/**/**/**/x",
	    "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y", 0);
}

/* times copies of unit, then tail, in b. */
static const char *
repeat(struct buf *b, const char *unit, int times, const char *tail)
{
	buf_reset(b);
	while (times-- > 0)
		(void)buf_adds(b, unit);
	(void)buf_adds(b, tail);
	return b->data;
}

/*
 * The cost of a match grows with the pattern times the path, not with
 * 2 to the number of "**": backtracking took 9.5 s for 7 of them on a
 * deep path, and 40 would take years.  SIGALRM ends the test if not.
 */
static void
cost_cases(void)
{
	struct pathmatch_glob gl;
	struct pi_error e;
	struct buf p, t;

	buf_init(&p, 1u << 20);
	buf_init(&t, 1u << 20);
	alarm(60);
	m(repeat(&p, "**/", 40, "x"), repeat(&t, "a/", 1000, "y"), 0);
	m(repeat(&p, "**/a/", 40, "y"), repeat(&t, "a/", 1000, "y"), 1);
	m(repeat(&p, "**/a/", 40, "z"), repeat(&t, "a/", 1000, "y"), 0);
	m(repeat(&p, "**/*a*/", 40, "b"), repeat(&t, "ab/", 600, "a"), 0);
	m(repeat(&p, "*a", 300, "b"), repeat(&t, "a", 3000, ""), 0);
	/* The find tool's way in: a glob of icase alternatives. */
	ok(pathmatch_glob_init(&gl, repeat(&p, "**/{a,b}/", 7, "q"),
	    PATHMATCH_ICASE, &e) == 0, "a glob of 7 groups and 7 \"**\"");
	ok(!pathmatch_glob_match(&gl, repeat(&t, "A/b/", 500, "r"), 0),
	    "... does not match a deep path, at once");
	pathmatch_glob_release(&gl);
	alarm(0);
	buf_release(&p);
	buf_release(&t);
}

static void
glob_cases(void)
{
	struct pathmatch_glob gl;
	struct pi_error e;
	char big[PATHMATCH_MAX_GLOB + 2];
	size_t i;

	/* Without '/', the name at any depth; with one, the whole path. */
	g("*.c", "a.c", 0, 1);
	g("*.c", "x/y/a.c", 0, 1);
	g("*.c", "x/y/a.h", 0, 0);
	g("*.c", "x.c/y", 0, 0);
	g("a.c", "x/a.c", 0, 1);
	g("**/*.c", "a.c", 0, 1);
	g("**/*.c", "x/y/a.c", 0, 1);
	g("src/**/*.c", "src/a.c", 0, 1);
	g("src/**/*.c", "src/x/y/a.c", 0, 1);
	g("src/**/*.c", "lib/src/a.c", 0, 0);
	g("src/*.c", "src/x/a.c", 0, 0);
	g("./src/*.c", "src/a.c", 0, 1);
	g("./*.c", "a.c", 0, 1);
	g("./*.c", "x/a.c", 0, 0);
	g("././a", "a", 0, 1);
	g("/a.c", "a.c", 0, 1);
	g("/a.c", "x/a.c", 0, 0);
	g("**", "x/y", 1, 1);
	g("*", "x/.y", 0, 1);

	/* A trailing '/' is for directories only. */
	g("build/", "build", 1, 1);
	g("build/", "build", 0, 0);
	g("build/", "x/build", 1, 1);
	g("src/gen/", "src/gen", 1, 1);
	g("src/gen/", "x/src/gen", 1, 0);

	/* Braces: alternatives, nested, empty, single. */
	g("*.{c,h}", "x.c", 0, 1);
	g("*.{c,h}", "d/x.h", 0, 1);
	g("*.{c,h}", "x.o", 0, 0);
	g("*.{c,h}", "x.{c,h}", 0, 0);
	g("{src,lib}/**/*.{ts,tsx}", "lib/a/b.tsx", 0, 1);
	g("{src,lib}/**/*.{ts,tsx}", "src/b.ts", 0, 1);
	g("{src,lib}/**/*.{ts,tsx}", "test/a.ts", 0, 0);
	g("{src,lib}/**/*.{ts,tsx}", "x/src/a.ts", 0, 0);
	g("{*.md,docs/}", "docs", 1, 1);
	g("{*.md,docs/}", "docs", 0, 0);
	g("{*.md,docs/}", "a/b.md", 0, 1);
	g("a{b,c{d,e}}f", "abf", 0, 1);
	g("a{b,c{d,e}}f", "acdf", 0, 1);
	g("a{b,c{d,e}}f", "acef", 0, 1);
	g("a{b,c{d,e}}f", "acf", 0, 0);
	g("a{b,c{d,e}}f", "acdef", 0, 0);
	g("{a,}x", "ax", 0, 1);
	g("{a,}x", "x", 0, 1);
	g("x{}y", "xy", 0, 1);
	g("{a}", "a", 0, 1);
	g("{a,b}{c,d}", "bd", 0, 1);
	g("{a,b}{c,d}", "bb", 0, 0);
	g("{x/*,y}", "x/z", 0, 1);
	g("{x/*,y}", "q/x/z", 0, 0);
	g("{x/*,y}", "q/y", 0, 1);

	/* Where braces make no group they are plain characters. */
	g("a{b", "a{b", 0, 1);
	g("a}b", "a}b", 0, 1);
	g("a,b", "a,b", 0, 1);
	g("a\\{b,c\\}", "a{b,c}", 0, 1);
	g("a\\{b,c\\}", "ab", 0, 0);
	g("{a\\,b,c}", "a,b", 0, 1);
	g("{a\\,b,c}", "c", 0, 1);
	g("[{]a,b}", "{a,b}", 0, 1);
	g("{[,}]x,y}", ",x", 0, 1);
	g("{[,}]x,y}", "}x", 0, 1);
	g("{[,}]x,y}", "y", 0, 1);
	g("--*", "--pre=x", 0, 1);

	/* PATHMATCH_ICASE folds ASCII letters, in classes too. */
	gi("readme.md", "README.md", 0, 1);
	gi("README.md", "readme.md", 0, 1);
	gi("readme.md", "readme.md", 1, 1);
	gi("*.c", "X.C", 0, 1);
	gi("src/*.c", "SRC/a.c", 0, 1);
	gi("src/*.c", "x/src/a.c", 0, 0);
	gi("**/makefile", "a/B/Makefile", 0, 1);
	gi("*.{ts,tsx}", "A.TSX", 0, 1);
	gi("[a-c]x", "Bx", 0, 1);
	gi("[A-C]x", "bx", 0, 1);
	gi("[!a-c]x", "Bx", 1, 0);
	gi("[[:lower:]]", "Q", 0, 1);
	gi("[[:upper:]]", "q", 0, 1);
	gi("[[:digit:]]", "Q", 0, 0);
	gi("\\A", "a", 0, 1);
	gi("?", "Q", 1, 1);
	gi("[!B]x", "bx", 1, 0);
	gi("[^b]x", "Bx", 1, 0);
	gi("[b-b]x", "Bx", 0, 1);
	gi("_", "\x7f", 0, 0);
	gi("@", "`", 0, 0);
	gi("a\\[b", "a{b", 0, 0);
	gi("[", "[", 1, 1);
	gi("\xc3\xa9", "\xc3\x89", 0, 0);
	gf("build/", PATHMATCH_ICASE, "BUILD", 1, 1);
	gf("build/", PATHMATCH_ICASE, "BUILD", 0, 0);

	/* Too much is an error, and leaves nothing behind. */
	is_int(pathmatch_glob_init(&gl, "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"
	    "{a,b}{a,b}{a,b}{a,b}{a,b}", 0, &e), -1,
	    "2048 alternatives refused");
	is_str(e.code, "bad_pattern", "as bad_pattern");
	ok(strstr(e.msg, "1024") != NULL, "the message names the limit");
	is_int(gl.n, 0, "nothing left");
	pathmatch_glob_release(&gl);
	is_int(pathmatch_glob_init(&gl, "{a,b}{a,b}{a,b}{a,b}{a,b}"
	    "{a,b}{a,b}{a,b}{a,b}{a,b}", 0, &e), 0,
	    "1024 alternatives are fine");
	is_int(gl.n, 1024, "and there are 1024");
	pathmatch_glob_release(&gl);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_int(pathmatch_glob_init(&gl, big, 0, &e), -1, "a long glob refused");
	big[PATHMATCH_MAX_GLOB] = '\0';
	is_int(pathmatch_glob_init(&gl, big, 0, &e), 0, "4096 bytes are fine");
	pathmatch_glob_release(&gl);
	/* A chain of one-member groups under many alternatives. */
	for (i = 0; i + 3 <= 2000; i += 3)
		memcpy(big + i, "{x}", 3);
	big[i] = '\0';
	memcpy(big, "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", 30);
	is_int(pathmatch_glob_init(&gl, big, 0, &e), -1, "deep groups refused");
	pathmatch_glob_release(&gl);
	pathmatch_glob_release(&gl);
}

static void
ignore_cases(void)
{
	struct pathmatch_ignore set;
	static const char text[] =
	    "# a comment\n"
	    "\n"
	    "*.o\n"
	    "!keep.o\n"
	    "build/\n"
	    "/root.txt\n"
	    "doc/*.md\n"
	    "\\#hash\n"
	    "\\!bang\n"
	    "trail   \n"
	    "esc\\ \n"
	    "crlf.txt\r\n"
	    "**/deep/x\n"
	    "foo/**\n"
	    "a/**/b\n"
	    "{p,q}\n"
	    "src/gen/\n"
	    "/\n"
	    "!\n"
	    "   # not a comment\n"
	    "last";

	pathmatch_ignore_init(&set);
	ig(&set, "a.o", 0, PATHMATCH_NONE);
	pathmatch_ignore_add(&set, text, sizeof(text) - 1);
	is_int(set.n, 17, "17 rules, no comments, blanks or empty rules");
	ig(&set, "a.o", 0, PATHMATCH_IGNORED);
	ig(&set, "x/y/a.o", 0, PATHMATCH_IGNORED);
	ig(&set, "a.c", 0, PATHMATCH_NONE);
	ig(&set, "keep.o", 0, PATHMATCH_KEPT);
	ig(&set, "x/keep.o", 0, PATHMATCH_KEPT);
	ig(&set, "build", 1, PATHMATCH_IGNORED);
	ig(&set, "x/build", 1, PATHMATCH_IGNORED);
	ig(&set, "build", 0, PATHMATCH_NONE);
	ig(&set, "root.txt", 0, PATHMATCH_IGNORED);
	ig(&set, "x/root.txt", 0, PATHMATCH_NONE);
	ig(&set, "doc/a.md", 0, PATHMATCH_IGNORED);
	ig(&set, "x/doc/a.md", 0, PATHMATCH_NONE);
	ig(&set, "doc/x/a.md", 0, PATHMATCH_NONE);
	ig(&set, "#hash", 0, PATHMATCH_IGNORED);
	ig(&set, "!bang", 0, PATHMATCH_IGNORED);
	ig(&set, "bang", 0, PATHMATCH_NONE);
	ig(&set, "trail", 0, PATHMATCH_IGNORED);
	ig(&set, "esc ", 0, PATHMATCH_IGNORED);
	ig(&set, "esc", 0, PATHMATCH_NONE);
	ig(&set, "crlf.txt", 0, PATHMATCH_IGNORED);
	ig(&set, "deep/x", 0, PATHMATCH_IGNORED);
	ig(&set, "a/b/deep/x", 1, PATHMATCH_IGNORED);
	ig(&set, "foo/x", 0, PATHMATCH_IGNORED);
	ig(&set, "foo/x/y", 0, PATHMATCH_IGNORED);
	ig(&set, "foo", 1, PATHMATCH_NONE);
	ig(&set, "a/b", 0, PATHMATCH_IGNORED);
	ig(&set, "a/x/y/b", 0, PATHMATCH_IGNORED);
	ig(&set, "p", 0, PATHMATCH_NONE);
	ig(&set, "{p,q}", 0, PATHMATCH_IGNORED);
	ig(&set, "src/gen", 1, PATHMATCH_IGNORED);
	ig(&set, "src/gen", 0, PATHMATCH_NONE);
	ig(&set, "x/src/gen", 1, PATHMATCH_NONE);
	ig(&set, "   # not a comment", 0, PATHMATCH_IGNORED);
	ig(&set, "last", 0, PATHMATCH_IGNORED);

	/* The last matching rule wins, in later text too. */
	pathmatch_ignore_add(&set, "*.log\n!important.log\n", 21);
	ig(&set, "important.log", 0, PATHMATCH_KEPT);
	ig(&set, "x.log", 0, PATHMATCH_IGNORED);
	pathmatch_ignore_add(&set, "imp*", 4);
	ig(&set, "important.log", 0, PATHMATCH_IGNORED);
	pathmatch_ignore_release(&set);
	is_int(set.n, 0, "released");

	pathmatch_ignore_add(&set, "!a\n*\n", 5);
	ig(&set, "a", 0, PATHMATCH_IGNORED);
	pathmatch_ignore_release(&set);
	pathmatch_ignore_add(&set, "*\n!*/\n!*.c\n", 11);
	ig(&set, "dir", 1, PATHMATCH_KEPT);
	ig(&set, "dir/a.c", 0, PATHMATCH_KEPT);
	ig(&set, "dir/a.h", 0, PATHMATCH_IGNORED);
	pathmatch_ignore_release(&set);
	pathmatch_ignore_add(&set, "", 0);
	ig(&set, "a", 0, PATHMATCH_NONE);
	pathmatch_ignore_release(&set);
}

int
main(void)
{
	wildmatch_cases();
	cost_cases();
	glob_cases();
	ignore_cases();
	return done_testing();
}
