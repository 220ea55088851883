#!/bin/sh
# One conversation moves across all four wire APIs: OpenAI Chat
# Completions calls tools, Anthropic thinks and calls more, Gemini calls
# more, and the OpenAI Responses API answers.  Each call gets the whole
# history in its own shape: every call paired with its result, foreign
# thinking as text, foreign signatures gone.
. "$(dirname "$0")/lib.sh"
plan 16
f=$ROOT/tests/fixtures
cat >plan.json <<JSON
[{"file": "$f/openai/tool-calls.sse"},
 {"file": "$f/anthropic/thinking-tool.sse"},
 {"file": "$f/google/tool-calls.sse"},
 {"file": "$f/responses/text.sse"}]
JSON
fake_start plan.json
export OPENAI_API_KEY=ko ANTHROPIC_API_KEY=ka GEMINI_API_KEY=kg

# turn OUT PROMPT: the reply's tool calls answered, then a user line.
turn() {
	jq -c 'select(.type == "toolcall_end") | {type: "tool_execution_end",
		toolCallId, toolName, success: true, output: ("result of " +
		.toolName)}' "$1" >>ctx.ndjson &&
	printf '{"role":"user","content":"%s"}\n' "$2" >>ctx.ndjson &&
	cat "$1" >>all.out
}
printf '{"type":"tool","name":"read","description":"read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}}\n' >ctx.ndjson
echo '{"role":"user","content":"look around"}' >>ctx.ndjson

check_exit 'OpenAI Chat Completions calls three tools' 0 'pi-llm \
	--base-url "$FAKE_URL/v1" -m openai/gpt-4.1 <ctx.ndjson >1.out &&
	test "$(grep -c toolcall_end 1.out)" = 3'
{ cat 1.out; } >>ctx.ndjson; turn 1.out 'now you, Claude'
check_exit 'Anthropic thinks and calls two more' 0 'pi-llm \
	--base-url "$FAKE_URL" -m anthropic/claude-sonnet-4-5 <ctx.ndjson >2.out &&
	test "$(grep -c toolcall_end 2.out)" = 2'
check 'it was sent every OpenAI call with its result, results first' \
	'jq -e ".body.messages | map(select(.role == \"user\" and
	(.content | type) == \"array\" and .content[0].type ==
	\"tool_result\"))[0].content | map(select(.type ==
	\"tool_result\") | .tool_use_id) ==
	[\"call_A1\", \"call_B2\", \"call_C3\"]" "$(fake_req 2)"'
cat 2.out >>ctx.ndjson; turn 2.out 'now you, Gemini'
check_exit 'Gemini calls two more' 0 'pi-llm --base-url "$FAKE_URL/v1beta" \
	-m google/gemini-2.5-flash <ctx.ndjson >3.out &&
	test "$(grep -c toolcall_end 3.out)" = 2'
check 'it got as many responses as calls, turn by turn' 'jq -e "
	.body.contents as \$c | [range(0; \$c | length - 1) | select(
	\$c[.].role == \"model\" and any(\$c[.].parts[]; has(\"functionCall\")))
	| [(\$c[.].parts | map(select(has(\"functionCall\"))) | length),
	   (\$c[. + 1].parts | map(select(has(\"functionResponse\"))) |
	   length)]] | length == 2 and all(.[0] == .[1])" "$(fake_req 3)"'
check 'Claude'"'"'s thinking reached Gemini as plain text' 'jq -e "
	[.body.contents[].parts[] | select(.text ==
	\"I should call file_size.\")] | length == 1 and
	all(has(\"thought\") | not)" "$(fake_req 3)"'
check 'its schema was cleaned for Gemini' 'jq -e "
	.body.tools[0].functionDeclarations[0].parameters |
	has(\"additionalProperties\") | not" "$(fake_req 3)"'
cat 3.out >>ctx.ndjson; turn 3.out 'and you answer'
check_exit 'the Responses API answers' 0 'pi-llm --base-url "$FAKE_URL/v1" \
	-m openai/gpt-4.1 --api openai-responses <ctx.ndjson >4.out'
cat 4.out >>all.out
req4=$(fake_req 4)
check 'it got all seven calls' 'jq -e "[.body.input[] |
	select(.type == \"function_call\")] | length == 7" "$req4"'
check 'each answered, matched by call_id' 'jq -e "
	([.body.input[] | select(.type == \"function_call\") | .call_id] |
	sort) == ([.body.input[] | select(.type == \"function_call_output\") |
	.call_id] | sort)" "$req4"'
check 'arguments as JSON strings' 'jq -e "all(.body.input[] |
	select(.type == \"function_call\"); .arguments | type == \"string\")" \
	"$req4"'
check 'the four prompts in order' 'jq -e "[.body.input[] |
	select(.role == \"user\") | .content | if type == \"array\" then
	.[0].text else . end] == [\"look around\", \"now you, Claude\",
	\"now you, Gemini\", \"and you answer\"]" "$req4"'
check 'no signature crossed to another provider' \
	'! grep -q "EqQBCkYIBxgCKkA" "$(fake_req 3)" "$req4"'
check 'four requests, one per API' 'test "$(fake_requests)" = 4 &&
	jq -r .path "$(fake_req 1)" "$(fake_req 2)" "$(fake_req 3)" "$req4" |
	tr "\n" " " | grep -q "^/v1/chat/completions /v1/messages /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse /v1/responses $"'
check 'every line of every output is JSON' 'jq_lines all.out'
check 'and the last message is an answer' 'tail -n 1 4.out | jq -e "
	.type == \"message_end\" and .stopReason == \"end_turn\" and
	.message.api == \"openai-responses\""'
done_testing
