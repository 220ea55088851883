/*
 * Compaction (DESIGN.md 6, pi-mono.md 6): when the last usage says the
 * context is within --reserve tokens of the model's window, or the
 * provider said it overflowed, the older part of the path is
 * summarized by the model and stored with pi-sess compact.  Nothing is
 * removed: the context pi-sess computes starts from the summary.  The
 * cut is made at a user or assistant message, never at a tool result,
 * so no call is parted from its result (I20: never silent truncation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define TOOL_RESULT_CHARS	2000	/* of a result in the summary's input */

static const char summarizer[] =
    "You are a context summarization assistant.  You read a conversation "
    "between a user and an AI coding assistant and write a structured "
    "summary of it, in exactly the format asked for.  Do NOT continue the "
    "conversation and do NOT answer questions in it: output only the "
    "summary.";

static const char request[] =
    "Write a structured checkpoint of the conversation above, which "
    "another model will use to go on with the work.  Use this format:\n\n"
    "## Goal\nWhat the user wants, in their own terms.\n\n"
    "## Constraints & Preferences\nRequirements and choices the user "
    "stated.\n\n"
    "## Progress\n### Done\n### In Progress\n### Blocked\n\n"
    "## Key Decisions\nWhat was decided, and why.\n\n"
    "## Next Steps\nWhat to do next, in order.\n\n"
    "## Critical Context\nFacts the work depends on: exact file paths, "
    "function names, commands, error messages.\n\n"
    "Keep each section short; keep every commitment, open question and "
    "pending task.";

static const char update[] =
    "The <previous-summary> covers the conversation before the one "
    "above.  Update it with the new messages: keep what still holds, "
    "move finished work to Done, and use the same format.";

/* The path's entries, as pi-sess log prints them. */
struct path {
	struct json_object **v;
	size_t n;
};

static int
read_path(struct path *p)
{
	const char *args[] = { "log", L.session, NULL };
	const char *s, *end, *nl;
	struct pi_error e;
	struct buf out;
	int code;

	memset(p, 0, sizeof(*p));
	buf_init(&out, (size_t)-1);
	if ((code = sess_run(args, NULL, &out, &e)) != 0) {
		buf_release(&out);
		return -1;
	}
	for (s = out.data, end = s + out.len; s != NULL && s < end;
	    s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
		if ((p->v[p->n] = jsonx_parse(s, (size_t)(nl - s), NULL)) !=
		    NULL)
			p->n++;
	}
	buf_release(&out);
	return 0;
}

static void
path_release(struct path *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		json_object_put(p->v[i]);
	free(p->v);
}

static const char *
type_of(struct json_object *en)
{
	const char *t = jsonx_str(en, "type");

	return t ? t : "";
}

static const char *
role_of(struct json_object *en)
{
	const char *r = jsonx_str(jsonx_obj(en, "message"), "role");

	return r ? r : "";
}

static int
is_message(struct json_object *en)
{
	return strcmp(type_of(en), "message") == 0 ||
	    strcmp(type_of(en), "custom_message") == 0 ||
	    strcmp(type_of(en), "branch_summary") == 0;
}

static int
has_message(struct path *p, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (is_message(p->v[i]))
			return 1;
	return 0;
}

/* Where a cut may fall: never at a tool result. */
static int
can_cut(struct json_object *en)
{
	const char *r = role_of(en);

	if (strcmp(type_of(en), "message") != 0)
		return is_message(en);
	return strcmp(r, "user") == 0 || strcmp(r, "assistant") == 0 ||
	    strcmp(r, "bashExecution") == 0 || strcmp(r, "custom") == 0;
}

static size_t
estimate(struct json_object *en)
{
	size_t len;

	(void)jsonx_string(en, &len);
	return len / 4;
}

static size_t
index_of(struct path *p, const char *id, size_t before)
{
	size_t i;

	for (i = 0; id != NULL && i < before; i++)
		if (jsonx_str(p->v[i], "id") &&
		    strcmp(jsonx_str(p->v[i], "id"), id) == 0)
			return i;
	return (size_t)-1;
}

