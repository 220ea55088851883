#!/bin/sh
# A call of pi-llm --serve that fails is reported as a one-shot run
# reports it, and the process goes on to the next call: a stream that
# breaks mid-way, an HTTP error, a malformed context line, a bad call
# line, an unknown provider.  What ends the process: the end of input
# (exit 0, or 3 if a call's context is left without its call line).
. "$(dirname "$0")/lib.sh"
plan 17

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
text=$FIX/text.sse
# The stream up to the end of its "Hello" event: output has started.
hello=$(head -n 4 "$text" | wc -c)
broken="{\"file\": \"$text\", \"reset_after\": $hello}"
refused='{"status": 401, "body": "{\"error\":{\"message\":\"bad key\"}}"}'
printf '[%s, %s, {"file": "%s"}]\n' "$broken" "$refused" "$text" >plan.json
u='{"role":"user","content":"hi"}'

fake_start --keep-alive plan.json || exit 1
cat >in <<EOF
$u
{"type":"call","id":"broken"}
$u
{"type":"call","id":"refused"}
$u
{"type":"call","id":"fine"}
$u
{nope
$u
{"type":"call","id":"badline"}
{"type":"call","id":"badfield","maxTokens":"many"}
$u
{"type":"call","id":"noprovider","provider":"nope"}
$u
{"type":"call","id":"last"}
EOF
check_exit 'failing calls do not end the process: exit 0' 0 \
	'pi-llm --serve --base-url "$FAKE_URL/v1" -m openai/gpt-x --max-retries 2 \
	<in >out 2>err'
printf '%s\n' '["broken",75]' '["refused",4]' '["fine",0]' '["badline",3]' \
	'["badfield",2]' '["noprovider",4]' '["last",0]' >ends.want
check 'every call has its call_end and its status' 'jq -c \
	"select(.type == \"call_end\") | [.id, .exitCode]" out >ends &&
	diff -u ends.want ends'
check 'a failed call_end says why' 'jq -se "[.[] |
	select(.type == \"call_end\" and .exitCode != 0) |
	.error | type == \"string\" and length > 0] | length == 5 and all" out'
check 'the broken stream was not retried (output had started)' \
	'is "$(fake_requests)" 4'
awk 'NR > 1 && /"type":"call_end"/ { exit } NR > 1' out >broken.serve
check 'the broken call ends message_end (error), then error' \
	'jqs broken.serve "(.[-2] | .type == \"message_end\" and
	.stopReason == \"error\") and (.[-1] | .type == \"error\" and
	.exitCode == 75)"'
check 'the call after it answered in full' 'jq -se "[.[] |
	select(.type == \"message_end\" and .stopReason == \"end_turn\")] |
	length == 2" out'
check 'the malformed line fails its own call, naming its line' \
	'grep -q "^pi-llm: stdin:8: " err && jq -se "[.[] |
	select(.type == \"error\" and .code == \"bad_input\")] | length == 1" out'
check 'a bad call line is a usage error: no error event, a message' \
	'grep -q "maxTokens" err && jq -se "[.[] | select(.type == \"error\" and
	(.message | test(\"maxTokens\")))] | length == 0" out'
check 'an unknown provider is an error event, exit 4' 'jq -se "[.[] |
	select(.type == \"error\" and .code == \"unknown_provider\")] |
	length == 1" out'
fake_stop

# The same failures one-shot: the same events.
fake_start plan.json || exit 1
llm() { printf '%s\n' "$u" | pi-llm --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x --max-retries 2; }
# The two servers' ports aside.
unport() { sed 's/127\.0\.0\.1:[0-9]*/HOST/g' "$1"; }
check_exit 'the broken stream one-shot: exit 75' 75 'llm >broken.one 2>/dev/null'
check 'with the events of the serving call' \
	'unport broken.one | jq -c "del(.messageId)" >a &&
	unport broken.serve | jq -c "del(.messageId)" >b && diff -u a b'
check_exit 'the refused call one-shot: exit 4' 4 'llm >refused.one 2>/dev/null'
check 'with the events of the serving call' \
	'awk "/\"type\":\"call_end\"/ { n++; next } n == 1" out >refused.serve &&
	diff -u refused.one refused.serve'
fake_stop

check_exit 'context lines and no call line at the end: exit 3' 3 \
	'printf "%s\n" "$u" | pi-llm --serve -m faux/x >tail.out 2>tail.err'
check 'said on stderr, after the serve line alone' \
	'grep -q "no call line" tail.err && test "$(wc -l <tail.out)" -eq 1'
check_exit 'no input at all: the serve line, exit 0' 0 \
	'pi-llm --serve -m openai/x </dev/null >empty.out &&
	jqs empty.out "length == 1 and .[0].type == \"serve\""'
check_exit 'prompt words with --serve: exit 2' 2 \
	'pi-llm --serve -m openai/x hi </dev/null'
done_testing
