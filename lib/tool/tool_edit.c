/*
 * tool_edit: edit (see tools.h), pi 0.64's multi-edit with exact matching
 * only.  Every old_text is looked for in the file as it was, must occur
 * exactly once, and no two matches may overlap; only then is the file
 * rewritten, in place, so a failed call leaves it untouched.  Matching is
 * done on text with LF line ends and no byte order mark; both are put
 * back when the file is written.  The result is a unified diff of the
 * replaced regions, which are known (udiff.h).
 */
#include "tools.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truncate.h"
#include "udiff.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define EDIT_MAX_FILE	(16u << 20)	/* larger files: use sed */
#define SNIFF_BYTES	8192		/* git's rule: a NUL here is binary */
#define MAX_LINES_LISTED 10		/* of an ambiguous match */
#define WIN_MAX		64	/* lines of old_text scored for the hint */
#define HINT_WORK	50000000	/* line comparisons for the hint */
#define HINT_SHOWN	20		/* lines of the hint shown */

struct edit {
	size_t idx;		/* in the input's edits */
	struct buf old, new;	/* with LF line ends */
	size_t at;		/* where old matched in the file */
};

/* CRLF and lone CR made LF, as pi's normalizeToLF. */
static void
to_lf(struct buf *out, const char *p, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		if (p[i] != '\r')
			continue;
		(void)buf_add(out, p + start, i - start);
		(void)buf_addc(out, '\n');
		if (i + 1 < n && p[i + 1] == '\n')
			i++;
		start = i + 1;
	}
	(void)buf_add(out, p + start, n - start);
}

static size_t
line_end(const char *p, size_t n, size_t at)
{
	const char *q = memchr(p + at, '\n', n - at);

	return q ? (size_t)(q - p) + 1 : n;
}

/*
 * Every occurrence of pat in text, overlapping ones included (Knuth-
 * Morris-Pratt, so "aaaa...a" costs no more than other text).  Returns
 * the count; *first is the first match, and lines[] gets the first
 * distinct 1-based line numbers of matches, *nlines being one more than
 * MAX_LINES_LISTED when there are more.
 */
static size_t
find_all(const char *text, size_t n, const char *pat, size_t m,
    size_t *first, size_t lines[MAX_LINES_LISTED], size_t *nlines)
{
	size_t *fail = xcalloc(m, sizeof(*fail));
	size_t i, k = 0, count = 0, line = 1, scanned = 0, at;

	for (i = 1; i < m; i++) {
		while (k > 0 && pat[i] != pat[k])
			k = fail[k - 1];
		if (pat[i] == pat[k])
			k++;
		fail[i] = k;
	}
	*nlines = 0;
	for (i = 0, k = 0; i < n; i++) {
		while (k > 0 && text[i] != pat[k])
			k = fail[k - 1];
		if (text[i] == pat[k])
			k++;
		if (k < m)
			continue;
		at = i + 1 - m;
		if (count++ == 0)
			*first = at;
		line += pi_count_lf(text + scanned, at - scanned);
		scanned = at;
		if (*nlines <= MAX_LINES_LISTED && (*nlines == 0 ||
		    lines[*nlines - 1] != line)) {
			if (*nlines < MAX_LINES_LISTED)
				lines[*nlines] = line;
			(*nlines)++;
		}
		k = fail[k - 1];
	}
	free(fail);
	return count;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\v' || c == '\f';
}

static void
trim(const char **p, size_t *n)
{
	while (*n > 0 && is_space(**p))
		(*p)++, (*n)--;
	while (*n > 0 && is_space((*p)[*n - 1]))
		(*n)--;
}

