#!/bin/sh
# pi-loop's compaction: past --context-window less --reserve the older
# part of the path is summarized by the model and stored with pi-sess
# compact; the next context starts from the summary.  The cut never parts
# a call from its result; a second compaction starts from what the first
# kept and carries its summary; a session too small is left alone; an
# overflow from the provider is compacted and retried once.
. "$(dirname "$0")/lib.sh"
plan 32

PI_CLOCK_FIXED=1700000000000
export PI_CLOCK_FIXED
GOLD=$ROOT/tests/fixtures/loop
mkdir ws && WS=$(cd ws && pwd -P) || exit 1
printf 'line one\nline two\n' >ws/notes.txt

# Where the sandbox cannot be built, the tools run degraded.
DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# A pi-llm that keeps what each model call read as $LLM_CALLS/NN (exec:
# the same process, so it still dies with pi-loop).
cat >llm <<'EOF'
#!/bin/sh
case " $* " in *" --list-models "*) exec pi-llm "$@" ;; esac
mkdir -p "$LLM_CALLS" || exit 1
n=$(ls "$LLM_CALLS" | wc -l)
f=$LLM_CALLS/$(printf %02d $((n + 1)))
cat >"$f" && exec pi-llm "$@" <"$f"
EOF
chmod +x llm
# loop NAME SCRIPT OPTION...: a run, every model call kept in NAME.calls/.
loop() {
	n=$1 s=$2
	shift 2
	PI_LLM="exec $TMP/llm" LLM_CALLS=$TMP/$n.calls PI_FAUX_SCRIPT=$s \
		pi-loop -m faux/demo -w "$WS" $DEG "$@" </dev/null >"$n.out" 2>"$n.err"
}
# msgs CALL: the messages a model call read, one a line.
msgs() { jq -c 'select(.role != null)' "$1"; }
# The volatile fields: ids by first appearance, times, paths, and what
# the sandbox of this machine enforces.
NORM='def id: test("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$")
	    or test("^call_[0-9a-f]{12}$");
	([.[] | .. | strings | select(id)] | reduce .[] as $s ({};
	    if has($s) then . else .[$s] = "ID\(length + 1)" end)) as $ids |
	.[] | walk(if type == "object" then del(.sandbox, .degraded) |
	    with_entries(if .key == "ts" or .key == "timestamp" or
	    .key == "durationMs" then .value = 0 else . end)
	  elif type == "string" then ($ids[.] // .) | split($ws) | join("WS")
	  else . end)'
norm() { jq -sc --arg ws "$WS" "$NORM" "$1" >"$1.norm"; }
PREFIX='The conversation history before this point was compacted into the following summary:'
export PREFIX
# summary_text TEXT: the text of the user message pi makes of a summary
# (as a JSON string).
summary_text() { jq -n --arg p "$PREFIX" --arg s "$1" '"\($p)\n\n<summary>\n\($s)\n</summary>"'; }
# paired FILE: in the messages of FILE, every toolResult answers a call of
# the assistant message before it, and every call has its result.
paired() {
	jq -se 'reduce .[] as $m ({ok: true, open: []};
	    if $m.role == "assistant" then
		.ok = (.ok and (.open | length) == 0) |
		.open = [$m.content[] | select(.type == "toolCall") | .id]
	    elif $m.role == "toolResult" then
		.ok = (.ok and (.open | index($m.toolCallId)) != null) |
		.open -= [$m.toolCallId]
	    else .ok = (.ok and (.open | length) == 0) end) |
	    .ok and (.open | length) == 0' "$1" >/dev/null
}

# Threshold: window 1000, reserve 100; the third reply says 960 tokens.
# Line 1 is both the first answer and, for a summary request (which has
# no assistant message), the summary.  After a compaction the context
# has fewer assistant messages, so the script rewinds: --max-turns ends it.
cat >thr.faux <<'EOF'
{"content":[{"type":"text","text":"SUMMARY-ONE: notes.txt read, out.txt written."},{"type":"toolCall","name":"read","arguments":{"path":"notes.txt"}}],"usage":{"input":100,"output":10}}
{"content":[{"type":"toolCall","name":"write","arguments":{"path":"out.txt","content":"hello\n"}}],"usage":{"input":200,"output":10}}
{"content":[{"type":"toolCall","name":"bash","arguments":{"command":"echo three"}},{"type":"toolCall","name":"ls","arguments":{}}],"usage":{"input":950,"output":10}}
EOF
check_exit 'past the threshold twice, bounded by --max-turns 6: exit 8' 8 \
	'loop thr thr.faux --context-window 1000 --reserve 100 --keep-recent 10 \
	    --max-turns 6 --parallel 1 --verbose-context "please do it"'
