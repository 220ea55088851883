#!/bin/sh
# Faults of a Responses stream: 429 then success, an error event after
# HTTP 200 (and the response.failed that follows it), a stall, EOF
# before response.completed, and response.incomplete, each ending the
# call truthfully with the right exit status.
. "$(dirname "$0")/lib.sh"
plan 48

FIX=$ROOT/tests/fixtures/responses
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
llm() { pi-llm --api openai-responses --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x "$@"; }
# serve FILE [EXTRA]: one plan entry for FILE; retries, if any, are quick.
serve() { printf '[{"file": "%s", "headers": {"retry-after-ms": "1"}%s}]\n' \
	"$1" "${2:+, $2}" >plan.json && fake_start plan.json; }
types() { jq -r .type "$1" | tr '\n' ' '; }
# failed_after_output FILE CODE: message_end (error) then the error line,
# both about the same message, and only one error line.
failed_after_output() {
	jq -s -e --arg code "$2" '(map(.type) | .[0] == "message_start" and
	.[-2:] == ["message_end", "error"] and
	(map(select(. == "error")) | length) == 1) and
	.[-2].stopReason == "error" and .[-2].message.stopReason == "error" and
	(.[-2].errorMessage | type == "string" and length > 0) and
	.[-1].code == $code and .[-1].messageId == .[0].messageId' "$1"
}

cat >plan.json <<PLAN
[{"status": 429, "headers": {"retry-after-ms": "5"},
  "body": "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"},
 {"file": "$FIX/text.sse"}]
PLAN
fake_start plan.json
check_exit '429 then success' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'one retry event, then the whole message' 'test "$(types out)" = \
	"retry message_start text_delta text_delta text_delta message_end " &&
	head -n 1 out | jq -e ".attempt == 1 and .delayMs == 5 and
	.status == 429 and .code == \"rate_limited\""'
check 'two requests, the same body both times' \
	'test "$(fake_requests)" -eq 2 && jq -S .body "$(fake_req 1)" >b1 &&
	jq -S .body "$(fake_req 2)" >b2 && cmp b1 b2 &&
	jq -e ".path == \"/v1/responses\"" "$(fake_req 2)"'

# event: error after some text, then response.failed: one error, told
# once.  server_error is temporary, so exit 75, but not retried.
serve "$FIX/error-failed.sse"
check_exit 'an error event after HTTP 200 and text' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'ends with message_end (error), then one error line' \
	'test "$(types out)" = "message_start text_delta message_end error " &&
	failed_after_output out server_error'
