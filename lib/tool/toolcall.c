/* toolcall: see toolcall.h. */
#include "toolcall.h"

#include <stdlib.h>
#include <string.h>

#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

/* The first of o's string keys a and b there is, or NULL. */
static const char *
either(struct json_object *o, const char *a, const char *b)
{
	return jsonx_str(o, a) ? jsonx_str(o, a) : jsonx_str(o, b);
}

static int
blank(const char *p, size_t n)
{
	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++, n--;
	return n == 0;
}

static int
is_call(struct json_object *o)
{
	const char *type = jsonx_str(o, "type");

	if (type != NULL)
		return strcmp(type, "toolcall_end") == 0 ||
		    strcmp(type, "toolCall") == 0;
	return either(o, "toolName", "name") != NULL;
}

static void
take(struct toolcall *c, struct json_object *o)
{
	struct json_object *input = jsonx_get(o, "input") ?
	    jsonx_get(o, "input") : jsonx_get(o, "arguments");
	const char *s;

	c->id = xstrdup(either(o, "toolCallId", "id") ?
	    either(o, "toolCallId", "id") : "");
	c->name = xstrdup(either(o, "toolName", "name") ?
	    either(o, "toolName", "name") : "");
	if (jsonx_str(o, "messageId") != NULL)
		c->message_id = xstrdup(jsonx_str(o, "messageId"));
	if (jsonx_is(input, json_type_string)) {
		s = json_object_get_string(input);
		if ((c->input = jsonx_parse(s, strlen(s), NULL)) == NULL)
			c->input = jsonx_ref(input);
	} else
		c->input = input ? jsonx_ref(input) : json_object_new_object();
}

int
toolcall_parse(struct toolcall *c, const char *p, size_t n,
    const char *source, struct pi_error *e)
{
	const char *line, *nl, *end = p + n;
	struct json_object *o;
	size_t lineno = 0, len;

	memset(c, 0, sizeof(*c));
	for (line = p; line < end; line = nl + 1) {
		lineno++;
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		len = (size_t)(nl - line);
		if (blank(line, len))
			continue;
		if ((o = jsonx_parse(line, len, e)) == NULL)
			return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: %s",
			    source, lineno, e->msg);
		if (!is_call(o)) {
			json_object_put(o);
			continue;
		}
		if (c->id != NULL) {
			json_object_put(o);
			return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: a "
			    "second tool call; pi-tool runs exactly one",
			    source, lineno);
		}
		take(c, o);
		json_object_put(o);
		if (*c->id == '\0' || *c->name == '\0')
			return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: a "
			    "tool call needs toolCallId and toolName", source,
			    lineno);
	}
	if (c->id == NULL)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s: no tool call",
		    source);
	return 0;
}

void
toolcall_release(struct toolcall *c)
{
	free(c->id);
	free(c->name);
	free(c->message_id);
	json_object_put(c->input);
	memset(c, 0, sizeof(*c));
}
