/* event: see event.h.  Keep this table and man/pi-events.5 in step. */
#include "event.h"

#include <stdlib.h>
#include <string.h>

#include "jsonx.h"
#include "util.h"
#include "banned.h"

static const struct event_info events[] = {
	{ "agent_start", "pi-loop", "sessionId model tools thinkingLevel" },
	{ "turn_start", "pi-loop", "turnId turnIndex messages" },
	{ "message_start", "pi-llm pi-loop", "messageId role" },
	{ "text_delta", "pi-llm", "messageId delta index contentIndex" },
	{ "thinking_delta", "pi-llm", "messageId delta contentIndex" },
	{ "toolcall_start", "pi-llm",
	    "messageId toolCallId toolName contentIndex" },
	{ "toolcall_delta", "pi-llm", "messageId toolCallId delta" },
	{ "toolcall_end", "pi-llm", "messageId toolCallId toolName input" },
	{ "tool_execution_start", "pi-tool", "toolCallId toolName input" },
	{ "tool_execution_update", "pi-tool", "toolCallId updateType content" },
	{ "tool_execution_end", "pi-tool",
	    "toolCallId success output durationMs" },
	{ "message_end", "pi-llm pi-loop", "messageId message" },
	{ "turn_end", "pi-loop", "turnId hasToolCalls shouldContinue" },
	{ "agent_end", "pi-loop",
	    "sessionId totalTurns totalTokens durationMs terminationReason" },
	{ "error", "all", "code message recoverable" },
	{ "retry", "pi-llm", "attempt delayMs reason" },
	{ "compaction_start", "pi-loop", "reason tokensBefore" },
	{ "compaction_end", "pi-loop", "reason" },
	{ "response", "pi-loop", "command success" },
	{ "tool", "pi-tool", "name description inputSchema" },
	{ "system", "pi-sess pi-loop", "text" },
	{ "entry", "pi-sess", "id sessionId entryType" },
	{ "session", "pi-sess", "id cwd headId entries createdAt lastActiveAt" },
	{ "context", "pi-sess", "sessionId entries messages thinkingLevel" },
	{ "lock", "pi-sess", "sessionId pid host" },
	{ "check", "pi-sess", "ok problems" },
	{ "provider", "pi-llm", "name api baseUrl" },
	{ "model", "pi-llm", "provider id contextWindow maxTokens cost" },
	{ "serve", "pi-llm", "program protocol" },
	{ "call_end", "pi-llm", "call exitCode" },
};

const struct event_info *
event_table(size_t *n)
{
	*n = sizeof(events) / sizeof(events[0]);
	return events;
}

const struct event_info *
event_lookup(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(events[i].type, type) == 0)
			return &events[i];
	return NULL;
}

static int fixed = -1;
static long long fixed_ms;

void
event_clock_set(long long ms)
{
	fixed = 1;
	fixed_ms = ms;
}

void
event_clock_reset(void)
{
	fixed = -1;
}

long long
event_clock_ms(void)
{
	const char *s;

	if (fixed == -1) {
		s = getenv("PI_CLOCK_FIXED");
		fixed = s != NULL && *s != '\0';
		if (fixed)
			fixed_ms = strtoll(s, NULL, 10);
	}
	return fixed ? fixed_ms : pi_now_ms();
}

struct json_object *
event_new(const char *type)
{
	struct json_object *o = json_object_new_object();

	jsonx_set_str(o, "type", type);
	jsonx_set_int(o, "v", PI_PROTOCOL_VERSION);
	jsonx_set_int(o, "ts", event_clock_ms());
	return o;
}

int
event_check(struct json_object *ev, struct pi_error *e)
{
	const struct event_info *info;
	const char *type = jsonx_str(ev, "type"), *p, *q;
	char key[64];
	size_t n;

	if (type == NULL)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "no \"type\"");
	if ((info = event_lookup(type)) == NULL)
		return 0;
	for (p = info->required; *p; p = q) {
		q = p + strcspn(p, " ");
		n = (size_t)(q - p);
		memcpy(key, p, n);
		key[n] = '\0';
		if (jsonx_get(ev, key) == NULL)
			return pi_err(e, PI_EXIT_INPUT, "bad_input",
			    "%s event has no \"%s\"", type, key);
		q += strspn(q, " ");
	}
	return 0;
}

static const struct {
	const char *event, *message;
} stops[] = {
	[STOP_END_TURN] = { "end_turn", "stop" },
	[STOP_STOP_SEQUENCE] = { "stop_sequence", "stop" },
	[STOP_TOOL_USE] = { "tool_use", "toolUse" },
	[STOP_MAX_TOKENS] = { "max_tokens", "length" },
	[STOP_ERROR] = { "error", "error" },
	[STOP_ABORTED] = { "aborted", "aborted" },
};

const char *
stop_event_name(enum stop_reason s)
{
	return stops[s].event;
}

const char *
stop_message_name(enum stop_reason s)
{
	return stops[s].message;
}

int
stop_parse(const char *name)
{
	size_t i;

	if (name == NULL)
		return -1;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (strcmp(name, stops[i].event) == 0 ||
		    strcmp(name, stops[i].message) == 0)
			return (int)i;
	return -1;
}
