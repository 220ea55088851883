#!/bin/sh
# The examples a user copies, run on hostile input: tasks with quotes,
# apostrophes, backslashes, spaces and newlines; a replay run twice; a
# CI step whose event log stays out of the agent's reach.
. "$(dirname "$0")/lib.sh"
plan 16
EX=$ROOT/examples
mkdir ws && WS=$(cd ws && pwd -P) || exit 1

DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# prompts DIR: the user prompt of each run in DIR/runs, one a line, as
# a JSON string, in task order.
prompts() {
	for f in $(ls "$1"/runs | sort -n); do
		jq -c 'select(.type == "message_end" and .message.role == "user")
		    | .message.content[0].text' "$1/runs/$f"
	done
}

# fan-out.sh: each task reaches its agent whole.
mkdir fan && printf '%s\n' 'say "hi"' "don't panic" '  two  spaces \back' \
	'$(touch pwned) `touch pwned2`' >tasks.txt
check_exit 'fan-out.sh runs every task of a line-per-task file' 0 '
	(cd fan && PI_MODEL=faux/x PI_FAUX_SCRIPT=$EX/hello.faux \
	    "$EX/fan-out.sh" <../tasks.txt >out 2>err)'
check 'four runs, each ending 0' 'is "$(ls fan/runs | wc -l)" 4 &&
	is "$(grep -c " exit 0 " fan/out)" 4'
check 'each prompt is the task as written' 'prompts fan >got &&
	jq -R . tasks.txt >want && diff -u want got'
check 'no task was run by a shell' '! [ -e fan/pwned ] && ! [ -e fan/pwned2 ] &&
	! [ -e "$WS/pwned" ]'
mkdir fan0 && printf 'line one\nline two\0it'"'"'s\0' >tasks0
check_exit 'fan-out.sh -0 takes tasks ended by NUL' 0 '
	(cd fan0 && PI_MODEL=faux/x PI_FAUX_SCRIPT=$EX/hello.faux \
	    "$EX/fan-out.sh" -0 <../tasks0 >out 2>err)'
check 'a task may hold a newline' 'prompts fan0 >got &&
	jq -n "\"line one\\nline two\", \"it'"'"'s\"" >want &&
	diff -u want got'

# The same one-liner in pi(7), taken from the rendered page.
line=$(mandoc -Tascii "$ROOT/man/pi.7" | col -b | grep "tasks.txt.*xargs" |
	sed "s/^ *//")
mkdir one && cp tasks.txt one/
check_exit 'pi(7)'"'"'s xargs one-liner runs every task' 0 '[ -n "$line" ] && (cd one &&
	PI_MODEL=faux/x PI_FAUX_SCRIPT=$EX/hello.faux PI_SESSIONS_DB=$TMP/one.db \
	    sh -c "$line" >out 2>err)'
check 'each prompt arrives as written' '
	for s in $(pi-sess -d one.db ls --all | jq -r .id); do
	    pi-sess -d one.db log "$s"; done | jq -c "select(.message.role ==
	    \"user\") | .message.content[0].text" | sort >got &&
	jq -R . tasks.txt | sort >want && diff -u want got'

# record-llm, then replay-llm twice: the second replay starts over.
FIX=$ROOT/tests/fixtures/openai
printf '[{"file":"%s"},{"file":"%s"}]\n' "$FIX/tool-calls.sse" \
	"$FIX/text.sse" >plan.json
fake_start plan.json
printf 'x\n' >"$WS/a" && mkdir -p "$WS/dir" && printf 'y\n' >"$WS/dir/a\"b.txt"
run() {
	PI_RECORD_DIR=$TMP/rec PI_LLM=$EX/$1 OPENAI_API_KEY=k pi-loop --no-session \
	    -m openai/gpt-4.1 --base-url "$FAKE_URL/v1" -w "$WS" $DEG \
	    "it's \"quoted\"" </dev/null >"$2" 2>"$2.err"
}
check_exit 'a run recorded through record-llm' 0 'run record-llm live.out'
fake_stop
check 'two calls recorded' 'is "$(ls rec/*.rec | wc -l)" 2'
check_exit 'replayed through replay-llm, no server' 0 'run replay-llm r1.out'
check_exit 'and replayed again' 0 'run replay-llm r2.out'
check 'both replays give the run that was recorded' '
	for f in r1 r2; do jq -c "select(.type == \"message_end\") |
	    .message.content" $f.out >$f.c; done &&
	jq -c "select(.type == \"message_end\") | .message.content" live.out >l.c &&
	diff -u l.c r1.c && diff -u l.c r2.c'

# ci-agent.sh: the event log is not in the workspace it hands the agent.
mkdir ci && git -C ci init -q && (cd ci && git commit -q --allow-empty -m 0 \
	-c user.name=t -c user.email=t@t 2>/dev/null ||
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m 0)
check_exit 'ci-agent.sh runs a quoted task' 0 '(cd ci && PI_MODEL=faux/x \
	PI_FAUX_SCRIPT=$EX/hello.faux TMPDIR=$TMP "$EX/ci-agent.sh" \
	"fix the \"flaky\" test; don'"'"'t touch docs" >../ci.out 2>&1)'
check 'its events are outside the workspace, and it says where' '
	log=$(sed -n "s/^ci-agent.sh: events in //p" ci.out) &&
	[ -s "$log" ] && case $log in "$TMP"/ci/*) false;; esac &&
	is "$(git -C ci status --porcelain)" ""'
check_exit 'a log asked for inside the workspace is refused' 2 '(cd ci &&
	PI_EVENTS=log.ndjson PI_MODEL=faux/x PI_FAUX_SCRIPT=$EX/hello.faux \
	"$EX/ci-agent.sh" task >../ci2.out 2>&1)'

done_testing
