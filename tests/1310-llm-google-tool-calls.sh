#!/bin/sh
# Parallel function calls: each functionCall part is one whole call
# (Gemini says STOP on a tool turn; the calls say tool_use), and its
# thoughtSignature stays with it.  Fed back, the calls go out as
# functionCall parts with object args, the signature on the same part,
# and the results as one user content of functionResponse parts, in
# order, each response an object, right after the model turn.
. "$(dirname "$0")/lib.sh"
plan 31

FIX=$ROOT/tests/fixtures/google
GEMINI_API_KEY=g-test PI_CLOCK_FIXED=1700000000000
export GEMINI_API_KEY PI_CLOCK_FIXED
llm() { pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-x "$@"; }
req() { req_n=$1; shift; jq "$@" "$(fake_req "$req_n")"; }

# The second call with an id of the server's, to be kept.
sed 's/\("functionCall":{\)\("name":"now"\)/\1"id":"fc-now-1",\2/' \
	"$FIX/tool-calls.sse" >ids.sse
# Both with the same id: the second must get another.
sed 's/"functionCall":{"name"/"functionCall":{"id":"dup","name"/g' \
	"$FIX/tool-calls.sse" >dup.sse
cat >plan.json <<EOF2
[{"file": "$FIX/tool-calls.sse"}, {"file": "$FIX/text.sse"},
 {"file": "$FIX/text.sse"}, {"file": "$TMP/ids.sse"},
 {"file": "$TMP/dup.sse"}]
EOF2
fake_start plan.json

