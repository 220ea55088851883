/* truncate: placeholder, being written. */
#include "truncate.h"

#include "banned.h"

extern int truncate_placeholder;
int truncate_placeholder;
