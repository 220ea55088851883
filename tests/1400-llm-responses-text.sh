#!/bin/sh
# A plain OpenAI Responses stream: output_text deltas with code-point
# positions, the message item id kept as textSignature, usage counted as
# pi counts it, and the request it took to get there.
. "$(dirname "$0")/lib.sh"
plan 33

FIX=$ROOT/tests/fixtures/responses
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
# serve FILE [EXTRA]: one plan entry for FILE.
serve() { printf '[{"file": "%s"%s}]\n' "$1" "${2:+, $2}" >plan.json &&
	fake_start plan.json; }
llm() { pi-llm --api openai-responses --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x "$@"; }
req() { jq "$@" "$(fake_req 1)"; }
types() { jq -r .type "$1" | tr '\n' ' '; }

serve "$FIX/text.sse"
check_exit 'a text stream ends with exit 0' 0 \
	'llm -s "Be terse." --max-tokens 300 hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'and nothing is said on stderr' 'test ! -s err'
check 'start, three deltas, end' 'test "$(types out)" = \
	"message_start text_delta text_delta text_delta message_end "'
cat >expect <<'EOF2'
["Hello",0,0]
[", wörld 😀",5,0]
["!",14,0]
EOF2
check 'text_delta index counts code points, not bytes' 'jq -c \
	"select(.type == \"text_delta\") | [.delta, .index, .contentIndex]" \
	out >actual && diff -u expect actual'
check 'message_start names the API' 'head -n 1 out | jq -e "
	.provider == \"openai\" and .api == \"openai-responses\" and
	.model == \"gpt-x\" and .ts == 1700000000000"'
check 'message_end: end_turn, the text and its item id' 'tail -n 1 out |
	jq -e ".type == \"message_end\" and .stopReason == \"end_turn\" and
	.message.stopReason == \"stop\" and .message.api == \"openai-responses\"
	and .message.content == [{type: \"text\", text: \"Hello, wörld 😀!\",
	textSignature: \"msg_T1\"}]"'
# input_tokens includes the cached ones, output_tokens the reasoning.
check 'message_end usage: input with cache, reasoning apart' 'tail -n 1 out |
	jq -e ".usage == {inputTokens: 57, outputTokens: 40,
	thinkingTokens: 12, cacheReadTokens: 7, totalTokens: 97}"'
check 'message usage: input without the cached tokens' 'tail -n 1 out |
	jq -e ".message.usage | {input, output, cacheRead, cacheWrite,
	totalTokens} == {input: 50, output: 40, cacheRead: 7, cacheWrite: 0,
	totalTokens: 97}"'

check 'one POST to /v1/responses' 'test "$(fake_requests)" -eq 1 &&
	req -e ".method == \"POST\" and .path == \"/v1/responses\""'
check 'with the key as a Bearer token' 'req -e "
	.headers.authorization == \"Bearer k-test\" and
	(.headers | has(\"x-api-key\") | not)"'
check 'the system prompt is instructions, not an input item' 'req -e "
	.body.instructions == \"Be terse.\" and
	(.body.input | map(.role) == [\"user\"])"'
check 'the prompt is a user item of input_text parts' 'req -e "
	.body.input == [{role: \"user\",
	content: [{type: \"input_text\", text: \"hi\"}]}]"'
check 'streamed, not stored, max_output_tokens from --max-tokens' 'req -e "
	.body.model == \"gpt-x\" and .body.stream == true and
	.body.store == false and .body.max_output_tokens == 300"'
check 'no Chat Completions fields' 'req -e ".body | (has(\"messages\") or
	has(\"stream_options\") or has(\"max_completion_tokens\") or
	has(\"max_tokens\")) | not"'
check 'and without -t or tools, no reasoning, include or tools' 'req -e "
	.body | (has(\"reasoning\") or has(\"include\") or
	has(\"tools\")) | not"'

# total_tokens is the server's word, even where it is not the sum.
sed 's/"total_tokens":97/"total_tokens":99/' "$FIX/text.sse" >total.sse
serve "$TMP/total.sse"
check_exit 'a total_tokens that is not the sum' 0 \
	'llm hi </dev/null >out4 2>err'
check 'every line is a JSON object' 'jq_lines out4'
check 'is passed on as totalTokens' 'grep -q total_tokens.:99 total.sse &&
	tail -n 1 out4 | jq -e ".usage.totalTokens == 99 and
	.message.usage.totalTokens == 99"'

check 'an empty -s is no instructions' 'jq -e ".body |
	has(\"instructions\") | not" "$(fake_req 1)" &&
	llm -s "" hi </dev/null >out5 2>err && jq_lines out5 &&
	jq -e ".body | has(\"instructions\") | not" "$(fake_req 2)"'

# A refusal is what the model said: text.
sed 's/response\.output_text\.delta/response.refusal.delta/' "$FIX/text.sse" \
	>refusal.sse
serve "$TMP/refusal.sse"
check_exit 'refusal deltas' 0 'llm hi </dev/null >out6 2>err'
check 'every line is a JSON object' 'jq_lines out6'
check 'are text' 'grep -q refusal.delta refusal.sse && tail -n 1 out6 |
	jq -e ".message.content[0].text == \"Hello, wörld 😀!\""'

# Byte by byte: the emoji and the ö are cut between reads.
jq -c 'del(.messageId)' out >whole
serve "$FIX/text.sse" '"split": 1'
check_exit 'the same stream one byte per read' 0 \
	'llm -s "Be terse." --max-tokens 300 hi </dev/null >out1 2>err'
check 'every line is a JSON object' 'jq_lines out1'
check 'gives the same events, characters whole' \
	'jq -c "del(.messageId)" out1 >split && diff -u whole split'

# A proxy may end the stream with the Chat Completions marker.
{ cat "$FIX/text.sse"; printf 'data: [DONE]\n\n'; } >done.sse
serve "$TMP/done.sse"
check_exit 'a trailing data: [DONE]' 0 \
	'llm -s "Be terse." --max-tokens 300 hi </dev/null >out2 2>err'
check 'every line is a JSON object' 'jq_lines out2'
check 'is tolerated and changes nothing' \
	'jq -c "del(.messageId)" out2 >done && diff -u whole done'

# Dispatch is on the JSON type: SSE names that lie change nothing.
sed 's/^event: .*/event: message/' "$FIX/text.sse" >names.sse
serve "$TMP/names.sse"
check_exit 'events whose event: line says something else' 0 \
	'llm -s "Be terse." --max-tokens 300 hi </dev/null >out3 2>err'
check 'every line is a JSON object' 'jq_lines out3'
check 'are read by their JSON type' \
	'jq -c "del(.messageId)" out3 >names && diff -u whole names'
check 'the fixture really had other names' \
	'grep -q "^event: response.output_text.delta" "$FIX/text.sse" &&
	! grep -q "^event: response" names.sse'

done_testing
