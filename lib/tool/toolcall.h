/*
 * toolcall: the one tool call pi-tool reads, from the text of its input.
 *
 * Each line is JSON.  A call is pi-llm's toolcall_end event, the same
 * without a type ({toolCallId, toolName, input}), or pi's toolCall
 * content block ({type:"toolCall", id, name, arguments}); lines of any
 * other type are passed over, so a whole pi-llm stream holding one call
 * will do.  An input that is a string holding JSON (a model's broken
 * arguments, as pi-llm passes them on) is parsed; one that is absent is
 * {}.  A line that is not JSON, a second call, a call without an id or
 * a name, or no call at all is an error (status PI_EXIT_INPUT, code
 * "bad_input") naming the line: "stdin:3: ...".
 *
 * The strings and input object are the toolcall's; toolcall_release
 * frees them.
 */
#ifndef PI_TOOLCALL_H
#define PI_TOOLCALL_H

#include <stddef.h>

struct json_object;
struct pi_error;

struct toolcall {
	char *id, *name;
	char *message_id;		/* or NULL */
	struct json_object *input;
};

int toolcall_parse(struct toolcall *c, const char *p, size_t n,
    const char *source, struct pi_error *e);
void toolcall_release(struct toolcall *c);

#endif
