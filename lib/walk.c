/* walk: placeholder, being written. */
#include "walk.h"

#include "banned.h"

extern int walk_placeholder;
int walk_placeholder;
