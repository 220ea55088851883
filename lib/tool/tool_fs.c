/*
 * tool_fs: read and write (see tools.h), as pi's read.ts and write.ts.
 * read streams through a file with a bounded buffer, keeping only the
 * lines it will show while it counts the rest, so a file of any size
 * costs at most the output limit in memory.
 */
#include "tools.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truncate.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

#define READ_CHUNK	(64u << 10)
#define SNIFF_BYTES	8192		/* git's rule: a NUL here is binary */
#define IMAGE_MAX	(5u << 20)	/* what we send without resizing */

static size_t
max_lines(const struct tool_limits *lim)
{
	return lim && lim->max_lines ? lim->max_lines : TRUNCATE_MAX_LINES;
}

/* read: the walk through the text, line by line. */
struct walk {
	size_t start, limit;	/* selected: lines start.. (limit 0: all) */
	size_t line;		/* number of the current line */
	size_t len;		/* its bytes so far */
	size_t first_len;	/* bytes of the first selected line */
	int storing;		/* the current line may still be shown */
	struct buf cur;		/* the current line, while storing */
	struct buf san;		/* scratch for utf8_sanitize */
	struct buf text;	/* what will be shown */
	struct truncation t;
};

static int
selected(const struct walk *w)
{
	return w->line >= w->start && (w->limit == 0 ||
	    w->line - w->start < w->limit);
}

/* What the current line may take and still be shown. */
static size_t
room(const struct walk *w)
{
	size_t used = w->t.output_bytes + (w->t.output_lines > 0);

	return used > w->t.max_bytes ? 0 : w->t.max_bytes - used;
}

static void
start_line(struct walk *w)
{
	w->len = 0;
	buf_reset(&w->cur);
	w->storing = selected(w) && !w->t.truncated &&
	    w->t.output_bytes + (w->t.output_lines > 0) <= w->t.max_bytes;
}

static void
end_line(struct walk *w)
{
	if (selected(w)) {
		if (w->line == w->start)
			w->first_len = w->len;
		if (!w->storing)
			(void)truncate_head_line(&w->t, w->len);
		else {
			/* pi counts the bytes of the decoded text. */
			buf_reset(&w->san);
			(void)utf8_sanitize(&w->san, w->cur.data, w->cur.len);
			if (truncate_head_line(&w->t, w->san.len) &&
			    ((w->t.output_lines > 1 &&
			    buf_addc(&w->text, '\n') == -1) ||
			    buf_add(&w->text, w->san.data, w->san.len) == -1))
				w->t.truncated = 1;	/* cannot happen */
		}
	}
	w->line++;
	start_line(w);
}

static void
feed(struct walk *w, const char *p, size_t n)
{
	const char *q, *end = p + n;
	size_t seg;

	while (p < end) {
		q = memchr(p, '\n', (size_t)(end - p));
		seg = (size_t)((q ? q : end) - p);
		if (w->storing && (seg > room(w) - w->cur.len ||
		    buf_add(&w->cur, p, seg) == -1)) {
			/* Longer than what is left: it will not be shown. */
			w->storing = 0;
			buf_release(&w->cur);
		}
		w->len += seg;
		if (q == NULL)
			break;
		end_line(w);
		p = q + 1;
	}
}

static const char *
image_type(const unsigned char *p, size_t n)
{
	if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
		return "image/png";
	if (n >= 3 && memcmp(p, "\xff\xd8\xff", 3) == 0)
		return "image/jpeg";
	if (n >= 6 && (memcmp(p, "GIF87a", 6) == 0 ||
	    memcmp(p, "GIF89a", 6) == 0))
		return "image/gif";
	if (n >= 12 && memcmp(p, "RIFF", 4) == 0 &&
	    memcmp(p + 8, "WEBP", 4) == 0)
		return "image/webp";
	return NULL;
}

/* read(2) that retries on EINTR. */
static ssize_t
read_some(int fd, void *p, size_t n)
{
	ssize_t k;

	while ((k = read(fd, p, n)) == -1 && errno == EINTR)
		;
	return k;
}

