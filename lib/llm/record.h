/*
 * record: a provider's answers, kept and played back.
 *
 * A recording is NDJSON.  The first line describes the call:
 *   {"type":"recording","v":1,"api","provider","model","url",
 *    "requestHash":"fnv1a64:HEX","messageId","timestamp"}
 * then, for each attempt, the body as it was read, slice by slice, and
 * how the attempt ended:
 *   {"type":"chunk","attempt":N,"ts":MS,"data":TEXT | "b64":BASE64}
 *   {"type":"retry","attempt":N,"ts":MS,"delayMs":MS}
 *   {"type":"end","attempt":N,"ts":MS,"outcome":"done"|"network"|
 *    "truncated"|"idle"|"stopped"|"tls","status":N,"contentType"?,
 *    "retryAfterMs"?,"shouldRetry"?,"detail"?,"errorBody"?}
 * ts is when the slice arrived (Unix ms): the events it caused carry
 * that time, when recorded and when played with --replay-clock.  A slice that is not valid UTF-8
 * (a character cut by the network) is kept as base64.  No request
 * header is kept, so no key is.
 *
 * Playing back gives the parser the same slices in the same order, so
 * the events are the same; the request is checked against the hash.
 *
 * A process that makes several calls (pi-llm --serve) keeps them in one
 * file, one after the other, each from its own "recording" line: the
 * header line is the boundary.  record_next moves to the next call's
 * recording, when writing and when playing, so call N of a replay plays
 * the Nth recording of the file.
 */
#ifndef PI_RECORD_H
#define PI_RECORD_H

#include <stddef.h>

struct http_request;
struct http_result;
struct json_object;
struct pi_error;

struct recording {
	int fd;
	int playing;
	long long start_ms;	/* wall clock of the recorded start */
	int attempt;
	struct json_object *lines;	/* when playing: every line */
	size_t head;		/* when playing: this call's header line */
	size_t stop;		/* and the line after its last one */
	size_t next;
	int calls;		/* record_next so far */
	int clock;		/* --replay-clock: events use recorded times */
};

/* The request's fingerprint: FNV-1a 64 over URL, NUL and body. */
void record_hash(const char *url, const char *body, size_t len,
    char out[32]);

int record_create(struct recording *rec, const char *path,
    struct pi_error *e);
/* The first line, once the request is known. */
void record_begin(struct recording *rec, struct json_object *header);
int record_open(struct recording *rec, const char *path,
    struct pi_error *e);
/*
 * Start the next call: when playing, move to its recording (-1 with e
 * filled when the file holds no more); when writing, the next
 * record_begin starts it.
 */
int record_next(struct recording *rec, struct pi_error *e);
/* The header line of the call being played. */
struct json_object *record_header(struct recording *rec);
void record_close(struct recording *rec);

/* While recording: one body slice (its time returned), an attempt's end. */
long long record_chunk(struct recording *rec, const char *p, size_t n);
void record_end(struct recording *rec, const struct http_result *res);
/* The wait before the next attempt, so a replay announces the same. */
long long record_retry(struct recording *rec, long long delay_ms);
long long record_retry_delay(struct recording *rec);

/*
 * Play the next attempt instead of http_post: the same contract (fills
 * res, calls req->on_data with each recorded slice).
 */
int record_play(struct recording *rec, const struct http_request *req,
    struct http_result *res, struct pi_error *e);

#endif
