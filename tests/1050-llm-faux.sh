#!/bin/sh
# The faux provider answers from a script, one line per call, through the
# same event path as a real one, so pipelines can be tested offline.
. "$(dirname "$0")/lib.sh"
plan 30
unset PI_API_KEY PI_FAUX_SCRIPT

# faux NAME SCRIPT ARGS... <INPUT: NAME.out, NAME.err (also printed, for
# check to show if it fails).
faux() {
	n=$1 s=$2
	shift 2
	pi-llm -m faux/x --faux-script "$s" "$@" >"$n.out" 2>"$n.err"
	set -- $? && cat "$n.err" && return "$1"
}
# The text of the stored message, and of the deltas.
text_of='.[-1].message.content | map(.text) | join("")'
deltas='map(select(.type == "text_delta").delta)'

cat >two.faux <<'EOF'
{"content":[{"type":"text","text":"first reply"}]}

"second reply"
EOF
u1='{"role":"user","content":"one"}'
u2='{"role":"user","content":"two"}'

echo "$u1" >ctx1
check_exit 'a context with no assistant message' 0 'faux a two.faux <ctx1'
check 'gets line 1' jqs a.out "
	.[0].type == \"message_start\" and .[0].provider == \"faux\" and
	.[0].model == \"x\" and ($text_of) == \"first reply\" and
	($deltas | join(\"\")) == \"first reply\" and
	.[-1].stopReason == \"end_turn\""
{ cat ctx1 a.out; echo "$u2"; } >ctx2
check_exit 'its output and a user line piped back in' 0 'faux b two.faux <ctx2'
check 'get line 2 (blank lines do not count), a bare string as text' \
	jqs b.out "($text_of) == \"second reply\" and
	.[-1].message.content[0].type == \"text\""
printf '%s\n' "$u1" \
	'{"role":"assistant","content":[{"type":"text","text":"hm"}]}' \
	"$u2" >ctx3
check_exit 'so does a context holding one bare assistant message' 0 \
	'faux c two.faux <ctx3'
check 'line 2' jqs c.out "($text_of) == \"second reply\""

check_exit 'a tool call in the script' 0 \
	'faux d "$ROOT/tests/fixtures/common/tool-call.faux" hi </dev/null'
check 'streams toolcall_start, deltas and toolcall_end' jqs d.out '
	map(.type) - ["text_delta", "toolcall_delta"] == ["message_start",
	"toolcall_start", "toolcall_end", "message_end"] and
	(map(select(.type == "toolcall_delta")) | length > 1) and
	(map(select(.type == "toolcall_start"))[0] | .toolCallId == "call_1"
	and .toolName == "read" and .contentIndex == 1)'
check 'whose deltas add up to the input' jqs d.out '
	(map(select(.type == "toolcall_delta").delta) | join("") | fromjson)
	as $args | map(select(.type == "toolcall_end"))[0] |
	.toolCallId == "call_1" and .input == {"path": "README",
	"lines": [1, 20]} and .input == $args and
	(has("invalidArguments") | not)'
check 'and it ends in tool_use, the call stored' jqs d.out '.[-1] |
	.stopReason == "tool_use" and .message.stopReason == "toolUse" and
	.message.content[1] == {"type": "toolCall", "id": "call_1",
	"name": "read", "arguments": {"path": "README", "lines": [1, 20]}}'

printf '%s\n' '{"content":"h\u00e9llo w\u00f6rld","chunkSize":3}' \
	'{"content":"a\ud83d\ude00bcd\u00e9","chunkSize":2}' >chunk.faux
check_exit 'chunkSize' 0 'faux e chunk.faux hi </dev/null'
check 'splits text into deltas of that many code points' jqs e.out "
	$deltas == [\"hél\", \"lo \", \"wör\", \"ld\"] and
	map(select(.type == \"text_delta\").index) == [0, 3, 6, 9]"
printf '%s\n' "$u1" '{"role":"assistant","content":"x"}' "$u2" >ctx4
check_exit 'chunkSize with an astral character' 0 'faux f chunk.faux <ctx4'
check 'counts it as one code point' jqs f.out "
	$deltas == [\"a😀\", \"bc\", \"dé\"] and
	map(select(.type == \"text_delta\").index) == [0, 2, 4]"

printf '%s%s\n' '{"content":"one two three",' \
	'"error":{"type":"overloaded_error","message":"x","after":2}}' >err.faux
check_exit 'a scripted overloaded_error after 2 chunks: exit 75' 75 \
	'faux g err.faux hi </dev/null'
check 'two deltas, message_end in error, then the error line' jqs g.out '
	map(.type) == ["message_start", "text_delta", "text_delta",
	"message_end", "error"] and
	(.[3] | .stopReason == "error" and (.errorMessage | contains("x")) and
	.message.content == [{"type": "text", "text": "one two "}]) and
	(.[4] | .code == "overloaded" and .recoverable == true) and
	.[4].messageId == .[0].messageId'

echo '{"error":{"status":401,"message":"bad key"}}' >auth.faux
check_exit 'a scripted HTTP 401: exit 4' 4 'faux h auth.faux hi </dev/null'
check 'only an auth error line, no message_start' jqs h.out '
	length == 1 and .[0].type == "error" and .[0].code == "auth" and
	(.[0].message | contains("bad key"))'

{ cat ctx2 b.out; echo '{"role":"user","content":"three"}'; } >ctx5
check_exit 'a script with no line for the call: exit 4' 4 \
	'faux i two.faux <ctx5'
check 'says how many replies it has' 'cat i.err &&
	grep -q "has 2 replies" i.err &&
	jqs i.out "length == 1 and .[0].code == \"faux_script\" and
	(.[0].message | contains(\"has 2 replies\"))"'

check_exit 'PI_FAUX_SCRIPT instead of the flag' 0 \
	'PI_FAUX_SCRIPT=two.faux pi-llm -m faux/x <ctx1 >j.out 2>j.err'
check 'answers the same' jqs j.out "($text_of) == \"first reply\""
check_exit '--provider faux' 0 \
	'pi-llm --provider faux --faux-script two.faux <ctx1 >k.out 2>k.err'
check 'answers the same' jqs k.out "($text_of) == \"first reply\""

check_exit 'no script at all: exit 4' 4 'pi-llm -m faux/x hi </dev/null \
	>l.out 2>l.err'
check 'code faux_script' 'grep -q "^pi-llm: " l.err &&
	jqs l.out "length == 1 and .[0].code == \"faux_script\""'
check_exit 'a script that does not exist: exit 4' 4 \
	'faux m nosuch.faux hi </dev/null'
check 'code faux_script' jqs m.out 'length == 1 and
	.[0].code == "faux_script"'
echo '{"content":' >bad.faux
check_exit 'a script line that is not JSON: exit 4' 4 \
	'faux n bad.faux hi </dev/null'
check 'code faux_script' jqs n.out 'length == 1 and
	.[0].code == "faux_script"'

done_testing
