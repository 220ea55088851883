/* tool_ls: placeholder, being written. */
#include "tools.h"

#include "banned.h"

extern int tool_ls_placeholder;
int tool_ls_placeholder;
