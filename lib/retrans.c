/* retrans: placeholder, being written. */
#include "retrans.h"

#include "banned.h"

extern int retrans_placeholder;
int retrans_placeholder;
