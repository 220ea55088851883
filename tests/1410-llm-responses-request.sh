#!/bin/sh
# What goes to the Responses API: flat tools, the thinking level as
# reasoning effort with encrypted reasoning included, images as data
# URLs, and assistant history as items, sent with all their item ids or
# none (the server pairs a reasoning item with the item after it).
. "$(dirname "$0")/lib.sh"
plan 27

FIX=$ROOT/tests/fixtures/responses
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json
fake_start plan.json
llm() { pi-llm --api openai-responses --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x "$@"; }
# last [JQ ARGS]: the newest request, through jq.
last() { jq "$@" "$(fake_req "$(fake_requests)")"; }

cat >tools <<'CTX'
{"type":"tool","name":"file_size","description":"Bytes in a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}
{"type":"tool","name":"now","description":"The time"}
CTX
check_exit 'a call with two tools' 0 'llm hi <tools >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
cat >expect <<'EOF2'
[{"type":"function","name":"file_size","description":"Bytes in a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":false},{"type":"function","name":"now","description":"The time","parameters":{"type":"object","properties":{}},"strict":false}]
EOF2
# Keys compared in any order: JSON objects have none.
check 'tools are flat, with parameters and strict false' \
	'last -S -c .body.tools >actual && jq -S -c . expect >want &&
	diff -u want actual'
check 'no tool_choice: the default is auto' \
	'last -e ".body | has(\"tool_choice\") | not"'

# -t LEVEL: reasoning effort with a summary, and the encrypted reasoning
# that lets the next call replay it without server-side state.
for t in low medium high; do
	check_exit "-t $t" 0 "llm -t $t hi </dev/null >out 2>err"
	check 'every line is a JSON object' 'jq_lines out'
	check "is reasoning effort $t, summary auto, encrypted content" \
		"last -e '.body.reasoning == {effort: \"$t\", summary: \"auto\"}
		and .body.include == [\"reasoning.encrypted_content\"] and
		.body.store == false'"
done
check_exit '-t none' 0 'llm -t none hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'sends neither reasoning nor include' 'last -e ".body |
	(has(\"reasoning\") or has(\"include\")) | not"'

# Images: in a prompt as input_image, in a tool result as output parts.
cat >img <<'CTX'
{"role":"user","content":[{"type":"text","text":"What is it?"},{"type":"image","data":"iVBORw0K","mimeType":"image/png"}],"timestamp":1}
{"role":"assistant","content":[{"type":"toolCall","id":"call_S1","name":"shot","arguments":{}}],"api":"openai-responses","provider":"openai","model":"gpt-x","stopReason":"toolUse","timestamp":2}
{"role":"toolResult","toolCallId":"call_S1","toolName":"shot","content":[{"type":"text","text":"a shot"},{"type":"image","data":"R0lGOD","mimeType":"image/gif"}],"isError":false,"timestamp":3}
CTX
check_exit 'images in the history' 0 'llm <img >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'a prompt image is input_image with a data URL' 'last -e "
	.body.input[0] == {role: \"user\", content: [
	{type: \"input_text\", text: \"What is it?\"},
	{type: \"input_image\", image_url: \"data:image/png;base64,iVBORw0K\"}]}"'
check 'a result with an image sends its output as parts' 'last -e "
	.body.input[2] == {type: \"function_call_output\", call_id: \"call_S1\",
	output: [{type: \"input_text\", text: \"a shot\"},
	{type: \"input_image\", image_url: \"data:image/gif;base64,R0lGOD\"}]}"'

# Assistant history of this model: a turn of reasoning and text keeps
# its item ids; a turn with a call has no fc_ id to give, so it sends
# none, not even the reasoning item's.
rs() { jq -rn --arg id "$1" --arg enc "$2" '{id: $id, type: "reasoning",
	encrypted_content: $enc, summary: [{type: "summary_text", text: "S"}]}
	| tojson'; }
{
	echo '{"role":"user","content":"q1","timestamp":1}'
	jq -cn --arg sig "$(rs rs_H1 enc-H1)" '{role: "assistant", content: [
	{type: "thinking", thinking: "S", thinkingSignature: $sig},
	{type: "text", text: "a1", textSignature: "msg_H1"}],
	api: "openai-responses", provider: "openai", model: "gpt-x",
	stopReason: "stop", timestamp: 2}'
	echo '{"role":"user","content":"q2","timestamp":3}'
	jq -cn --arg sig "$(rs rs_H2 enc-H2)" '{role: "assistant", content: [
	{type: "thinking", thinking: "S", thinkingSignature: $sig},
	{type: "text", text: "a2", textSignature: "msg_H2"},
	{type: "toolCall", id: "call_H2", name: "now", arguments: {}}],
	api: "openai-responses", provider: "openai", model: "gpt-x",
	stopReason: "toolUse", timestamp: 4}'
	echo '{"role":"toolResult","toolCallId":"call_H2","toolName":"now","content":[{"type":"text","text":"noon"}],"isError":false,"timestamp":5}'
	# Reasoning without encrypted_content cannot be replayed.
	jq -cn '{role: "assistant", content: [
	{type: "thinking", thinking: "T", thinkingSignature:
	({id: "rs_H3", type: "reasoning", summary: []} | tojson)},
	{type: "text", text: "a3", textSignature: "msg_H3"}],
	api: "openai-responses", provider: "openai", model: "gpt-x",
	stopReason: "stop", timestamp: 6}'
	echo '{"role":"user","content":"q3","timestamp":7}'
	# Text without its message id, reasoning without its own: no ids.
	jq -cn --arg sig "$(rs rs_H4 enc-H4)" '{role: "assistant", content: [
	{type: "thinking", thinking: "S", thinkingSignature: $sig},
	{type: "text", text: "a4"}],
	api: "openai-responses", provider: "openai", model: "gpt-x",
	stopReason: "stop", timestamp: 8}'
	jq -cn --arg sig "$(rs rs_H5 enc-H5 | jq -c 'del(.id)')" \
	'{role: "assistant", content: [
	{type: "thinking", thinking: "S", thinkingSignature: $sig},
	{type: "text", text: "a5", textSignature: "msg_H5"}],
	api: "openai-responses", provider: "openai", model: "gpt-x",
	stopReason: "stop", timestamp: 9}'
	# Empty prompts are no items.
	echo '{"role":"user","content":"","timestamp":10}'
	echo '{"role":"user","content":[],"timestamp":11}'
} >hist
check_exit 'a history of this model' 0 'llm <hist >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
cat >expect <<'EOF2'
{"role":"user","content":[{"type":"input_text","text":"q1"}]}
{"id":"rs_H1","type":"reasoning","encrypted_content":"enc-H1","summary":[{"type":"summary_text","text":"S"}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a1"}],"id":"msg_H1"}
{"role":"user","content":[{"type":"input_text","text":"q2"}]}
{"type":"reasoning","encrypted_content":"enc-H2","summary":[{"type":"summary_text","text":"S"}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a2"}]}
{"type":"function_call","call_id":"call_H2","name":"now","arguments":"{}"}
{"type":"function_call_output","call_id":"call_H2","output":"noon"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a3"}]}
{"role":"user","content":[{"type":"input_text","text":"q3"}]}
{"type":"reasoning","encrypted_content":"enc-H4","summary":[{"type":"summary_text","text":"S"}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a4"}]}
{"type":"reasoning","encrypted_content":"enc-H5","summary":[{"type":"summary_text","text":"S"}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a5"}]}
EOF2
check 'goes as items, ids all or none per turn' \
	'last -c ".body.input[]" >actual && diff -u expect actual'
check 'reasoning without encrypted content is left out' \
	'f=$(fake_req "$(fake_requests)") && grep -q rs_H1 "$f" &&
	! grep -q rs_H3 "$f"'

# Another model's turn: its thinking is plain text, its ids are not ours.
cat >foreign <<'CTX'
{"role":"user","content":"q1","timestamp":1}
{"role":"assistant","content":[{"type":"thinking","thinking":"Hmm.","thinkingSignature":"EqQBsig"},{"type":"text","text":"a1","textSignature":"msg_X"},{"type":"toolCall","id":"toolu_01A","name":"now","arguments":{"tz":"UTC"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","stopReason":"toolUse","timestamp":2}
{"role":"toolResult","toolCallId":"toolu_01A","toolName":"now","content":[{"type":"text","text":"noon"}],"isError":false,"timestamp":3}
CTX
check_exit 'a history from Anthropic' 0 'llm <foreign >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
cat >expect <<'EOF2'
{"role":"user","content":[{"type":"input_text","text":"q1"}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hmm."}]}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a1"}]}
{"type":"function_call","call_id":"toolu_01A","name":"now","arguments":"{\"tz\":\"UTC\"}"}
{"type":"function_call_output","call_id":"toolu_01A","output":"noon"}
EOF2
check 'thinking becomes text, no reasoning item, no ids' \
	'last -c ".body.input[]" >actual && diff -u expect actual'

done_testing
