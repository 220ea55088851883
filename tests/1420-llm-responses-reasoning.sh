#!/bin/sh
# Reasoning, text and a function call from the Responses API: summary
# parts stream as one thinking block, the whole reasoning item is kept
# as its signature, the call is known by its call_id, and a turn with
# calls is a tool_use turn though the response only says "completed".
. "$(dirname "$0")/lib.sh"
plan 22

FIX=$ROOT/tests/fixtures/responses
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
printf '[{"file": "%s"}]\n' "$FIX/reasoning-tool.sse" >plan.json
fake_start plan.json
llm() { pi-llm --api openai-responses --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x "$@"; }
msg() { tail -n 1 out | jq "$@"; }

cat >ctx <<'CTX'
{"type":"tool","name":"file_size","description":"Bytes in a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
{"role":"user","content":"Size of config.json?","timestamp":1}
CTX
check_exit 'reasoning, text and a call' 0 'llm -t medium <ctx >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'and nothing is said on stderr' 'test ! -s err'
jq -c 'del(.messageId)' out >events
check_same 'the events are the expected ones' \
	"$FIX/reasoning-tool.expect" events
cat >expect <<'EOF2'
["**Sizing the file**",0]
[" I need its size.",0]
["\n\n",0]
["Call file_size.",0]
EOF2
check 'summary deltas are thinking, a blank line between parts' 'jq -c "
	select(.type == \"thinking_delta\") | [.delta, .contentIndex]" out \
	>actual && diff -u expect actual'
check 'the text is the next block, its index from 0' 'jq -s -e "
	map(select(.type == \"text_delta\") | [.delta, .contentIndex, .index])
	== [[\"Checking.\", 1, 0]]" out'
check 'the call starts with its call_id, not the fc_ item id' 'jq -s -e "
	map(select(.type == \"toolcall_start\") |
	[.toolCallId, .toolName, .contentIndex]) ==
	[[\"call_Q2x\", \"file_size\", 2]]" out && ! grep -q fc_R1 out'
check 'and ends with the parsed arguments' 'jq -s -e "
	map(select(.type == \"toolcall_end\") | [.toolCallId, .input]) ==
	[[\"call_Q2x\", {path: \"config.json\"}]]" out'
check 'function_call items make it stopReason tool_use' 'msg -e "
	.stopReason == \"tool_use\" and .message.stopReason == \"toolUse\""'
check 'the thinking block holds the joined summary' 'msg -e "
	.message.content[0] | .type == \"thinking\" and
	.thinking ==
	\"**Sizing the file** I need its size.\n\nCall file_size.\""'
check 'its signature is the whole reasoning item, encrypted content too' \
	'msg -e ".message.content[0].thinkingSignature | fromjson ==
	{id: \"rs_R1\", type: \"reasoning\",
	encrypted_content: \"gAAAAB-enc-R1==\",
	summary: [{type: \"summary_text\",
	text: \"**Sizing the file** I need its size.\"},
	{type: \"summary_text\", text: \"Call file_size.\"}]}"'
check 'the text keeps its message item id' 'msg -e ".message.content[1] ==
	{type: \"text\", text: \"Checking.\", textSignature: \"msg_R1\"}"'
check 'the call is stored with its call_id and arguments' 'msg -e "
	.message.content[2] == {type: \"toolCall\", id: \"call_Q2x\",
	name: \"file_size\", arguments: {path: \"config.json\"}}"'
check 'reasoning_tokens are thinkingTokens, part of the output' 'msg -e "
	.usage == {inputTokens: 45, outputTokens: 25, thinkingTokens: 18,
	totalTokens: 70}"'

# Open models (vLLM) stream raw reasoning text instead of a summary.
sed 's/reasoning_summary_text\.delta/reasoning_text.delta/g' \
	"$FIX/reasoning-tool.sse" >raw.sse
printf '[{"file": "%s"}]\n' "$TMP/raw.sse" >plan.json
fake_start plan.json
check_exit 'reasoning_text deltas' 0 'llm -t medium <ctx >out 2>err'
check 'are thinking too' 'jq_lines out && jq -s -e "
	map(select(.type == \"thinking_delta\") | .delta) | join(\"\") ==
	\"**Sizing the file** I need its size.Call file_size.\"" out'

# Without -t there is no encrypted content, so nothing to replay.
sed 's/"encrypted_content":"gAAAAB-enc-R1==",//' "$FIX/reasoning-tool.sse" \
	>noenc.sse
printf '[{"file": "%s"}]\n' "$TMP/noenc.sse" >plan.json
fake_start plan.json
check_exit 'reasoning without encrypted content' 0 'llm <ctx >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is thinking with no signature' '! grep -q gAAAAB noenc.sse &&
	tail -n 1 out | jq -e ".message.content[0] | .type == \"thinking\" and
	(.thinking | startswith(\"**Sizing\")) and
	(has(\"thinkingSignature\") | not)"'

# A call that arrives finished, with no added event and no deltas.
cat >whole.sse <<'SSE'
event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"id":"fc_W","type":"function_call","status":"completed","arguments":"{\"path\":\"w\"}","call_id":"call_W","name":"file_size"}}

event: response.completed
data: {"type":"response.completed","response":{"status":"completed","output":[],"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}}}

SSE
printf '[{"file": "%s"}]\n' "$TMP/whole.sse" >plan.json
fake_start plan.json
check_exit 'a call given only whole' 0 'llm <ctx >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'starts, streams and ends as any other' 'test "$(jq -r .type out |
	tr "\n" " ")" = "message_start toolcall_start toolcall_delta \
toolcall_end message_end " && tail -n 1 out | jq -e ".stopReason ==
	\"tool_use\" and .message.content == [{type: \"toolCall\",
	id: \"call_W\", name: \"file_size\", arguments: {path: \"w\"}}]"'

done_testing
