/*
 * schema: a tool's JSON Schema as one wire API will take it.
 *
 * This is the one place where pi bends tool schemas per API; a provider
 * sends schema_for_api(inputSchema, its api name) and nothing else.
 * The input is never modified.  The result is a new object, the
 * caller's to json_object_put; it is NULL only when schema is NULL.
 *
 * google-generative-ai: Gemini's function "parameters" is a proto
 * (a subset of OpenAPI 3.0), and its parser refuses the whole request
 * over one field it does not know.  So, at every level of the schema:
 * only the keywords the proto has are kept ($schema, additionalProperties,
 * $defs, propertyNames and the like go); a local "$ref" is replaced by
 * the definition it names; a "type" list becomes one type plus
 * "nullable", or an "anyOf"; "oneOf" becomes "anyOf"; the members of
 * "allOf" are merged; "const" becomes a one-value "enum"; an "enum"
 * of anything but strings, and a "format" the proto does not list,
 * are dropped.  Property names are data, never keywords: a property
 * called "$ref" or "not" stays.
 *
 * Every other API: an unchanged deep copy.
 */
#ifndef PI_SCHEMA_H
#define PI_SCHEMA_H

struct json_object;

struct json_object *schema_for_api(struct json_object *schema,
    const char *api);
/*
 * A tool line ({name, description, inputSchema}) as most APIs define a
 * tool: {name, description, KEY: its schema for api}.  The wrappers
 * around it (OpenAI's "function", Responses' "type") are the caller's.
 */
struct json_object *schema_tool(struct json_object *tool, const char *api,
    const char *key);

#endif
