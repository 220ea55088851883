/* pathmatch: placeholder, being written. */
#ifndef PI_PATHMATCH_H
#define PI_PATHMATCH_H
#endif
