/*
 * reply: the assistant message being streamed, and the events that say
 * so.  Providers only translate their wire events into the calls below;
 * this module keeps the content blocks, numbers text positions, parses
 * tool arguments once a call is complete, and writes message_start,
 * text_delta, thinking_delta, toolcall_* and message_end through the
 * emit callback, each as soon as it is known.
 *
 * Blocks are named by a key the provider chooses (a content-block index,
 * a tool-call index).  A block's contentIndex is its position in the
 * final message.  message_start goes out before the first block event,
 * or at reply_end / reply_fail if nothing came.  Every function returns
 * -1 when the emit callback failed (the reader went away); e is then
 * filled with status PI_EXIT_PIPE.
 */
#ifndef PI_REPLY_H
#define PI_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/event.h"

struct json_object;
struct pi_error;

/* Takes a borrowed event; returns -1 when it could not be written. */
typedef int reply_emit_fn(void *arg, struct json_object *ev);

/* Token counts in pi's sense: input excludes cached input. */
struct usage {
	int64_t input;
	int64_t output;		/* includes reasoning */
	int64_t cache_read;
	int64_t cache_write;
	int64_t reasoning;	/* part of output, when reported */
	int64_t total;		/* 0: computed as the sum */
};

/* $ per million tokens; all zero when the model's price is unknown. */
struct price {
	double input, output, cache_read, cache_write;
	int known;
};

enum block_kind { BLOCK_TEXT, BLOCK_THINKING, BLOCK_TOOL };

struct reply_block {
	enum block_kind kind;
	int key;
	int open;
	int redacted;
	struct buf text;	/* text, thinking, or tool arguments */
	struct buf sig;		/* thinking signature, thoughtSignature */
	char *id, *name;	/* tool calls */
	struct json_object *args;	/* parsed at the end of a call */
};

struct reply {
	char message_id[37];
	char *provider, *api, *model;
	long long timestamp;
	struct reply_block *blocks;
	size_t nblocks, cap;
	size_t text_chars;
	struct usage usage;
	struct price price;
	int64_t input_estimate;
	int64_t context_window;	/* the model's, from the catalogue; 0: unknown */
	enum stop_reason stop;
	int started, ended;
	size_t lines;		/* events written */
	reply_emit_fn *emit;
	void *arg;
};

void reply_init(struct reply *r, const char *provider, const char *api,
    const char *model, reply_emit_fn *emit, void *arg);
void reply_release(struct reply *r);
/* Forget a failed attempt's partial state before a retry. */
void reply_reset(struct reply *r);

int reply_start(struct reply *r, struct pi_error *e);
int reply_text(struct reply *r, int key, const char *s, size_t n,
    struct pi_error *e);
int reply_thinking(struct reply *r, int key, const char *s, size_t n,
    struct pi_error *e);
int reply_signature(struct reply *r, int key, enum block_kind kind,
    const char *s, size_t n, struct pi_error *e);
int reply_redacted(struct reply *r, int key, const char *data,
    struct pi_error *e);
/* id may be NULL or empty: one is made up. */
int reply_tool_begin(struct reply *r, int key, const char *id,
    const char *name, struct pi_error *e);
int reply_tool_args(struct reply *r, int key, const char *s, size_t n,
    struct pi_error *e);
/* A whole call at once (Gemini, Ollama): begin, one delta, end. */
int reply_tool_whole(struct reply *r, int key, const char *id,
    const char *name, struct json_object *args, struct pi_error *e);
int reply_block_end(struct reply *r, int key, struct pi_error *e);
struct reply_block *reply_find(struct reply *r, int key);
int reply_has_tools(const struct reply *r);

void reply_set_usage(struct reply *r, const struct usage *u);
void reply_set_stop(struct reply *r, enum stop_reason s);

/* Close every block and write message_end. */
int reply_end(struct reply *r, struct pi_error *e);
/*
 * End a message that failed (STOP_ERROR) or was stopped (STOP_ABORTED):
 * text and thinking so far and complete tool calls are kept, and
 * message_end carries errorMessage.  For STOP_ERROR nothing is written
 * unless message_start already was.
 */
int reply_fail(struct reply *r, enum stop_reason s, const char *why,
    struct pi_error *e);

/* The message as stored: role, content, api, provider, ... */
struct json_object *reply_message(struct reply *r, const char *error);
struct json_object *usage_message_json(const struct usage *u,
    const struct price *p);

#endif
