#!/bin/sh
# What pi-llm sends to Anthropic Messages: the path and headers, the system
# prompt as blocks, tools with input_schema, a thinking budget the API
# accepts, images as base64 sources, and never an empty text block.
. "$(dirname "$0")/lib.sh"
plan 36

FIX=$ROOT/tests/fixtures/anthropic
ANTHROPIC_API_KEY=KEY
export ANTHROPIC_API_KEY

printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json
fake_start plan.json

llm() { pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x "$@"; }
# The body of the last request, for jq -e to judge.
body() { jq -c .body "$(fake_req "$(fake_requests)")"; }

cat >tools.ndjson <<'EOF'
{"type":"tool","name":"file_size","description":"Bytes in a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}
{"type":"tool","name":"now","description":"The time","inputSchema":{"type":"object","properties":{}}}
EOF

check_exit 'a prompt with -s and tools is sent' 0 \
	'llm -s "Be terse." hi <tools.ndjson >out && jq_lines out'
req=$(fake_req 1)
check 'to POST /v1/messages' \
	'jq -e ".method == \"POST\" and .path == \"/v1/messages\"" "$req"'
check 'with x-api-key and no Authorization header' \
	'jq -e ".headers[\"x-api-key\"] == \"KEY\" and
	    (.headers | has(\"authorization\") | not)" "$req"'
check 'with anthropic-version 2023-06-01 and a JSON body' \
	'jq -e ".headers[\"anthropic-version\"] == \"2023-06-01\" and
	    (.headers[\"content-type\"] | startswith(\"application/json\"))" \
	    "$req"'
check 'model, stream and the default max_tokens' \
	'body | jq -e ".model == \"claude-x\" and .stream == true and
	    .max_tokens == 8192"'
check 'no thinking without -t' 'body | jq -e "has(\"thinking\") | not"'
check 'the system prompt is an array of text blocks' \
	'body | jq -e ".system == [{type: \"text\", text: \"Be terse.\"}]"'
check 'tools are {name, description, input_schema}' \
	'body | jq -e ".tools == [{name: \"file_size\",
	    description: \"Bytes in a file\", input_schema: {type: \"object\",
	    properties: {path: {type: \"string\"}}, required: [\"path\"]}},
	    {name: \"now\", description: \"The time\", input_schema:
	    {type: \"object\", properties: {}}}]"'
# Content may be a string or blocks; only the text counts here.
check 'the prompt is the one user message' \
	'body | jq -e "[.messages[] | .role] == [\"user\"] and
	    (.messages[0].content | if type == \"string\" then .
	    else map(.text) | join(\"\") end) == \"hi\""'

printf '%s\n' '{"type":"system","text":"From a line."}' \
	'{"role":"user","content":"hi"}' >sysline.ndjson
check_exit 'a system line on stdin' 0 \
	'llm <sysline.ndjson >out && jq_lines out'
check 'becomes the system blocks' \
	'body | jq -e ".system == [{type: \"text\", text: \"From a line.\"}]"'
printf '%s\n' '{"role":"system","content":"From a message."}' \
	'{"role":"user","content":"hi"}' >sysmsg.ndjson
check_exit 'a system message on stdin' 0 \
	'llm <sysmsg.ndjson >out && jq_lines out'
# The API has no system role: one in messages is a 400.
check 'goes to system, never into messages' \
	'body | jq -e ".system == [{type: \"text\", text: \"From a message.\"}]
	    and all(.messages[]; .role == \"user\" or .role == \"assistant\")"'
printf 'From a file.\n' >sys.txt
check_exit '-s @FILE over a system line' 0 \
	'llm -s @sys.txt <sysline.ndjson >out && jq_lines out'
check 'sends the file' \
	'body | jq -e ".system == [{type: \"text\", text: \"From a file.\n\"}]"'

for t in low:1024 medium:8192 high:32768; do
	check_exit "-t ${t%:*} is sent" 0 \
		"llm -t ${t%:*} hi </dev/null >out && jq_lines out"
	# max_tokens caps thinking and answer together: 8192 on top.
	check "as budget_tokens ${t#*:}, max_tokens above it" \
		"body | jq -e '.thinking == {type: \"enabled\",
		    budget_tokens: ${t#*:}} and .max_tokens == 8192 + ${t#*:}'"
done
check_exit '-t none is sent' 0 'llm -t none hi </dev/null >out && jq_lines out'
check 'with no thinking field' \
	'body | jq -e "(has(\"thinking\") | not) and .max_tokens == 8192"'

check_exit '--max-tokens 2000 -t medium is sent' 0 \
	'llm --max-tokens 2000 -t medium hi </dev/null >out && jq_lines out'
# 8192 does not fit under 2000; 2000 - 1024 = 976 is under the API's
# least budget of 1024, so thinking must go rather than be refused.
check 'with max_tokens 2000 and thinking left out' \
	'body | jq -e ".max_tokens == 2000 and (has(\"thinking\") | not)"'
check_exit '--max-tokens 5000 -t medium is sent' 0 \
	'llm --max-tokens 5000 -t medium hi </dev/null >out && jq_lines out'
check 'with the budget cut below max_tokens' \
	'body | jq -e ".max_tokens == 5000 and
	    .thinking == {type: \"enabled\", budget_tokens: 3976}"'

# Every request sent with thinking keeps 1024 <= budget < max_tokens.
first=$(($(fake_requests) + 1))
runs=0
: >all.out
for m in 1 1023 1024 1025 2000 2048 2049 8192 8193 9216 32768 32769 40000; do
	for t in low medium high; do
		llm --max-tokens $m -t $t hi </dev/null >>all.out ||
			echo "--max-tokens $m -t $t: exit $?" >>all.fail
		runs=$((runs + 1))
	done
done
check 'every run with --max-tokens and -t succeeds' \
	'test ! -e all.fail && jq_lines all.out &&
	test "$(fake_requests)" -eq $((first + runs - 1))'
check 'max_tokens is as given and budget_tokens obeys the API rule' \
	'i=$first; while [ $i -lt $((first + runs)) ]; do
	    fake_req $i; i=$((i + 1)); done >files &&
	jq -se "map(.body) | length == 39 and all(.[]; .max_tokens as \$m |
	    (has(\"thinking\") | not) or (.thinking.type == \"enabled\" and
	    .thinking.budget_tokens >= 1024 and .thinking.budget_tokens < \$m))
	    and (map(.max_tokens) | unique) == [1, 1023, 1024, 1025, 2000,
	    2048, 2049, 8192, 8193, 9216, 32768, 32769, 40000]" $(cat files)'
check_exit 'a budget that fits is sent whole' 0 \
	'llm --max-tokens 40000 -t high hi </dev/null >out && jq_lines out &&
	body | jq -e ".thinking.budget_tokens == 32768"'

cat >image.ndjson <<'EOF'
{"role":"user","content":[{"type":"text","text":"What are these?"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"image","data":"/9j/4AAQ","mimeType":"image/jpeg"}]}
EOF
check_exit 'a user message with images' 0 \
	'llm <image.ndjson >out && jq_lines out'
check 'sends them as base64 image sources' \
	'body | jq -e ".messages == [{role: \"user\", content: [
	    {type: \"text\", text: \"What are these?\"},
	    {type: \"image\", source: {type: \"base64\",
	     media_type: \"image/png\", data: \"iVBORw0KGgo=\"}},
	    {type: \"image\", source: {type: \"base64\",
	     media_type: \"image/jpeg\", data: \"/9j/4AAQ\"}}]}]"'

# A tool-only assistant turn as pi stores it: an empty text block first.
cat >empty.ndjson <<'EOF'
{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"What time is it?"}]}
{"role":"assistant","content":[{"type":"text","text":""},{"type":"toolCall","id":"toolu_01N","name":"now","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","stopReason":"toolUse","timestamp":1}
{"type":"tool_execution_end","toolCallId":"toolu_01N","toolName":"now","success":true,"output":"12:00"}
{"role":"assistant","content":[{"type":"text","text":"It is noon."},{"type":"text","text":""}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","stopReason":"stop","timestamp":2}
EOF
check_exit 'a history with empty text blocks' 0 \
	'cat tools.ndjson empty.ndjson | llm "And later?" >out && jq_lines out'
check 'sends no empty text block anywhere' \
	'body | jq -e "[.. | objects | select(.type == \"text\" and
	    (.text // \"\") == \"\")] == []"'
check 'the tool-only turn is its tool_use alone' \
	'body | jq -e ".messages[1] == {role: \"assistant\", content: [
	    {type: \"tool_use\", id: \"toolu_01N\", name: \"now\", input: {}}]}"'
check 'and no message is left with empty content' \
	'body | jq -e "all(.messages[]; .content | length > 0)"'

done_testing
