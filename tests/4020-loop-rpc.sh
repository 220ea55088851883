#!/bin/sh
# pi-loop --rpc, driven through fifos: each command is sent once the
# event it must follow has been read.  Responses echo the id; prompts,
# steering and follow-ups; abort; state and messages; settings recorded
# in the session; compaction; switching sessions; bad lines; EOF.
. "$(dirname "$0")/lib.sh"
plan 40

PI_CLOCK_FIXED=1700000000000
export PI_CLOCK_FIXED
GOLD=$ROOT/tests/fixtures/loop
mkdir ws && WS=$(cd ws && pwd -P) || exit 1

DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# rpc NAME SCRIPT OPTION...: pi-loop --rpc in the background, its stdin
# on fd 3 and its stdout on fd 4; every line read goes to NAME.out.
# timeout only bounds a test that has gone wrong (with -k: pi-loop --rpc
# does not stop on SIGTERM while it is idle).
rpc() {
	R=$1 s=$2
	shift 2
	rm -f rpc.in rpc.outf ws/release && mkfifo rpc.in rpc.outf || return 1
	PI_FAUX_SCRIPT=$TMP/$s timeout -k 5 60 pi-loop --rpc -m faux/demo \
		-w "$WS" $DEG "$@" <rpc.in >rpc.outf 2>"$R.err" &
	rpid=$!
	exec 3>rpc.in 4<rpc.outf
	: >"$R.out"
}
send() { printf '%s\n' "$1" >&3; }
# upto TYPE [PATTERN]: read lines until an event of TYPE (whose line
# also matches the glob PATTERN); 1 at EOF.  A glob, not jq, so that
# reading keeps up with pi-loop.
upto() { upto_glob "{\"type\":\"$1\",${2:-*}"; }
upto_glob() {
	while IFS= read -r l <&4; do
		printf '%s\n' "$l" >>"$R.out"
		case $l in $1) return 0 ;; esac
	done
	return 1
}
# reply ID: up to the response to ID (JSON), which goes to reply.json.
reply() {
	upto_glob "{\"type\":\"response\",\"id\":$1,*" &&
	tail -n 1 "$R.out" >reply.json
}
# finish: EOF on stdin, the rest of stdout; the exit status in rc.
finish() { exec 3>&-; cat <&4 >>"$R.out"; exec 4<&-; wait "$rpid"; rc=$?; }
# is_json FILE FILTER: FILTER holds for the one line of FILE.
is_json() { jq -e "$2" "$1" >/dev/null || { cat "$1"; return 1; }; }
ctx_msgs() { pi-sess context "$1" | jq -c 'select(.role)'; }
locked() { pi-sess --json show "$1" | jq -e '.lock != null' >/dev/null; }
NORM='def uuid: test("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$");
	([.[] | .. | strings | select(uuid)] | reduce .[] as $s ({};
	    if has($s) then . else .[$s] = "ID\(length + 1)" end)) as $ids |
	.[] | walk(if type == "object" then del(.sandbox, .degraded) |
	    with_entries(if .key == "ts" or .key == "timestamp" or
	    .key == "durationMs" then .value = 0 else . end)
	  elif type == "string" then ($ids[.] // .) | split($ws) | join("WS")
	  else . end)'
norm() { jq -sc --arg ws "$WS" "$NORM" "$1" >"$1.norm"; }
# run_of FILE N: the events of the Nth run (agent_start .. agent_end).
run_of() {
	awk -v n="$2" '/^\{"type":"agent_start"/ { k++ } k == n { print }
	    k == n && /^\{"type":"agent_end"/ { exit }' "$1"
}

# The first session: a message with two calls; the first runs until the
# test makes ws/release, so that commands arrive while it runs.
cat >a.faux <<'EOF'
{"content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"i=0; while [ ! -e release ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; echo x"}},{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"touch ran.c2"}}],"usage":{"input":100,"output":10}}
{"content":"Changed course.","usage":{"input":120,"output":5}}
EOF
rpc a a.faux --parallel 1
check 'get_state when idle: the fields, isStreaming false' '
	send "{\"id\":\"g1\",\"type\":\"get_state\"}" && reply "\"g1\"" &&
	is_json reply.json ".success and .command == \"get_state\" and
	    (.data | keys) == [\"followUpQueue\", \"isStreaming\", \"messageCount\",
	     \"model\", \"pendingMessageCount\", \"sessionId\", \"steeringQueue\",
	     \"thinkingLevel\", \"workspace\"] and
	    .data.isStreaming == false and .data.messageCount == 0 and
	    .data.model == \"faux/demo\" and .data.thinkingLevel == \"off\" and
	    .data.workspace == \"$WS\""'
A=$(jq -r .data.sessionId reply.json)
check 'prompt: a success response, then agent_start' '
	send "{\"id\":\"p1\",\"type\":\"prompt\",\"message\":\"hello\"}" &&
	upto agent_start &&
	jqs a.out ".[-2] | .type == \"response\" and .id == \"p1\" and
	    .command == \"prompt\" and .success" &&
	jqs a.out ".[-1].sessionId == \"$A\""'
check 'a tool runs; a prompt without streamingBehavior is refused' '
	upto tool_execution_start "*\"toolCallId\":\"c1\",*" &&
	send "{\"id\":\"p2\",\"type\":\"prompt\",\"message\":\"interrupting\"}" &&
	reply "\"p2\"" && is_json reply.json ".success == false and .command == \"prompt\" and
	    (.error | test(\"already processing\"))"'
check 'with streamingBehavior steer it is queued; so is a steer' '
	send "{\"id\":\"p3\",\"type\":\"prompt\",\"message\":\"also this\",\"streamingBehavior\":\"steer\"}" &&
	reply "\"p3\"" && is_json reply.json ".success and .command == \"prompt\"" &&
	send "{\"id\":\"s1\",\"type\":\"steer\",\"message\":\"change course\"}" &&
	reply "\"s1\"" && is_json reply.json ".success and .command == \"steer\""'
check 'get_state during the run: isStreaming true, two steering messages' '
	send "{\"id\":\"g2\",\"type\":\"get_state\"}" && reply "\"g2\"" &&
	is_json reply.json ".data | .isStreaming and .steeringQueue == 2 and
	    .followUpQueue == 0 and .pendingMessageCount == 2 and .messageCount == 2"'
check 'the tool is let go; the run ends: no_tool_calls' '
	touch ws/release &&
	upto agent_end &&
	jqs a.out ".[-1] | .terminationReason == \"no_tool_calls\" and .exitCode == 0 and
	    .totalTurns == 2"'
check 'the second call was skipped: "Skipped due to queued user message."' '
	test ! -e ws/ran.c2 &&
	jqs a.out "[.[] | select(.type == \"message_end\" and .toolCallId == \"c2\")] |
	    length == 1 and .[0].message.isError and
	    .[0].message.content == [{type: \"text\", text: \"Skipped due to queued user message.\"}]" &&
	jqs a.out "[.[] | select(.type == \"tool_execution_end\" and .toolCallId == \"c1\")][0] |
	    .success and .output == \"x\n\""'
check 'the steering messages are user message_ends, after the results' '
	jqs a.out "[.[] | select(.type == \"message_end\") | .message |
	    [.role, (.content[0].text // .content[0].type)]] == [
	    [\"user\", \"hello\"], [\"assistant\", \"toolCall\"],
	    [\"toolResult\", \"x\n\"], [\"toolResult\", \"Skipped due to queued user message.\"],
	    [\"user\", \"also this\"], [\"user\", \"change course\"],
	    [\"assistant\", \"Changed course.\"]]"'
check 'the next turn sees them: its context, as pi-sess has it' '
	jqs a.out "[.[] | select(.type == \"turn_start\")][1].messages == 6" &&
	ctx_msgs "$A" >ctx && jqs ctx "length == 7 and .[4].content[0].text == \"also this\" and
	    .[5].content[0].text == \"change course\" and .[5].role == \"user\" and
	    .[6].role == \"assistant\""'
norm a.out
check_same 'the run with steering: the whole stream' "$GOLD/rpc-steer.jsonl" a.out.norm
check 'get_state after the run: isStreaming false, queues empty' '
	send "{\"id\":\"g3\",\"type\":\"get_state\"}" && reply "\"g3\"" &&
	is_json reply.json ".data | .isStreaming == false and .messageCount == 7 and
	    .pendingMessageCount == 0 and .sessionId == \"$A\""'
check 'get_messages: the session'"'"'s messages' '
	send "{\"id\":\"m1\",\"type\":\"get_messages\"}" && reply "\"m1\"" &&
	jq -c ".data.messages[]" reply.json >got && ctx_msgs "$A" >want &&
	test "$(wc -l <got)" -eq 7 && cmp want got'

# Settings, bad commands and ids.
check 'set_model: answered with the model' '
	send "{\"id\":\"sm\",\"type\":\"set_model\",\"provider\":\"faux\",\"modelId\":\"other\"}" &&
	reply "\"sm\"" && is_json reply.json ".success and .data.model == \"faux/other\""'
check 'set_thinking_level high: success; a bad level: an error' '
	send "{\"id\":\"t1\",\"type\":\"set_thinking_level\",\"level\":\"high\"}" &&
	reply "\"t1\"" && is_json reply.json ".success and .command == \"set_thinking_level\"" &&
	send "{\"id\":\"t2\",\"type\":\"set_thinking_level\",\"level\":\"extreme\"}" &&
	reply "\"t2\"" && is_json reply.json ".success == false and (.error | test(\"level\"))"'
check 'an unknown command: an error response echoing the id' '
	send "{\"id\":\"u1\",\"type\":\"frobnicate\"}" && reply "\"u1\"" &&
	is_json reply.json ".success == false and .command == \"frobnicate\" and
	    .error == \"Unknown command: frobnicate\""'
check 'an unparseable line with "id":"7": response id "7", command parse' '
	send "{\"id\":\"7\",\"type\":\"get_state\"" && reply "\"7\"" &&
	is_json reply.json ".success == false and .command == \"parse\" and
	    (.error | startswith(\"Failed to parse command\"))"'
check 'a number id is echoed as a number; the settings are in the state' '
	send "{\"id\":42,\"type\":\"get_state\"}" && reply 42 &&
	is_json reply.json ".id == 42 and .data.model == \"faux/other\" and
	    .data.thinkingLevel == \"high\""'
# From here on, every reply is text; the summary call gets line 1.
{ echo '"Summary: the user said hello, then changed course."'
  yes '"Answer."' | head -n 20; } >a.faux
check 'the next run uses the new model and thinking level' '
	send "{\"id\":\"p4\",\"type\":\"prompt\",\"message\":\"again\"}" &&
	upto agent_end &&
	run_of a.out 2 >run2 &&
	jqs run2 ".[0] | .type == \"agent_start\" and .model == \"faux/other\" and
	    .thinkingLevel == \"high\"" &&
	jqs run2 "[.[] | select(.type == \"message_end\" and .message.role == \"assistant\")][0].message.model == \"other\""'
check 'compact: a response with summary, firstKeptEntryId, tokensBefore, entryId' '
	send "{\"id\":\"c\",\"type\":\"compact\"}" && reply "\"c\"" &&
	is_json reply.json ".success and (.data | keys) ==
	    [\"entryId\", \"firstKeptEntryId\", \"summary\", \"tokensBefore\"] and
	    (.data.summary | startswith(\"Summary: the user said hello, then changed course.\")) and
	    .data.tokensBefore > 0" &&
	jqs a.out "[.[] | select(.type == \"compaction_start\")] | length == 1 and .[0].reason == \"manual\""'
check 'the compaction is in the session, as the response says' '
	pi-sess log "$A" >log &&
	jq -e --slurpfile r reply.json "select(.type == \"compaction\") |
	    .id == \$r[0].data.entryId and .firstKeptEntryId == \$r[0].data.firstKeptEntryId" log >/dev/null'
E=$(jq -r 'select(.type == "message" and .message.role == "user").id' log | head -n 1)
check 'branch at the first prompt: a new session' '
	send "{\"id\":\"b\",\"type\":\"branch\",\"entryId\":\"$E\"}" && reply "\"b\"" &&
	is_json reply.json ".success and .data.sessionId != \"$A\" and .data.cancelled == false"'
B=$(jq -r .data.sessionId reply.json)
check 'the old session is unlocked, the branch is held' '! locked "$A" && locked "$B"'
check 'the next prompt runs in the branch, from the branch point' '
	send "{\"id\":\"t3\",\"type\":\"set_thinking_level\",\"level\":\"low\"}
{\"id\":\"p5\",\"type\":\"prompt\",\"message\":\"in the branch\"}" &&
	upto agent_end && run_of a.out 3 >run3 &&
	jqs run3 ".[0].sessionId == \"$B\" and .[-1].sessionId == \"$B\" and
	    ([.[] | select(.type == \"turn_start\")][0].messages == 2)" &&
	pi-sess --json show "$B" | jq -e ".parentId == \"$A\"" >/dev/null'
check 'a level set just before a prompt is stored once' '
	pi-sess log "$B" | jq -c "select(.type == \"thinking_level_change\") | .thinkingLevel" >levels &&
	is "$(cat levels)" "\"low\""'
check 'new_session: another session; the branch is unlocked' '
	send "{\"id\":\"n\",\"type\":\"new_session\"}" && reply "\"n\"" &&
	N=$(jq -r .data.sessionId reply.json) &&
	is_json reply.json ".success and .command == \"new_session\"" &&
	[ "$N" != "$A" ] && [ "$N" != "$B" ] && ! locked "$B" && locked "$N"'
N=$(jq -r .data.sessionId reply.json)
check 'the next prompt runs in it, from nothing' '
	send "{\"id\":\"p6\",\"type\":\"prompt\",\"message\":\"fresh\"}" &&
	upto agent_end && run_of a.out 4 >run4 &&
	jqs run4 ".[0].sessionId == \"$N\" and
	    ([.[] | select(.type == \"turn_start\")][0].messages == 1)"'
finish
check 'EOF when idle: exit 0; every line JSON; nothing unlocked left' '
	is "$rc" 0 && jq_lines a.out && ! locked "$N" && ! locked "$A"'
check 'set_model and set_thinking_level were recorded in the session' '
	pi-sess log "$A" | jq -c "select(.type == \"model_change\" or
	    .type == \"thinking_level_change\") | {type, provider, modelId, thinkingLevel}" >settings &&
	jqs settings ".[0] == {type: \"model_change\", provider: \"faux\", modelId: \"other\",
	    thinkingLevel: null} and length == 2 and .[1] == {type: \"thinking_level_change\",
	    provider: null, modelId: null, thinkingLevel: \"high\"}"'

# Follow-ups wait until the model would stop; one per stop.
cat >f.faux <<'EOF'
{"content":[{"type":"toolCall","id":"f1","name":"bash","arguments":{"command":"i=0; while [ ! -e release ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; echo one"}}],"usage":{"input":100,"output":10}}
{"content":"Final answer.","usage":{"input":120,"output":5}}
{"content":"After the first follow-up.","usage":{"input":140,"output":5}}
{"content":"After the second.","usage":{"input":160,"output":5}}
EOF
rpc f f.faux
check 'follow_up, and prompt with streamingBehavior followUp, mid-run: queued' '
	send "{\"id\":\"p1\",\"type\":\"prompt\",\"message\":\"start\"}" &&
	upto tool_execution_start "*\"toolCallId\":\"f1\",*" &&
	send "{\"id\":\"f1\",\"type\":\"follow_up\",\"message\":\"first follow-up\"}" &&
	reply "\"f1\"" && is_json reply.json ".success and .command == \"follow_up\"" &&
	send "{\"id\":\"f2\",\"type\":\"prompt\",\"message\":\"second follow-up\",\"streamingBehavior\":\"followUp\"}" &&
	reply "\"f2\"" && is_json reply.json ".success and .command == \"prompt\"" &&
	send "{\"id\":\"g\",\"type\":\"get_state\"}" && reply "\"g\"" &&
	is_json reply.json ".data | .followUpQueue == 2 and .steeringQueue == 0 and .isStreaming"'
check 'each becomes a user message after an answer; one more call each' '
	touch ws/release &&
	upto agent_end &&
	jqs f.out "[.[] | select(.type == \"message_end\") | .message |
	    [.role, (.content[0].text // .content[0].type)]] == [
	    [\"user\", \"start\"], [\"assistant\", \"toolCall\"], [\"toolResult\", \"one\n\"],
	    [\"assistant\", \"Final answer.\"], [\"user\", \"first follow-up\"],
	    [\"assistant\", \"After the first follow-up.\"], [\"user\", \"second follow-up\"],
	    [\"assistant\", \"After the second.\"]] and
	    .[-1].totalTurns == 4 and .[-1].terminationReason == \"no_tool_calls\"" &&
	jqs f.out "[.[] | select(.type == \"turn_end\") | .shouldContinue] == [true, true, true, false]"'
norm f.out
check_same 'the run with follow-ups: the whole stream' "$GOLD/rpc-follow-up.jsonl" f.out.norm
finish
check 'EOF when idle: exit 0' is "$rc" 0

# abort mid-run; then EOF mid-run.
cat >x.faux <<'EOF'
{"content":"one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40","delayMs":300,"usage":{"input":100,"output":10}}
{"content":"one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40","delayMs":300,"usage":{"input":100,"output":10}}
EOF
rpc x x.faux
check 'abort mid-run: the run ends abort_signal, then the response' '
	send "{\"id\":\"p1\",\"type\":\"prompt\",\"message\":\"count\"}" &&
	upto text_delta &&
	send "{\"id\":\"ab\",\"type\":\"abort\"}" && reply "\"ab\"" &&
	jqs x.out ".[-1] | .success and .command == \"abort\"" &&
	jqs x.out ".[-2] | .type == \"agent_end\" and .terminationReason == \"abort_signal\" and
	    .exitCode == 130 and .error.message == \"aborted by the RPC peer\""'
X=$(jq -r 'select(.type == "agent_start").sessionId' x.out | head -n 1)
check 'the partial message is stored, aborted' '
	pi-sess log "$X" | jq -c "select(.type == \"message\").message" >m &&
	jqs m "length == 2 and .[1].stopReason == \"aborted\" and
	    (.[1].content[0].text | startswith(\"one \"))"'
check 'idle again: isStreaming false; an abort now is answered at once' '
	send "{\"id\":\"g\",\"type\":\"get_state\"}" && reply "\"g\"" &&
	is_json reply.json ".data.isStreaming == false" &&
	send "{\"id\":\"ab2\",\"type\":\"abort\"}" && reply "\"ab2\"" &&
	is_json reply.json ".success"'
check 'EOF mid-run: exit 141' '
	send "{\"id\":\"p2\",\"type\":\"prompt\",\"message\":\"count again\"}" &&
	upto text_delta && finish && is "$rc" 141'
check 'agent_end is the last line: gateway_disconnected' '
	jq_lines x.out && jqs x.out ".[-1] | .type == \"agent_end\" and
	    .terminationReason == \"gateway_disconnected\" and .exitCode == 141" &&
	jqs x.out "[.[] | select(.type == \"agent_end\")] | length == 2"'
check 'the session is unlocked and resumable' '
	! locked "$X" && yes "\"Resumed.\"" | head -n 10 >r.faux &&
	PI_FAUX_SCRIPT=r.faux pi-loop -m faux/demo -w "$WS" $DEG -s "$X" "go on" </dev/null >res.out 2>res.err &&
	jqs res.out ".[-1] | .type == \"agent_end\" and .terminationReason == \"no_tool_calls\" and
	    .sessionId == \"$X\"" && jqs res.out ".[0].resumedFrom == \"$X\""'
check 'every session is consistent' \
	'pi-sess --json check >chk.out && jqs chk.out ".[0].ok"'

# A command over the 64 MiB ceiling: one parse error, and its tail is not
# taken for a command.
check 'a line over 64 MiB: one parse error, then the next command' '
	{ printf "{\"id\":\"1\",\"type\":\"get_state\",\"pad\":\"";
	  head -c 67108864 /dev/zero | tr "\\0" x; printf "\"}\n{\"id\":\"2\",\"type\":\"get_state\"}\n"; } |
	pi-loop --no-session -m faux/demo -w ws $DEG --rpc >big.out 2>big.err &&
	jqs big.out "map(select(.type == \"response\") | [.id, .command, .success]) ==
	    [[null, \"parse\", false], [\"2\", \"get_state\", true]]"'

done_testing
