/* pathmatch: see pathmatch.h.  The matcher follows git's wildmatch.c. */
#include "pathmatch.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

enum {
	RULE_NEGATE = 1,	/* a '!' rule: keeps what it matches */
	RULE_DIR = 2,		/* matches directories only */
	RULE_PATH = 4,		/* matches the whole path, not the name */
	RULE_FOLD = 8		/* ASCII letters match either case */
};

struct pathmatch_rule {
	char *pat;
	unsigned flags;
};

/*
 * What wild() returns.  The two aborts prune the backtracking as git's
 * do: ABORT_ALL when the text ran out (no later start can help),
 * ABORT_STARSTAR when a '*' met a '/' it may not cross (only an
 * enclosing "**" can still match).
 */
enum { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_STARSTAR };

#define U(s)	((const unsigned char *)(s))

static uint32_t
lower(uint32_t c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static uint32_t
upper(uint32_t c)
{
	return c >= 'a' && c <= 'z' ? c - 32 : c;
}

/* Are the text byte t and pattern byte p the same, folded or not? */
static int
same(unsigned char t, unsigned char p, int fold)
{
	return fold ? lower(t) == lower(p) : t == p;
}

/* Decode one character of s (not at its end); an invalid byte is one. */
static size_t
decode(const unsigned char *s, uint32_t *cp)
{
	size_t n = 0;

	while (n < 4 && s[n] != '\0')
		n++;
	n = utf8_seqlen(s, n);

	switch (n) {
	case 2:
		*cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	case 3:
		*cp = (uint32_t)(s[0] & 0x0f) << 12 |
		    (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return 3;
	case 4:
		*cp = (uint32_t)(s[0] & 0x07) << 18 |
		    (uint32_t)(s[1] & 0x3f) << 12 |
		    (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		return 4;
	default:
		*cp = s[0];
		return 1;
	}
}

/* If p starts "[:name:]", the ':' of its ":]", else NULL. */
static const unsigned char *
posix_class(const unsigned char *p)
{
	const unsigned char *q;

	if (p[0] != '[' || p[1] != ':')
		return NULL;
	for (q = p + 2; isalpha(*q); q++)
		;
	return q[0] == ':' && q[1] == ']' && q > p + 2 ? q : NULL;
}

/* p is at '['; the ']' that closes the class, or NULL if none does. */
static const unsigned char *
class_end(const unsigned char *p)
{
	const unsigned char *q;

	p++;
	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p != '\0'; p++) {
		if (*p == '\\') {
			if (*++p == '\0')
				return NULL;
		} else if ((q = posix_class(p)) != NULL)
			p = q + 1;
		else if (*p == ']')
			return p;
	}
	return NULL;
}

static int
posix_is(const unsigned char *name, size_t len, uint32_t c)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} tab[] = {
		{ "alnum", isalnum }, { "alpha", isalpha },
		{ "blank", isblank }, { "cntrl", iscntrl },
		{ "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint },
		{ "punct", ispunct }, { "space", isspace },
		{ "upper", isupper }, { "xdigit", isxdigit },
	};
	size_t i;

	if (c > 0x7f)
		return 0;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].name) == len &&
		    memcmp(tab[i].name, name, len) == 0)
			return tab[i].is((int)c) != 0;
	return 0;
}

/* One member character at *pp, escapes undone; advances *pp. */
static uint32_t
member(const unsigned char **pp)
{
	uint32_t c;

	if (**pp == '\\')
		(*pp)++;
	*pp += decode(*pp, &c);
	return c;
}

/*
 * Does c belong to the class from p (after '[') to end (its ']')?  With
 * fold, a letter does when either case of it is a member, so that the
 * negated "[!a-c]" leaves out 'B' as well as 'b'.
 */
static int
class_match(const unsigned char *p, const unsigned char *end, uint32_t c,
    int fold)
{
	uint32_t lo, hi, lc = fold ? lower(c) : c, uc = fold ? upper(c) : c;
	const unsigned char *q;
	int neg = 0, in = 0;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	while (p < end) {
		if ((q = posix_class(p)) != NULL) {
			in |= posix_is(p + 2, (size_t)(q - p - 2), lc) ||
			    posix_is(p + 2, (size_t)(q - p - 2), uc);
			p = q + 2;
			continue;
		}
		lo = member(&p);
		if (p[0] == '-' && p + 1 < end) {
			p++;
			hi = member(&p);
			in |= (lo <= lc && lc <= hi) || (lo <= uc && uc <= hi);
		} else
			in |= lc == lo || uc == lo;
	}
	return in != neg;
}

static int wild(const unsigned char *, const unsigned char *,
    const unsigned char *, int);

/*
 * The rest of a match from the '*' at p: a run of them is one star, or
 * "**" when it stands alone as a component and may cross '/'.
 */
