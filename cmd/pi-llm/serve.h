/*
 * serve: pi-llm --serve, many calls in one process, one after the
 * other, in the spirit of git cat-file --batch.
 *
 * It first writes a "serve" line, before it reads anything, so that a
 * caller knows at once that the command speaks the protocol.  Then it
 * reads context lines, as a one-shot run does, until a "call" line; the
 * call line may override the flags for its call (model, provider,
 * thinking, maxTokens), add a prompt, and carry an id.  The call's
 * events are exactly a one-shot run's (run_call makes both), and a
 * call_end line follows them, with the call's number, its id and the
 * exit status a one-shot run would have had.  The context starts empty
 * again for the next call.  libcurl, its connections and TLS sessions,
 * the configuration and the recording are kept from call to call.
 *
 * serve returns the process's exit status: 0 at the end of the input,
 * 141 when stdout closed, 128 + the signal for SIGTERM (after the call
 * it cut short) and for SIGINT between calls (SIGINT during a call ends
 * only that call), 3 when the input ends inside a call's context.
 * man/pi-events.5 and man/pi-llm.1 describe the protocol.
 */
#ifndef PI_LLM_SERVE_H
#define PI_LLM_SERVE_H

struct call_opts;

#define SERVE_PROTOCOL 1

int serve(const struct call_opts *defaults);

#endif
