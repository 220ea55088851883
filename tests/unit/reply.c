/*
 * reply: the events a provider's calls turn into, collected from the
 * emit callback: message_start once and first, text positions in code
 * points, contentIndex in block order, tool arguments parsed at the end
 * of their block, and the shapes of a failed or stopped message.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tap.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "llm/reply.h"

static struct json_object *evs;	/* the events written so far */
static int fail_at = -1;	/* emit fails once this many are written */

static int
collect(void *arg, struct json_object *ev)
{
	(void)arg;
	if (fail_at >= 0 && (int)json_object_array_length(evs) >= fail_at)
		return -1;
	json_object_array_add(evs, json_object_get(ev));
	return 0;
}

static void
fresh(struct reply *r)
{
	json_object_put(evs);
	evs = json_object_new_array();
	fail_at = -1;
	reply_init(r, "prov", "test-api", "mod", collect, NULL);
}

static int
nev(void)
{
	return (int)json_object_array_length(evs);
}

static struct json_object *
ev(int i)
{
	return i < nev() ? json_object_array_get_idx(evs, (size_t)i) : NULL;
}

static const char *
type(int i)
{
	return jsonx_str(ev(i), "type");
}

static int
count(const char *t)
{
	int i, n = 0;

	for (i = 0; i < nev(); i++)
		if (strcmp(type(i), t) == 0)
			n++;
	return n;
}

/* The nth (0-based) event of type t, or NULL. */
static struct json_object *
nth(const char *t, int n)
{
	int i;

	for (i = 0; i < nev(); i++)
		if (strcmp(type(i), t) == 0 && n-- == 0)
			return ev(i);
	return NULL;
}

static const char *
js(struct json_object *o)
{
	return o ? jsonx_string(o, NULL) : "(none)";
}

static void
test_start_and_positions(void)
{
	struct reply r;
	struct pi_error e;
	struct json_object *m, *c;
	int i;

	fresh(&r);
	is_int(reply_text(&r, 0, "h\xc3\xa9llo", 6, &e), 0, "text delta");
	is_int(reply_text(&r, 0, " w\xc3\xb6rld", 7, &e), 0, "another");
	is_int(reply_thinking(&r, 9, "hmm", 3, &e), 0, "a thinking delta");
	is_int(reply_text(&r, 3, "\xf0\x9f\x98\x80!", 5, &e), 0,
	    "a second text block");
	is_int(reply_tool_begin(&r, 4, "call_1", "read", &e), 0,
	    "a tool call");
	is_str(type(0), "message_start", "message_start comes first");
	is_int(count("message_start"), 1, "and once");
	is_str(jsonx_str(ev(0), "role"), "assistant", "role assistant");
	is_str(jsonx_str(ev(0), "provider"), "prov", "with the provider");
	is_str(jsonx_str(ev(0), "model"), "mod", "and the model");
	for (i = 1; i < nev(); i++)
		if (strcmp(jsonx_str(ev(i), "messageId"),
		    jsonx_str(ev(0), "messageId")) != 0)
			break;
	is_int(i, nev(), "every event has message_start's messageId");
	is_int(strlen(jsonx_str(ev(0), "messageId")), 36,
	    "a messageId is a UUID");

	is_str(jsonx_str(nth("text_delta", 1), "delta"), " w\xc3\xb6rld",
	    "a delta is the text given");
	is_int(jsonx_int(nth("text_delta", 0), "index", -1), 0,
	    "the first delta is at index 0");
	is_int(jsonx_int(nth("text_delta", 1), "index", -1), 5,
	    "index counts code points, not bytes");
	is_int(jsonx_int(nth("text_delta", 2), "index", -1), 11,
	    "and goes on across text blocks, not counting thinking");
	ok(jsonx_get(nth("thinking_delta", 0), "index") == NULL,
	    "thinking has no index");
	is_int(jsonx_int(nth("text_delta", 0), "contentIndex", -1), 0,
	    "contentIndex of block 1");
	is_int(jsonx_int(nth("text_delta", 1), "contentIndex", -1), 0,
	    "stays for its later deltas");
	is_int(jsonx_int(nth("thinking_delta", 0), "contentIndex", -1), 1,
	    "contentIndex of block 2 (thinking)");
	is_int(jsonx_int(nth("text_delta", 2), "contentIndex", -1), 2,
	    "contentIndex of block 3 (text)");
	is_int(jsonx_int(nth("toolcall_start", 0), "contentIndex", -1), 3,
	    "contentIndex of block 4 (tool call)");

	is_int(reply_end(&r, &e), 0, "reply_end");
	is_int(count("message_start"), 1, "message_start still once");
	is_str(type(nev() - 1), "message_end", "message_end comes last");
	m = jsonx_obj(ev(nev() - 1), "message");
	c = jsonx_arr(m, "content");
	is_str(js(c), "[{\"type\":\"text\","
	    "\"text\":\"h\xc3\xa9llo w\xc3\xb6rld\"},"
	    "{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
	    "{\"type\":\"text\",\"text\":\"\xf0\x9f\x98\x80!\"},"
	    "{\"type\":\"toolCall\",\"id\":\"call_1\",\"name\":\"read\","
	    "\"arguments\":{}}]", "the stored content is in block order");
	reply_release(&r);
}

