/* validate: placeholder, being written. */
#include "validate.h"

#include "banned.h"

extern int validate_placeholder;
int validate_placeholder;
