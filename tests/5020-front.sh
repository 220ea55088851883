#!/bin/sh
# pi, the front: a prompt runs pi-loop -c ... | pi-view (the workspace's
# session goes on; -n starts another; -s, -c, --new and --no-session
# leave the choice to pi-loop; -p prints only the answer), the exit
# status of the run passes through, and pi llm|loop|sess|tool|view run
# the programs, those next to pi first.  Also the usage messages of pi,
# pi-view and pi-loop against the SYNOPSIS of their manuals.
. "$(dirname "$0")/lib.sh"
plan 46
unset PI_SESSIONS_DB PI_LLM PI_TOOL PI_SESS NO_COLOR

mkdir ws && WS=$(cd ws && pwd -P) || exit 1
DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

cat >s.faux <<'EOF'
{"content":[{"type":"text","text":"Hello there."}]}
{"content":[{"type":"text","text":"Second answer."}]}
{"content":[{"type":"text","text":"Third answer."}]}
{"content":[{"type":"text","text":"Fourth answer."}]}
EOF
cat >tool.faux <<'EOF'
{"content":[{"type":"text","text":"Listing."},{"type":"toolCall","id":"call_ls","name":"ls","arguments":{}}]}
EOF
PI_FAUX_SCRIPT=$TMP/s.faux
export PI_FAUX_SCRIPT

# sessions: the ids of all sessions, newest first.
sessions() { pi-sess --json ls --all | jq -r .id; }
nsess() { sessions | wc -l | tr -d ' '; }
# prompts S: the user prompts of session S, in order, one line.
prompts() {
	pi-sess log "$1" | jq -r 'select(.type == "message" and
	    .message.role == "user") | .message.content[0].text' | tr '\n' '|'
}
# header FILE: the session id pi-view names on its first line.
header() { sed -n '1s/^● session \([0-9a-f-]*\) · .*/\1/p' "$1"; }

# --- A prompt: pi-loop -c ... | pi-view.
check_exit 'pi -m faux/demo PROMPT in a workspace: exit 0' 0 \
	'(cd ws && pi -m faux/demo "first prompt" >../one 2>../one.err)'
check 'rendered by pi-view: the session, the prompt, the answer, the summary' '
	is "$(sed -n 2p one)" "> first prompt" && is "$(sed -n 3p one)" "Hello there." &&
	tail -n 1 one | grep -q "^── 1 turn · [0-9]* tokens · .* · no_tool_calls$" &&
	[ ! -s one.err ]'
check 'not NDJSON: no line of the output is JSON' '! grep -q "^{" one'
S1=$(header one)
check 'one session, of the workspace, the one pi-view named' '
	is "$(nsess)" 1 && is "$(sessions)" "$S1" &&
	is "$(pi-sess --json show "$S1" | jq -r .cwd)" "$WS"'
check_exit 'a second pi in the same workspace: exit 0' 0 \
	'(cd ws && pi -m faux/demo "second prompt" >../two 2>../two.err)'
check 'it continued the session (-c): the same one, both prompts in it' '
	is "$(header two)" "$S1" && is "$(nsess)" 1 &&
	is "$(prompts "$S1")" "first prompt|second prompt|"'
check 'the model saw the first exchange: its second answer' \
	'is "$(sed -n 3p two)" "Second answer."'
check_exit 'pi -n: exit 0' 0 \
	'(cd ws && pi -n -m faux/demo "new prompt" >three 2>three.err)'
S2=$(header ws/three)
check '-n started another session, with only its own prompt' '
	[ -n "$S2" ] && [ "$S2" != "$S1" ] && is "$(nsess)" 2 &&
	is "$(prompts "$S2")" "new prompt|" && is "$(sed -n 3p ws/three)" "Hello there."'
check_exit 'pi -p: exit 0' 0 '(cd ws && pi -p -m faux/demo "just say" >../p 2>../p.err)'
check '-p prints just the answer' 'is "$(cat p)" "Second answer." && [ ! -s p.err ]'
check '-p went on in the newest session of the workspace' '
	is "$(prompts "$S2")" "new prompt|just say|" && is "$(nsess)" 2'
