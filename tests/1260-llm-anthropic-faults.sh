#!/bin/sh
# Anthropic failures, each with its exit status and in-band report: an
# error event after HTTP 200, a stream that stops before message_stop,
# 529 overloaded (retried), 401 (not), a prompt too long, and the stop
# reasons max_tokens (a success) and refusal (not one).
. "$(dirname "$0")/lib.sh"
plan 43

FIX=$ROOT/tests/fixtures/anthropic
PI_CLOCK_FIXED=1700000000000 ANTHROPIC_API_KEY=sk-ant-test-1260
export PI_CLOCK_FIXED ANTHROPIC_API_KEY

llm() { pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x "$@"; }
# The first event of type $1 in file $2, for jq -e to judge.
pick() { jq -c --arg t "$1" 'select(.type == $t)' "$2" | head -n 1; }
# A plan of entry $1 then, should pi-llm try again, a good stream.
plan_then_text() {
	printf '[%s, {"file": "%s"}]\n' "$1" "$FIX/text.sse" >plan.json &&
	fake_start plan.json
}
# The failure ends the stream: message_end (error) then error, last.
failed_after_start() {
	jq -r .type "$1" | tail -n 2 | tr '\n' ' ' >types &&
	test "$(cat types)" = 'message_end error ' &&
	pick message_end "$1" | jq -e '.stopReason == "error" and
	    (.errorMessage | length > 0) and .message.stopReason == "error"' &&
	test "$(jq -r .messageId "$1" | sort -u | wc -l)" -eq 1
}
overloaded='{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'

plan_then_text "{\"file\": \"$FIX/error-mid.sse\"}"
check_exit 'an error event after some text exits 75' 75 \
	'llm hi </dev/null >out1'
check 'every line is a JSON object' 'jq_lines out1'
check 'the text before it was streamed' \
	'test "$(jq -j "select(.type == \"text_delta\").delta" out1)" = \
	    "Partial answer"'
check 'message_end (error) then error end the stream' \
	'failed_after_start out1'