static uint64_t
hash_trimmed(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	trim(&p, &n);
	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

/* Common prefix plus common suffix of two trimmed lines. */
static size_t
likeness(const char *a, size_t an, const char *b, size_t bn)
{
	size_t pre = 0, suf = 0;

	trim(&a, &an);
	trim(&b, &bn);
	while (pre < an && pre < bn && a[pre] == b[pre])
		pre++;
	while (suf < an - pre && suf < bn - pre &&
	    a[an - 1 - suf] == b[bn - 1 - suf])
		suf++;
	return pre + suf;
}

/* Equal once all whitespace is taken out of both. */
static int
same_but_space(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < an && is_space(a[i]))
			i++;
		while (j < bn && is_space(b[j]))
			j++;
		if (i == an || j == bn)
			return i == an && j == bn;
		if (a[i++] != b[j++])
			return 0;
	}
}

/*
 * For a missing old_text: the window of the file's lines most like it
 * (most lines equal but for surrounding whitespace, then the likeness of
 * the first line), shown with line numbers.  Best effort: the lines
 * scored and the work are capped.
 */
static void
add_closest(struct buf *msg, const char *base, size_t blen, const char *old,
    size_t olen)
{
	uint64_t oh[WIN_MAX], rh[WIN_MAX];
	size_t rs[WIN_MAX], k, klines, nlines, i, j, s, e, w, score, sim;
	size_t best_score = 0, best_sim = 0, best_line = 0, work = 0;
	size_t ofirst, olen1, width, shown;
	const char *o1 = old;
	int found = 0;

	/* A final line break ends the last line; no empty line follows. */
	if (olen > 0 && old[olen - 1] == '\n')
		olen--;
	if (blen > 0 && base[blen - 1] == '\n')
		blen--;
	klines = pi_count_lf(old, olen) + 1;
	nlines = pi_count_lf(base, blen) + 1;
	k = klines < WIN_MAX ? klines : WIN_MAX;
	if (k > nlines)
		k = nlines;
	for (s = 0, i = 0; i < k; i++, s = e) {
		e = line_end(old, olen, s);
		oh[i] = hash_trimmed(old + s, e - s);
	}
	ofirst = olen1 = line_end(old, olen, 0);
	trim(&o1, &olen1);
	for (s = 0, i = 0; i < nlines && work < HINT_WORK; i++, s = e) {
		e = line_end(base, blen, s);
		rs[i % WIN_MAX] = s;
		rh[i % WIN_MAX] = hash_trimmed(base + s, e - s);
		if (i + 1 < k)
			continue;
		w = i + 1 - k;
		for (j = 0, score = 0; j < k; j++)
			score += rh[(w + j) % WIN_MAX] == oh[j];
		work += k;
		if (found && score < best_score)
			continue;
		j = rs[w % WIN_MAX];
		sim = likeness(base + j, line_end(base, blen, j) - j, old,
		    ofirst);
		if (!found || score > best_score || sim > best_sim) {
			found = 1;
			best_score = score, best_sim = sim, best_line = w;
		}
	}
	if (!found || (best_score == 0 && (olen1 == 0 ||
	    3 * best_sim < olen1)))
		return;
	for (s = 0, i = 0; i < best_line; i++)
		s = line_end(base, blen, s);
	width = (size_t)snprintf(NULL, 0, "%zu", best_line + klines);
	(void)buf_addf(msg, "\n\nClosest match, around line %zu:",
	    best_line + 1);
	w = s;
	for (i = 0; i < klines && best_line + i < nlines; i++, s = e) {
		e = line_end(base, blen, s);
		if (i >= HINT_SHOWN)
			continue;
		j = e - s - (e > s && base[e - 1] == '\n');
		shown = truncate_chars(base + s, j, 200);
		(void)buf_addf(msg, "\n%*zu | %.*s%s", (int)width,
		    best_line + 1 + i, (int)shown, base + s,
		    shown < j ? "..." : "");
	}
	if (i > HINT_SHOWN)
		(void)buf_addf(msg, "\n%*s | ... (%zu more lines)", (int)width,
		    "", i - HINT_SHOWN);
	if (same_but_space(base + w, s - w, old, olen))
		(void)buf_adds(msg, "\nThese lines differ from old_text only "
		    "in whitespace/indentation: copy them exactly as they are "
		    "in the file.");
}

