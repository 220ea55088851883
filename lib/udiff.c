/* udiff: placeholder, being written. */
#include "udiff.h"

#include "banned.h"

extern int udiff_placeholder;
int udiff_placeholder;
