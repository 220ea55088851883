/* projection: see projection.h. */
#include "projection.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "core/banned.h"

/* pi's wording (coding-agent src/core/messages.ts). */
#define COMPACTION_PREFIX "The conversation history before this point " \
	"was compacted into the following summary:\n\n<summary>\n"
#define COMPACTION_SUFFIX "\n</summary>"
#define BRANCH_PREFIX "The following is a summary of a branch that this " \
	"conversation came back from:\n\n<summary>\n"
#define BRANCH_SUFFIX "</summary>"

/* Where the walk is: every message counts, those before the newest
 * compaction back to its first kept entry, or only the settings. */
enum { ALL, KEPT, SETTINGS };

void
projection_init(struct projection *p)
{
	memset(p, 0, sizeof(*p));
}

void
projection_release(struct projection *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		free(p->lines[i]);
	free(p->lines);
	free(p->system);
	free(p->provider);
	free(p->model);
	free(p->thinking);
	free(p->compaction_id);
	free(p->first_kept);
	free(p->summary);
	strv_release(&p->skipped);
	memset(p, 0, sizeof(*p));
}

static void
push(struct projection *p, char *line, size_t len)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->lines = xrealloc(p->lines, p->cap * sizeof(*p->lines));
	}
	p->lines[p->n++] = line;
	p->chars += len;
}

/* A user message with the given content (a string or blocks), a line. */
static char *
user_content(struct json_object *content, int64_t ts, size_t *len)
{
	struct json_object *m = context_user_message(content, ts);
	const char *s = jsonx_string(m, len);
	char *line = xstrndup(s, *len);

	json_object_put(m);
	return line;
}

/* A user message of one text block, as a line. */
static char *
user_text(const char *text, int64_t ts, size_t *len)
{
	struct json_object *t = jsonx_new_str(text, strlen(text));
	char *line = user_content(t, ts, len);

	json_object_put(t);
	return line;
}

/* pi's bashExecutionToText. */
static char *
bash_text(struct json_object *m)
{
	struct buf b;
	const char *out = jsonx_str(m, "output"), *full;
	struct json_object *code = jsonx_get(m, "exitCode");

	buf_init(&b, (size_t)-1);
	(void)buf_addf(&b, "Ran `%s`\n", jsonx_str(m, "command") ?
	    jsonx_str(m, "command") : "");
	if (out != NULL && *out != '\0')
		(void)buf_addf(&b, "```\n%s\n```", out);
	else
		(void)buf_adds(&b, "(no output)");
	if (jsonx_bool(m, "cancelled", 0))
		(void)buf_adds(&b, "\n\n(command cancelled)");
	else if (jsonx_is(code, json_type_int) &&
	    json_object_get_int64(code) != 0)
		(void)buf_addf(&b, "\n\nCommand exited with code %lld",
		    (long long)json_object_get_int64(code));
	if (jsonx_bool(m, "truncated", 0) &&
	    (full = jsonx_str(m, "fullOutputPath")) != NULL)
		(void)buf_addf(&b, "\n\n[Output truncated. Full output: %s]",
		    full);
	return buf_detach(&b, NULL);
}

/* The message line an entry makes, or NULL when it makes none. */
static char *
message_line(const struct store_entry *en, size_t *len)
{
	struct json_object *o;
	const char *role = en->role, *t;
	char *line = NULL, *text;

	*len = 0;
	if (strcmp(en->type, "message") == 0 && role != NULL &&
	    (strcmp(role, "user") == 0 || strcmp(role, "assistant") == 0 ||
	    strcmp(role, "toolResult") == 0)) {
		*len = en->data_len;
		return xstrndup(en->data, en->data_len);
	}
	if (strcmp(en->type, "message") != 0 &&
	    strcmp(en->type, "custom_message") != 0 &&
	    strcmp(en->type, "branch_summary") != 0)
		return NULL;
	if ((o = jsonx_parse(en->data, en->data_len, NULL)) == NULL)
		return NULL;
	if (strcmp(en->type, "custom_message") == 0)
		line = user_content(jsonx_get(o, "content"), en->ts, len);
	else if (role != NULL && strcmp(role, "custom") == 0)
		line = user_content(jsonx_get(o, "content"),
		    jsonx_int(o, "timestamp", en->ts), len);
	else if (strcmp(en->type, "branch_summary") == 0) {
		if ((t = jsonx_str(o, "summary")) != NULL && *t != '\0') {
			text = xasprintf(BRANCH_PREFIX "%s" BRANCH_SUFFIX, t);
			line = user_text(text, en->ts, len);
			free(text);
		}
	} else if (role != NULL && strcmp(role, "bashExecution") == 0 &&
	    !jsonx_bool(o, "excludeFromContext", 0)) {
		text = bash_text(o);
		line = user_text(text, jsonx_int(o, "timestamp", en->ts), len);
		free(text);
	}
	json_object_put(o);
	return line;
}

