#!/bin/sh
# Closure: the output of one call appended to its input, plus a user
# line, is the input of the next, which sends the whole conversation.
. "$(dirname "$0")/lib.sh"
plan 9
unset PI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse

llm() {
	OPENAI_API_KEY=sk-test pi-llm --base-url "$FAKE_URL/v1" \
		-m openai/gpt-x "$@"
}
# The messages of request N as [role, text] pairs.
said() {
	jq -c '[.body.messages[] | [.role, (.content | if type == "string"
		then . else map(.text) | join("") end)]]' "$(fake_req "$1")"
}

# The first call is retried once, so its output holds a retry line too.
cat >plan.json <<EOF
[{"status": 503, "headers": {"retry-after-ms": "1"},
  "body": "{\"error\":{\"message\":\"busy\"}}"},
 {"file": "$text"}]
EOF
fake_start plan.json
echo '{"role":"user","content":"first question"}' >chat
check_exit 'call 1' 0 'llm <chat >out1'
check 'writes a retry and a message' jqs out1 '
	map(.type) == ["retry", "message_start", "text_delta", "text_delta",
	"text_delta", "message_end"]'
{ cat chat out1; echo '{"role":"user","content":"second question"}'; } >chat2
check_exit 'its output and a user line are valid input to call 2' 0 \
	'llm <chat2 >out2'
check 'which sends the assistant message between the user messages' '
	said 3 >said && cat said &&
	test "$(cat said)" = "$(printf "%s" "[[\"user\",\"first question\"],\
[\"assistant\",\"Hello, wörld 😀!\"],[\"user\",\"second question\"]]")"'
check 'and call 2 answers' jqs out2 '.[-1].stopReason == "end_turn"'

# The man page's conversation in one file, both input and output.
echo '{"role":"user","content":"one"}' >convo
check_exit 'a file that is both input and output' 0 'llm <convo >>convo'
echo '{"role":"user","content":"two"}' >>convo
check_exit 'and again' 0 'llm <convo >>convo'
check 'sends the whole conversation' 'said 5 >said && cat said &&
	test "$(cat said)" = "$(printf "%s" "[[\"user\",\"one\"],\
[\"assistant\",\"Hello, wörld 😀!\"],[\"user\",\"two\"]]")"'
check 'and the file stays NDJSON' jqs convo '
	map(.type // .role) == ["user", "message_start", "text_delta",
	"text_delta", "text_delta", "message_end", "user", "message_start",
	"text_delta", "text_delta", "text_delta", "message_end"]'

done_testing
