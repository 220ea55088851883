/*
 * tools_fs: read, write, ls and edit, run in a fresh temporary
 * directory, with pi's exact notices and error messages.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "tool/tools.h"

static const struct tool_limits deflim = { 51200, 2000 };
static struct tool_result r;

static void
put(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1 || write(fd, data, n) != (ssize_t)n || close(fd) == -1)
		diag("cannot write fixture %s: %s", path, strerror(errno));
}

static void
puts_file(const char *path, const char *s)
{
	put(path, s, strlen(s));
}

/* The file's contents, NUL-terminated; "" when missing. */
static char *
get(const char *path)
{
	struct buf b;
	char tmp[4096];
	ssize_t k;
	int fd;

	buf_init(&b, 1u << 26);
	if ((fd = open(path, O_RDONLY)) != -1) {
		while ((k = read(fd, tmp, sizeof(tmp))) > 0)
			buf_add(&b, tmp, (size_t)k);
		close(fd);
	}
	return buf_detach(&b, NULL);
}

static int
run(int (*fn)(struct json_object *, const struct tool_limits *,
    struct tool_result *), const struct tool_limits *lim, const char *json)
{
	struct json_object *in = jsonx_parse(json, strlen(json), NULL);
	int rc;

	if (in == NULL)
		diag("bad test JSON: %s", json);
	tool_result_release(&r);
	rc = fn(in, lim, &r);
	json_object_put(in);
	return rc;
}

#define ok_run(fn, json, code, want, name) do { \
	is_int(run(fn, &deflim, json), 0, name ": returns 0"); \
	is_str(r.error_code, code, name ": code"); \
	is_str(r.output.data, want, name); \
} while (0)

static void
rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	char *sub;
	DIR *d;

	if (lstat(path, &st) == -1)
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path)) != NULL) {
		chmod(path, 0700);
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			sub = xasprintf("%s/%s", path, de->d_name);
			rm_rf(sub);
			free(sub);
		}
		closedir(d);
		rmdir(path);
	} else
		unlink(path);
}

/* "line 1\n" .. "line n\n" */
static void
put_lines(const char *path, size_t n)
{
	struct buf b;
	size_t i;

	buf_init(&b, 1u << 26);
	for (i = 1; i <= n; i++)
		buf_addf(&b, "line %zu\n", i);
	put(path, b.data, b.len);
	buf_release(&b);
}

static void
test_path(void)
{
	const char *want;
	char *p;

	setenv("HOME", "/home/u", 1);
	p = tool_path("@src/a.c");
	is_str(p, "src/a.c", "path: leading @ dropped");
	free(p);
	p = tool_path("~");
	is_str(p, "/home/u", "path: ~");
	free(p);
	p = tool_path("@~/x y");
	is_str(p, "/home/u/x y", "path: @~/");
	free(p);
	p = tool_path("~x/y");
	is_str(p, "~x/y", "path: ~user is left alone");
	free(p);
	p = tool_path("a\xc2\xa0" "b\xe2\x80\x80" "c\xe2\x80\x8a"
	    "d\xe2\x80\xaf" "e\xe2\x81\x9f" "f\xe3\x80\x80" "g\xe2\x80\x8b");
	want = "a b c d e f g\xe2\x80\x8b";
	is_str(p, want, "path: Unicode spaces made plain, U+200B kept");
	free(p);
}

/*
 * A path no file can have is an argument error, before any file is
 * touched: write with "" used to read past the end of the string.
 */
