/* gitfile: see gitfile.h. */
#include "gitfile.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "core/banned.h"

/* A regular file, opened without waiting (a FIFO), and its size. */
static int
open_regular(const char *path, size_t max, size_t *size)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		close(fd);
		return -1;
	}
	*size = (size_t)st.st_size;
	return fd;
}

/* The whole file, NUL-terminated, in b; 0 or -1. */
static int
read_small(const char *path, struct buf *b)
{
	size_t size;
	int fd, rc;

	buf_init(b, GITFILE_MAX + 1);
	if ((fd = open_regular(path, GITFILE_MAX, &size)) == -1)
		return -1;
	rc = buf_read_fd(b, fd);
	close(fd);
	if (rc == 0 && b->data == NULL && buf_addc(b, '\0') == 0)
		b->len = 0;
	return rc == 0 && b->data != NULL ? 0 : -1;
}

char *
gitfile_line(const char *path)
{
	struct buf b;
	char *s = NULL;

	if (read_small(path, &b) == 0) {
		b.data[strcspn(b.data, "\r\n")] = '\0';
		s = xstrdup(b.data);
	}
	buf_release(&b);
	return s;
}

/* A value in place: quotes gone, escapes done, comment cut. */
static char *
unquote(char *p)
{
	char *w, *start;
	int quoted = 0;

	p += strspn(p, " \t");
	for (start = w = p; *p != '\0' && *p != '\r'; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '\\' && p[1] != '\0') {
			p++;
			*w++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
		} else if (!quoted && (*p == '#' || *p == ';'))
			break;
		else
			*w++ = *p;
	}
	while (w > start && (w[-1] == ' ' || w[-1] == '\t'))
		w--;
	*w = '\0';
	return start;
}

void
gitfile_config(const char *path, void (*fn)(void *arg, const char *sect,
    const char *key, char *val), void *arg)
{
	char sect[64] = "", *line, *next, *p, *key;
	struct buf b;
	size_t n;

	if (read_small(path, &b) == -1) {
		buf_release(&b);
		return;
	}
	for (line = b.data; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p = line + strspn(line, " \t\r");
		if (*p == '[') {
			n = strcspn(p + 1, " \t\".]");
			snprintf(sect, sizeof(sect), "%.*s", (int)n, p + 1);
			for (key = sect; *key; key++)
				*key = (char)tolower((unsigned char)*key);
			if ((p = strchr(p, ']')) == NULL)
				continue;
			/* A key may follow on the same line. */
			p += 1 + strspn(p + 1, " \t");
		}
		if (!isalpha((unsigned char)*p))
			continue;
		key = p;
		while (isalnum((unsigned char)*p) || *p == '-')
			p++;
		n = (size_t)(p - key);
		p += strspn(p, " \t");
		if (*p != '=')
			continue;
		key[n] = '\0';
		fn(arg, sect, key, unquote(p + 1));
	}
	buf_release(&b);
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* A path git would store: relative, and no empty, "." or ".." part. */
static int
plain_path(const char *s)
{
	const char *part;
	size_t n;

	if (*s == '\0' || *s == '/')
		return 0;
	for (part = s; ; part += n + 1) {
		n = strcspn(part, "/");
		if (n == 0 || (n == 1 && part[0] == '.') ||
		    (n == 2 && part[0] == '.' && part[1] == '.'))
			return 0;
		if (part[n] == '\0')
			return 1;
	}
}

/*
 * Index entries (git's Documentation/gitformat-index.txt): 40 bytes of
 * stat data with the mode at 24, the hash, 16 bits of flags (0x4000:
 * 16 more follow, version 3 on), then the path: NUL-ended and padded
 * to 8 bytes up to version 3; in version 4, a varint of how much of the
 * last path to drop, then the rest of this one, NUL-ended.
 */
void
gitfile_gitlinks(const char *path, size_t hashlen,
    void (*fn)(void *arg, const char *path), void *arg)
{
	const unsigned char *p, *end, *name, *nul;
	size_t size, off, drop, fixed = 40 + hashlen + 2;
	uint32_t version, n, i, mode;
	struct buf last;
	void *map;
	int fd;

	if ((fd = open_regular(path, GITFILE_INDEX_MAX, &size)) == -1)
		return;
	map = size >= 12 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) :
	    MAP_FAILED;
	close(fd);
	if (map == MAP_FAILED)
		return;
	p = map;
	end = p + size;
	version = be32(p + 4);
	n = be32(p + 8);
	buf_init(&last, 1u << 16);
	if (memcmp(p, "DIRC", 4) != 0 || version < 2 || version > 4)
		n = 0;
	for (off = 12, i = 0; i < n; i++) {
		if (off + fixed > size)
			break;
		mode = be32(p + off + 24);
		name = p + off + fixed;
		if (version >= 3 && (p[off + fixed - 2] & 0x40))
			name += 2;
		if (version == 4) {
			/* git's offset varint: each more byte adds one. */
			for (drop = 0; name < end; name++) {
				drop = (drop << 7) | (*name & 0x7f);
				if (!(*name & 0x80))
					break;
				drop++;
			}
			if (name++ >= end || drop > last.len)
				break;
			last.len -= drop;
		} else
			buf_reset(&last);
		if (name >= end || (nul = memchr(name, '\0',
		    (size_t)(end - name))) == NULL ||
		    buf_add(&last, name, (size_t)(nul - name)) == -1)
			break;
		if ((mode & 0170000) == 0160000 && plain_path(last.data))
			fn(arg, last.data);
		off = version == 4 ? (size_t)(nul + 1 - p) :
		    off + (((size_t)(nul - (p + off)) + 8) & ~(size_t)7);
	}
	buf_release(&last);
	munmap(map, size);
}
