#!/bin/sh
# A history may hold messages of other models.  Their thinking carries no
# signature Anthropic could check, so it goes as plain text; and an
# Anthropic signature means nothing to an OpenAI-compatible server, so it
# never leaves, nor does the thinking go back as a reasoning field.
. "$(dirname "$0")/lib.sh"
plan 18

AFIX=$ROOT/tests/fixtures/anthropic
OFIX=$ROOT/tests/fixtures/openai
PI_CLOCK_FIXED=1700000000000 ANTHROPIC_API_KEY=KEY OPENAI_API_KEY=OKEY
export PI_CLOCK_FIXED ANTHROPIC_API_KEY OPENAI_API_KEY

printf '[{"file": "%s"}, {"file": "%s"}, {"file": "%s"}, {"file": "%s"},
    {"file": "%s"}]\n' "$AFIX/text.sse" "$AFIX/text.sse" "$AFIX/text.sse" \
	"$AFIX/thinking-tool.sse" "$OFIX/text.sse" >plan.json
fake_start plan.json

body() { jq -c .body "$(fake_req "$1")"; }

# As pi-llm stores a DeepSeek-style answer: the field the reasoning came
# in is kept as its signature.
cat >openai.ndjson <<'EOF'
{"role":"user","content":"Size of config.json?"}
{"role":"assistant","content":[{"type":"thinking","thinking":"The user wants a size.","thinkingSignature":"reasoning_content"},{"type":"text","text":"Let me look."},{"type":"toolCall","id":"call_1","name":"file_size","arguments":{"path":"config.json"}}],"api":"openai-completions","provider":"openai","model":"gpt-x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"toolUse","timestamp":1}
{"type":"tool_execution_end","toolCallId":"call_1","toolName":"file_size","success":true,"output":"2048"}
EOF
check_exit 'an OpenAI message with thinking sent to Anthropic' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x -t low "In KiB?" \
	    <openai.ndjson >out1 && jq_lines out1'
check 'its thinking is a plain text block' \
	'body 1 | jq -e ".messages[1].content == [
	    {type: \"text\", text: \"The user wants a size.\"},
	    {type: \"text\", text: \"Let me look.\"},
	    {type: \"tool_use\", id: \"call_1\", name: \"file_size\",
	     input: {path: \"config.json\"}}]"'
check 'no thinking block and no signature is sent' \
	'body 1 | jq -e "[.. | objects | select(.type == \"thinking\" or
	    .type == \"redacted_thinking\" or has(\"signature\"))] == []"'
check 'the OpenAI field name goes nowhere' \
	'! grep -q reasoning_content "$(fake_req 1)"'
check 'the result follows in the next user message' \
	'body 1 | jq -e "[.messages[2].content[] | .type] ==
	    [\"tool_result\", \"text\"] and
	    .messages[2].content[0].tool_use_id == \"call_1\""'

# With thinking on, the API refuses a tool loop whose assistant message
# does not start with a thinking block ("Expected thinking or
# redacted_thinking, but found text"); thinking that is only text now
# cannot be that block, so thinking must be left out of this request.
check_exit 'the same history ending in its tool result, with -t low' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x -t low \
	    <openai.ndjson >out1b && jq_lines out1b'
check 'is a request the API accepts with thinking on or off' \
	'body 2 | jq -c "{thinking, assistant: [.messages[-2].content[].type],
	    user: [.messages[-1].content[].type]}" | tee shape &&
	jq -e ".user == [\"tool_result\"] and (.thinking == null or
	    .assistant[0] == \"thinking\" or
	    .assistant[0] == \"redacted_thinking\")" shape'

# Same provider and API, another model: its signature would not verify.
sed 's/"model":"gpt-x"/"model":"claude-y"/;
	s/"provider":"openai"/"provider":"anthropic"/;
	s/"api":"openai-completions"/"api":"anthropic-messages"/;
	s/"thinkingSignature":"reasoning_content"/"thinkingSignature":"EqQBsigY=="/' \
	openai.ndjson >other.ndjson
check_exit 'signed thinking of another Anthropic model' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x -t low "In KiB?" \
	    <other.ndjson >out2 && jq_lines out2'
check 'goes as plain text without its signature' \
	'body 3 | jq -e ".messages[1].content[0] ==
	    {type: \"text\", text: \"The user wants a size.\"}" &&
	! grep -q EqQBsigY "$(fake_req 3)"'

check_exit 'an Anthropic turn with signed thinking' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x -t low \
	    "Size of config.json?" </dev/null >out3 && jq_lines out3'
check 'is stored with its signature' \
	'grep -q "EqQBCkYIBxgCKkA+/sig==" out3'
{
	echo '{"role":"user","content":"Size of config.json?"}'
	cat out3
	echo '{"type":"tool_execution_end","toolCallId":"toolu_01A","toolName":"file_size","success":true,"output":"2048"}'
	echo '{"type":"tool_execution_end","toolCallId":"toolu_01B","toolName":"now","success":true,"output":"12:00"}'
} >anthropic.ndjson
check_exit 'sent to an OpenAI-compatible server' 0 \
	'pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x -t low \
	    <anthropic.ndjson >out4 && jq_lines out4'
check 'goes to /v1/chat/completions' \
	'jq -e ".path == \"/v1/chat/completions\"" "$(fake_req 5)"'
check 'the signature appears nowhere in the request' \
	'! grep -q "EqQBCkYIBxgCKkA" "$(fake_req 5)" &&
	body 5 | jq -e "[.. | strings | select(contains(\"sig==\"))] == []"'
check 'the thinking is in no reasoning field' \
	'body 5 | jq -e "[.messages[] | select(.role == \"assistant\") |
	    keys[] | select(test(\"reason|thinking|signature\"))] == []"'
check 'nor in any field of its own' \
	'body 5 | jq -e "[.. | objects | select(has(\"thinking\") or
	    has(\"thinkingSignature\"))] == []"'
check 'the tool calls and results still go' \
	'body 5 | jq -e "[.messages[] | .role] ==
	    [\"user\", \"assistant\", \"tool\", \"tool\"] and
	    [.messages[1].tool_calls[].id] == [\"toolu_01A\", \"toolu_01B\"] and
	    [.messages[2:][].tool_call_id] == [\"toolu_01A\", \"toolu_01B\"]"'
check 'five requests were made' 'test "$(fake_requests)" -eq 5'

done_testing