static void
test_tool_args(void)
{
	struct reply r;
	struct pi_error e;
	struct json_object *end;

	fresh(&r);
	reply_tool_begin(&r, 0, "call_a", "read", &e);
	reply_tool_args(&r, 0, "{\"pa", 4, &e);
	reply_tool_args(&r, 0, "th\":\"a.c\",", 10, &e);
	reply_tool_args(&r, 0, "\"n\":[1,2]}", 10, &e);
	is_int(count("toolcall_delta"), 3, "one toolcall_delta a fragment");
	is_str(jsonx_str(nth("toolcall_delta", 1), "delta"), "th\":\"a.c\",",
	    "carrying the raw fragment");
	is_str(jsonx_str(nth("toolcall_delta", 1), "toolCallId"), "call_a",
	    "and the call's id");
	is_int(count("toolcall_end"), 0, "no toolcall_end while it is open");
	is_int(reply_block_end(&r, 0, &e), 0, "reply_block_end");
	end = nth("toolcall_end", 0);
	is_str(js(jsonx_get(end, "input")), "{\"path\":\"a.c\",\"n\":[1,2]}",
	    "the fragments parse as one input");
	is_str(jsonx_str(end, "toolName"), "read", "toolcall_end's toolName");
	ok(jsonx_get(end, "invalidArguments") == NULL,
	    "valid arguments have no invalidArguments");

	reply_tool_begin(&r, 1, "call_b", "ls", &e);
	reply_block_end(&r, 1, &e);
	is_str(js(jsonx_get(nth("toolcall_end", 1), "input")), "{}",
	    "no arguments are {}");
	reply_tool_begin(&r, 2, "call_c", "ls", &e);
	reply_tool_args(&r, 2, " \n", 2, &e);
	reply_block_end(&r, 2, &e);
	is_str(js(jsonx_get(nth("toolcall_end", 2), "input")), "{}",
	    "white space alone is {}");

	reply_tool_begin(&r, 3, "call_d", "ls", &e);
	reply_tool_args(&r, 3, "[1]", 3, &e);
	reply_block_end(&r, 3, &e);
	end = nth("toolcall_end", 3);
	is_str(js(jsonx_get(end, "input")), "{}", "an array: input {}");
	is_str(jsonx_str(end, "invalidArguments"), "[1]",
	    "and the raw text in invalidArguments");
	reply_tool_begin(&r, 4, "call_e", "ls", &e);
	reply_tool_args(&r, 4, "{bad", 4, &e);
	reply_block_end(&r, 4, &e);
	end = nth("toolcall_end", 4);
	is_str(js(jsonx_get(end, "input")), "{}", "bad JSON: input {}");
	is_str(jsonx_str(end, "invalidArguments"), "{bad",
	    "and the raw text in invalidArguments");
	is_int(count("toolcall_end"), 5, "every call ended once");

	is_int(reply_end(&r, &e), 0, "reply_end");
	is_int(count("toolcall_end"), 5, "reply_end ends no call twice");
	end = nth("message_end", 0);
	is_str(jsonx_str(end, "stopReason"), "tool_use",
	    "end_turn with calls becomes tool_use");
	is_str(jsonx_str(jsonx_obj(end, "message"), "stopReason"), "toolUse",
	    "toolUse in the stored message");
	is_str(js(jsonx_get(json_object_array_get_idx(jsonx_arr(jsonx_obj(end,
	    "message"), "content"), 3), "arguments")), "{}",
	    "a call with invalid arguments is stored with {}");
	reply_release(&r);

	/* A call still open at reply_end is ended by it. */
	fresh(&r);
	reply_tool_begin(&r, 0, "call_f", "ls", &e);
	reply_tool_args(&r, 0, "{\"a\":1}", 7, &e);
	reply_set_stop(&r, STOP_MAX_TOKENS);
	reply_end(&r, &e);
	is_str(js(jsonx_get(nth("toolcall_end", 0), "input")), "{\"a\":1}",
	    "reply_end closes an open call");
	is_str(jsonx_str(nth("message_end", 0), "stopReason"), "max_tokens",
	    "and keeps a stop reason other than end_turn");
	reply_release(&r);

	fresh(&r);
	reply_text(&r, 0, "hi", 2, &e);
	reply_end(&r, &e);
	is_str(jsonx_str(nth("message_end", 0), "stopReason"), "end_turn",
	    "no calls: end_turn");
	is_str(jsonx_str(jsonx_obj(nth("message_end", 0), "message"),
	    "stopReason"), "stop", "stop in the stored message");
	reply_release(&r);
}

