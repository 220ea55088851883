#!/bin/sh
# Thinking arrives as thinking_delta events and is stored with its
# signature; fed back, it goes first in the assistant message, text and
# signature byte for byte, since the server checks them.  Redacted
# thinking goes back as redacted_thinking with its data untouched.
. "$(dirname "$0")/lib.sh"
plan 20

FIX=$ROOT/tests/fixtures/anthropic
PI_CLOCK_FIXED=1700000000000 ANTHROPIC_API_KEY=KEY
export PI_CLOCK_FIXED ANTHROPIC_API_KEY

printf '[{"file": "%s"}, {"file": "%s"}, {"file": "%s"}, {"file": "%s"}]\n' \
	"$FIX/thinking-tool.sse" "$FIX/text.sse" "$FIX/redacted.sse" \
	"$FIX/text.sse" >plan.json
fake_start plan.json

llm() { pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x "$@"; }
# The first event of type $1 in file $2, for jq -e to judge.
pick() { jq -c --arg t "$1" 'select(.type == $t)' "$2" | head -n 1; }

check_exit 'a thinking stream exits 0' 0 \
	'llm -t low "Size of config.json?" </dev/null >out1 && jq_lines out1'
cat >expect <<'EOF'
{"delta":"I should call","contentIndex":0}
{"delta":" file_size.","contentIndex":0}
EOF
check 'thinking arrives as thinking_delta events' \
	'jq -c "select(.type == \"thinking_delta\") | {delta, contentIndex}" \
	    out1 >actual && diff -u expect actual'
check 'and never as text' \
	'jq -r "select(.type == \"text_delta\").delta" out1 >actual &&
	test "$(cat actual)" = "Checking both."'
check 'the stored message starts with the thinking block' \
	'pick message_end out1 | jq -e ".message.content[0] == {
	    type: \"thinking\", thinking: \"I should call file_size.\",
	    thinkingSignature: \"EqQBCkYIBxgCKkA+/sig==\"}"'
printf 'EqQBCkYIBxgCKkA+/sig==' >expect
check 'whose signature is the one streamed, byte for byte' \
	'pick message_end out1 |
	jq -j ".message.content[0].thinkingSignature" >actual &&
	cmp expect actual'

# The run's own output is the history: the event lines are ignored and
# the message_end becomes the assistant message.
{
	echo '{"role":"user","content":"Size of config.json?"}'
	cat out1
	echo '{"type":"tool_execution_end","toolCallId":"toolu_01A","toolName":"file_size","success":true,"output":"2048"}'
	echo '{"type":"tool_execution_end","toolCallId":"toolu_01B","toolName":"now","success":true,"output":"12:00"}'
} >ctx1
check_exit 'the message fed back with its tool results' 0 \
	'llm -t low <ctx1 >out2 && jq_lines out2'
check 'makes a second request' 'test "$(fake_requests)" -eq 2'
req=$(fake_req 2)
check 'whose assistant message starts with the signed thinking block' \
	'jq -e ".body.messages[1].role == \"assistant\" and
	    .body.messages[1].content[0] == {type: \"thinking\",
	    thinking: \"I should call file_size.\",
	    signature: \"EqQBCkYIBxgCKkA+/sig==\"}" "$req"'
check 'then the text and both tool calls, in order' \
	'jq -e ".body.messages[1].content[1:] == [
	    {type: \"text\", text: \"Checking both.\"},
	    {type: \"tool_use\", id: \"toolu_01A\", name: \"file_size\",
	     input: {path: \"config.json\"}},
	    {type: \"tool_use\", id: \"toolu_01B\", name: \"now\", input: {}}]
	    " "$req"'
check 'followed by one user message with both results' \
	'jq -e "(.body.messages | length) == 3 and
	    .body.messages[2].role == \"user\" and
	    [.body.messages[2].content[] | .type, .tool_use_id] ==
	    [\"tool_result\", \"toolu_01A\", \"tool_result\", \"toolu_01B\"]" \
	    "$req"'
check 'and thinking still enabled' \
	'jq -e ".body.thinking == {type: \"enabled\", budget_tokens: 1024}" \
	    "$req"'

RED=EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj/pGuGSXL/WgBBHzBB8Kg==
check_exit 'a stream with redacted thinking exits 0' 0 \
	'llm -t low "What time is it?" </dev/null >out3 && jq_lines out3'
check 'the redacted block is kept with its data' \
	'pick message_end out3 | jq -e --arg d "$RED" "
	    .message.content[0].redacted == true and
	    .message.content[0].type == \"thinking\" and
	    .message.content[0].thinkingSignature == \$d"'
# Whitespace and quotes around the thinking are part of what is signed.
printf '  Still thinking:\n\ttabs, "quotes" and \303\251.\n\n' >expect
check 'the thinking after it is kept untrimmed' \
	'pick message_end out3 | jq -j ".message.content[1].thinking" >actual &&
	cmp expect actual'
check 'and its deltas are exactly the streamed ones' \
	'jq -j "select(.type == \"thinking_delta\").delta" out3 >actual &&
	cmp expect actual'

{
	echo '{"role":"user","content":"What time is it?"}'
	cat out3
	echo '{"type":"tool_execution_end","toolCallId":"toolu_01R","toolName":"now","success":true,"output":"12:00"}'
} >ctx3
check_exit 'fed back' 0 'llm -t low <ctx3 >out4 && jq_lines out4'
req=$(fake_req 4)
check 'redacted_thinking goes back with the same data' \
	'jq -e --arg d "$RED" ".body.messages[1].content[0] ==
	    {type: \"redacted_thinking\", data: \$d}" "$req"'
check 'the signed thinking after it byte for byte' \
	'jq -j ".body.messages[1].content[1].thinking" "$req" >actual &&
	cmp expect actual && jq -e ".body.messages[1].content[1] |
	    .type == \"thinking\" and .signature == \"SIG2+/xyz==\" and
	    keys == [\"signature\", \"thinking\", \"type\"]" "$req"'
check 'then the tool call' \
	'jq -e ".body.messages[1].content[2:] == [{type: \"tool_use\",
	    id: \"toolu_01R\", name: \"now\", input: {}}]" "$req"'
# The placeholder text of a redacted block is not the model's to read.
check 'and no placeholder text is sent for the redacted block' \
	'jq -e "[.body.messages[1].content[] | select(.type == \"text\")]
	    == []" "$req"'

done_testing
