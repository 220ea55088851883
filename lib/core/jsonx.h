/*
 * jsonx: typed getters and compact serialisation over json-c.
 *
 * Getters take a possibly NULL object and return NULL (or the default)
 * when the key is missing or has another type, so a provider can walk a
 * chunk without checking each step; jsonx_int holds a number beyond
 * int64_t at its ends, and gives the default for NaN.  Returned strings and objects are
 * borrowed from the parent.  jsonx_parse copies invalid UTF-8 out of the
 * way (U+FFFD) and rejects trailing garbage; its result is the caller's
 * to json_object_put.
 */
#ifndef PI_JSONX_H
#define PI_JSONX_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct pi_error;

struct json_object *jsonx_parse(const char *p, size_t n, struct pi_error *e);
/* The same, and on failure *where is the byte offset it stopped at. */
struct json_object *jsonx_parse_at(const char *p, size_t n, size_t *where,
    struct pi_error *e);
/* Compact, with '/' left alone; owned by o, valid until o changes. */
const char *jsonx_string(struct json_object *o, size_t *len);

struct json_object *jsonx_get(struct json_object *o, const char *key);
const char *jsonx_str(struct json_object *o, const char *key);
struct json_object *jsonx_obj(struct json_object *o, const char *key);
struct json_object *jsonx_arr(struct json_object *o, const char *key);
int64_t jsonx_int(struct json_object *o, const char *key, int64_t def);
double jsonx_num(struct json_object *o, const char *key, double def);
int jsonx_bool(struct json_object *o, const char *key, int def);
int jsonx_is(struct json_object *o, enum json_type t);

/* A string object; invalid UTF-8 in p becomes U+FFFD. */
struct json_object *jsonx_new_str(const char *p, size_t n);

/* Setters replace an existing key; val's reference moves to o. */
void jsonx_set(struct json_object *o, const char *key, struct json_object *val);
void jsonx_set_str(struct json_object *o, const char *key, const char *s);
void jsonx_set_int(struct json_object *o, const char *key, int64_t v);
void jsonx_set_bool(struct json_object *o, const char *key, int v);
/* A new reference to o, or a deep copy when it will be modified. */
struct json_object *jsonx_ref(struct json_object *o);
struct json_object *jsonx_copy(struct json_object *o);

#endif
