#!/bin/sh
# A plain OpenAI text stream: deltas with code-point positions, the stop
# reason, the whole message and usage counted as pi counts it.
. "$(dirname "$0")/lib.sh"
plan 19

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
serve() { printf '[{"file": "%s"}]\n' "$FIX/$1" >plan.json &&
	fake_start plan.json; }
llm() { pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x "$@"; }

serve text.sse
check_exit 'a text stream ends with exit 0' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'and nothing is said on stderr' 'test ! -s err'
jq -c 'del(.messageId)' out >events
check_same 'the events are the recorded ones' "$FIX/text.expect" events

cat >expect <<'EOF2'
["Hello",0,0]
[", wörld 😀",5,0]
["!",14,0]
EOF2
check 'text_delta index counts code points, not bytes' 'jq -c \
	"select(.type == \"text_delta\") | [.delta, .index, .contentIndex]" \
	out >actual && diff -u expect actual'
check 'one messageId on every line' \
	'test "$(jq -r .messageId out | sort -u | grep -c .)" -eq 1 &&
	jq -e ".messageId | test(\"^[0-9a-f]{8}-[0-9a-f]{4}-7\")" out >/dev/null'
check 'message_start comes first and names the model' 'head -n 1 out |
	jq -e ".type == \"message_start\" and .role == \"assistant\" and
	.provider == \"openai\" and .api == \"openai-completions\" and
	.model == \"gpt-x\" and .v == 1 and .ts == 1700000000000"'
check 'message_end comes last with stopReason end_turn' 'tail -n 1 out |
	jq -e ".type == \"message_end\" and .stopReason == \"end_turn\" and
	.message.stopReason == \"stop\" and (has(\"errorMessage\") | not)"'
check 'the message holds the whole text in one block' 'tail -n 1 out |
	jq -e ".message | .role == \"assistant\" and
	.content == [{type: \"text\", text: \"Hello, wörld 😀!\"}] and
	.provider == \"openai\" and .api == \"openai-completions\" and
	.model == \"gpt-x\" and .timestamp == 1700000000000"'
check 'the deltas add up to the message text' \
	'jq -j "select(.type == \"text_delta\").delta" out >deltas &&
	tail -n 1 out | jq -j ".message.content[0].text" >text &&
	cmp deltas text'
# prompt_tokens includes cached_tokens; completion_tokens includes the
# reasoning tokens.
check 'message_end usage: input with cache, reasoning apart' 'tail -n 1 out |
	jq -e ".usage == {inputTokens: 57, outputTokens: 40,
	thinkingTokens: 12, cacheReadTokens: 7, totalTokens: 97}"'
check 'message usage: input without the cached tokens' 'tail -n 1 out |
	jq -e ".message.usage | {input, output, cacheRead, cacheWrite,
	totalTokens} == {input: 50, output: 40, cacheRead: 7,
	cacheWrite: 0, totalTokens: 97}"'

# Usage on the finish chunk and again after it: the last one stands.
serve usage-twice.sse
check_exit 'usage sent twice' 0 'llm hi </dev/null >out2 2>err'
check 'every line is a JSON object' 'jq_lines out2'
check 'is overwritten, not added up' 'tail -n 1 out2 | jq -e "
	.usage == {inputTokens: 10, outputTokens: 2, totalTokens: 12}"'
check 'in the message too' 'tail -n 1 out2 | jq -e ".message.usage |
	{input, output, cacheRead, cacheWrite, totalTokens} ==
	{input: 10, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 12}"'

sed 's/"finish_reason":"stop"/"finish_reason":"length"/' "$FIX/text.sse" \
	>length.sse
printf '[{"file": "%s"}]\n' "$TMP/length.sse" >plan.json && fake_start plan.json
check_exit 'finish_reason length' 0 'llm hi </dev/null >out3 2>err'
check 'every line is a JSON object' 'jq_lines out3'
check 'is stopReason max_tokens, stored as length' 'tail -n 1 out3 | jq -e "
	.stopReason == \"max_tokens\" and .message.stopReason == \"length\""'

done_testing
