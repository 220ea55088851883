#!/bin/sh
# pi-loop killed with SIGKILL at varying points of a run with tool turns:
# its model call, its tools and their sandboxes die with it, the session
# stays consistent, and a resumed run completes; calls left without a
# result reach the model with synthetic error results (made by pi-llm as
# it prepares the context, so they show in the provider request, not in
# pi-llm's stdin).  Then a resume without a prompt after a tool result.
. "$(dirname "$0")/lib.sh"
plan 17

PI_CLOCK_FIXED=1700000000000 OPENAI_API_KEY=k-test
export PI_CLOCK_FIXED OPENAI_API_KEY
MARK=$$
N=15			# runs killed

# Where the sandbox cannot be built, the tools run degraded.
DEG=
mkdir w0 && printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w w0 >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# A pi-llm that keeps its stdin as $LLM_IN (exec: the same process).
cat >llm <<'EOF'
#!/bin/sh
case " $* " in *" --list-models "*) exec pi-llm "$@" ;; esac
cat >"$LLM_IN" && exec pi-llm "$@" <"$LLM_IN"
EOF
chmod +x llm

# script M: three turns of two bash calls (30 and 60 ms; the first also
# leaves a sleep in its sandbox), then an answer.  M marks the processes.
# A call ends only when there is no file "gate" in the workspace: the test
# makes one just before a kill, so that whatever is not killed stays.
HOLD='while [ -e gate ]; do sleep 0.005; done'
script() {
	for t in 1 2 3; do
		printf '{"content":[{"type":"text","text":"Step %s of three."},' $t
		printf '{"type":"toolCall","name":"bash","arguments":{"command":"(exec -a m4040-%s- sleep 30) >/dev/null 2>&1 & sleep 0.03; %s; echo a%s # m4040-%s-"}},' "$1" "$HOLD" $t "$1"
		printf '{"type":"toolCall","name":"bash","arguments":{"command":"sleep 0.06; %s; echo b%s # m4040-%s-"}}],' "$HOLD" $t "$1"
		printf '"delayMs":5,"usage":{"input":100,"output":10}}\n'
	done
	echo '{"content":"All three steps done.","delayMs":5,"usage":{"input":100,"output":10}}'
}
# The same for a model call: PI_LLM waits while $LLM_GATE is there before
# it becomes pi-llm (exec: one process, the one pi-loop made).
cat >llmgate <<'EOF'
#!/bin/sh
while [ -e "$LLM_GATE" ]; do sleep 0.005; done
exec pi-llm "$@"
EOF
chmod +x llmgate
# procs M WS: the live processes of run M: by its environment (pi-llm,
# pi-tool, the recorder), by the marker of its commands (the tools'
# processes) or by its workspace (pi-tool's sandbox).  "pid comm" lines.
procs() {
	{ grep -lsxz "PI_T4040=$1" /proc/[0-9]*/environ
	  grep -lsz "m4040-$1[-]" /proc/[0-9]*/cmdline
	  grep -lsxz "$2" /proc/[0-9]*/cmdline; } 2>/dev/null |
	sed 's|^/proc/\([0-9]*\)/.*|\1|' | sort -u | while read -r p; do
		c=$(cat "/proc/$p/comm" 2>/dev/null) && [ "$c" != grep ] &&
			echo "$p $c"
	done
}
# survivors M WS: those but the recorder, which is meant to finish its work.
survivors() { procs "$1" "$2" | grep -v ' pi-sess$'; }
# gone M WS: wait (at most 1 s) until no survivor is left; say who is.
gone() {
	t=0
	while [ -n "$(survivors "$1" "$2")" ]; do
		[ $((t += 1)) -le 100 ] || { survivors "$1" "$2"; return 1; }
		sleep 0.01
	done
}
# running PID: PID is a process, not a zombie.
running() {
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	case $st in Z*|X*) return 1 ;; esac
	echo "$1 is still there: $st"
}
# missing FILE: the ids of the calls that have no result in the messages
# pi-llm read (FILE: its stdin), failed and aborted messages left out.
MISSING='reduce (.[] | select(.role != null)) as $m ({open: [], miss: []};
	if $m.role == "assistant" then .miss += .open |
	    .open = (if $m.stopReason == "error" or $m.stopReason == "aborted" then []
		else [$m.content[]? | select(.type == "toolCall") | .id] end)
	elif $m.role == "toolResult" then .open -= [$m.toolCallId]
	else .miss += .open | .open = [] end) | .miss + .open | sort'