check_exit 'pi -w DIR from elsewhere: exit 0' 0 \
	'pi -w "$WS" -m faux/demo "from outside" >four 2>four.err'
check '-w: the newest session of that workspace went on' '
	is "$(header four)" "$S2" && is "$(nsess)" 2 &&
	is "$(prompts "$S2")" "new prompt|just say|from outside|"'
check_exit 'pi -s S: exit 0' 0 \
	'(cd ws && pi -s "$S1" -m faux/demo "back to one" >../five 2>../five.err)'
check '-s: the session named, not the newest' '
	is "$(header five)" "$S1" && is "$(nsess)" 2 &&
	is "$(prompts "$S1")" "first prompt|second prompt|back to one|"'
check_exit 'pi --no-session: exit 0' 0 \
	'(cd ws && pi --no-session -m faux/demo "nowhere" >../six 2>../six.err)'
check '--no-session: no session made or changed' '
	is "$(nsess)" 2 && is "$(sed -n 3p six)" "Hello there." &&
	is "$(prompts "$S2")" "new prompt|just say|from outside|"'

# --- The exit status of a failing run passes through.
check_exit 'the faux script runs out: exit 4, pi-loop'"'"'s' 4 \
	'(cd ws && PI_FAUX_SCRIPT=$TMP/tool.faux pi -n $DEG -m faux/demo "list" >../out4 2>../out4.err)'
check '... rendered: the tool ran, then the error and the status' '
	grep -qx "→ ls" out4 && grep -q "^✗ faux_script: " out4 &&
	tail -n 1 out4 | grep -q " · error · exit 4$"'
check_exit '--max-turns 1 with a tool-calling script: exit 8' 8 \
	'(cd ws && PI_FAUX_SCRIPT=$TMP/tool.faux pi -n $DEG --max-turns 1 -m faux/demo "list" >../out8 2>../out8.err)'
check '... rendered: the reason and the status' \
	'tail -n 1 out8 | grep -q " · max_turns · exit 8$"'
check_exit 'pi -p of a failing run: exit 4 too' 4 \
	'(cd ws && PI_FAUX_SCRIPT=$TMP/tool.faux pi -n -p $DEG -m faux/demo "list" >../outp 2>../outp.err)'

# --- pi PROGRAM: the program, with the arguments.
PI_CLOCK_FIXED=1000
export PI_CLOCK_FIXED
check 'pi sess ls: what pi-sess ls prints' '
	pi sess ls --all >a && pi-sess ls --all >b && [ -s a ] && cmp a b'
check 'pi llm --list-providers: what pi-llm prints' '
	pi llm --list-providers >a && pi-llm --list-providers >b && [ -s a ] && cmp a b'
check 'pi view -h: what pi-view -h prints' 'pi view -h >a && pi-view -h >b && [ -s a ] && cmp a b'
check 'pi loop -h: what pi-loop -h prints' \
	'pi loop -h >a && pi-loop -h >b && [ -s a ] && cmp a b'
check 'pi tool --list: what pi-tool --list prints' \
	'pi tool --list >a && pi-tool --list >b && [ -s a ] && cmp a b'
check_exit 'pi sess show of no session: exit 3, pi-sess'"'"'s' 3 \
	'pi sess show nosuch >a 2>a.err'
mkdir alone fake && cp "$ROOT/bin/pi" alone/ &&
printf '#!/bin/sh\necho "fake pi-sess $*"\n' >fake/pi-sess && chmod +x fake/pi-sess || exit 1
check 'the programs next to pi first, whatever PATH says' '
	pi-sess ls --all >b && PATH=$TMP/fake:$PATH pi sess ls --all >a && [ -s a ] && cmp a b'
check 'a pi alone: the programs on PATH' '
	is "$(PATH=$TMP/fake:$PATH alone/pi sess ls x)" "fake pi-sess ls x"'

