#!/bin/sh
# Sub-agents: pi-loop --parent S runs in a child session of S; aborting
# the parent's run stops a child's run too, but a child that ends leaves
# the parent alone; --no-session runs side by side do not meet.
. "$(dirname "$0")/lib.sh"
plan 13

MARK=$$
mkdir ws && WS=$(cd ws && pwd -P) || exit 1

# Where the sandbox cannot be built, the tools run degraded.
DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# loop NAME SCRIPT OPTION...: a run (pi-loop itself, so that a signal
# reaches it) in the background; pid in $pid.
bg() {
	n=$1 s=$2
	shift 2
	PI_FAUX_SCRIPT=$TMP/$s pi-loop -m faux/demo -w "$WS" $DEG "$@" \
		</dev/null >"$n.out" 2>"$n.err" &
	pid=$!
}
loop() { bg "$@"; wait $pid; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# A call, then an answer.
cat >quick.faux <<'EOF'
{"content":[{"type":"toolCall","id":"q1","name":"bash","arguments":{"command":"echo quick"}}],"usage":{"input":100,"output":10}}
{"content":"Quick job done.","usage":{"input":100,"output":10}}
EOF
loop parent quick.faux "be the parent"
S=$(sid parent.out)
pi-sess log "$S" >parent.log
check_exit 'pi-loop --parent S: exit 0' 0 'loop child quick.faux --parent "$S" "be the child"'
C=$(sid child.out)
check 'agent_start names the parent; the child session is a new one' '
	jqs child.out ".[0].parentSessionId == \"$S\" and .[0].sessionId != \"$S\" and
	    (.[0].sessionId | length) == 36 and .[-1].exitCode == 0"'
check 'pi-sess tree: the child at level 1 under S' '
	pi-sess --json tree "$S" >tree &&
	jqs tree "map(select(.id == \"$C\")) == map(select(.id == \"$C\" and .level == 1 and
	    .parentId == \"$S\")) and (map(select(.id == \"$C\")) | length == 1) and
	    (map(select(.id == \"$S\"))[0].level == 0)"'
check 'the child'"'"'s messages are its own; the parent'"'"'s path is unchanged' '
	pi-sess log "$S" >parent.log2 && cmp parent.log parent.log2 &&
	pi-sess context "$C" >child.ctx &&
	jqs child.ctx "[.[] | select(.role != null) | .role] == [\"user\", \"assistant\", \"toolResult\", \"assistant\"]
	    and ([.[] | select(.role == \"user\")][0].content[0].text == \"be the child\")"'

# Abort: the parent and a child both run a slow tool; SIGTERM to the
# parent's pi-loop stops both, the child within its grace and a margin.
cat >slowp.faux <<EOF
{"content":[{"type":"toolCall","id":"sp","name":"bash","arguments":{"command":"touch p.started; sleep 29.${MARK}1"}}],"usage":{"input":100,"output":10}}
"unreachable"
EOF
cat >slowc.faux <<EOF
{"content":[{"type":"toolCall","id":"sc","name":"bash","arguments":{"command":"touch c.started; sleep 29.${MARK}2"}}],"usage":{"input":100,"output":10}}
"unreachable"
EOF
bg pab slowp.faux --grace 1 "slow parent work"
ppid=$pid
wait_until 'test -s pab.out'
P=$(sid pab.out)
bg cab slowc.faux --parent "$P" --grace 1 "slow child work"
cpid=$pid
check 'the parent and the child both run their slow tool' '
	wait_until "test -e ws/p.started && test -e ws/c.started" &&
	wait_until "alive \"sleep 29.${MARK}1\" && alive \"sleep 29.${MARK}2\""'
t0=$(now_ms)
kill -TERM $ppid
wait $ppid
prc=$?
wait $cpid
crc=$?
t1=$(now_ms)
check 'the parent: exit 143, abort_signal' '
	is $prc 143 && jqs pab.out ".[-1] | .type == \"agent_end\" and
	    .terminationReason == \"abort_signal\" and .exitCode == 143"'
check 'the child stopped too: exit 143, abort_signal (SIGTERM), within 1 s grace + 3 s' '
	is $crc 143 && jqs cab.out ".[-1] | .type == \"agent_end\" and
	    .terminationReason == \"abort_signal\" and .exitCode == 143 and
	    .error.message == \"interrupted by SIGTERM\"" &&
	[ $((t1 - t0)) -lt 4000 ] || { echo "took $((t1 - t0)) ms"; false; }'
check 'both slow tools are gone' '! alive "sleep 29.${MARK}1" && ! alive "sleep 29.${MARK}2"'

# A child that ends while the parent's tool runs: the parent goes on.
# Its tool waits for the file "hold" to go (at most 10 s).
cat >held.faux <<'EOF'
{"content":[{"type":"toolCall","id":"h1","name":"bash","arguments":{"command":"touch h.started; i=0; while [ -e hold ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done; [ -e hold ] && echo timeout || echo released"}}],"usage":{"input":100,"output":10}}
"The parent went on."
EOF
: >ws/hold
bg held held.faux "wait for the hold"
hpid=$pid
check_exit 'while the parent'"'"'s tool runs, a child runs to its end: exit 0' 0 '
	wait_until "test -e ws/h.started" && P=$(sid held.out) &&
	loop child2 quick.faux --parent "$P" "short child" &&
	test -e ws/hold && jqs child2.out ".[-1].terminationReason == \"no_tool_calls\""'
rm -f ws/hold
wait $hpid
hrc=$?
check 'the parent was not stopped: its tool released, its answer, exit 0' '
	is $hrc 0 && jqs held.out ".[-1].terminationReason == \"no_tool_calls\" and
	    ([.[] | select(.type == \"tool_execution_end\")] | length == 1 and .[0].success and
	     .[0].output == \"released\n\") and
	    .[-2].type == \"turn_end\" and ([.[] | select(.type == \"compaction_start\" or
	     (.type == \"error\"))] | length == 0)"'

# Five --no-session runs at once (xargs -P 5), in one workspace: each
# tool waits until all five have started, so they did run together.
mkdir ns nstmp
cat >one <<'EOF'
#!/bin/sh
n=$1
cat >"ns$n.faux" <<EOS
{"content":[{"type":"toolCall","id":"n$n","name":"bash","arguments":{"command":"touch started-$n; i=0; until [ \$(ls | grep -c '^started-') -ge 5 ] || [ \$i -ge 1000 ]; do sleep 0.01; i=\$((i + 1)); done; echo job-$n saw \$(ls | grep -c '^started-')"}}],"usage":{"input":100,"output":10}}
{"content":"Job $n done.","usage":{"input":100,"output":10}}
EOS
PI_FAUX_SCRIPT=$PWD/ns$n.faux pi-loop -m faux/demo --no-session -w ns $DEG "job $n" \
	</dev/null >"ns$n.out" 2>"ns$n.err"
EOF
check_exit 'five --no-session runs at once: all exit 0' 0 '
	printf "%s\n" 1 2 3 4 5 | XDG_DATA_HOME=$TMP/nsdata TMPDIR=$TMP/nstmp DEG=$DEG \
	    xargs -P 5 -n 1 sh ./one'
check 'each its own session, call and answer; all five ran together' '
	for n in 1 2 3 4 5; do
		jqs ns$n.out "(.[-1] | .terminationReason == \"no_tool_calls\" and .exitCode == 0) and
		    ([.[] | select(.type == \"tool_execution_end\")] | length == 1 and
		     .[0].toolCallId == \"n$n\" and .[0].output == \"job-$n saw 5\n\") and
		    ([.[] | select(.type == \"message_end\" and .message.role == \"assistant\")][-1].message.content ==
		     [{type: \"text\", text: \"Job $n done.\"}])" || return 1
	done &&
	is "$(cat ns?.out | jq -r "select(.type == \"agent_start\").sessionId" | sort -u | wc -l | tr -d " ")" 5'
# (pi-tool keeps full outputs in $TMPDIR/pi-tool-output.UID, shared.)
check 'nothing left behind: no database made, the temporary ones removed' '
	test ! -e nsdata && [ -z "$(ls -A nstmp | grep -v "^pi-tool-output\.")" ] &&
	for n in 1 2 3 4 5; do ! pi-sess show "$(sid ns$n.out)" >/dev/null 2>&1 || return 1; done'

done_testing
