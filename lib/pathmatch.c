/* pathmatch: placeholder, being written. */
#include "pathmatch.h"

#include "banned.h"

extern int pathmatch_placeholder;
int pathmatch_placeholder;
