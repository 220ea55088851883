/*
 * toolrun: one tool call through the sandbox, as events.
 *
 * toolrun_call runs a call (a built-in tool as our own code, bash or a
 * custom tool as a command) in the sandbox of sandbox.h and hands each
 * event to env->emit as it happens: tool_execution_start with the
 * sandbox in force, tool_execution_update for output as it arrives (the
 * first MiB of it, then a progress update a second), and
 * tool_execution_end with the result as the model sees it: a command's
 * output cut to its head and tail (capture.h), its failure said in its
 * last line as pi says it, a missing sandbox layer in a notice on top.
 * When the sandbox cannot be made it emits an error event instead.  It
 * returns the program's exit status (DESIGN.md section 7).
 *
 * toolrun_refuse answers a call that will not run (unknown tool, bad
 * arguments) with a start and an end event.  toolrun_collect runs an
 * argv in the sandbox and keeps its stdout, for a custom tool's
 * --schema.
 *
 * emit takes the event's reference and returns -1 when the reader of
 * the events has gone away; the call is then stopped and the status is
 * PI_EXIT_PIPE.
 */
#ifndef PI_TOOLRUN_H
#define PI_TOOLRUN_H

#include <signal.h>

struct buf;
struct json_object;
struct pi_error;
struct sandbox_policy;
struct tool_def;
struct tool_limits;
struct toolcall;

struct toolrun_env {
	struct sandbox_policy *policy;
	const struct tool_limits *limits;
	const char *output_dir;		/* NULL: full outputs are not kept */
	const char *output_why;		/* and why */
	volatile sig_atomic_t *interrupt;
	int (*emit)(void *arg, struct json_object *ev);
	void *arg;
};

/* Exactly one of builtin (bash included) and custom (a path) is set. */
int toolrun_call(const struct toolrun_env *env, const struct toolcall *c,
    const struct tool_def *builtin, const char *custom);
int toolrun_refuse(const struct toolrun_env *env, const struct toolcall *c,
    const char *code, const char *text);
/*
 * Run argv and put its stdout in out (ceiling: out's); 0 when it ran
 * and exited 0, else -1 with e saying why (PI_EXIT_INPUT when the
 * program itself failed, another status when the sandbox did).
 */
int toolrun_collect(const struct toolrun_env *env, char *const argv[],
    struct buf *out, struct pi_error *e);

#endif
