#!/bin/sh
# Output: when the reader of stdout goes away pi-llm stops quietly with
# 141, and every event line leaves whole, however long.
. "$(dirname "$0")/lib.sh"
plan 8
unset PI_API_KEY

# chunk DELTA FINISH: one OpenAI stream event.
chunk() {
	printf 'data: {"id":"c","object":"chat.completion.chunk",'
	printf '"model":"gpt-x","choices":[{"index":0,"delta":%s,' "$1"
	printf '"finish_reason":%s}]}\n\n' "$2"
}

# About 600 KB of events, ten times what a pipe holds, so that pi-llm
# must write after head has gone whatever the scheduling.
{
	chunk '{"role":"assistant","content":""}' null
	i=0
	while [ $i -lt 4000 ]; do
		chunk "{\"content\":\"word$i \"}" null
		i=$((i + 1))
	done
	chunk '{}' '"stop"'
	echo 'data: [DONE]'
	echo
} >long.sse
# One delta of 300 KB and a few more bytes, sent in 64 KiB pieces.
{
	chunk '{"role":"assistant","content":""}' null
	chunk "{\"content\":\"$(head -c 300000 /dev/zero | tr '\0' x)\"}" null
	chunk '{"content":"\u00e9\ud83d\ude00"}' null
	chunk '{}' '"stop"'
	echo 'data: [DONE]'
	echo
} >big.sse
cat >plan.json <<EOF
[{"file": "long.sse"}, {"file": "long.sse"},
 {"file": "big.sse", "split": 65536}]
EOF
fake_start plan.json

# The pipeline's status is head's; pi-llm's goes to a file.
check 'a full stream' 'OPENAI_API_KEY=sk-test pi-llm --base-url \
	"$FAKE_URL/v1" -m openai/gpt-x hi </dev/null >long.out 2>long.err &&
	jqs long.out "length == 4002 and .[-1].stopReason == \"end_turn\""'
check 'is longer than a pipe holds' test "$(wc -c <long.out)" -gt 300000
check 'piped into head -n 1' '{ OPENAI_API_KEY=sk-test pi-llm \
	--base-url "$FAKE_URL/v1" -m openai/gpt-x hi </dev/null 2>head.err;
	echo $? >head.rc; } | head -n 1 >head.out'
check 'pi-llm exits 141' is "$(cat head.rc)" 141
check 'quietly' is "$(cat head.err)" ''
check 'after head got a whole message_start' \
	jqs head.out 'length == 1 and .[0].type == "message_start"'

check 'a 300 KB delta through a pipe' '{ OPENAI_API_KEY=sk-test pi-llm \
	--base-url "$FAKE_URL/v1" -m openai/gpt-x hi </dev/null 2>big.err;
	echo $? >big.rc; } | cat >big.out && is "$(cat big.rc)" 0'
check 'is one line, whole, and so is message_end' jqs big.out '
	map(.type) == ["message_start", "text_delta", "text_delta",
	"message_end"] and (.[1].delta | length == 300000 and
	test("^x+$")) and .[2].delta == "é😀" and
	.[2].index == 300000 and
	(.[3].message.content[0].text | length == 300002)'

done_testing
