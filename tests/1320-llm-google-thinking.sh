#!/bin/sh
# Thought parts are thinking, kept apart from the answer; a signature
# stays on the block of the part it came with (thinking or text, even an
# empty last part) and goes back on the same part, byte for byte.  Other
# models' signatures never go to Gemini.  -t sets the thinking budget.
. "$(dirname "$0")/lib.sh"
plan 26

FIX=$ROOT/tests/fixtures/google
GEMINI_API_KEY=g-test PI_CLOCK_FIXED=1700000000000
export GEMINI_API_KEY PI_CLOCK_FIXED
llm() { pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-x "$@"; }
req() { req_n=$1; shift; jq "$@" "$(fake_req "$req_n")"; }

# Two signed text parts in a row: two blocks, never one with both.
{
	printf 'data: {"candidates":[{"content":{"parts":[{"text":"One.","thoughtSignature":"S1=="}],"role":"model"}}]}\r\n\r\n'
	printf 'data: {"candidates":[{"content":{"parts":[{"text":" Two.","thoughtSignature":"S2=="}],"role":"model"},"finishReason":"STOP"}]}\r\n\r\n'
} >two-sigs.sse
cat >plan.json <<EOF2
[{"file": "$FIX/thinking-text.sse"}, {"file": "$FIX/text.sse"},
 {"file": "$TMP/two-sigs.sse"}, {"file": "$FIX/text.sse"}]
EOF2
fake_start plan.json

check_exit 'a stream with thought parts exits 0' 0 \
	'llm -t low -s "Be terse." "What is the answer?" </dev/null >out1 2>err'
check 'every line is a JSON object' 'jq_lines out1'
cat >expect <<'EOF2'
["thinking_delta","Thinking about ",0]
["thinking_delta","the question.",0]
["text_delta","The answer",1]
["text_delta"," is 42.",1]
EOF2
check 'thoughts are thinking_delta, the answer text_delta' 'jq -c "
	select(.type | test(\"_delta\$\")) | [.type, .delta, .contentIndex]" \
	out1 >actual && diff -u expect actual'
check 'the thinking block has the signature of its part' 'tail -n 1 out1 |
	jq -e ".message.content[0] == {type: \"thinking\",
	thinking: \"Thinking about the question.\",
	thinkingSignature: \"THINKsig==\"}"'
check 'the text block has the one from the empty last part' \
	'tail -n 1 out1 | jq -e ".message.content[1] == {type: \"text\",
	text: \"The answer is 42.\", textSignature: \"TEXTsig+/==\"} and
	(.message.content | length == 2)"'
check 'thoughts count in output and as thinking' 'tail -n 1 out1 | jq -e "
	.usage == {inputTokens: 10, outputTokens: 13, thinkingTokens: 8,
	totalTokens: 23}"'
check 'the request asked for thoughts within the low budget' 'req 1 -e "
	.body.generationConfig == {thinkingConfig: {includeThoughts: true,
	thinkingBudget: 1024}}"'
check 'and put -s in systemInstruction, not in contents' 'req 1 -e "
	.body.systemInstruction == {parts: [{text: \"Be terse.\"}]} and
	.body.contents == [{role: \"user\",
	parts: [{text: \"What is the answer?\"}]}]"'

{
	echo '{"role":"user","content":"What is the answer?"}'
	cat out1
	echo '{"role":"user","content":"Why?"}'
} >ctx2
check_exit 'the reply fed back' 0 'llm -t low <ctx2 >out2 && jq_lines out2'
check 'the thought goes back as a thought, signed' 'req 2 -e "
	.body.contents[1].role == \"model\" and .body.contents[1].parts[0] ==
	{thought: true, text: \"Thinking about the question.\",
	thoughtSignature: \"THINKsig==\"}"'
check 'the text with its own signature, on its own part' 'req 2 -e "
	.body.contents[1].parts[1:] == [{text: \"The answer is 42.\",
	thoughtSignature: \"TEXTsig+/==\"}]"'
printf 'TEXTsig+/==' >expect
check 'byte for byte' 'req 2 -j ".body.contents[1].parts[1].thoughtSignature" \
	>actual && cmp expect actual'

check_exit 'two signed text parts' 0 'llm hi </dev/null >out3 && jq_lines out3'
check 'are two blocks, each with its signature' 'tail -n 1 out3 | jq -e "
	.message.content == [{type: \"text\", text: \"One.\",
	textSignature: \"S1==\"}, {type: \"text\", text: \" Two.\",
	textSignature: \"S2==\"}]"'
check 'the text deltas still count on' 'jq -c "select(.type ==
	\"text_delta\") | [.index, .contentIndex]" out3 | tr -d "\n" |
	grep -qx "\[0,0\]\[4,1\]"'

# The same thinking from another model (or another Gemini) is only text.
sed 's/"model":"gemini-x"/"model":"gemini-y"/g' ctx2 >ctx-y
jq -c 'if .type == "message_end" then .message |= (.provider = "anthropic" |
	.api = "anthropic-messages" | .model = "claude-x") else . end' \
	ctx2 >ctx-a
check 'the fixtures name another model' \
	'grep -q "gemini-y" ctx-y && grep -q "claude-x" ctx-a'
check_exit 'a history from gemini-y' 0 'llm <ctx-y >out4 && jq_lines out4'
check 'goes as plain text, no thought, no signature' 'req 4 -e "
	.body.contents[1].parts == [{text: \"Thinking about the question.\"},
	{text: \"The answer is 42.\"}]"'
check_exit 'a history from claude' 0 'llm <ctx-a >out5 && jq_lines out5'
check 'likewise' 'req 5 -e ".body.contents[1].parts == [
	{text: \"Thinking about the question.\"},
	{text: \"The answer is 42.\"}]"'

# budget WANT ARGS: the generationConfig that ARGS ask for is WANT.
printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json && fake_start plan.json
n=0
budget() {
	want=$1
	shift
	n=$((n + 1))
	llm "$@" hi </dev/null >b$n.out && jq_lines b$n.out &&
	req $n -e --argjson w "$want" '.body.generationConfig == $w'
}
# on N: the generationConfig of thoughts within budget N.
on() { printf '{"thinkingConfig": {"includeThoughts": true, ' &&
	printf '"thinkingBudget": %s}}' "$1"; }
check '-t medium: 8192' 'budget "$(on 8192)" -t medium'
check '-t high: 32768' 'budget "$(on 32768)" -t high'
check '-t none: budget 0, no thoughts' \
	'budget "{\"thinkingConfig\": {\"thinkingBudget\": 0}}" -t none'
check 'no -t: no thinkingConfig' 'budget null'
check '--max-tokens: maxOutputTokens' 'budget "$(on 1024 |
	jq -c ". + {maxOutputTokens: 500}")" --max-tokens 500 -t low'
check 'five requests' 'test "$(fake_requests)" -eq 5'

done_testing
