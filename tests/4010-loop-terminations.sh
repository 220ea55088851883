#!/bin/sh
# pi-loop: every way a run ends.  Each gives its terminationReason on
# the last turn_end and on agent_end, always the last line, and its exit
# status; the session stays consistent and a resumed run completes.
. "$(dirname "$0")/lib.sh"
plan 71

PI_CLOCK_FIXED=1700000000000
export PI_CLOCK_FIXED
GOLD=$ROOT/tests/fixtures/loop
mkdir ws && WS=$(cd ws && pwd -P) || exit 1
# A name for the processes of this test, to look for them in /proc.
MARK=$(basename "$TMP" | tr -c "A-Za-z0-9\n" _)

# Where the sandbox cannot be built, the tools run degraded.
DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# loop NAME SCRIPT OPTION...: a run in the foreground; NAME.out, NAME.err.
loop() {
	n=$1 s=$2
	shift 2
	PI_FAUX_SCRIPT=$s pi-loop -m faux/demo -w "$WS" $DEG "$@" \
		</dev/null >"$n.out" 2>"$n.err"
}
# bg NAME SCRIPT OPTION...: the same in the background (pi-loop itself,
# so that a signal reaches it); pid in $pid.
bg() {
	n=$1 s=$2
	shift 2
	PI_FAUX_SCRIPT=$s pi-loop -m faux/demo -w "$WS" $DEG "$@" \
		</dev/null >"$n.out" 2>"$n.err" &
	pid=$!
}
reap() { wait "$pid"; rc=$?; }
# ended FILE REASON CODE: agent_end is the last line and says so, and
# the last turn_end agrees; every line is JSON.
ended() {
	jqs "$1" "(.[-1] | .type == \"agent_end\" and
	    .terminationReason == \"$2\" and .exitCode == $3) and
	    ([.[] | select(.type == \"turn_end\")][-1] |
	     .shouldContinue == false and .terminationReason == \"$2\") and
	    ([.[] | select(.type == \"agent_end\")] | length == 1)"
}
# consistent S: pi-sess check is happy, and a resumed run completes.
yes '"Resumed, and done."' | head -n 20 >resume.faux
consistent() {
	pi-sess --json check >check.out && jqs check.out '.[0].ok' &&
	PI_FAUX_SCRIPT=$TMP/resume.faux pi-loop -m faux/demo -w "$WS" $DEG \
		-s "$1" "go on" </dev/null >resume.out 2>resume.err &&
	ended resume.out no_tool_calls 0 &&
	jqs resume.out ".[0].resumedFrom == \"$1\" and .[0].sessionId == \"$1\"" &&
	pi-sess --json check >check.out && jqs check.out '.[0].ok'
}
# The volatile fields: ids by first appearance, times, paths, and what
# the sandbox of this machine enforces.
NORM='def uuid: test("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$");
	([.[] | .. | strings | select(uuid)] | reduce .[] as $s ({};
	    if has($s) then . else .[$s] = "ID\(length + 1)" end)) as $ids |
	.[] | walk(if type == "object" then del(.sandbox, .degraded) |
	    with_entries(if .key == "ts" or .key == "timestamp" or
	    .key == "durationMs" then .value = 0 else . end)
	  elif type == "string" then ($ids[.] // .) | split($ws) | join("WS") |
	    split($mark) | join("MARK")
	  else . end)'
norm() { jq -sc --arg ws "$WS" --arg mark "$MARK" "$NORM" "$1" >"$1.norm"; }
msgs() { pi-sess log "$1" | jq -c 'select(.type == "message").message'; }

# no_tool_calls: a call, its result, an answer without calls.
cat >calls.faux <<'EOF'
{"content":[{"type":"text","text":"Looking."},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"echo hi"}}],"usage":{"input":100,"output":10}}
{"content":"All done.","usage":{"input":120,"output":5}}
EOF
check_exit 'no_tool_calls: exit 0' 0 'loop done calls.faux "say hi"'
norm done.out
check_same 'no_tool_calls: the whole event stream' \
	"$GOLD/term-no-tool-calls.jsonl" done.out.norm
check 'agent_end last, the last turn_end agrees; no error, nothing on stderr' '
	ended done.out no_tool_calls 0 && jqs done.out ".[-1] | has(\"error\") | not" &&
	test ! -s done.err'
S=$(sid done.out)
check 'the session holds prompt, call, result, answer' '
	msgs "$S" >m && jqs m "map(.role) == [\"user\", \"assistant\", \"toolResult\", \"assistant\"]"'
check 'the session is consistent; a resumed run completes' 'consistent "$S"'

# timeout_48h: --timeout while a tool sleeps (2 s, for the tool to start
# even on a loaded machine).
cat >sleep.faux <<EOF
{"content":[{"type":"toolCall","id":"s1","name":"bash","arguments":{"command":"touch started.t; (exec -a ${MARK}_t sleep 29); echo never"}}],"usage":{"input":100,"output":10}}
{"content":"unreachable","usage":{"input":100,"output":10}}
EOF
check_exit '--timeout 2s while a tool sleeps: exit 124' 124 \
	'loop tmo sleep.faux --timeout 2s "sleep"'
check 'the tool had started' 'test -e ws/started.t'
check 'timeout_48h, agent_end last' 'ended tmo.out timeout_48h 124'
check 'agent_end.error says the time limit was reached' '
	jqs tmo.out ".[-1].error == {code: \"timeout_48h\",
	    message: \"the run reached its time limit (2 s)\"}" &&
	grep -q "time limit" tmo.err'
# pi-loop stops the tool with SIGTERM to pi-tool alone, never to its
# group, so that pi-tool stops its sandbox and says why.
check 'the tool was stopped, and its result says so' '
	jqs tmo.out "[.[] | select(.type == \"tool_execution_end\")] | length == 1 and
	    (.[0] | .success == false and .signal == 15 and .error.code == \"aborted\" and
	     .output == \"(no output)\n\nCommand aborted\")" &&
	jqs tmo.out "([.[] | select(.type == \"tool_execution_end\")][0].output) as \$o |
	    [.[] | select(.type == \"message_end\" and .toolCallId == \"s1\")][0].message |
	    .isError and .content == [{type: \"text\", text: \$o}]"'
norm tmo.out
check_same 'timeout: the whole event stream (the tool aborted)' \
	"$GOLD/term-timeout.jsonl" tmo.out.norm
check 'the tool'"'"'s process tree is gone' '! alive "${MARK}_t"'
check 'the session is consistent; a resumed run completes' 'consistent "$(sid tmo.out)"'

# idle_timeout_120s: the model says nothing for --idle-timeout.
echo '{"content":"too slow","delayMs":3000,"usage":{"input":100,"output":10}}' >slow.faux
check_exit '--idle-timeout 1 and a model silent for 3 s: exit 124' 124 \
	'loop idle slow.faux --idle-timeout 1 "hello"'
check 'idle_timeout_120s, agent_end last' 'ended idle.out idle_timeout_120s 124'
check 'agent_end.error says no event came' '
	jqs idle.out ".[-1].error == {code: \"idle_timeout_120s\",
	    message: \"no event from the model for 1 s\"}"'
check 'the model call was cut short: its message is aborted' '
	jqs idle.out "[.[] | select(.type == \"message_end\" and
	    .message.role == \"assistant\")] | length == 1 and
	    .[0].stopReason == \"aborted\""'
check 'the session is consistent; a resumed run completes' 'consistent "$(sid idle.out)"'

# abort_signal: SIGINT during the model call.
echo '{"content":"one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40","delayMs":300,"usage":{"input":100,"output":10}}' >words.faux
bg int words.faux "count"
check 'the model is streaming' wait_until 'grep -q "\"text_delta\"" int.out'
kill -INT "$pid"
reap
check 'SIGINT during the model call: exit 130' is "$rc" 130
check 'abort_signal, agent_end last, saying SIGINT' '
	ended int.out abort_signal 130 &&
	jqs int.out ".[-1].error == {code: \"abort_signal\", message: \"interrupted by SIGINT\"}"'
S=$(sid int.out)
check 'the partial assistant message is recorded, stopReason aborted' '
	msgs "$S" >m && jqs m "length == 2 and .[1].role == \"assistant\" and
	    .[1].stopReason == \"aborted\" and (.[1].content | length == 1) and
	    (.[1].content[0].text | startswith(\"one \") and length < 100) and
	    (.[1].errorMessage | test(\"SIGINT\"))"'
check 'the session is consistent; a resumed run completes' 'consistent "$S"'

# SIGINT during a tool that ends within --grace: it is left to finish;
# the second call of the message never starts.
cat >grace.faux <<'EOF'
{"content":[{"type":"toolCall","id":"g1","name":"bash","arguments":{"command":"touch started.g; sleep 2; echo graced"}},{"type":"toolCall","id":"g2","name":"bash","arguments":{"command":"touch ran.g2"}}],"usage":{"input":100,"output":10}}
"unreachable"
EOF
bg gr grace.faux --parallel 1 --grace 20 "two calls"
check 'the first tool runs' wait_until 'test -e ws/started.g'
kill -INT "$pid"
reap
check 'SIGINT during a tool: exit 130' is "$rc" 130
check 'abort_signal, agent_end last, one turn' '
	ended gr.out abort_signal 130 && jqs gr.out ".[-1].totalTurns == 1"'
check 'the running tool had its grace: it finished' '
	jqs gr.out "[.[] | select(.type == \"tool_execution_end\" and .toolCallId == \"g1\")] |
	    length == 1 and .[0].success and .[0].output == \"graced\n\""'
check 'the second call never started, and got an error result' '
	test ! -e ws/ran.g2 &&
	jqs gr.out "[.[] | select(.toolCallId == \"g2\" and .type == \"message_end\")] |
	    length == 1 and .[0].message.isError and .[0].message.content ==
	    [{type: \"text\", text: \"Skipped: the run was stopped before this tool started.\"}]"'
S=$(sid gr.out)
check 'both results are in the session, in call order' '
	msgs "$S" >m && jqs m "map(.role) == [\"user\", \"assistant\", \"toolResult\", \"toolResult\"] and
	    .[2].toolCallId == \"g1\" and .[3].toolCallId == \"g2\""'
check 'the session is consistent; a resumed run completes' 'consistent "$S"'

# SIGINT during a tool that outlasts --grace: it is killed.
cat >kill.faux <<EOF
{"content":[{"type":"toolCall","id":"k1","name":"bash","arguments":{"command":"touch started.k; (exec -a ${MARK}_k sleep 29); echo never"}},{"type":"toolCall","id":"k2","name":"bash","arguments":{"command":"touch ran.k2"}}],"usage":{"input":100,"output":10}}
"unreachable"
EOF
bg kl kill.faux --parallel 1 --grace 1 "two calls"
check 'the first tool runs (its processes are seen)' \
	wait_until 'test -e ws/started.k && alive "${MARK}_k"'
kill -INT "$pid"
reap
check 'SIGINT, a tool past its grace: exit 130' is "$rc" 130
check 'the tool was stopped: an error result' '
	ended kl.out abort_signal 130 &&
	jqs kl.out "[.[] | select(.type == \"tool_execution_end\" and .toolCallId == \"k1\")] |
	    length == 1 and (.[0].success | not)"'
check 'its process tree is gone' '! alive "${MARK}_k"'
check 'the second call never started, and got an error result' '
	test ! -e ws/ran.k2 &&
	jqs kl.out "[.[] | select(.type == \"tool_execution_end\" and .toolCallId == \"k2\")] |
	    length == 1 and .[0].error.code == \"aborted\""'
check 'the session is consistent; a resumed run completes' 'consistent "$(sid kl.out)"'

# SIGTERM during the model call.
bg term words.faux "count"
check 'the model is streaming' wait_until 'grep -q "\"text_delta\"" term.out'
kill -TERM "$pid"
reap
check 'SIGTERM: exit 143' is "$rc" 143
check 'abort_signal, agent_end last, saying SIGTERM' '
	ended term.out abort_signal 143 &&
	jqs term.out ".[-1].error.message == \"interrupted by SIGTERM\""'
check 'the session is consistent; a resumed run completes' 'consistent "$(sid term.out)"'

# gateway_disconnected: the reader of stdout goes after 3 lines; the
# tool waits until it has gone, so that pi-loop has more to write.
cat >gone.faux <<EOF
{"content":[{"type":"toolCall","id":"w1","name":"bash","arguments":{"command":"i=0; while [ ! -e go ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done; echo released ${MARK}_w"}}],"usage":{"input":100,"output":10}}
"the reader is gone"
EOF
check 'the reader of stdout goes away mid-run: exit 141' '
	{ PI_FAUX_SCRIPT=gone.faux pi-loop -m faux/demo -w "$WS" $DEG "go" \
		</dev/null 2>gone.err; echo $? >gone.rc; } |
	{ head -n 3 >gone.out; exec 0<&-; touch ws/go; }
	is "$(cat gone.rc)" 141'
check 'the reader had its three lines' '
	jqs gone.out "map(.type) == [\"agent_start\", \"message_start\", \"message_end\"]"'
S=$(sid gone.out)
check 'no child is left: no tool, no recorder' '
	! alive "released ${MARK}_w" && ! alive "$S"'
check 'the session is not locked' \
	'pi-sess --json show "$S" >show.out && jqs show.out ".[0].lock == null"'
check 'the session is consistent; a resumed run completes' 'consistent "$S"'

# max_turns: a model that always calls a tool.
yes '{"content":[{"type":"toolCall","id":"m1","name":"bash","arguments":{"command":"echo again"}}],"usage":{"input":100,"output":10}}' |
	head -n 5 >always.faux
check_exit '--max-turns 2: exit 8' 8 'loop mt always.faux --max-turns 2 "loop"'
check 'turn 1 ends the run: shouldContinue false, max_turns' '
	ended mt.out max_turns 8 &&
	jqs mt.out "[.[] | select(.type == \"turn_end\")] | length == 2 and
	    .[0].turnIndex == 0 and .[0].shouldContinue and (.[0] | has(\"terminationReason\") | not) and
	    .[1].turnIndex == 1 and .[1].hasToolCalls" &&
	jqs mt.out ".[-1].totalTurns == 2 and .[-1].error.code == \"max_turns\""'
norm mt.out
check_same 'max_turns: the whole event stream' "$GOLD/term-max-turns.jsonl" mt.out.norm
check 'the session is consistent; a resumed run completes' 'consistent "$(sid mt.out)"'

# budget_exceeded: a priced model (openai/gpt-4.1) through the fake server.
printf '[{"file": "%s"}]\n' "$ROOT/tests/fixtures/openai/tool-calls.sse" >plan.json
fake_start plan.json
check_exit '--max-cost 0.0000001 with a priced model: exit 9' 9 '
	OPENAI_API_KEY=x pi-loop -m openai/gpt-4.1 --base-url "$FAKE_URL/v1" \
		-w "$WS" $DEG --max-cost 0.0000001 "look" </dev/null >bud.out 2>bud.err'
fake_stop
check 'budget_exceeded, agent_end last, one turn, one request' '
	ended bud.out budget_exceeded 9 && jqs bud.out ".[-1].totalTurns == 1" &&
	is "$(cat "$TMP/req/count")" 1'
# 120 input and 30 output tokens at $2 and $8 per million.
check 'the cost is the catalogue'"'"'s, on message_end and agent_end' '
	jqs bud.out "([.[] | select(.type == \"message_end\" and .message.role == \"assistant\")][0] |
	    .usage.cost == 0.00048) and .[-1].cost == 0.00048 and
	    .[-1].error.code == \"budget_exceeded\""'
check 'the three calls still have their results' '
	msgs "$(sid bud.out)" >m && jqs m "map(.role) ==
	    [\"user\", \"assistant\", \"toolResult\", \"toolResult\", \"toolResult\"]"'
check 'the session is consistent; a resumed run completes' 'consistent "$(sid bud.out)"'

# error: the provider refuses (not retryable).
echo '{"error":{"type":"invalid_request_error","message":"bad thing"},"usage":{"input":100,"output":0}}' >refuse.faux
check_exit 'a refusal: exit 5' 5 'loop err refuse.faux "hello"'
check 'terminationReason error, agent_end.error names the code' '
	ended err.out error 5 &&
	jqs err.out ".[-1].error == {code: \"provider_error\",
	    message: \"pi-llm: bad thing (invalid_request_error)\"}"'
norm err.out
check_same 'error: the whole event stream' "$GOLD/term-error.jsonl" err.out.norm
check 'the session is consistent; a resumed run completes' 'consistent "$(sid err.out)"'

check_exit 'no faux script: exit 4' 4 'loop nos "$TMP/no-such.faux" "hello"'
check 'terminationReason error, code faux_script' '
	ended nos.out error 4 && jqs nos.out ".[-1].error.code == \"faux_script\""'
check 'the session is consistent; a resumed run completes' 'consistent "$(sid nos.out)"'

# context_overflow: compaction, then the call again, through the fake
# OpenAI server: a first run, then a run whose call is refused as too
# long (HTTP 400), the summary call, and the retry.
sse() {
	printf 'data: {"choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":null}]}\n\n' "$1"
	printf 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}\n\n'
	printf 'data: [DONE]\n\n'
}
sse 'Hello.' >hello.sse
sse 'The user said first.' >summary.sse
sse 'Recovered.' >recovered.sse
jq -n '[{file: "hello.sse"},
	{status: 400, body: ({error: {message: "This model'"'"'s maximum context length is 128000 tokens. However, your messages resulted in 300000 tokens.", type: "invalid_request_error", code: "context_length_exceeded"}} | tojson)},
	{file: "summary.sse"}, {file: "recovered.sse"}]' >plan.json
fake_start plan.json
oloop() {
	n=$1
	shift
	OPENAI_API_KEY=x pi-loop -m openai/gpt-4.1 --base-url "$FAKE_URL/v1" \
		-w "$WS" $DEG "$@" </dev/null >"$n.out" 2>"$n.err"
}
check_exit 'a first run' 0 'oloop ov1 "first"'
S=$(sid ov1.out)
check_exit 'then an overflow: compaction, a retry, exit 0' 0 \
	'oloop ov2 -s "$S" "second"'
check 'compaction_start (overflow) follows the error; the retry answers' '
	jq_lines ov1.out && ended ov2.out no_tool_calls 0 &&
	jqs ov2.out "[.[] | select(.type == \"error\" or (.type | startswith(\"compaction\")))] |
	    map(.type) == [\"error\", \"compaction_start\", \"compaction_end\"] and
	    .[0].code == \"context_overflow\" and .[1].reason == \"overflow\" and
	    .[2].reason == \"overflow\" and .[2].summary == \"The user said first.\"" &&
	jqs ov2.out ".[-1].totalTurns == 2 and
	    ([.[] | select(.type == \"turn_end\")][0].shouldContinue) and
	    ([.[] | select(.type == \"message_end\")][-1].message.content[0].text == \"Recovered.\")"'
check 'four requests; the retry sends the summary, not the first prompt' '
	is "$(fake_requests)" 4 &&
	jq -e ".body.messages | map(.content | if type == \"array\" then map(.text // \"\") | join(\"\") else . end) |
	    (map(test(\"<summary>\\nThe user said first.\")) | any) and (map(. == \"second\") | any) and
	    (map(select(. == \"first\")) | length == 0)" "$(fake_req 4)" >/dev/null'
fake_stop
norm ov2.out
check_same 'overflow: the whole event stream' "$GOLD/term-overflow.jsonl" ov2.out.norm
check 'the compaction is in the session' '
	pi-sess log "$S" >log && cid=$(jq -r "select(.type == \"compaction\").id" log) &&
	jqs ov2.out "[.[] | select(.type == \"compaction_end\")][0].entryId == \"$cid\""'
check 'the session is consistent; a resumed run completes' 'consistent "$S"'

# A second overflow in the same run is an error.
cat >over2.faux <<'EOF'
{"content":"The user said first.","usage":{"input":100,"output":10}}
{"error":{"message":"prompt is too long: 300000 tokens > 200000 maximum"},"usage":{"input":100,"output":0}}
{"error":{"message":"prompt is too long: 300000 tokens > 200000 maximum"},"usage":{"input":100,"output":0}}
EOF
loop ow1 over2.faux "first"
S=$(sid ow1.out)
check_exit 'a second overflow: exit 5' 5 'loop ow2 over2.faux -s "$S" "second"'
check 'one compaction, two overflow errors, terminationReason error' '
	ended ow1.out no_tool_calls 0 && ended ow2.out error 5 &&
	jqs ow2.out "([.[] | select(.type == \"compaction_start\")] | length == 1) and
	    ([.[] | select(.type == \"error\")] | length == 2 and
	     all(.code == \"context_overflow\")) and
	    .[-1].error.code == \"context_overflow\""'
check 'the session is consistent; a resumed run completes' 'consistent "$S"'

done_testing
