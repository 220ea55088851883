/* tool_search: grep and find (see tools.h).  Stub: being written. */
#include "tools.h"

#include "banned.h"

int
tool_grep(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	(void)in; (void)lim;
	return tool_fail(r, "io_error", "grep: not implemented yet");
}

int
tool_find(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	(void)in; (void)lim;
	return tool_fail(r, "io_error", "find: not implemented yet");
}
