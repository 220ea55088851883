/*
 * call: one model call, the same in both of pi-llm's modes.
 *
 * run_call sends a context to the model its options name, writes the
 * call's events to stdout and returns the exit status a one-shot pi-llm
 * exits with (DESIGN.md section 7), with e saying why when it is not 0.
 * A one-shot run calls it once; the serving loop (serve.c) once per
 * call line.  What lasts for the whole process (the flags, the loaded
 * configuration, the recording, libcurl and its connections) is the
 * stage, S; run_call loads libcurl and opens the recording the first
 * time a call needs them, and stage_release lets all of it go.
 */
#ifndef PI_LLM_CALL_H
#define PI_LLM_CALL_H

#include <signal.h>

#include "llm/catalog.h"
#include "llm/config.h"
#include "llm/http.h"
#include "llm/provider.h"
#include "llm/record.h"

struct context;
struct json_object;
struct pi_error;

/* What one call may choose for itself: a call line overrides each. */
struct call_opts {
	const char *model;	/* [provider/]model: -m, else PI_MODEL */
	const char *provider;	/* --provider */
	enum thinking thinking;	/* -t; THINK_OFF: not asked */
	long max_tokens;	/* --max-tokens; 0: the model's own */
};

struct stage {
	const char *api;	/* --api */
	const char *base_url;	/* --base-url */
	const char *faux_script;	/* --faux-script */
	const char *record;	/* --record */
	const char *replay;	/* --replay */
	int replay_clock, replay_loose;
	long idle, retries;	/* --idle-timeout (s), --max-retries */
	char *system;		/* -s, read: it replaces the context's */
	struct catalog catalog;
	struct config cfg;
	struct recording rec;
	int rec_open;
	struct http_client http;
	int curl;		/* libcurl is loaded */
	volatile sig_atomic_t signal;	/* SIGINT or SIGTERM came */
};

extern struct stage S;

int run_call(const struct call_opts *o, struct context *ctx,
    struct pi_error *e);
/* An error on stderr and as an error event; the exit status. */
int call_fail(const struct pi_error *e, const char *message_id);
void stage_release(void);

#endif
