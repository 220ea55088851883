/* validate: see validate.h. */
#include "validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/jsonx.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/banned.h"

#define MAX_DEPTH	64	/* deeper parts of a schema are not checked */
#define MAX_ERRORS	100	/* more are counted on one line */

struct vstate {
	struct buf errs;	/* "  - path: message" lines */
	struct buf path;	/* JSON pointer of the value being checked */
	int nerr;
};

/*
 * A number as JavaScript prints it (Number::toString): the fewest digits
 * that read back as x, and an exponent only outside 1e-7..1e21.  AJV's
 * messages and JSON.stringify both print numbers so.
 */
static void
js_number(char out[40], double x)
{
	char e[40], digits[24], *q;
	int p, k = 0, n, i;
	size_t o = 0;

	if (!isfinite(x)) {
		snprintf(out, 40, "null");
		return;
	}
	if (x == 0) {
		snprintf(out, 40, "0");
		return;
	}
	for (p = 1; p < 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, x);
		if (strtod(e, NULL) == x)
			break;
	}
	snprintf(e, sizeof(e), "%.*e", p - 1, x);
	if (x < 0)
		out[o++] = '-';
	for (q = e + (x < 0); *q != 'e'; q++)
		if (*q != '.')
			digits[k++] = *q;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	n = (int)strtol(q + 1, NULL, 10) + 1;
	if (k <= n && n <= 21) {
		for (i = 0; i < n; i++)
			out[o++] = i < k ? digits[i] : '0';
	} else if (0 < n && n <= 21) {
		for (i = 0; i < k; i++) {
			if (i == n)
				out[o++] = '.';
			out[o++] = digits[i];
		}
	} else if (-6 < n && n <= 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (i = 0; i < -n; i++)
			out[o++] = '0';
		for (i = 0; i < k; i++)
			out[o++] = digits[i];
	} else {
		out[o++] = digits[0];
		if (k > 1)
			out[o++] = '.';
		for (i = 1; i < k; i++)
			out[o++] = digits[i];
		snprintf(out + o, 40 - o, "e%c%d", n - 1 < 0 ? '-' : '+',
		    abs(n - 1));
		return;
	}
	out[o] = '\0';
}

static void
num_str(char out[40], struct json_object *v)
{
	if (jsonx_is(v, json_type_int))
		snprintf(out, 40, "%lld", (long long)json_object_get_int64(v));
	else
		js_number(out, json_object_get_double(v));
}

static int
is_num(struct json_object *v)
{
	return jsonx_is(v, json_type_int) || jsonx_is(v, json_type_double);
}

/* JSON.stringify's escaping: only '"', '\\' and control characters. */
static int
add_string(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c;
	size_t i, start = 0;
	int rc = buf_addc(b, '"');

	for (i = 0; i < n && rc == 0; i++) {
		c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		rc |= buf_add(b, s + start, i - start);
		start = i + 1;
		switch (c) {
		case '"': rc |= buf_adds(b, "\\\""); break;
		case '\\': rc |= buf_adds(b, "\\\\"); break;
		case '\b': rc |= buf_adds(b, "\\b"); break;
		case '\f': rc |= buf_adds(b, "\\f"); break;
		case '\n': rc |= buf_adds(b, "\\n"); break;
		case '\r': rc |= buf_adds(b, "\\r"); break;
		case '\t': rc |= buf_adds(b, "\\t"); break;
		default:
			rc |= buf_addf(b, "\\u00%c%c", hex[c >> 4],
			    hex[c & 15]);
		}
	}
	rc |= buf_add(b, s + start, n - start);
	return rc | buf_addc(b, '"');
}

