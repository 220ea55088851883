#!/bin/sh
# pi-loop runs with the faux model: the event sequence of a run, I9 (the
# assistant message stored before its tools start), parallel tools and
# the order of their results, turns, the tool policy, the loop's own
# tools, -p, sessions (-c, -s, --no-session, locks), the system prompt,
# the stage overrides, usage errors, and no child left behind.
. "$(dirname "$0")/lib.sh"
plan 80
unset PI_SESSIONS_DB PI_LLM PI_TOOL PI_SESS RAW SEEN_WS

FIX=$ROOT/tests/fixtures/loop
TMPR=$(cd "$TMP" && pwd -P)
WS=$TMP/ws
mkdir -p "$WS" && echo 'hello from file' >"$WS/greeting.txt" || exit 1

# The stages, wrapped: each records its pid (it execs the real program,
# so the pid is that of the pi-llm or pi-tool pi-loop started) and argv.
# pi-llm's input is kept, one file per call, in call order.  pi-tool, when
# SEEN_WS is set, first saves the log of the newest session of SEEN_WS:
# what the session held when the tool started.
cat >llm <<EOF
#!/bin/sh
echo \$\$ >>"$TMP/pids"
printf '%s\n' "\$*" >>"$TMP/llm.argv"
n=\$(ls "$TMP"/llm.in.* 2>/dev/null | wc -l)
f="$TMP/llm.in.\$((n + 1))"
cat >"\$f"
exec "$ROOT/bin/pi-llm" "\$@" <"\$f"
EOF
cat >tool <<EOF
#!/bin/sh
echo \$\$ >>"$TMP/pids"
printf '%s\n' "\$*" >>"$TMP/tool.argv"
# pi-loop gives pi-tool no variable of the test's: SEEN_WS is in a file.
[ -s "$TMP/seen_ws" ] && SEEN_WS=\$(cat "$TMP/seen_ws")
if [ "\$1" != --list ] && [ -n "\$SEEN_WS" ]; then
	s=\$("$ROOT/bin/pi-sess" ls --cwd "\$SEEN_WS" </dev/null | head -n 1 | jq -r .id)
	"$ROOT/bin/pi-sess" log "\$s" </dev/null >>"$TMP/seen"
fi
exec "$ROOT/bin/pi-tool" "\$@"
EOF
cat >sess <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$TMP/sess.argv"
exec "$ROOT/bin/pi-sess" "\$@"
EOF
chmod +x llm tool sess || exit 1

# Is every process pid in $TMP/pids gone (or a zombie about to be reaped)?
gone() {
	for p in $(cat "$TMP/pids" 2>/dev/null); do
		st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
		if [ -n "$st" ] && [ "$st" != Z ] &&
		    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
		    grep -q -e pi-llm -e pi-tool -e "$TMP/"; then
			echo "pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) outlived pi-loop"
			return 1
		fi
	done
}

# loop SCRIPT OUT [ARG...]: pi-loop ARG... with the faux SCRIPT through
# the wrappers, stdout in OUT, stderr in OUT.err.  Its exit status, or
# 99 when a line of OUT is not a JSON object (unless RAW is set: -p) or
# a child outlived it.
loop() {
	l_script=$1 l_out=$2; shift 2
	rm -f "$TMP"/llm.in.* "$TMP/pids" "$TMP/llm.argv" "$TMP/tool.argv" "$TMP/seen"
	PI_FAUX_SCRIPT=$l_script PI_LLM=$TMP/llm PI_TOOL=$TMP/tool \
		pi-loop "$@" >"$l_out" 2>"$l_out.err"
	l_rc=$?
	[ -n "$RAW" ] || jq_lines "$l_out" || { echo "$l_out: not NDJSON"; cat "$l_out"; return 99; }
	gone || return 99
	cat "$l_out.err"
	return $l_rc
}

# norm FILE [nousage]: FILE's events with what changes from run to run
# made stable: ids (UUIDs, also inside text) become ID1, ID2... by first
# appearance, ts/timestamp/durationMs 0, $TMP "TMP", no sandbox report;
# with nousage, usage objects (they count the system prompt, which holds
# the date and $TMP) become "USAGE".
NORM='
def uuid: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
. as $all
| (reduce ($all | .. | strings | match(uuid; "g") | .string) as $u ({};
    if has($u) then . else .[$u] = "ID\(length + 1)" end)) as $ids