static int
by_position(const void *a, const void *b)
{
	const struct edit *x = *(struct edit *const *)a;
	const struct edit *y = *(struct edit *const *)b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
io_fail(struct tool_result *r, const char *given, const char *verb, int e)
{
	if (e == ENOENT || e == ENOTDIR)
		return tool_fail(r, "not_found", "File not found: %s", given);
	if (e == EROFS)
		return tool_fail(r, "read_only", "Cannot %s %s: it is outside "
		    "the sandbox's writable paths (read-only file system).",
		    verb, given);
	if (e == EACCES || e == EPERM)
		return tool_fail(r, "permission_denied", "Cannot %s %s: "
		    "permission denied (by the file's mode or by the "
		    "sandbox).", verb, given);
	if (e == EISDIR)
		return tool_fail(r, "is_directory", "%s is a directory; edit "
		    "changes files.", given);
	if (e == ENXIO)
		return tool_fail(r, "not_a_file", "%s is not a regular file "
		    "(a FIFO, socket or device); edit changes files.", given);
	return tool_fail(r, "io_error", "Cannot %s %s: %s.", verb, given,
	    strerror(e));
}

/* The whole file into raw, or r failed. */
static int
slurp(const char *path, const char *given, struct buf *raw,
    struct tool_result *r)
{
	char tmp[1u << 16], sz[FORMAT_SIZE_LEN], max[FORMAT_SIZE_LEN];
	struct stat st;
	ssize_t k = 1;
	int fd, e = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		return io_fail(r, given, "read", errno), -1;
	if (fstat(fd, &st) == -1)
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!S_ISREG(st.st_mode))
		e = ENXIO;
	else if (st.st_size > (off_t)EDIT_MAX_FILE)
		k = -2;
	while (e == 0 && k > 0) {
		if ((k = read(fd, tmp, sizeof(tmp))) == -1 && errno == EINTR)
			k = 1;
		else if (k == -1)
			e = errno;
		else if (buf_add(raw, tmp, (size_t)k) == -1)
			k = -2;
	}
	close(fd);
	if (e != 0)
		return io_fail(r, given, "read", e), -1;
	if (k == -2)
		return tool_fail(r, "too_large", "%s is %s; edit handles files "
		    "up to %s. Use bash (sed -i, or a script) instead.", given,
		    format_size(sz, (unsigned long long)st.st_size),
		    format_size(max, EDIT_MAX_FILE)), -1;
	if (memchr(raw->data, '\0', raw->len < SNIFF_BYTES ? raw->len :
	    SNIFF_BYTES) != NULL)
		return tool_fail(r, "binary_file", "%s is a binary file (it "
		    "has a NUL byte in its first 8 KiB); edit only changes "
		    "text. Use bash to change it.", given), -1;
	return 0;
}

static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * Write p over path in place (mode, owner and hard links stay).  Should
 * a write fail half way, put orig back: the call fails as a whole.
 */
static int
write_back(const char *path, const char *given, const struct buf *p,
    const struct buf *orig, struct tool_result *r)
{
	int fd, e = 0, restored;

	fd = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd == -1)
		return io_fail(r, given, "write", errno), -1;
	if (fcntl(fd, F_SETFL, 0) == -1 || write_all(fd, p->data, p->len) ==
	    -1)
		e = errno;
	if (e == 0 && close(fd) == 0)
		return 0;
	if (e == 0) {
		e = errno;
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	}
	restored = fd != -1 && lseek(fd, 0, SEEK_SET) == 0 &&
	    ftruncate(fd, 0) == 0 && write_all(fd, orig->data, orig->len) ==
	    0;
	if (fd != -1 && close(fd) == -1)
		restored = 0;
	return tool_fail(r, "io_error", "Cannot write %s: %s. %s", given,
	    strerror(e), restored ? "The file was left as it was." :
	    "It could not be restored and may now be incomplete."), -1;
}

static int
check_edit(struct edit *ed, const char *given, const struct buf *base,
    struct tool_result *r)
{
	size_t lines[MAX_LINES_LISTED], nlines, n, i;
	struct buf *m = &r->output;

