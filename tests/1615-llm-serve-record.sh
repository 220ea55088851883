#!/bin/sh
# --record and --replay through pi-llm --serve: the calls of the process
# share one file, one recording after the other, and a replay plays them
# in turn, retries included, with the same events (the same bytes with
# --replay-clock); a call that fails before the network has none.
. "$(dirname "$0")/lib.sh"
plan 12

FIX=$ROOT/tests/fixtures/openai
text=$FIX/text.sse
cat >plan.json <<EOF
[{"status": 503, "headers": {"retry-after-ms": "5"},
  "body": "{\"error\":{\"message\":\"busy\",\"type\":\"server_error\"}}"},
 {"file": "$text", "split": 7},
 {"file": "$FIX/tool-calls.sse"},
 {"file": "$text"}]
EOF
u='{"role":"user","content":"hi"}'
cat >in <<EOF
$u
{"type":"call","id":1}
$u
{"type":"call","id":"nowhere","provider":"nope"}
{"role":"user","content":"read it"}
{"type":"call","id":2,"model":"openai/gpt-4.1"}
$u
{"type":"call","id":3,"prompt":"more"}
EOF
# events FILE: the events of the calls that went out: not the serve and
# call_end lines, nor the error of the call that had nowhere to go (it
# has no recording, so its time is the time of the replay).
events() { grep -v -e '"type":"serve"' -e '"type":"call_end"' \
	-e unknown_provider "$1"; }
ends() { jq -c 'select(.type == "call_end") | [.id, .exitCode]' "$1"; }

fake_start --keep-alive plan.json || exit 1
url=$FAKE_URL/v1
check_exit 'three calls recorded by one serving process' 0 \
	'OPENAI_API_KEY=sk-secret-0123456789 pi-llm --serve --base-url "$url" \
	-m openai/gpt-x --record rec.ndjson <in >live.out 2>live.err'
check 'one file, one recording a call that went out, in order' \
	'jq_lines rec.ndjson && jq -c "select(.type == \"recording\") |
	.model" rec.ndjson >models && printf "\"gpt-x\"\n\"gpt-4.1\"\n\"gpt-x\"\n" >want &&
	diff -u want models'
check 'the first keeps its retry, and no key is in it' \
	'jq -se "[.[] | select(.type == \"retry\")] | length == 1" rec.ndjson &&
	! grep -q sk-secret rec.ndjson'
fake_stop

check_exit 'replayed through a serving process, no server, no key' 0 \
	'pi-llm --serve --base-url "$url" -m openai/gpt-x --replay rec.ndjson \
	--replay-clock <in >replay.out 2>replay.err'
check 'the same events, byte for byte, with --replay-clock' \
	'events live.out >a && events replay.out >b && test -s a && cmp a b'
check 'and the same call_end statuses' \
	'ends live.out >a && ends replay.out >b && diff -u a b &&
	grep -qx "\[\"nowhere\",4\]" b'
check_exit 'on the clock of now' 0 \
	'pi-llm --serve --base-url "$url" -m openai/gpt-x --replay rec.ndjson \
	<in >now.out 2>/dev/null'
check 'the events differ only in ts' 'events live.out | jq -c "del(.ts)" >a &&
	events now.out | jq -c "del(.ts)" >b && cmp a b'

# A changed second call is refused; the third still plays its own.
sed 's/read it/read that/' in >in2
{ cat in2; printf '%s\n{"type":"call","id":4}\n' "$u"; } >in3
check_exit 'another request in call 2, a fourth call: exit 0' 0 \
	'pi-llm --serve --base-url "$url" -m openai/gpt-x --replay rec.ndjson \
	<in3 >other.out 2>other.err'
check 'call 2 mismatches, call 3 plays, call 4 has no recording' \
	'ends other.out >got &&
	printf "%s\n" "[1,0]" "[\"nowhere\",4]" "[2,3]" "[3,0]" "[4,3]" >want &&
	diff -u want got && grep -q "holds 3 calls" other.err'

check_exit 'a one-shot replay of the file plays its first call' 0 \
	'printf "%s\n" "$u" | pi-llm --base-url "$url" -m openai/gpt-x \
	--replay rec.ndjson --replay-clock >one.out'
check 'with the first call'"'"'s events' \
	'awk "NR > 1 && /\"type\":\"call_end\"/ { exit } NR > 1" live.out >a &&
	cmp a one.out'
done_testing
