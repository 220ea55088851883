/* tools: see tools.h.  The table of built-in tools and what they share. */
#include "tools.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "truncate.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

static const struct tool_def tools[] = {
	{ "read",
	  "Read a file.  Text comes back as it is, at most 2000 lines or "
	  "50 KiB from offset on, with a notice saying how to read on; "
	  "PNG, JPEG, GIF and WebP images come back as an image.  Binary "
	  "files are refused.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"file_path\":{\"type\":\"string\",\"description\":"
	  "\"Path of the file, absolute or relative to the workspace\"},"
	  "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"Line to start at (1-based)\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"Most lines to read\"}},"
	  "\"required\":[\"file_path\"]}",
	  tool_read },
	{ "write",
	  "Write a file, replacing it if it exists; parent directories are "
	  "created.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"file_path\":{\"type\":\"string\",\"description\":"
	  "\"Path of the file, absolute or relative to the workspace\"},"
	  "\"content\":{\"type\":\"string\",\"description\":"
	  "\"The whole new content\"}},"
	  "\"required\":[\"file_path\",\"content\"]}",
	  tool_write },
	{ "edit",
	  "Replace text in a file.  Each old_text must occur exactly once in "
	  "the file as it was before this call, and edits must not overlap; "
	  "all are applied together or none.  Line endings and a byte order "
	  "mark are kept.  The result shows a unified diff.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"file_path\":{\"type\":\"string\",\"description\":"
	  "\"Path of the file, absolute or relative to the workspace\"},"
	  "\"edits\":{\"type\":\"array\",\"minItems\":1,\"items\":{"
	  "\"type\":\"object\",\"properties\":{"
	  "\"old_text\":{\"type\":\"string\",\"description\":"
	  "\"Exact text to replace, whitespace included\"},"
	  "\"new_text\":{\"type\":\"string\",\"description\":"
	  "\"Text to put in its place\"}},"
	  "\"required\":[\"old_text\",\"new_text\"]}}},"
	  "\"required\":[\"file_path\",\"edits\"]}",
	  tool_edit },
	{ "bash",
	  "Run a command with bash -c in the workspace, sandboxed: no "
	  "network unless allowed, writes only in the workspace and /tmp.  "
	  "stdout and stderr are returned together; long output keeps its "
	  "head and tail and the whole is saved to a file named in the "
	  "output.  A non-zero exit status is a failure.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"string\",\"description\":"
	  "\"The command line\"},"
	  "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,"
	  "\"description\":\"Seconds before the command is killed\"}},"
	  "\"required\":[\"command\"]}",
	  NULL },
	{ "ls",
	  "List a directory: entries sorted, dot files included, directories "
	  "marked with a trailing slash.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"Directory to list (default: the workspace)\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"Most entries to return (default 500)\"}}}",
	  tool_ls },
	{ "grep",
	  "Search file contents for a regular expression (POSIX extended; "
	  "\\d \\w \\s \\b and (?i) work, lookaround does not) or, with "
	  "literal, for plain text.  Matches come back as path:line: text "
	  "and context lines as path-line- text, cut at 500 characters.  "
	  "Binary files, .gitignore'd files and .git are skipped; hidden "
	  "files are searched.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":"
	  "\"Regular expression, or plain text with literal\"},"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"File or directory to search (default: the workspace)\"},"
	  "\"glob\":{\"type\":\"string\",\"description\":"
	  "\"Only files that match, e.g. *.c or src/**/*.{ts,tsx}: without "
	  "a slash it matches names at any depth; a leading ! excludes\"},"
	  "\"ignoreCase\":{\"type\":\"boolean\"},"
	  "\"literal\":{\"type\":\"boolean\",\"description\":"
	  "\"Match the pattern as plain text\"},"
	  "\"context\":{\"type\":\"integer\",\"minimum\":0,\"description\":"
	  "\"Lines of context around each match\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"Most matches to return (default 100)\"}},"
	  "\"required\":[\"pattern\"]}",
	  tool_grep },
	{ "find",
	  "Find files by glob pattern (*, ?, [..], ** and {a,b}), ignoring "
	  "case unless the pattern has an uppercase letter; a pattern "
	  "without a slash matches names at any depth, one with a slash the "
	  "path below the search directory.  Directories that match come "
	  "back with a trailing slash.  .gitignore'd files and .git are "
	  "skipped, hidden files are included.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":"
	  "\"Glob, e.g. *.c or src/**/*.test.ts\"},"
	  "\"path\":{\"type\":\"string\",\"description\":"
	  "\"Directory to search (default: the workspace)\"},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	  "\"Most results to return (default 1000)\"}},"
	  "\"required\":[\"pattern\"]}",
	  tool_find },
};

const struct tool_def *
tools_all(size_t *n)
{
	*n = sizeof(tools) / sizeof(tools[0]);
	return tools;
}