check 'which passes on the server'"'"'s words' 'tail -n 1 out | jq -e "
	(.message | contains(\"The server had an error\")) and
	.recoverable == true"'
check 'the message keeps the partial text' 'jq -s -e ".[-2].message.content ==
	[{type: \"text\", text: \"Partial\"}]" out'
check 'there is one request, and stderr says why once' \
	'test "$(fake_requests)" -eq 1 &&
	test "$(grep -c "The server had an error" err)" -eq 1'

# The same before any output, flat as the SDK types it, and permanent.
cat >flat.sse <<'SSE'
event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_F","status":"in_progress","output":[]}}

event: error
data: {"type":"error","sequence_number":1,"code":"invalid_prompt","message":"Invalid prompt: flagged.","param":null}

event: response.failed
data: {"type":"response.failed","sequence_number":2,"response":{"id":"resp_F","status":"failed","output":[],"error":{"code":"invalid_prompt","message":"Invalid prompt: flagged."}}}

SSE
serve "$TMP/flat.sse"
check_exit 'a flat error event before any output' 5 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is one error line and nothing else' 'test "$(types out)" = "error " &&
	jq -e ".code == \"provider_error\" and .recoverable == false and
	(.message | contains(\"Invalid prompt: flagged.\")) and
	(.message | contains(\"invalid_prompt\"))" out'
check 'and is not retried' 'test "$(fake_requests)" -eq 1'

# Nested and temporary before any output: worth another try.
sed -n '1,3p;/^event: error/,$p' "$FIX/error-failed.sse" >early.sse
serve "$TMP/early.sse"
check_exit 'a temporary error event before any output' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is retried, then reported once' 'test "$(fake_requests)" -eq 4 &&
	test "$(types out)" = "retry retry retry error " &&
	tail -n 1 out | jq -e ".code == \"server_error\""'

# Data without a type: the SSE event name stands in for it.
printf '%s\n' 'event: error' \
	'data: {"error":{"code":"invalid_api_key","message":"Bad key."}}' '' \
	>untyped.sse
serve "$TMP/untyped.sse"
check_exit 'an error event whose data has no type' 5 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is the error it names' 'test "$(types out)" = "error " &&
	jq -e ".message | contains(\"Bad key.\")" out'

# response.failed alone carries the error in response.error.
sed '/^event: error/,/^$/d' "$FIX/error-failed.sse" >failed.sse
serve "$TMP/failed.sse"
check_exit 'response.failed without an error event' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'reports response.error' 'grep -q "^event: response.failed" failed.sse &&
	! grep -q "^event: error" failed.sse &&
	failed_after_output out server_error && tail -n 1 out | jq -e "
	.message | contains(\"The server had an error\")"'

# A stall mid-stream.
n=$(sed -n 1,16p "$FIX/text.sse" | wc -c)
serve "$FIX/text.sse" "\"stall_after\": $n"
check_exit 'a stall after text, --idle-timeout 1' 124 \
	'llm --idle-timeout 1 hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'ends in message_end (error), then error idle_timeout' \
	'test "$(types out)" = "message_start text_delta message_end error " &&
	failed_after_output out idle_timeout'

# EOF before the terminal event.
sed '/^event: response.completed/,$d' "$FIX/text.sse" >nocomplete.sse
serve "$TMP/nocomplete.sse"
check_exit 'a stream that ends without response.completed' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'ends with message_end (error), then error truncated_stream' \
	'grep -q output_item.done nocomplete.sse &&
	failed_after_output out truncated_stream &&
	tail -n 1 out | jq -e ".message | contains(\"response.completed\")"'
check 'keeps the text it got, and is not retried' 'jq -s -e "
	.[-2].message.content[0].text == \"Hello, wörld 😀!\"" out &&
	test "$(fake_requests)" -eq 1'
printf '%s\n' 'event: response.created' \
	'data: {"type":"response.created","response":{}}' '' >empty.sse
serve "$TMP/empty.sse"
check_exit 'EOF before any output' 75 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is retried, then error truncated_stream' \
	'test "$(fake_requests)" -eq 4 &&
	test "$(types out)" = "retry retry retry error " &&
	tail -n 1 out | jq -e ".code == \"truncated_stream\""'

# response.incomplete: out of tokens is a normal end; a filter is not.
serve "$FIX/incomplete.sse"
check_exit 'response.incomplete, max_output_tokens' 0 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is stopReason max_tokens, stored as length' 'tail -n 1 out | jq -e "
	.type == \"message_end\" and .stopReason == \"max_tokens\" and
	.message.stopReason == \"length\" and
	.message.content == [{type: \"text\", text: \"Once upon a\",
	textSignature: \"msg_I1\"}]"'
check 'with its usage' 'tail -n 1 out | jq -e ".usage == {inputTokens: 12,
	outputTokens: 16, totalTokens: 28}"'
sed 's/"reason":"max_output_tokens"/"reason":"content_filter"/' \
	"$FIX/incomplete.sse" >filter.sse
serve "$TMP/filter.sse"
check_exit 'response.incomplete, content_filter' 5 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is error content_filter after message_end (error)' \
	'grep -q content_filter filter.sse &&
	failed_after_output out content_filter &&
	tail -n 1 out | jq -e ".recoverable == false"'
check 'and one request' 'test "$(fake_requests)" -eq 1'

# After the terminal event nothing counts, not even a stray error.
{ cat "$FIX/text.sse"; sed -n '/^event: error/,$p' "$FIX/error-failed.sse"
} >after.sse
serve "$TMP/after.sse"
check_exit 'an error event after response.completed' 0 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is ignored' 'tail -n 1 out | jq -e ".type == \"message_end\" and
	.stopReason == \"end_turn\"" && ! grep -q "\"type\":\"error\"" out'

# A body that is not an event stream at all.
printf 'event: response.created\ndata: {not json\n\n' >bad.sse
serve "$TMP/bad.sse"
check_exit 'an event that is not JSON' 75 'llm --max-retries 0 hi \
	</dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is error bad_response' 'test "$(types out)" = "error " &&
	jq -e ".code == \"bad_response\"" out'
check 'stderr says so' 'grep -q "not JSON" err'

done_testing