static void
test_bad_paths(void)
{
	static const struct {
		int (*fn)(struct json_object *, const struct tool_limits *,
		    struct tool_result *);
		const char *name, *key, *rest;
	} tools[] = {
		{ tool_read, "read", "file_path", "" },
		{ tool_write, "write", "file_path", ",\"content\":\"x\"" },
		{ tool_edit, "edit", "file_path", ",\"edits\":[{\"old_text\":"
		    "\"a\",\"new_text\":\"b\"}]" },
		{ tool_ls, "ls", "path", "" },
		{ tool_grep, "grep", "path", ",\"pattern\":\"x\"" },
		{ tool_find, "find", "path", ",\"pattern\":\"x\"" },
	};
	static const char *const bad[] = {
		"\"\"", "\"@\"", "\"\\u0000\"", "\"@\\u0000\"",
		"\"bad\\u0000name\"", "\"dir/\\u0000\"", "5", "null",
	};
	struct buf big;
	char *json, *name;
	size_t i, j;
	int optional;

	buf_init(&big, 1u << 20);
	(void)buf_adds(&big, "\"");
	for (i = 0; i < 4200; i++)
		(void)buf_adds(&big, i % 100 == 99 ? "/" : "x");
	(void)buf_adds(&big, "\"");
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		optional = strcmp(tools[i].key, "path") == 0;
		for (j = 0; j <= sizeof(bad) / sizeof(bad[0]); j++) {
			/* "" and null are the workspace where the path is
			 * optional (a model may send either for "none"). */
			if (optional && (j == 0 || (j < sizeof(bad) /
			    sizeof(bad[0]) && strcmp(bad[j], "null") == 0)))
				continue;
			json = xasprintf("{\"%s\":%s%s}", tools[i].key,
			    j < sizeof(bad) / sizeof(bad[0]) ? bad[j] :
			    big.data, tools[i].rest);
			name = xasprintf("%s: %s %.20s", tools[i].name,
			    tools[i].key, j < sizeof(bad) / sizeof(bad[0]) ?
			    bad[j] : "of 4200 bytes");
			is_int(run(tools[i].fn, &deflim, json), 0, name);
			is_str(r.error_code, "invalid_arguments", name);
			free(json);
			free(name);
		}
	}
	buf_release(&big);
	ok(access("bad", F_OK) == -1 && access("dir", F_OK) == -1,
	    "bad paths: nothing was made");
	ok_run(tool_write, "{\"file_path\":\"\\u0000\",\"content\":\"x\"}",
	    "invalid_arguments", "file_path has a NUL character (\\u0000) at "
	    "byte 0; a path cannot hold one.", "write: NUL, said so");
	ok_run(tool_write, "{\"file_path\":\"@\",\"content\":\"x\"}",
	    "invalid_arguments", "file_path is \"@\" alone; give the path "
	    "of a file or directory.", "write: @ alone, said so");
	ok_run(tool_read, "{\"file_path\":\"\"}", "invalid_arguments",
	    "file_path is empty; give the path of a file or directory.",
	    "read: empty, said so");
	mkdir("n", 0755);
	name = xasprintf("{\"file_path\":\"n/%0300d\",\"content\":\"x\"}",
	    0);
	is_int(run(tool_write, &deflim, name), 0, "write: a 300-byte name");
	is_str(r.output.data, "file_path has a name of 300 bytes; a name has "
	    "at most 255.", "write: a 300-byte name, said so");
	free(name);
	ok_run(tool_ls, "{\"path\":\"\"}", NULL, "n/", "ls: \"\" is the "
	    "workspace");
}

