/*
 * tool_search: grep and find (see tools.h), as pi's grep.ts and find.ts
 * but without running rg or fd: the search is done here, so no pattern
 * can ever become an option of another program.  Both walk the tree
 * below a path as rg and fd do (walk.h); grep's regular expressions
 * are translated to POSIX ones (retrans.h).  Beyond the walk's own,
 * memory holds the output and one line of the file being searched,
 * whatever the size of the tree.
 */
#include "tools.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathmatch.h"
#include "retrans.h"
#include "truncate.h"
#include "walk.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

#define LINE_CHARS	500		/* grep shows this much of a line */
#define SNIFF_BYTES	8192		/* a NUL in here: a binary file */
#define CHUNK		(64u << 10)
#define LINE_MAX_BYTES	(4u << 20)	/* of a line, as grep matches it */
#define PATTERN_MAX	(64u << 10)
#define COUNT_MAX	1000000000000ULL	/* limit, context */

/* Output lines kept whole while they fit in max bytes, as truncate_head. */
struct out {
	struct buf *b;
	size_t max;
	int full;
};

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
grep_visit(void *arg, int dfd, const char *name, const char *rel,
    const struct stat *st)
{
	struct grep *g = arg;
	struct stat fst;
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
	const char *pattern = jsonx_str(in, "pattern");
	const char *glob = jsonx_str(in, "glob"), *why = NULL;
	char msg[256], *re;
	int rc;

	memset(g, 0, sizeof(*g));
	buf_init(&g->line, LINE_MAX_BYTES);
	buf_init(&g->shown, 3 * WALK_PATH_MAX + 16 * LINE_CHARS);
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
		if (pathmatch_glob_init(&g->glob, glob + g->glob_neg, 0,
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
	if ((re = retrans_ere(pattern, &g->icase, &e)) == NULL)
		why = e.msg;
	else if ((rc = regcomp(&g->re, re, REG_EXTENDED | REG_NEWLINE |
	    REG_NOSUB | (g->icase ? REG_ICASE : 0))) != 0) {
		regerror(rc, &g->re, msg, sizeof(msg));
		why = msg;
	}
	free(re);
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
	struct pi_error e;
	struct buf nt;
	const char *base;
	char *path = NULL;
	int fd;

	walk_init(&w, grep_visit, &g);
	buf_init(&nt, 1024);
	if (grep_init(&g, in, r) == -1)
		goto out;
	/* "." when absent or empty, as pi resolves it. */
	if ((path = tool_arg_path(in, "path", ".", r)) == NULL ||
	    stat_arg(path, &st, r) == -1)
		goto out;
	out_init(&g.out, r, lim);
	if (S_ISDIR(st.st_mode)) {
		if (walk_run(&w, path, &e) == -1) {
			tool_fail(r, e.code, "%s", e.msg);
			goto out;
		}
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
find_visit(void *arg, int dfd, const char *name, const char *rel,
    const struct stat *st)
{
	struct find *f = arg;
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

static int
has_upper(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'A' && *s <= 'Z')
			return 1;
	return 0;
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
	buf_init(&f.line, 3 * WALK_PATH_MAX);
	if (pattern == NULL) {
		tool_fail(r, "invalid_arguments", "find needs a pattern, a "
		    "glob such as *.c or src/**/*.ts.");
		goto out;
	}
	if (arg_count(in, "limit", 1, 1000, &f.limit, r) == -1)
		goto out;
	/* Smart case, as fd: an uppercase letter makes case matter. */
	if (pathmatch_glob_init(&f.glob, pattern, has_upper(pattern) ? 0 :
	    PATHMATCH_ICASE, &e) == -1) {
		tool_fail(r, "bad_pattern", "%s", e.msg);
		goto out;
	}
	f.all = *pattern == '\0';
	/* "." when absent or empty, as pi resolves it. */
	if ((path = tool_arg_path(in, "path", ".", r)) == NULL ||
	    stat_arg(path, &st, r) == -1)
		goto out;
	if (!S_ISDIR(st.st_mode)) {
		tool_fail(r, "not_a_directory", "Not a directory: %s", path);
		goto out;
	}
	out_init(&f.out, r, lim);
	if (walk_run(&w, path, &e) == -1) {
		tool_fail(r, e.code, "%s", e.msg);
		goto out;
	}
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
