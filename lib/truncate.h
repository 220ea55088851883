/* truncate: placeholder, being written. */
#ifndef PI_TRUNCATE_H
#define PI_TRUNCATE_H
#endif
