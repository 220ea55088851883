/*
 * render: any pi event stream as text for a person, one event at a time.
 *
 * It takes the lines of pi-llm, pi-tool and pi-loop, of pi-sess export,
 * log and context, and bare messages, and writes what a person wants to
 * see as it happens: the answer typed out, thinking set apart, a line
 * per tool call with a short form of its arguments, a few lines of its
 * output and how it ended, notices for retries, compaction and errors,
 * and at the end one summary line.  Lines of unknown types are passed
 * over.  With colour, SGR sequences mark what is what; without, the text
 * is plain and greppable, the same words.
 *
 * render_event writes everything an event makes before it returns (one
 * write(2) or a few), so text appears as it streams.  It returns -1 with
 * errno set when the output cannot be written.  render_finish writes the
 * summary if the stream had none and returns the exit status the stream
 * reports (see pi-view(1)); it says on stderr, through the caller's
 * warn, when a live stream ended before its closing event.
 */
#ifndef PI_RENDER_H
#define PI_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

struct json_object;

#define RENDER_TOOLS	32	/* tools whose output is followed at once */
#define RENDER_LINES	5	/* output lines shown per tool without -v */

struct render_tool {
	char id[256];
	char name[64];
	char args[128];		/* the short form of its arguments */
	long shown, hidden;	/* output lines */
	struct buf partial;	/* an output line not ended yet */
	int updates;		/* it streamed output */
};

struct render {
	int fd;
	int color, quiet, verbose;
	struct buf out;
	int col;		/* 0: at the start of a line */
	int block;		/* what the open line is: 0, text, thinking */
	int loop;		/* a pi-loop stream: tools shown when they run */
	int live;		/* an event stream, which has a closing event */
	int closed;		/* ... and it came */
	int status;		/* as the stream reports it */
	int summarized;
	int streamed;		/* the open message's text came as deltas */
	int gone;		/* the output can no longer be written */
	struct render_tool *last_tool;	/* whose line was written last */
	char last_error[256];	/* shown once, though several events say it */
	char last_id[256];	/* of the previous entry of a session file */
	struct render_tool tools[RENDER_TOOLS];
	/* For the summary of a stream without agent_end. */
	long long tokens;
	double cost;
	const char *stop;
	char stop_buf[32];
	long long first_ts, last_ts;
};

void render_init(struct render *r, int fd, int color, int quiet,
    int verbose);
void render_release(struct render *r);
int render_event(struct render *r, struct json_object *o);
int render_finish(struct render *r, void (*warn)(const char *));

#endif
