/*
 * tool_search: grep and find (see tools.h), as pi's grep.ts and find.ts
 * but without running rg or fd: the search is done here, so no pattern
 * can ever become an option of another program.  Both walk the tree
 * below a path the same way (walk_*): entries in strcmp order, hidden
 * ones included, .git skipped, .gitignore files and .git/info/exclude
 * honoured, symlinks to directories never followed.  Memory holds the
 * output, one sorted listing per directory on the current path and one
 * line of the file being searched, whatever the size of the tree.
 */
#define _XOPEN_SOURCE 700	/* realpath */
#include "tools.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "jsonx.h"
#include "pathmatch.h"
#include "truncate.h"
#include "utf8.h"
#include "util.h"
#include "banned.h"

#define LINE_CHARS	500		/* grep shows this much of a line */
#define SNIFF_BYTES	8192		/* a NUL in here: a binary file */
#define CHUNK		(64u << 10)
#define LINE_MAX_BYTES	(4u << 20)	/* of a line, as grep matches it */
#define IGNORE_MAX	(1u << 20)	/* read of one .gitignore */
#define LISTING_MAX	(64u << 20)	/* names in one directory */
#define PATH_BYTES	(1u << 20)	/* a path below the top */
#define PATTERN_MAX	(64u << 10)
#define COUNT_MAX	1000000000000ULL	/* limit, context */

enum { WALK_GO, WALK_PRUNE, WALK_STOP };

/* The rules of one .gitignore, for the directory path[0..dirlen). */
struct level {
	struct pathmatch_ignore ig;
	size_t dirlen;
};

/*
 * A walk.  path is the entry's path from the top of the git work tree
 * (from the search root when there is none), so that every .gitignore
 * on the way sees the path relative to its own directory; the part
 * below the search root, what the tools show, starts at path + rel.
 */
struct walk {
	struct buf path;
	size_t rel;
	struct level *lv;
	size_t nlv;
	size_t caplv;
	struct pathmatch_ignore exclude;
	int (*visit)(struct walk *, int, const char *, const struct stat *,
	    void *);
	void *arg;
	unsigned long unreadable;
};

