/* schema: see schema.h. */
#include "schema.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/jsonx.h"
#include "core/banned.h"

/*
 * A "$ref" that leads back into itself (a tree, a linked list) would
 * be inlined forever, and a few of them in one definition would grow
 * the copy exponentially: past this many references deep, or this many
 * in all, a reference stays untyped.
 */
#define REF_DEPTH 8
#define REF_TOTAL 256

struct walk {
	struct json_object *root;
	int refs_left;
};

/* The fields of Gemini's Schema proto (ai.google.dev/api/caching#Schema). */
static const char *const google_fields[] = {
	"anyOf", "default", "description", "enum", "example", "format",
	"items", "maxItems", "maxLength", "maxProperties", "maximum",
	"minItems", "minLength", "minProperties", "minimum", "nullable",
	"pattern", "properties", "propertyOrdering", "required", "title",
	"type",
};

/* Formats the proto accepts, per type; any other is refused. */
static const char *const google_formats[][3] = {
	{ "string", "enum", "date-time" },
	{ "number", "float", "double" },
	{ "integer", "int32", "int64" },
};

static struct json_object *google(struct json_object *s,
    struct walk *w, int depth);

static int
is_google_field(const char *k)
{
	size_t i;

	for (i = 0; i < sizeof(google_fields) / sizeof(*google_fields); i++)
		if (strcmp(k, google_fields[i]) == 0)
			return 1;
	return 0;
}

static int
format_ok(const char *type, const char *format)
{
	size_t i;

	if (type == NULL || format == NULL)
		return 0;
	for (i = 0; i < sizeof(google_formats) / sizeof(*google_formats); i++)
		if (strcmp(type, google_formats[i][0]) == 0)
			return strcmp(format, google_formats[i][1]) == 0 ||
			    strcmp(format, google_formats[i][2]) == 0;
	return 0;
}

static int
all_strings(struct json_object *a)
{
	size_t i, n = json_object_array_length(a);

	for (i = 0; i < n; i++)
		if (!jsonx_is(json_object_array_get_idx(a, i),
		    json_type_string))
			return 0;
	return n > 0;
}

/* "#/$defs/name" and the like, as a JSON pointer into root; NULL if not. */
static struct json_object *
resolve(const char *ref, struct json_object *root)
{
	struct json_object *o = root;
	const char *p, *end;
	char *tok, *d;

	if (ref[0] != '#')
		return NULL;	/* a remote document: not ours to fetch */
	for (p = ref + 1; *p == '/' && o != NULL; p = end) {
		p++;
		end = p + strcspn(p, "/");
		tok = malloc((size_t)(end - p) + 1);
		if (tok == NULL)
			return NULL;
		/* JSON pointer escapes: ~1 is '/', ~0 is '~'. */
		for (d = tok; p < end; p++)
			if (*p == '~' && p + 1 < end && (p[1] == '0' ||
			    p[1] == '1'))
				*d++ = *++p == '1' ? '/' : '~';
			else
				*d++ = *p;
		*d = '\0';
		o = jsonx_get(o, tok);
		free(tok);
	}
	return *p == '\0' ? o : NULL;
}

/*
 * Add src's keywords that dst lacks: dst's own win.  Properties and
 * required lists are unions, since that is what "allOf" of two object
 * schemas means.  Takes src's reference.
 */
static void
merge(struct json_object *dst, struct json_object *src)
{
	struct json_object *have;
	size_t i, j, n;
	int dup;

	json_object_object_foreach(src, k, v) {
		have = jsonx_get(dst, k);
		if (have == NULL) {
			jsonx_set(dst, k, jsonx_ref(v));
		} else if (strcmp(k, "properties") == 0 &&
		    jsonx_is(have, json_type_object) &&
		    jsonx_is(v, json_type_object)) {
			json_object_object_foreach(v, pk, pv)
				if (jsonx_get(have, pk) == NULL)
					jsonx_set(have, pk, jsonx_ref(pv));
		} else if (strcmp(k, "required") == 0 &&
		    jsonx_is(have, json_type_array) &&
		    jsonx_is(v, json_type_array)) {
			n = json_object_array_length(v);
			for (i = 0; i < n; i++) {
				dup = 0;
				for (j = 0; j < json_object_array_length(have);
				    j++)
					dup |= json_object_equal(
					    json_object_array_get_idx(have, j),
					    json_object_array_get_idx(v, i));
				if (!dup)
					json_object_array_add(have, jsonx_ref(
					    json_object_array_get_idx(v, i)));
			}
		}
	}
	json_object_put(src);
}

/* Append b's members to a; takes b's reference. */
static void
merge_list(struct json_object *a, struct json_object *b)
{
	size_t i, n = json_object_array_length(b);

	for (i = 0; i < n; i++)
		json_object_array_add(a, jsonx_ref(json_object_array_get_idx(b,
		    i)));
	json_object_put(b);
}

