/*
 * gitfile: git's config and index as the sandbox reads them, on files
 * written here byte by byte: index versions 2, 3 (an extended entry) and
 * 4 (paths compressed against the last), SHA-256 hashes, paths git would
 * never store, and every cut of an index short of its end (nothing past
 * it is read, and no crash).  Configs: sections and keys in any case, a
 * key on its section's line, quotes, escapes and comments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "core/buf.h"
#include "core/util.h"
#include "sandbox/gitfile.h"

static char dir[] = "/tmp/gitfile.XXXXXX";
static const char config[] =
    "# comment\n[Core]\n\tHooksPath = \"my hooks\" ; note\n"
    "[core] fsmonitor = \"echo \\\"x\\\" #y\"\n"
    "[includeIf \"gitdir:/x/\"]\n  path = ~/inc\n"
    "[include]\npath=../shared\n[user]\nname\n";
static struct buf got;

static void
on_link(void *arg, const char *path)
{
	(void)arg;
	(void)buf_addf(&got, "%s;", path);
}

static void
on_key(void *arg, const char *sect, const char *key, char *val)
{
	(void)arg;
	(void)buf_addf(&got, "%s.%s=%s;", sect, key, val);
}

static char *
file(const char *name, const void *p, size_t n)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f == NULL || (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		abort();
	return path;
}

static void
be32(struct buf *b, unsigned v)
{
	unsigned char c[4] = { v >> 24, v >> 16, v >> 8, v };

	(void)buf_add(b, c, 4);
}

/* One entry: stat data with mode, a hash, flags, the path (and pad). */
static void
entry(struct buf *b, int version, size_t hashlen, unsigned mode,
    const char *path, int extended, unsigned strip)
{
	size_t start = b->len, i, n = strlen(path);
	unsigned char flags[2] = { (extended ? 0x40 : 0) | (n > 0xfff ?
	    0x0f : (unsigned char)(n >> 8)), (unsigned char)n };

	for (i = 0; i < 6; i++)
		be32(b, 0);
	be32(b, mode);
	for (i = 0; i < 3; i++)
		be32(b, 0);
	for (i = 0; i < hashlen; i++)
		(void)buf_addc(b, 0xab);
	(void)buf_add(b, flags, 2);
	if (extended)
		(void)buf_add(b, "\0\0", 2);
	if (version == 4) {
		/* Strips of less than 128 take one byte. */
		(void)buf_addc(b, (int)strip);
		(void)buf_add(b, path, n + 1);
		return;
	}
	(void)buf_add(b, path, n);
	do
		(void)buf_addc(b, 0);
	while ((b->len - start) % 8 != 0);
}

static void
header(struct buf *b, int version, unsigned n)
{
	(void)buf_add(b, "DIRC", 4);
	be32(b, (unsigned)version);
	be32(b, n);
}

static const char *
links(const char *name, const struct buf *idx, size_t hashlen)
{
	char *path = file(name, idx->data, idx->len);

	buf_reset(&got);
	gitfile_gitlinks(path, hashlen, on_link, NULL);
	unlink(path);
	free(path);
	return got.data ? got.data : "";
}

int
main(void)
{
	struct buf b;
	char *path, *line;
	size_t cut, bad;
	int v;

	if (mkdtemp(dir) == NULL)
		return 1;
	buf_init(&got, 1u << 20);
	for (v = 2; v <= 3; v++) {
		buf_init(&b, 1u << 20);
		header(&b, v, 3);
		entry(&b, v, 20, 0100644, "a.c", 0, 0);
		entry(&b, v, 20, 0160000, "deps/lib", v == 3, 0);
		entry(&b, v, 20, 0160000, "x/y/z/deep", 0, 0);
		is_str(links("index", &b, 20), "deps/lib;x/y/z/deep;",
		    v == 2 ? "version 2: the gitlinks, not the file" :
		    "version 3, an extended entry");
		buf_release(&b);
	}
	buf_init(&b, 1u << 20);
	header(&b, 4, 3);
	entry(&b, 4, 20, 0160000, "vendor/one", 0, 0);
	entry(&b, 4, 20, 0160000, "two", 3, 3);
	entry(&b, 4, 20, 0100644, "three", 0, 10);
	is_str(links("index", &b, 20), "vendor/one;vendor/two;",
	    "version 4: paths made from the last one");
	buf_release(&b);
	buf_init(&b, 1u << 20);
	header(&b, 2, 2);
	entry(&b, 2, 32, 0160000, "sha256/sub", 0, 0);
	entry(&b, 2, 32, 0160000, "next", 0, 0);
	is_str(links("index", &b, 32), "sha256/sub;next;",
	    "SHA-256 hashes");
	buf_release(&b);
	buf_init(&b, 1u << 20);
	header(&b, 2, 5);
	entry(&b, 2, 20, 0160000, "../out", 0, 0);
	entry(&b, 2, 20, 0160000, "/abs", 0, 0);
	entry(&b, 2, 20, 0160000, "a//b", 0, 0);
	entry(&b, 2, 20, 0160000, "a/./b", 0, 0);
	entry(&b, 2, 20, 0160000, "fine", 0, 0);
	is_str(links("index", &b, 20), "fine;",
	    "paths git would never store are passed over");
	buf_release(&b);
	/* Every cut of an index: nothing past the end is read. */
	buf_init(&b, 1u << 20);
	header(&b, 4, 3);
	entry(&b, 4, 20, 0160000, "vendor/one", 0, 0);
	entry(&b, 4, 20, 0160000, "two", 3, 3);
	entry(&b, 4, 20, 0160000, "three", 0, 10);
	is_str(links("whole", &b, 20), "vendor/one;vendor/two;three;",
	    "a whole version 4 index");
	for (bad = 0, cut = 0; cut < b.len; cut++) {
		struct buf part;
		const char *r;

		buf_init(&part, 1u << 20);
		(void)buf_add(&part, b.data, cut);
		r = links("cut", &part, 20);
		/* Only what the whole entries before the cut hold. */
		if (strcmp(r, "") != 0 && strcmp(r, "vendor/one;") != 0 &&
		    strcmp(r, "vendor/one;vendor/two;") != 0) {
			diag("cut at %zu: %s", cut, r);
			bad++;
		}
		buf_release(&part);
	}
	ok(bad == 0, "every cut of it, %zu of them, finds only whole entries",
	    b.len);
	buf_release(&b);
	is_str(links("bad", &(struct buf){ 0 }, 20), "", "an empty file");

	path = file("config", config, strlen(config));
	buf_reset(&got);
	gitfile_config(path, on_key, NULL);
	is_str(got.data, "core.HooksPath=my hooks;core.fsmonitor=echo \"x\" #y;"
	    "includeif.path=~/inc;include.path=../shared;",
	    "config: sections, keys, quotes, escapes, comments");
	line = gitfile_line(path);
	is_str(line, "# comment", "the first line of a file");
	free(line);
	unlink(path);
	free(path);
	is_str(gitfile_line("/nonexistent/x"), NULL, "no file, no line");
	rmdir(dir);
	buf_release(&got);
	return done_testing();
}
