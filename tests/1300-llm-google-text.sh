#!/bin/sh
# A plain Gemini text stream: each chunk a whole response whose parts
# are deltas, framed with CRLF.  The events do not depend on how the
# bytes are cut: served whole, a byte at a time (a UTF-8 character then
# arrives in pieces), three at a time, or with LF or lone CR line ends.
. "$(dirname "$0")/lib.sh"
plan 23

FIX=$ROOT/tests/fixtures/google
GEMINI_API_KEY=g-test PI_CLOCK_FIXED=1700000000000
export GEMINI_API_KEY PI_CLOCK_FIXED
llm() { pi-llm --base-url "$FAKE_URL/v1beta" -m google/gemini-x "$@"; }

tr -d '\r' <"$FIX/text.sse" >lf.sse
tr -d '\n' <"$FIX/text.sse" >cr.sse
cat >plan.json <<EOF2
[{"file": "$FIX/text.sse"},
 {"file": "$FIX/text.sse", "split": 1},
 {"file": "$FIX/text.sse", "split": 3},
 {"file": "$TMP/lf.sse", "split": 2},
 {"file": "$TMP/cr.sse", "split": 1}]
EOF2
fake_start plan.json

check 'the fixture is CRLF framed, with characters of 2 and 4 bytes' \
	'test "$(grep -c "$(printf "\r")\$" "$FIX/text.sse")" -eq 6 &&
	grep -q "$(printf "caf\303\251 \360\237\230\200")" "$FIX/text.sse" &&
	test "$(wc -l <cr.sse)" -eq 0 && ! grep -q "$(printf "\r")" lf.sse'

check_exit 'a text stream ends with exit 0' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'and nothing is said on stderr' 'test ! -s err'
check 'message_start comes first and names the provider and API' \
	'head -n 1 out | jq -e ".type == \"message_start\" and
	.provider == \"google\" and .api == \"google-generative-ai\" and
	.model == \"gemini-x\" and .usage.inputTokens == 12"'
cat >expect <<'EOF2'
["Hello",0,0]
[", café 😀",5,0]
[" world.",13,0]
EOF2
check 'each part is a text_delta; index counts code points' 'jq -c \
	"select(.type == \"text_delta\") | [.delta, .index, .contentIndex]" \
	out >actual && diff -u expect actual'
check 'message_end comes last: end_turn, one text block' 'tail -n 1 out |
	jq -e ".type == \"message_end\" and .stopReason == \"end_turn\" and
	.message.stopReason == \"stop\" and .message.content ==
	[{type: \"text\", text: \"Hello, café 😀 world.\"}] and
	.message.api == \"google-generative-ai\" and
	(has(\"errorMessage\") | not)"'
check 'usage is the last chunk'"'"'s' 'tail -n 1 out | jq -e ".usage ==
	{inputTokens: 12, outputTokens: 6, totalTokens: 18}"'
check 'one messageId on every line' \
	'test "$(jq -r .messageId out | sort -u | grep -c .)" -eq 1'
jq -c 'del(.messageId)' out >whole.ev

# run NAME: the next plan entry; its events must be those served whole.
run() {
	llm hi </dev/null >"$1.out" && jq_lines "$1.out" &&
	jq -c 'del(.messageId)' "$1.out" >"$1.ev" && diff -u whole.ev "$1.ev"
}
for v in split-1 split-3 lf-split-2 cr-split-1; do
	check_exit "$v: exit 0 and the same events" 0 "run $v"
done
check 'cut a byte at a time, the 4-byte character arrives whole' \
	'jq -r "select(.type == \"text_delta\").delta" split-1.out |
	grep -q "$(printf "\360\237\230\200")" &&
	! grep -q "\\\\ufffd\|$(printf "\357\277\275")" split-1.out'
check 'five requests' 'test "$(fake_requests)" -eq 5'

req=$(fake_req 1)
check 'the request goes to models/MODEL:streamGenerateContent?alt=sse' \
	'jq -e ".method == \"POST\" and .path ==
	\"/v1beta/models/gemini-x:streamGenerateContent?alt=sse\"" "$req"'
check 'the key is in x-goog-api-key, never in the URL' \
	'jq -e ".headers[\"x-goog-api-key\"] == \"g-test\" and
	(.path | test(\"key=\") | not) and
	(.headers | has(\"authorization\") | not)" "$req"'
check 'the body is JSON' \
	'jq -e ".headers[\"content-type\"] == \"application/json\"" "$req"'
check 'the prompt is one user content with one text part' \
	'jq -e ".body.contents == [{role: \"user\", parts: [{text: \"hi\"}]}]" \
	"$req"'
check 'with no generationConfig, tools or system unless asked' \
	'jq -e ".body | keys == [\"contents\"]" "$req"'

# A bare model name that starts with "gemini" is Google's.
printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json && fake_start plan.json
check_exit 'a bare gemini model name selects google' 0 \
	'pi-llm --base-url "$FAKE_URL/v1beta" -m gemini-2.5-flash hi \
	    </dev/null >out2 && jq_lines out2'
check 'and its URL' 'jq -e ".path ==
	\"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse\" and
	.headers[\"x-goog-api-key\"] == \"g-test\"" "$(fake_req 1)"'
check 'message_start names provider google' 'head -n 1 out2 |
	jq -e ".provider == \"google\" and .model == \"gemini-2.5-flash\""'

done_testing