cat >ctx <<'EOF2'
{"type":"tool","name":"file_size","description":"Bytes in a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}
{"type":"tool","name":"now","description":"The time","inputSchema":{"type":"object","properties":{}}}
{"role":"user","content":"Size of config.json, and the time?"}
EOF2
check_exit 'a reply with two function calls exits 0' 0 'llm <ctx >out1 2>err'
check 'every line is a JSON object' 'jq_lines out1'
check 'the events: thinking, then each call whole, in order' \
	'test "$(jq -r .type out1 | tr "\n" " ")" = "message_start thinking_delta toolcall_start toolcall_delta toolcall_end toolcall_start toolcall_delta toolcall_end message_end "'
check 'the calls and their arguments' 'jq -s -e "map(select(.type ==
	\"toolcall_end\") | [.toolName, .input]) == [[\"file_size\",
	{path: \"config.json\"}], [\"now\", {}]]" out1'
check 'made-up ids, one per call, the same from start to end' 'jq -s -e "
	(map(select(.type == \"toolcall_start\").toolCallId) ==
	 map(select(.type == \"toolcall_end\").toolCallId)) and
	(map(select(.type == \"toolcall_start\").toolCallId) | unique |
	 length == 2 and all(length > 0))" out1'
check 'STOP with calls is tool_use' 'tail -n 1 out1 | jq -e "
	.type == \"message_end\" and .stopReason == \"tool_use\" and
	.message.stopReason == \"toolUse\""'
check 'the stored message: thinking, then both calls' 'tail -n 1 out1 |
	jq -e ".message.content | map(.type) ==
	[\"thinking\", \"toolCall\", \"toolCall\"] and
	.[0].thinking == \"I need the size and the time.\" and
	(.[0] | has(\"thinkingSignature\") | not)"'
check 'the signature is on the first call, the part it came with' \
	'tail -n 1 out1 | jq -e ".message.content[1].thoughtSignature ==
	\"CsYBsig+/A==\" and (.message.content[2] |
	has(\"thoughtSignature\") | not)"'

ID1=$(jq -r 'select(.type == "toolcall_end") | .toolCallId' out1 | sed -n 1p)
ID2=$(jq -r 'select(.type == "toolcall_end") | .toolCallId' out1 | sed -n 2p)
# The second result comes without its tool's name, and failed; the
# first has an image beside its text.
{
	cat ctx out1
	printf '{"role":"toolResult","toolCallId":"%s","toolName":"file_size","content":[{"type":"text","text":"2048"},{"type":"image","mimeType":"image/png","data":"iVBORw0K"}],"isError":false}\n' "$ID1"
	printf '{"type":"tool_execution_end","toolCallId":"%s","success":false,"output":"clock broken"}\n' "$ID2"
	echo '{"role":"user","content":"Thanks."}'
} >ctx2
check_exit 'the results go back' 0 'llm <ctx2 >out2 2>err && jq_lines out2'
check 'two requests' 'test "$(fake_requests)" -eq 2'
check 'the contents: prompt, model turn, results, image, text' 'req 2 -e "
	.body.contents | map(.role) ==
	[\"user\", \"model\", \"user\", \"user\", \"user\"]"'
check 'the model turn replays the thought and both calls' 'req 2 -e "
	.body.contents[1].parts == [
	{thought: true, text: \"I need the size and the time.\"},
	{functionCall: {name: \"file_size\", args: {path: \"config.json\"}},
	 thoughtSignature: \"CsYBsig+/A==\"},
	{functionCall: {name: \"now\", args: {}}}]"'
check 'args go as objects, never strings' 'req 2 -e "
	[.body.contents[1].parts[].functionCall // empty | .args | type] ==
	[\"object\", \"object\"]"'
check 'one user content answers both calls, in order' 'req 2 -e "
	.body.contents[2].parts == [
	{functionResponse: {name: \"file_size\",
	 response: {output: \"2048\"}}},
	{functionResponse: {name: \"now\",
	 response: {error: \"clock broken\"}}}]"'
check 'every response is an object' 'req 2 -e "
	[.body.contents[].parts[].functionResponse // empty | .response |
	type] == [\"object\", \"object\"]"'
check 'as many responses as calls' 'req 2 -e "
	([.body.contents[1].parts[] | select(.functionCall)] | length) ==
	([.body.contents[2].parts[] | select(.functionResponse)] | length)"'
check 'the image follows the results as inlineData' 'req 2 -e "
	.body.contents[3].parts == [{text: \"Tool result image:\"},
	{inlineData: {mimeType: \"image/png\", data: \"iVBORw0K\"}}]"'
check 'then the next prompt' 'req 2 -e "
	.body.contents[4].parts == [{text: \"Thanks.\"}]"'
check 'ids are not sent: Gemini matches by name and order' 'req 2 -e "
	[.. | objects | select(has(\"functionCall\") or
	has(\"functionResponse\")) | .[] | objects | has(\"id\")] |
	any | not"'
check 'the tools are declared' 'req 2 -e ".body.tools ==
	[{functionDeclarations: [{name: \"file_size\",
	description: \"Bytes in a file\", parameters: {type: \"object\",
	properties: {path: {type: \"string\"}}, required: [\"path\"]}},
	{name: \"now\", description: \"The time\"}]}]"'

# As an agent loop sends them: the results last, and one of them a bare
# toolResult line without its tool's name.
{
	cat ctx out1
	printf '{"role":"toolResult","toolCallId":"%s","toolName":"file_size","content":[{"type":"text","text":"2048"},{"type":"image","mimeType":"image/png","data":"iVBORw0K"}],"isError":false}\n' "$ID1"
	printf '{"role":"toolResult","toolCallId":"%s","content":"12:00"}\n' "$ID2"
} >ctx3
check_exit 'results at the end of the context' 0 \
	'llm <ctx3 >out7 2>err && jq_lines out7'
check 'close it, with the image after them' 'req 3 -e "
	.body.contents | map(.role) == [\"user\", \"model\", \"user\", \"user\"]
	and .[2].parts == [{functionResponse: {name: \"file_size\",
	response: {output: \"2048\"}}}, {functionResponse: {name: \"now\",
	response: {output: \"12:00\"}}}] and .[3].parts[1] ==
	{inlineData: {mimeType: \"image/png\", data: \"iVBORw0K\"}}"'

check_exit 'a call with an id of the server'"'"'s' 0 \
	'llm <ctx >out3 2>err && jq_lines out3'
check 'keeps that id' 'jq -s -e "map(select(.type == \"toolcall_end\") |
	.toolCallId) | .[1] == \"fc-now-1\" and (.[0] | length > 0) and
	.[0] != \"fc-now-1\"" out3'
check 'in the message too' 'tail -n 1 out3 | jq -e "
	.message.content[2].id == \"fc-now-1\""'

check_exit 'two calls with one id' 0 'llm <ctx >out6 2>err && jq_lines out6'
check 'the first keeps it, the second gets its own' 'jq -s -e "
	map(select(.type == \"toolcall_end\") | .toolCallId) | .[0] == \"dup\"
	and (.[1] | length > 0) and .[1] != \"dup\"" out6'

# A call without a signature, sent to Gemini 3, carries the documented
# value that says so; Gemini 2 gets none.
{
	cat ctx
	echo '{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"now","arguments":{}}],"provider":"anthropic","api":"anthropic-messages","model":"claude-x","stopReason":"toolUse"}'
	echo '{"role":"toolResult","toolCallId":"toolu_1","toolName":"now","content":"12:00"}'
} >ctx4
printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json && fake_start plan.json
check_exit 'a foreign call to gemini-3' 0 \
	'pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-3-pro <ctx4 \
	    >out4 && jq_lines out4'
check 'goes with skip_thought_signature_validator' 'req 1 -e "
	.body.contents[1].parts == [{functionCall: {name: \"now\", args: {}},
	thoughtSignature: \"skip_thought_signature_validator\"}]"'
check_exit 'to gemini-x' 0 'llm <ctx4 >out5 && jq_lines out5'
check 'without' 'req 2 -e ".body.contents[1].parts ==
	[{functionCall: {name: \"now\", args: {}}}] and
	.body.contents[2].parts == [{functionResponse: {name: \"now\",
	response: {output: \"12:00\"}}}]"'

done_testing
