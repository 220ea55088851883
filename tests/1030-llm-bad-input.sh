#!/bin/sh
# Bad input on stdin stops pi-llm before it sends anything: exit 3, the
# line named as stdin:LINE: on stderr, and a bad_input error event.  Bad
# flags exit 2 with the usage message, the man page's SYNOPSIS.
. "$(dirname "$0")/lib.sh"
plan 27
unset PI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse

# llm NAME ARGS... <INPUT: one call to the fake; NAME.out, NAME.err
# (also printed, for check to show if it fails).
llm() {
	n=$1
	shift
	OPENAI_API_KEY=sk-test pi-llm --base-url "$FAKE_URL/v1" \
		-m openai/gpt-x "$@" >"$n.out" 2>"$n.err"
	set -- $? && cat "$n.err" && return "$1"
}
# refused NAME LINE [CODE]: stdin:LINE: on stderr and in the one error
# event, and still no request.
refused() {
	cat "$1.err"
	grep -q "^pi-llm: stdin:$2: " "$1.err" && jqs "$1.out" "length == 1
		and (.[0] | .type == \"error\" and .code == \"${3:-bad_input}\"
		and .recoverable == false and
		(.message | startswith(\"stdin:$2: \")))" &&
	is "$(fake_requests)" 0
}

echo "[{\"file\": \"$text\"}]" >plan.json
fake_start plan.json
u='{"role":"user","content":"hi"}'

printf '%s\n{"role":"user","content":\n%s\n' "$u" "$u" >json.in
check_exit 'invalid JSON on line 2: exit 3' 3 'llm json <json.in'
check 'names stdin:2:' refused json 2

printf '%s\n\n[%s]\n' "$u" "$u" >array.in
check_exit 'an array on line 3, after a blank line: exit 3' 3 \
	'llm array <array.in'
check 'names stdin:3:' refused array 3

printf '{"type":"system","text":"be brief"}\n{"content":"hi"}\n' >norole.in
check_exit 'a line with neither type nor role: exit 3' 3 \
	'llm norole <norole.in'
check 'names stdin:2:' refused norole 2

printf '%s\n%s\n{"role":"wizard","content":"x"}\n' "$u" "$u" >role.in
check_exit 'an unknown role: exit 3' 3 'llm role <role.in'
check 'names stdin:3: and the role' 'refused role 3 &&
	grep -q wizard role.err'

printf '{"role":"user"}\n' >nocontent.in
check_exit 'a user message without content: exit 3' 3 \
	'llm nocontent <nocontent.in'
check 'names stdin:1:' refused nocontent 1

printf '%s\n%s' "$u" "$u" >trunc.in
check_exit 'a last line without a newline: exit 3' 3 'llm trunc <trunc.in'
check 'names stdin:2: as truncated' 'refused trunc 2 truncated_input &&
	grep -q truncated trunc.err'

printf '\n%s\n \t\n\n' "$u" >blank.in
check_exit 'blank lines are skipped' 0 'llm blank <blank.in'
check 'and the one message sent' 'is "$(fake_requests)" 1 &&
	jqs blank.out ".[-1].stopReason == \"end_turn\"" &&
	jq -e ".body.messages == [{role: \"user\", content: \"hi\"}]" \
	"$(fake_req 1)"'

check_exit 'no prompt and empty stdin: exit 3' 3 'llm empty </dev/null'
check 'nothing to send, nothing sent' 'is "$(fake_requests)" 1 &&
	jqs empty.out "length == 1 and .[0].code == \"bad_input\"" &&
	grep -q "^pi-llm: " empty.err'

# The usage message is the SYNOPSIS, modulo line breaks.
norm() { tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//'; echo; }
man=$ROOT/man/pi-llm.1
have_man=
if [ -f "$man" ] && command -v mandoc >/dev/null; then
	{ printf 'usage: '; mandoc -T ascii -O width=1000 "$man" | col -bx |
		awk '/^SYNOPSIS/ { f = 1; next } /^[A-Z]/ { f = 0 } f'; } |
		norm >synopsis
	have_man=1
fi
usage_is_synopsis() {
	if [ -z "$have_man" ]; then
		skip "$1" 'no man/pi-llm.1 or no mandoc'
		return
	fi
	sed -n '/^usage: /,$p' "$2" | norm >"$2.usage"
	check_same "$1" synopsis "$2.usage"
}

for a in '-t bogus' '--max-retries x' '--max-retries 101' \
	'--idle-timeout 0' '--no-such-flag'; do
	n=$(echo "$a" | tr -c 'a-z0-9\n' _)
	# shellcheck disable=SC2086
	check_exit "$a: exit 2" 2 "llm $n $a hi </dev/null"
	usage_is_synopsis "$a: the usage message is the SYNOPSIS" "$n.err"
done
check 'and no output or request from any of them' 'is "$(fake_requests)" 1 &&
	is "$(cat ./*_.out ./*_bogus.out ./*_x.out ./*_0.out ./*_101.out)" ""'

done_testing