# What pi gives pi-loop: a pi-loop next to a copy of pi that records its
# arguments and ends as an interrupted run would.
mkdir front && cp "$ROOT/bin/pi" "$ROOT/bin/pi-view" front/ || exit 1
cat >front/pi-loop <<EOF
#!/bin/sh
printf '%s\n' "\$*" >"$TMP/front.args"
echo '{"type":"agent_start","v":1,"ts":1,"sessionId":"s","tools":[]}'
echo '{"type":"agent_end","v":1,"ts":2,"sessionId":"s","totalTurns":1,"totalTokens":1,"durationMs":1,"terminationReason":"abort_signal","cost":0,"exitCode":'"\${PI_TEST_RC:-0}"',"error":{"code":"aborted","message":"stopped"}}'
exit \${PI_TEST_RC:-0}
EOF
chmod +x front/pi-loop || exit 1
args() { rm -f front.args; front/pi "$@" >/dev/null 2>&1; cat front.args; }
check 'pi PROMPT: pi-loop -c, then the words as given' \
	'is "$(args -m faux/demo --max-turns 3 two words)" "-c -m faux/demo --max-turns 3 two words"'
check 'pi -n: --new instead of -c; -n itself not passed on' \
	'is "$(args -m faux/demo -n hi)" "--new -m faux/demo hi"'
check 'pi -s S, -sS, -c, --new, --no-session: passed on, no -c added' '
	is "$(args -s abc hi)" "-s abc hi" && is "$(args -sabc hi)" "-sabc hi" &&
	is "$(args -c hi)" "-c hi" && is "$(args --new hi)" "--new hi" &&
	is "$(args --no-session hi)" "--no-session hi"'
check 'pi -- -n: after --, words are the prompt' 'is "$(args -- -n)" "-c -- -n"'
check_exit 'pi-loop'"'"'s status (here 9) as it is, pi-view'"'"'s agreeing' 9 '
	PI_TEST_RC=9 front/pi hi >/dev/null 2>&1'
check_exit 'pi -p: pi-loop -p alone, its status (here 141) as it is' 141 '
	PI_TEST_RC=141 front/pi -p hi >p.out 2>&1'
check 'pi -p: pi-loop'"'"'s output as it is, not rendered; -c given' '
	is "$(head -c 21 p.out)" "{\"type\":\"agent_start\"" && is "$(wc -l <p.out)" 2 &&
	is "$(args -p hi)" "-c -p hi"'
check 'pi -cp and -pm M: the options found in a cluster too' '
	PI_TEST_RC=0 front/pi -cp hi >cp.out 2>&1 &&
	is "$(head -c 21 cp.out)" "{\"type\":\"agent_start\"" && is "$(args -cp hi)" "-cp hi" &&
	front/pi -pmfaux/demo hi >pm.out 2>&1 && is "$(head -c 1 pm.out)" "{"'
check_exit 'an interrupted run: pi-loop'"'"'s 130' 130 \
	'PI_TEST_RC=130 front/pi hi >/dev/null 2>&1'

# --- Usage.
check_exit 'pi with no arguments: exit 2, the usage on stderr' 2 \
	'pi >a 2>a.err; st=$?; [ ! -s a ] && grep -q "^usage: pi " a.err && (exit $st)'
check_exit 'pi -V: exit 0, the version of the programs' 0 '
	pi -V >a && is "$(cat a)" "pi $(pi-view -V | sed "s/^pi-view //")"'
check 'pi -n -h: pi-loop'"'"'s usage' 'pi -n -h >a 2>a.err; pi-loop -h | diff -u - a'

# The usage messages are the SYNOPSIS of the manuals, modulo line breaks
# (as in 2000-tool-cli.sh).
norm() { tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//'; echo; }
synopsis() {
	{ printf 'usage: '; mandoc -T ascii -O width=1000 "$ROOT/man/$1.1" |
		col -bx | awk '/^SYNOPSIS/ { f = 1; next } /^[A-Z]/ { f = 0 } f' |
		sed "2s/^ *$1/       $1/"; } | norm
}
for p in pi pi-view pi-loop; do
	if command -v mandoc >/dev/null; then
		synopsis $p >synopsis.$p
		$p -h | norm >usage.$p
		check_same "$p -h is the SYNOPSIS of $p(1)" synopsis.$p usage.$p
	else
		skip "$p -h is the SYNOPSIS of $p(1)" 'no mandoc'
	fi
done
done_testing