const struct tool_def *
tools_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

/* Move o[from] to o[to] unless o[to] is already there. */
static void
alias(struct json_object *o, const char *from, const char *to)
{
	struct json_object *v;

	if (jsonx_get(o, to) != NULL || (v = jsonx_get(o, from)) == NULL)
		return;
	jsonx_set(o, to, jsonx_ref(v));
	json_object_object_del(o, from);
}

void
tools_prepare(const struct tool_def *t, struct json_object *in)
{
	struct json_object *edits, *one, *e;
	size_t i;

	if (!jsonx_is(in, json_type_object))
		return;
	if (strcmp(t->name, "read") == 0 || strcmp(t->name, "write") == 0 ||
	    strcmp(t->name, "edit") == 0)
		alias(in, "path", "file_path");
	if (strcmp(t->name, "edit") != 0)
		return;
	alias(in, "oldText", "old_text");
	alias(in, "newText", "new_text");
	/* A model may send edits as a JSON string. */
	if (jsonx_is(jsonx_get(in, "edits"), json_type_string)) {
		const char *s = jsonx_str(in, "edits");

		if ((e = jsonx_parse(s, strlen(s), NULL)) != NULL)
			jsonx_set(in, "edits", e);
	}
	if ((edits = jsonx_arr(in, "edits")) != NULL)
		for (i = 0; i < json_object_array_length(edits); i++) {
			e = json_object_array_get_idx(edits, i);
			alias(e, "oldText", "old_text");
			alias(e, "newText", "new_text");
		}
	if (jsonx_get(in, "old_text") == NULL &&
	    jsonx_get(in, "new_text") == NULL)
		return;
	if (edits == NULL) {
		edits = json_object_new_array();
		jsonx_set(in, "edits", edits);
	}
	one = json_object_new_object();
	if (jsonx_get(in, "old_text") != NULL)
		jsonx_set(one, "old_text", jsonx_ref(jsonx_get(in,
		    "old_text")));
	if (jsonx_get(in, "new_text") != NULL)
		jsonx_set(one, "new_text", jsonx_ref(jsonx_get(in,
		    "new_text")));
	json_object_array_add(edits, one);
	json_object_object_del(in, "old_text");
	json_object_object_del(in, "new_text");
}

void
tool_result_init(struct tool_result *r)
{
	buf_init(&r->output, TOOL_MAX_OUTPUT);
	r->content = NULL;
	r->details = NULL;
	r->error_code = NULL;
	r->truncated = 0;
}

void
tool_result_release(struct tool_result *r)
{
	buf_release(&r->output);
	json_object_put(r->content);
	json_object_put(r->details);
	tool_result_init(r);
}

int
tool_fail(struct tool_result *r, const char *code, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_reset(&r->output);
	(void)buf_add(&r->output, s, (size_t)n);
	free(s);
	r->error_code = code;
	return 0;
}

struct json_object *
tool_result_to_json(const struct tool_result *r)
{
	struct json_object *o = json_object_new_object();

	jsonx_set(o, "output", jsonx_new_str(r->output.data, r->output.len));
	if (r->content != NULL)
		jsonx_set(o, "content", jsonx_ref(r->content));
	if (r->details != NULL)
		jsonx_set(o, "details", jsonx_ref(r->details));
	if (r->error_code != NULL)
		jsonx_set_str(o, "errorCode", r->error_code);
	jsonx_set_bool(o, "truncated", r->truncated);
	return o;
}

/*
 * The codes a result may carry, so that a string from the child becomes
 * one of ours (error_code is a static string).
 */
static const char *const codes[] = {
	"not_found", "invalid_arguments", "is_directory", "not_a_directory",
	"not_a_file", "binary_file", "too_large", "permission_denied",
	"read_only", "no_match", "ambiguous_match", "overlap", "no_change",
	"offset_beyond_end", "bad_pattern", "io_error",
};

int
tool_result_from_json(struct tool_result *r, struct json_object *o)
{
	const char *out = jsonx_str(o, "output"), *code;
	size_t i;

	if (out == NULL)
		return -1;
	buf_reset(&r->output);
	if (buf_adds(&r->output, out) == -1)
		return -1;
	if (jsonx_arr(o, "content") != NULL)
		r->content = jsonx_ref(jsonx_arr(o, "content"));
	if (jsonx_obj(o, "details") != NULL)
		r->details = jsonx_ref(jsonx_obj(o, "details"));
	r->truncated = jsonx_bool(o, "truncated", 0);
	if ((code = jsonx_str(o, "errorCode")) != NULL) {
		r->error_code = "io_error";
		for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
			if (strcmp(codes[i], code) == 0)
				r->error_code = codes[i];
	}
	return 0;
}