static int
read_image(int fd, const char *given, const char *mime, const char *head,
    size_t n, off_t size, struct tool_result *r)
{
	struct json_object *blk;
	struct buf img;
	char tmp[READ_CHUNK], sz[FORMAT_SIZE_LEN], lim[FORMAT_SIZE_LEN];
	char *b64;
	ssize_t k;

	buf_init(&img, IMAGE_MAX);
	k = size > (off_t)IMAGE_MAX || buf_add(&img, head, n) == -1 ? -2 : 1;
	while (k > 0 && (k = read_some(fd, tmp, sizeof(tmp))) > 0)
		if (buf_add(&img, tmp, (size_t)k) == -1)
			k = -2;
	if (k == -1) {
		buf_release(&img);
		return tool_fail(r, "io_error", "Cannot read %s: %s.", given,
		    strerror(errno));
	}
	if (k == -2) {
		buf_release(&img);
		return tool_fail(r, "too_large", "%s is an image of %s, over "
		    "the %s that read sends; pi-tool does not resize images. "
		    "Make a smaller copy first (for example with ImageMagick: "
		    "convert %s -resize 2000x2000 small.png) and read that.",
		    given, format_size(sz, (unsigned long long)size),
		    format_size(lim, IMAGE_MAX), given);
	}
	b64 = pi_base64(img.data, img.len);
	buf_release(&img);
	(void)buf_addf(&r->output, "Read image file [%s]", mime);
	r->content = json_object_new_array();
	blk = json_object_new_object();
	jsonx_set_str(blk, "type", "text");
	jsonx_set_str(blk, "text", r->output.data);
	json_object_array_add(r->content, blk);
	blk = json_object_new_object();
	jsonx_set_str(blk, "type", "image");
	jsonx_set(blk, "data", json_object_new_string(b64));
	jsonx_set_str(blk, "mimeType", mime);
	json_object_array_add(r->content, blk);
	free(b64);
	return 0;
}

/* A path for the hint's shell command, quoted only when it must be. */
static void
add_shell_word(struct buf *b, const char *s)
{
	const char *p;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
	    "nopqrstuvwxyz0123456789_-./@%+=:,~") == strlen(s)) {
		(void)buf_adds(b, s);
		return;
	}
	(void)buf_addc(b, '\'');
	for (p = s; *p; p++)
		(void)(*p == '\'' ? buf_adds(b, "'\\''") : buf_addc(b, *p));
	(void)buf_addc(b, '\'');
}

/* The text and pi's notices, once the walk reached the end. */
static int
read_result(struct walk *w, const char *given, long long offset,
    const struct tool_limits *lim, struct tool_result *r)
{
	struct truncation *t = &w->t;
	size_t total = w->line - 1, last;
	char sz[FORMAT_SIZE_LEN], limsz[FORMAT_SIZE_LEN];

	if (w->start > total)
		return tool_fail(r, "offset_beyond_end", "Offset %lld is "
		    "beyond end of file (%zu lines total)", offset, total);
	format_size(limsz, tool_max_bytes(lim));
	if (t->first_line_exceeds_limit) {
		(void)buf_addf(&r->output, "[Line %zu is %s, exceeds %s limit. "
		    "Use bash: sed -n '%zup' ", w->start,
		    format_size(sz, w->first_len), limsz, w->start);
		add_shell_word(&r->output, given);
		(void)buf_addf(&r->output, " | head -c %zu]",
		    tool_max_bytes(lim));
	} else if (t->truncated) {
		last = w->start + t->output_lines - 1;
		(void)buf_add(&r->output, w->text.data, w->text.len);
		if (t->by == TRUNCATE_LINES)
			(void)buf_addf(&r->output, "\n\n[Showing lines %zu-%zu "
			    "of %zu. Use offset=%zu to continue.]", w->start,
			    last, total, last + 1);
		else
			(void)buf_addf(&r->output, "\n\n[Showing lines %zu-%zu "
			    "of %zu (%s limit). Use offset=%zu to continue.]",
			    w->start, last, total, limsz, last + 1);
	} else if (total == 1 && w->first_len == 0)
		(void)buf_adds(&r->output, "(empty file)");
	else {
		(void)buf_add(&r->output, w->text.data, w->text.len);
		if (w->limit && w->start - 1 + w->limit < total)
			(void)buf_addf(&r->output, "\n\n[%zu more lines in "
			    "file. Use offset=%zu to continue.]", total -
			    (w->start - 1 + w->limit), w->start + w->limit);
	}
	if (t->truncated) {
		r->truncated = 1;
		r->details = tool_truncation_json(t);
	}
	return 0;
}