/* The text blocks of a content, and tool calls in pi's summary form. */
static void
serialize(struct buf *b, struct json_object *en)
{
	struct json_object *m = jsonx_obj(en, "message"), *c, *blk;
	const char *role = role_of(en), *t, *type;
	size_t i, n;

	if (m == NULL) {
		/* A branch's summary is part of the story; a compaction's
		 * goes in as <previous-summary>, once. */
		if (strcmp(type_of(en), "branch_summary") == 0 &&
		    (t = jsonx_str(en, "summary")) != NULL)
			(void)buf_addf(b, "[Branch summary]: %s\n\n", t);
		return;
	}
	c = jsonx_get(m, "content");
	if (jsonx_is(c, json_type_string)) {
		(void)buf_addf(b, "[%s]: %s\n\n", strcmp(role, "user") == 0 ?
		    "User" : role, json_object_get_string(c));
		return;
	}
	if (strcmp(role, "bashExecution") == 0) {
		(void)buf_addf(b, "[User ran]: %s\n%s\n\n",
		    jsonx_str(m, "command") ? jsonx_str(m, "command") : "",
		    jsonx_str(m, "output") ? jsonx_str(m, "output") : "");
		return;
	}
	for (i = 0; c != NULL && i < json_object_array_length(c); i++) {
		blk = json_object_array_get_idx(c, i);
		type = jsonx_str(blk, "type");
		if (type == NULL)
			continue;
		if (strcmp(type, "text") == 0 &&
		    (t = jsonx_str(blk, "text")) != NULL) {
			n = strlen(t);
			if (strcmp(role, "toolResult") == 0 &&
			    n > TOOL_RESULT_CHARS)
				(void)buf_addf(b, "[Tool result]: %.*s\n\n[... %zu "
				    "more characters truncated]\n\n",
				    TOOL_RESULT_CHARS, t,
				    n - TOOL_RESULT_CHARS);
			else
				(void)buf_addf(b, "[%s]: %s\n\n",
				    strcmp(role, "user") == 0 ? "User" :
				    strcmp(role, "assistant") == 0 ?
				    "Assistant" : strcmp(role, "toolResult") ==
				    0 ? "Tool result" : role, t);
		} else if (strcmp(type, "thinking") == 0 &&
		    (t = jsonx_str(blk, "thinking")) != NULL)
			(void)buf_addf(b, "[Assistant thinking]: %s\n\n", t);
		else if (strcmp(type, "toolCall") == 0)
			(void)buf_addf(b, "[Assistant tool call]: %s(%s)\n\n",
			    jsonx_str(blk, "name") ? jsonx_str(blk, "name") :
			    "", jsonx_string(jsonx_get(blk, "arguments"),
			    NULL));
	}
}

/* Add the n bytes at f to list, a line each, unless listed already. */
static void
add_file(struct buf *list, const char *f, size_t n)
{
	const char *p = list->data;

	while (p != NULL && p < list->data + list->len) {
		const char *nl = memchr(p, '\n',
		    (size_t)(list->data + list->len - p));

		if (nl != NULL && (size_t)(nl - p) == n &&
		    memcmp(p, f, n) == 0)
			return;
		p = nl ? nl + 1 : NULL;
	}
	(void)buf_add(list, f, n);
	(void)buf_addc(list, '\n');
}

/* Add each line of the section <tag> of text to list, once. */
static void
carry(struct buf *list, const char *text, const char *tag)
{
	char open[32], close[32];
	const char *p, *end, *nl;

	(void)snprintf(open, sizeof(open), "<%s>\n", tag);
	(void)snprintf(close, sizeof(close), "</%s>", tag);
	if (text == NULL || (p = strstr(text, open)) == NULL ||
	    (end = strstr(p, close)) == NULL)
		return;
	for (p += strlen(open); p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (nl > p)
			add_file(list, p, (size_t)(nl - p));
	}
}

/*
 * The files the summarized part read and changed, as pi lists them,
 * with those of the previous summary: a file read long ago is still
 * known.  A file changed is not listed as read.
 */