static int
wild_star(const unsigned char *p, const unsigned char *t,
    const unsigned char *start, int fold)
{
	const unsigned char *star = p;
	uint32_t c;
	int r, starstar;

	while (p[1] == '*')
		p++;
	starstar = p > star && (star == start || star[-1] == '/') &&
	    (p[1] == '\0' || p[1] == '/');
	p++;
	/* "a/" "**" "/b" matches "a/b": the "**" and one '/' go. */
	if (starstar && *p == '/' && wild(p + 1, t, start, fold) == WM_MATCH)
		return WM_MATCH;
	if (*p == '\0') {
		if (starstar || strchr((const char *)t, '/') == NULL)
			return WM_MATCH;
		return WM_ABORT_STARSTAR;
	}
	for (;;) {
		r = wild(p, t, start, fold);
		if (r != WM_NOMATCH) {
			if (!starstar || r != WM_ABORT_STARSTAR)
				return r;
		} else if (!starstar && *t == '/')
			return WM_ABORT_STARSTAR;
		if (*t == '\0')
			return WM_ABORT_ALL;
		t += decode(t, &c);
	}
}

/* With fold, ASCII letters match in either case. */
static int
wild(const unsigned char *p, const unsigned char *t,
    const unsigned char *start, int fold)
{
	const unsigned char *end;
	uint32_t c;

	for (; *p != '\0'; p++) {
		if (*p == '*')
			return wild_star(p, t, start, fold);
		if (*t == '\0')
			return WM_ABORT_ALL;
		switch (*p) {
		case '\\':
			if (p[1] != '\0')
				p++;
			if (!same(*t++, *p, fold))
				return WM_NOMATCH;
			break;
		case '?':
			if (*t == '/')
				return WM_NOMATCH;
			t += decode(t, &c);
			break;
		case '[':
			if ((end = class_end(p)) == NULL) {
				if (*t++ != '[')
					return WM_NOMATCH;
				break;
			}
			if (*t == '/')
				return WM_NOMATCH;
			t += decode(t, &c);
			if (!class_match(p + 1, end, c, fold))
				return WM_NOMATCH;
			p = end;
			break;
		default:
			if (!same(*t++, *p, fold))
				return WM_NOMATCH;
			break;
		}
	}
	return *t == '\0' ? WM_MATCH : WM_NOMATCH;
}

int
pathmatch(const char *pat, const char *path)
{
	return wild(U(pat), U(path), U(pat), 0) == WM_MATCH;
}

/* Does rule r match path (its last component being the name)? */
static int
rule_match(const struct pathmatch_rule *r, const char *path, int is_dir)
{
	const char *name;

	if ((r->flags & RULE_DIR) && !is_dir)
		return 0;
	if (!(r->flags & RULE_PATH) && (name = strrchr(path, '/')) != NULL)
		path = name + 1;
	return wild(U(r->pat), U(path), U(r->pat),
	    (r->flags & RULE_FOLD) != 0) == WM_MATCH;
}

/*
 * Append the rule in p[0..n), whose '!' is already gone: a trailing
 * '/' and a leading one come off here.
 */
static void
rule_add(struct pathmatch_rule **v, size_t *len, size_t *cap, const char *p,
    size_t n, unsigned flags)
{
	struct pathmatch_rule *r;

	if (n > 1 && p[n - 1] == '/' && p[n - 2] != '\\') {
		flags |= RULE_DIR;
		while (n > 0 && p[n - 1] == '/')
			n--;
	}
	if (memchr(p, '/', n) != NULL)
		flags |= RULE_PATH;
	while (n > 0 && p[0] == '/') {
		p++;
		n--;
	}
	if (n == 0)
		return;
	if (*len == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	r = &(*v)[(*len)++];
	r->pat = xstrndup(p, n);
	r->flags = flags;
}

static void
rules_free(struct pathmatch_rule *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].pat);
	free(v);
}

/*
 * Where the brace group opening at p[i] closes, or 0 if it does not;
 * escapes and classes are skipped, so "[{]" is no group.
 */
static size_t
brace_end(const char *p, size_t i)
{
	const unsigned char *e;
	int depth = 0;

	for (; p[i] != '\0'; i++) {
		if (p[i] == '\\') {
			if (p[++i] == '\0')
				return 0;
		} else if (p[i] == '[' &&
		    (e = class_end(U(p + i))) != NULL)
			i = (size_t)((const char *)e - p);
		else if (p[i] == '{')
			depth++;
		else if (p[i] == '}' && --depth == 0)
			return i;
	}
	return 0;
}

/*
 * Expand the first group of pat and recurse into each member; with no
 * group left, pat is one alternative.  *work counts the calls, since
 * a chain of one-member groups under many alternatives costs far more
 * than the alternatives themselves.
 */
