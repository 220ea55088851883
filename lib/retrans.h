/* retrans: placeholder, being written. */
#ifndef PI_RETRANS_H
#define PI_RETRANS_H
#endif
