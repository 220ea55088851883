#!/bin/sh
# Failures that are not retried: a permanent one, one the server says
# not to retry, one after output has started, and one whose retry-after
# is longer than pi-llm waits are each reported after one request.
. "$(dirname "$0")/lib.sh"
plan 18
unset PI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse
common=$ROOT/tests/fixtures/common
# The stream up to the end of its "Hello" event: output has started.
hello=$(head -n 4 "$text" | wc -c)

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
# then_ok ENTRY...: a plan of those entries, then a good stream, so
# that a retry shows as a success.  Error answers hint at a short wait,
# so that such a retry costs no time.
then_ok() {
	{ printf '['; printf '%s, ' "$@"; printf '{"file": "%s"}]\n' "$text"
	} >plan.json && fake_start plan.json
}
for sx in 400:5:invalid_request 401:4:auth 403:4:auth 404:4:not_found; do
	s=${sx%%:*} x=${sx#*:} x=${x%:*} code=${sx##*:}
	then_ok "$(answer "$s" '{"retry-after-ms": "1"}')"
	check_exit "HTTP $s is not retried: exit $x" "$x" llm "n$s" hi
	check "one request, one error line, code $code" \
		'is "$(fake_requests)" 1 && jqs "n$s.out" "length == 1 and
		(.[0] | .type == \"error\" and .code == \"$code\" and
		.recoverable == false and (.message | contains(\"$s\")))"'
done

then_ok "$(answer 503 '{"retry-after-ms": "1", "x-should-retry": "false"}')"
check_exit 'x-should-retry: false on a 503' 75 llm e hi
check 'is not retried' 'is "$(fake_requests)" 1 &&
	jqs e.out "map(.type) == [\"error\"]"'

then_ok "{\"status\": 429, \"headers\": {\"retry-after-ms\": \"1\"},
	\"file\": \"$common/quota.json\"}"
check_exit 'a 429 for an exhausted quota: exit 5' 5 llm f hi
check 'is not retried' 'is "$(fake_requests)" 1 && jqs f.out "length == 1
	and .[0].code == \"quota_exceeded\" and .[0].recoverable == false"'

then_ok "{\"file\": \"$text\", \"reset_after\": $hello}"
check_exit 'a reset after text was written: exit 75' 75 llm g hi
check 'is not retried' is "$(fake_requests)" 1
check 'the message ends in error with its text, then the error line' \
	jqs g.out '
	map(.type) == ["message_start", "text_delta", "message_end", "error"]
	and (.[2] | .stopReason == "error" and (.errorMessage | length > 0)
	and .message.stopReason == "error"
	and .message.content == [{"type": "text", "text": "Hello"}])
	and (.[3] | .code == "network" and .recoverable == true)
	and .[3].messageId == .[0].messageId'

then_ok "$(answer 503 '{"retry-after": "120"}')"
check_exit 'a retry-after of 120 s is over the cap: exit 75' 75 llm h hi
check 'at once, with no retry' 'is "$(fake_requests)" 1 &&
	jqs h.out "map(.type) == [\"error\"] and .[0].recoverable == true"'
check 'the message says how long the server asked to wait' \
	'jqs h.out ".[0].message | contains(\"120 s\")" &&
	grep -q "120 s" h.err'

done_testing
