/*
 * context: what a model call is given, read from a context stream.
 *
 * The closure rule of DESIGN.md section 2: messages come from bare lines
 * with a "role", from message_end events (their "message") and from
 * tool_execution_end events (as toolResult messages); tool definitions
 * from "tool" lines; the system prompt from "system" lines (the last one
 * wins).  Every other line is ignored, so any event stream is a context.
 *
 * context_prepare turns the history into what a given model may be sent:
 * failed and aborted assistant messages are dropped, thinking from another
 * model becomes plain text and foreign signatures go, tool-call ids are
 * made acceptable to the API (results follow their call), a call with no
 * result gets a synthetic error result, and a result with no call is
 * dropped.  The returned array is the caller's.
 */
#ifndef PI_CONTEXT_H
#define PI_CONTEXT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct pi_error;

struct context {
	char *system;
	struct json_object *messages;
	struct json_object *tools;
	size_t assistant_count;	/* before context_prepare drops any */
};

void context_init(struct context *c);
void context_release(struct context *c);
/* One line of a context stream; lineno and name for messages. */
int context_add_line(struct context *c, struct json_object *o,
    const char *name, size_t lineno, struct pi_error *e);
/* stop: see struct ndjson_reader; may be NULL. */
int context_read_fd(struct context *c, int fd, const char *name,
    volatile sig_atomic_t *stop, struct pi_error *e);
void context_add_user_text(struct context *c, const char *text);

struct json_object *context_prepare(const struct context *c,
    const char *provider, const char *api, const char *model, size_t id_max);

/*
 * Is m a message the closure rule takes?  0, or -1 with e saying why at
 * name:lineno.  pi_roles admits pi's bashExecution and custom roles too.
 */
int context_check_message(struct json_object *m, int pi_roles,
    const char *name, size_t lineno, struct pi_error *e);
/*
 * The toolResult message a tool_execution_end event stands for (a new
 * object), named tool_name when the event names no tool.
 */
struct json_object *context_tool_result(struct json_object *ev,
    const char *tool_name);

/*
 * A user message (a new object) of the content: blocks as they are, a
 * string as one text block, pi's shape for a prompt.
 */
struct json_object *context_user_message(struct json_object *content,
    int64_t ts);

/* The text blocks of a content (a string or blocks), joined by sep. */
char *content_text(struct json_object *content, const char *sep);
/*
 * Normalise a tool-call id: [A-Za-z0-9_-] only, at most max bytes.  An id
 * that had to change ends in "_" and a hash of the original, so two ids
 * never become one.  The result is the caller's to free.
 */
char *tool_id_normalise(const char *id, size_t max);

#endif
