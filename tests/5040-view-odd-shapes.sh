#!/bin/sh
# pi-view takes any JSON: every field it reads, in every event and
# message it knows, given every other type of value or left out, must
# render or be reported, never crash (a content of true aborted it in a
# json-c assertion), and an exit status read from the stream must not
# wrap (exitCode 256 made pi-view exit 0).
. "$(dirname "$0")/lib.sh"
plan 14

# One well-formed line per shape pi-view reads, with every field it
# reads: the events of pi-llm, pi-tool and pi-loop, messages, session
# file entries.
cat >shapes.ndjson <<'EOF'
{"role":"user","content":"hi"}
{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"eA==","mimeType":"image/png"}]}
{"role":"custom","content":"c"}
{"role":"system","content":"s"}
{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"t\nu"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls\nx"}}],"errorMessage":"e"}
{"role":"assistant","content":"plain"}
{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"isError":true}
{"role":"bashExecution","command":"ls","output":"x\ny","exitCode":1,"cancelled":false}
{"type":"agent_start","sessionId":"s","model":"m","tools":["a","b"]}
{"type":"turn_start","turnIndex":0,"messages":1}
{"type":"message_start","messageId":"m","role":"assistant"}
{"type":"text_delta","messageId":"m","delta":"hi","index":2}
{"type":"thinking_delta","messageId":"m","delta":"t"}
{"type":"toolcall_start","toolCallId":"c","toolName":"read"}
{"type":"toolcall_delta","toolCallId":"c","delta":"{"}
{"type":"toolcall_end","toolCallId":"c","toolName":"read","input":{"file_path":"a","pattern":"p"}}
{"type":"message_end","role":"assistant","stopReason":"error","errorMessage":"boom","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"totalTokens":0,"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cost":{"total":0.5}}}}
{"type":"message_end","stopReason":"aborted","message":{"role":"user","content":"u"}}
{"type":"tool_execution_start","toolCallId":"c","toolName":"grep","input":{"pattern":"p","path":"."}}
{"type":"tool_execution_update","toolCallId":"c","toolName":"grep","updateType":"stdout","content":"line\npart"}
{"type":"tool_execution_update","toolCallId":"c","updateType":"progress","content":"50%"}
{"type":"tool_execution_end","toolCallId":"c","toolName":"grep","success":false,"output":"o","durationMs":5,"exitCode":2,"error":{"code":"exit_status","message":"m"}}
{"type":"retry","attempt":1,"delayMs":10,"reason":"r"}
{"type":"compaction_start","reason":"r","tokensBefore":5}
{"type":"compaction_end","summary":"s","firstKeptEntryId":"e","error":"x"}
{"type":"error","code":"auth","message":"m","exitCode":4,"recoverable":true}
{"type":"agent_end","sessionId":"s","totalTurns":1,"totalTokens":2,"durationMs":3,"terminationReason":"error","cost":0.1,"exitCode":5,"error":{"message":"m"},"ts":7}
{"type":"session","id":"i","cwd":"/"}
{"type":"context","sessionId":"s","messages":3}
{"type":"system","text":"t"}
{"type":"response","command":"c","success":false,"error":"e"}
{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"x"}}
{"type":"model_change","id":"c","parentId":"a","provider":"p","modelId":"m"}
{"type":"thinking_level_change","thinkingLevel":"high"}
{"type":"compaction","summary":"s","firstKeptEntryId":"e"}
{"type":"branch_summary","summary":"s\nt"}
{"type":"session_info","name":"n"}
{"type":"label","label":"l","targetId":"t"}
{"type":"custom","customType":"pi.system"}
{"type":"custom_message","content":"c"}
EOF
# Each line again with each of its values, at any depth, replaced by
# each of these, and with each of its keys left out.
cat >odd.json <<'EOF'
[true, false, 0, -1, 1.5, 1e300, -1e300, 9223372036854775807,
 -9223372036854775808, 18446744073709551615, "", "a\u0000b",
 "\u001b]52;c;eA==\u0007\r\n", [], [1, "a", null, true, {}, [[]]], {},
 {"type": "text", "text": 5}, {"a": {"b": []}}, null]
EOF
jq -c --slurpfile odd odd.json '. as $t | $t,
	([paths] | .[] as $p | ($odd[0][] as $v | $t | setpath($p; $v)),
	    ($t | delpaths([$p])))' shapes.ndjson >variants.ndjson
check 'thousands of variants' "[ \$(wc -l <variants.ndjson) -gt 3000 ]"

# survived RC ERR: not killed by SIGILL to SIGSEGV (132 to 139; 130 is
# an aborted stream's status), nothing said by a sanitizer or an
# assertion.
survived() {
	[ "$1" -lt 132 ] || [ "$1" -gt 139 ] ||
		{ echo "exit $1"; tail -5 "$2"; return 1; }
	! grep -E 'Sanitizer|runtime error|Assertion|json_object' "$2"
}
# view FILE ARG...: pi-view ARG... FILE survived.
view() {
	v_f=$1
	shift
	pi-view "$@" "$v_f" >view.out 2>view.err
	survived $? view.err
}
check 'all of them in one stream' 'view variants.ndjson'
check '... with -v' 'view variants.ndjson -v'
check '... with -q' 'view variants.ndjson -q'
# Alone, each shape's variants start from a fresh state (the first
# agent_start makes the rest a pi-loop stream).
check 'each shape on its own' '
	n=0 bad=0
	while IFS= read -r line; do
		n=$((n + 1))
		printf "%s\n" "$line" | jq -c --slurpfile odd odd.json \
		    ". as \$t | [paths] | .[] as \$p | (\$odd[0][] as \$v |
		    \$t | setpath(\$p; \$v)), (\$t | delpaths([\$p]))" >one.ndjson &&
		view one.ndjson || { echo "shape $n: $line"; bad=1; break; }
	done <shapes.ndjson
	[ $bad -eq 0 ]'