static void
test_read_text(void)
{
	struct buf want;
	char *big;
	size_t i;
	struct tool_limits small = { 1024, 10 };

	puts_file("small.txt", "a\nb\n");
	ok_run(tool_read, "{\"file_path\":\"small.txt\"}", NULL, "a\nb\n",
	    "read: raw text, no line numbers");
	is_int(r.truncated, 0, "read: small is not truncated");
	ok(r.details == NULL && r.content == NULL, "read: no details");

	puts_file("empty.txt", "");
	ok_run(tool_read, "{\"file_path\":\"empty.txt\"}", NULL,
	    "(empty file)", "read: empty file");

	put_lines("3000.txt", 3000);
	run(tool_read, &deflim, "{\"file_path\":\"3000.txt\"}");
	buf_init(&want, 1u << 20);
	for (i = 1; i <= 2000; i++)
		buf_addf(&want, "line %zu%s", i, i < 2000 ? "\n" : "");
	buf_adds(&want, "\n\n[Showing lines 1-2000 of 3001. Use offset=2001 "
	    "to continue.]");
	is_str(r.output.data, want.data, "read: 2000-line notice (pi counts "
	    "the empty line after the last newline)");
	ok(r.truncated && r.error_code == NULL, "read: truncated flag");
	is_str(jsonx_str(jsonx_obj(r.details, "truncation"), "truncatedBy"),
	    "lines", "read: details.truncation.truncatedBy");
	is_int(jsonx_int(jsonx_obj(r.details, "truncation"), "totalLines", 0),
	    3001, "read: details.truncation.totalLines");

	run(tool_read, &deflim, "{\"file_path\":\"3000.txt\",\"offset\":2001}");
	buf_reset(&want);
	for (i = 2001; i <= 3000; i++)
		buf_addf(&want, "line %zu\n", i);
	is_str(r.output.data, want.data, "read: offset to the end");
	ok(!r.truncated, "read: rest not truncated");

	ok_run(tool_read, "{\"file_path\":\"3000.txt\",\"offset\":10,"
	    "\"limit\":5}", NULL, "line 10\nline 11\nline 12\nline 13\n"
	    "line 14\n\n[2987 more lines in file. Use offset=15 to continue.]",
	    "read: offset and limit notice");
	ok_run(tool_read, "{\"file_path\":\"3000.txt\",\"offset\":3002}",
	    "offset_beyond_end", "Offset 3002 is beyond end of file (3001 "
	    "lines total)", "read: offset beyond end");
	run(tool_read, &small, "{\"file_path\":\"3000.txt\",\"offset\":3,"
	    "\"limit\":20}");
	is_str(r.output.data, "line 3\nline 4\nline 5\nline 6\nline 7\n"
	    "line 8\nline 9\nline 10\nline 11\nline 12\n\n[Showing lines 3-12 "
	    "of 3001. Use offset=13 to continue.]", "read: lim.max_lines used");

	/* 100 lines of 999 bytes: 51 fit in 51200 bytes. */
	big = xmalloc(100 * 1000 + 1);
	for (i = 0; i < 100; i++) {
		memset(big + i * 1000, 'a' + (int)(i % 26), 999);
		big[i * 1000 + 999] = '\n';
	}
	put("wide.txt", big, 100 * 1000);
	run(tool_read, &deflim, "{\"file_path\":\"wide.txt\"}");
	ok(r.output.len == 50999 + strlen("\n\n[Showing lines 1-51 of 101 "
	    "(50.0KB limit). Use offset=52 to continue.]") &&
	    strcmp(r.output.data + 50999, "\n\n[Showing lines 1-51 of 101 "
	    "(50.0KB limit). Use offset=52 to continue.]") == 0 &&
	    memcmp(r.output.data, big, 50999) == 0,
	    "read: byte-limit notice after 51 whole lines");
	is_str(jsonx_str(jsonx_obj(r.details, "truncation"), "truncatedBy"),
	    "bytes", "read: truncatedBy bytes");
	free(big);

	/* One line of 60 KiB, then a short one. */
	big = xmalloc(61440 + 7);
	memset(big, 'x', 61440);
	memcpy(big + 61440, "\nshort\n", 7);
	put("long line.txt", big, 61440 + 7);
	free(big);
	ok_run(tool_read, "{\"file_path\":\"long line.txt\"}", NULL,
	    "[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' "
	    "'long line.txt' | head -c 51200]", "read: a line over the limit");
	ok(r.truncated, "read: long line marks truncated");
	ok_run(tool_read, "{\"file_path\":\"long line.txt\",\"offset\":2}",
	    NULL, "short\n", "read: the line after it");
	run(tool_read, &small, "{\"file_path\":\"long line.txt\"}");
	is_str(r.output.data, "[Line 1 is 60.0KB, exceeds 1.0KB limit. Use "
	    "bash: sed -n '1p' 'long line.txt' | head -c 1024]",
	    "read: the figures come from lim");

	put("latin1.txt", "caf\xe9\n", 5);
	ok_run(tool_read, "{\"file_path\":\"latin1.txt\"}", NULL,
	    "caf\xef\xbf\xbd\n", "read: invalid UTF-8 becomes U+FFFD");
	puts_file("my file.txt", "spaced\n");
	ok_run(tool_read, "{\"file_path\":\"@my\xc2\xa0" "file.txt\"}", NULL,
	    "spaced\n", "read: the path goes through tool_path");
	buf_release(&want);
}

