#!/bin/sh
# Tool results sent back to an OpenAI-compatible server: pi-llm's own
# output plus tool_execution_end lines is the next call's context.
. "$(dirname "$0")/lib.sh"
plan 28

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
# Request 1 asks for three tools, request 4 fails mid-stream, the rest
# answer with text (the last entry repeats).
cat >plan.json <<PLAN
[{"file": "$FIX/tool-calls.sse"}, {"file": "$FIX/text.sse"},
 {"file": "$FIX/text.sse"}, {"file": "$FIX/stream-error.sse"},
 {"file": "$FIX/text.sse"}]
PLAN
fake_start plan.json
llm() { pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x "$@"; }
req() { req_n=$1; shift; jq "$@" "$(fake_req "$req_n")"; }
# msgs N: request N's messages, tool contents flattened to a string.
msgs() { req "$1" -c '.body.messages[] | if (.content | type) == "array"
	then .content |= (map(.text // "") | join("")) else . end'; }

cat >ctx <<'CTX'
{"type":"tool","name":"read","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
{"type":"tool","name":"grep","description":"Search","inputSchema":{"type":"object","properties":{"pattern":{"type":"string"}}}}
{"type":"tool","name":"ls","description":"List","inputSchema":{"type":"object","properties":{}}}
{"role":"user","content":"Look around.","timestamp":1}
CTX
check_exit 'a reply with three tool calls' 0 'llm <ctx >out1 2>err'
check 'every line is a JSON object' 'jq_lines out1'

# call_C3 gets no result; call_Z9 answers a call nobody made.
{
	cat ctx out1
	echo '{"type":"tool_execution_end","v":1,"ts":2,"toolCallId":"call_A1","toolName":"read","success":true,"output":"contents of a","durationMs":3}'
	echo '{"type":"tool_execution_end","v":1,"ts":3,"toolCallId":"call_Z9","toolName":"read","success":true,"output":"stray","durationMs":1}'
	echo '{"type":"tool_execution_end","v":1,"ts":4,"toolCallId":"call_B2","toolName":"grep","success":false,"output":"grep: b: no such file","durationMs":2}'
	echo '{"role":"user","content":"next","timestamp":5}'
} >ctx2
check_exit 'the results in the next call' 0 'llm <ctx2 >out2 2>err'
check 'every line is a JSON object' 'jq_lines out2'
check 'six messages go out' 'req 2 -e ".body.messages | length == 6"'
check 'the assistant message carries the calls as tool_calls' 'req 2 -e "
	.body.messages[1] | .role == \"assistant\" and
	(.content == null or .content == \"\") and
	(.tool_calls | map([.id, .type, .function.name]) == [
	[\"call_A1\", \"function\", \"read\"], [\"call_B2\", \"function\", \"grep\"],
	[\"call_C3\", \"function\", \"ls\"]])"'
check 'with the arguments as a JSON string' 'req 2 -e "
	.body.messages[1].tool_calls | map(.function.arguments | type) ==
	[\"string\", \"string\", \"string\"]"'
check 'that parses to the streamed input' 'req 2 -e "
	.body.messages[1].tool_calls | map(.function.arguments | fromjson) == [
	{path: \"dir/a\\\"b.txt\", note: \"café ☕\"},
	{pattern: \"x\\\\ny\", paths: [\"a\", \"b\"]}, {}]"'
cat >expect <<'EOF2'
{"role":"user","content":"Look around."}
{"role":"tool","tool_call_id":"call_A1","content":"contents of a"}
{"role":"tool","tool_call_id":"call_B2","content":"grep: b: no such file"}
{"role":"tool","tool_call_id":"call_C3","content":"No result provided"}
{"role":"user","content":"next"}
EOF2
check 'each result follows as a tool message, in order' \
	'msgs 2 | jq -c "if .role == \"assistant\" then empty else
	{role, tool_call_id, content} | with_entries(select(.value != null))
	end" >actual && diff -u expect actual'
check 'a result for an unknown call is dropped' \
	'! grep -q "call_Z9\|stray" "$(fake_req 2)"'
check 'the tools go again' 'req 2 -e ".body.tools | map(.function.name) ==
	[\"read\", \"grep\", \"ls\"]"'

# Assistant messages that ended in error or abort are not replayed,
# nor are their calls answered.
cat >ctx3 <<'CTX'
{"role":"user","content":"q1","timestamp":1}
{"role":"assistant","content":[{"type":"text","text":"half"},{"type":"toolCall","id":"call_E1","name":"read","arguments":{"path":"x"}}],"api":"openai-completions","provider":"openai","model":"gpt-x","stopReason":"error","errorMessage":"boom","timestamp":2}
{"role":"toolResult","toolCallId":"call_E1","toolName":"read","content":[{"type":"text","text":"late"}],"isError":false,"timestamp":3}
{"role":"assistant","content":[{"type":"text","text":"cut"}],"api":"openai-completions","provider":"openai","model":"gpt-x","stopReason":"aborted","timestamp":4}
{"role":"user","content":"q2","timestamp":5}
CTX
check_exit 'a history with an error and an abort' 0 'llm <ctx3 >out3 2>err'
check 'every line is a JSON object' 'jq_lines out3'
printf '%s\n' '{"role":"user","content":"q1"}' \
	'{"role":"user","content":"q2"}' >expect
check 'sends only the user messages' 'msgs 3 >actual && diff -u expect actual'

check_exit 'a reply that fails mid-stream' 75 \
	'llm hi </dev/null >out4 2>err'
check 'every line is a JSON object' 'jq_lines out4'
check 'ends its message with stopReason error' 'jq -s -e "
	map(select(.type == \"message_end\")) | length == 1 and
	.[0].message.stopReason == \"error\"" out4'
{ echo '{"role":"user","content":"hi","timestamp":1}'; cat out4
  echo '{"role":"user","content":"again","timestamp":9}'; } >ctx5
check_exit 'that output as history' 0 'llm <ctx5 >out5 2>err'
check 'every line is a JSON object' 'jq_lines out5'
printf '%s\n' '{"role":"user","content":"hi"}' \
	'{"role":"user","content":"again"}' >expect
check 'leaves the failed message out' 'msgs 5 >actual && diff -u expect actual'

# OpenAI takes ids of at most 40 characters of [A-Za-z0-9_-].
long='toolu_01|fc_abc.def/ghi+jkl=mnopqrstuvwxyz0123456789ABCDEF'
cat >ctx6 <<CTX
{"role":"user","content":"go","timestamp":1}
{"role":"assistant","content":[{"type":"toolCall","id":"$long","name":"read","arguments":{"path":"a"}},{"type":"toolCall","id":"call.1:x","name":"ls","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","stopReason":"toolUse","timestamp":2}
{"type":"tool_execution_end","toolCallId":"$long","toolName":"read","success":true,"output":"A"}
{"type":"tool_execution_end","toolCallId":"call.1:x","toolName":"ls","success":true,"output":"L"}
CTX
check_exit 'ids another API made' 0 'llm <ctx6 >out6 2>err'
check 'every line is a JSON object' 'jq_lines out6'
check 'are normalised to 40 characters of [A-Za-z0-9_-]' 'req 6 -e "
	.body.messages[1].tool_calls | length == 2 and
	all(.id | test(\"^[A-Za-z0-9_-]{1,40}$\")) and
	.[0].id != .[1].id"'
check 'and each result follows its new id' 'req 6 -e ".body.messages |
	length == 4 and (.[1].tool_calls | map(.id)) ==
	(.[2:] | map(.tool_call_id)) and
	(.[2:] | map(.content)) == [\"A\", \"L\"]"'

# Two ids that differ only after the 40th character stay two calls.
p=call_0123456789abcdefghijklmnopqrstuvwxyz_0123456789
cat >ctx7 <<CTX
{"role":"user","content":"go","timestamp":1}
{"role":"assistant","content":[{"type":"toolCall","id":"${p}_one","name":"read","arguments":{"path":"1"}},{"type":"toolCall","id":"${p}_two","name":"read","arguments":{"path":"2"}}],"api":"openai-completions","provider":"openai","model":"gpt-x","stopReason":"toolUse","timestamp":2}
{"type":"tool_execution_end","toolCallId":"${p}_one","toolName":"read","success":true,"output":"one"}
{"type":"tool_execution_end","toolCallId":"${p}_two","toolName":"read","success":true,"output":"two"}
CTX
check_exit 'long ids that share a prefix' 0 'llm <ctx7 >out7 2>err'
check 'every line is a JSON object' 'jq_lines out7'
check 'stay distinct, each result after its own call' 'req 7 -e "
	.body.messages |
	(.[1].tool_calls | map(.id) | unique | length) == 2 and
	all(.[1].tool_calls[].id; test(\"^[A-Za-z0-9_-]{1,40}$\")) and
	(.[1].tool_calls | map(.id)) == (.[2:] | map(.tool_call_id)) and
	(.[2:] | map(.content)) == [\"one\", \"two\"]" ||
	{ req 7 -c .body.messages; false; }'
check 'seven requests in all' 'test "$(fake_requests)" -eq 7'

done_testing
