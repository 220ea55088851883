/* validate: AJV's checks and coercions, and pi's message. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "tool/tools.h"
#include "tool/validate.h"

static struct json_object *
parse(const char *s)
{
	struct json_object *o = jsonx_parse(s, strlen(s), NULL);

	if (o == NULL && strcmp(s, "null") != 0)
		diag("bad test JSON: %s", s);
	return o;
}

static struct json_object *
schema_of(const char *tool)
{
	return parse(tools_find(tool)->schema);
}

/*
 * Validate input against schema; on success compare the coerced input
 * with want (compact JSON), on failure the message with want.
 */
static void
is_valid(const char *schema, const char *input, int rc, const char *want,
    const char *name)
{
	struct json_object *s = parse(schema), *in = parse(input);
	struct buf msg;
	int got;

	buf_init(&msg, 1u << 20);
	got = validate_input(s, in, "t", &msg);
	is_int(got, rc, name);
	if (got == 0)
		is_str(jsonx_string(in, NULL), want, name);
	else
		is_str(msg.data, want, name);
	json_object_put(s);
	json_object_put(in);
	buf_release(&msg);
}

static void
test_tools(void)
{
	struct json_object *s, *in;
	struct buf msg;

	buf_init(&msg, 1u << 20);
	s = schema_of("read");
	in = parse("{\"offset\":\"x\",\"limit\":\"10\"}");
	is_int(validate_input(s, in, "read", &msg), -1, "read: invalid");
	is_str(msg.data, "Validation failed for tool \"read\":\n"
	    "  - file_path: must have required property 'file_path'\n"
	    "  - offset: must be integer\n"
	    "\n"
	    "Received arguments:\n"
	    "{\n"
	    "  \"offset\": \"x\",\n"
	    "  \"limit\": \"10\"\n"
	    "}", "read: pi's message, arguments as received");
	is_str(jsonx_str(in, "limit"), "10", "read: untouched on failure");
	json_object_put(in);

	buf_reset(&msg);
	in = parse("{\"file_path\":\"a.c\",\"offset\":\"5\",\"limit\":2.0}");
	is_int(validate_input(s, in, "read", &msg), 0, "read: coerced");
	ok(jsonx_is(jsonx_get(in, "offset"), json_type_int) &&
	    jsonx_int(in, "offset", 0) == 5, "read: \"5\" becomes 5");
	is_int(msg.len, 0, "read: no message when valid");
	json_object_put(in);

	in = parse("{\"file_path\":\"a\",\"offset\":0}");
	is_int(validate_input(s, in, "read", &msg), -1, "read: offset 0");
	ok(strstr(msg.data, "\n  - offset: must be >= 1\n") != NULL,
	    "read: minimum message");
	json_object_put(in);
	json_object_put(s);

	buf_reset(&msg);
	s = schema_of("edit");
	in = parse("{\"file_path\":\"f\",\"edits\":[{\"old_text\":\"a\"},"
	    "{\"old_text\":1,\"new_text\":true}]}");
	is_int(validate_input(s, in, "edit", &msg), -1, "edit: invalid item");
	is_str(msg.data, "Validation failed for tool \"edit\":\n"
	    "  - edits/0: must have required property 'new_text'\n"
	    "\n"
	    "Received arguments:\n"
	    "{\n"
	    "  \"file_path\": \"f\",\n"
	    "  \"edits\": [\n"
	    "    {\n"
	    "      \"old_text\": \"a\"\n"
	    "    },\n"
	    "    {\n"
	    "      \"old_text\": 1,\n"
	    "      \"new_text\": true\n"
	    "    }\n"
	    "  ]\n"
	    "}", "edit: nested path, number and boolean coerced to string");
	json_object_put(in);

	buf_reset(&msg);
	in = parse("{\"file_path\":\"f\",\"edits\":[]}");
	is_int(validate_input(s, in, "edit", &msg), -1, "edit: no edits");
	ok(strstr(msg.data, "  - edits: must NOT have fewer than 1 items") !=
	    NULL, "edit: minItems message");
	json_object_put(in);

	in = parse("{\"file_path\":\"f\",\"edits\":[{\"old_text\":5,"
	    "\"new_text\":null}]}");
	is_int(validate_input(s, in, "edit", &msg), 0, "edit: coerced item");
	is_str(jsonx_string(in, NULL), "{\"file_path\":\"f\",\"edits\":[{"
	    "\"old_text\":\"5\",\"new_text\":\"\"}]}", "edit: in place");
	json_object_put(in);
	json_object_put(s);

	buf_reset(&msg);
	s = schema_of("bash");
	in = parse("{\"command\":\"ls\",\"timeout\":0}");
	is_int(validate_input(s, in, "bash", &msg), -1, "bash: timeout 0");
	ok(strstr(msg.data, "  - timeout: must be > 0\n") != NULL,
	    "bash: exclusiveMinimum message");
	json_object_put(in);
	json_object_put(s);
	buf_release(&msg);
}