	n = find_all(base->data, base->len, ed->old.data, ed->old.len,
	    &ed->at, lines, &nlines);
	if (n == 1)
		return 0;
	if (n == 0) {
		tool_fail(r, "no_match", "Could not find edits[%zu].old_text "
		    "in %s. The old text must match exactly, including "
		    "whitespace and line breaks.", ed->idx, given);
		add_closest(m, base->data, base->len, ed->old.data,
		    ed->old.len);
		return -1;
	}
	tool_fail(r, "ambiguous_match", "Found %zu occurrences of "
	    "edits[%zu].old_text in %s (line%s ", n, ed->idx, given,
	    nlines > 1 ? "s" : "");
	for (i = 0; i < nlines && i < MAX_LINES_LISTED; i++)
		(void)buf_addf(m, "%s%zu", i ? ", " : "", lines[i]);
	(void)buf_addf(m, "%s). The text must be unique: add surrounding "
	    "lines to make it unique.", nlines > MAX_LINES_LISTED ?
	    ", ..." : "");
	return -1;
}

/* The diff for the model, cut to the limits, and in details whole. */
static void
add_result(struct tool_result *r, const char *given, size_t nedits,
    struct buf *diff, size_t first, const struct tool_limits *lim)
{
	struct truncation t;
	size_t mb = lim && lim->max_bytes ? lim->max_bytes :
	    TRUNCATE_MAX_BYTES;
	size_t ml = lim && lim->max_lines ? lim->max_lines :
	    TRUNCATE_MAX_LINES;
	size_t keep = truncate_head(&t, diff->data, diff->len, ml, mb);
	char sz[FORMAT_SIZE_LEN];

	(void)buf_addf(&r->output, "Successfully replaced %zu block(s) in "
	    "%s.\n\n", nedits, given);
	(void)buf_add(&r->output, diff->data, keep);
	if (t.truncated) {
		(void)buf_addf(&r->output, "\n\n[Diff cut at line %zu of %zu",
		    t.output_lines, t.total_lines);
		if (t.by == TRUNCATE_BYTES)
			(void)buf_addf(&r->output, " (%s limit)",
			    format_size(sz, mb));
		(void)buf_adds(&r->output, ". Read the file to see the rest.]");
	}
	r->details = json_object_new_object();
	jsonx_set(r->details, "diff", jsonx_new_str(diff->data, diff->len));
	jsonx_set_int(r->details, "firstChangedLine", (int64_t)first);
}

