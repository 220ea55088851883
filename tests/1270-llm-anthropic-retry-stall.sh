#!/bin/sh
# Anthropic: a 429 rate_limit_error is retried after its retry-after,
# and a stream that stalls mid-reply ends on the idle timeout.
. "$(dirname "$0")/lib.sh"
plan 8
text=$ROOT/tests/fixtures/anthropic/text.sse
cat >plan.json <<JSON
[{"status": 429, "headers": {"retry-after-ms": "7"},
  "body": "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}"},
 {"file": "$text"}]
JSON
fake_start plan.json
check_exit 'a 429 then a reply' 0 'ANTHROPIC_API_KEY=k pi-llm \
	--base-url "$FAKE_URL" -m anthropic/claude-x hi </dev/null >r.out'
check 'one retry event first, with the hint and the code' 'jq_lines r.out &&
	head -n 1 r.out | jq -e ".type == \"retry\" and .attempt == 1 and
	.delayMs == 7 and .status == 429 and .code == \"rate_limited\""'
check 'then the reply' 'tail -n 1 r.out |
	jq -e ".type == \"message_end\" and .stopReason == \"end_turn\""'
check 'in two requests' 'test "$(fake_requests)" = 2'

# Stall after message_start and some text.
printf '[{"file": "%s", "stall_after": %s}]\n' "$text" \
	"$(grep -b -m 1 text_delta "$text" | cut -d: -f1)" >stall.json
fake_start stall.json
start=$(date +%s%N)
check_exit 'a stalled stream ends on the idle timeout' 124 'ANTHROPIC_API_KEY=k \
	pi-llm --idle-timeout 1 --base-url "$FAKE_URL" -m anthropic/claude-x hi \
	</dev/null >s.out'
end=$(date +%s%N)
check 'within a second of the limit' \
	'test $(( (end - start) / 1000000 )) -lt 2500'
check 'the reply so far ends with stopReason error' 'jq_lines s.out &&
	tail -n 2 s.out | head -n 1 | jq -e ".type == \"message_end\" and
	.stopReason == \"error\""'
check 'then the idle_timeout error' 'tail -n 1 s.out |
	jq -e ".type == \"error\" and .code == \"idle_timeout\""'
done_testing