/* Open path for reading, or fail r; a FIFO must not block us. */
static int
open_file(const char *path, const char *given, struct stat *st,
    struct tool_result *r)
{
	int fd, e;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		e = errno;
		if (e == ENOENT || e == ENOTDIR)
			tool_fail(r, "not_found", "File not found: %s", given);
		else if (e == EACCES || e == EPERM)
			tool_fail(r, "permission_denied", "Cannot read %s: "
			    "permission denied (by the file's mode or by the "
			    "sandbox).", given);
		else if (e == ENXIO)
			tool_fail(r, "not_a_file", "%s is not a regular file "
			    "(a socket?); read only reads files.", given);
		else
			tool_fail(r, "io_error", "Cannot read %s: %s.", given,
			    strerror(e));
		return -1;
	}
	if (fstat(fd, st) == -1)
		tool_fail(r, "io_error", "Cannot read %s: %s.", given,
		    strerror(errno));
	else if (S_ISDIR(st->st_mode))
		tool_fail(r, "is_directory", "%s is a directory, not a file. "
		    "Use ls to list it.", given);
	else if (!S_ISREG(st->st_mode))
		tool_fail(r, "not_a_file", "%s is not a regular file (a FIFO, "
		    "socket or device); read only reads files.", given);
	else
		return fd;
	close(fd);
	return -1;
}

int
tool_read(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	const char *given = jsonx_str(in, "file_path"), *mime;
	struct walk w;
	struct stat st;
	char *path, *chunk;
	long long offset, limit;
	size_t n = 0;
	ssize_t k = 1;
	int fd;

	if (given == NULL)
		return tool_fail(r, "invalid_arguments", "read needs "
		    "file_path, the path of the file to read.");
	if ((offset = tool_arg_count(in, "offset", r)) == -1 ||
	    (limit = tool_arg_count(in, "limit", r)) == -1 ||
	    (path = tool_arg_path(in, "file_path", NULL, r)) == NULL)
		return 0;
	fd = open_file(path, given, &st, r);
	free(path);
	if (fd == -1)
		return 0;
	chunk = xmalloc(READ_CHUNK);
	while (n < SNIFF_BYTES && (k = read_some(fd, chunk + n,
	    READ_CHUNK - n)) > 0)
		n += (size_t)k;
	if (k == -1) {
		tool_fail(r, "io_error", "Cannot read %s: %s.", given,
		    strerror(errno));
		goto out;
	}
	if ((mime = image_type((unsigned char *)chunk, n)) != NULL) {
		read_image(fd, given, mime, chunk, n, st.st_size, r);
		goto out;
	}
	if (memchr(chunk, '\0', n < SNIFF_BYTES ? n : SNIFF_BYTES) != NULL) {
		tool_fail(r, "binary_file", "%s is a binary file (it has a NUL "
		    "byte in its first 8 KiB); read only shows text. Use "
		    "bash instead, e.g. file %s, or xxd %s | head -50.",
		    given, given, given);
		goto out;
	}
	memset(&w, 0, sizeof(w));
	w.start = offset ? (size_t)offset : 1;
	w.limit = (size_t)limit;
	w.line = 1;
	buf_init(&w.cur, tool_max_bytes(lim) + 1);
	buf_init(&w.san, 3 * tool_max_bytes(lim) + 4);
	buf_init(&w.text, tool_max_bytes(lim) + 1);
	truncate_init(&w.t, max_lines(lim), tool_max_bytes(lim));
	start_line(&w);
	feed(&w, chunk, n);
	while (k > 0 && (k = read_some(fd, chunk, READ_CHUNK)) > 0)
		feed(&w, chunk, (size_t)k);
	if (k == -1)
		tool_fail(r, "io_error", "Cannot read %s: %s.", given,
		    strerror(errno));
	else {
		end_line(&w);
		read_result(&w, given, offset, lim, r);
	}
	buf_release(&w.cur);
	buf_release(&w.san);
	buf_release(&w.text);
out:
	free(chunk);
	close(fd);
	return 0;
}

