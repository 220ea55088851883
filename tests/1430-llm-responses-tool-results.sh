#!/bin/sh
# Two parallel function calls and their results sent back: pi-llm's own
# output plus tool_execution_end lines is the next call's context.  The
# calls go back as function_call items with their arguments as a JSON
# string, each result as a function_call_output matched by call_id (the
# fc_ item id means nothing to it), after the reasoning item, replayed
# with its encrypted content since nothing is stored server-side.
. "$(dirname "$0")/lib.sh"
plan 17

FIX=$ROOT/tests/fixtures/responses
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
cat >plan.json <<PLAN
[{"file": "$FIX/tool-calls.sse"}, {"file": "$FIX/text.sse"}]
PLAN
fake_start plan.json
llm() { pi-llm --api openai-responses --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x "$@"; }
req() { req_n=$1; shift; jq "$@" "$(fake_req "$req_n")"; }

cat >ctx <<'CTX'
{"type":"tool","name":"read","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
{"type":"tool","name":"ls","description":"List","inputSchema":{"type":"object","properties":{"dir":{"type":"string"}}}}
{"role":"user","content":"Look around.","timestamp":1}
CTX
check_exit 'a reply with two parallel calls' 0 'llm -t low <ctx >out1 2>err'
check 'every line is a JSON object' 'jq_lines out1'
check 'each call starts, streams and ends, in order' 'jq -c "
	select(.type | startswith(\"toolcall_\")) | [.type, .toolCallId]" out1 \
	>actual && printf "%s\n" "[\"toolcall_start\",\"call_A1\"]" \
	"[\"toolcall_delta\",\"call_A1\"]" "[\"toolcall_delta\",\"call_A1\"]" \
	"[\"toolcall_end\",\"call_A1\"]" "[\"toolcall_start\",\"call_B2\"]" \
	"[\"toolcall_delta\",\"call_B2\"]" "[\"toolcall_end\",\"call_B2\"]" \
	>expect && diff -u expect actual'
check 'arguments given only whole, in the done event, still arrive' 'jq -s -e "
	map(select(.type == \"toolcall_end\") | [.toolCallId, .input]) ==
	[[\"call_A1\", {path: \"a.txt\", note: \"café ☕\"}],
	 [\"call_B2\", {dir: \"src\"}]]" out1'
check 'a reasoning item with no summary is an empty signed block' \
	'tail -n 1 out1 | jq -e ".stopReason == \"tool_use\" and
	(.message.content[0] | .type == \"thinking\" and .thinking == \"\" and
	(.thinkingSignature | fromjson | .encrypted_content ==
	\"gAAAAB-enc-P1==\"))"'
check 'cached input is cacheRead, not input' 'tail -n 1 out1 | jq -e "
	.message.usage | [.input, .cacheRead, .output, .totalTokens] ==
	[16, 64, 30, 110]"'

# The results come back in the other order; the call_ids pair them.
{
	cat ctx out1
	printf '%s\n' '{"type":"tool_execution_end","v":1,"ts":2,"toolCallId":"call_B2","toolName":"ls","success":true,"output":"main.c\nutil.c","durationMs":1}'
	printf '%s\n' '{"type":"tool_execution_end","v":1,"ts":3,"toolCallId":"call_A1","toolName":"read","success":false,"output":"read: a.txt: no such file","durationMs":2}'
} >ctx2
check_exit 'the results in the next call' 0 'llm -t low <ctx2 >out2 2>err'
check 'every line is a JSON object' 'jq_lines out2'
check 'two requests, both to /v1/responses' 'test "$(fake_requests)" -eq 2 &&
	req 2 -e ".path == \"/v1/responses\""'
check 'input: prompt, reasoning, two calls, two outputs' 'req 2 -e "
	.body.input | map(.type // .role) == [\"user\", \"reasoning\",
	\"function_call\", \"function_call\", \"function_call_output\",
	\"function_call_output\"]"'
check 'the reasoning item is replayed with its encrypted content' 'req 2 -e "
	.body.input[1] | .type == \"reasoning\" and
	.encrypted_content == \"gAAAAB-enc-P1==\" and .summary == []"'
check 'the calls go back by call_id, arguments as a JSON string' 'req 2 -e "
	.body.input[2:4] | map([.call_id, .name, (.arguments | type)]) ==
	[[\"call_A1\", \"read\", \"string\"],
	 [\"call_B2\", \"ls\", \"string\"]]"'
check 'arguments that parse to what was streamed' 'req 2 -e "
	.body.input[2:4] | map(.arguments | fromjson) ==
	[{path: \"a.txt\", note: \"café ☕\"}, {dir: \"src\"}]"'
check 'each output names its call by call_id, output a string' 'req 2 -e "
	.body.input[4:6] == [
	{type: \"function_call_output\", call_id: \"call_B2\",
	 output: \"main.c\nutil.c\"},
	{type: \"function_call_output\", call_id: \"call_A1\",
	 output: \"read: a.txt: no such file\"}]"'
check 'no fc_ item id anywhere in the request' \
	'grep -q call_A1 "$(fake_req 2)" &&
	! grep -q "fc_P" "$(fake_req 2)"'
check 'the tools and the reasoning request go again' 'req 2 -e "
	(.body.tools | map(.name)) == [\"read\", \"ls\"] and
	.body.include == [\"reasoning.encrypted_content\"]"'
check 'the answer is text' 'tail -n 1 out2 | jq -e "
	.stopReason == \"end_turn\" and
	.message.content[0].text == \"Hello, wörld 😀!\""'

done_testing
