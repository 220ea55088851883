#!/bin/sh
# Gemini failures, each with its exit status and in-band report: 429
# with its retry delay in the body (RetryInfo), errors after HTTP 200
# framed as data:, as an array, or bare over several lines, a stall, a
# stream that closes before any finishReason, and the finish reasons and
# prompt feedback that are not a normal end.
. "$(dirname "$0")/lib.sh"
plan 54

FIX=$ROOT/tests/fixtures/google
PI_CLOCK_FIXED=1700000000000 GEMINI_API_KEY=AIzaSy-test-1340
export PI_CLOCK_FIXED GEMINI_API_KEY
llm() { pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-x "$@"; }
pick() { jq -c --arg t "$1" 'select(.type == $t)' "$2" | head -n 1; }
# A retry hint that keeps the tests fast.
fast='"headers": {"retry-after-ms": "1"}'
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
# last FILE CODE RECOVERABLE: the last line is that error.
last() {
	tail -n 1 "$1" | jq -e --arg c "$2" --argjson r "$3" \
	    '.type == "error" and .code == $c and .recoverable == $r'
}

plan_then_text "{\"status\": 429, \"file\": \"$FIX/429-retry.json\"}"
check_exit 'HTTP 429 then success exits 0' 0 'llm hi </dev/null >out1'
check 'every line is a JSON object' 'jq_lines out1'
check 'the retry waits the RetryInfo delay of the body, 0.01s' \
	'head -n 1 out1 | jq -e ".type == \"retry\" and .attempt == 1 and
	    .delayMs == 10 and .code == \"rate_limited\" and .status == 429"'
check 'then the answer, with no error' \
	'pick message_end out1 | jq -e ".stopReason == \"end_turn\"" &&
	! grep -q "\"type\":\"error\"" out1'
check 'the same request was sent twice' \
	'test "$(fake_requests)" -eq 2 &&
	jq -S .body "$(fake_req 1)" >b1 && jq -S .body "$(fake_req 2)" >b2 &&
	diff -u b1 b2'

plan_then_text "{\"file\": \"$FIX/error-data.sse\"}"
check_exit 'a data: error after some text exits 75' 75 \
	'llm hi </dev/null >out2'
check 'every line is a JSON object' 'jq_lines out2'
check 'the text before it was streamed' 'test "$(jq -j "select(.type ==
	\"text_delta\").delta" out2)" = "Partial answer"'
check 'message_end (error) then error end the stream' \
	'failed_after_start out2'
