/* entry: see entry.h. */
#include "entry.h"

#include <string.h>

#include "core/context.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define TYPE_MAX	64

/* What each type must carry: keys whose value is a string. */
static const struct {
	const char *type;
	const char *str[2];	/* must be strings */
	const char *opt[2];	/* strings or null when present */
} rules[] = {
	{ "message", { NULL, NULL }, { NULL, NULL } },
	{ "model_change", { "provider", "modelId" }, { NULL, NULL } },
	{ "thinking_level_change", { "thinkingLevel", NULL },
	    { NULL, NULL } },
	{ "compaction", { "summary", NULL }, { "firstKeptEntryId", NULL } },
	{ "branch_summary", { "summary", NULL }, { "fromId", NULL } },
	{ "custom", { "customType", NULL }, { NULL, NULL } },
	{ "custom_message", { "customType", NULL }, { NULL, NULL } },
	{ "label", { "targetId", NULL }, { "label", NULL } },
	{ "session_info", { NULL, NULL }, { "name", NULL } },
};

/* Content as a message may hold it: absent, a string, or typed blocks. */
static int
good_content(struct json_object *m)
{
	struct json_object *c = jsonx_get(m, "content");
	size_t i;

	if (c == NULL || jsonx_is(c, json_type_string))
		return 1;
	if (!jsonx_is(c, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(c); i++)
		if (jsonx_str(json_object_array_get_idx(c, i), "type") == NULL)
			return 0;
	return 1;
}

static int
check_message(struct json_object *m, struct pi_error *e)
{
	struct pi_error le;
	const char *why, *role = jsonx_str(m, "role");

	if (context_check_message(m, 1, "", 0, &le) == -1) {
		/* Its "NAME:LINE: " goes: the caller says where. */
		why = strstr(le.msg, ": ");
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s",
		    why ? why + 2 : le.msg);
	}
	if (strcmp(role, "custom") == 0 && !good_content(m))
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "custom message "
		    "has a \"content\" that is neither a string nor blocks");
	return 0;
}

int
entry_check(const char *type, struct json_object *data, size_t len,
    struct pi_error *e)
{
	size_t i, k, n = type ? strlen(type) : 0;
	struct json_object *v;

	if (n == 0 || n > TYPE_MAX ||
	    strspn(type, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "entry type "
		    "'%.*s' is not a word of at most %d characters",
		    TYPE_MAX, type ? type : "", TYPE_MAX);
	if (len > PI_MAX_ENTRY)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s entry of %zu "
		    "bytes: larger than %u bytes", type, len, PI_MAX_ENTRY);
	if (!jsonx_is(data, json_type_object))
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s entry: its "
		    "data is not a JSON object", type);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(type, rules[i].type) == 0)
			break;
	if (i == sizeof(rules) / sizeof(rules[0]))
		return 0;
	if (strcmp(type, "message") == 0)
		return check_message(data, e);
	for (k = 0; k < 2; k++) {
		if (rules[i].str[k] != NULL &&
		    jsonx_str(data, rules[i].str[k]) == NULL)
			return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s "
			    "entry has no string \"%s\"", type,
			    rules[i].str[k]);
		if (rules[i].opt[k] != NULL &&
		    (v = jsonx_get(data, rules[i].opt[k])) != NULL &&
		    !jsonx_is(v, json_type_string))
			return pi_err(e, PI_EXIT_INPUT, "bad_input", "%s "
			    "entry: \"%s\" is not a string", type,
			    rules[i].opt[k]);
	}
	if (strcmp(type, "custom_message") == 0 && !good_content(data))
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "custom_message "
		    "entry has a \"content\" that is neither a string nor "
		    "blocks");
	return 0;
}
