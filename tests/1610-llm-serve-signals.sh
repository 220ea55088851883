#!/bin/sh
# What the caller of pi-llm --serve reads when the stage is stopped in
# a call: killed, it has the call's events so far, whole lines, and end
# of file where call_end should be; SIGTERM ends the call as aborted,
# writes its call_end and exits 143; SIGINT ends only the call, and the
# next call is served; SIGINT between calls ends the process.
. "$(dirname "$0")/lib.sh"
plan 12

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test
export OPENAI_API_KEY
text=$FIX/text.sse
hello=$(head -n 4 "$text" | wc -c)
# The stream stalls after "Hello" until the client goes.
stall="{\"file\": \"$text\", \"stall_after\": $hello}"
printf '[%s, {"file": "%s"}]\n' "$stall" "$text" >plan.json
u='{"role":"user","content":"hi"}'

# start: a serving pi-llm reading the fifo in (held open on fd 3),
# writing out; its pid in $pid.
start() {
	rm -f in out err && mkfifo in &&
	{ pi-llm --serve --base-url "$FAKE_URL/v1" -m openai/gpt-x <in \
		>out 2>err & } && pid=$! && exec 3>in
}
# send ID: a context and its call line.
send() { printf '%s\n{"type":"call","id":"%s"}\n' "$u" "$1" >&3; }
# stop SIG: signal the stage and collect its status in $st.
stop() {
	kill "-$1" "$pid"
	{ wait "$pid"; } 2>/dev/null	# no "Killed" from the shell
	st=$?
	exec 3>&-
}
delta() { grep -q '"type":"text_delta"' out; }

fake_start --keep-alive plan.json || exit 1
start && send a && wait_until delta && stop KILL
check 'killed in a call: the caller reads the call so far' \
	'is "$st" 137 && jq_lines out && jq -r .type out >types &&
	printf "serve\nmessage_start\ntext_delta\n" >want && diff -u want types'
check 'and end of file where call_end should be: a failed call' \
	'! grep -q call_end out && ! grep -q message_end out'
fake_stop

fake_start --keep-alive plan.json || exit 1
start && send a && wait_until delta && stop TERM
check 'SIGTERM in a call: exit 143' 'is "$st" 143'
check 'the call ends aborted, with its text so far, then call_end' \
	'jqs out ".[-2].type == \"message_end\" and
	.[-2].stopReason == \"aborted\" and
	.[-2].message.content[0].text == \"Hello\" and
	(.[-1] | .type == \"call_end\" and .id == \"a\" and
	.exitCode == 143)"'
fake_stop

fake_start --keep-alive plan.json || exit 1
ended() { test "$(grep -c '"type":"call_end"' out)" -ge "$1"; }
start && send a && wait_until delta && kill -INT "$pid" && wait_until ended 1
check 'SIGINT in a call ends that call: aborted, call_end 130' \
	'jqs out ".[-2].stopReason == \"aborted\" and
	(.[-1] | .type == \"call_end\" and .exitCode == 130)"'
send b && wait_until ended 2
check 'and the stage serves the next call' \
	'jqs out ".[-2].stopReason == \"end_turn\" and
	(.[-1] | .type == \"call_end\" and .id == \"b\" and .exitCode == 0)"'
check 'on a new connection: the aborted one could not be kept' \
	'is "$(fake_count connections)" 2'
check 'the process is still there' 'kill -0 "$pid"'
stop INT
check 'SIGINT between calls: exit 130' 'is "$st" 130'
check 'and nothing more is written' 'tail -n 1 out | jq -e ".id == \"b\""'

# The input closed: the stage ends after the call in progress.
start && send c && exec 3>&- && wait "$pid"
check 'end of input: exit 0 after the last call' 'is "$?" 0'
check 'which was answered' 'tail -n 1 out |
	jq -e ".type == \"call_end\" and .exitCode == 0"'
fake_stop
done_testing
