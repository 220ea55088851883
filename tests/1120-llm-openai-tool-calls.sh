#!/bin/sh
# Tool calls in an OpenAI stream: fragments keyed by index (or by id when
# a compatible server leaves index out), parallel and interleaved calls,
# arguments cut anywhere and parsed only at the end.
. "$(dirname "$0")/lib.sh"
plan 31

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
serve() { printf '[{"file": "%s"}]\n' "$1" >plan.json && fake_start plan.json; }
llm() { pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x "$@"; }

# Each call: one toolcall_start, its deltas, one toolcall_end, all before
# message_end, which is the last line.
cat >order.jq <<'JQ'
to_entries | map(.value + {i: .key}) as $e
| ($e | map(select(.type == "message_end"))) as $me
| ($me | length) == 1 and $me[0].i == ($e | length) - 1
and ($e | map(select(.type | startswith("toolcall_")))
	| group_by(.toolCallId) | map(sort_by(.i))
	| all((map(select(.type == "toolcall_start")) | length) == 1
	    and (map(select(.type == "toolcall_end")) | length) == 1
	    and .[0].type == "toolcall_start"
	    and .[-1].type == "toolcall_end"))
JQ
ordered() { jq -s -e -f order.jq "$1" >/dev/null; }
# starts FILE / ends FILE: the calls as they began and as they ended.
starts() { jq -c 'select(.type == "toolcall_start") |
	[.toolCallId, .toolName, .contentIndex]' "$1"; }
ends() { jq -c 'select(.type == "toolcall_end") |
	[.toolCallId, .toolName, .input]' "$1"; }
args() { jq -j --arg id "$2" 'select(.type == "toolcall_delta" and
	.toolCallId == $id).delta' "$1"; }

serve "$FIX/tool-calls.sse"
check_exit 'three parallel calls' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'each call starts, streams and ends in order' 'ordered out'
cat >expect <<'EOF2'
["call_A1","read",0]
["call_B2","grep",1]
["call_C3","ls",2]
EOF2
check 'the calls start with their ids, names and places' \
	'starts out >actual && diff -u expect actual'
printf '%s' '{"path":"dir/a\"b.txt","note":"caf\u00e9 ☕"}' >expect
check 'the deltas are the raw fragments, cut mid-escape' \
	'args out call_A1 >actual && cmp expect actual'
printf '%s' '{"pattern":"x\\ny","paths":["a","b"]}' >expect
check 'for each call apart' 'args out call_B2 >actual && cmp expect actual'
cat >expect <<'EOF2'
["call_A1","read",{"path":"dir/a\"b.txt","note":"café ☕"}]
["call_B2","grep",{"pattern":"x\\ny","paths":["a","b"]}]
["call_C3","ls",{}]
EOF2
check 'toolcall_end carries the parsed input' 'ends out >actual &&
	diff -u expect actual'
check 'empty arguments are {} and not invalid' 'jq -s -e "
	map(select(.type == \"toolcall_end\" and .toolCallId == \"call_C3\"))
	| length == 1 and .[0].input == {} and
	(.[0] | has(\"invalidArguments\") | not)" out'
check 'finish_reason tool_calls is stopReason tool_use' 'tail -n 1 out |
	jq -e ".stopReason == \"tool_use\" and .message.stopReason == \"toolUse\""'
check 'the message holds the three calls and nothing else' 'tail -n 1 out |
	jq -e ".message.content == [
	{type: \"toolCall\", id: \"call_A1\", name: \"read\",
	 arguments: {path: \"dir/a\\\"b.txt\", note: \"café ☕\"}},
	{type: \"toolCall\", id: \"call_B2\", name: \"grep\",
	 arguments: {pattern: \"x\\\\ny\", paths: [\"a\", \"b\"]}},
	{type: \"toolCall\", id: \"call_C3\", name: \"ls\", arguments: {}}]"'

# Compatible servers: no index, and id and name on every fragment.
serve "$FIX/tool-calls-noindex.sse"
check_exit 'calls without index' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'each call starts, streams and ends in order' 'ordered out'
printf '["call_X","read",0]\n["call_Y","ls",1]\n' >expect
check 'are told apart by id, names not repeated' \
	'starts out >actual && diff -u expect actual'
printf '["call_X","read",{"path":"x.txt"}]\n["call_Y","ls",{"dir":"src"}]\n' \
	>expect
check 'with their arguments assembled' 'ends out >actual &&
	diff -u expect actual'
check 'and stopReason tool_use' 'tail -n 1 out | jq -e "
	.stopReason == \"tool_use\" and
	(.message.content | map(.name) == [\"read\", \"ls\"])"'

serve "$FIX/tool-calls-interleaved.sse"
check_exit 'two calls whose fragments interleave' 0 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'each call starts, streams and ends in order' 'ordered out'
printf '["call_I0","read",0]\n["call_I1","write",1]\n' >expect
check 'both calls start' 'starts out >actual && diff -u expect actual'
cat >expect <<'EOF2'
["call_I0","read",{"path":"in.txt"}]
["call_I1","write",{"path":"out.txt","text":"héllo\n"}]
EOF2
check 'and each gets its own fragments' 'ends out >actual &&
	diff -u expect actual'
check 'in the message too' 'tail -n 1 out | jq -e ".message.content |
	map(.arguments) == [{path: \"in.txt\"},
	{path: \"out.txt\", text: \"héllo\n\"}]"'

serve "$FIX/tool-calls-noindex-interleaved.sse"
check_exit 'interleaved calls without index' 0 \
	'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'each call starts, streams and ends in order' 'ordered out'
printf '["call_P","read",{"path":"p.txt"}]\n["call_Q","ls",{"dir":"q"}]\n' \
	>expect
check 'are assembled by id' 'ends out >actual && diff -u expect actual'

# Arguments that are not a JSON object: the call stays, the raw text
# goes beside an empty input so the model can be told.
{
	printf 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
	printf '"id":"call_Z","type":"function","function":{"name":"read",'
	printf '"arguments":"{\\"path\\": \\"a"}}]},"finish_reason":null}]}\n\n'
	printf 'data: {"choices":[{"index":0,"delta":{},'
	printf '"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
} >bad-args.sse
serve "$TMP/bad-args.sse"
check_exit 'arguments cut short' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
cat >expect <<'EOF2'
{"type":"toolcall_end","toolCallId":"call_Z","toolName":"read","input":{},"invalidArguments":"{\"path\": \"a"}
EOF2
check 'end with input {} and the raw text' 'jq -s -e --slurpfile want expect \
	"map(select(.type == \"toolcall_end\") | del(.messageId, .v, .ts))
	== \$want" out'
check 'and the call is kept' 'tail -n 1 out | jq -e "
	.stopReason == \"tool_use\" and .message.content == [{type: \"toolCall\",
	id: \"call_Z\", name: \"read\", arguments: {}}]"'
check 'one request per run' 'test "$(fake_requests)" -eq 1'

done_testing
