#!/bin/sh
# pi-sess append: the closure rule (what of a stream is stored), an entry
# line per stored entry as soon as it is stored (I9), a tool result
# stored once, bad input, unknown sessions, and a reader that goes away.
. "$(dirname "$0")/lib.sh"
plan 48
unset PI_SESSIONS_DB

# app S OPTION...: append stdin to S; app.out, app.err.
app() { s=$1; shift; pi-sess append "$@" "$s" >app.out 2>app.err; }
# msgs S: the messages of S's log, one per line.
msgs() { pi-sess log "$1" | jq -c 'select(.type == "message").message'; }
# count S: how many entries S has.
count() { pi-sess log "$1" | wc -l | tr -d ' '; }
db_ok() { pi-sess --json check >check.out && jqs check.out '.[0].ok'; }

# A real pi-llm run: one assistant message, many other events.
S=$(pi-sess new) || exit 1
check_exit 'pi-llm (faux) writes a stream' 0 \
	'pi-llm -m faux/demo --faux-script "$ROOT/examples/hello.faux" hi >llm.out'
check_exit 'appended: exit 0' 0 'app "$S" <llm.out'
check 'one entry line: the assistant message, with its messageId' '
	mid=$(jq -r "select(.type == \"message_end\").messageId" llm.out) &&
	jqs app.out "length == 1 and .[0].type == \"entry\" and .[0].v == 1 and
	    .[0].entryType == \"message\" and .[0].role == \"assistant\" and
	    .[0].sessionId == \"$S\" and .[0].messageId == \"$mid\" and
	    (.[0].id | test(\"^[0-9a-f]{8}-[0-9a-f]{4}-7\")) and
	    (.[0] | has(\"toolCallId\") | not)" &&
	[ "$(grep -c text_delta llm.out)" -gt 3 ]'
check 'stored: exactly the message of message_end, under that id' '
	pi-sess log "$S" >log && jq -c "select(.type == \"message_end\").message" llm.out >want &&
	jqs log "length == 1 and .[0].id == \"$(jq -r .id app.out)\" and .[0].parentId == null" &&
	jq -c .message log >got && jq -e -n --slurpfile a want --slurpfile b got "\$a == \$b"'

# A run with a tool call, then pi-tool's result for it.
T=$(pi-sess new) || exit 1
check_exit 'pi-llm with a tool call, appended: exit 0' 0 '
	pi-llm -m faux/demo --faux-script "$ROOT/tests/fixtures/common/tool-call.faux" hi >tc.out &&
	app "$T" <tc.out'
check 'one entry: the assistant message that holds the call' '
	jqs app.out "length == 1 and .[0].role == \"assistant\"" &&
	msgs "$T" >m && jqs m "length == 1 and (.[0].content | map(.type)) ==
	    [\"text\", \"toolCall\"] and .[0].content[1].id == \"call_1\""'
echo 'the file x' >x
pitool() {
	printf '{"toolCallId":"c1","toolName":"read","input":{"file_path":"x"}}' |
		pi-tool -w . "$@" >tool.out 2>tool.err
}
check 'pi-tool reads x (degraded if it must)' '
	pitool; rc=$?
	if [ $rc -eq 7 ]; then pitool --allow-degraded; rc=$?; [ $rc -eq 6 ] && rc=0; fi
	cat tool.err; [ $rc -eq 0 ] && grep -q tool_execution_end tool.out'
check_exit 'its output appended: exit 0' 0 'app "$T" <tool.out'
check 'one toolResult entry, with the toolCallId' '
	jqs app.out "length == 1 and .[0].entryType == \"message\" and
	    .[0].role == \"toolResult\" and .[0].toolCallId == \"c1\" and
	    (.[0] | has(\"messageId\") | not)"'
check 'stored as pi'"'"'s toolResult message, after the assistant one' '
	msgs "$T" >m && jqs m "length == 2 and .[1].role == \"toolResult\" and
	    .[1].toolCallId == \"c1\" and .[1].toolName == \"read\" and
	    .[1].isError == false and (.[1].content[0].text | contains(\"the file x\"))" &&
	pi-sess log "$T" >log && jqs log ".[1].parentId == .[0].id"'

# Bare messages, pi's entry lines, system lines, and what is ignored.
B=$(pi-sess new) || exit 1
cat >bare.in <<'EOF'
{"role":"user","content":"hello"}
{"type":"agent_start","v":1}
{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":"stop"}
{"type":"text_delta","messageId":"m1","delta":"x"}
{"role":"toolResult","toolCallId":"b1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false}
{"type":"message_start","messageId":"m2","role":"assistant"}
{"type":"whatever","x":1}
EOF
check_exit 'bare message lines among events: exit 0' 0 'app "$B" <bare.in'
check 'an entry each, in order; the events ignored' '
	jqs app.out "map(.role) == [\"user\", \"assistant\", \"toolResult\"] and
	    all(.entryType == \"message\") and .[2].toolCallId == \"b1\"" &&
	msgs "$B" >m && grep "^{\"role\"" bare.in | jq -c . >want &&
	diff -u want m'
E=$(pi-sess new) || exit 1
cat >pi.in <<'EOF'
{"type":"model_change","id":"x1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","provider":"openai","modelId":"gpt-x"}
{"type":"thinking_level_change","thinkingLevel":"high","messageId":"tag-2"}
{"type":"session_info","name":"named by a line"}
{"type":"custom","customType":"ext","data":{"k":[1,2]}}
{"type":"custom_message","customType":"note","content":"a note","display":false}
{"type":"branch_summary","fromId":"abc","summary":"what happened there"}
{"type":"message","id":"x7","parentId":"x6","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"q"}}
EOF
check_exit 'pi entry lines: exit 0' 0 'app "$E" <pi.in'
check 'stored as their own types, in order' '
	jqs app.out "map(.entryType) == [\"model_change\", \"thinking_level_change\",
	    \"session_info\", \"custom\", \"custom_message\", \"branch_summary\",
	    \"message\"] and .[6].role == \"user\"" &&
	pi-sess log "$E" >log &&
	jqs log "map(.type) == [\"model_change\", \"thinking_level_change\",
	    \"session_info\", \"custom\", \"custom_message\", \"branch_summary\",
	    \"message\"] and .[0].provider == \"openai\" and .[0].modelId == \"gpt-x\" and
	    .[3].data == {\"k\": [1, 2]} and .[5].summary == \"what happened there\" and
	    .[6].message == {\"role\": \"user\", \"content\": \"q\"}"'
check 'their own ids are not kept: the chain is the session'"'"'s' '
	jqs log ".[0].id != \"x1\" and .[0].parentId == null and .[6].id != \"x7\" and
	    ([range(1; 7) as \$i | .[\$i].parentId == .[\$i - 1].id] | all)"'
check 'a messageId on such a line is answered, not stored' '
	jqs app.out ".[1].messageId == \"tag-2\" and (.[0] | has(\"messageId\") | not)" &&
	jqs log ".[1] | has(\"messageId\") | not"'
check 'they set the model, thinking level and name' '
	pi-sess context "$E" >ctx && pi-sess show "$E" >show &&
	jqs ctx ".[0].model == {\"provider\": \"openai\", \"modelId\": \"gpt-x\"} and
	    .[0].thinkingLevel == \"high\"" &&
	jqs show ".[0].name == \"named by a line\""'
Y=$(pi-sess new) || exit 1
printf '%s\n' '{"type":"system","text":"be brief"}' '{"role":"user","content":"a"}' \
	'{"type":"system","text":"be brief"}' '{"type":"system","text":"be kind"}' >sys.in
check_exit 'system lines: exit 0' 0 'app "$Y" <sys.in'
check 'a system entry when the prompt changes, none when it does not' '
	jqs app.out "map(.entryType) == [\"custom\", \"message\", \"custom\"]" &&
	pi-sess context "$Y" >ctx &&
	jqs ctx ".[1] | .type == \"system\" and .text == \"be kind\""'

# I9: the entry line comes as soon as the message is stored, not at EOF.
F=$(pi-sess new) || exit 1
mkfifo in out
timeout 20 pi-sess append --follow "$F" <in >out 2>follow.err &
fpid=$!
exec 3>in 4<out
# Should pi-sess be gone, a write to it fails a check, not this script.
trap '' PIPE
check 'line 1 written, its entry line read while stdin is still open' '
	echo "{\"role\":\"user\",\"content\":\"one\"}" >&3 &&
	IFS= read -r a1 <&4 && echo "$a1" >a1 &&
	jqs a1 ".[0].type == \"entry\" and .[0].role == \"user\""'
check 'by then it is stored: another pi-sess sees it' '
	pi-sess log "$F" >log &&
	jqs log "length == 1 and .[0].id == \"$(jq -r .id a1)\" and .[0].message.content == \"one\""'
check 'an ignored line and line 3: the next entry line is line 3'"'"'s' '
	echo "{\"type\":\"text_delta\",\"delta\":\"x\"}" >&3 &&
	echo "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"two\"}]}" >&3 &&
	IFS= read -r a2 <&4 && echo "$a2" >a2 &&
	jqs a2 ".[0].type == \"entry\" and .[0].role == \"assistant\"" &&
	[ "$(count "$F")" = 2 ]'
check 'a bad line: an error line at once, saying which line' '
	echo "{not json" >&3 &&
	IFS= read -r a3 <&4 && echo "$a3" >a3 &&
	jqs a3 ".[0].type == \"error\" and .[0].line == 4 and .[0].recoverable == true"'
check 'line 5 is still taken' '
	echo "{\"role\":\"user\",\"content\":\"five\"}" >&3 &&
	IFS= read -r a4 <&4 && echo "$a4" >a4 && jqs a4 ".[0].role == \"user\""'
exec 3>&-
check_exit 'stdin closed: nothing more, exit 3 (for line 4)' 3 '
	cat <&4 >rest && cat rest follow.err && [ ! -s rest ] && wait $fpid'
exec 4<&-
trap - PIPE
check 'in order: one, two, five' '
	msgs "$F" | jq -s -e "map(.content | if type == \"string\" then . else .[0].text end) ==
	    [\"one\", \"two\", \"five\"]"'

# A tool result is stored once per turn.
R=$(pi-sess new) || exit 1
a='{"type":"message_end","messageId":"ma","message":{"role":"assistant","content":[{"type":"toolCall","id":"c9","name":"bash","arguments":{"command":"true"}}],"stopReason":"toolUse"}}'
te='{"type":"tool_execution_end","toolCallId":"c9","toolName":"bash","success":true,"output":"done"}'
tm='{"type":"message_end","messageId":"mr","message":{"role":"toolResult","toolCallId":"c9","toolName":"bash","content":[{"type":"text","text":"done"}],"isError":false}}'
te2='{"type":"tool_execution_end","toolCallId":"c10","toolName":"bash","success":true,"output":"other"}'
printf '%s\n' "$a" "$te" "$tm" "$te2" "$tm" "$a" "$tm" "$te" >dup.in
check_exit 'a result as tool_execution_end and as message_end: exit 0' 0 \
	'app "$R" <dup.in'
check 'stored once; another call'"'"'s result too; again after a new assistant message' '
	jqs app.out "map([.role, .toolCallId // null]) == [[\"assistant\", null],
	    [\"toolResult\", \"c9\"], [\"toolResult\", \"c10\"], [\"assistant\", null],
	    [\"toolResult\", \"c9\"]]" &&
	[ "$(count "$R")" = 5 ]'
check 'a result reported again by a later append is not stored again' '
	printf "%s\n" "$te" | app "$R" && [ ! -s app.out ] &&
	[ "$(count "$R")" = 5 ] &&
	printf "%s\n" "$te2" | app "$R" && [ "$(count "$R")" = 6 ]'

# Bad input, without --follow: stop at the bad line.
# bad NAME LINE...: a new session, the lines appended; status is append's.
bad() {
	n=$1; shift
	B=$(pi-sess new) && printf '%s\n' "$@" >"$n.in" && app "$B" <"$n.in"
}
u() { printf '{"role":"user","content":"%s"}' "$1"; }
ul() { u "$1"; echo; }
check_exit 'a malformed line 3: exit 3' 3 'bad json "$(u 1)" "$(u 2)" "{\"role\":" "$(u 4)"'
check 'stdin:3 named; entry lines for 1 and 2, then an error line' '
	grep -q "^pi-sess: stdin:3: " app.err &&
	jqs app.out "map(.type) == [\"entry\", \"entry\", \"error\"] and
	    .[2].code == \"bad_input\" and .[2].recoverable == false and
	    (.[2].message | startswith(\"stdin:3: \"))"'
check 'lines 1 and 2 stored, nothing of 3 or 4' '
	msgs "$B" | jq -s -e "map(.content) == [\"1\", \"2\"]"'
check_exit 'message_end without a message: exit 3' 3 \
	'bad noend "$(u 1)" "{\"type\":\"message_end\",\"messageId\":\"m\"}" "$(u 3)"'
check 'stdin:2 named, line 1 alone stored' '
	grep -q "^pi-sess: stdin:2: .*message" app.err && [ "$(count "$B")" = 1 ]'
check_exit 'a toolResult without toolCallId: exit 3' 3 \
	'bad noid "$(u 1)" "{\"role\":\"toolResult\",\"toolName\":\"x\",\"content\":\"r\"}" "$(u 3)"'
check 'stdin:2 named, line 1 alone stored' '
	grep -q "^pi-sess: stdin:2: .*toolCallId" app.err && [ "$(count "$B")" = 1 ]'
check_exit 'an unknown role: exit 3' 3 \
	'bad role "$(u 1)" "{\"role\":\"wizard\",\"content\":\"r\"}" "$(u 3)"'
check 'stdin:2 named, line 1 alone stored' '
	grep -q "^pi-sess: stdin:2: .*wizard" app.err && [ "$(count "$B")" = 1 ]'
check_exit 'a last line with no newline: exit 3' 3 \
	'B=$(pi-sess new) && printf "%s\n%s" "$(u 1)" "$(u 2)" | app "$B"'
check 'not stored; stdin:2 named; an error line' '
	msgs "$B" | jq -s -e "map(.content) == [\"1\"]" &&
	grep -q "^pi-sess: stdin:2: " app.err && jqs app.out ".[-1].type == \"error\""'

# With --follow: report, skip, go on; exit 3 at the end.
check_exit '--follow, two bad lines among good: exit 3' 3 '
	B=$(pi-sess new) &&
	printf "%s\n" "$(u 1)" "nope" "$(u 3)" "{\"role\":\"wizard\"}" "$(u 5)" | app "$B" --follow'
check 'an error line per bad line, with its line; the rest stored' '
	jqs app.out "map(.type) == [\"entry\", \"error\", \"entry\", \"error\", \"entry\"] and
	    ([.[] | select(.type == \"error\") | [.line, .recoverable]] ==
	     [[2, true], [4, true]])" &&
	msgs "$B" | jq -s -e "map(.content) == [\"1\", \"3\", \"5\"]" &&
	grep -q "stdin:2: " app.err && grep -q "stdin:4: " app.err'

# Unknown session, no database.
check_exit 'an unknown session: exit 3' 3 \
	'ul 1 | app 0000ffff-no-such'
check_exit 'no database yet: exit 3' 3 \
	'ul 1 | PI_HOME=$TMP/fresh pi-sess append 01a2 2>err'
check 'and it is not made' '[ ! -e "$TMP/fresh/sessions.db" ] && grep -q "pi-sess: " err'

# The reader of stdout goes away.
P=$(pi-sess new) || exit 1
mkfifo pin gone
{ pi-sess append "$P" <pin 2>pipe.err; echo $? >pipe.rc; } |
	{ exec <&-; echo closed >gone; } &
check 'stdout closed before the first answer: exit 141' '
	read -r x <gone && ul 1 >pin && wait &&
	is "$(cat pipe.rc)" 141'
check 'the message was stored first; the database is sound' '
	[ "$(count "$P")" = 1 ] && db_ok'
awk 'BEGIN { for (i = 1; i <= 3000; i++)
	printf "{\"role\":\"user\",\"content\":\"m%d\"}\n", i }' >many
H=$(pi-sess new) || exit 1
check 'a reader that exits after 5 lines: exit 141, those 5 stored, not all' '
	{ pi-sess append "$H" <many 2>/dev/null; echo $? >pipe.rc; } | head -n 5 >five &&
	is "$(cat pipe.rc)" 141 && n=$(count "$H") && echo "$n stored" &&
	[ "$n" -ge 5 ] && [ "$n" -lt 3000 ] &&
	pi-sess log "$H" | head -n 5 | jq -r .id >ids && jq -r .id five | diff - ids &&
	db_ok'

done_testing
