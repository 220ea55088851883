#!/bin/sh
# An Anthropic text stream becomes text_delta events and one message_end;
# pings are noise wherever they fall, and usage in message_delta is a
# running total that overwrites what message_start said.
. "$(dirname "$0")/lib.sh"
plan 14

FIX=$ROOT/tests/fixtures/anthropic
PI_CLOCK_FIXED=1700000000000 ANTHROPIC_API_KEY=KEY
export PI_CLOCK_FIXED ANTHROPIC_API_KEY

printf '[{"file": "%s"}, {"file": "%s"}]\n' "$FIX/text.sse" \
	"$FIX/usage-running.sse" >plan.json
fake_start plan.json

# The first event of type $1 in file $2, for jq -e to judge.
pick() { jq -c --arg t "$1" 'select(.type == $t)' "$2" | head -n 1; }

check_exit 'a text stream exits 0' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x hi </dev/null >out'
check 'every line is a JSON object' 'jq_lines out'
check 'one request was made' 'test "$(fake_requests)" -eq 1'

cat >expect <<'EOF'
message_start
text_delta
text_delta
text_delta
message_end
EOF
check 'pings produce no events' 'jq -r .type out >types &&
	diff -u expect types'

cat >expect <<'EOF'
{"delta":"Héllo","contentIndex":0,"index":0}
{"delta":", wörld 😀","contentIndex":0,"index":5}
{"delta":"!","contentIndex":0,"index":14}
EOF
# index counts code points: the emoji is one, not two (UTF-16) or four.
check 'text deltas carry contentIndex and a code-point index' \
	'jq -c "select(.type == \"text_delta\") |
	    {delta, contentIndex, index}" out >actual && diff -u expect actual'
check 'all events share one messageId' \
	'test "$(jq -r .messageId out | sort -u | wc -l)" -eq 1 &&
	test -n "$(jq -r "select(.type == \"message_end\").messageId" out)"'
check 'message_start names the provider, api and model' \
	'pick message_start out | jq -e ".role == \"assistant\" and
	    .provider == \"anthropic\" and .api == \"anthropic-messages\" and
	    .model == \"claude-x\""'
check 'message_end says end_turn, the message says stop' \
	'pick message_end out | jq -e ".stopReason == \"end_turn\"
	    and .message.stopReason == \"stop\" and
	    .message.content == [{type: \"text\", text: \"Héllo, wörld 😀!\"}]
	    and .message.role == \"assistant\" and
	    .message.provider == \"anthropic\" and
	    .message.api == \"anthropic-messages\" and
	    .message.model == \"claude-x\" and
	    (has(\"errorMessage\") | not)"'

# input_tokens excludes the cache; message_delta repeats input_tokens and
# the cache fields, which must not be added a second time.
check 'message usage: input excludes the cache, nothing doubled' \
	'pick message_end out | jq -c .message.usage >u &&
	jq -e ". == {input: 25, output: 12, cacheRead: 300, cacheWrite: 7,
	    totalTokens: 344}" u'
# The event's inputTokens is the whole prompt, cache included, as with
# OpenAI's prompt_tokens; the stored message keeps Anthropic's split.
check 'event usage: output from message_delta, cache reported' \
	'pick message_end out | jq -e ".usage |
	    .outputTokens == 12 and .cacheReadTokens == 300 and
	    .cacheWriteTokens == 7 and .totalTokens == 344 and
	    .inputTokens == 332"'
check 'message_start reports the prompt size from message_start' \
	'pick message_start out | jq -e ".usage.inputTokens == 332"'

check_exit 'a stream with two message_delta events exits 0' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x hi </dev/null >out2'
check 'every line is a JSON object' 'jq_lines out2'
# The last running total wins: 90, not 6 + 90 or 1 + 6 + 90.
check 'output tokens come from the last message_delta' \
	'pick message_end out2 | jq -e ".usage.outputTokens == 90
	    and .message.usage.output == 90 and .message.usage.input == 40 and
	    .message.usage.totalTokens == 130"'

done_testing
