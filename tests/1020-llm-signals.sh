#!/bin/sh
# SIGINT and SIGTERM stop the call, not fail it: the partial message ends
# with stopReason aborted, no error line follows, and the exit status
# names the signal.  A retry wait is cut short too.
. "$(dirname "$0")/lib.sh"
plan 14
unset PI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse
hello=$(head -n 4 "$text" | wc -c)

# start NAME: pi-llm in the background (itself, not a subshell, so that
# the signal reaches it), output in NAME.out and NAME.err.
start() {
	OPENAI_API_KEY=sk-test pi-llm --base-url "$FAKE_URL/v1" \
		-m openai/gpt-x hi </dev/null >"$1.out" 2>"$1.err" &
	pid=$!
}
# stop SIG: send it and wait; rc is the status, ms the time it took.
stop() {
	t0=$(date +%s%N)
	kill -"$1" "$pid"
	wait "$pid"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}
aborted='map(.type) == ["message_start", "text_delta", "message_end"] and
	(.[-1] | .stopReason == "aborted" and .message.stopReason == "aborted"
	and .message.content == [{"type": "text", "text": "Hello"}])'

echo "[{\"file\": \"$text\", \"stall_after\": $hello}]" >plan.json
fake_start plan.json

start int
check 'the text before the stall is out' \
	wait_until 'grep -q "\"type\":\"text_delta\"" int.out'
stop INT
check 'SIGINT exits 130' is "$rc" 130
check 'the last line is message_end, aborted, with the partial text' \
	jqs int.out "$aborted"
check 'saying which signal' \
	jqs int.out '.[-1].errorMessage | test("SIGINT")'

start term
check 'the text before the stall is out' \
	wait_until 'grep -q "\"type\":\"text_delta\"" term.out'
stop TERM
check 'SIGTERM exits 143' is "$rc" 143
check 'the last line is message_end, aborted, with the partial text' \
	jqs term.out "$aborted"
check 'saying which signal' \
	jqs term.out '.[-1].errorMessage | test("SIGTERM")'
check 'neither is retried' is "$(fake_requests)" 2

cat >plan.json <<EOF
[{"status": 503, "headers": {"retry-after-ms": "5000"},
  "body": "{\"error\":{\"message\":\"busy\"}}"},
 {"file": "$text"}]
EOF
fake_start plan.json
start wait
check 'a 503 with retry-after-ms 5000 starts a wait' \
	wait_until 'grep -q "\"type\":\"retry\"" wait.out'
stop TERM
check 'SIGTERM during the wait exits 143' is "$rc" 143
check 'at once' eval 'echo "took $ms ms"; test "$ms" -lt 2000'
check 'with an empty aborted message and no error line' jqs wait.out '
	map(.type) == ["retry", "message_start", "message_end"] and
	.[0].delayMs == 5000 and .[-1].stopReason == "aborted" and
	.[-1].message.content == []'
check 'and no second request' is "$(fake_requests)" 1

done_testing