| .[]
| walk(if type == "object" then
	  with_entries(if .key == "ts" or .key == "timestamp" or
	      .key == "durationMs" then .value = 0 else . end)
	  | del(.sandbox)
	  | if $nousage and has("usage") then .usage = "USAGE" else . end
	elif type == "string" then
	  gsub("(?<u>" + uuid + ")"; $ids[.u]) | split($tmpr) | join("TMP") |
	  split($tmp) | join("TMP")
	elif type == "number" then . + 0
	else . end)'
norm() {
	jq -sc --arg tmp "$TMP" --arg tmpr "$TMPR" \
		--argjson nousage "$([ "$2" = nousage ] && echo true || echo false)" \
		"$NORM" "$1"
}
sid() { jq -r 'select(.type == "agent_end").sessionId' "$1"; }
# The roles of a session's messages (pi-sess log), with tool call ids.
roles() {
	pi-sess log "$1" | jq -r 'select(.type == "message") |
	    .message | .role + (if .toolCallId then ":" + .toolCallId else "" end)' |
	    tr '\n' ' '
}
# The types of the events in FILE, one line.
types() { jq -r .type "$1" | tr '\n' ' '; }
# The index of the first event in FILE that FILTER selects.
at() { jq -s "map($2) | index(true)" "$1"; }

# --- A text answer: examples/hello.faux.
check_exit 'text only: exit 0' 0 \
	'loop "$ROOT/examples/hello.faux" text.out -w "$WS" -m faux/demo hello'
norm text.out nousage >text.norm
check_same 'text only: the golden event sequence' "$FIX/run-text.golden" text.norm
check 'agent_end counts the tokens of the one message' '
	jqs text.out "(map(select(.type == \"message_end\" and .message.role == \"assistant\"))
	    | .[0].usage.totalTokens) as \$t | \$t > 0 and .[-1].totalTokens == \$t"'
S=$(sid text.out)
check 'the session holds the prompt and the answer, as streamed' '
	is "$(roles "$S")" "user assistant " &&
	pi-sess context "$S" | tail -n 1 >last &&
	jq -c "select(.type == \"message_end\" and .message.role == \"assistant\").message" text.out >want &&
	jq -c . last | diff -u want -'
check 'the lock is released at the end' \
	'is "$(pi-sess show "$S" | jq -c .lock)" null'

# --- One tool, then the answer.
cat >one.faux <<'EOF'
{"content":[{"type":"text","text":"Reading."},{"type":"toolCall","id":"call_r","name":"read","arguments":{"file_path":"greeting.txt"}}],"usage":{"input":10,"output":5}}
{"content":[{"type":"text","text":"It says hello."}],"usage":{"input":20,"output":4}}
EOF
mkdir -p ws1 && cp "$WS/greeting.txt" ws1/ || exit 1
check_exit 'one tool, then an answer: exit 0' 0 \
	'(echo "$TMPR/ws1" >seen_ws && loop one.faux one.out -w ws1 -m faux/demo read it; rc=$?; rm seen_ws; exit $rc)'
norm one.out >one.norm
check_same 'one tool: the golden event sequence' "$FIX/run-one-tool.golden" one.norm
check 'I9: the assistant message_end comes before tool_execution_start' '
	a=$(at one.out ".type == \"message_end\" and .message.role == \"assistant\"") &&
	t=$(at one.out ".type == \"tool_execution_start\"") &&
	[ "$a" != null ] && [ "$t" != null ] && [ "$a" -lt "$t" ]'
S1=$(sid one.out)
check 'I9: the assistant message was in the session when the tool started' '
	jq -c "select(.type == \"message\") | .message | [.role, ([.content[]? | .id // empty])]" seen >seen.roles &&
	printf "%s\n" "[\"user\",[]]" "[\"assistant\",[\"call_r\"]]" | diff -u - seen.roles'
# The system prompt's text is checked below, not here: it lists the tools.
pi-sess log "$S1" | jq -c 'if .customType == "pi.system" then .data.text = "SYSTEM" else . end' |
	norm /dev/stdin >one.log