check 'the partial message is kept' 'pick message_end out2 | jq -e "
	.message.content == [{type: \"text\", text: \"Partial answer\"}]"'
check 'the error is temporary and says what the server said' \
	'last out2 server_error true && tail -n 1 out2 | jq -e "
	.message | test(\"The model is overloaded.*UNAVAILABLE\")"'
check 'one request: output had started' 'test "$(fake_requests)" -eq 1'

plan_then_text "{\"file\": \"$FIX/error-array.sse\"}"
check_exit 'an error in an array exits 5' 5 'llm hi </dev/null >out3'
check 'every line is a JSON object' 'jq_lines out3'
check 'message_end (error) then error' 'failed_after_start out3'
check 'INVALID_ARGUMENT is provider_error, not recoverable' \
	'last out3 provider_error false && tail -n 1 out3 | jq -e "
	.message | test(\"invalid argument\")"'

# Braces in its message, one after an escaped quote, do not count.
check 'the bare error spans lines and has braces in a string' \
	'test "$(grep -c "^  " "$FIX/error-bare.sse")" -ge 3 &&
	grep -qF "near '"'"'{'"'"' in \\\"{\\\" here" "$FIX/error-bare.sse" &&
	! grep -q "^data: {\"error" "$FIX/error-bare.sse"'
plan_then_text "{\"file\": \"$FIX/error-bare.sse\", \"split\": 1}"
check_exit 'an error without data:, over several lines, exits 75' 75 \
	'llm hi </dev/null >out4'
check 'every line is a JSON object' 'jq_lines out4'
check 'message_end (error) then error' 'failed_after_start out4'
printf '%s' "Internal error near '{' in \"{\" here. (INTERNAL)" >expect
check 'the whole object was read' 'last out4 server_error true &&
	tail -n 1 out4 | jq -j .message >actual && cmp expect actual'

# The same error as the whole body: nothing out yet, so it is retried.
sed -n '/^{/,$p' "$FIX/error-bare.sse" >bare-only.sse
plan_then_text "{\"file\": \"$TMP/bare-only.sse\", $fast}"
check 'the bare error alone is a body of several lines' \
	'test "$(wc -l <bare-only.sse)" -ge 5 && head -c 1 bare-only.sse |
	grep -q "{"'
check_exit 'a bare error before any output is retried' 0 \
	'llm hi </dev/null >out5'
check 'every line is a JSON object' 'jq_lines out5'
check 'a retry event says why' 'head -n 1 out5 | jq -e ".type == \"retry\"
	and .code == \"server_error\" and (.reason | test(\"error near\"))" &&
	test "$(fake_requests)" -eq 2 && tail -n 1 out5 | jq -e ".type ==
	\"message_end\" and .stopReason == \"end_turn\""'

hello=$(head -n 2 "$FIX/text.sse" | wc -c)
plan_then_text "{\"file\": \"$FIX/text.sse\", \"stall_after\": $hello}"
t0=$(date +%s%N)
check_exit 'a stall after some text exits 124' 124 \
	'llm --idle-timeout 1 hi </dev/null >out6'
ms=$((($(date +%s%N) - t0) / 1000000))
check 'within a second of the 1 s limit' \
	'echo "took $ms ms" && test "$ms" -ge 1000 && test "$ms" -lt 2500'
check 'every line is a JSON object' 'jq_lines out6'
check 'the first chunk came out' 'test "$(jq -j "select(.type ==
	\"text_delta\").delta" out6)" = "Hello"'
check 'message_end (error) then the idle_timeout error' \
	'failed_after_start out6 && last out6 idle_timeout false'

plan_then_text "{\"file\": \"$FIX/truncated.sse\"}"
check_exit 'EOF before any finishReason exits 75' 75 \
	'llm hi </dev/null >out7'
check 'every line is a JSON object' 'jq_lines out7'
check 'message_end (error) then truncated_stream' \
	'failed_after_start out7 && last out7 truncated_stream true &&
	tail -n 1 out7 | jq -e ".message | test(\"finishReason\")"'
check 'the text so far is kept; one request' 'pick message_end out7 |
	jq -e ".message.content == [{type: \"text\",
	text: \"Partial answer\"}]" && test "$(fake_requests)" -eq 1'

plan_then_text "{\"file\": \"$FIX/max-tokens.sse\"}"
check_exit 'finishReason MAX_TOKENS exits 0' 0 'llm hi </dev/null >out8'
check 'every line is a JSON object' 'jq_lines out8'
check 'message_end says max_tokens, the message length' \
	'tail -n 1 out8 | jq -e ".type == \"message_end\" and
	.stopReason == \"max_tokens\" and .message.stopReason == \"length\"
	and .message.content == [{type: \"text\", text: \"The answer is\"}]"'

plan_then_text "{\"file\": \"$FIX/safety.sse\"}"
check_exit 'finishReason SAFETY exits 5' 5 'llm hi </dev/null >out9'
check 'every line is a JSON object' 'jq_lines out9'
check 'message_end (error) then content_filter' \
	'failed_after_start out9 && last out9 content_filter false &&
	tail -n 1 out9 | jq -e ".message | test(\"SAFETY\")"'
check 'one request' 'test "$(fake_requests)" -eq 1'

plan_then_text "{\"file\": \"$FIX/blocked-prompt.sse\"}"
check_exit 'a blocked prompt exits 5' 5 'llm hi </dev/null >out10'
check 'every line is a JSON object' 'jq_lines out10'
check 'the only line is a content_filter error' \
	'test "$(wc -l <out10)" -eq 1 && last out10 content_filter false &&
	jq -e ".message | test(\"PROHIBITED_CONTENT\")" out10'

plan_then_text "{\"file\": \"$FIX/malformed-call.sse\", $fast}"
check_exit 'MALFORMED_FUNCTION_CALL is temporary: retried' 0 \
	'llm hi </dev/null >out11'
check 'every line is a JSON object' 'jq_lines out11'
check 'with a retry event that says so' 'head -n 1 out11 | jq -e "
	.type == \"retry\" and .code == \"bad_response\" and
	(.reason | test(\"MALFORMED_FUNCTION_CALL\"))" &&
	test "$(fake_requests)" -eq 2'
printf '[{"file": "%s"}]\n' "$FIX/malformed-call.sse" >plan.json &&
	fake_start plan.json
check_exit 'with no retries left it exits 75' 75 \
	'llm --max-retries 0 hi </dev/null >out12'
check 'every line is a JSON object' 'jq_lines out12'
check 'the only line is the error' 'test "$(wc -l <out12)" -eq 1 &&
	last out12 bad_response true'

plan_then_text "{\"status\": 400, \"file\": \"$FIX/400-bad-key.json\"}"
check_exit 'a 400 for a bad key exits 4' 4 'llm hi </dev/null >out13 2>err13'
check 'every line is a JSON object' 'jq_lines out13'
check 'the only line is an auth error' 'test "$(wc -l <out13)" -eq 1 &&
	last out13 auth false &&
	jq -e ".message | test(\"API key not valid\")" out13'
check 'one request; the key is not shown' 'test "$(fake_requests)" -eq 1 &&
	! grep -q "AIzaSy-test" out13 err13'

done_testing