/* Output lines kept whole while they fit in max bytes, as truncate_head. */
struct out {
	struct buf *b;
	size_t max;
	int full;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read at most max bytes of a regular file at dfd/name into b. */
static int
read_small(int dfd, const char *name, struct buf *b, size_t max)
{
	struct stat st;
	char tmp[4096];
	ssize_t n;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	while (b->len < max && (n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		if ((size_t)n > max - b->len)
			n = (ssize_t)(max - b->len);
		if (buf_add(b, tmp, (size_t)n) == -1)
			break;
	}
	close(fd);
	return 0;
}

/* Push the rules of dfd/name for directory path[0..dirlen), if any. */
static int
push_rules(struct walk *w, int dfd, const char *name, size_t dirlen)
{
	struct level *l;
	struct buf text;

	buf_init(&text, IGNORE_MAX);
	if (read_small(dfd, name, &text, IGNORE_MAX) == -1 || text.len == 0) {
		buf_release(&text);
		return 0;
	}
	if (w->nlv == w->caplv) {
		w->caplv = w->caplv ? w->caplv * 2 : 8;
		w->lv = xrealloc(w->lv, w->caplv * sizeof(*w->lv));
	}
	l = &w->lv[w->nlv++];
	pathmatch_ignore_init(&l->ig);
	pathmatch_ignore_add(&l->ig, text.data, text.len);
	l->dirlen = dirlen;
	buf_release(&text);
	return 1;
}

static void
pop_rules(struct walk *w)
{
	pathmatch_ignore_release(&w->lv[--w->nlv].ig);
}

static void
walk_init(struct walk *w, int (*visit)(struct walk *, int, const char *,
    const struct stat *, void *), void *arg)
{
	buf_init(&w->path, PATH_BYTES);
	w->rel = 0;
	w->lv = NULL;
	w->nlv = w->caplv = 0;
	pathmatch_ignore_init(&w->exclude);
	w->visit = visit;
	w->arg = arg;
	w->unreadable = 0;
}

/*
 * Find the work tree holding root (a ".git" in it or above, up to '/')
 * and load what git would apply there before the walk reaches root:
 * .git/info/exclude and the .gitignore files of the directories from
 * the top down to root's parent.  Outside a work tree only the
 * .gitignore files met by the walk count.
 */
static void
walk_top(struct walk *w, const char *root)
{
	struct stat st;
	struct buf text;
	const char *top;
	char *abs, *f;
	size_t len, k;
	int found = 0;

	if ((abs = realpath(root, NULL)) == NULL)
		return;
	for (len = strlen(abs); ; len--) {
		if (len == 0 || abs[len] == '/' || abs[len] == '\0') {
			f = xasprintf("%.*s/.git", (int)len, abs);
			found = lstat(f, &st) == 0;
			free(f);
		}
		if (found || len == 0)
			break;
	}
	if (!found) {
		free(abs);
		return;
	}
	top = abs + len + (abs[len] == '/');
	if (*top != '\0' && buf_adds(&w->path, top) == -1) {
		free(abs);
		return;
	}
	w->rel = w->path.len + (w->path.len != 0);
	if (S_ISDIR(st.st_mode)) {
		f = xasprintf("%.*s/.git/info/exclude", (int)len, abs);
		buf_init(&text, IGNORE_MAX);
		if (read_small(AT_FDCWD, f, &text, IGNORE_MAX) == 0)
			pathmatch_ignore_add(&w->exclude, text.data, text.len);
		buf_release(&text);
		free(f);
	}
	/* The directories from the top down to root's parent. */
	for (k = 0; k < w->path.len; k++) {
		if (k != 0 && w->path.data[k] != '/')
			continue;
		f = xasprintf("%.*s%s%.*s/.gitignore", (int)len, abs,
		    k != 0 ? "/" : "", (int)k, w->path.data);
		push_rules(w, AT_FDCWD, f, k);
		free(f);
	}
	free(abs);
}

static void
walk_release(struct walk *w)
{
	while (w->nlv > 0)
		pop_rules(w);
	free(w->lv);
	pathmatch_ignore_release(&w->exclude);
	buf_release(&w->path);
}

/* Is the entry at w->path ignored?  The deepest rules speak first. */
static int
ignored(const struct walk *w, int is_dir)
{
	const struct level *l;
	size_t i;
	int r;

	for (i = w->nlv; i-- > 0; ) {
		l = &w->lv[i];
		r = pathmatch_ignore_check(&l->ig,
		    w->path.data + l->dirlen + (l->dirlen != 0), is_dir);
		if (r != PATHMATCH_NONE)
			return r == PATHMATCH_IGNORED;
	}
	return pathmatch_ignore_check(&w->exclude, w->path.data, is_dir) ==
	    PATHMATCH_IGNORED;
}

/*
 * The names in directory dfd, sorted, as pointers into names; -1 when
 * it cannot be read at all.  A listing over LISTING_MAX is cut short.
 */
static int
list(int dfd, struct buf *names, char ***v, size_t *n)
{
	struct dirent *de;
	DIR *d;
	size_t i, off;
	int fd;

	*v = NULL;
	*n = 0;
	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (buf_add(names, de->d_name, strlen(de->d_name) + 1) == -1)
			break;
		++*n;
	}
	closedir(d);
	*v = xcalloc(*n + 1, sizeof(**v));
	for (i = off = 0; i < *n; i++) {
		(*v)[i] = names->data + off;
		off += strlen((*v)[i]) + 1;
	}
	qsort(*v, *n, sizeof(**v), by_name);
	return 0;
}

/* Walk the directory open at dfd, whose path is w->path; closes dfd. */
static int
walk_dir(struct walk *w, int dfd)
{
	struct buf names;
	struct stat st;
	char **v;
	size_t dirlen = w->path.len, n, i;
	int rc = WALK_GO, pushed, fd, is_dir;

	pushed = push_rules(w, dfd, ".gitignore", dirlen);
	buf_init(&names, LISTING_MAX);
	if (list(dfd, &names, &v, &n) == -1)
		w->unreadable++;
	for (i = 0; i < n && rc != WALK_STOP; i++) {
		if (strcmp(v[i], ".git") == 0 ||
		    fstatat(dfd, v[i], &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		is_dir = S_ISDIR(st.st_mode);
		w->path.len = dirlen;
		if ((dirlen != 0 && buf_addc(&w->path, '/') == -1) ||
		    buf_adds(&w->path, v[i]) == -1) {
			w->unreadable += is_dir;
			continue;
		}
		if (ignored(w, is_dir))
			continue;
		rc = w->visit(w, dfd, v[i], &st, w->arg);
		if (!is_dir || rc != WALK_GO)
			continue;
		fd = openat(dfd, v[i],
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			w->unreadable++;
		else
			rc = walk_dir(w, fd);
	}
	w->path.len = dirlen;
	w->path.data[dirlen] = '\0';
	if (pushed)
		pop_rules(w);
	free(v);
	buf_release(&names);
	close(dfd);
	return rc == WALK_STOP ? WALK_STOP : WALK_GO;
}

/*
 * stat the path a tool was given; on failure fill r as pi words it and
 * return -1.
 */
static int
stat_arg(const char *path, struct stat *st, struct tool_result *r)
{
	if (stat(path, st) == 0)
		return 0;
	if (errno == ENOENT || errno == ENOTDIR)
		tool_fail(r, "not_found", "Path not found: %s", path);
	else if (errno == EACCES)
		tool_fail(r, "permission_denied", "Permission denied: %s",
		    path);
	else
		tool_fail(r, "io_error", "Cannot access %s: %s", path,
		    strerror(errno));
	return -1;
}

/* Walk the directory path, which stat_arg found; -1 with r filled. */
static int
walk_run(struct walk *w, const char *path, struct tool_result *r)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		tool_fail(r, errno == EACCES ? "permission_denied" : "io_error",
		    "Cannot read directory %s: %s", path, strerror(errno));
		return -1;
	}
	walk_top(w, path);
	walk_dir(w, fd);
	return 0;
}

static void
out_init(struct out *o, struct tool_result *r, const struct tool_limits *lim)
{
	o->b = &r->output;
	o->max = lim != NULL && lim->max_bytes ? lim->max_bytes :
	    TRUNCATE_MAX_BYTES;
	o->full = 0;
	buf_reset(o->b);
}

/* Add a line if it fits; once one does not, none does. */
static int
out_line(struct out *o, const char *p, size_t n)
{
	size_t had = o->b->len;

	if (o->full || n + (had != 0) > o->max - had ||
	    (had != 0 && buf_addc(o->b, '\n') == -1) ||
	    buf_add(o->b, p, n) == -1) {
		o->b->len = had;
		o->b->data[had] = '\0';
		o->full = 1;
		return 0;
	}
	return 1;
}

/* Start the next notice in nt, after ". " if it is not the first. */
static struct buf *
note(struct buf *nt)
{
	if (nt->len != 0)
		(void)buf_adds(nt, ". ");
	return nt;
}

/* The notices pi's grep and find share, in pi's order. */
static void
note_limits(struct buf *nt, unsigned long long count,
    unsigned long long limit, const char *what, const struct out *o,
    struct tool_result *r)
{
	char size[FORMAT_SIZE_LEN];

	if (count == limit) {
		(void)buf_addf(note(nt), "%llu %s limit reached. Use "
		    "limit=%llu for more, or refine pattern", limit, what,
		    2 * limit);
		r->truncated = 1;
	}
	if (o->full) {
		(void)buf_addf(note(nt), "%s limit reached",
		    format_size(size, o->max));
		r->truncated = 1;
	}
}

/* Ours: what could not be read; then all notices go out in brackets. */
static void
note_end(struct buf *nt, unsigned long dirs, unsigned long files,
    struct tool_result *r)
{
	if (dirs != 0)
		(void)buf_addf(note(nt), "%lu director%s could not be read",
		    dirs, dirs == 1 ? "y" : "ies");
	if (files != 0)
		(void)buf_addf(note(nt), "%lu file%s could not be read",
		    files, files == 1 ? "" : "s");
	if (nt->len != 0)
		(void)buf_addf(&r->output, "\n\n[%s]", nt->data);
}

/* The path to search, "." when absent or empty, as pi resolves it. */
static char *
arg_path(struct json_object *in)
{
	const char *p = jsonx_str(in, "path");

	return tool_path(p != NULL && *p != '\0' ? p : ".");
}

/*
 * An optional whole-number argument of at least min; def when absent.
 * -1 with r failed when it is something else.
 */
static int
arg_count(struct json_object *in, const char *key, unsigned long long min,
    unsigned long long def, unsigned long long *out, struct tool_result *r)
{
	struct json_object *v = jsonx_get(in, key);
	double d;

	*out = def;
	if (v == NULL)
		return 0;
	if (jsonx_is(v, json_type_int) || jsonx_is(v, json_type_double)) {
		d = json_object_get_double(v);
		if (d >= (double)min && d < 1e18 &&
		    d == (double)(long long)d) {
			*out = d > (double)COUNT_MAX ? COUNT_MAX :
			    (unsigned long long)d;
			return 0;
		}
	}
	tool_fail(r, "invalid_arguments", "%s must be a whole number of at "
	    "least %llu.", key, min);
	return -1;
}

/*
 * Regular expressions.  Models write PCRE or Rust syntax; glibc's ERE
 * has \w \W \s \S \b \B \< \> but not \d, and reads \t as 't' and \' as
 * an anchor, so the pattern is translated before regcomp.
 */
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
re_bracket(const char *s, struct buf *o, struct buf *body,
    struct pi_error *e)
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
re_escape(const char *s, struct buf *o, struct pi_error *e)
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

/* PCRE-ish pattern s as glibc ERE in o; -1 with e filled if it cannot be. */
static int
re_translate(const char *s, struct buf *o, int *icase, struct pi_error *e)
{
	struct buf body;
	size_t n;
	int atom = 0;

	if (strncmp(s, "(?i)", 4) == 0) {
		*icase = 1;
		s += 4;
	}
	buf_init(&body, o->max);
	while (*s != '\0') {
		switch (*s) {
		case '\\':
			s = re_escape(s, o, e);
			atom = 1;
			if (s == NULL)
				goto fail;
			continue;
		case '[':
			s = re_bracket(s, o, &body, e);
			atom = 1;
			if (s == NULL)
				goto fail;
			continue;
		case '(':
			atom = 0;
			if (s[1] == '?' && s[2] == ':') {
				(void)buf_addc(o, '(');
				s += 3;
				continue;
			}
			if (s[1] == '?' && (s[2] == 'P' || s[2] == '<') &&
			    strchr(s, '>') != NULL && s[3] != '=' &&
			    s[3] != '!') {
				(void)buf_addc(o, '(');
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
				(void)buf_add(o, s, n);
				s += n;
				continue;
			}
			(void)buf_adds(o, "\\{");
			s++;
			continue;
		case '}':
			(void)buf_adds(o, "\\}");
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
		(void)buf_addc(o, *s++);
	}
	buf_release(&body);
	return 0;
fail:
	buf_release(&body);
	return -1;
}

struct grep {
	regex_t re;
	int has_re;
	const char *lit;		/* literal: the text, else NULL */
	size_t litlen;
	int icase;
	struct pathmatch_glob glob;
	int has_glob;
	int glob_neg;			/* a "!glob": skip what matches */
	unsigned long long context;
	unsigned long long limit;
	unsigned long long count;
	struct out out;
	int cut;			/* a line shown was cut to LINE_CHARS */
	unsigned long unreadable;	/* files */
	char *chunk;			/* read buffer, CHUNK bytes */
	size_t off, len;
	int eof;
	struct buf line;		/* the line read, no '\n' */
	struct buf shown;		/* an output line being made */
	unsigned long long *hits;	/* where this file's matches are */
	size_t nhits, caphits;
};

/* Rewind to the start of fd; 1 if it looks binary, 0, -1 on error. */
static int
grep_rewind(struct grep *g, int fd)
{
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	g->off = g->len = 0;
	g->eof = 0;
	while (g->len < SNIFF_BYTES) {
		n = read(fd, g->chunk + g->len, CHUNK - g->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0) {
			g->eof = 1;
			break;
		}
		g->len += (size_t)n;
	}
	return memchr(g->chunk, '\0', g->len < SNIFF_BYTES ? g->len :
	    SNIFF_BYTES) != NULL;
}

/*
 * The next line of fd into g->line, without its '\n' or a CR before
 * that; bytes past LINE_MAX_BYTES are dropped.  1, 0 at the end, -1.
 */
static int
grep_next(struct grep *g, int fd)
{
	const char *nl;
	size_t take, room;
	ssize_t n;
	int any = 0;

	buf_reset(&g->line);
	for (;;) {
		if (g->off == g->len) {
			if (g->eof)
				break;
			if ((n = read(fd, g->chunk, CHUNK)) == -1) {
				if (errno == EINTR)
					continue;
				return -1;
			}
			g->off = 0;
			g->len = (size_t)n;
			g->eof = n == 0;
			continue;
		}
		any = 1;
		nl = memchr(g->chunk + g->off, '\n', g->len - g->off);
		take = nl ? (size_t)(nl - g->chunk) - g->off : g->len - g->off;
		room = g->line.max - g->line.len;
		(void)buf_add(&g->line, g->chunk + g->off,
		    take < room ? take : room);
		g->off += take;
		if (nl != NULL) {
			g->off++;
			break;
		}
	}
	if (g->line.len > 0 && g->line.data[g->line.len - 1] == '\r')
		g->line.data[--g->line.len] = '\0';
	return any;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
grep_match(const struct grep *g, const char *p, size_t n)
{
	const char *q, *end = p + n;
	size_t j;

	if (g->lit == NULL)
		return regexec(&g->re, p, 0, NULL, 0) == 0;
	if (g->litlen == 0)
		return 1;
	if (!g->icase) {
		for (q = p; (size_t)(end - q) >= g->litlen &&
		    (q = memchr(q, g->lit[0], (size_t)(end - q) - g->litlen +
		    1)) != NULL; q++)
			if (memcmp(q, g->lit, g->litlen) == 0)
				return 1;
		return 0;
	}
	for (q = p; (size_t)(end - q) >= g->litlen; q++) {
		for (j = 0; j < g->litlen; j++)
			if (lower((unsigned char)q[j]) !=
			    lower((unsigned char)g->lit[j]))
				break;
		if (j == g->litlen)
			return 1;
	}
	return 0;
}

/*
 * Show line lineno of the file at path as "path:N: text" (a match) or
 * "path-N- text" (context): CRs dropped, at most LINE_CHARS characters.
 */
static void
grep_show(struct grep *g, const char *path, int sep,
    unsigned long long lineno)
{
	struct buf *s = &g->shown;
	char *p = g->line.data;
	size_t i, n, start, keep;
	int cut;

	/* Drop CRs from the part that can be shown, 4 bytes a character. */
	for (i = n = 0; i < g->line.len && n < 4 * LINE_CHARS + 4; i++)
		if (p[i] != '\r')
			p[n++] = p[i];
	buf_reset(s);
	(void)utf8_sanitize(s, path, strlen(path));
	(void)buf_addf(s, "%c%llu%c ", sep, lineno, sep);
	start = s->len;
	(void)utf8_sanitize(s, p, n);
	keep = truncate_chars(s->data + start, s->len - start, LINE_CHARS);
	cut = start + keep < s->len;
	s->len = start + keep;
	s->data[s->len] = '\0';
	if (cut)
		(void)buf_adds(s, "... [truncated]");
	if (out_line(&g->out, s->data, s->len) && cut)
		g->cut = 1;
}

/* Search the file open at fd, shown as path; WALK_STOP at the limit. */
static int
grep_file(struct grep *g, int fd, const char *path)
{
	unsigned long long lineno = 0, last;
	size_t j = 0, k = 0;
	int rc;

	g->nhits = 0;
	if ((rc = grep_rewind(g, fd)) != 0) {
		g->unreadable += rc == -1;
		return WALK_GO;
	}
	while (g->count < g->limit && (rc = grep_next(g, fd)) == 1) {
		lineno++;
		if (!grep_match(g, g->line.data, g->line.len))
			continue;
		g->count++;
		if (g->out.full)
			continue;
		if (g->context == 0)
			grep_show(g, path, ':', lineno);
		else if (g->nhits < g->out.max / 4 + 1) {
			if (g->nhits == g->caphits) {
				g->caphits = g->caphits ? 2 * g->caphits : 64;
				g->hits = xrealloc(g->hits,
				    g->caphits * sizeof(*g->hits));
			}
			g->hits[g->nhits++] = lineno;
		}
	}
	g->unreadable += rc == -1;
	/* Context: read again, showing the lines near the matches. */
	if (g->nhits == 0 || grep_rewind(g, fd) != 0)
		return g->count == g->limit ? WALK_STOP : WALK_GO;
	last = g->hits[g->nhits - 1] + g->context;
	for (lineno = 1; lineno <= last && !g->out.full &&
	    grep_next(g, fd) == 1; lineno++) {
		while (g->hits[j] + g->context < lineno)
			j++;
		if (g->hits[j] > lineno + g->context)
			continue;
		while (g->hits[k] < lineno && k + 1 < g->nhits)
			k++;
		grep_show(g, path, g->hits[k] == lineno ? ':' : '-', lineno);
	}
	return g->count == g->limit ? WALK_STOP : WALK_GO;
}

static int
grep_visit(struct walk *w, int dfd, const char *name, const struct stat *st,
    void *arg)
{
	struct grep *g = arg;
	struct stat fst;
	const char *rel = w->path.data + w->rel;
	int fd, rc, flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

	if (S_ISDIR(st->st_mode))
		return g->has_glob && g->glob_neg &&
		    pathmatch_glob_match(&g->glob, rel, 1) ? WALK_PRUNE :
		    WALK_GO;
	if (g->has_glob && pathmatch_glob_match(&g->glob, rel, 0) ==
	    g->glob_neg)
		return WALK_GO;
	/* A symlink is searched when it leads to a regular file. */
	if (S_ISLNK(st->st_mode)) {
		if (fstatat(dfd, name, &fst, 0) == -1 || !S_ISREG(fst.st_mode))
			return WALK_GO;
	} else if (S_ISREG(st->st_mode))
		flags |= O_NOFOLLOW;
	else
		return WALK_GO;
	if ((fd = openat(dfd, name, flags)) == -1) {
		g->unreadable++;
		return WALK_GO;
	}
	rc = fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) ?
	    grep_file(g, fd, rel) : WALK_GO;
	close(fd);
	return rc;
}

/* Fill g from the input; -1 with r failed. */
static int
grep_init(struct grep *g, struct json_object *in, struct tool_result *r)
{
	struct pi_error e;
	struct buf re;
	const char *pattern = jsonx_str(in, "pattern");
	const char *glob = jsonx_str(in, "glob"), *why = NULL;
	char msg[256];
	int rc;

	memset(g, 0, sizeof(*g));
	buf_init(&g->line, LINE_MAX_BYTES);
	buf_init(&g->shown, 3 * PATH_BYTES + 16 * LINE_CHARS);
	g->chunk = xmalloc(CHUNK);
	g->icase = jsonx_bool(in, "ignoreCase", 0);
	if (pattern == NULL) {
		tool_fail(r, "invalid_arguments", "grep needs a pattern: a "
		    "regular expression, or text with literal set to true.");
		return -1;
	}
	if (strlen(pattern) > PATTERN_MAX) {
		tool_fail(r, "bad_pattern", "The pattern is longer than %u "
		    "bytes.", PATTERN_MAX);
		return -1;
	}
	if (arg_count(in, "limit", 1, 100, &g->limit, r) == -1 ||
	    arg_count(in, "context", 0, 0, &g->context, r) == -1)
		return -1;
	if (glob != NULL && *glob != '\0') {
		/* As rg's --glob, a leading '!' excludes. */
		g->glob_neg = *glob == '!';
		if (pathmatch_glob_init(&g->glob, glob + g->glob_neg,
		    &e) == -1) {
			tool_fail(r, "bad_pattern", "%s", e.msg);
			return -1;
		}
		g->has_glob = 1;
	}
	if (jsonx_bool(in, "literal", 0)) {
		g->lit = pattern;
		g->litlen = strlen(pattern);
		return 0;
	}
	buf_init(&re, 8 * PATTERN_MAX);
	if (re_translate(pattern, &re, &g->icase, &e) == -1)
		why = e.msg;
	else if ((rc = regcomp(&g->re, re.data, REG_EXTENDED | REG_NEWLINE |
	    REG_NOSUB | (g->icase ? REG_ICASE : 0))) != 0) {
		regerror(rc, &g->re, msg, sizeof(msg));
		why = msg;
	}
	buf_release(&re);
	if (why != NULL) {
		tool_fail(r, "bad_pattern", "Invalid regular expression "
		    "\"%s\": %s. grep takes a POSIX extended regular "
		    "expression (\\d, \\w, \\s and \\b work; lookaround "
		    "does not); set literal to true to search for the text as "
		    "it is.", pattern, why);
		return -1;
	}
	g->has_re = 1;
	return 0;
}

static void
grep_release(struct grep *g)
{
	if (g->has_re)
		regfree(&g->re);
	pathmatch_glob_release(&g->glob);
	buf_release(&g->line);
	buf_release(&g->shown);
	free(g->chunk);
	free(g->hits);
}

int
tool_grep(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	struct grep g;
	struct walk w;
	struct stat st;
	struct buf nt;
	const char *base;
	char *path = NULL;
	int fd;

	walk_init(&w, grep_visit, &g);
	buf_init(&nt, 1024);
	if (grep_init(&g, in, r) == -1)
		goto out;
	path = arg_path(in);
	if (stat_arg(path, &st, r) == -1)
		goto out;
	out_init(&g.out, r, lim);
	if (S_ISDIR(st.st_mode)) {
		if (walk_run(&w, path, r) == -1)
			goto out;
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) == -1) {
		tool_fail(r, errno == EACCES ? "permission_denied" :
		    "io_error", "Cannot read %s: %s", path, strerror(errno));
		goto out;
	} else {
		/* A file searched alone is shown by its name. */
		base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 :
		    path;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			grep_file(&g, fd, base);
		close(fd);
	}
	if (g.count == 0)
		(void)buf_adds(&r->output, "No matches found");
	note_limits(&nt, g.count, g.limit, "matches", &g.out, r);
	if (g.cut) {
		(void)buf_addf(note(&nt), "Some lines truncated to %d chars. "
		    "Use read tool to see full lines", LINE_CHARS);
		r->truncated = 1;
	}
	note_end(&nt, w.unreadable, g.unreadable, r);
out:
	walk_release(&w);
	buf_release(&nt);
	free(path);
	grep_release(&g);
	return 0;
}

struct find {
	struct pathmatch_glob glob;
	int all;			/* an empty pattern: everything */
	unsigned long long limit;
	unsigned long long count;
	struct out out;
	struct buf line;
};

static int
find_visit(struct walk *w, int dfd, const char *name, const struct stat *st,
    void *arg)
{
	struct find *f = arg;
	const char *rel = w->path.data + w->rel;
	int is_dir = S_ISDIR(st->st_mode);

	(void)dfd;
	(void)name;
	if (!f->all && !pathmatch_glob_match(&f->glob, rel, is_dir))
		return WALK_GO;
	if (!f->out.full) {
		buf_reset(&f->line);
		if (utf8_sanitize(&f->line, rel, strlen(rel)) == -1 ||
		    (is_dir && buf_addc(&f->line, '/') == -1))
			f->out.full = 1;
		else
			out_line(&f->out, f->line.data, f->line.len);
	}
	return ++f->count == f->limit ? WALK_STOP : WALK_GO;
}

int
tool_find(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	struct find f;
	struct walk w;
	struct stat st;
	struct pi_error e;
	struct buf nt;
	const char *pattern = jsonx_str(in, "pattern");
	char *path = NULL;

	memset(&f, 0, sizeof(f));
	walk_init(&w, find_visit, &f);
	buf_init(&nt, 1024);
	buf_init(&f.line, 3 * PATH_BYTES);
	if (pattern == NULL) {
		tool_fail(r, "invalid_arguments", "find needs a pattern, a "
		    "glob such as *.c or src/**/*.ts.");
		goto out;
	}
	if (arg_count(in, "limit", 1, 1000, &f.limit, r) == -1)
		goto out;
	if (pathmatch_glob_init(&f.glob, pattern, &e) == -1) {
		tool_fail(r, "bad_pattern", "%s", e.msg);
		goto out;
	}
	f.all = *pattern == '\0';
	path = arg_path(in);
	if (stat_arg(path, &st, r) == -1)
		goto out;
	if (!S_ISDIR(st.st_mode)) {
		tool_fail(r, "not_a_directory", "Not a directory: %s", path);
		goto out;
	}
	out_init(&f.out, r, lim);
	if (walk_run(&w, path, r) == -1)
		goto out;
	if (f.count == 0)
		(void)buf_adds(&r->output, "No files found matching pattern");
	note_limits(&nt, f.count, f.limit, "results", &f.out, r);
	note_end(&nt, w.unreadable, 0, r);
out:
	walk_release(&w);
	buf_release(&nt);
	buf_release(&f.line);
	pathmatch_glob_release(&f.glob);
	free(path);
	return 0;
}
