/* jsonx: see jsonx.h. */
#include "jsonx.h"

#include <string.h>

#include "buf.h"
#include "utf8.h"
#include "util.h"
#include "banned.h"

#define JSONX_DEPTH 128

struct json_object *
jsonx_parse(const char *p, size_t n, struct pi_error *e)
{
	return jsonx_parse_at(p, n, NULL, e);
}

struct json_object *
jsonx_parse_at(const char *p, size_t n, size_t *where, struct pi_error *e)
{
	static struct json_tokener *tok;
	struct json_object *o;
	struct buf clean;
	enum json_tokener_error jerr;
	size_t end;

	buf_init(&clean, (size_t)-1 / 2);
	if (!utf8_valid(p, n)) {
		utf8_sanitize(&clean, p, n);
		p = clean.data;
		n = clean.len;
	}
	if (n > INT32_MAX) {
		buf_release(&clean);
		pi_err(e, PI_EXIT_INPUT, "bad_input", "JSON text too long");
		return NULL;
	}
	/*
	 * One tokener for the life of the process: a new one costs a
	 * malloc and a memset of its whole stack per stream chunk.
	 */
	if (tok == NULL && (tok = json_tokener_new_ex(JSONX_DEPTH)) == NULL) {
		buf_release(&clean);
		pi_err(e, PI_EXIT_FAIL, "internal", "out of memory");
		return NULL;
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, p, (int)n);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		/* A lone number needs an end to be complete. */
		json_object_put(o);
		o = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		end = n;
	} else
		end = json_tokener_get_parse_end(tok);
	if (where != NULL)
		*where = end;
	if (jerr == json_tokener_success) {
		while (end < n && strchr(" \t\r\n", p[end]) != NULL)
			end++;
		if (end < n) {
			json_object_put(o);
			o = NULL;
			pi_err(e, PI_EXIT_INPUT, "bad_input",
			    "trailing characters after JSON value");
		}
	} else {
		json_object_put(o);
		o = NULL;
		pi_err(e, PI_EXIT_INPUT, "bad_input", "invalid JSON: %s",
		    json_tokener_error_desc(jerr));
	}
	buf_release(&clean);
	return o;
}

const char *
jsonx_string(struct json_object *o, size_t *len)
{
	return json_object_to_json_string_length(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, len);
}

struct json_object *
jsonx_get(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

int
jsonx_is(struct json_object *o, enum json_type t)
{
	return o != NULL && json_object_is_type(o, t);
}

const char *
jsonx_str(struct json_object *o, const char *key)
{
	struct json_object *v = jsonx_get(o, key);

	return jsonx_is(v, json_type_string) ? json_object_get_string(v) : NULL;
}

struct json_object *
jsonx_obj(struct json_object *o, const char *key)
{
	struct json_object *v = jsonx_get(o, key);

	return jsonx_is(v, json_type_object) ? v : NULL;
}

struct json_object *
jsonx_arr(struct json_object *o, const char *key)
{
	struct json_object *v = jsonx_get(o, key);

	return jsonx_is(v, json_type_array) ? v : NULL;
}

int64_t
jsonx_int(struct json_object *o, const char *key, int64_t def)
{
	struct json_object *v = jsonx_get(o, key);
	double d;

	if (jsonx_is(v, json_type_int))
		return json_object_get_int64(v);
	if (!jsonx_is(v, json_type_double))
		return def;
	/* A double out of range (1e300, inf, NaN) made int64_t is UB. */
	d = json_object_get_double(v);
	if (d != d)
		return def;
	if (d >= 9223372036854775808.0)
		return INT64_MAX;
	if (d < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

double
jsonx_num(struct json_object *o, const char *key, double def)
{
	struct json_object *v = jsonx_get(o, key);

	if (jsonx_is(v, json_type_int) || jsonx_is(v, json_type_double))
		return json_object_get_double(v);
	return def;
}

int
jsonx_bool(struct json_object *o, const char *key, int def)
{
	struct json_object *v = jsonx_get(o, key);

	return jsonx_is(v, json_type_boolean) ? json_object_get_boolean(v) : def;
}

struct json_object *
jsonx_new_str(const char *p, size_t n)
{
	struct json_object *o;
	struct buf b;

	if (utf8_valid(p, n))
		return json_object_new_string_len(p, (int)n);
	buf_init(&b, (size_t)-1 / 2);
	utf8_sanitize(&b, p, n);
	o = json_object_new_string_len(b.data, (int)b.len);
	buf_release(&b);
	return o;
}

void
jsonx_set(struct json_object *o, const char *key, struct json_object *val)
{
	json_object_object_add(o, key, val);
}

void
jsonx_set_str(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, jsonx_new_str(s, strlen(s)));
}

void
jsonx_set_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

void
jsonx_set_bool(struct json_object *o, const char *key, int v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

struct json_object *
jsonx_ref(struct json_object *o)
{
	return json_object_get(o);
}

struct json_object *
jsonx_copy(struct json_object *o)
{
	struct json_object *c = NULL;

	if (o == NULL)
		return NULL;
	if (json_object_deep_copy(o, &c, NULL) != 0)
		return NULL;
	return c;
}