static struct json_object *
map_schemas(struct json_object *a, struct walk *w, int depth)
{
	struct json_object *out = json_object_new_array();
	size_t i, n = json_object_array_length(a);

	for (i = 0; i < n; i++)
		json_object_array_add(out, google(json_object_array_get_idx(a,
		    i), w, depth));
	return out;
}

/* A JSON Schema type list: the proto has one type and "nullable". */
static void
type_list(struct json_object *out, struct json_object *types)
{
	struct json_object *any, *t, *one;
	const char *name;
	size_t i, n = json_object_array_length(types), k = 0;

	any = json_object_new_array();
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(types, i);
		if ((name = json_object_get_string(t)) == NULL ||
		    !jsonx_is(t, json_type_string))
			continue;
		if (strcmp(name, "null") == 0) {
			jsonx_set_bool(out, "nullable", 1);
			continue;
		}
		one = json_object_new_object();
		jsonx_set_str(one, "type", name);
		json_object_array_add(any, one);
		k++;
	}
	if (k == 1)
		jsonx_set(out, "type", jsonx_ref(jsonx_get(
		    json_object_array_get_idx(any, 0), "type")));
	if (k > 1 && jsonx_get(out, "anyOf") == NULL)
		jsonx_set(out, "anyOf", jsonx_ref(any));
	json_object_put(any);
}

/* One keyword of a schema object, translated into out (or dropped). */
static void
keyword(struct json_object *out, const char *k, struct json_object *v,
    struct json_object *s, struct walk *w, int depth)
{
	struct json_object *o, *a;

	if (strcmp(k, "properties") == 0 && jsonx_is(v, json_type_object)) {
		o = json_object_new_object();
		json_object_object_foreach(v, name, sub)
			jsonx_set(o, name, google(sub, w, depth));
		jsonx_set(out, k, o);
	} else if (strcmp(k, "items") == 0) {
		/* A tuple has no proto form; its first member is near. */
		jsonx_set(out, k, google(jsonx_is(v, json_type_array) ?
		    json_object_array_get_idx(v, 0) : v, w, depth));
	} else if ((strcmp(k, "anyOf") == 0 || strcmp(k, "oneOf") == 0) &&
	    jsonx_is(v, json_type_array)) {
		/* Exactly one of them is more than the proto can say. */
		if ((a = jsonx_arr(out, "anyOf")) == NULL)
			jsonx_set(out, "anyOf", map_schemas(v, w, depth));
		else
			merge_list(a, map_schemas(v, w, depth));
	} else if (strcmp(k, "type") == 0 && jsonx_is(v, json_type_array)) {
		type_list(out, v);
	} else if (strcmp(k, "const") == 0 && jsonx_is(v, json_type_string)) {
		a = json_object_new_array();
		json_object_array_add(a, jsonx_copy(v));
		jsonx_set(out, "enum", a);
	} else if (strcmp(k, "enum") == 0) {
		/* The proto's enum holds strings; 0 or true is refused. */
		if (jsonx_is(v, json_type_array) && all_strings(v))
			jsonx_set(out, k, jsonx_copy(v));
	} else if (strcmp(k, "format") == 0) {
		if (format_ok(jsonx_str(s, "type"), json_object_get_string(v)))
			jsonx_set(out, k, jsonx_copy(v));
	} else if (is_google_field(k) && jsonx_get(out, k) == NULL)
		jsonx_set(out, k, jsonx_copy(v));
}

static struct json_object *
google(struct json_object *s, struct walk *w, int depth)
{
	struct json_object *out = json_object_new_object(), *def, *all;
	const char *ref;
	size_t i, n;

	/* A boolean schema ("true": anything) has no proto form. */
	if (!jsonx_is(s, json_type_object))
		return out;
	json_object_object_foreach(s, k, v)
		keyword(out, k, v, s, w, depth);
	if ((ref = jsonx_str(s, "$ref")) != NULL && depth < REF_DEPTH &&
	    w->refs_left > 0 && (def = resolve(ref, w->root)) != NULL) {
		w->refs_left--;
		merge(out, google(def, w, depth + 1));
	}
	if ((all = jsonx_arr(s, "allOf")) != NULL) {
		n = json_object_array_length(all);
		for (i = 0; i < n; i++)
			merge(out, google(json_object_array_get_idx(all, i),
			    w, depth));
	}
	return out;
}

struct json_object *
schema_for_api(struct json_object *schema, const char *api)
{
	struct walk w = { schema, REF_TOTAL };

	if (schema == NULL)
		return NULL;
	if (strcmp(api, "google-generative-ai") == 0)
		return google(schema, &w, 0);
	return jsonx_copy(schema);
}

struct json_object *
schema_tool(struct json_object *tool, const char *api, const char *key)
{
	struct json_object *t = json_object_new_object();

	jsonx_set(t, "name", jsonx_ref(jsonx_get(tool, "name")));
	jsonx_set(t, "description", jsonx_ref(jsonx_get(tool, "description")));
	jsonx_set(t, key, schema_for_api(jsonx_get(tool, "inputSchema"), api));
	return t;
}