# In the request to the provider, each call is followed by its result.
PAIRED='.body.messages as $ms | [range(0; $ms | length) as $j | $ms[$j] |
	select(.role == "assistant" and (.tool_calls | length) > 0) |
	[.tool_calls[].id] as $ids |
	[$ms[$j + 1:$j + 1 + ($ids | length)][] | select(.role == "tool") |
	    .tool_call_id] == $ids] | all'
SYNTH='[.body.messages[] | select(.role == "tool" and
	.content == "No result provided") | .tool_call_id] | sort'
printf '[{"file":"%s"}]\n' "$ROOT/tests/fixtures/openai/text.sse" >plan.json

# A whole run first: how many lines it writes, and that a run that ends
# leaves nothing behind (the sandbox's stray sleep included).
W=$(cd w0 && pwd -P)
script "$MARK-0" >k0.faux
check_exit 'a whole run: three tool turns and an answer, exit 0' 0 '
	PI_T4040=$MARK-0 PI_FAUX_SCRIPT=$TMP/k0.faux pi-loop -m faux/demo -w "$W" $DEG \
	    "go" </dev/null >k0.out 2>k0.err &&
	jqs k0.out ".[-1].terminationReason == \"no_tool_calls\" and
	    ([.[] | select(.type == \"tool_execution_end\" and .success)] | length == 6)"'
T=$(wc -l <k0.out)
check 'when it ends, none of its processes is left' 'gone "$MARK-0" "$W"'

# Killed while its model call waits (a reply that takes 3 s to start).
cat >llmpid <<'EOF'
#!/bin/sh
case " $* " in *" --list-models "*) exec pi-llm "$@" ;; esac
echo $$ >"$LLM_PID.tmp" && mv "$LLM_PID.tmp" "$LLM_PID" && exec pi-llm "$@"
EOF
chmod +x llmpid
echo '{"content":"Too late.","delayMs":3000}' >slow.faux
mkdir ws && W=$(cd ws && pwd -P)
PI_T4040=$MARK-s PI_FAUX_SCRIPT=$TMP/slow.faux PI_LLM="exec $TMP/llmpid" LLM_PID=$TMP/llm.pid \
	pi-loop -m faux/demo -w "$W" $DEG "go" </dev/null >slow.out 2>slow.err &
pid=$!
check 'a model call is under way' wait_until 'test -s llm.pid'
kill -KILL $pid
wait $pid 2>/dev/null
check 'pi-loop killed: its pi-llm is gone at once (not 3 s later)' '
	gone "$MARK-s" "$W" && ! running "$(cat llm.pid)"'

# Killed after the k-th line of stdout, k spread over the whole run;
# each then resumed with "finish" through the OpenAI protocol, pi-llm's
# stdin kept.  One line per run in runs: i k rc survivors recorder check
# resumed paired synthetic-as-expected missing.
: >runs
mkfifo fifo || exit 1
i=1
while [ $i -le $N ]; do
	k=$((1 + (i - 1) * (T - 2) / (N - 1)))
	m=$MARK-$i
	mkdir "w$i" && W=$(cd "w$i" && pwd -P)
	script "$m" >"k$i.faux"
	PI_T4040=$m PI_FAUX_SCRIPT=$TMP/k$i.faux PI_LLM="exec $TMP/llmgate" \
	LLM_GATE=$W/gate pi-loop -m faux/demo -w "$W" $DEG "go" </dev/null >fifo 2>"k$i.err" &
	pid=$!
	exec 3<fifo
	n=0
	: >"k$i.out"
	while [ $n -lt $k ] && IFS= read -r line <&3; do
		printf '%s\n' "$line" >>"k$i.out"
		n=$((n + 1))
	done
	: >"$W/gate"
	kill -KILL $pid
	wait $pid 2>/dev/null	# not "Killed" on stderr
	rc=$?
	exec 3<&-
	gone "$m" "$W" >"surv$i" && surv=0 || surv=1
	rm "$W/gate"
	# The recorder stores what it was given and ends at EOF.
	wait_until '[ -z "$(procs "$m" "$W")" ]' && rec=0 || rec=1
	S=$(sid "k$i.out")
	pi-sess --json check >"chk$i" && jq -e .ok "chk$i" >/dev/null && chk=0 || chk=1
	fake_start plan.json
	PI_LLM="exec $TMP/llm" LLM_IN=$TMP/in$i pi-loop -s "$S" -m openai/gpt-4.1 \
		--base-url "$FAKE_URL/v1" -w "$W" $DEG "finish" </dev/null >"f$i.out" 2>"f$i.err" &&
	    jqs "f$i.out" ".[-1].type == \"agent_end\" and .[-1].terminationReason ==
		\"no_tool_calls\" and .[-1].exitCode == 0 and
		.[0].resumedFrom == \"$S\"" >/dev/null && res=0 || res=1
	cp "$(fake_req 1)" "req$i.json" 2>/dev/null
	fake_stop
	jq -e "$PAIRED" "req$i.json" >/dev/null 2>&1 && pair=0 || pair=1
	jq -sc "$MISSING" "in$i" >"miss$i" 2>/dev/null
	jq -c "$SYNTH" "req$i.json" >"synth$i" 2>/dev/null
	cmp -s "miss$i" "synth$i" && [ -s "miss$i" ] && syn=0 || syn=1
	echo "$i $k $rc $surv $rec $chk $res $pair $syn $(jq length "miss$i" 2>/dev/null)" >>runs
	i=$((i + 1))
done
# failed COLUMN WANT: the runs where COLUMN is not WANT, with what was seen.
failed() {
	awk -v c="$1" -v w="$2" 'BEGIN { print "i k rc survivors recorder check resumed paired synth missing" }
	    $c != w { print; n++ } END { exit n == 0 }' runs
}
none_failed() { ! failed "$@" >bad || { cat bad; return 1; }; }
check "$N runs, each killed by SIGKILL (137) before its end (line $T)" '
	is "$(wc -l <runs | tr -d " ")" $N && none_failed 3 137'
check 'every line each wrote before the kill is a JSON object' '
	for i in $(seq $N); do jq_lines "k$i.out" || { echo "run $i:"; cat "k$i.out"; return 1; }; done'
check 'no pi-llm, pi-tool or sandbox process outlives its pi-loop' '
	none_failed 4 0 || { for i in $(seq $N); do sed "s/^/run $i: /" "surv$i"; done; false; }'
check 'the recorder finishes what it was given and ends' 'none_failed 5 0'
check 'pi-sess check passes after every kill' '
	none_failed 6 0 || { cat chk*; false; }'
check 'every resumed run ("finish") completes: no_tool_calls, exit 0' '
	none_failed 7 0 || { tail -n 3 f*.err; false; }'
check 'in every request after a resume, each call is followed by its result' 'none_failed 8 0'
check 'calls without a result got "No result provided", and only those' '
	none_failed 9 0 ||
	{ for i in $(seq $N); do echo "run $i: missing $(cat miss$i), synthetic $(cat synth$i)"; done; false; }'
check 'some kills left calls without a result (at least 2 of the runs)' '
	awk "\$10 > 0" runs >with && [ "$(wc -l <with)" -ge 2 ] || { cat runs; false; }'
check 'the database is consistent after all of it' '
	pi-sess --json check >chk.end && jqs chk.end ".[0].ok"'

# A resume without a prompt, when the session ends with a tool result
# (--max-turns 1 stopped it there): the model is called again.
mkdir wr && W=$(cd wr && pwd -P)
cat >one.faux <<'EOF'
{"content":[{"type":"toolCall","id":"r1","name":"bash","arguments":{"command":"echo ran"}}],"usage":{"input":100,"output":10}}
{"content":"It ran; finished.","usage":{"input":100,"output":10}}
EOF
check_exit 'a run stopped by --max-turns 1 after a tool: exit 8' 8 '
	PI_FAUX_SCRIPT=$TMP/one.faux pi-loop -m faux/demo -w "$W" $DEG --max-turns 1 "run it" \
	    </dev/null >r1.out 2>r1.err'
S=$(sid r1.out)
check_exit 'pi-loop -s S, no prompt: exit 0' 0 '
	pi-sess context "$S" >r.ctx && jqs r.ctx ".[-1].role == \"toolResult\"" &&
	PI_LLM="exec $TMP/llm" LLM_IN=$TMP/r.in PI_FAUX_SCRIPT=$TMP/one.faux \
	    pi-loop -m faux/demo -s "$S" -w "$W" $DEG </dev/null >r2.out 2>r2.err'
check 'the model read the context ending in the result; no new user message; answered' '
	jqs r.in "[.[] | select(.role != null)] | map(.role) == [\"user\", \"assistant\", \"toolResult\"]" &&
	jqs r2.out "([.[] | select(.type == \"message_start\" and .role == \"user\")] | length == 0) and
	    .[0].resumedFrom == \"$S\" and .[-1].terminationReason == \"no_tool_calls\" and
	    .[-1].totalTurns == 1" &&
	pi-sess context "$S" >r.ctx && jqs r.ctx ".[-1] | .role == \"assistant\" and
	    .content == [{type: \"text\", text: \"It ran; finished.\"}]"'

done_testing