static int
pretty(struct buf *b, struct json_object *o, int indent)
{
	char num[40];
	size_t i, n;
	int rc = 0, first = 1;

	switch (o == NULL ? json_type_null : json_object_get_type(o)) {
	case json_type_null:
		return buf_adds(b, "null");
	case json_type_boolean:
		return buf_adds(b, json_object_get_boolean(o) ? "true" :
		    "false");
	case json_type_int:
	case json_type_double:
		num_str(num, o);
		return buf_adds(b, num);
	case json_type_string:
		return add_string(b, json_object_get_string(o),
		    (size_t)json_object_get_string_len(o));
	case json_type_array:
		if ((n = json_object_array_length(o)) == 0)
			return buf_adds(b, "[]");
		rc |= buf_addc(b, '[');
		for (i = 0; i < n; i++) {
			rc |= buf_addf(b, "%s\n%*s", i ? "," : "", indent + 2,
			    "");
			rc |= pretty(b, json_object_array_get_idx(o, i),
			    indent + 2);
		}
		return rc | buf_addf(b, "\n%*s]", indent, "");
	case json_type_object:
		if (json_object_object_length(o) == 0)
			return buf_adds(b, "{}");
		rc |= buf_addc(b, '{');
		json_object_object_foreach(o, key, val) {
			rc |= buf_addf(b, "%s\n%*s", first ? "" : ",",
			    indent + 2, "");
			rc |= add_string(b, key, strlen(key));
			rc |= buf_adds(b, ": ");
			rc |= pretty(b, val, indent + 2);
			first = 0;
		}
		return rc | buf_addf(b, "\n%*s}", indent, "");
	}
	return -1;
}

int
validate_pretty(struct buf *b, struct json_object *o)
{
	return pretty(b, o, 0) ? -1 : 0;
}

