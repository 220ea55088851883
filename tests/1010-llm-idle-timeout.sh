#!/bin/sh
# The idle timeout is "no byte for N seconds": a stall ends the call with
# idle_timeout and exit 124 within a second of the limit, wherever it
# happens, while a stream that only sends comments stays alive.
. "$(dirname "$0")/lib.sh"
plan 12
unset PI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse
hello=$(head -n 4 "$text" | wc -c)

# llm NAME ARGS...: one call to the fake; NAME.out, NAME.err, and
# NAME.ms, its wall time in milliseconds.
llm() {
	n=$1
	shift
	t0=$(date +%s%N)
	OPENAI_API_KEY=sk-test pi-llm --base-url "$FAKE_URL/v1" \
		-m openai/gpt-x "$@" </dev/null >"$n.out" 2>"$n.err"
	rc=$?
	echo $((($(date +%s%N) - t0) / 1000000)) >"$n.ms"
	cat "$n.err"
	return $rc
}
# took NAME MIN MAX: the call took from MIN to MAX ms.
took() {
	echo "took $(cat "$1.ms") ms"
	[ "$(cat "$1.ms")" -ge "$2" ] && [ "$(cat "$1.ms")" -lt "$3" ]
}

echo "[{\"file\": \"$text\", \"stall_after\": $hello}]" >plan.json
fake_start plan.json
check_exit 'a stall after some text: exit 124' 124 llm a --idle-timeout 1 hi
check 'within a second of the 1 s limit' took a 1000 2500
check 'the message ends in error, then the idle_timeout error' jqs a.out '
	map(.type) == ["message_start", "text_delta", "message_end", "error"]
	and .[2].stopReason == "error"
	and .[2].message.content == [{"type": "text", "text": "Hello"}]
	and .[3].code == "idle_timeout" and .[3].messageId == .[0].messageId'
check 'an idle timeout is not retried' is "$(fake_requests)" 1

echo "[{\"file\": \"$text\", \"stall_after\": 0}]" >plan.json
fake_start plan.json
check_exit 'a stall before the first byte of the body: exit 124' 124 \
	llm b --idle-timeout 1 hi
check 'within a second of the limit' took b 1000 2500
check 'only an idle_timeout error line' jqs b.out '
	map(.type) == ["error"] and .[0].code == "idle_timeout"'
check 'after one request' is "$(fake_requests)" 1

# Five comment lines 300 ms apart, then the reply: 1.5 s in all, with
# never a second without a byte.
{ for i in 1 2 3 4 5; do echo ': ping'; done; cat "$text"; } >pings.sse
echo '[{"file": "pings.sse", "chunks": [7, 7, 7, 7, 7], "delay_ms": 300}]' \
	>plan.json
fake_start plan.json
check_exit 'comment lines keep a slow stream alive' 0 \
	llm c --idle-timeout 1 hi
check 'past the limit' took c 1400 10000
check 'and the reply is whole' jqs c.out '
	.[-1].stopReason == "end_turn" and
	.[-1].message.content == [{"type": "text", "text": "Hello, wörld 😀!"}]'
check 'and nothing on stderr' is "$(cat c.err)" ''

done_testing
