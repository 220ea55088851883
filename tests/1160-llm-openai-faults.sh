#!/bin/sh
# Faults of an OpenAI stream: EOF before [DONE], an error after HTTP 200,
# the content filter and a context overflow each end the call truthfully.
. "$(dirname "$0")/lib.sh"
plan 42

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
llm() { pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x "$@"; }
# serve FILE [EXTRA]: one plan entry for FILE; retries, if any, are quick.
serve() { printf '[{"file": "%s", "headers": {"retry-after-ms": "1"}%s}]\n' \
	"$1" "${2:+, $2}" >plan.json && fake_start plan.json; }
types() { jq -r .type "$1" | tr '\n' ' '; }
# failed_after_output FILE CODE: message_end (error) then the error line,
# both about the same message.
failed_after_output() {
	jq -s -e --arg code "$2" '(map(.type) | .[0] == "message_start" and
	.[-2:] == ["message_end", "error"]) and
	.[-2].stopReason == "error" and .[-2].message.stopReason == "error" and
	(.[-2].errorMessage | type == "string" and length > 0) and
	.[-1].code == $code and .[-1].messageId == .[0].messageId' "$1"
}

sed '/\[DONE\]/,$d' "$FIX/text.sse" >nodone.sse
check 'the fixture has no [DONE]' '! grep -q DONE nodone.sse &&
	grep -q finish_reason nodone.sse'
serve "$TMP/nodone.sse"
check_exit 'a stream that ends without [DONE]' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'ends with message_end (error), then error truncated_stream' \
	'failed_after_output out truncated_stream'
check 'keeps the text it got in the message' 'jq -s -e "
	map(select(.type == \"message_end\"))[0].message.content ==
	[{type: \"text\", text: \"Hello, wörld 😀!\"}]" out'
check 'and is not retried once text is out' 'test "$(fake_requests)" -eq 1'

# Cut inside the third event, after "Hello" went out.
n=$(sed -n 1,4p "$FIX/text.sse" | wc -c)
serve "$FIX/text.sse" "\"close_after\": $((n + 30))"
check_exit 'a connection closed mid-stream' 75 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'gives the text that came' 'jq -s -e "map(select(.type == \"text_delta\")
	.delta) == [\"Hello\"]" out'
check 'then message_end (error) and error, after one request' \
	'test "$(fake_requests)" -eq 1 && jq -s -e "map(.type) | .[-2:] ==
	[\"message_end\", \"error\"]" out && tail -n 2 out | head -n 1 |
	jq -e ".stopReason == \"error\""'
check 'with code truncated_stream' 'tail -n 1 out | jq -e "
	.code == \"truncated_stream\" and .recoverable == true" ||
	{ tail -n 1 out; false; }'

# Before any output, a truncated stream is worth another try.
printf 'data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":' >half.sse
serve "$TMP/half.sse"
check_exit 'EOF inside the first event' 75 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is tried four times with --max-retries 3' \
	'test "$(fake_requests)" -eq 4'
check 'announcing three retries, then error truncated_stream' \
	'test "$(types out)" = "retry retry retry error " && jq -s -e "
	map(select(.type == \"retry\") | [.attempt, .maxRetries]) ==
	[[1, 3], [2, 3], [3, 3]] and (.[-1] | .code == \"truncated_stream\" and
	.recoverable == true and (has(\"messageId\") | not))" out'
serve "$FIX/text.sse" '"close_after": 20'
check_exit 'a connection closed inside the first event' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is tried four times, with no message' 'test "$(fake_requests)" -eq 4 &&
	test "$(types out)" = "retry retry retry error "'
check 'and ends with code truncated_stream' \
	'tail -n 1 out | jq -e ".code == \"truncated_stream\"" ||
	{ tail -n 1 out; false; }'

# An error object in the stream after HTTP 200 and some text.
serve "$FIX/stream-error.sse"
check_exit 'an error in the stream after text' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'ends with message_end (error), then the error line' 'jq -s -e "
	map(.type) == [\"message_start\", \"text_delta\", \"message_end\",
	\"error\"]" out && failed_after_output out "$(tail -n 1 out |
	jq -r .code)"'
check 'which pass on the server'"'"'s words' 'jq -s -e "
	(.[-2].errorMessage | contains(\"The server had an error\")) and
	(.[-1].message | contains(\"The server had an error\")) and
	.[-1].recoverable == true" out'
check 'the message keeps the partial text' 'jq -s -e ".[-2].message.content ==
	[{type: \"text\", text: \"Partial\"}]" out'
check 'and there is one request' 'test "$(fake_requests)" -eq 1'
check 'stderr says why' 'grep -q "The server had an error" err'

printf 'data: {"error":{"message":"Overloaded","type":"server_error"}}\n\n' \
	>early-error.sse
serve "$TMP/early-error.sse"
check_exit 'an error in the stream before any text' 75 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is retried, then reported' 'test "$(fake_requests)" -eq 4 &&
	test "$(types out)" = "retry retry retry error " &&
	tail -n 1 out | jq -e ".message | contains(\"Overloaded\")"'

serve "$FIX/content-filter.sse"
check_exit 'finish_reason content_filter is a refusal' 5 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'with code content_filter, not recoverable' 'tail -n 1 out | jq -e "
	.type == \"error\" and .code == \"content_filter\" and
	.recoverable == false"'
check 'after message_end (error)' 'failed_after_output out content_filter'
check 'and one request' 'test "$(fake_requests)" -eq 1'

cat >plan.json <<'PLAN'
[{"status": 400, "body": "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}"}]
PLAN
fake_start plan.json
check_exit 'a 400 about the context length' 5 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'is one error line, code context_overflow' \
	'test "$(types out)" = "error " &&
	jq -e ".code == \"context_overflow\" and .recoverable == false and
	(.message | contains(\"maximum context length is 8192 tokens\"))" out'
check 'and is not retried' 'test "$(fake_requests)" -eq 1'
check 'stderr says why' 'grep -q "maximum context length" err'

cat >plan.json <<'PLAN'
[{"status": 400, "body": "{\"error\":{\"message\":\"Invalid value for 'temperature'.\",\"type\":\"invalid_request_error\"}}"}]
PLAN
fake_start plan.json
check_exit 'another 400 is a refusal too' 5 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'but not an overflow, and not retried' 'tail -n 1 out | jq -e "
	.code != \"context_overflow\" and .recoverable == false" &&
	test "$(fake_requests)" -eq 1'

done_testing
