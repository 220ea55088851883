/*
 * event: the event vocabulary of man/pi-events.5, in one table.
 *
 * event_new starts an event object with "type" first, then "v" (protocol
 * version) and "ts" (Unix ms); the caller adds the fields and owns the
 * object.  event_check tells whether an object carries the fields its
 * type requires (unknown types pass: readers let them through).  The stop
 * reason mapping between the seed's words (events) and pi's words (stored
 * messages) lives here and nowhere else.
 */
#ifndef PI_EVENT_H
#define PI_EVENT_H

#include <stddef.h>

struct json_object;
struct pi_error;

#define PI_PROTOCOL_VERSION 1

struct event_info {
	const char *type;
	const char *emitters;	/* programs that write it */
	const char *required;	/* space-separated keys besides type, v, ts */
};

const struct event_info *event_lookup(const char *type);
const struct event_info *event_table(size_t *n);
struct json_object *event_new(const char *type);
int event_check(struct json_object *ev, struct pi_error *e);

/*
 * The clock events are stamped with.  PI_CLOCK_FIXED=MS in the
 * environment pins it, so golden files compare byte for byte.
 */
long long event_clock_ms(void);
/*
 * Pin the clock to ms (the moment a slice of a stream arrived, recorded
 * or replayed) until event_clock_reset puts it back.
 */
void event_clock_set(long long ms);
void event_clock_reset(void);

enum stop_reason {
	STOP_END_TURN,
	STOP_STOP_SEQUENCE,
	STOP_TOOL_USE,
	STOP_MAX_TOKENS,
	STOP_ERROR,
	STOP_ABORTED
};

const char *stop_event_name(enum stop_reason s);	/* end_turn, ... */
const char *stop_message_name(enum stop_reason s);	/* stop, toolUse, ... */
/* From either vocabulary; -1 if unknown. */
int stop_parse(const char *name);

#endif