static void
test_read_images(void)
{
	static const struct {
		const char *name, *data, *mime;
		size_t n;
	} img[] = {
		{ "png.txt", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png", 16 },
		{ "jpeg.bin", "\xff\xd8\xff\xe0\0\x10JFIF", "image/jpeg", 10 },
		{ "gif87", "GIF87a\x01\0\x01\0", "image/gif", 10 },
		{ "gif89.png", "GIF89a\x01\0\x01\0", "image/gif", 10 },
		{ "webp", "RIFF\x24\0\0\0WEBPVP8 ", "image/webp", 16 },
	};
	struct json_object *c;
	char *b64, *want;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(img) / sizeof(img[0]); i++) {
		put(img[i].name, img[i].data, img[i].n);
		want = xasprintf("{\"file_path\":\"%s\"}", img[i].name);
		run(tool_read, &deflim, want);
		free(want);
		want = xasprintf("Read image file [%s]", img[i].mime);
		is_str(r.output.data, want, img[i].name);
		c = r.content;
		b64 = pi_base64(img[i].data, img[i].n);
		ok(json_object_array_length(c) == 2 &&
		    strcmp(jsonx_str(json_object_array_get_idx(c, 0), "type"),
		    "text") == 0 &&
		    strcmp(jsonx_str(json_object_array_get_idx(c, 0), "text"),
		    want) == 0 &&
		    strcmp(jsonx_str(json_object_array_get_idx(c, 1), "type"),
		    "image") == 0 &&
		    strcmp(jsonx_str(json_object_array_get_idx(c, 1),
		    "mimeType"), img[i].mime) == 0 &&
		    strcmp(jsonx_str(json_object_array_get_idx(c, 1), "data"),
		    b64) == 0, "%s: text and image blocks", img[i].name);
		free(b64);
		free(want);
	}
	b64 = pi_base64("Man", 3);
	is_str(b64, "TWFu", "base64: three bytes");
	free(b64);
	b64 = pi_base64("Ma", 2);
	is_str(b64, "TWE=", "base64: two bytes");
	free(b64);
	b64 = pi_base64("M", 1);
	is_str(b64, "TQ==", "base64: one byte");
	free(b64);

	put("wave", "RIFF\x24\0\0\0WAVEfmt ", 16);
	run(tool_read, &deflim, "{\"file_path\":\"wave\"}");
	is_str(r.error_code, "binary_file", "read: RIFF but not WEBP");

	/* Just over 5 MiB: a sparse file is enough. */
	put("huge.png", "\x89PNG\r\n\x1a\n", 8);
	fd = open("huge.png", O_WRONLY);
	ok(fd != -1 && ftruncate(fd, (5 << 20) + 1) == 0 && close(fd) == 0,
	    "huge image made");
	run(tool_read, &deflim, "{\"file_path\":\"huge.png\"}");
	is_str(r.error_code, "too_large", "read: image over 5 MiB");
	ok(strstr(r.output.data, "does not resize images") != NULL &&
	    r.content == NULL, "read: says it does not resize");
}

static void
test_read_errors(void)
{
	put("bin", "abc\0def", 7);
	ok_run(tool_read, "{\"file_path\":\"bin\"}", "binary_file",
	    "bin is a binary file (it has a NUL byte in its first 8 KiB); "
	    "read only shows text. Use bash instead, e.g. file bin, or "
	    "xxd bin | head -50.", "read: binary refused");
	ok_run(tool_read, "{\"file_path\":\"nope.txt\"}", "not_found",
	    "File not found: nope.txt", "read: missing");
	ok_run(tool_read, "{\"file_path\":\"small.txt/x\"}", "not_found",
	    "File not found: small.txt/x", "read: under a file");
	mkdir("sub", 0755);
	ok_run(tool_read, "{\"file_path\":\"sub\"}", "is_directory",
	    "sub is a directory, not a file. Use ls to list it.",
	    "read: a directory");
	ok(mkfifo("fifo", 0644) == 0, "fifo made");
	alarm(10);	/* a FIFO that blocks fails the test, never hangs it */
	ok_run(tool_read, "{\"file_path\":\"fifo\"}", "not_a_file",
	    "fifo is not a regular file (a FIFO, socket or device); read "
	    "only reads files.", "read: FIFO refused without blocking");
	ok_run(tool_write, "{\"file_path\":\"fifo\",\"content\":\"x\"}",
	    "not_a_file", "Cannot write fifo: it is not a regular file (a "
	    "FIFO, socket or device).", "write: FIFO refused without "
	    "blocking");
	alarm(0);
	ok_run(tool_read, "{\"file_path\":5}", "invalid_arguments",
	    "read needs file_path, the path of the file to read.",
	    "read: file_path not a string");
	ok_run(tool_read, "{\"file_path\":\"small.txt\",\"offset\":\"x\"}",
	    "invalid_arguments", "offset must be a whole number of at least 1.",
	    "read: offset not a number");
	if (geteuid() != 0) {
		puts_file("secret", "s\n");
		chmod("secret", 0);
		run(tool_read, &deflim, "{\"file_path\":\"secret\"}");
		is_str(r.error_code, "permission_denied", "read: EACCES");
	} else
		ok(1, "# skip EACCES: running as root");
}

