#!/bin/sh
# usageMetadata comes on every chunk as a running total: the last one
# wins whole, nothing is added up.  The prompt count includes the cached
# tokens and the candidates count leaves out the thoughts; pi counts
# input without the cache and output with the thoughts.
. "$(dirname "$0")/lib.sh"
plan 10

FIX=$ROOT/tests/fixtures/google
GEMINI_API_KEY=g-test PI_CLOCK_FIXED=1700000000000
export GEMINI_API_KEY PI_CLOCK_FIXED
llm() { pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-x "$@"; }

# A chunk with usage only, after the one with finishReason: the reply
# ends when the connection closes, so it still counts.
{
	cat "$FIX/usage-running.sse"
	printf 'data: {"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":9,"thoughtsTokenCount":50,"cachedContentTokenCount":60,"totalTokenCount":230}}\r\n\r\n'
} >late.sse
cat >plan.json <<EOF2
[{"file": "$FIX/usage-running.sse"}, {"file": "$TMP/late.sse"}]
EOF2
fake_start plan.json

check 'the fixture has three running totals' \
	'test "$(grep -c usageMetadata "$FIX/usage-running.sse")" -eq 3'
check_exit 'a stream with running usage exits 0' 0 'llm hi </dev/null >out'
check 'every line is a JSON object' 'jq_lines out'
check 'message_start has the first prompt count, cache included' \
	'head -n 1 out | jq -e ".usage.inputTokens == 100"'
check 'message_end usage is the last total, not a sum' 'tail -n 1 out |
	jq -e ".usage == {inputTokens: 120, outputTokens: 59,
	thinkingTokens: 50, cacheReadTokens: 60, totalTokens: 200}"'
check 'the message usage: input without the cache' 'tail -n 1 out |
	jq -e ".message.usage | {input, output, cacheRead, cacheWrite,
	totalTokens} == {input: 60, output: 59, cacheRead: 60,
	cacheWrite: 0, totalTokens: 200}"'
check 'the text is all there' 'tail -n 1 out | jq -e ".message.content ==
	[{type: \"text\", text: \"abc\"}]"'

check_exit 'usage after finishReason' 0 'llm hi </dev/null >out2'
check 'every line is a JSON object' 'jq_lines out2'
check 'is the last word' 'tail -n 1 out2 | jq -e ".type == \"message_end\"
	and .usage.totalTokens == 230 and .message.usage.totalTokens == 230"'

done_testing
