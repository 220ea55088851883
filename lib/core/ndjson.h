/*
 * ndjson: the wire.  A bounded, push-style line reader and a whole-line
 * writer.
 *
 * Reading: push bytes as they come; each complete line that is not blank
 * is parsed and handed to the callback with its 1-based line number.
 * Anything that is not a JSON object with a string "type" or "role" is an
 * input error naming the line ("stdin:12: ...").  Bytes after the last
 * newline at EOF mean the writer died mid-line: ndjson_reader_finish
 * reports a truncated stream and never parses them.
 *
 * Writing: ndjson_write serialises the whole object in memory and puts
 * line and newline on the fd with write(2) until done, so a reader never
 * sees half a line and nothing waits in a stdio buffer.  It returns -1
 * with errno set (EPIPE when the reader went away).
 */
#ifndef PI_NDJSON_H
#define PI_NDJSON_H

#include <signal.h>
#include <stddef.h>

#include "buf.h"

struct json_object;
struct pi_error;

/* Return -1 (after filling e) to stop the reader. */
typedef int ndjson_line_fn(void *arg, struct json_object *o, size_t lineno,
    struct pi_error *e);

/*
 * When set, a line that is not an object with a "type" or "role", or
 * that is longer than PI_MAX_LINE, is handed here (with e filled)
 * instead of ending the read: return 0 to pass over it, -1 (with out
 * filled) to stop.
 */
typedef int ndjson_bad_fn(void *arg, const struct pi_error *e,
    struct pi_error *out);

struct ndjson_reader {
	struct buf line;
	size_t lineno;
	const char *name;	/* for messages: "stdin", a file name */
	ndjson_line_fn *fn;
	void *arg;
	/* When set, a signal that cuts a read short ends it: 128 + *stop. */
	volatile sig_atomic_t *stop;
	ndjson_bad_fn *bad;	/* see above; NULL by default */
	int skipping;		/* passing over the rest of a long line */
};

void ndjson_reader_init(struct ndjson_reader *r, const char *name,
    ndjson_line_fn *fn, void *arg);
int ndjson_reader_push(struct ndjson_reader *r, const char *p, size_t n,
    struct pi_error *e);
int ndjson_reader_finish(struct ndjson_reader *r, struct pi_error *e);
void ndjson_reader_release(struct ndjson_reader *r);

/* Read a whole fd through a reader. */
int ndjson_read_fd(struct ndjson_reader *r, int fd, struct pi_error *e);

int ndjson_write(int fd, struct json_object *o);

/*
 * Bulk output (a listing, a whole context) where no reader waits for
 * any one line: whole lines gathered and written NDJSON_BATCH bytes at
 * a time, so ten thousand lines are not ten thousand write(2)s.  Each
 * line still ends up whole, and ndjson_batch_flush writes what is left.
 * Every call returns -1 with errno set once a write failed.
 */
#define NDJSON_BATCH	(64u << 10)

struct ndjson_batch {
	int fd;
	int failed;
	struct buf b;
};

void ndjson_batch_init(struct ndjson_batch *w, int fd);
/* The n bytes at p (one line's JSON, without its newline). */
int ndjson_batch_line(struct ndjson_batch *w, const char *p, size_t n);
int ndjson_batch_obj(struct ndjson_batch *w, struct json_object *o);
int ndjson_batch_flush(struct ndjson_batch *w);
void ndjson_batch_release(struct ndjson_batch *w);

#endif
