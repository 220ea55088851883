/*
 * capture: a command's output as the model will see it.
 *
 * Bytes are pushed as they arrive (stdout and stderr together, in
 * arrival order).  While the output fits in max_bytes and max_lines it
 * is kept whole in memory.  Once it outgrows either, everything so far
 * and everything after goes to a file (mode 0600) in dir, and memory
 * keeps only the head and a ring of the tail: capture_text then gives
 * the first lines and the last lines (half the limits each, whole lines)
 * with a marker for what was left out between them and a notice naming
 * the file, so the model can read the rest.  Past the ceiling,
 * capture_add fails (code "output_limit") and stores nothing more: the
 * caller stops the command.
 *
 * If the file cannot be made, the call goes on and the notice says the
 * full output could not be kept, and why.
 */
#ifndef PI_CAPTURE_H
#define PI_CAPTURE_H

#include <stddef.h>

#include "core/buf.h"

struct pi_error;

struct capture {
	size_t max_bytes, max_lines, ceiling;
	struct buf head;	/* the first max_bytes bytes */
	char *ring;		/* the last max_bytes bytes */
	size_t ring_len, ring_pos;
	size_t total, newlines;
	int last;		/* the last byte seen, or -1 */
	int fd;			/* the full output, once spilled */
	char *path;
	char *dir, *name;
	char why[160];		/* why there is no file, if so */
};

void capture_init(struct capture *c, size_t max_bytes, size_t max_lines,
    size_t ceiling, const char *dir, const char *name);
int capture_add(struct capture *c, const char *p, size_t n,
    struct pi_error *e);
/* Append the model's text to out; 1 if it was cut, else 0. */
int capture_text(struct capture *c, struct buf *out);
void capture_release(struct capture *c);

#endif