/* AJV's error line: the pointer, or the missing property, or "root". */
static void
fail(struct vstate *st, const char *missing, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
fail(struct vstate *st, const char *missing, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	if (st->nerr++ >= MAX_ERRORS)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	msg = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	(void)buf_addf(&st->errs, "%s  - %s: %s", st->errs.len ? "\n" : "",
	    st->path.len ? st->path.data + 1 : missing ? missing : "root",
	    msg);
	free(msg);
}

/* Descend into key (an object's member or an array's index). */
static size_t
push(struct vstate *st, const char *key)
{
	size_t old = st->path.len;

	if (buf_addc(&st->path, '/') == 0)
		for (; *key; key++)
			if ((*key == '~' && buf_adds(&st->path, "~0") == -1) ||
			    (*key == '/' && buf_adds(&st->path, "~1") == -1) ||
			    (*key != '~' && *key != '/' &&
			    buf_addc(&st->path, *key) == -1))
				break;
	return old;
}

static void
pop(struct vstate *st, size_t old)
{
	st->path.len = old;
	if (st->path.cap)
		st->path.data[old] = '\0';
}

static int
equal(struct json_object *a, struct json_object *b)
{
	enum json_type ta = a ? json_object_get_type(a) : json_type_null;
	enum json_type tb = b ? json_object_get_type(b) : json_type_null;
	struct json_object *w;
	size_t i, n;

	if (is_num(a) && is_num(b)) {
		if (ta == json_type_int && tb == json_type_int)
			return json_object_get_int64(a) ==
			    json_object_get_int64(b);
		return json_object_get_double(a) == json_object_get_double(b);
	}
	if (ta != tb)
		return 0;
	switch (ta) {
	case json_type_boolean:
		return !json_object_get_boolean(a) ==
		    !json_object_get_boolean(b);
	case json_type_string:
		return json_object_get_string_len(a) ==
		    json_object_get_string_len(b) &&
		    memcmp(json_object_get_string(a), json_object_get_string(b),
		    (size_t)json_object_get_string_len(a)) == 0;
	case json_type_array:
		if ((n = json_object_array_length(a)) !=
		    json_object_array_length(b))
			return 0;
		for (i = 0; i < n; i++)
			if (!equal(json_object_array_get_idx(a, i),
			    json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	case json_type_object:
		if (json_object_object_length(a) !=
		    json_object_object_length(b))
			return 0;
		json_object_object_foreach(a, key, val)
			if (!json_object_object_get_ex(b, key, &w) ||
			    !equal(val, w))
				return 0;
		return 1;
	default:
		return 1;
	}
}

static int
integral(double d)
{
	return isfinite(d) && d == floor(d);
}

/* -1 for a type name we do not know: then the type is not checked. */
static int
has_type(struct json_object *v, const char *t)
{
	enum json_type jt = v ? json_object_get_type(v) : json_type_null;

	if (strcmp(t, "null") == 0)
		return jt == json_type_null;
	if (strcmp(t, "boolean") == 0)
		return jt == json_type_boolean;
	if (strcmp(t, "object") == 0)
		return jt == json_type_object;
	if (strcmp(t, "array") == 0)
		return jt == json_type_array;
	if (strcmp(t, "string") == 0)
		return jt == json_type_string;
	if (strcmp(t, "number") == 0)
		return is_num(v);
	if (strcmp(t, "integer") == 0)
		return jt == json_type_int || (jt == json_type_double &&
		    integral(json_object_get_double(v)));
	return -1;
}

static struct json_object *
new_number(double d)
{
	if (integral(d) && fabs(d) < 9007199254740992.0)
		return json_object_new_int64((int64_t)d);
	return json_object_new_double(d);
}

/* JavaScript's +s, for the strings AJV would turn into numbers. */
static int
string_number(const char *s, double *d)
{
	const char *end = s + strlen(s);
	char *stop;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	while (end > s && (end[-1] == ' ' || (end[-1] >= '\t' &&
	    end[-1] <= '\r')))
		end--;
	if (s == end) {
		*d = 0;
		return 0;
	}
	*d = strtod(s, &stop);
	return stop == end && isfinite(*d) ? 0 : -1;
}

/*
 * AJV's coerceTypes: 1 with *out set (NULL being JSON null) when v can
 * become a value of type t, else 0.
 */
static int
coerce(struct json_object *v, const char *t, struct json_object **out)
{
	enum json_type jt = v ? json_object_get_type(v) : json_type_null;
	const char *s = jt == json_type_string ? json_object_get_string(v) :
	    NULL;
	char num[40];
	double d;

	if (strcmp(t, "number") == 0 || strcmp(t, "integer") == 0) {
		if (jt == json_type_boolean)
			d = json_object_get_boolean(v);
		else if (jt == json_type_null)
			d = 0;
		else if (s == NULL || *s == '\0' || string_number(s, &d) == -1)
			return 0;
		if (t[0] == 'i' && !integral(d))
			return 0;
		*out = new_number(d);
		return 1;
	}
	if (strcmp(t, "string") == 0) {
		if (jt == json_type_null)
			*out = json_object_new_string("");
		else if (jt == json_type_boolean)
			*out = json_object_new_string(
			    json_object_get_boolean(v) ? "true" : "false");
		else if (is_num(v)) {
			num_str(num, v);
			*out = json_object_new_string(num);
		} else
			return 0;
		return 1;
	}
	if (strcmp(t, "boolean") == 0) {
		if (jt == json_type_null || (s && strcmp(s, "false") == 0) ||
		    (is_num(v) && json_object_get_double(v) == 0))
			*out = json_object_new_boolean(0);
		else if ((s && strcmp(s, "true") == 0) ||
		    (is_num(v) && json_object_get_double(v) == 1))
			*out = json_object_new_boolean(1);
		else
			return 0;
		return 1;
	}
	if (strcmp(t, "null") == 0) {
		if ((s && *s == '\0') || (is_num(v) &&
		    json_object_get_double(v) == 0) ||
		    (jt == json_type_boolean && !json_object_get_boolean(v))) {
			*out = NULL;
			return 1;
		}
	}
	return 0;
}

static void check(struct vstate *st, struct json_object *s,
    struct json_object **vp, int depth);

/* The type keyword; *vp may be replaced by a coerced value. */
static void
check_type(struct vstate *st, struct json_object *type,
    struct json_object **vp)
{
	struct json_object *nv;
	struct buf names;
	const char *t;
	size_t i, n = 1;

	if (jsonx_is(type, json_type_array))
		n = json_object_array_length(type);
	else if (!jsonx_is(type, json_type_string))
		return;
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		t = json_object_get_string(jsonx_is(type, json_type_array) ?
		    json_object_array_get_idx(type, i) : type);
		/* A match, or a type we do not know: nothing to say. */
		if (t == NULL || has_type(*vp, t) != 0)
			return;
	}
	for (i = 0; i < n; i++) {
		t = json_object_get_string(jsonx_is(type, json_type_array) ?
		    json_object_array_get_idx(type, i) : type);
		if (coerce(*vp, t, &nv)) {
			*vp = nv;
			return;
		}
	}
	buf_init(&names, 4096);
	for (i = 0; i < n; i++)
		(void)buf_addf(&names, "%s%s", i ? "," : "",
		    json_object_get_string(jsonx_is(type, json_type_array) ?
		    json_object_array_get_idx(type, i) : type));
	fail(st, NULL, "must be %s", names.data);
	buf_release(&names);
}

static void
check_number(struct vstate *st, struct json_object *s, double d)
{
	static const struct {
		const char *kw, *op;
		int sign;	/* the failing side: d < x (-1), d > x (1) */
		int strict;
	} kws[] = {
		{ "maximum", "<=", 1, 0 },
		{ "minimum", ">=", -1, 0 },
		{ "exclusiveMaximum", "<", 1, 1 },
		{ "exclusiveMinimum", ">", -1, 1 },
	};
	struct json_object *x;
	char num[40];
	double lim;
	size_t i;
	int bad;

	for (i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		if (!is_num(x = jsonx_get(s, kws[i].kw)))
			continue;
		lim = json_object_get_double(x);
		bad = kws[i].sign > 0 ? d > lim || (kws[i].strict && d == lim) :
		    d < lim || (kws[i].strict && d == lim);
		if (bad) {
			num_str(num, x);
			fail(st, NULL, "must be %s %s", kws[i].op, num);
		}
	}
}

/* maxLength/minLength, maxItems/minItems: n is the length. */
static void
check_count(struct vstate *st, struct json_object *s, size_t n,
    const char *maxkw, const char *minkw, const char *what)
{
	struct json_object *x;
	char num[40];

	if (is_num(x = jsonx_get(s, maxkw)) && (double)n >
	    json_object_get_double(x)) {
		num_str(num, x);
		fail(st, NULL, "must NOT have more than %s %s", num, what);
	}
	if (is_num(x = jsonx_get(s, minkw)) && (double)n <
	    json_object_get_double(x)) {
		num_str(num, x);
		fail(st, NULL, "must NOT have fewer than %s %s", num, what);
	}
}

static void
check_array(struct vstate *st, struct json_object *s, struct json_object *v,
    int depth)
{
	struct json_object *items = jsonx_get(s, "items"), *sub, *e, *ne;
	size_t i, n = json_object_array_length(v), old;
	char idx[32];

	check_count(st, s, n, "maxItems", "minItems", "items");
	if (items == NULL)
		return;
	for (i = 0; i < n; i++) {
		sub = items;
		if (jsonx_is(items, json_type_array)) {
			if (i >= json_object_array_length(items))
				break;
			sub = json_object_array_get_idx(items, i);
		}
		ne = e = json_object_array_get_idx(v, i);
		snprintf(idx, sizeof(idx), "%zu", i);
		old = push(st, idx);
		check(st, sub, &ne, depth + 1);
		pop(st, old);
		if (ne != e)
			json_object_array_put_idx(v, i, ne);
	}
}

static void
check_object(struct vstate *st, struct json_object *s, struct json_object *v,
    int depth)
{
	struct json_object *req = jsonx_arr(s, "required");
	struct json_object *props = jsonx_obj(s, "properties");
	struct json_object *add, *val, *nv, *w;
	const char *name;
	size_t i, old;

	for (i = 0; req && i < json_object_array_length(req); i++) {
		name = json_object_get_string(json_object_array_get_idx(req,
		    i));
		if (name && !json_object_object_get_ex(v, name, &w))
			fail(st, name, "must have required property '%s'",
			    name);
	}
	/* Without regular expressions, patternProperties cannot be told. */
	if (json_object_object_get_ex(s, "additionalProperties", &add) &&
	    jsonx_get(s, "patternProperties") == NULL &&
	    (jsonx_is(add, json_type_object) ||
	    (jsonx_is(add, json_type_boolean) &&
	    !json_object_get_boolean(add)))) {
		json_object_object_foreach(v, key, kv) {
			if (props && json_object_object_get_ex(props, key, &w))
				continue;
			if (!jsonx_is(add, json_type_object)) {
				fail(st, NULL,
				    "must NOT have additional properties");
				continue;
			}
			nv = kv;
			old = push(st, key);
			check(st, add, &nv, depth + 1);
			pop(st, old);
			if (nv != kv)
				json_object_object_add(v, key, nv);
		}
	}
	if (props == NULL)
		return;
	json_object_object_foreach(props, key, sub) {
		if (!json_object_object_get_ex(v, key, &val))
			continue;
		nv = val;
		old = push(st, key);
		check(st, sub, &nv, depth + 1);
		pop(st, old);
		if (nv != val)
			json_object_object_add(v, key, nv);
	}
}

static void
check(struct vstate *st, struct json_object *s, struct json_object **vp,
    int depth)
{
	struct json_object *v, *x, *e;
	size_t i;
	int found;

	if (depth > MAX_DEPTH)
		return;
	if (jsonx_is(s, json_type_boolean)) {
		if (!json_object_get_boolean(s))
			fail(st, NULL, "boolean schema is false");
		return;
	}
	if (!jsonx_is(s, json_type_object))
		return;
	check_type(st, jsonx_get(s, "type"), vp);
	v = *vp;
	if (json_object_object_get_ex(s, "const", &x) && !equal(x, v))
		fail(st, NULL, "must be equal to constant");
	if ((e = jsonx_arr(s, "enum")) != NULL) {
		for (i = 0, found = 0; i < json_object_array_length(e); i++)
			found |= equal(json_object_array_get_idx(e, i), v);
		if (!found)
			fail(st, NULL, "must be equal to one of the allowed "
			    "values");
	}
	if (is_num(v))
		check_number(st, s, json_object_get_double(v));
	else if (jsonx_is(v, json_type_string))
		check_count(st, s, utf8_count(json_object_get_string(v),
		    (size_t)json_object_get_string_len(v)), "maxLength",
		    "minLength", "characters");
	else if (jsonx_is(v, json_type_array))
		check_array(st, s, v, depth);
	else if (jsonx_is(v, json_type_object))
		check_object(st, s, v, depth);
}

int
validate_input(struct json_object *schema, struct json_object *input,
    const char *tool_name, struct buf *msg)
{
	struct json_object *work, *v;
	struct vstate st;
	int rc = 0;

	/* Coerce a copy: the message shows the arguments as received. */
	work = jsonx_copy(input);
	v = work;
	buf_init(&st.errs, 1u << 20);
	buf_init(&st.path, 1u << 16);
	st.nerr = 0;
	check(&st, schema, &v, 0);
	if (v != work)
		json_object_put(v);
	if (st.nerr > 0) {
		if (st.nerr > MAX_ERRORS)
			(void)buf_addf(&st.errs, "\n  - ...: %d more errors",
			    st.nerr - MAX_ERRORS);
		(void)buf_addf(msg, "Validation failed for tool \"%s\":\n%s\n\n"
		    "Received arguments:\n", tool_name, st.errs.data);
		(void)validate_pretty(msg, input);
		rc = -1;
	} else if (jsonx_is(work, json_type_object) &&
	    jsonx_is(input, json_type_object)) {
		json_object_object_foreach(work, key, val)
			json_object_object_add(input, key, jsonx_ref(val));
	}
	json_object_put(work);
	buf_release(&st.errs);
	buf_release(&st.path);
	return rc;
}