static void
test_fail(void)
{
	struct reply r;
	struct pi_error e;
	struct json_object *end, *m;

	fresh(&r);
	is_int(reply_fail(&r, STOP_ERROR, "boom", &e), 0,
	    "reply_fail(STOP_ERROR) before any output");
	is_int(nev(), 0, "writes nothing");
	reply_release(&r);

	fresh(&r);
	is_int(reply_fail(&r, STOP_ABORTED, "aborted by SIGINT", &e), 0,
	    "reply_fail(STOP_ABORTED) before any output");
	is_int(nev(), 2, "writes two events");
	is_str(type(0), "message_start", "message_start");
	is_str(type(1), "message_end", "then message_end");
	end = ev(1);
	is_str(jsonx_str(end, "stopReason"), "aborted", "stopReason aborted");
	is_str(jsonx_str(end, "errorMessage"), "aborted by SIGINT",
	    "with the reason");
	m = jsonx_obj(end, "message");
	is_str(jsonx_str(m, "stopReason"), "aborted", "stored as aborted");
	is_str(js(jsonx_get(m, "content")), "[]", "with no content");
	reply_release(&r);

	fresh(&r);
	reply_text(&r, 0, "partial", 7, &e);
	reply_tool_begin(&r, 1, "call_1", "read", &e);
	reply_tool_args(&r, 1, "{}", 2, &e);
	reply_block_end(&r, 1, &e);
	reply_tool_begin(&r, 2, "call_2", "read", &e);
	reply_tool_args(&r, 2, "{\"path\":", 8, &e);
	is_int(reply_fail(&r, STOP_ERROR, "network down", &e), 0,
	    "reply_fail(STOP_ERROR) after output");
	end = nth("message_end", 0);
	is_str(jsonx_str(end, "stopReason"), "error", "stopReason error");
	is_str(jsonx_str(end, "errorMessage"), "network down",
	    "with errorMessage");
	m = jsonx_obj(end, "message");
	is_str(jsonx_str(m, "errorMessage"), "network down",
	    "in the stored message too");
	is_str(js(jsonx_get(m, "content")), "[{\"type\":\"text\","
	    "\"text\":\"partial\"},{\"type\":\"toolCall\",\"id\":\"call_1\","
	    "\"name\":\"read\",\"arguments\":{}}]",
	    "the text and the complete call are kept, the open call left out");
	is_int(count("toolcall_end"), 1, "the open call gets no toolcall_end");
	is_int(reply_fail(&r, STOP_ABORTED, "again", &e), 0,
	    "a second reply_fail");
	is_int(count("message_end"), 1, "writes nothing more");
	reply_release(&r);
}

static void
test_emit_fails(void)
{
	struct reply r;
	struct pi_error e;

	fresh(&r);
	fail_at = 0;
	memset(&e, 0, sizeof(e));
	is_int(reply_text(&r, 0, "x", 1, &e), -1,
	    "an emit that fails on message_start fails reply_text");
	is_int(e.status, PI_EXIT_PIPE, "with status 141");
	reply_release(&r);

	fresh(&r);
	fail_at = 1;
	memset(&e, 0, sizeof(e));
	is_int(reply_text(&r, 0, "x", 1, &e), -1,
	    "an emit that fails on the delta fails reply_text");
	is_int(e.status, PI_EXIT_PIPE, "with status 141");
	reply_release(&r);

	fresh(&r);
	reply_tool_begin(&r, 0, "call_1", "ls", &e);
	fail_at = nev();
	memset(&e, 0, sizeof(e));
	is_int(reply_tool_args(&r, 0, "{}", 2, &e), -1,
	    "reply_tool_args fails with the emit");
	is_int(e.status, PI_EXIT_PIPE, "with status 141");
	memset(&e, 0, sizeof(e));
	is_int(reply_end(&r, &e), -1, "and so does reply_end");
	is_int(e.status, PI_EXIT_PIPE, "with status 141");
	reply_release(&r);

	fresh(&r);
	fail_at = 0;
	memset(&e, 0, sizeof(e));
	is_int(reply_fail(&r, STOP_ABORTED, "x", &e), -1,
	    "and reply_fail(STOP_ABORTED)");
	is_int(e.status, PI_EXIT_PIPE, "with status 141");
	reply_release(&r);
}

int
main(void)
{
	test_start_and_positions();
	test_tool_args();
	test_fail();
	test_emit_fails();
	json_object_put(evs);
	return done_testing();
}