check_same 'one tool: the session log' "$FIX/run-one-tool.log" one.log
check 'the model read the result: the second call'"'"'s context holds it' '
	jqs llm.in.2 "map(select(.role == \"toolResult\")) |
	    length == 1 and .[0].toolCallId == \"call_r\" and .[0].isError == false and
	    .[0].content[0].text == \"hello from file\n\""'

# --- Parallel tools that finish out of order.
cat >par.faux <<'EOF'
{"content":[{"type":"toolCall","id":"call_a","name":"bash","arguments":{"command":"sleep 0.5; echo a"}},{"type":"toolCall","id":"call_b","name":"bash","arguments":{"command":"echo b"}}],"usage":{"input":10,"output":5}}
{"content":"both done","usage":{"input":20,"output":4}}
EOF
check_exit 'two bash calls in one message: exit 0' 0 \
	'loop par.faux par.out -w "$WS" -m faux/demo go'
check 'they ran at once: b'"'"'s tool_execution_end comes before a'"'"'s' '
	jq -r "select(.type | startswith(\"tool_execution_\")) | .type + \" \" + .toolCallId" par.out >ev &&
	a=$(grep -n "^tool_execution_end call_a" ev | cut -d: -f1) &&
	b=$(grep -n "^tool_execution_end call_b" ev | cut -d: -f1) &&
	s=$(grep -n "^tool_execution_start call_b" ev | cut -d: -f1) &&
	[ "$b" -lt "$a" ] && [ "$s" -lt "$a" ]'
check 'but the results are messages in call order: a, b' '
	jq -c "select(.type == \"message_end\" and .role == \"toolResult\") |
	    [.toolCallId, .message.toolCallId, .message.content[0].text]" par.out >res &&
	printf "%s\n" "[\"call_a\",\"call_a\",\"a\\n\"]" "[\"call_b\",\"call_b\",\"b\\n\"]" |
	diff -u - res'
check 'and the session'"'"'s entries are in call order too' \
	'is "$(roles "$(sid par.out)")" "user assistant toolResult:call_a toolResult:call_b assistant "'
check_exit '--parallel 1: exit 0' 0 \
	'loop par.faux par1.out -w "$WS" -m faux/demo --parallel 1 go'
check '--parallel 1: one after the other' '
	jq -r "select(.type | test(\"^tool_execution_(start|end)\$\")) | .type + \" \" + .toolCallId" par1.out | tr "\n" , >ev &&
	is "$(cat ev)" "tool_execution_start call_a,tool_execution_end call_a,tool_execution_start call_b,tool_execution_end call_b," &&
	is "$(roles "$(sid par1.out)")" "user assistant toolResult:call_a toolResult:call_b assistant "'

# Two calls of one message with the same id: one result per id.
cat >dup.faux <<'EOF'
{"content":[{"type":"toolCall","id":"dup","name":"ls","arguments":{}},{"type":"toolCall","id":"dup","name":"read","arguments":{"file_path":"greeting.txt"}}]}
"done"
EOF
check_exit 'two calls with one id: the run ends, exit 0' 0 \
	'PI_FAUX_SCRIPT=dup.faux timeout 30 pi-loop -w "$WS" -m faux/demo go >dup.out 2>dup.err'
