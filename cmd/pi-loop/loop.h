/*
 * pi-loop's own header.  The loop is one process that runs the others:
 * pi-sess (context, and one append co-process that records), pi-llm
 * (one per turn) and pi-tool (one per tool call).  Everything it waits
 * for comes through one poll loop, pump(), which also takes signals,
 * RPC commands and timers, so any wait can be cut short by an abort.
 *
 *   pi-loop.c   options, setup, the exit status
 *   stage.c     children, the poll loop, the recorder, the stages' argv
 *   turn.c      an agent run: turns, termination, steering, follow-ups
 *   tools.c     the tool pipeline and the calls of one message
 *   rpc.c       --rpc commands
 *   compact.c   compaction
 *   prompt.c    the system prompt
 */
#ifndef PI_LOOP_H
#define PI_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/ndjson.h"
#include "core/proc.h"
#include "core/util.h"

struct json_object;

/* Why a run ended (seed 9.4, DESIGN.md 6). */
enum term {
	TERM_NONE,
	TERM_NO_TOOL_CALLS,
	TERM_TIMEOUT,		/* timeout_48h */
	TERM_IDLE,		/* idle_timeout_120s */
	TERM_ABORT,		/* abort_signal */
	TERM_DISCONNECTED,	/* gateway_disconnected */
	TERM_MAX_TURNS,
	TERM_BUDGET,
	TERM_ERROR
};

enum child_kind { K_LLM, K_TOOL, K_RECORDER, K_CAPTURE };

/* A running child whose stdout we read. */
struct child {
	struct proc p;
	enum child_kind kind;
	char *name;		/* its program, for messages (the reader's) */
	struct ndjson_reader r;	/* stdout lines (not K_CAPTURE) */
	struct buf out;		/* K_CAPTURE: stdout, whole */
	struct buf in;		/* bytes still to write to its stdin */
	size_t inoff;
	int eof;		/* stdout is at its end */
	int code;		/* exit code, once reaped */
	int done;		/* reaped and drained */
	int termed;		/* SIGTERM sent, after the grace */
	int idx;		/* K_TOOL: the call's index */
	long long last_ms;	/* when it last wrote a line */
	struct child *next;
};

/* A tool the model may call, after the pipeline. */
struct tool {
	char *name;
	struct json_object *def;	/* the "tool" line */
	unsigned scopes;
};

enum { SCOPE_READ = 1, SCOPE_WRITE = 2, SCOPE_EXEC = 4, SCOPE_NETWORK = 8,
	SCOPE_SESSION = 16 };

/* A queued message: steering or follow-up. */
struct queued {
	char *text;
	struct queued *next;
};

struct opts {
	const char *db, *session, *parent, *model, *api, *base_url;
	const char *thinking, *workspace, *tools, *deny_tools, *tool_dir;
	const char *policy;
	char *system, *append_system;	/* the text, files read */
	int cont, new_session, no_session, network, allow_degraded;
	int print, rpc, verbose_context, db_in_workspace;
	struct strv allow_read;	/* --allow-read, for every pi-tool */
	long max_turns, parallel;
	long long timeout_ms, idle_ms, grace_ms;
	double max_cost;		/* < 0: none */
	long context_window, reserve, keep_recent;
};

struct loop {
	struct opts o;
	char *db;		/* the database path given to pi-sess */
	char *dbpath;		/* where it is, real as far as it exists */
	char *tmpdir;		/* --no-session: removed at exit */
	char *workspace;	/* absolute */
	char session[80];
	char resumed[80];	/* the session resumed, or "" */
	char *model;		/* [provider/]model for pi-llm, or NULL */
	char *thinking;		/* or NULL: the session's, else pi-llm's */
	char *system;		/* the system prompt */
	struct tool *tools;
	size_t ntools;
	struct buf tool_lines;	/* the "tool" lines given to pi-llm */
	char *stage_dir;	/* where pi-loop's executable is */