/* The settings an entry carries, when they are not known yet. */
static void
settings(struct projection *p, const struct store_entry *en)
{
	struct json_object *o;
	const char *type = en->type, *t;
	int model = p->provider == NULL && (strcmp(type, "model_change") ==
	    0 || (en->role != NULL && strcmp(en->role, "assistant") == 0));
	int think = p->thinking == NULL &&
	    strcmp(type, "thinking_level_change") == 0;
	int sys = p->system == NULL && strcmp(type, "custom") == 0;

	if (!model && !think && !sys)
		return;
	if ((o = jsonx_parse(en->data, en->data_len, NULL)) == NULL)
		return;
	if (model && strcmp(type, "model_change") == 0 &&
	    jsonx_str(o, "provider") && jsonx_str(o, "modelId")) {
		p->provider = xstrdup(jsonx_str(o, "provider"));
		p->model = xstrdup(jsonx_str(o, "modelId"));
	} else if (model && jsonx_str(o, "provider") && jsonx_str(o, "model")) {
		p->provider = xstrdup(jsonx_str(o, "provider"));
		p->model = xstrdup(jsonx_str(o, "model"));
	}
	if (think && (t = jsonx_str(o, "thinkingLevel")) != NULL)
		p->thinking = xstrdup(t);
	if (sys && (t = jsonx_str(o, "customType")) != NULL &&
	    strcmp(t, PROJECTION_SYSTEM_TYPE) == 0 &&
	    (t = jsonx_str(jsonx_obj(o, "data"), "text")) != NULL)
		p->system = xstrdup(t);
	json_object_put(o);
}

static int
compaction(struct projection *p, const struct store_entry *en)
{
	struct json_object *o = jsonx_parse(en->data, en->data_len, NULL);
	const char *summary = jsonx_str(o, "summary"), *kept;
	char *text;
	size_t len;

	if (summary == NULL) {	/* not one pi would apply either */
		json_object_put(o);
		return 0;
	}
	p->compaction_id = xstrdup(en->id);
	text = xasprintf(COMPACTION_PREFIX "%s" COMPACTION_SUFFIX, summary);
	p->summary = user_text(text, en->ts, &len);
	p->chars += len;
	free(text);
	p->after = p->n;
	kept = jsonx_str(o, "firstKeptEntryId");
	p->first_kept = kept ? xstrdup(kept) : NULL;
	p->state = kept ? KEPT : SETTINGS;
	json_object_put(o);
	return 1;
}

static int
visit(void *arg, const struct store_entry *en, struct pi_error *e)
{
	struct projection *p = arg;
	size_t len;
	char *line;

	(void)e;
	if (p->depth == 0)
		p->depth = en->depth;
	if (en->invalid != NULL) {
		/* Stored before the store checked: pi-llm would refuse it. */
		if (p->state != SETTINGS) {
			line = xasprintf("%s: %s", en->id, en->invalid);
			strv_push(&p->skipped, line);
			free(line);
		}
	} else {
		settings(p, en);
		if (p->state == ALL && strcmp(en->type, "compaction") == 0 &&
		    compaction(p, en))
			return 0;
		if (p->state != SETTINGS &&
		    (line = message_line(en, &len)) != NULL)
			push(p, line, len);
	}
	if (p->state == KEPT && strcmp(en->id, p->first_kept) == 0)
		p->state = SETTINGS;
	return p->state == SETTINGS && p->provider != NULL &&
	    p->thinking != NULL && p->system != NULL;
}

int
projection_build(struct projection *p, struct store *s,
    struct store_pos head, struct pi_error *e)
{
	if (store_walk_back(s, head, visit, p, e) == -1)
		return -1;
	if (p->state == KEPT) {
		/* The first kept entry is not on the path: keep none. */
		while (p->n > p->after) {
			free(p->lines[--p->n]);
			p->lines[p->n] = NULL;
		}
	}
	return 0;
}

int
projection_write(struct projection *p, const char *session_id,
    const char *head_id, struct ndjson_batch *w)
{
	struct json_object *ev = event_new("context"), *m;
	size_t i;
	int rc;

	jsonx_set_str(ev, "sessionId", session_id);
	jsonx_set(ev, "headId", head_id && *head_id ?
	    json_object_new_string(head_id) : NULL);
	jsonx_set_int(ev, "entries", p->depth);
	jsonx_set_int(ev, "messages", (int64_t)p->n + (p->summary != NULL));
	jsonx_set_int(ev, "estimatedTokens", (int64_t)(p->chars + 3) / 4);
	if (p->provider != NULL) {
		m = json_object_new_object();
		jsonx_set_str(m, "provider", p->provider);
		jsonx_set_str(m, "modelId", p->model);
		jsonx_set(ev, "model", m);
	} else
		jsonx_set(ev, "model", NULL);
	jsonx_set_str(ev, "thinkingLevel", p->thinking ? p->thinking : "off");
	jsonx_set(ev, "compactionId", p->compaction_id ?
	    json_object_new_string(p->compaction_id) : NULL);
	rc = ndjson_batch_obj(w, ev);
	json_object_put(ev);
	if (rc == -1)
		return -1;
	if (p->system != NULL) {
		ev = event_new("system");
		jsonx_set(ev, "text", jsonx_new_str(p->system,
		    strlen(p->system)));
		rc = ndjson_batch_obj(w, ev);
		json_object_put(ev);
		if (rc == -1)
			return -1;
	}
	if (p->summary != NULL &&
	    ndjson_batch_line(w, p->summary, strlen(p->summary)) == -1)
		return -1;
	for (i = p->n; i-- > 0;)
		if (ndjson_batch_line(w, p->lines[i], strlen(p->lines[i])) == -1)
			return -1;
	return 0;
}
