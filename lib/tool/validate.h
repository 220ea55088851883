/*
 * validate: check a tool's input against its JSON Schema, as pi does with
 * AJV ({allErrors: true, coerceTypes: true}), so that a model gets the
 * same corrections from pi-tool as from pi.
 *
 * The keywords understood are type (one name or a list: object, string,
 * integer, number, boolean, array, null), properties, required,
 * additionalProperties (false, or a schema for the others), items (a
 * schema, or a list for a tuple), enum, const, minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum, minItems, maxItems, minLength and
 * maxLength; a schema may also be true or false.  Any other keyword
 * ($ref, anyOf, pattern, format...) is ignored, so a custom tool's
 * schema never makes validation fail by itself.
 *
 * A value of the wrong type is coerced where AJV would: "5" to 5 for
 * integer and number, "true"/"false" (and 1/0, null) to a boolean, a
 * number or boolean to a string, "" (and 0, false) to null.  The
 * coercions are written into input only when the whole input is valid;
 * a top-level value that is not an object is checked but never replaced.
 *
 * When input is invalid, pi's message is appended to msg:
 *
 *   Validation failed for tool "read":
 *     - file_path: must have required property 'file_path'
 *     - offset: must be integer
 *
 *   Received arguments:
 *   {
 *     "offset": "x"
 *   }
 *
 * one line per error, in AJV's order (the type, then const and enum,
 * then the checks of numbers, strings, arrays, objects: required before
 * additionalProperties before properties).  The path is the JSON pointer
 * of the value without its leading '/', or the missing property at the
 * top level, or "root".  The arguments are the input as received (before
 * coercion), printed as JSON.stringify(input, null, 2) does.
 */
#ifndef PI_VALIDATE_H
#define PI_VALIDATE_H

struct buf;
struct json_object;

/*
 * 0 when input (which may be NULL, JSON null) satisfies schema, with
 * coercions applied; -1 when not, input untouched and the message in
 * msg.  Neither schema nor tool_name is kept.
 */
int validate_input(struct json_object *schema, struct json_object *input,
    const char *tool_name, struct buf *msg);

/* JSON.stringify(o, null, 2), appended to b; -1 if b is full. */
int validate_pretty(struct buf *b, struct json_object *o);

#endif