check 'the second did not run, said so; one result for the id is stored' '
	jqs dup.out "[.[] | select(.type == \"tool_execution_end\")] | length == 2 and
	    (map(select(.error.code == \"duplicate_id\")) | length) == 1" &&
	is "$(roles "$(sid dup.out)")" "user assistant toolResult:dup assistant "'

# --- Three turns: tool, tool, answer.
cat >three.faux <<'EOF'
{"content":[{"type":"toolCall","id":"call_1","name":"ls","arguments":{}}],"usage":{"input":10,"output":5}}
{"content":[{"type":"toolCall","id":"call_2","name":"read","arguments":{"file_path":"greeting.txt"}}],"usage":{"input":20,"output":5}}
{"content":"three turns","usage":{"input":30,"output":3}}
EOF
check_exit 'three turns: exit 0' 0 'loop three.faux three.out -w "$WS" -m faux/demo go'
check 'three turns: turnIndex 0, 1, 2; totalTurns 3; the context grows' '
	jqs three.out "(map(select(.type == \"turn_start\")) | map([.turnIndex, .messages])) ==
	        [[0,1],[1,3],[2,5]] and
	    (map(select(.type == \"turn_end\")) | map([.turnIndex, .hasToolCalls, .shouldContinue, .terminationReason])) ==
	        [[0,true,true,null],[1,true,true,null],[2,false,false,\"no_tool_calls\"]] and
	    .[-1].totalTurns == 3 and .[-1].totalTokens == 73 and .[-1].exitCode == 0"'

# --- The tool policy: unknown and denied tools.
cat >deny.faux <<'EOF'
{"content":[{"type":"toolCall","id":"call_u","name":"frobnicate","arguments":{}},{"type":"toolCall","id":"call_d","name":"bash","arguments":{"command":"touch ran"}}],"usage":{"input":10,"output":5}}
{"content":"understood","usage":{"input":20,"output":4}}
EOF
check_exit '--deny-tools bash, and calls to no tool and to bash: exit 0' 0 \
	'loop deny.faux deny.out -w "$WS" -m faux/demo --deny-tools bash go'
norm deny.out >deny.norm
check_same 'denied and unknown: the golden event sequence' "$FIX/run-denied.golden" deny.norm
check 'agent_start.tools: all but bash' '
	jqs deny.out ".[0].tools == [\"read\",\"write\",\"edit\",\"ls\",\"grep\",\"find\",\"session_branch\",\"agent_interrupt\"]"'
check 'the model got no bash tool, read its error results, and bash never ran' '
	[ ! -e "$WS/ran" ] &&
	jqs llm.in.1 "map(select(.type == \"tool\").name) | index(\"bash\") == null and index(\"read\") != null" &&
	jqs llm.in.2 "map(select(.role == \"toolResult\") | [.toolCallId, .isError, .content[0].text]) ==
	    [[\"call_u\",true,\"Tool frobnicate not found\"],
	     [\"call_d\",true,\"Tool bash is not allowed in this run (policy).\"]]"'
check_exit '--tools read,ls: exit 0' 0 \
	'loop deny.faux tools.out -w "$WS" -m faux/demo --tools read,ls go'
check '--tools read,ls: only those offered; bash denied, the run goes on' '
	[ ! -e "$WS/ran" ] &&
	jqs tools.out ".[0].tools == [\"read\",\"ls\"] and
	    (map(select(.type == \"tool_execution_end\")) | map(.error.code)) == [\"unknown_tool\",\"denied_tool\"] and
	    .[-1].totalTurns == 2 and .[-1].terminationReason == \"no_tool_calls\""'
echo '{"scopes":["read"]}' >read.policy
check_exit '--policy with scopes ["read"]: exit 0' 0 \
	'loop deny.faux pol.out -w "$WS" -m faux/demo --policy read.policy go'
check 'the policy removes write, edit, bash (and session_branch)' '
	[ ! -e "$WS/ran" ] &&
	jqs pol.out ".[0].tools == [\"read\",\"ls\",\"grep\",\"find\",\"agent_interrupt\"] and
	    (map(select(.type == \"tool_execution_end\" and .toolCallId == \"call_d\")) | .[0].error.code) == \"denied_tool\" and
	    .[-1].exitCode == 0"'
check_exit 'a name in --tools that is no tool: exit 2' 2 \
	'loop deny.faux bad.out -w "$WS" -m faux/demo --tools read,frob go'
check 'said on stderr only, and no model call was made' \
	'grep -q "frob" bad.out.err && [ ! -e llm.in.1 ] && [ ! -s bad.out ]'
check_exit 'a name in --deny-tools that is no tool: exit 2' 2 \
	'loop deny.faux bad.out -w "$WS" -m faux/demo --deny-tools nosuch go'

# --- The loop's own tools.
cat >branch.faux <<'EOF'
{"content":[{"type":"toolCall","id":"call_br","name":"session_branch","arguments":{}}],"usage":{"input":10,"output":5}}
{"content":"branched","usage":{"input":20,"output":4}}
EOF
check_exit 'session_branch: exit 0' 0 'loop branch.faux branch.out -w "$WS" -m faux/demo go'
norm branch.out >branch.norm
check_same 'session_branch: the golden event sequence' "$FIX/run-branch.golden" branch.norm
SB=$(sid branch.out)
KID=$(jq -r 'select(.type == "tool_execution_end").output | capture("^Created session (?<k>[^,]+),").k' branch.out)
check 'pi-sess tree shows the new session as a child' '
	pi-sess --json tree "$SB" >tree &&
	jqs tree "map([.id, .level, .parentId]) == [[\"$SB\",0,null],[\"$KID\",1,\"$SB\"]]"'
check 'the run went on in the same session; the child stops at the call' '
	jqs branch.out "map(.sessionId // empty) | unique == [\"$SB\"]" &&
	is "$(roles "$SB")" "user assistant toolResult:call_br assistant " &&
	is "$(roles "$KID")" "user assistant "'
check '-c then goes on in that session, not in the branch made during the run' '
	printf "%s\n" "\"branched\"" "\"branched\"" "\"on\"" >on.faux &&
	loop on.faux on.out -c -w "$WS" -m faux/demo on && is "$(sid on.out)" "$SB" &&
	is "$(roles "$KID")" "user assistant "'
cat >int.faux <<'EOF'
{"content":[{"type":"toolCall","id":"call_i","name":"agent_interrupt","arguments":{"reason":"cannot go on"}},{"type":"toolCall","id":"call_x","name":"bash","arguments":{"command":"touch after"}}],"usage":{"input":10,"output":5}}
{"content":"never","usage":{"input":20,"output":4}}
EOF
check_exit 'agent_interrupt: exit 130' 130 'loop int.faux int.out -w "$WS" -m faux/demo go'
check 'abort_signal; the call after it never ran, and no model call followed' '
	[ ! -e "$WS/after" ] && [ ! -e llm.in.2 ] &&
	jqs int.out ".[-1] | .type == \"agent_end\" and .terminationReason == \"abort_signal\" and
	    .exitCode == 130 and .totalTurns == 1 and (.error.message | contains(\"cannot go on\"))" &&
	jqs int.out "map(select(.type == \"tool_execution_end\") | [.toolCallId, .success, .error.code]) ==
	    [[\"call_i\",true,null],[\"call_x\",false,\"aborted\"]]" &&
	is "$(roles "$(sid int.out)")" "user assistant toolResult:call_i toolResult:call_x "'
check 'the lock is released after an abort' \
	'is "$(pi-sess show "$(sid int.out)" | jq -c .lock)" null'
cat >grace.faux <<'EOF'
{"content":[{"type":"toolCall","id":"call_s","name":"bash","arguments":{"command":"sleep 30"}},{"type":"toolCall","id":"call_i","name":"agent_interrupt","arguments":{"reason":"stop now"}}],"usage":{"input":10,"output":5}}
"never"
EOF
check_exit 'agent_interrupt while a tool runs: exit 130' 130 \
	'loop grace.faux grace.out -w "$WS" -m faux/demo --grace 0.2 go'
check 'the running tool was stopped after --grace; results in call order' '
	jqs grace.out "(map(select(.type == \"tool_execution_end\")) | map([.toolCallId, .success, .error.code])) ==
	        [[\"call_i\",true,null],[\"call_s\",false,\"aborted\"]] and
	    (map(select(.type == \"message_end\" and .role == \"toolResult\")) | map(.toolCallId)) ==
	        [\"call_s\",\"call_i\"] and .[-1].durationMs < 10000"'

# --- -p: the answer only.
check_exit '-p: exit 0' 0 '(RAW=1 && loop one.faux p.out -p -w "$WS" -m faux/demo read it)'
check '-p: only the final answer, no events' \
	'printf "It says hello.\n" | diff -u - p.out'
echo '{"content":"x","error":{"type":"invalid_request_error","message":"no way"}}' >refuse.faux
echo '{"role":"user","content":"hi"}' | pi-llm -m faux/demo --faux-script refuse.faux >/dev/null 2>&1
LLM_RC=$?
check_exit '-p with a failing model: pi-llm'"'"'s status (5)' 5 \
	'(RAW=1 && loop refuse.faux pf.out -p -w "$WS" -m faux/demo hi; rc=$?
	  [ "$rc" -eq "$LLM_RC" ] || { echo "pi-llm alone: $LLM_RC"; exit 98; }; exit $rc)'
check '-p with a failing model: the error on stderr, nothing on stdout' \
	'[ ! -s pf.out ] && grep -q "no way" pf.out.err'
echo '{"content":"partial text here","chunkSize":4,"error":{"type":"invalid_request_error","message":"refused","after":2}}' >late.faux
check_exit '-p, a model that fails after some text: exit 5' 5 \
	'(RAW=1 && loop late.faux pl.out -p -w "$WS" -m faux/demo hi)'
check '... and its partial text is not printed as an answer' '[ ! -s pl.out ]'

echo '"fine"' >fine.faux
check_exit 'a prompt on stdin: exit 0' 0 \
	'printf "from\\nstdin\\n" | loop fine.faux in.out -w "$WS" -m faux/demo'
check 'the prompt is stdin, less its final newline' '
	jqs in.out "map(select(.type == \"message_end\" and .role == \"user\").message.content[0].text) ==
	    [\"from\nstdin\"]"'

# --- Sessions.
mkdir -p nstmp || exit 1
check_exit '--no-session: exit 0' 0 \
	'(TMPDIR=$TMP/nstmp XDG_DATA_HOME=$TMP/nsdata && export TMPDIR XDG_DATA_HOME &&
	  loop one.faux ns.out --no-session -w "$WS" -m faux/demo read it)'
check '--no-session: it had a session, and left no database behind' '
	[ -n "$(sid ns.out)" ] && [ "$(jq -s "map(select(.type == \"message_end\")) | length" ns.out)" -eq 4 ] &&
	[ ! -e "$TMP/nsdata" ] && [ -z "$(find "$TMP/nstmp" -name "*.db*" -o -name "pi-loop.*")" ] &&
	! pi-sess show "$(sid ns.out)" >/dev/null 2>&1'
mkdir -p wsc wsd || exit 1
cat >c2.faux <<'EOF'
"first answer"
"second answer"
EOF
loop c2.faux c1.out -w wsc -m faux/demo first >/dev/null || echo "# the first run of -c failed" >&2
check_exit '-c: exit 0' 0 'loop c2.faux c2.out -c -w wsc -m faux/demo --verbose-context second'
check '-c: the same session, resumed; the context holds the first run' '
	is "$(sid c2.out)" "$(sid c1.out)" &&
	jqs c2.out ".[0].resumedFrom == \"$(sid c1.out)\" and
	    (map(select(.type == \"turn_start\")) | .[0].messages | map([.role, (.content | if type == \"string\" then . else .[0].text end)])) ==
	    [[\"user\",\"first\"],[\"assistant\",\"first answer\"],[\"user\",\"second\"]]" &&
	is "$(roles "$(sid c1.out)")" "user assistant user assistant "'
check '-c in another workspace: a new session of its own' '
	loop c2.faux d.out -c -w wsd -m faux/demo other &&
	[ "$(sid d.out)" != "$(sid c1.out)" ] && jqs d.out ".[0] | has(\"resumedFrom\") | not"'
check_exit '-s with an unknown session: exit 3' 3 'loop c2.faux s.out -s nosuch -w "$WS" -m faux/demo hi'
check '-s unknown: an error and an agent_end line, no model call' '
	[ ! -e llm.in.1 ] && grep -q nosuch s.out.err &&
	jqs s.out "map(.type) == [\"error\",\"agent_end\"] and (.[0].message | contains(\"nosuch\")) and
	    .[1].exitCode == 3 and .[1].terminationReason == \"error\""'
SC=$(sid c1.out)
sleep 60 &
HOLDER=$!
trap 'kill -KILL "$HOLDER" 2>/dev/null; fake_stop; rm -rf "$TMP"' EXIT
check 'a live process holds the lock of the session' 'pi-sess lock --pid "$HOLDER" "$SC"'
check_exit 'a run of a locked session: exit 75' 75 'loop c2.faux l.out -s "$SC" -w "$WS" -m faux/demo hi'
check 'locked: an error and agent_end, no model call; the lock stays the holder'"'"'s' '
	[ ! -e llm.in.1 ] &&
	jqs l.out "map(.type) == [\"error\",\"agent_end\"] and .[0].recoverable == true and .[1].exitCode == 75" &&
	is "$(pi-sess show "$SC" | jq .lock.pid)" "$HOLDER"'
kill -KILL "$HOLDER"; wait "$HOLDER" 2>/dev/null
check '-s with a prefix: resumed, the dead holder'"'"'s lock taken over, then released' '
	printf "%s\n" "\"third answer\"" >>c2.faux &&
	loop c2.faux l2.out -s "$(echo "$SC" | cut -c1-30)" -w "$WS" -m faux/demo third &&
	is "$(sid l2.out)" "$SC" && grep -q "pid $HOLDER, which is gone" l2.out.err &&
	is "$(pi-sess show "$SC" | jq -c .lock)" null'

# --- The system prompt.
sysline() { jq -r 'select(.type == "system").text' "$1"; }
check 'the default prompt lists the tools the model has, and only those' '
	loop c2.faux x.out -w "$WS" -m faux/demo hi && sysline llm.in.1 >sys &&
	grep -q "^- read: " sys && grep -q "^- session_branch: " sys && grep -q "^- agent_interrupt: " sys &&
	loop deny.faux x.out -w "$WS" -m faux/demo --deny-tools bash,edit go &&
	sysline llm.in.1 >sys2 && grep -q "^- read: " sys2 && ! grep -q "^- bash:" sys2 &&
	! grep -q "^- edit:" sys2 && grep -q "^- bash: " sys'
mkdir -p proj/sub || exit 1
echo 'PARENT RULES' >proj/AGENTS.md && echo 'WORKSPACE RULES' >proj/sub/AGENTS.md || exit 1
# The date is part of the prompt: pinned, so that it cannot change between runs.
check_exit 'AGENTS.md of the workspace and its parent: exit 0' 0 \
	'(PI_CLOCK_FIXED=1795000000000 && export PI_CLOCK_FIXED && loop c2.faux ag.out -w proj/sub -m faux/demo hi)'
check 'both included, under # Project Context, the parent first' '
	sysline llm.in.1 >sys && grep -q "^# Project Context" sys &&
	p=$(grep -n "^PARENT RULES" sys | cut -d: -f1) && w=$(grep -n "^WORKSPACE RULES" sys | cut -d: -f1) &&
	[ "$p" -lt "$w" ] && grep -q "^## $TMPR/proj/AGENTS.md" sys &&
	grep -q "^Current working directory: $TMPR/proj/sub$" sys'
check 'the prompt is recorded: pi-sess context has the system line pi-llm got' '
	pi-sess context "$(sid ag.out)" | sysline /dev/stdin >rec && sysline llm.in.1 | diff -u - rec'
check 'a second run with the same prompt does not record it again' '
	(PI_CLOCK_FIXED=1795000000000 && export PI_CLOCK_FIXED && loop c2.faux ag2.out -c -w proj/sub -m faux/demo again) &&
	is "$(sid ag2.out)" "$(sid ag.out)" &&
	is "$(pi-sess log "$(sid ag.out)" | jq -s "map(select(.type == \"custom\")) | length")" 1'
check 'a changed prompt is recorded again, and the context has the new one' '
	(PI_CLOCK_FIXED=1795000000000 && export PI_CLOCK_FIXED &&
	 loop c2.faux ag3.out -c -w proj/sub -m faux/demo --append-system "MORE RULES" again) &&
	is "$(pi-sess log "$(sid ag.out)" | jq -s "map(select(.type == \"custom\")) | length")" 2 &&
	pi-sess context "$(sid ag.out)" | sysline /dev/stdin | grep -q "^MORE RULES"'
echo 'SYSTEM FROM FILE' >sys.txt && echo 'APPENDED FROM FILE' >app.txt || exit 1
check '--system replaces the default; --append-system adds after it' '
	loop c2.faux sy.out -w "$WS" -m faux/demo --system "You are terse." --append-system "Also polite." hi &&
	sysline llm.in.1 >sys && is "$(head -n 1 sys)" "You are terse." &&
	! grep -q "Available tools" sys && grep -q "^Also polite.$" sys &&
	[ "$(grep -n "^Also polite" sys | cut -d: -f1)" -gt 1 ]'
check '@FILE forms read the files' '
	loop c2.faux sf.out -w "$WS" -m faux/demo --system @sys.txt --append-system @app.txt hi &&
	sysline llm.in.1 >sys && is "$(head -n 1 sys)" "SYSTEM FROM FILE" &&
	grep -q "^APPENDED FROM FILE$" sys && ! grep -q "Available tools" sys'
check '--append-system alone keeps the default prompt' '
	loop c2.faux sa.out -w "$WS" -m faux/demo --append-system @app.txt hi &&
	sysline llm.in.1 >sys && grep -q "^- read: " sys && grep -q "^APPENDED FROM FILE$" sys'
check_exit '--system @FILE that does not exist: exit 2' 2 \
	'loop c2.faux sn.out -w "$WS" -m faux/demo --system @nowhere.txt hi'
check '--system @DIR, and an AGENTS.md over 1 MiB: said, never read in part' '
	mkdir -p adir big && ! loop c2.faux sd.out -w "$WS" -m faux/demo --system @adir hi &&
	grep -q "@adir: Is a directory" sd.out.err &&
	head -c 1100000 /dev/zero | tr "\\0" a >big/AGENTS.md &&
	loop c2.faux bg.out -w big -m faux/demo hi &&
	grep -q "big/AGENTS.md: larger than 1 MiB; left out" bg.out.err &&
	sysline llm.in.1 >sys && ! grep -q "Project Context" sys'
check 'it is said before a session is made: none is' '
	mkdir -p ws9 && (cd ws9 && PI_FAUX_SCRIPT=c2.faux pi-loop -m faux/demo \
	    --system @nowhere.txt hi >/dev/null 2>&1; [ $? = 2 ]) &&
	[ -z "$(pi-sess ls --cwd "$PWD/ws9")" ]'

# --- The stage overrides.
check_exit 'PI_SESS, PI_LLM, PI_TOOL wrappers: exit 0' 0 \
	'(PI_SESS=$TMP/sess && export PI_SESS && loop one.faux st.out -w "$WS" -m faux/demo read it)'
check 'the pi-sess wrapper ran every verb: new, lock, append, context, unlock' '
	S=$(sid st.out) &&
	grep -q "^new --cwd $TMPR/ws$" sess.argv && grep -q "^lock --pid [0-9]* $S$" sess.argv &&
	grep -q "^append --follow $S$" sess.argv && grep -q "^context $S$" sess.argv &&
	grep -q "^unlock --pid [0-9]* $S$" sess.argv'
check 'the pi-llm and pi-tool wrappers ran each call' '
	[ "$(wc -l <pids)" -eq 4 ] &&
	is "$(cat llm.argv | tr "\n" ,)" "-m faux/demo --idle-timeout 120,-m faux/demo --idle-timeout 120," &&
	is "$(cut -d" " -f1-4 tool.argv | tr "\n" ,)" "--list -w $TMPR/ws --deny-read,-w $TMPR/ws --deny-read $TMPR/pi/sessions.db,"'

# --- Usage errors: exit 2, nothing on stdout.
check_exit 'no prompt and no session: exit 2' 2 \
	'(loop c2.faux u.out -w "$WS" -m faux/demo </dev/null; rc=$?
	  [ ! -s u.out ] && grep -q "no prompt" u.out.err && exit $rc)'
check_exit '-s with -c: exit 2' 2 \
	'(loop c2.faux u.out -s "$SC" -c -m faux/demo hi; rc=$?; [ ! -s u.out ] && exit $rc)'
check_exit '--rpc with a prompt: exit 2' 2 \
	'(loop c2.faux u.out --rpc -m faux/demo hi </dev/null; rc=$?; [ ! -s u.out ] && exit $rc)'
check_exit 'a bad -t: exit 2' 2 \
	'(loop c2.faux u.out -t warm -m faux/demo hi; rc=$?
	  [ ! -s u.out ] && grep -q warm u.out.err && exit $rc)'
done_testing