/*
 * Bytes of the Unicode space at p that pi makes a plain space (U+00A0,
 * U+2000..U+200A, U+202F, U+205F, U+3000), or 0.  Models copy these
 * from rendered text, and no one means them in a file name.
 */
static size_t
unicode_space(const unsigned char *p)
{
	if (p[0] == 0xc2 && p[1] == 0xa0)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) ||
	    p[2] == 0xaf))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3;
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3;
	return 0;
}

char *
tool_path(const char *given)
{
	const unsigned char *p;
	const char *home;
	char *s, *o, *full;
	size_t k;

	if (*given == '@')
		given++;
	s = o = xstrdup(given);
	/* The string is NUL-terminated, so p[1] and p[2] can be read. */
	for (p = (const unsigned char *)given; *p; p++) {
		if ((k = unicode_space(p)) != 0) {
			*o++ = ' ';
			p += k - 1;
		} else
			*o++ = (char)*p;
	}
	*o = '\0';
	home = getenv("HOME");
	if (s[0] != '~' || (s[1] != '\0' && s[1] != '/') || home == NULL ||
	    *home == '\0')
		return s;
	full = xasprintf("%s%s", home, s + 1);
	free(s);
	return full;
}

char *
tool_arg_path(struct json_object *in, const char *key, const char *def,
    struct tool_result *r)
{
	struct json_object *v = jsonx_get(in, key);
	const char *s, *p, *nul;
	size_t n, name = 0;

	if (v == NULL && def != NULL)
		return tool_path(def);
	if (!jsonx_is(v, json_type_string)) {
		tool_fail(r, "invalid_arguments", "%s must be a string, the "
		    "path of a file or directory.", key);
		return NULL;
	}
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (n == 0 && def != NULL)
		return tool_path(def);
	/* A C string stops at a NUL: the call would act on a prefix. */
	if ((nul = memchr(s, '\0', n)) != NULL) {
		tool_fail(r, "invalid_arguments", "%s has a NUL character "
		    "(\\u0000) at byte %zu; a path cannot hold one.", key,
		    (size_t)(nul - s));
		return NULL;
	}
	if (n == 0 || strcmp(s, "@") == 0) {
		tool_fail(r, "invalid_arguments", "%s is %s; give the path of "
		    "a file or directory.", key, n == 0 ? "empty" :
		    "\"@\" alone");
		return NULL;
	}
	if (n >= PATH_MAX) {
		tool_fail(r, "invalid_arguments", "%s is %zu bytes long; a "
		    "path has fewer than %d.", key, n, PATH_MAX);
		return NULL;
	}
	for (p = s; *p != '\0'; p += name + (p[name] == '/'))
		if ((name = strcspn(p, "/")) > NAME_MAX) {
			tool_fail(r, "invalid_arguments", "%s has a name of "
			    "%zu bytes; a name has at most %d.", key, name,
			    NAME_MAX);
			return NULL;
		}
	return tool_path(s);
}

size_t
tool_max_bytes(const struct tool_limits *lim)
{
	if (lim == NULL || lim->max_bytes == 0)
		return TRUNCATE_MAX_BYTES;
	return lim->max_bytes < TOOL_MAX_OUTPUT / 4 ? lim->max_bytes :
	    TOOL_MAX_OUTPUT / 4;
}

long long
tool_arg_count(struct json_object *in, const char *key, struct tool_result *r)
{
	struct json_object *v = jsonx_get(in, key);
	double d;

	if (v == NULL)
		return 0;
	if (jsonx_is(v, json_type_int) || jsonx_is(v, json_type_double)) {
		d = json_object_get_double(v);
		if (d >= 1 && d < 1e15)
			return (long long)d;
	}
	tool_fail(r, "invalid_arguments", "%s must be a whole number of at "
	    "least 1.", key);
	return -1;
}

struct json_object *
tool_truncation_json(const struct truncation *t)
{
	struct json_object *o = json_object_new_object(), *d;
	const char *by = truncate_by_name(t->by);

	jsonx_set_bool(o, "truncated", t->truncated);
	jsonx_set(o, "truncatedBy", by ? json_object_new_string(by) : NULL);
	jsonx_set_int(o, "totalLines", (int64_t)t->total_lines);
	jsonx_set_int(o, "totalBytes", (int64_t)t->total_bytes);
	jsonx_set_int(o, "outputLines", (int64_t)t->output_lines);
	jsonx_set_int(o, "outputBytes", (int64_t)t->output_bytes);
	jsonx_set_bool(o, "lastLinePartial", t->last_line_partial);
	jsonx_set_bool(o, "firstLineExceedsLimit",
	    t->first_line_exceeds_limit);
	jsonx_set_int(o, "maxLines", (int64_t)t->max_lines);
	jsonx_set_int(o, "maxBytes", (int64_t)t->max_bytes);
	d = json_object_new_object();
	jsonx_set(d, "truncation", o);
	return d;
}