static void
test_write(void)
{
	char *s;
	struct stat st;

	ok_run(tool_write, "{\"file_path\":\"w/x/y/new.txt\",\"content\":"
	    "\"h\\u00e9llo\\n\"}", NULL, "Successfully wrote 7 bytes to "
	    "w/x/y/new.txt", "write: nested directories, bytes of UTF-8");
	s = get("w/x/y/new.txt");
	is_str(s, "h\xc3\xa9llo\n", "write: content");
	free(s);
	chmod("w/x/y/new.txt", 0600);
	ok_run(tool_write, "{\"file_path\":\"w/x/y/new.txt\",\"content\":"
	    "\"ab\"}", NULL, "Successfully wrote 2 bytes to w/x/y/new.txt",
	    "write: overwrite");
	s = get("w/x/y/new.txt");
	is_str(s, "ab", "write: truncated to the new content");
	free(s);
	ok(stat("w/x/y/new.txt", &st) == 0 && (st.st_mode & 0777) == 0600,
	    "write: in place, mode kept");
	ok(symlink("w/x/y/new.txt", "wlink") == 0, "symlink made");
	ok_run(tool_write, "{\"file_path\":\"wlink\",\"content\":\"via\"}",
	    NULL, "Successfully wrote 3 bytes to wlink", "write: via symlink");
	s = get("w/x/y/new.txt");
	ok(strcmp(s, "via") == 0 && lstat("wlink", &st) == 0 &&
	    S_ISLNK(st.st_mode), "write: follows the link, as >");
	free(s);
	ok_run(tool_write, "{\"file_path\":\"w/x\",\"content\":\"\"}",
	    "is_directory", "Cannot write w/x: it is a directory. Give the "
	    "path of a file.", "write: a directory");
	ok_run(tool_write, "{\"file_path\":\"w/x/y/new.txt/z/f\",\"content\":"
	    "\"\"}", "not_a_directory", "Cannot write w/x/y/new.txt/z/f: a "
	    "part of its directory path is a file, not a directory.",
	    "write: under a file");
	ok_run(tool_write, "{\"file_path\":\"f\"}", "invalid_arguments",
	    "write needs file_path and content, both strings.",
	    "write: no content");
	ok_run(tool_write, "{\"file_path\":\"empty-w\",\"content\":\"\"}",
	    NULL, "Successfully wrote 0 bytes to empty-w", "write: empty");
}

static void
test_ls(void)
{
	struct tool_limits tiny = { 10, 2000 };
	struct tool_limits tinier = { 5, 2000 };
	char *name;
	int i;

	mkdir("l", 0755);
	mkdir("l/C", 0755);
	mkdir("l/real", 0755);
	puts_file("l/b", "");
	puts_file("l/A", "");
	puts_file("l/a", "");
	puts_file("l/.hidden", "");
	ok(symlink("real", "l/link") == 0 && symlink("gone", "l/dangling") == 0,
	    "links made");
	ok_run(tool_ls, "{\"path\":\"l\"}", NULL,
	    ".hidden\nA\na\nb\nC/\nlink/\nreal/", "ls: sorted, dirs marked, "
	    "a link to a directory too, a dangling link skipped");
	ok_run(tool_ls, "{\"path\":\"l\",\"limit\":2}", NULL,
	    ".hidden\nA\n\n[2 entries limit reached. Use limit=4 for more]",
	    "ls: limit notice");
	ok(r.truncated, "ls: truncated flag");
	is_int(jsonx_int(r.details, "entryLimitReached", 0), 2,
	    "ls: details.entryLimitReached");
	run(tool_ls, &tiny, "{\"path\":\"l\"}");
	is_str(r.output.data, ".hidden\nA\n\n[10B limit reached]",
	    "ls: byte limit notice");
	run(tool_ls, &tinier, "{\"path\":\"l\",\"limit\":2}");
	is_str(r.output.data, "\n\n[2 entries limit reached. Use limit=4 for "
	    "more. 5B limit reached]", "ls: both notices in one bracket");
	mkdir("many", 0755);
	for (i = 30; i-- > 0; ) {
		name = xasprintf("many/f%02d", i);
		puts_file(name, "");
		free(name);
	}
	run(tool_ls, &tiny, "{\"path\":\"many\"}");
	is_str(r.output.data, "f00\nf01\n\n[10B limit reached]",
	    "ls: a big directory, few held, the first shown");
	ok_run(tool_ls, "{\"path\":\"many\",\"limit\":3}", NULL,
	    "f00\nf01\nf02\n\n[3 entries limit reached. Use limit=6 for more]",
	    "ls: a big directory, limit 3");
	mkdir("l/real/e", 0755);
	ok_run(tool_ls, "{\"path\":\"l/real/e\"}", NULL, "(empty directory)",
	    "ls: empty");
	ok_run(tool_ls, "{\"path\":\"nope\"}", "not_found",
	    "Path not found: nope", "ls: missing");
	ok_run(tool_ls, "{\"path\":\"l/b\"}", "not_a_directory",
	    "Not a directory: l/b", "ls: a file");
	chdir("l/real");
	ok_run(tool_ls, "{}", NULL, "e/", "ls: default path");
	chdir("../..");
}

