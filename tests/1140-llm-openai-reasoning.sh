#!/bin/sh
# Reasoning from OpenAI-compatible servers (reasoning_content, reasoning)
# streams as thinking, and goes back in the field it came in.
. "$(dirname "$0")/lib.sh"
plan 22

FIX=$ROOT/tests/fixtures/openai
DEEPSEEK_API_KEY=k-ds OPENROUTER_API_KEY=k-or
export DEEPSEEK_API_KEY OPENROUTER_API_KEY
cat >plan.json <<PLAN
[{"file": "$FIX/reasoning-content.sse"}, {"file": "$FIX/text.sse"},
 {"file": "$FIX/reasoning.sse"}, {"file": "$FIX/text.sse"}]
PLAN
fake_start plan.json
req() { req_n=$1; shift; jq "$@" "$(fake_req "$req_n")"; }
ds() { pi-llm --base-url "$FAKE_URL/v1" -m deepseek/deepseek-reasoner "$@"; }
or() { pi-llm --base-url "$FAKE_URL/v1" -m openrouter/deepseek/deepseek-r1 \
	"$@"; }

cat >ctx <<'CTX'
{"type":"tool","name":"file_size","description":"Bytes in a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
{"role":"user","content":"How big is config.json?","timestamp":1}
CTX
check_exit 'reasoning_content, text and a call' 0 'ds <ctx >out1 2>err'
check 'every line is a JSON object' 'jq_lines out1'
# The third chunk has the same words under both names: one delta.
cat >expect <<'EOF2'
["The user wants ",0]
["the size.",0]
[" Done.",0]
EOF2
check 'reasoning_content deltas are thinking_delta events' 'jq -c "
	select(.type == \"thinking_delta\") | [.delta, .contentIndex]" out1 \
	>actual && diff -u expect actual'
check 'the text after it is the next block, its index from 0' 'jq -s -e "
	map(select(.type == \"text_delta\")) | map([.delta, .contentIndex, .index])
	== [[\"Let me check.\", 1, 0]]" out1'
check 'and the call the one after' 'jq -s -e "
	map(select(.type == \"toolcall_start\")) | map([.toolCallId, .contentIndex])
	== [[\"call_R1\", 2]]" out1'
check 'the thinking block is signed with the field name' 'tail -n 1 out1 |
	jq -e ".stopReason == \"tool_use\" and .message.content == [
	{type: \"thinking\", thinking: \"The user wants the size. Done.\",
	 thinkingSignature: \"reasoning_content\"},
	{type: \"text\", text: \"Let me check.\"},
	{type: \"toolCall\", id: \"call_R1\", name: \"file_size\",
	 arguments: {path: \"config.json\"}}]"'
check 'reasoning_tokens are thinkingTokens' 'tail -n 1 out1 | jq -e "
	.usage.thinkingTokens == 20 and .usage.outputTokens == 50"'

{ cat ctx out1; echo '{"type":"tool_execution_end","toolCallId":"call_R1","toolName":"file_size","success":true,"output":"2048"}'; } >ctx2
check_exit 'the same preset and model again' 0 'ds <ctx2 >out2 2>err'
check 'every line is a JSON object' 'jq_lines out2'
check 'gets the reasoning back in reasoning_content' 'req 2 -e "
	.body.messages[1] | .role == \"assistant\" and
	.reasoning_content == \"The user wants the size. Done.\" and
	(has(\"reasoning\") | not)"'
check 'beside the text and the call, not inside the text' 'req 2 -e "
	.body.messages[1] | .content == \"Let me check.\" and
	(.tool_calls | map(.id) == [\"call_R1\"])"'
check 'with the result after it' 'req 2 -e ".body.messages[2] |
	.role == \"tool\" and .tool_call_id == \"call_R1\" and
	.content == \"2048\""'
check 'to the deepseek URL with its key' 'req 2 -e "
	.path == \"/v1/chat/completions\" and
	.headers.authorization == \"Bearer k-ds\" and
	.body.model == \"deepseek-reasoner\""'

check_exit 'an OpenRouter stream with reasoning' 0 \
	'or hi </dev/null >out3 2>err'
check 'every line is a JSON object' 'jq_lines out3'
check 'the model keeps its own slash' 'req 3 -e "
	.body.model == \"deepseek/deepseek-r1\" and
	.headers.authorization == \"Bearer k-or\""'
check 'reasoning deltas are thinking_delta events' 'jq -s -e "
	map(select(.type == \"thinking_delta\")) | map([.delta, .contentIndex])
	== [[\"Thinking\", 0], [\" hard.\", 0]]" out3'
check 'the block is signed "reasoning"' 'tail -n 1 out3 | jq -e "
	.stopReason == \"end_turn\" and .message.content == [
	{type: \"thinking\", thinking: \"Thinking hard.\",
	 thinkingSignature: \"reasoning\"}, {type: \"text\", text: \"Hi!\"}]"'
{ echo '{"role":"user","content":"hi","timestamp":1}'; cat out3
  echo '{"role":"user","content":"more","timestamp":2}'; } >ctx4
check_exit 'replayed to OpenRouter' 0 'or <ctx4 >out4 2>err'
check 'every line is a JSON object' 'jq_lines out4'
check 'it goes back as reasoning' 'req 4 -e ".body.messages == [
	{role: \"user\", content: \"hi\"},
	{role: \"assistant\", content: \"Hi!\", reasoning: \"Thinking hard.\"},
	{role: \"user\", content: \"more\"}]"'
check 'four requests in all' 'test "$(fake_requests)" -eq 4'

done_testing
