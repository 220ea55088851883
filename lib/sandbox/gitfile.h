/*
 * gitfile: the few of git's own files the sandbox's supervisor reads
 * (gitguard.h), read as git reads them and never trusted.  Each must be
 * a regular file (a FIFO is not waited on) of at most GITFILE_MAX bytes,
 * GITFILE_INDEX_MAX for an index; what cannot be read is as good as
 * absent, and nothing here fails or prints.
 *
 * gitfile_line gives the first line of a file (a .git file's "gitdir:
 * path", a commondir), or NULL; the caller frees it.
 *
 * gitfile_config calls fn with each "key = value" of a config file: the
 * section lowercased ("core", "include", "includeif"), the key as
 * written, the value unquoted, its escapes done and its comment cut (fn
 * may change it).  Continuation lines and the old [section.sub] form
 * are not understood.
 *
 * gitfile_gitlinks calls fn with the path of each gitlink (mode 160000,
 * a submodule) of an index of version 2, 3 or 4 whose hashes are
 * hashlen bytes (20 for SHA-1, 32 for SHA-256).  A path that is
 * absolute or holds an empty, "." or ".." part is passed over.
 */
#ifndef PI_GITFILE_H
#define PI_GITFILE_H

#include <stddef.h>

#define GITFILE_MAX		(1u << 20)
#define GITFILE_INDEX_MAX	(256u << 20)

char *gitfile_line(const char *path);
void gitfile_config(const char *path, void (*fn)(void *arg,
    const char *sect, const char *key, char *val), void *arg);
void gitfile_gitlinks(const char *path, size_t hashlen,
    void (*fn)(void *arg, const char *path), void *arg);

#endif
