/*
 * chain: the hash that seals an entry to its history, as a git object
 * id seals a commit to its parents.
 *
 * An entry's hash is SHA-256 of its parent's hash (32 bytes; 32 zero
 * bytes for a root) followed by the entry's fields id, parentId, type,
 * role, messageId, toolCallId, ts (in decimal) and data, in that order,
 * each as a netstring ("5:hello,") or, when absent, as "-".  So
 * changing any entry changes its hash, and with it the hash every later
 * entry of every path through it was made with: pi-sess check finds an
 * entry changed behind the store's back, and names it.  The layout is
 * man/pi-session.5's; changing it needs a new schema version.
 */
#ifndef PI_CHAIN_H
#define PI_CHAIN_H

#include <stddef.h>

struct store_entry;

#define CHAIN_LEN	32	/* bytes of a hash */

/* The hash of en (its hash field unused) made on parent (NULL: root). */
void chain_hash(const unsigned char *parent, const struct store_entry *en,
    unsigned char out[CHAIN_LEN]);
/* A hash as 64 hex digits and a NUL. */
void chain_hex(const unsigned char h[CHAIN_LEN], char out[2 * CHAIN_LEN + 1]);

#endif
