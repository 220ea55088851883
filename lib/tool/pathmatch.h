/*
 * pathmatch: glob patterns and .gitignore rules, matched against
 * relative paths that use '/' as the separator ("src/lib/a.c", no
 * leading "./" or '/').  There is no I/O here: callers read .gitignore
 * files themselves and hand over the text, so all of it is unit-tested
 * on strings.
 *
 * pathmatch() is the matcher both build on (git's wildmatch with
 * WM_PATHNAME).  In its pattern:
 *
 *   *      any run of characters other than '/', the empty run included
 *   ?      one character (one UTF-8 sequence) other than '/'
 *   [...]  one character of a class: members, ranges (a-z, by code
 *          point), POSIX names ([:alpha:] and the eleven others, ASCII
 *          only); '!' or '^' first negates; a ']' first is a member; a
 *          class never matches '/'; a '[' that is never closed is itself
 *   **     alone as a component (between slashes, or at either end):
 *          any number of components, none included, so that "a", the
 *          "**" and "b" joined by slashes match "a/b" and "a/x/y/b";
 *          a leading one matches at any depth, a trailing one all that
 *          is below (tests/unit/pathmatch.c has examples); anywhere
 *          else "**" is "*"
 *   \c     c itself, whatever it is; a trailing '\' is itself
 *
 * Matching is byte-exact (case-sensitive unless a glob is made with
 * PATHMATCH_ICASE) and the whole of path must match.  Dot files get
 * no special treatment.
 *
 * struct pathmatch_glob is a glob as find and grep's glob take it:
 * {a,b} alternatives (nested, with empty members, "{a}" is "a") are
 * expanded when it is made, and each alternative then follows rg's and
 * fd's conventions: without a '/' it matches the last component of the
 * path (the name, at any depth); with one it matches the whole path; a
 * leading "./" or '/' is dropped but still counts as that '/'; a
 * trailing '/' makes it match directories only.  '{', '}' and ',' are
 * matched literally where they do not form a group (escape them to be
 * sure).  Made with PATHMATCH_ICASE, it matches ASCII letters in either
 * case, and a class holds a letter when it holds either case of it
 * ("[a-c]" matches 'B'); other characters still match byte for byte.
 *
 * struct pathmatch_ignore holds the rules of gitignore(5) files: blank
 * lines and '#' comments are skipped, trailing unescaped spaces and a
 * CR are dropped, '!' negates, a trailing '/' matches directories only,
 * a '/' at the start or inside anchors the rule to the directory the
 * rules came from (the path given is relative to it), and otherwise
 * the rule matches the name at any depth below it.  "\#" and "\!"
 * start a rule with those characters.  Braces are literal, as in git.
 * The last matching rule decides.  Git's precedence between files (a
 * deeper .gitignore over a shallower one, .gitignore over
 * .git/info/exclude) and its rule that nothing below an ignored
 * directory can be re-included are the caller's: ask the deepest set
 * first, and do not descend into a directory found ignored.
 *
 * Memory: the structs own copies of the patterns; _release frees them
 * and leaves an empty, reusable struct (as does _init).  Nothing here
 * fails except pathmatch_glob_init, on a glob longer than
 * PATHMATCH_MAX_GLOB, with more than PATHMATCH_MAX_ALT alternatives, or
 * with groups that cost too much to expand: it fills e (code
 * "bad_pattern") and returns -1, leaving g empty.  Each pattern is
 * compiled once (wildmatch.h) and matched in time proportional to the
 * path's length times its own, however many stars it has.
 */
#ifndef PI_PATHMATCH_H
#define PI_PATHMATCH_H

#include <stddef.h>

struct pi_error;
struct pathmatch_rule;

/* Limits on a glob: its length, and its alternatives once expanded. */
#define PATHMATCH_MAX_GLOB	4096
#define PATHMATCH_MAX_ALT	1024

/* 1 if all of path matches pat (see above), else 0. */
int pathmatch(const char *pat, const char *path);

struct pathmatch_glob {
	struct pathmatch_rule *alt;
	size_t n;
	size_t cap;
};

/* Flags for pathmatch_glob_init. */
#define PATHMATCH_ICASE	1	/* ignore the case of ASCII letters */

/* Make g from pat: 0, or -1 with e filled and g empty (see above). */
int pathmatch_glob_init(struct pathmatch_glob *g, const char *pat,
    int flags, struct pi_error *e);
/* 1 if path (a directory when is_dir) matches any alternative. */
int pathmatch_glob_match(const struct pathmatch_glob *g, const char *path,
    int is_dir);
void pathmatch_glob_release(struct pathmatch_glob *g);

enum {
	PATHMATCH_NONE,		/* no rule matched: ask the next set */
	PATHMATCH_IGNORED,	/* the last matching rule ignores it */
	PATHMATCH_KEPT		/* the last matching rule was a '!' rule */
};

struct pathmatch_ignore {
	struct pathmatch_rule *rule;
	size_t n;
	size_t cap;
};

void pathmatch_ignore_init(struct pathmatch_ignore *ig);
/* Append the rules in text, the contents of one file (n bytes). */
void pathmatch_ignore_add(struct pathmatch_ignore *ig, const char *text,
    size_t n);
/* PATHMATCH_NONE, _IGNORED or _KEPT for path relative to the rules. */
int pathmatch_ignore_check(const struct pathmatch_ignore *ig,
    const char *path, int is_dir);
void pathmatch_ignore_release(struct pathmatch_ignore *ig);

#endif