# Numbers that are not numbers to JSON, and lines that are not objects.
printf '%s\n' '{"type":"agent_end","exitCode":NaN,"totalTokens":Infinity}' \
	'{"type":"error","code":"x","exitCode":-Infinity}' '[1,2]' '"s"' \
	'5' 'null' '{"role":"user","content":NaN}' >nan.ndjson
check 'NaN, Infinity and lines that are not objects' 'view nan.ndjson'

# What used to crash now shows what it got.
check 'a user content of true is shown, not a crash' '
	echo "{\"role\":\"user\",\"content\":true}" | pi-view >out 2>err &&
	grep -qx "> true" out'
check 'an assistant content that is an object is shown as JSON' '
	echo "{\"role\":\"assistant\",\"content\":{\"a\":1}}" | pi-view >out &&
	grep -qx "{\"a\":1}" out'
check 'a block that is a string is shown' '
	echo "{\"role\":\"user\",\"content\":[\"hi\",{\"type\":\"text\",\"text\":\"there\"}]}" |
	pi-view >out && printf "> hi\n> there\n" | diff - out'

# An exit status from the stream is one a shell can see as a failure.
st() { printf '%s\n' "$1" | pi-view >/dev/null 2>&1; }
check_exit 'agent_end exitCode 256: exit 1, not 0' 1 \
	"st '{\"type\":\"agent_end\",\"exitCode\":256}'"
check_exit 'agent_end exitCode -1: exit 1, not 255' 1 \
	"st '{\"type\":\"agent_end\",\"exitCode\":-1}'"
check_exit 'agent_end exitCode NaN: exit 1, not 0' 1 \
	"st '{\"type\":\"agent_end\",\"exitCode\":NaN,\"terminationReason\":\"no_tool_calls\"}'"
check_exit 'an error with exitCode 300: its code says 4' 4 \
	"st '{\"type\":\"error\",\"code\":\"auth\",\"message\":\"m\",\"exitCode\":300}'"
check_exit 'agent_end exitCode 130 passes' 130 \
	"st '{\"type\":\"agent_end\",\"exitCode\":130}'"
done_testing
