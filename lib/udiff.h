/* udiff: placeholder, being written. */
#ifndef PI_UDIFF_H
#define PI_UDIFF_H
#endif