S=$(sid thr.out)
check 'every line JSON; six turns, eight model calls (two summaries)' '
	jqs thr.out ".[-1] | .type == \"agent_end\" and .terminationReason == \"max_turns\" and
	    .totalTurns == 6" && is "$(ls thr.calls | wc -l | tr -d " ")" 8'
check 'two compactions, reason threshold, tokensBefore the last usage (960)' '
	jqs thr.out "[.[] | select(.type | startswith(\"compaction_\")) |
	    [.type, .reason, .tokensBefore]] == [
	    [\"compaction_start\", \"threshold\", 960], [\"compaction_end\", \"threshold\", 960],
	    [\"compaction_start\", \"threshold\", 960], [\"compaction_end\", \"threshold\", 960]]"'
check 'each between a turn_end and the next turn_start, end right after start' '
	jqs thr.out "[.[].type] as \$t | [\$t | indices(\"compaction_start\")[]] |
	    length == 2 and all(\$t[. - 1] == \"turn_end\" and
	    \$t[. + 1] == \"compaction_end\" and \$t[. + 2] == \"turn_start\")"'
check 'the summary calls are quiet: six assistant messages on stdout, not eight' '
	jqs thr.out "[.[] | select(.type == \"message_end\" and
	    .message.role == \"assistant\")] | length == 6"'
jq -c 'select(.type == "compaction_end")' thr.out >ends
FK1=$(jq -r -s '.[0].firstKeptEntryId' ends) E1=$(jq -r -s '.[0].entryId' ends)
FK2=$(jq -r -s '.[1].firstKeptEntryId' ends) E2=$(jq -r -s '.[1].entryId' ends)
SUM1='SUMMARY-ONE: notes.txt read, out.txt written.

<read-files>
notes.txt
</read-files>

<modified-files>
out.txt
</modified-files>'
export SUM1
check 'compaction_end: the model'"'"'s text and the files it read and changed' '
	jqs ends ".[0].summary == \$ENV.SUM1 and (.[0] | has(\"error\") | not)" '
pi-sess log "$S" >thr.log
check 'pi-sess log: the compaction entries, as the events said' '
	jqs thr.log "[.[] | select(.type == \"compaction\") |
	    [.id, .firstKeptEntryId, .tokensBefore]] ==
	    [[\"$E1\", \"$FK1\", 960], [\"$E2\", \"$FK2\", 960]] and
	    ([.[] | select(.type == \"compaction\")][0].summary == \$ENV.SUM1)"'
# The keep of 10 tokens is reached at the last result: the cut goes back
# to the call that asked for both results.
check 'the first kept entry is the assistant message of the last two results' '
	jqs thr.log "(map(.id) | index(\"$FK1\")) as \$i | (map(.type) | index(\"compaction\")) as \$c |
	    .[\$i].message.role == \"assistant\" and \$c == \$i + 3 and
	    ([.[\$i + 1, \$i + 2].message | .role, .toolCallId] ==
	     [\"toolResult\", (.[\$i].message.content[0].id), \"toolResult\",
	      (.[\$i].message.content[1].id)])"'
msgs thr.calls/05 >ctx5
check 'the next call reads pi'"'"'s summary message first' '
	jq -s -e --argjson t "$(summary_text "$SUM1")" \
	    ".[0].role == \"user\" and .[0].content[0].text == \$t" ctx5 >/dev/null'
check 'and then the kept entries, as they are stored' '
	jq -sc --arg fk "$FK1" "(map(.id) | index(\$fk)) as \$i |
	    (map(.type) | index(\"compaction\")) as \$c | .[\$i:\$c] | map(.message)" thr.log >kept &&
	jq -sc ".[1:]" ctx5 >ctx5.rest && test -s kept && cmp kept ctx5.rest'
check '--verbose-context: that turn_start holds the same messages' '
	jq -sc "[.[] | select(.type == \"turn_start\")][3].messages" thr.out >ts3 &&
	jq -sc . ctx5 >ctx5.all && cmp ts3 ctx5.all'
check 'every call after a compaction has its result, every result its call' '
	paired ctx5 && msgs thr.calls/06 >ctx6 && paired ctx6 &&
	msgs thr.calls/08 >ctx8 && paired ctx8'
check 'the summary request: the summarizer, one user message, no tool lines' '
	jqs thr.calls/04 "length == 2 and .[0].type == \"system\" and
	    (.[0].text | startswith(\"You are a context summarization assistant.\")) and
	    .[1].role == \"user\" and all(.type != \"tool\")"'
jq -r 'select(.role == "user").content[0].text' thr.calls/04 >req1
jq -r 'select(.role == "user").content[0].text' thr.calls/07 >req2
check 'it holds the summarized part as text, not what is kept' '
	head -n 3 req1 >h && printf "<conversation>\n[User]: please do it\n\n" >want && cmp h want &&
	grep -qF "[Assistant tool call]: read({\"path\":\"notes.txt\"})" req1 &&
	grep -qxF "[Tool result]: line one" req1 &&
	grep -qF "[Assistant tool call]: write({\"path\":\"out.txt\"" req1 &&
	! grep -q "echo three" req1 && ! grep -q "previous-summary" req1 &&
	grep -qx "## Next Steps" req1'
check 'the second starts from the first one'"'"'s kept entry' '
	head -n 2 req2 >h && printf "<conversation>\n[Assistant tool call]: bash({\"command\":\"echo three\"})\n" >want &&
	cmp h want && ! grep -q "please do it" req2'
check 'the first summary is not in the second <conversation> too' '
	sed -n "/^<conversation>/,/^<\/conversation>/p" req2 >conv2 &&
	[ -s conv2 ] && ! grep -q "SUMMARY-ONE" conv2'
check 'files the first summary listed are carried into the second' '
	jqs thr.out "[.[] | select(.type == \"compaction_end\").summary] |
	    length == 2 and (.[1] | contains(\"<read-files>\\nnotes.txt\\n</read-files>\"))"'
check 'and carries the first summary as <previous-summary>' '
	printf "<previous-summary>\n%s\n</previous-summary>\n" "$SUM1" >want &&
	sed -n "/^<previous-summary>/,/^<\/previous-summary>/p" req2 >got && cmp got want &&
	grep -q "^The <previous-summary> covers the conversation before" req2'
check 'pi-sess context: the second compaction applies, its summary first' '
	pi-sess context "$S" >ctx.after &&
	jqs ctx.after ".[0].compactionId == \"$E2\" and
	    ([.[] | select(.role != null)][0].content[0].text | startswith(\$ENV.PREFIX))"'
norm thr.out
check_same 'threshold: the whole event stream' "$GOLD/comp-threshold.jsonl" thr.out.norm

# Too small to compact: over the threshold at once, but everything is
# within --keep-recent (the default 20000).  The run goes on.
cat >small.faux <<'EOF'
{"content":[{"type":"toolCall","name":"bash","arguments":{"command":"echo small"}}],"usage":{"input":950,"output":10}}
{"content":"Small job done.","usage":{"input":100,"output":10}}
EOF
check_exit 'a session too small to compact: the run goes on, exit 0' 0 \
	'loop small small.faux --context-window 1000 --reserve 100 "tiny"'
check 'compaction_end says "Nothing to compact", stores nothing; two turns' '
	jqs small.out "[.[] | select(.type == \"compaction_end\")] == [{type: \"compaction_end\",
	    v: 1, ts: 1700000000000, reason: \"threshold\", tokensBefore: 960,
	    error: \"Nothing to compact (session too small)\"}] and
	    .[-1].totalTurns == 2 and .[-1].terminationReason == \"no_tool_calls\"" &&
	pi-sess log "$(sid small.out)" >small.log && jqs small.log "all(.type != \"compaction\")" &&
	grep -q "^pi-loop: compaction (threshold): Nothing to compact" small.err'
norm small.out
check_same 'too small: the whole event stream' "$GOLD/comp-nothing.jsonl" small.out.norm

# Overflow: a session of four answers, then a prompt the provider refuses
# as too long.  Lines 1 to 4 answer a summary request and the retry.
cat >long.faux <<'EOF'
{"content":[{"type":"toolCall","name":"bash","arguments":{"command":"echo one"}}],"usage":{"input":100,"output":10}}
{"content":[{"type":"toolCall","name":"bash","arguments":{"command":"echo two"}}],"usage":{"input":100,"output":10}}
{"content":[{"type":"toolCall","name":"bash","arguments":{"command":"echo three"}}],"usage":{"input":100,"output":10}}
{"content":"First part done.","usage":{"input":100,"output":10}}
EOF
cat >over.faux <<'EOF'
{"content":"SUMMARY-OVER: three commands ran.","usage":{"input":100,"output":10}}
{"content":"Went on after the overflow.","usage":{"input":100,"output":10}}
{"content":"Went on after the overflow.","usage":{"input":100,"output":10}}
{"content":"Went on after the overflow.","usage":{"input":100,"output":10}}
{"error":{"message":"prompt is too long: 250000 tokens > 200000 maximum"},"usage":{"input":300,"output":0}}
EOF
check_exit 'overflow: refused as too long, compacted, retried: exit 0' 0 '
	loop long long.faux "first part" && S=$(sid long.out) &&
	loop over over.faux -s "$S" --keep-recent 10 "second part"'
check 'context_overflow, then a compaction with reason overflow, then the retry' '
	jqs over.out "[.[] | select(.type | test(\"^(error|turn_|compaction_|agent_end)\")) |
	    [.type, .code // .reason // .terminationReason // .shouldContinue]] == [
	    [\"turn_start\", null], [\"error\", \"context_overflow\"], [\"turn_end\", true],
	    [\"compaction_start\", \"overflow\"], [\"compaction_end\", \"overflow\"],
	    [\"turn_start\", null], [\"turn_end\", \"no_tool_calls\"], [\"agent_end\", \"no_tool_calls\"]]"'
check 'retried once: three model calls, the last one from the summary' '
	is "$(ls over.calls | wc -l | tr -d " ")" 3 && jqs over.calls/02 ".[0].type == \"system\" and
	    (.[0].text | startswith(\"You are a context summarization\"))" &&
	msgs over.calls/03 >ctxo && jq -s -e --argjson t "$(summary_text "SUMMARY-OVER: three commands ran.")" \
	    "[.[] | select(.role == \"user\")][0].content[0].text == \$t" ctxo >/dev/null &&
	jqs over.out "[.[] | select(.type == \"message_end\" and .message.role == \"assistant\")][-1].message.content ==
	    [{type: \"text\", text: \"Went on after the overflow.\"}]"'
norm over.out
check_same 'overflow: the whole event stream' "$GOLD/comp-overflow.jsonl" over.out.norm

# An overflow that cannot be compacted (the summary request overflows
# too) ends the run: exit 5, the provider's refusal.
echo '{"error":{"message":"prompt is too long: 250000 tokens > 200000 maximum"}}' >never.faux
check_exit 'overflow and a failed summary: exit 5' 5 'loop never never.faux --keep-recent 10 "x"'
check 'compaction_end has the error, agent_end says why' '
	jqs never.out "[.[] | select(.type == \"compaction_end\")][0].error ==
	    \"Summarization failed: the model gave no summary\" and
	    .[-1].terminationReason == \"error\" and .[-1].exitCode == 5 and
	    (.[-1].error.message | startswith(\"the context overflowed and could not be compacted\"))"'

# Through a real wire protocol: an OpenAI model, --context-window set.
# Request 1 makes three calls (150 tokens); request 2 is the summary
# request; request 3 the next turn, from the summary.
FIX=$ROOT/tests/fixtures/openai
printf '[{"file":"%s"},{"file":"%s"},{"file":"%s"}]\n' "$FIX/tool-calls.sse" \
	"$FIX/text.sse" "$FIX/text.sse" >plan.json
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
fake_start plan.json
check_exit 'openai, --context-window 200 --reserve 100: two turns, exit 0' 0 '
	pi-loop -m openai/gpt-4.1 --base-url "$FAKE_URL/v1" -w "$WS" $DEG \
	    --context-window 200 --reserve 100 --keep-recent 10 "look" </dev/null >oai.out 2>oai.err &&
	is "$(fake_requests)" 3 && jqs oai.out "[.[] | select(.type == \"compaction_end\")][0] |
	    .reason == \"threshold\" and .tokensBefore == 150 and
	    (.summary | startswith(\"Hello, wörld\"))"'
check 'request 2 is the summary request: the summarizer, no tools' '
	jq -e ".body | has(\"tools\") == false and (.messages | length == 2) and
	    (.messages[0].content | tostring | contains(\"context summarization assistant\")) and
	    (.messages[1].content | tostring | contains(\"<conversation>\"))" "$(fake_req 2)" >/dev/null'
check 'request 3: system, the summary first, then the calls and their results' '
	jq -e --argjson t "$(summary_text "Hello, wörld 😀!")" ".body.messages |
	    map(.role) == [\"system\", \"user\", \"assistant\", \"tool\", \"tool\", \"tool\"] and
	    .[1].content == [{type: \"text\", text: \$t}] and
	    ([.[2].tool_calls[].id] == [\"call_A1\", \"call_B2\", \"call_C3\"]) and
	    ([.[3,4,5].tool_call_id] == [\"call_A1\", \"call_B2\", \"call_C3\"])" "$(fake_req 3)" >/dev/null'
fake_stop

done_testing
