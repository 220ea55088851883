/* tool_edit: edit (see tools.h).  Stub: being written. */
#include "tools.h"

#include "banned.h"

int
tool_edit(struct json_object *in, const struct tool_limits *lim,
    struct tool_result *r)
{
	(void)in; (void)lim;
	return tool_fail(r, "io_error", "edit: not implemented yet");
}
