/*
 * tools: the built-in tools (read, write, edit, ls, grep, find) as
 * pi-tool runs them: inside the sandboxed child, never in the
 * supervisor.  A tool sees the file system exactly as a command in the
 * sandbox would; relative paths are taken from the working directory
 * (the workspace).
 *
 * tools_prepare folds the aliases a model may send (pi's "path" for
 * "file_path", "oldText" for "old_text", a lone old_text/new_text pair
 * for "edits") into the published schema, in place, before the input is
 * validated.  A tool's run function fills a tool_result: the text the
 * model will see, content blocks when there is more than text (an
 * image), a stable error code on failure.  It returns 0 when the result
 * is filled (success or a failure the model should read) and never
 * exits; memory it allocates stays under the ceilings of truncate.h.
 *
 * A result crosses from the sandboxed child to the supervisor as one
 * JSON object: tool_result_to_json and tool_result_from_json.
 */
#ifndef PI_TOOLS_H
#define PI_TOOLS_H

#include <stddef.h>

#include "core/buf.h"

struct json_object;
struct truncation;

/* The model-visible output of any tool stays under this. */
#define TOOL_MAX_OUTPUT	(64u << 20)

struct tool_limits {
	size_t max_bytes;	/* model-visible text, default 50 KiB */
	size_t max_lines;	/* default 2000 */
};

struct tool_result {
	struct buf output;		/* text for the model */
	struct json_object *content;	/* blocks beyond text, or NULL */
	struct json_object *details;	/* e.g. {"diff":...}, or NULL */
	const char *error_code;		/* NULL on success */
	int truncated;
};

struct tool_def {
	const char *name;
	const char *description;
	const char *schema;		/* JSON text of the input schema */
	int (*run)(struct json_object *input, const struct tool_limits *lim,
	    struct tool_result *r);
};

const struct tool_def *tools_find(const char *name);
const struct tool_def *tools_all(size_t *n);
/* Rename aliases in input to the schema's names; see above. */
void tools_prepare(const struct tool_def *t, struct json_object *input);

void tool_result_init(struct tool_result *r);
void tool_result_release(struct tool_result *r);
/*
 * Mark r failed with code and set its output to the message; returns 0
 * so a tool can "return tool_fail(r, ...)".
 */
int tool_fail(struct tool_result *r, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* {"output":..., "content"?, "details"?, "errorCode"?, "truncated"}. */
struct json_object *tool_result_to_json(const struct tool_result *r);
int tool_result_from_json(struct tool_result *r, struct json_object *o);

/*
 * A path as the model wrote it, made usable: a leading '@' dropped,
 * Unicode spaces made plain, "~" and "~/" taken from $HOME.  The caller
 * frees the result.
 */
char *tool_path(const char *given);
/*
 * The path argument key of in, checked, then made usable by tool_path
 * (the caller frees it).  NULL with r failed (invalid_arguments) when
 * it is absent and def is NULL, not a string, empty or "@" alone, holds
 * a NUL byte, or is longer than the kernel takes (PATH_MAX, or a name
 * over NAME_MAX).  With def, the argument is optional: absent or "" it
 * is def, as pi takes a missing search directory.
 */
char *tool_arg_path(struct json_object *in, const char *key,
    const char *def, struct tool_result *r);

/*
 * What more than one tool does the same way.  tool_max_bytes is lim's
 * byte limit for the model-visible text (TRUNCATE_MAX_BYTES when unset),
 * but never more than a quarter of TOOL_MAX_OUTPUT, so that buffers a
 * few times that size cannot wrap.  tool_arg_count reads an optional
 * count: 0 when key is absent, -1 with r failed when it is not a number
 * of at least 1 (a fraction is cut to a whole number).
 * tool_truncation_json is pi's details for cut output, {"truncation":
 * {...}}, a new object the caller owns.
 */
size_t tool_max_bytes(const struct tool_limits *lim);
long long tool_arg_count(struct json_object *in, const char *key,
    struct tool_result *r);
struct json_object *tool_truncation_json(const struct truncation *t);

/* The implementations, one file per family. */
int tool_read(struct json_object *, const struct tool_limits *,
    struct tool_result *);
int tool_write(struct json_object *, const struct tool_limits *,
    struct tool_result *);
int tool_ls(struct json_object *, const struct tool_limits *,
    struct tool_result *);
int tool_edit(struct json_object *, const struct tool_limits *,
    struct tool_result *);
int tool_grep(struct json_object *, const struct tool_limits *,
    struct tool_result *);
int tool_find(struct json_object *, const struct tool_limits *,
    struct tool_result *);

#endif