int
main(void)
{
	test_tools();

	is_valid("{\"type\":\"object\",\"properties\":{\"b\":{\"type\":"
	    "\"boolean\"},\"c\":{\"type\":\"boolean\"},\"n\":{\"type\":"
	    "\"number\"},\"s\":{\"type\":\"string\"},\"z\":{\"type\":\"null\"}"
	    "}}", "{\"b\":\"true\",\"c\":\"false\",\"n\":\"2.5\",\"s\":1.5,"
	    "\"z\":\"\"}", 0, "{\"b\":true,\"c\":false,\"n\":2.5,\"s\":\"1.5\","
	    "\"z\":null}", "coercion to each type");
	is_valid("{\"properties\":{\"i\":{\"type\":\"integer\"}}}",
	    "{\"i\":\"2.5\"}", -1, "Validation failed for tool \"t\":\n"
	    "  - i: must be integer\n\nReceived arguments:\n{\n"
	    "  \"i\": \"2.5\"\n}", "\"2.5\" is no integer");
	is_valid("{\"properties\":{\"b\":{\"type\":\"boolean\"}}}",
	    "{\"b\":\"yes\"}", -1, "Validation failed for tool \"t\":\n"
	    "  - b: must be boolean\n\nReceived arguments:\n{\n"
	    "  \"b\": \"yes\"\n}", "\"yes\" is no boolean");
	is_valid("{\"type\":\"object\",\"properties\":{\"a\":{}},"
	    "\"additionalProperties\":false}", "{\"a\":1,\"b\":2,\"c\":3}", -1,
	    "Validation failed for tool \"t\":\n"
	    "  - root: must NOT have additional properties\n"
	    "  - root: must NOT have additional properties\n\n"
	    "Received arguments:\n{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}",
	    "additionalProperties: false, one error each");
	is_valid("{\"type\":\"object\"}", "[1]", -1,
	    "Validation failed for tool \"t\":\n  - root: must be object\n\n"
	    "Received arguments:\n[\n  1\n]", "root: must be object");
	is_valid("{\"type\":\"object\"}", "null", -1,
	    "Validation failed for tool \"t\":\n  - root: must be object\n\n"
	    "Received arguments:\nnull", "JSON null input");
	is_valid("{\"properties\":{\"m\":{\"enum\":[\"a\",\"b\"]},"
	    "\"t\":{\"type\":[\"string\",\"null\"]},\"x\":{\"type\":"
	    "\"number\",\"maximum\":0.5}}}", "{\"m\":\"c\",\"t\":[],\"x\":1}",
	    -1, "Validation failed for tool \"t\":\n"
	    "  - m: must be equal to one of the allowed values\n"
	    "  - t: must be string,null\n"
	    "  - x: must be <= 0.5\n\nReceived arguments:\n{\n"
	    "  \"m\": \"c\",\n  \"t\": [],\n  \"x\": 1\n}",
	    "enum, type list, maximum with a fraction");
	is_valid("{\"properties\":{\"a/b\":{\"type\":\"string\","
	    "\"minLength\":2}}}", "{\"a/b\":\"\\u00e9\"}", -1,
	    "Validation failed for tool \"t\":\n"
	    "  - a~1b: must NOT have fewer than 2 characters\n\n"
	    "Received arguments:\n{\n  \"a/b\": \"\xc3\xa9\"\n}",
	    "JSON pointer escaping; length in characters");
	is_valid("{\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":"
	    "\"^x\",\"anyOf\":[{\"type\":\"number\"}],\"format\":\"uri\"}}}",
	    "{\"a\":\"y\"}", 0, "{\"a\":\"y\"}", "unknown keywords ignored");
	is_valid("{\"properties\":{\"s\":{\"type\":\"string\"}}}",
	    "{\"s\":1e21,\"o\":{},\"e\":\"q\\\"\\n\\t\\u0001/\"}", 0,
	    "{\"s\":\"1e+21\",\"o\":{},\"e\":\"q\\\"\\n\\t\\u0001/\"}",
	    "number to string as JavaScript prints it");
	is_valid("{\"properties\":{\"s\":{\"type\":\"integer\"}}}",
	    "{\"s\":\"x\",\"o\":{},\"a\":[],\"e\":\"q\\\"\\n\\t\\u0001/\"}", -1,
	    "Validation failed for tool \"t\":\n  - s: must be integer\n\n"
	    "Received arguments:\n{\n  \"s\": \"x\",\n  \"o\": {},\n"
	    "  \"a\": [],\n  \"e\": \"q\\\"\\n\\t\\u0001/\"\n}",
	    "stringify: empty containers and escapes");
	is_valid("{\"items\":[{\"type\":\"integer\"},{\"type\":\"string\"}],"
	    "\"maxItems\":2}", "[\"1\",2,3]", -1,
	    "Validation failed for tool \"t\":\n"
	    "  - root: must NOT have more than 2 items\n\n"
	    "Received arguments:\n[\n  \"1\",\n  2,\n  3\n]",
	    "tuple items and maxItems");
	is_valid("{\"properties\":{\"a\":false,\"c\":{\"const\":3}}}",
	    "{\"a\":1,\"c\":3.0}", -1, "Validation failed for tool \"t\":\n"
	    "  - a: boolean schema is false\n\nReceived arguments:\n{\n"
	    "  \"a\": 1,\n  \"c\": 3\n}", "boolean schema; const 3 == 3.0");
	return done_testing();
}