static int
expand(struct pathmatch_glob *g, const char *pat, unsigned flags,
    size_t *work, struct pi_error *e)
{
	struct buf b;
	const unsigned char *q;
	size_t i, j, k, end = 0;
	int depth, rc = 0;

	if (++*work > 16 * PATHMATCH_MAX_ALT)
		return pi_err(e, PI_EXIT_INPUT, "bad_pattern",
		    "The glob has too many {a,b} groups; use fewer.");
	for (i = 0; pat[i] != '\0'; i++) {
		if (pat[i] == '\\') {
			if (pat[i + 1] != '\0')
				i++;
		} else if (pat[i] == '[' && (q = class_end(U(pat + i))) != NULL)
			i = (size_t)((const char *)q - pat);
		else if (pat[i] == '{' && (end = brace_end(pat, i)) != 0)
			break;
	}
	if (pat[i] == '\0') {
		if (g->n == PATHMATCH_MAX_ALT)
			return pi_err(e, PI_EXIT_INPUT, "bad_pattern",
			    "The glob has more than %d alternatives once its "
			    "{a,b} groups are expanded; use fewer groups.",
			    PATHMATCH_MAX_ALT);
		while (pat[0] == '.' && pat[1] == '/') {
			pat += 2;
			flags |= RULE_PATH;
			while (pat[0] == '/')
				pat++;
		}
		rule_add(&g->alt, &g->n, &g->cap, pat, strlen(pat), flags);
		return 0;
	}
	/* The members lie between i and end, split at commas of depth 0. */
	buf_init(&b, PATHMATCH_MAX_GLOB + 1);
	for (j = k = i + 1, depth = 0; rc == 0 && j <= end; j++) {
		if (pat[j] == '\\') {
			j++;
			continue;
		}
		if (pat[j] == '[' && (q = class_end(U(pat + j))) != NULL) {
			j = (size_t)((const char *)q - pat);
			continue;
		}
		if (pat[j] == '{')
			depth++;
		else if (pat[j] == '}' && j != end)
			depth--;
		if ((pat[j] != ',' || depth != 0) && j != end)
			continue;
		/* Never longer than pat, so within the ceiling. */
		buf_reset(&b);
		(void)buf_add(&b, pat, i);
		(void)buf_add(&b, pat + k, j - k);
		(void)buf_adds(&b, pat + end + 1);
		rc = expand(g, b.data, flags, work, e);
		k = j + 1;
	}
	buf_release(&b);
	return rc;
}

int
pathmatch_glob_init(struct pathmatch_glob *g, const char *pat, int flags,
    struct pi_error *e)
{
	size_t work = 0;

	g->alt = NULL;
	g->n = g->cap = 0;
	if (strlen(pat) > PATHMATCH_MAX_GLOB)
		return pi_err(e, PI_EXIT_INPUT, "bad_pattern",
		    "The glob is longer than %d bytes.", PATHMATCH_MAX_GLOB);
	if (expand(g, pat, flags & PATHMATCH_ICASE ? RULE_FOLD : 0, &work,
	    e) == -1) {
		pathmatch_glob_release(g);
		return -1;
	}
	return 0;
}

int
pathmatch_glob_match(const struct pathmatch_glob *g, const char *path,
    int is_dir)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (rule_match(&g->alt[i], path, is_dir))
			return 1;
	return 0;
}

void
pathmatch_glob_release(struct pathmatch_glob *g)
{
	rules_free(g->alt, g->n);
	g->alt = NULL;
	g->n = g->cap = 0;
}

void
pathmatch_ignore_init(struct pathmatch_ignore *ig)
{
	ig->rule = NULL;
	ig->n = ig->cap = 0;
}

void
pathmatch_ignore_add(struct pathmatch_ignore *ig, const char *text, size_t n)
{
	const char *p, *nl, *end = text + n;
	size_t len, i, keep;
	unsigned flags;

	for (p = text; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len == 0 || p[0] == '#')
			continue;
		/* Trailing spaces go unless escaped, as git's do. */
		for (i = keep = 0; i < len; i++) {
			if (p[i] == '\\' && i + 1 < len)
				keep = ++i + 1;
			else if (p[i] != ' ')
				keep = i + 1;
		}
		len = keep;
		flags = 0;
		if (len > 0 && p[0] == '!') {
			flags = RULE_NEGATE;
			p++;
			len--;
		}
		rule_add(&ig->rule, &ig->n, &ig->cap, p, len, flags);
	}
}

int
pathmatch_ignore_check(const struct pathmatch_ignore *ig, const char *path,
    int is_dir)
{
	size_t i;

	for (i = ig->n; i-- > 0; )
		if (rule_match(&ig->rule[i], path, is_dir))
			return ig->rule[i].flags & RULE_NEGATE ?
			    PATHMATCH_KEPT : PATHMATCH_IGNORED;
	return PATHMATCH_NONE;
}

void
pathmatch_ignore_release(struct pathmatch_ignore *ig)
{
	rules_free(ig->rule, ig->n);
	pathmatch_ignore_init(ig);
}
