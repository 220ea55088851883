/* validate: placeholder, being written. */
#ifndef PI_VALIDATE_H
#define PI_VALIDATE_H
#endif
