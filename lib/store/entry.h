/*
 * entry: what the store takes, checked in one place for every way in
 * (pi-sess append, import, name, label, compact): store_append calls
 * it, so nothing reaches the database that a reader of it (pi-sess
 * context, then pi-llm) would refuse.
 *
 * An entry's data is a JSON object of at most PI_MAX_ENTRY bytes.  Its
 * type is a word of lower-case letters, digits and '_'; a type pi-sess
 * does not know is kept as it is (pi may add some), but the known ones
 * must carry their fields (man/pi-session.5): a message is one the
 * closure rule takes (context_check_message, with pi's bashExecution
 * and custom roles, and a custom message's content a string or
 * blocks), a model_change has provider and modelId strings, and so on.
 */
#ifndef PI_ENTRY_H
#define PI_ENTRY_H

#include <stddef.h>

struct json_object;
struct pi_error;

/*
 * 0, or -1 with e saying why (PI_EXIT_INPUT, "bad_input", with no
 * location: the caller knows where the entry came from).  len is the
 * size of data as stored.
 */
int entry_check(const char *type, struct json_object *data, size_t len,
    struct pi_error *e);

#endif
