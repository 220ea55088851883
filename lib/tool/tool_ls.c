/*
 * tool_ls: ls (see tools.h), as pi's ls.ts: a directory's entries,
 * sorted without regard to case, dot files included and directories
 * marked with a slash.  However large the directory, only the entries
 * that can be shown are held.
 */
#include "tools.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "truncate.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

#define LS_LIMIT	500

static int
by_name(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int c = strcasecmp(x, y);

	return c ? c : strcmp(x, y);
}

/*
 * Every entry is read, but only the first keep in order are held: when
 * twice that many are held, they are sorted and the rest dropped.  Only
 * the first keep are then surely the first of all.
 */
static int
ls_dir(DIR *d, size_t keep, size_t limit,
    const struct tool_limits *lim, struct tool_result *r)
{
	struct truncation t;
	struct dirent *de;
	struct stat st;
	struct buf all;
	char **names = xcalloc(2 * keep, sizeof(*names));
	size_t n = 0, count = 0, i, out;
	char lsz[FORMAT_SIZE_LEN];
	int e;

	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, 0) == -1)
			continue;
		count++;
		names[n++] = xasprintf("%s%s", de->d_name,
		    S_ISDIR(st.st_mode) ? "/" : "");
		if (n == 2 * keep) {
			qsort(names, n, sizeof(*names), by_name);
			for (; n > keep; n--)
				free(names[n - 1]);
		}
	}
	if ((e = errno) != 0) {
		tool_fail(r, e == EACCES ? "permission_denied" : "io_error",
		    "Cannot read directory: %s", strerror(e));
		goto out;
	}
	if (count == 0) {
		(void)buf_adds(&r->output, "(empty directory)");
		goto out;
	}
	qsort(names, n, sizeof(*names), by_name);
	buf_init(&all, TOOL_MAX_OUTPUT);
	for (i = 0; i < n && i < keep; i++) {
		if (i > 0)
			(void)buf_addc(&all, '\n');
		(void)utf8_sanitize(&all, names[i], strlen(names[i]));
	}
	out = truncate_head(&t, all.data, all.len, SIZE_MAX,
	    tool_max_bytes(lim));
	(void)buf_add(&r->output, all.data, out);
	buf_release(&all);
	if (count > limit)
		(void)buf_addf(&r->output, "\n\n[%zu entries limit reached. "
		    "Use limit=%zu for more", limit, 2 * limit);
	if (t.truncated)
		(void)buf_addf(&r->output, "%s%s limit reached", count > limit ?
		    ". " : "\n\n[", format_size(lsz, tool_max_bytes(lim)));
	if (count > limit || t.truncated) {
		(void)buf_addc(&r->output, ']');
		r->truncated = 1;
		/* pi's details: {truncation?, entryLimitReached?}. */
		r->details = t.truncated ? tool_truncation_json(&t) :
		    json_object_new_object();
		if (count > limit)
			jsonx_set_int(r->details, "entryLimitReached",
			    (int64_t)limit);
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
}

int
tool_ls(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	const char *given = jsonx_str(in, "path");
	struct stat st;
	long long limit;
	size_t keep;
	char *path;
	DIR *d = NULL;
	int e = 0;

	if ((limit = tool_arg_count(in, "limit", r)) == -1)
		return 0;
	if (limit == 0)
		limit = LS_LIMIT;
	if ((path = tool_arg_path(in, "path", ".", r)) == NULL)
		return 0;
	if (given == NULL || *given == '\0')
		given = ".";
	memset(&st, 0, sizeof(st));
	if (stat(path, &st) == -1)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else if ((d = opendir(path)) == NULL)
		e = errno;
	free(path);
	if (e == ENOENT || (e == ENOTDIR && st.st_mode == 0))
		return tool_fail(r, "not_found", "Path not found: %s", given);
	if (e == ENOTDIR)
		return tool_fail(r, "not_a_directory", "Not a directory: %s",
		    given);
	if (e != 0)
		return tool_fail(r, e == EACCES || e == EPERM ?
		    "permission_denied" : "io_error",
		    "Cannot read directory: %s", strerror(e));
	/* No more can be shown than fit in the byte limit. */
	keep = tool_max_bytes(lim) / 2 + 2;
	if ((size_t)limit < keep)
		keep = (size_t)limit;
	ls_dir(d, keep, (size_t)limit, lim, r);
	closedir(d);
	return 0;
}
