/* pathmatch: see pathmatch.h.  Each pattern is matched by wildmatch. */
#include "pathmatch.h"

#include <stdlib.h>
#include <string.h>

#include "wildmatch.h"
#include "core/buf.h"
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
	struct wildmatch wm;	/* pat compiled */
};

int
pathmatch(const char *pat, const char *path)
{
	struct wildmatch wm;
	int m;

	wildmatch_compile(&wm, pat);
	m = wildmatch_run(&wm, path, 0);
	wildmatch_release(&wm);
	return m;
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
	return wildmatch_run(&r->wm, path, (r->flags & RULE_FOLD) != 0);
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
	wildmatch_compile(&r->wm, r->pat);
}

static void
rules_free(struct pathmatch_rule *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].pat);
		wildmatch_release(&v[i].wm);
	}
	free(v);
}

/*
 * Where the brace group opening at p[i] closes, or 0 if it does not;
 * escapes and classes are skipped, so "[{]" is no group.
 */
static size_t
brace_end(const char *p, size_t i)
{
	const char *e;
	int depth = 0;

	for (; p[i] != '\0'; i++) {
		if (p[i] == '\\') {
			if (p[++i] == '\0')
				return 0;
		} else if (p[i] == '[' &&
		    (e = wildmatch_class_end(p + i)) != NULL)
			i = (size_t)(e - p);
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
	const char *q;
	size_t i, j, k, end = 0;
	int depth, rc = 0;

	if (++*work > 16 * PATHMATCH_MAX_ALT)
		return pi_err(e, PI_EXIT_INPUT, "bad_pattern",
		    "The glob has too many {a,b} groups; use fewer.");
	for (i = 0; pat[i] != '\0'; i++) {
		if (pat[i] == '\\') {
			if (pat[i + 1] != '\0')
				i++;
		} else if (pat[i] == '[' &&
		    (q = wildmatch_class_end(pat + i)) != NULL)
			i = (size_t)(q - pat);
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
		if (pat[j] == '[' &&
		    (q = wildmatch_class_end(pat + j)) != NULL) {
			j = (size_t)(q - pat);
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