static void
test_edit(void)
{
	struct stat st;
	char *s;

	put("crlf.txt", "\xef\xbb\xbfone\r\ntwo\r\nthree\r\n", 20);
	ok_run(tool_edit, "{\"file_path\":\"crlf.txt\",\"edits\":[{"
	    "\"old_text\":\"one\\r\\ntwo\",\"new_text\":\"1\\n2\\nTWO\"}]}",
	    NULL, "Successfully replaced 1 block(s) in crlf.txt.\n\n"
	    "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,4 @@\n-one\n-two\n"
	    "+1\n+2\n+TWO\n three\n", "edit: CRLF file, LF diff");
	s = get("crlf.txt");
	is_str(s, "\xef\xbb\xbf" "1\r\n2\r\nTWO\r\nthree\r\n",
	    "edit: BOM and CRLF restored");
	free(s);

	put_lines("f.txt", 20);
	ok(link("f.txt", "hard.txt") == 0 && chmod("f.txt", 0640) == 0,
	    "hard link made");
	ok_run(tool_edit, "{\"file_path\":\"f.txt\",\"edits\":["
	    "{\"old_text\":\"line 15\",\"new_text\":\"FIFTEEN\"},"
	    "{\"old_text\":\"line 3\\n\",\"new_text\":\"THREE\\n\"}]}", NULL,
	    "Successfully replaced 2 block(s) in f.txt.\n\n"
	    "--- a/f.txt\n+++ b/f.txt\n"
	    "@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+THREE\n line 4\n"
	    " line 5\n line 6\n"
	    "@@ -12,7 +12,7 @@\n line 12\n line 13\n line 14\n-line 15\n"
	    "+FIFTEEN\n line 16\n line 17\n line 18\n",
	    "edit: two edits, two hunks");
	is_int(jsonx_int(r.details, "firstChangedLine", 0), 3,
	    "edit: firstChangedLine");
	ok(strncmp(jsonx_str(r.details, "diff"), "--- a/f.txt\n", 12) == 0,
	    "edit: details.diff");
	s = get("hard.txt");
	ok(strstr(s, "\nTHREE\n") && strstr(s, "\nFIFTEEN\nline 16\n"),
	    "edit: in place, the hard link sees it");
	free(s);
	ok(stat("f.txt", &st) == 0 && (st.st_mode & 0777) == 0640 &&
	    st.st_nlink == 2, "edit: mode and links kept");

	ok_run(tool_edit, "{\"file_path\":\"f.txt\",\"edits\":["
	    "{\"old_text\":\"line 8\",\"new_text\":\"EIGHT\"},"
	    "{\"old_text\":\"line 2\\n\",\"new_text\":\"\"}]}", NULL,
	    "Successfully replaced 2 block(s) in f.txt.\n\n"
	    "--- a/f.txt\n+++ b/f.txt\n"
	    "@@ -1,11 +1,10 @@\n line 1\n-line 2\n THREE\n line 4\n line 5\n"
	    " line 6\n line 7\n-line 8\n+EIGHT\n line 9\n line 10\n line 11\n",
	    "edit: nearby hunks merged, a deletion");
	ok_run(tool_edit, "{\"file_path\":\"f.txt\",\"edits\":["
	    "{\"old_text\":\"line 4\\nline 5\\nline 6\",\"new_text\":"
	    "\"line 4\\nFIVE\\nline 6\"}]}", NULL,
	    "Successfully replaced 1 block(s) in f.txt.\n\n"
	    "--- a/f.txt\n+++ b/f.txt\n"
	    "@@ -1,7 +1,7 @@\n line 1\n THREE\n line 4\n-line 5\n+FIVE\n"
	    " line 6\n line 7\n EIGHT\n", "edit: unchanged lines trimmed");

	/* Lines sent back unchanged inside old_text are context. */
	put_lines("g.txt", 30);
	ok_run(tool_edit, "{\"file_path\":\"g.txt\",\"edits\":[{\"old_text\":"
	    "\"line 5\\nline 6\\nline 7\\nline 8\\nline 9\\nline 10\\n"
	    "line 11\\nline 12\\nline 13\\nline 14\\nline 15\\n\","
	    "\"new_text\":\"line 5\\nSIX\\nline 7\\nline 8\\nline 9\\n"
	    "line 10\\nline 11\\nline 12\\nline 13\\nFOURTEEN\\n"
	    "line 15\\n\"}]}",
	    NULL,
	    "Successfully replaced 1 block(s) in g.txt.\n\n"
	    "--- a/g.txt\n+++ b/g.txt\n"
	    "@@ -3,7 +3,7 @@\n line 3\n line 4\n line 5\n-line 6\n+SIX\n"
	    " line 7\n line 8\n line 9\n"
	    "@@ -11,7 +11,7 @@\n line 11\n line 12\n line 13\n-line 14\n"
	    "+FOURTEEN\n line 15\n line 16\n line 17\n",
	    "edit: one region, two changes seven lines apart, two hunks");
	is_int(jsonx_int(r.details, "firstChangedLine", 0), 6,
	    "edit: firstChangedLine inside old_text");
	ok_run(tool_edit, "{\"file_path\":\"g.txt\",\"edits\":["
	    "{\"old_text\":\"line 27\",\"new_text\":\"TWENTY-SEVEN\"},"
	    "{\"old_text\":\"line 20\",\"new_text\":\"TWENTY\"}]}", NULL,
	    "Successfully replaced 2 block(s) in g.txt.\n\n"
	    "--- a/g.txt\n+++ b/g.txt\n"
	    "@@ -17,14 +17,14 @@\n line 17\n line 18\n line 19\n-line 20\n"
	    "+TWENTY\n line 21\n line 22\n line 23\n line 24\n line 25\n"
	    " line 26\n-line 27\n+TWENTY-SEVEN\n line 28\n line 29\n line 30\n",
	    "edit: changes six lines apart share a hunk");

	puts_file("nonl", "a\nb");
	ok_run(tool_edit, "{\"file_path\":\"nonl\",\"edits\":[{\"old_text\":"
	    "\"b\",\"new_text\":\"c\"}]}", NULL,
	    "Successfully replaced 1 block(s) in nonl.\n\n"
	    "--- a/nonl\n+++ b/nonl\n@@ -1,2 +1,2 @@\n a\n-b\n"
	    "\\ No newline at end of file\n+c\n"
	    "\\ No newline at end of file\n", "edit: no newline at end");
	ok_run(tool_edit, "{\"file_path\":\"nonl\",\"edits\":[{\"old_text\":"
	    "\"c\",\"new_text\":\"c\\n\"}]}", NULL,
	    "Successfully replaced 1 block(s) in nonl.\n\n"
	    "--- a/nonl\n+++ b/nonl\n@@ -1,2 +1,2 @@\n a\n-c\n"
	    "\\ No newline at end of file\n+c\n", "edit: newline added");

	puts_file("o.txt", "abcdef\n");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\",\"edits\":["
	    "{\"old_text\":\"abcd\",\"new_text\":\"x\"},"
	    "{\"old_text\":\"cdef\",\"new_text\":\"y\"}]}", "overlap",
	    "edits[0] and edits[1] overlap in o.txt. Merge them into one edit "
	    "or target disjoint regions.", "edit: overlap");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\",\"edits\":["
	    "{\"old_text\":\"ef\",\"new_text\":\"x\"},"
	    "{\"old_text\":\"abcdef\",\"new_text\":\"y\"}]}", "overlap",
	    "edits[0] and edits[1] overlap in o.txt. Merge them into one edit "
	    "or target disjoint regions.", "edit: overlap, later edit first");
	puts_file("aaa", "aaa\nb\naa\n");
	ok_run(tool_edit, "{\"file_path\":\"aaa\",\"edits\":[{\"old_text\":"
	    "\"aa\",\"new_text\":\"x\"}]}", "ambiguous_match",
	    "Found 3 occurrences of edits[0].old_text in aaa (lines 1, 3). "
	    "The text must be unique: add surrounding lines to make it "
	    "unique.", "edit: overlapping occurrences count");
	puts_file("x12", "x\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\n");
	ok_run(tool_edit, "{\"file_path\":\"x12\",\"edits\":[{\"old_text\":"
	    "\"x\",\"new_text\":\"y\"}]}", "ambiguous_match",
	    "Found 12 occurrences of edits[0].old_text in x12 (lines 1, 2, 3, "
	    "4, 5, 6, 7, 8, 9, 10, ...). The text must be unique: add "
	    "surrounding lines to make it unique.", "edit: ten lines listed");
	puts_file("x12", "x\nx\nx\nx\nx\nx\nx\nx\nx\nx\n");
	ok_run(tool_edit, "{\"file_path\":\"x12\",\"edits\":[{\"old_text\":"
	    "\"x\",\"new_text\":\"y\"}]}", "ambiguous_match",
	    "Found 10 occurrences of edits[0].old_text in x12 (lines 1, 2, 3, "
	    "4, 5, 6, 7, 8, 9, 10). The text must be unique: add "
	    "surrounding lines to make it unique.", "edit: exactly ten");
	puts_file("aaa", "aaa\n");
	ok_run(tool_edit, "{\"file_path\":\"aaa\",\"edits\":[{\"old_text\":"
	    "\"aa\",\"new_text\":\"x\"}]}", "ambiguous_match",
	    "Found 2 occurrences of edits[0].old_text in aaa (line 1). "
	    "The text must be unique: add surrounding lines to make it "
	    "unique.", "edit: aa in aaa is 2 (pi #9697)");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\",\"edits\":["
	    "{\"old_text\":\"cd\",\"new_text\":\"cd\"}]}", "no_change",
	    "No changes made to o.txt. The replacements produced identical "
	    "content: each new_text equals its old_text.", "edit: no change");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\",\"edits\":["
	    "{\"old_text\":\"ab\",\"new_text\":\"AB\"},"
	    "{\"old_text\":\"\",\"new_text\":\"x\"}]}", "invalid_arguments",
	    "edits[1].old_text must not be empty in o.txt.",
	    "edit: empty old_text");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\",\"edits\":["
	    "{\"old_text\":\"ab\",\"new_text\":\"AB\"},"
	    "{\"old_text\":\"zzzz\",\"new_text\":\"x\"}]}", "no_match",
	    "Could not find edits[1].old_text in o.txt. The old text must "
	    "match exactly, including whitespace and line breaks.",
	    "edit: no match, nothing close");
	s = get("o.txt");
	is_str(s, "abcdef\n", "edit: all or nothing");
	free(s);

	puts_file("c.c", "int\nmain(void)\n{\n\treturn 0;\n}\n");
	ok_run(tool_edit, "{\"file_path\":\"c.c\",\"edits\":[{\"old_text\":"
	    "\"{\\n    return 0;\\n}\\n\",\"new_text\":\"x\"}]}", "no_match",
	    "Could not find edits[0].old_text in c.c. The old text must match "
	    "exactly, including whitespace and line breaks.\n\n"
	    "Closest match, around line 3:\n3 | {\n4 | \treturn 0;\n5 | }\n"
	    "These lines differ from old_text only in whitespace/indentation: "
	    "copy them exactly as they are in the file.",
	    "edit: closest match, whitespace hint");
	ok_run(tool_edit, "{\"file_path\":\"c.c\",\"edits\":[{\"old_text\":"
	    "\"main(int argc)\",\"new_text\":\"x\"}]}", "no_match",
	    "Could not find edits[0].old_text in c.c. The old text must match "
	    "exactly, including whitespace and line breaks.\n\n"
	    "Closest match, around line 2:\n2 | main(void)",
	    "edit: closest match by likeness");

	ok_run(tool_edit, "{\"file_path\":\"nope\",\"edits\":[{\"old_text\":"
	    "\"a\",\"new_text\":\"b\"}]}", "not_found", "File not found: nope",
	    "edit: missing file");
	ok_run(tool_edit, "{\"file_path\":\"bin\",\"edits\":[{\"old_text\":"
	    "\"a\",\"new_text\":\"b\"}]}", "binary_file", "bin is a binary "
	    "file (it has a NUL byte in its first 8 KiB); edit only changes "
	    "text. Use bash to change it.", "edit: binary refused");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\"}", "invalid_arguments",
	    "edit needs file_path and edits, a non-empty list of {old_text, "
	    "new_text}.", "edit: no edits");
	ok_run(tool_edit, "{\"file_path\":\"o.txt\",\"edits\":[{\"old_text\":"
	    "\"a\"}]}", "invalid_arguments", "edits[0] needs old_text and "
	    "new_text, both strings.", "edit: no new_text");
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	tool_result_init(&r);
	dir = xasprintf("%s/pi-tools-fs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL || chdir(dir) == -1) {
		diag("cannot make %s: %s", dir, strerror(errno));
		return 1;
	}
	test_path();
	test_bad_paths();
	test_read_text();
	test_read_images();
	test_read_errors();
	test_write();
	test_ls();
	test_edit();
	tool_result_release(&r);
	if (chdir("/") == 0)
		rm_rf(dir);
	free(dir);
	return done_testing();
}