int
tool_edit(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	const char *given = jsonx_str(in, "file_path");
	struct json_object *arr = jsonx_arr(in, "edits"), *o, *ot, *nt;
	struct buf raw, base, res, out, diff;
	struct edit *ed = NULL, **pos = NULL;
	struct udiff_change *ch = NULL;
	size_t ned, i, at, first;
	char *path = NULL, *q;
	int bom, crlf;

	buf_init(&raw, EDIT_MAX_FILE);
	buf_init(&base, EDIT_MAX_FILE);
	buf_init(&res, TOOL_MAX_OUTPUT);
	buf_init(&out, 2 * (size_t)TOOL_MAX_OUTPUT + 3);
	buf_init(&diff, TOOL_MAX_OUTPUT);
	if (given == NULL || arr == NULL ||
	    (ned = json_object_array_length(arr)) == 0)
		return tool_fail(r, "invalid_arguments", "edit needs file_path "
		    "and edits, a non-empty list of {old_text, new_text}.");
	ed = xcalloc(ned, sizeof(*ed));
	pos = xcalloc(ned, sizeof(*pos));
	ch = xcalloc(ned, sizeof(*ch));
	for (i = 0; i < ned; i++) {
		ed[i].idx = i;
		buf_init(&ed[i].old, TOOL_MAX_OUTPUT);
		buf_init(&ed[i].new, TOOL_MAX_OUTPUT);
		pos[i] = &ed[i];
	}
	for (i = 0; i < ned; i++) {
		o = json_object_array_get_idx(arr, i);
		ot = jsonx_get(o, "old_text");
		nt = jsonx_get(o, "new_text");
		if (!jsonx_is(ot, json_type_string) ||
		    !jsonx_is(nt, json_type_string)) {
			tool_fail(r, "invalid_arguments", "edits[%zu] needs "
			    "old_text and new_text, both strings.", i);
			goto out;
		}
		to_lf(&ed[i].old, json_object_get_string(ot),
		    (size_t)json_object_get_string_len(ot));
		to_lf(&ed[i].new, json_object_get_string(nt),
		    (size_t)json_object_get_string_len(nt));
	}
	if ((path = tool_arg_path(in, "file_path", NULL, r)) == NULL ||
	    slurp(path, given, &raw, r) == -1)
		goto out;
	bom = raw.len >= 3 && memcmp(raw.data, "\xef\xbb\xbf", 3) == 0;
	q = memchr(raw.data, '\n', raw.len);
	crlf = q != NULL && q > raw.data + 3 * bom && q[-1] == '\r';
	to_lf(&base, raw.data + 3 * bom, raw.len - 3 * bom);
	for (i = 0; i < ned; i++)
		if (ed[i].old.len == 0) {
			tool_fail(r, "invalid_arguments", "edits[%zu].old_text "
			    "must not be empty in %s.", i, given);
			goto out;
		}
	for (i = 0; i < ned; i++)
		if (check_edit(&ed[i], given, &base, r) == -1)
			goto out;
	qsort(pos, ned, sizeof(*pos), by_position);
	for (i = 1; i < ned; i++)
		if (pos[i - 1]->at + pos[i - 1]->old.len > pos[i]->at) {
			tool_fail(r, "overlap", "edits[%zu] and edits[%zu] "
			    "overlap in %s. Merge them into one edit or target "
			    "disjoint regions.", pos[i - 1]->idx < pos[i]->idx ?
			    pos[i - 1]->idx : pos[i]->idx, pos[i - 1]->idx <
			    pos[i]->idx ? pos[i]->idx : pos[i - 1]->idx, given);
			goto out;
		}
	for (i = 0, at = 0; i < ned; i++) {
		(void)buf_add(&res, base.data + at, pos[i]->at - at);
		(void)buf_add(&res, pos[i]->new.data, pos[i]->new.len);
		at = pos[i]->at + pos[i]->old.len;
		ch[i] = (struct udiff_change){ pos[i]->at, pos[i]->old.len,
		    pos[i]->new.len };
	}
	if (buf_add(&res, base.data + at, base.len - at) == -1) {
		tool_fail(r, "too_large", "The edited %s would be too large.",
		    given);
		goto out;
	}
	if (res.len == base.len && memcmp(res.data, base.data, res.len) == 0) {
		tool_fail(r, "no_change", "No changes made to %s. The "
		    "replacements produced identical content: each new_text "
		    "equals its old_text.", given);
		goto out;
	}
	first = udiff_append(&diff, given, base.data, base.len, res.data,
	    res.len, ch, ned);
	if (bom)
		(void)buf_add(&out, "\xef\xbb\xbf", 3);
	for (i = 0, at = 0; crlf && i < res.len; i++)
		if (res.data[i] == '\n') {
			(void)buf_add(&out, res.data + at, i - at);
			(void)buf_add(&out, "\r\n", 2);
			at = i + 1;
		}
	(void)buf_add(&out, res.data + at, res.len - at);
	if (write_back(path, given, &out, &raw, r) == -1)
		goto out;
	add_result(r, given, ned, &diff, first, lim);
out:
	for (i = 0; ed != NULL && i < ned; i++) {
		buf_release(&ed[i].old);
		buf_release(&ed[i].new);
	}
	free(ed);
	free(pos);
	free(ch);
	free(path);
	buf_release(&raw);
	buf_release(&base);
	buf_release(&res);
	buf_release(&out);
	buf_release(&diff);
	return 0;
}