	struct child *children;
	struct child *recorder;
	char **waiting;		/* messageIds not yet stored */
	size_t nwaiting, capwaiting;
	int sigfd[2];		/* the self-pipe of the signal handler */
	int stdin_eof;

	struct queued *steering, *follow_up;
	struct queued *prompts;	/* --rpc prompts while idle */
	int running;		/* a run is under way */
	int stdout_gone;

	enum term term;		/* set once: the first reason wins */
	int term_code;		/* exit status for TERM_ERROR and aborts */
	char term_msg[512];
	int signalled;		/* the last SIGINT or SIGTERM, or 0 */
	long long abort_at;	/* when the abort began (grace timer) */
	long long deadline;	/* agent_start + --timeout */

	/* The run. */
	long runs;		/* runs made by this process (--rpc: many) */
	long long started;
	long turns;
	long long tokens;
	double cost;
	struct json_object *last_assistant;	/* its message */
	long long last_context_tokens;
	int overflow_retried;
	int locked;		/* we hold the session's lock */
	/* What the model call in flight has said. */
	int llm_quiet;		/* a summary call: nothing goes to stdout */
	struct json_object *llm_end;	/* its message_end event */
	char llm_error[64];	/* the code of its error event, or "" */
	char llm_error_msg[512];
};

extern struct loop L;

/* stage.c */
void loop_emit(struct json_object *ev);	/* puts ev */
void loop_error_event(const char *code, const char *msg, int recoverable);
void loop_stop(enum term t, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char **stage_argv(const char *name, const char *const *args);
/* stagenv.c: the environment of pi-sess and pi-tool, without keys. */
char **stage_env(void);
void stage_argv_free(char **argv);
struct child *child_start(enum child_kind kind, char **argv,
    const char *input, size_t inlen, int idx, struct pi_error *e);
void child_free(struct child *c);
/* Run the poll loop until done(arg) is true, or a fatal error: -1. */
int pump(int (*done)(void *), void *arg);
int child_done(void *c);
/* Run a stage (a pi-sess verb) to its end: its exit code, or -1 with e
 * when it cannot start; out gets its stdout. */
int stage_run(const char *name, const char *const *args, const char *input,
    struct buf *out, struct pi_error *e);
int sess_run(const char *const *args, const char *input, struct buf *out,
    struct pi_error *e);
int recorder_start(struct pi_error *e);
void recorder_stop(void);
/* Send a line to the recorder; with an id, wait_stored waits for it. */
int record(struct json_object *line, const char *wait_id);
int wait_stored(void);
void abort_subagents(const char *session);

/* turn.c */
int run_agent(struct json_object *prompts);
void on_llm_line(struct child *c, struct json_object *o);
/* Run pi-llm on the context in ctx (tool lines first when tools): 0 or
 * its exit code; L.llm_end holds the message_end event. */
int run_llm(const char *ctx, size_t len, int tools);
/* Emit a message as message_start and message_end, and record it. */
int post_message(struct json_object *message, const char *role);
struct json_object *user_message(const char *text);

/* tools.c */
/* pi-tool --list, started at once, read by tools_build (which frees it). */
struct child *tools_list_start(struct pi_error *e);
int tools_build(struct child *list, struct pi_error *e);
const char *const *tool_names(void);
int tools_run(struct json_object *assistant, const char *message_id,
    struct json_object **results);
void on_tool_line(struct child *c, struct json_object *o);

/* rpc.c */
void rpc_input(const char *p, size_t n);	/* bytes from stdin */
void rpc_eof(void);
int rpc_main(void);
void rpc_run_ended(void);

/* compact.c */
int compact_maybe(const char *reason);
int compact_now(const char *reason, const char *instructions,
    struct json_object **data);

/* prompt.c */
char *system_prompt(void);
char *text_arg(const char *arg, const char *opt);

#endif