static void
file_ops(struct buf *b, struct path *p, size_t from, size_t to,
    const char *prev)
{
	struct buf rd, wr;
	struct json_object *c, *blk, *args;
	const char *name, *f;
	size_t i, j;

	buf_init(&rd, 1u << 20);
	buf_init(&wr, 1u << 20);
	carry(&rd, prev, "read-files");
	carry(&wr, prev, "modified-files");
	for (i = from; i < to; i++) {
		if (strcmp(role_of(p->v[i]), "assistant") != 0)
			continue;
		c = jsonx_arr(jsonx_obj(p->v[i], "message"), "content");
		for (j = 0; c != NULL && j < json_object_array_length(c); j++) {
			blk = json_object_array_get_idx(c, j);
			name = jsonx_str(blk, "name");
			args = jsonx_obj(blk, "arguments");
			f = jsonx_str(args, "file_path") ?
			    jsonx_str(args, "file_path") :
			    jsonx_str(args, "path");
			if (name == NULL || f == NULL)
				continue;
			if (strcmp(name, "read") == 0)
				add_file(&rd, f, strlen(f));
			else if (strcmp(name, "write") == 0 ||
			    strcmp(name, "edit") == 0)
				add_file(&wr, f, strlen(f));
		}
	}
	if (rd.len > 0)
		(void)buf_addf(b, "\n\n<read-files>\n%s</read-files>", rd.data);
	if (wr.len > 0)
		(void)buf_addf(b, "\n\n<modified-files>\n%s</modified-files>",
		    wr.data);
	buf_release(&rd);
	buf_release(&wr);
}

/* The summary's context for pi-llm: the summarizer and one request. */
static char *
summary_context(struct path *p, size_t from, size_t to, const char *prev,
    const char *instructions, size_t *len)
{
	struct json_object *sys = event_new("system"), *u;
	struct buf conv, out;
	size_t i;

	buf_init(&conv, (size_t)-1);
	(void)buf_adds(&conv, "<conversation>\n");
	for (i = from; i < to; i++)
		serialize(&conv, p->v[i]);
	(void)buf_adds(&conv, "</conversation>\n\n");
	if (prev != NULL)
		(void)buf_addf(&conv, "<previous-summary>\n%s\n"
		    "</previous-summary>\n\n%s\n\n", prev, update);
	(void)buf_adds(&conv, request);
	if (instructions != NULL)
		(void)buf_addf(&conv, "\n\nAdditional focus: %s",
		    instructions);
	jsonx_set_str(sys, "text", summarizer);
	u = user_message(conv.data);
	buf_init(&out, (size_t)-1);
	(void)buf_addf(&out, "%s\n", jsonx_string(sys, NULL));
	(void)buf_addf(&out, "%s\n", jsonx_string(u, NULL));
	json_object_put(sys);
	json_object_put(u);
	buf_release(&conv);
	return buf_detach(&out, len);
}

static char *
reply_text(void)
{
	struct json_object *m = jsonx_obj(L.llm_end, "message"), *c, *b;
	struct buf t;
	size_t i;

	buf_init(&t, (size_t)-1);
	c = jsonx_arr(m, "content");
	for (i = 0; c != NULL && i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if (jsonx_str(b, "type") && strcmp(jsonx_str(b, "type"),
		    "text") == 0 && jsonx_str(b, "text"))
			(void)buf_adds(&t, jsonx_str(b, "text"));
	}
	if (t.len == 0) {
		buf_release(&t);
		return NULL;
	}
	return buf_detach(&t, NULL);
}

/* The model's window: --context-window, else what pi-llm said of it. */
static long
window(void)
{
	if (L.o.context_window > 0)
		return L.o.context_window;
	return (long)jsonx_int(L.llm_end, "contextWindow", 0);
}

int
compact_maybe(const char *reason)
{
	long w;

	if (L.last_context_tokens <= 0 || (w = window()) <= 0 ||
	    L.last_context_tokens <= w - L.o.reserve)
		return 0;
	return compact_now(reason, NULL, NULL);
}

static void
compaction_end(const char *reason, struct json_object *data,
    const char *error, long long before)
{
	struct json_object *ev = event_new("compaction_end");

	jsonx_set_str(ev, "reason", reason);
	if (data == NULL)
		jsonx_set_int(ev, "tokensBefore", before);
	if (data != NULL) {
		json_object_object_foreach(data, k, v)
			json_object_object_add(ev, k, jsonx_ref(v));
	}
	if (error != NULL)
		jsonx_set_str(ev, "error", error);
	loop_emit(ev);
}

int
compact_now(const char *reason, const char *instructions,
    struct json_object **data)
{
	struct json_object *ev, *d = NULL;
	struct path p;
	const char *prev = NULL, *why = NULL;
	const char *args[12];
	char *ctx = NULL, *summary = NULL, toks[32];
	size_t i, c = (size_t)-1, start = 0, cut, len, acc;
	long keep = L.o.keep_recent;
	long long before = L.last_context_tokens;
	struct pi_error e;
	struct buf out;
	int code;

