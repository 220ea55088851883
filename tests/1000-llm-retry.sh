#!/bin/sh
# Retries: a temporary failure before any output is tried again, each
# attempt announced by a retry event and timed by the server's hint or
# an exponential backoff.  (1005 has the failures that are not retried.)
. "$(dirname "$0")/lib.sh"
plan 31
unset PI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse

# llm NAME ARGS...: one call to the fake; NAME.out, NAME.err (also
# printed, for check to show if it fails).
llm() {
	n=$1
	shift
	OPENAI_API_KEY=sk-test pi-llm --base-url "$FAKE_URL/v1" \
		-m openai/gpt-x "$@" </dev/null >"$n.out" 2>"$n.err"
	set -- $? && cat "$n.err" && return "$1"
}
# answer STATUS HEADERS: a plan entry for an error status, JSON body.
answer() {
	printf '{"status": %s, "headers": %s, "body": %s}' "$1" "$2" \
		'"{\"error\":{\"message\":\"try again\",\"type\":\"server\"}}"'
}
# then_ok ENTRY...: a plan of those entries, then a good stream.
then_ok() {
	{ printf '['; printf '%s, ' "$@"; printf '{"file": "%s"}]\n' "$text"
	} >plan.json && fake_start plan.json
}
ok_stream='["retry","message_start","text_delta","text_delta","text_delta",
	"message_end"]'

then_ok "$(answer 429 '{"retry-after-ms": "5"}')"
check_exit '429 with retry-after-ms is retried' 0 llm a hi
check 'once, announced before message_start' jqs a.out "
	map(.type) == $ok_stream and .[-1].stopReason == \"end_turn\""
check 'the retry event says why and how long' jqs a.out '.[0] |
	.attempt == 1 and .maxRetries == 3 and .delayMs == 5 and
	.code == "rate_limited" and .status == 429 and (.reason | length > 0)'
check 'two requests, the same both times' 'is "$(fake_requests)" 2 &&
	jq -S .body "$(fake_req 1)" >b1 && jq -S .body "$(fake_req 2)" >b2 &&
	cmp b1 b2'

then_ok "$(answer 429 '{"retry-after": "1"}')"
check_exit 'retry-after in seconds' 0 llm b hi
check 'is waited for in ms' jqs b.out '.[0].delayMs == 1000'

then_ok "$(answer 503 '{"retry-after": "30", "retry-after-ms": "7"}')"
check_exit 'retry-after-ms and retry-after' 0 llm b2 hi
check 'retry-after-ms wins' jqs b2.out '.[0].delayMs == 7'

then_ok "$(answer 503 '{"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}')"
check_exit 'retry-after as a past HTTP date' 0 llm b3 hi
check 'means no wait' jqs b3.out '.[0].delayMs == 0'

for sc in 500:server_error 502:server_error 503:overloaded \
	408:server_error 409:server_error 529:overloaded; do
	s=${sc%:*} code=${sc#*:}
	then_ok "$(answer "$s" '{"retry-after-ms": "1"}')"
	check_exit "HTTP $s is retried" 0 llm "r$s" hi
	check "as $code, with two requests" 'is "$(fake_requests)" 2 &&
		jqs "r$s.out" "map(.type) == $ok_stream and
		.[0].status == $s and .[0].code == \"$code\""'
done

# Without a hint, 0.5 s then 1 s, each times a jitter in [0.75, 1].
then_ok "{\"file\": \"$text\", \"reset_after\": 0}" \
	"{\"file\": \"$text\", \"close_after\": 0}"
check_exit 'a reset, then a body cut before any byte, are retried' 0 \
	llm c hi
check 'as network, then truncated_stream, with three requests' \
	'is "$(fake_requests)" 3 && jqs c.out "map(.type) ==
	[\"retry\"] + $ok_stream and map(.code)[:2] ==
	[\"network\", \"truncated_stream\"] and (.[0] | has(\"status\") | not)"'
check 'after an exponential backoff with jitter' jqs c.out '
	(.[0].delayMs | . >= 375 and . <= 500) and
	(.[1].delayMs | . >= 750 and . <= 1000) and map(.attempt)[:2] == [1, 2]'

s503=$(answer 503 '{"retry-after-ms": "1"}')
then_ok "$s503" "$s503" "$s503" "$s503"
check_exit '--max-retries 2 against four 503s: exit 75' 75 \
	llm d --max-retries 2 hi
check 'after three requests' is "$(fake_requests)" 3
check 'two retry events, then the error' jqs d.out '
	map(.type) == ["retry", "retry", "error"] and
	map(.attempt) == [1, 2, null] and .[0].maxRetries == 2 and
	(.[-1] | .code == "overloaded" and .recoverable == true and
	(has("messageId") | not))'
check 'and the error on stderr' grep -q '^pi-llm: .*503' d.err

then_ok "$(answer 400 '{"retry-after-ms": "1", "x-should-retry": "true"}')"
check_exit 'x-should-retry: true on a 400 is retried' 0 llm e2 hi
check 'with two requests' 'is "$(fake_requests)" 2 &&
	jqs e2.out ".[0].type == \"retry\" and .[0].status == 400"'

done_testing
