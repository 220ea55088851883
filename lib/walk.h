/* walk: placeholder, being written. */
#ifndef PI_WALK_H
#define PI_WALK_H
#endif