	if (wait_stored() == -1 || read_path(&p) == -1) {
		loop_stop(TERM_ERROR, PI_EXIT_FAIL, "compaction: cannot read "
		    "the session");
		return -1;
	}
	for (i = p.n; i-- > 0;)
		if (strcmp(type_of(p.v[i]), "compaction") == 0) {
			c = i;
			break;
		}
	if (c != (size_t)-1) {
		/* From what the last compaction kept, so nothing is lost. */
		prev = jsonx_str(p.v[c], "summary");
		start = index_of(&p, jsonx_str(p.v[c], "firstKeptEntryId"), c);
		if (start == (size_t)-1)
			start = c + 1;
	}
	if (before <= 0)
		for (i = start; i < p.n; i++)
			before += (long long)estimate(p.v[i]);
	ev = event_new("compaction_start");
	jsonx_set_str(ev, "reason", reason);
	jsonx_set_int(ev, "tokensBefore", before);
	loop_emit(ev);
	/*
	 * Keep the newest keep tokens; less when that keeps it all, or
	 * leaves nothing but settings to summarize (a summary of no
	 * message helps nothing).
	 */
	for (cut = start;;) {
		acc = 0;
		for (i = p.n; i-- > start;) {
			acc += estimate(p.v[i]);
			if ((long)acc >= keep)
				break;
		}
		if ((long)acc >= keep) {
			/* At or after that entry; else the nearest before. */
			for (cut = i; cut < p.n && !can_cut(p.v[cut]); cut++)
				;
			if (cut == p.n)
				for (cut = i; cut > start &&
				    !can_cut(p.v[cut]); cut--)
					;
		}
		if (cut > start && cut < p.n && has_message(&p, start, cut))
			break;
		if (strcmp(reason, "threshold") == 0 || keep < 64) {
			why = "Nothing to compact (session too small)";
			goto fail;
		}
		keep /= 2;
	}
	ctx = summary_context(&p, start, cut, prev, instructions, &len);
	L.llm_quiet = 1;
	code = run_llm(ctx, len, 0);
	L.llm_quiet = 0;
	if (code != 0 || (summary = reply_text()) == NULL) {
		why = "Summarization failed: the model gave no summary";
		goto fail;
	}
	buf_init(&out, (size_t)-1);
	(void)buf_adds(&out, summary);
	file_ops(&out, &p, start, cut, prev);
	free(summary);
	summary = buf_detach(&out, NULL);
	(void)snprintf(toks, sizeof(toks), "%lld", before);
	i = 0;
	args[i++] = "compact";
	args[i++] = "--summary-file";
	args[i++] = "-";
	args[i++] = "--first-kept";
	args[i++] = jsonx_str(p.v[cut], "id");
	args[i++] = "--tokens-before";
	args[i++] = toks;
	args[i++] = L.session;
	args[i] = NULL;
	buf_init(&out, 1u << 16);
	code = sess_run(args, summary, &out, &e);
	while (out.len > 0 && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	if (code != 0) {
		buf_release(&out);
		why = "pi-sess compact failed";
		goto fail;
	}
	d = json_object_new_object();
	jsonx_set(d, "summary", jsonx_new_str(summary, strlen(summary)));
	jsonx_set_str(d, "firstKeptEntryId", jsonx_str(p.v[cut], "id"));
	jsonx_set_int(d, "tokensBefore", before);
	jsonx_set_str(d, "entryId", out.data ? out.data : "");
	buf_release(&out);
	compaction_end(reason, d, NULL, before);
	L.last_context_tokens = 0;
	if (data != NULL)
		*data = d;
	else
		json_object_put(d);
	free(ctx);
	free(summary);
	path_release(&p);
	return 0;
fail:
	compaction_end(reason, NULL, why, before);
	if (strcmp(reason, "overflow") == 0)
		loop_stop(TERM_ERROR, PI_EXIT_REFUSED, "the context overflowed "
		    "and could not be compacted: %s", why);
	else
		fprintf(stderr, "pi-loop: compaction (%s): %s\n", reason, why);
	free(ctx);
	free(summary);
	path_release(&p);
	if (data != NULL)
		*data = NULL;
	return strcmp(reason, "overflow") == 0 ? -1 : 1;
}
