#!/bin/sh
# Parallel tool_use blocks come out as separate calls whose input is
# parsed once the block ends; their results go back as tool_result blocks
# at the head of one user message, failures marked, missing ones made up,
# and ids that Anthropic would refuse rewritten on call and result alike.
. "$(dirname "$0")/lib.sh"
plan 25

FIX=$ROOT/tests/fixtures/anthropic
PI_CLOCK_FIXED=1700000000000 ANTHROPIC_API_KEY=KEY
export PI_CLOCK_FIXED ANTHROPIC_API_KEY

printf '[{"file": "%s"}, {"file": "%s"}]\n' "$FIX/tool-calls.sse" \
	"$FIX/text.sse" >plan.json
fake_start plan.json

llm() { pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x "$@"; }
# The first event of type $1 in file $2, for jq -e to judge.
pick() { jq -c --arg t "$1" 'select(.type == $t)' "$2" | head -n 1; }
# The body of the last request.
body() { jq -c .body "$(fake_req "$(fake_requests)")"; }

check_exit 'a stream of two tool calls exits 0' 0 \
	'llm "Write it, then tell the time." </dev/null >out && jq_lines out'
cat >expect <<'EOF'
toolcall_start toolu_01X write_file 0
toolcall_delta toolu_01X
toolcall_delta toolu_01X
toolcall_delta toolu_01X
toolcall_delta toolu_01X
toolcall_delta toolu_01X
toolcall_delta toolu_01X
toolcall_delta toolu_01X
toolcall_end toolu_01X write_file
toolcall_start toolu_01Y now 1
toolcall_end toolu_01Y now
EOF
check 'each call starts, streams its fragments and ends on its own' \
	'jq -r "select(.type | startswith(\"toolcall\")) |
	    [.type, .toolCallId, .toolName, .contentIndex] | map(values) |
	    join(\" \")" out >actual && diff -u expect actual'
printf '%s' '{"path": "dir/a\"b.txt", "lines": [1, 2.5], "note": "caf\u00e9 \ud83d\ude00"}' >expect
check 'the deltas are the raw fragments' \
	'jq -j "select(.type == \"toolcall_delta\").delta" out >actual &&
	cmp expect actual'
# The fragments cut a key, a string, a number, an escape and a surrogate
# pair: only the whole text parses.
check 'the first input is parsed from fragments cut mid-token' \
	'jq -c "select(.type == \"toolcall_end\" and
	    .toolCallId == \"toolu_01X\").input" out >actual &&
	jq -e ". == {path: \"dir/a\\\"b.txt\", lines: [1, 2.5],
	    note: \"café 😀\"}" actual'
check 'a call with no fragments has input {}' \
	'jq -c "select(.type == \"toolcall_end\" and
	    .toolCallId == \"toolu_01Y\")" out | jq -e ".input == {} and
	    (has(\"invalidArguments\") | not)"'
# This message_delta has output_tokens alone: the input count stays.
check 'message_end says tool_use, the message toolUse' \
	'pick message_end out | jq -e ".stopReason == \"tool_use\" and
	    .message.stopReason == \"toolUse\" and .usage.outputTokens == 40
	    and .message.usage.input == 50 and .message.usage.output == 40"'
check 'the message holds both calls with their arguments' \
	'pick message_end out | jq -e ".message.content == [
	    {type: \"toolCall\", id: \"toolu_01X\", name: \"write_file\",
	     arguments: {path: \"dir/a\\\"b.txt\", lines: [1, 2.5],
	     note: \"café 😀\"}},
	    {type: \"toolCall\", id: \"toolu_01Y\", name: \"now\",
	     arguments: {}}]"'

cat >tools.ndjson <<'EOF'
{"type":"tool","name":"write_file","description":"Write a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
{"type":"tool","name":"now","description":"The time","inputSchema":{"type":"object","properties":{}}}
{"role":"user","content":"Write it, then tell the time."}
EOF
ok_x='{"type":"tool_execution_end","toolCallId":"toolu_01X","toolName":"write_file","success":true,"output":"written"}'
bad_y='{"type":"tool_execution_end","toolCallId":"toolu_01Y","toolName":"now","success":false,"output":"clock broken"}'
# The text of a tool_result, whether sent as a string or as blocks.
text='(.content | if type == "string" then . else map(.text) | join("") end)'

{ cat tools.ndjson out; echo "$ok_x"; echo "$bad_y"
  echo '{"role":"user","content":"Go on."}'; } >ctx1
check_exit 'both results and a user line fed back' 0 \
	'llm <ctx1 >out1 && jq_lines out1'
check 'the assistant turn is its two tool_use blocks' \
	'body | jq -e ".messages[1] == {role: \"assistant\", content: [
	    {type: \"tool_use\", id: \"toolu_01X\", name: \"write_file\",
	     input: {path: \"dir/a\\\"b.txt\", lines: [1, 2.5],
	     note: \"café 😀\"}},
	    {type: \"tool_use\", id: \"toolu_01Y\", name: \"now\",
	     input: {}}]}"'
check 'the results and the text share the next user message' \
	'body | jq -e "(.messages | length) == 3 and
	    .messages[2].role == \"user\" and
	    [.messages[2].content[].type] ==
	    [\"tool_result\", \"tool_result\", \"text\"] and
	    .messages[2].content[2].text == \"Go on.\""'
check 'each result names its call and carries its output' \
	'body | jq -e ".messages[2].content[0:2] | map(
	    [.tool_use_id, $text]) == [[\"toolu_01X\", \"written\"],
	    [\"toolu_01Y\", \"clock broken\"]]"'
check 'only the failed result has is_error true' \
	'body | jq -e ".messages[2].content |
	    (.[0].is_error // false) == false and .[1].is_error == true"'

{ cat tools.ndjson out; echo "$ok_x"; echo "$bad_y"; } >ctx2
check_exit 'results with no user line after them' 0 \
	'llm <ctx2 >out2 && jq_lines out2'
check 'end the request with one user message of two tool_results' \
	'body | jq -e "(.messages | length) == 3 and
	    .messages[2].role == \"user\" and
	    [.messages[2].content[] | .type, .tool_use_id] ==
	    [\"tool_result\", \"toolu_01X\", \"tool_result\", \"toolu_01Y\"]"'

{ cat tools.ndjson out; echo "$ok_x"; } >ctx3
check_exit 'a result missing' 0 \
	'llm "Did it work?" <ctx3 >out3 && jq_lines out3'
check 'is made up as an error result, before the prompt' \
	'body | jq -e "(.messages | length) == 3 and
	    [.messages[2].content[] | .type] ==
	    [\"tool_result\", \"tool_result\", \"text\"] and
	    .messages[2].content[0].tool_use_id == \"toolu_01X\" and
	    (.messages[2].content[1] | .tool_use_id == \"toolu_01Y\" and
	    .is_error == true and $text == \"No result provided\")"'
check 'every tool_use has exactly one tool_result' \
	'body | jq -e "([.messages[] | .content[]? | objects |
	    select(.type == \"tool_use\").id] | sort) as \$u |
	    [.messages[] | .content[]? | objects |
	    select(.type == \"tool_result\").tool_use_id] | sort == \$u"'

# An id from the OpenAI Responses API, "call|item", is not one Anthropic
# accepts ([A-Za-z0-9_-], at most 64 bytes).
long=call_9f8e7d6c5b4a39281706f5e4d3c2b1a0\|fc_0123456789abcdef0123456789abcdef0123456789abcdef01
cat >openai.ndjson <<EOF
{"role":"user","content":"Time and size, please."}
{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"toolCall","id":"call_a1|fc_b2+c/3=","name":"now","arguments":{}},{"type":"toolCall","id":"$long","name":"file_size","arguments":{"path":"a"}}],"api":"openai-completions","provider":"openai","model":"gpt-x","stopReason":"toolUse","timestamp":1}
{"type":"tool_execution_end","toolCallId":"call_a1|fc_b2+c/3=","toolName":"now","success":true,"output":"12:00"}
{"type":"tool_execution_end","toolCallId":"$long","toolName":"file_size","success":true,"output":"7"}
EOF
check_exit 'a history with OpenAI-style ids' 0 \
	'llm <openai.ndjson >out4 && jq_lines out4'
check 'sends tool_use ids Anthropic accepts' \
	'body | jq -e "[.messages[1].content[] | select(.type == \"tool_use\")
	    | .id] | length == 2 and
	    all(.[]; test(\"^[A-Za-z0-9_-]{1,64}\$\"))"'
check 'each result follows its call to the new id' \
	'body | jq -e "[.messages[1].content[] | select(.type == \"tool_use\")
	    | .id] == [.messages[2].content[] |
	    select(.type == \"tool_result\") | .tool_use_id]"'
check 'with its own output, not a made-up error' \
	'body | jq -e "[.messages[2].content[] | $text] == [\"12:00\", \"7\"]
	    and all(.messages[2].content[]; (.is_error // false) == false)"'
check 'and the two ids stay distinct' \
	'body | jq -e "[.messages[1].content[] | select(.type == \"tool_use\")
	    | .id] | unique | length == 2"'

# A result for a call in no assistant message would be a 400.
cat >stray.ndjson <<'EOF'
{"role":"user","content":"Hello?"}
{"type":"tool_execution_end","toolCallId":"toolu_gone","toolName":"now","success":true,"output":"12:00"}
{"role":"user","content":"Anyone?"}
EOF
check_exit 'a result answering no call' 0 \
	'llm <stray.ndjson >out5 && jq_lines out5'
check 'is not sent' \
	'body | jq -e "[.. | objects | select(.type == \"tool_result\")]
	    == []"'
check 'the requests went to the fake' 'test "$(fake_requests)" -eq 6'

done_testing