check 'the partial message is kept' \
	'pick message_end out1 | jq -e ".message.content ==
	    [{type: \"text\", text: \"Partial answer\"}]"'
check 'the error is overloaded, recoverable, of this message' \
	'tail -n 1 out1 | jq -e --arg id "$(jq -r .messageId out1 | head -n 1)" \
	    ".type == \"error\" and .code == \"overloaded\" and
	    .recoverable == true and .messageId == \$id and
	    (.message | test(\"Overloaded\"))"'
# Output has started, so a retry would repeat it: report, do not retry.
check 'exactly one request, no retry' \
	'test "$(fake_requests)" -eq 1 && ! grep -q "\"type\":\"retry\"" out1'

plan_then_text "{\"file\": \"$FIX/truncated.sse\"}"
check_exit 'EOF without message_stop exits 75' 75 'llm hi </dev/null >out2'
check 'every line is a JSON object' 'jq_lines out2'
check 'message_end (error) then error end the stream' \
	'failed_after_start out2'
check 'the error code is truncated_stream' \
	'tail -n 1 out2 | jq -e ".code == \"truncated_stream\" and
	    .recoverable == true"'
check 'exactly one request' 'test "$(fake_requests)" -eq 1'

# Cut before any event came out, the call can still be made again.
plan_then_text '{"body": "event: ping\ndata: {\"type\":\"ping\"}\n\n",
    "headers": {"retry-after-ms": "5"}}'
check_exit 'EOF before any output is retried, then succeeds' 0 \
	'llm hi </dev/null >out3'
check 'every line is a JSON object' 'jq_lines out3'
check 'a retry event for the truncated stream comes first' \
	'head -n 1 out3 | jq -e ".type == \"retry\" and .attempt == 1 and
	    .code == \"truncated_stream\""'
check 'then the whole message, and two requests' \
	'test "$(jq -r .type out3 | tr "\n" " ")" = \
	    "retry message_start text_delta text_delta text_delta message_end " &&
	test "$(fake_requests)" -eq 2'

plan_then_text "{\"status\": 529, \"headers\": {\"retry-after-ms\": \"5\"},
    \"body\": $(printf '%s' "$overloaded" | jq -R .)}"
check_exit 'HTTP 529 then success exits 0' 0 'llm hi </dev/null >out4'
check 'every line is a JSON object' 'jq_lines out4'
check 'a retry event says why and how long' \
	'head -n 1 out4 | jq -e ".type == \"retry\" and .attempt == 1 and
	    .maxRetries == 3 and .delayMs == 5 and .code == \"overloaded\" and
	    .status == 529"'
check 'then the answer, with no error' \
	'pick message_end out4 | jq -e ".stopReason == \"end_turn\"" &&
	! grep -q "\"type\":\"error\"" out4 && test "$(wc -l <out4)" -eq 6'
check 'the same request was sent twice' \
	'test "$(fake_requests)" -eq 2 &&
	jq -S .body "$(fake_req 1)" >b1 && jq -S .body "$(fake_req 2)" >b2 &&
	diff -u b1 b2'

printf '[{"status": 529, "headers": {"retry-after-ms": "1"}, "body": %s}]\n' \
	"$(printf '%s' "$overloaded" | jq -R .)" >plan.json
fake_start plan.json
check_exit 'HTTP 529 every time exits 75' 75 \
	'llm --max-retries 2 hi </dev/null >out5'
check 'every line is a JSON object' 'jq_lines out5'
check 'after the retries allowed, announced one by one' \
	'test "$(fake_requests)" -eq 3 &&
	test "$(jq -r .type out5 | tr "\n" " ")" = "retry retry error " &&
	jq -s -e ".[0].attempt == 1 and .[1].attempt == 2" out5'
check 'the error is overloaded and recoverable' \
	'tail -n 1 out5 | jq -e ".code == \"overloaded\" and
	    .recoverable == true and (has(\"messageId\") | not)"'

plan_then_text '{"status": 401, "body": "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"},\"request_id\":\"req_1\"}"}'
check_exit 'HTTP 401 exits 4' 4 'llm hi </dev/null >out6 2>err6'
check 'every line is a JSON object' 'jq_lines out6'
check 'the only line is an error that is not recoverable' \
	'test "$(wc -l <out6)" -eq 1 && jq -e ".type == \"error\" and
	    .code == \"auth\" and .recoverable == false and
	    (.message | test(\"invalid x-api-key\"))" out6'
check 'one request, no retry' 'test "$(fake_requests)" -eq 1'
check 'stderr says why, and the key is not shown' \
	'grep -q "^pi-llm: .*401" err6 && ! grep -q "sk-ant-test" out6 err6'

plan_then_text '{"status": 400, "body": "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 250000 tokens > 200000 maximum\"}}"}'
check_exit 'a prompt too long exits 5' 5 'llm hi </dev/null >out7'
check 'every line is a JSON object' 'jq_lines out7'
check 'with code context_overflow' \
	'test "$(wc -l <out7)" -eq 1 && jq -e ".type == \"error\" and
	    .code == \"context_overflow\" and .recoverable == false" out7'
check 'one request, no retry' 'test "$(fake_requests)" -eq 1'

plan_then_text "{\"file\": \"$FIX/max-tokens.sse\"}"
check_exit 'stop_reason max_tokens exits 0' 0 'llm hi </dev/null >out8'
check 'every line is a JSON object' 'jq_lines out8'
check 'message_end says max_tokens, the message length' \
	'tail -n 1 out8 | jq -e ".type == \"message_end\" and
	    .stopReason == \"max_tokens\" and .message.stopReason == \"length\"
	    and .message.content == [{type: \"text\", text: \"The answer is\"}]
	    and (has(\"errorMessage\") | not)"'
check 'one request' 'test "$(fake_requests)" -eq 1'

plan_then_text "{\"file\": \"$FIX/refusal.sse\"}"
check_exit 'stop_reason refusal exits 5' 5 'llm hi </dev/null >out9'
check 'every line is a JSON object' 'jq_lines out9'
check 'message_end (error) then error end the stream' \
	'failed_after_start out9'
check 'with code content_filter, not recoverable' \
	'tail -n 1 out9 | jq -e ".code == \"content_filter\" and
	    .recoverable == false"'
check 'one request, no retry' 'test "$(fake_requests)" -eq 1'

done_testing
