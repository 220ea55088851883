/* tool_fs: read, write and ls (see tools.h).  Stub: being written. */
#include "tools.h"

#include "banned.h"

int
tool_read(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	(void)in; (void)lim;
	return tool_fail(r, "io_error", "read: not implemented yet");
}

int
tool_write(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	(void)in; (void)lim;
	return tool_fail(r, "io_error", "write: not implemented yet");
}

int
tool_ls(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	(void)in; (void)lim;
	return tool_fail(r, "io_error", "ls: not implemented yet");
}
