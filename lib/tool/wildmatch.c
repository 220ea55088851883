/* wildmatch: see wildmatch.h.  The syntax is git's wildmatch.c's. */
#include "wildmatch.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

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

/*
 * A pattern compiled into the steps of a nondeterministic automaton
 * (Thompson's construction, as RE2 and Rust's globset do): a byte, one
 * character ('?' or a class, never '/'), a star that loops on
 * characters other than '/', a "**" that loops on any, and a fork for
 * "**" followed by '/', which either goes through "**" and the '/' or
 * skips both, so that "a/" "**" "/b" matches "a/b".  Running it keeps
 * the set of steps every text position can be at, so a match costs at
 * most the text's length times the pattern's, however many stars there
 * are.  A star steps a whole character (UTF-8 sequence) at a time, a
 * literal byte a byte, as git's wildmatch does.
 */
enum { S_BYTE, S_ONE, S_CLASS, S_STAR, S_STARSTAR, S_FORK, S_END };

struct wildmatch_step {
	unsigned char kind;
	unsigned char c;		/* S_BYTE */
	const unsigned char *cls;	/* S_CLASS: after its '[' */
	const unsigned char *end;	/* S_CLASS: its ']' */
	size_t alt;			/* S_FORK: the step after the '/' */
};

/* The steps of p, which must outlive them; *n is their count. */
static struct wildmatch_step *
compile(const unsigned char *p, size_t *n)
{
	struct wildmatch_step *s;
	const unsigned char *q, *end;
	size_t k = 0;
	int starstar;

	s = xcalloc(strlen((const char *)p) + 1, sizeof(*s));

	for (q = p; *q != '\0'; q++) {
		switch (*q) {
		case '*':
			end = q;
			while (end[1] == '*')
				end++;
			starstar = end > q && (q == p || q[-1] == '/') &&
			    (end[1] == '\0' || end[1] == '/');
			if (starstar && end[1] == '/') {
				s[k].kind = S_FORK;
				s[k].alt = k + 3;
				s[++k].kind = S_STARSTAR;
				s[++k].kind = S_BYTE;
				s[k++].c = '/';
				end++;
			} else
				s[k++].kind = starstar ? S_STARSTAR : S_STAR;
			q = end;
			break;
		case '\\':
			if (q[1] != '\0')
				q++;
			s[k].kind = S_BYTE;
			s[k++].c = *q;
			break;
		case '?':
			s[k++].kind = S_ONE;
			break;
		case '[':
			/* A class never closed is a '[' of its own. */
			if ((end = class_end(q)) == NULL) {
				s[k].kind = S_BYTE;
				s[k++].c = '[';
				break;
			}
			s[k].kind = S_CLASS;
			s[k].cls = q + 1;
			s[k++].end = end;
			q = end;
			break;
		default:
			s[k].kind = S_BYTE;
			s[k++].c = *q;
			break;
		}
	}
	s[k].kind = S_END;
	*n = k;
	return s;
}

/*
 * The steps that may be current at one text position: on[] says which,
 * list[] holds them in the order found, so a row is walked and cleared
 * in the time its steps take.
 */
struct row {
	unsigned char *on;
	size_t *list;
	size_t len;
};

/* Make step i current in r, with every step reached from it by no text. */
static void
enter(struct row *r, const struct wildmatch_step *s, size_t i,
    size_t *stack)
{
	size_t n = 0;

	stack[n++] = i;
	while (n > 0) {
		i = stack[--n];
		if (r->on[i])
			continue;
		r->on[i] = 1;
		r->list[r->len++] = i;
		if (s[i].kind == S_STAR || s[i].kind == S_STARSTAR)
			stack[n++] = i + 1;
		else if (s[i].kind == S_FORK) {
			stack[n++] = s[i].alt;
			stack[n++] = i + 1;
		}
	}
}

/* A character is at most 4 bytes: 5 rows see every step land. */
#define ROWS	5

/* Does all of t match the n steps s? */
static int
run(const struct wildmatch_step *s, size_t n, const unsigned char *t,
    int fold)
{
	struct row rows[ROWS], *r;
	unsigned char *on;
	size_t *mem, *stack, len = strlen((const char *)t), pos, i, j, w;
	size_t last = 0;
	uint32_t c;
	int match = 0;

	/* A step enters a row at most once, and pushes two at most. */
	mem = xcalloc((ROWS + 2) * (n + 1) + 1, sizeof(*mem));
	on = xcalloc(ROWS, n + 1);
	stack = mem + ROWS * (n + 1);
	for (i = 0; i < ROWS; i++) {
		rows[i].on = on + i * (n + 1);
		rows[i].list = mem + i * (n + 1);
		rows[i].len = 0;
	}
	enter(&rows[0], s, 0, stack);
	for (pos = 0; pos <= last; pos++) {
		r = &rows[pos % ROWS];
		if (pos == len) {
			match = r->on[n];
			break;
		}
		w = decode(t + pos, &c);
		for (j = 0; j < r->len; j++) {
			i = r->list[j];
			switch (s[i].kind) {
			case S_BYTE:
				if (!same(t[pos], s[i].c, fold))
					continue;
				enter(&rows[(pos + 1) % ROWS], s, i + 1, stack);
				last = last > pos + 1 ? last : pos + 1;
				continue;
			case S_ONE:
			case S_CLASS:
				if (t[pos] == '/' || (s[i].kind == S_CLASS &&
				    !class_match(s[i].cls, s[i].end, c, fold)))
					continue;
				enter(&rows[(pos + w) % ROWS], s, i + 1, stack);
				break;
			case S_STAR:
			case S_STARSTAR:
				if (s[i].kind == S_STAR && t[pos] == '/')
					continue;
				enter(&rows[(pos + w) % ROWS], s, i, stack);
				break;
			default:
				continue;
			}
			last = last > pos + w ? last : pos + w;
		}
		for (j = 0; j < r->len; j++)
			r->on[r->list[j]] = 0;
		r->len = 0;
	}
	free(mem);
	free(on);
	return match;
}

void
wildmatch_compile(struct wildmatch *w, const char *pat)
{
	w->step = compile(U(pat), &w->n);
}

int
wildmatch_run(const struct wildmatch *w, const char *text, int fold)
{
	return run(w->step, w->n, U(text), fold);
}

void
wildmatch_release(struct wildmatch *w)
{
	free(w->step);
	w->step = NULL;
	w->n = 0;
}

const char *
wildmatch_class_end(const char *p)
{
	return (const char *)class_end(U(p));
}
