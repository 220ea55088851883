#!/bin/sh
# Tool schemas go to Gemini cleaned: its "parameters" is a proto that
# refuses the whole request over one field it does not know.  Keywords
# it lacks go at every depth ($schema, additionalProperties, $defs),
# local $refs are inlined (a recursive one only so deep), type lists,
# oneOf, allOf and const take the proto's forms, and property names,
# even "$ref", are left alone.  A tool with no properties has none.
. "$(dirname "$0")/lib.sh"
plan 13

FIX=$ROOT/tests/fixtures/google
GEMINI_API_KEY=g-test
export GEMINI_API_KEY
llm() { pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-x "$@"; }
printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json && fake_start plan.json

cat >schema.json <<'EOF2'
{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
 "additionalProperties": false,
 "$defs": {
  "Point": {"type": "object", "additionalProperties": false,
   "properties": {"x": {"type": "number", "format": "double"},
    "y": {"type": "number", "exclusiveMinimum": 0}},
   "required": ["x", "y"]},
  "Tree": {"type": "object", "properties": {"children": {"type": "array",
   "items": {"$ref": "#/$defs/Tree"}}}}},
 "properties": {
  "path": {"type": "string", "format": "uri", "description": "Where"},
  "when": {"type": "string", "format": "date-time"},
  "mode": {"const": "fast"},
  "level": {"type": "integer", "enum": [1, 2, 3], "minimum": 1},
  "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
  "note": {"type": ["string", "null"], "maxLength": 80},
  "value": {"type": ["string", "number"]},
  "origin": {"$ref": "#/$defs/Point", "description": "Start"},
  "opts": {"type": "object", "additionalProperties": {"type": "string"},
   "propertyNames": {"pattern": "^[a-z]+$"},
   "properties": {"deep": {"type": "array", "minItems": 1, "items": {
    "type": "object", "$schema": "x", "additionalProperties": false,
    "properties": {"k": {"type": "string"}}}}}},
  "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
  "$ref": {"type": "string", "description": "named like a keyword"},
  "not": {"type": "boolean"},
  "both": {"allOf": [
   {"type": "object", "properties": {"a": {"type": "string"}},
    "required": ["a"]},
   {"properties": {"b": {"type": "string"}}, "required": ["b", "a"]}]},
  "tree": {"$ref": "#/$defs/Tree"}},
 "required": ["path"]}
EOF2
{
	jq -c '{type: "tool", name: "shape", description: "Odd schema",
	    inputSchema: .}' schema.json
	echo '{"type":"tool","name":"bare","description":"No arguments","inputSchema":{"type":"object","properties":{},"additionalProperties":false}}'
	echo '{"type":"tool","name":"none","description":"No schema"}'
	echo '{"role":"user","content":"go"}'
} >ctx
check_exit 'a call with the tools exits 0' 0 'llm <ctx >out && jq_lines out'
req=$(fake_req 1)
p() { jq -e ".body.tools[0].functionDeclarations[0].parameters | $1" "$req"; }

check 'three declarations, in one tools entry' 'jq -e ".body.tools |
	length == 1 and (.[0].functionDeclarations | map(.name) ==
	[\"shape\", \"bare\", \"none\"])" "$req"'
# The keywords of every schema in the tree, property names left out.
kw='def kw: keys[], ((.properties // {})[] | kw), (.items // empty | kw),
	((.anyOf // [])[] | kw); [kw] | unique'
check 'no $schema, additionalProperties, $defs or other unknown keyword' \
	'p "$kw" && p "$kw == [\"anyOf\", \"default\",
	\"description\", \"enum\", \"format\", \"items\", \"maxLength\",
	\"minItems\", \"minimum\", \"nullable\", \"properties\",
	\"required\", \"type\"]"'
check 'the top level keeps its type and required' \
	'p ".type == \"object\" and .required == [\"path\"] and
	(keys == [\"properties\", \"required\", \"type\"])"'
check 'formats the proto has stay; others go' 'p ".properties |
	.path == {type: \"string\", description: \"Where\"} and
	.when == {type: \"string\", format: \"date-time\"} and
	.origin.properties.x == {type: \"number\", format: \"double\"}"'
check 'const is a one-value enum; only string enums stay' 'p ".properties |
	.mode == {enum: [\"fast\"]} and .level == {type: \"integer\",
	minimum: 1} and .color == {type: \"string\", enum: [\"red\", \"blue\"],
	default: \"red\"}"'
check 'type lists: nullable, or anyOf; oneOf is anyOf' 'p ".properties |
	.note == {type: \"string\", nullable: true, maxLength: 80} and
	.value == {anyOf: [{type: \"string\"}, {type: \"number\"}]} and
	.kind == {anyOf: [{type: \"string\"}, {type: \"integer\"}]}"'
check 'a $ref is inlined, with the keywords beside it' 'p ".properties.origin
	== {description: \"Start\", type: \"object\", required: [\"x\", \"y\"],
	properties: {x: {type: \"number\", format: \"double\"},
	y: {type: \"number\"}}}"'
check 'nested schemas are cleaned too' 'p ".properties.opts == {type:
	\"object\", properties: {deep: {type: \"array\", minItems: 1,
	items: {type: \"object\", properties: {k: {type: \"string\"}}}}}}"'
check 'property names that look like keywords stay' 'p ".properties |
	.[\"\$ref\"] == {type: \"string\", description: \"named like a keyword\"}
	and .not == {type: \"boolean\"}"'
check 'allOf members are merged' 'p ".properties.both == {type: \"object\",
	properties: {a: {type: \"string\"}, b: {type: \"string\"}},
	required: [\"a\", \"b\"]}"'
check 'a recursive $ref stops, a few levels down' 'p "[.properties.tree |
	paths | select(.[-1] == \"children\")] | length >= 4 and length <= 10" &&
	test "$(wc -c <"$req")" -lt 20000'
check 'tools without properties have no parameters' 'jq -e "
	.body.tools[0].functionDeclarations[1:] == [{name: \"bare\",
	description: \"No arguments\"}, {name: \"none\",
	description: \"No schema\"}]" "$req"'

done_testing