/* Write all of p, through short writes and signals. */
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

static int
write_fail(struct tool_result *r, const char *given, int e)
{
	if (e == EROFS)
		return tool_fail(r, "read_only", "Cannot write %s: it is "
		    "outside the sandbox's writable paths (read-only file "
		    "system). Write inside the workspace instead.", given);
	if (e == EACCES || e == EPERM)
		return tool_fail(r, "permission_denied", "Cannot write %s: "
		    "permission denied (by the file's mode or by the "
		    "sandbox).", given);
	if (e == EISDIR)
		return tool_fail(r, "is_directory", "Cannot write %s: it is a "
		    "directory. Give the path of a file.", given);
	if (e == ENOTDIR || e == ENOENT)
		return tool_fail(r, "not_a_directory", "Cannot write %s: a "
		    "part of its directory path is a file, not a directory.",
		    given);
	if (e == ENXIO)
		return tool_fail(r, "not_a_file", "Cannot write %s: it is not "
		    "a regular file (a FIFO, socket or device).", given);
	return tool_fail(r, "io_error", "Cannot write %s: %s.", given,
	    strerror(e));
}

/* mkdir -p of the directories above path's last component. */
static int
make_parents(char *path)
{
	struct stat st;
	char *q;
	int e;

	if (*path == '\0')
		return 0;
	for (q = path + 1; (q = strchr(q, '/')) != NULL; q++) {
		if (q[-1] == '/')
			continue;
		*q = '\0';
		e = mkdir(path, 0777) == -1 ? errno : 0;
		/* An existing directory may refuse mkdir with any error. */
		if (e != 0 && e != EEXIST && stat(path, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			e = 0;
		*q = '/';
		if (e != 0 && e != EEXIST) {
			errno = e;
			return -1;
		}
	}
	return 0;
}

int
tool_write(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	const char *given = jsonx_str(in, "file_path");
	struct json_object *c = jsonx_get(in, "content");
	struct stat st;
	const char *data;
	char *path;
	size_t n;
	int fd, e = 0;

	(void)lim;
	if (given == NULL || !jsonx_is(c, json_type_string))
		return tool_fail(r, "invalid_arguments", "write needs "
		    "file_path and content, both strings.");
	if ((path = tool_arg_path(in, "file_path", NULL, r)) == NULL)
		return 0;
	data = json_object_get_string(c);
	n = (size_t)json_object_get_string_len(c);
	if (make_parents(path) == -1) {
		e = errno;
		free(path);
		return write_fail(r, given, e);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC, 0666);
	free(path);
	if (fd == -1)
		return write_fail(r, given, errno);
	if (fstat(fd, &st) == -1)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = ENXIO;
	else if (fcntl(fd, F_SETFL, 0) == -1 || write_all(fd, data, n) == -1)
		e = errno;
	if (close(fd) == -1 && e == 0)
		e = errno;
	if (e != 0)
		return write_fail(r, given, e);
	(void)buf_addf(&r->output, "Successfully wrote %zu bytes to %s", n,
	    given);
	return 0;
}
