#!/bin/sh
# SSE framing through the real HTTP path: however the bytes are cut and
# whatever line ends, comments and fields a server uses, the events are
# the same as from the plain stream.
. "$(dirname "$0")/lib.sh"
plan 47

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
llm() { pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x "$@"; }
# serve FILE [EXTRA]: one plan entry for FILE, EXTRA its other keys.
serve() { printf '[{"file": "%s"%s}]\n' "$1" "${2:+, $2}" >plan.json &&
	fake_start plan.json; }

# as_plain TITLE FILE [EXTRA]: three checks against the plain events.
as_plain() {
	serve "$2" "$3"
	check_exit "$1" 0 'llm hi </dev/null >out 2>err'
	check 'every line is a JSON object' 'jq_lines out'
	jq -c 'del(.messageId)' out >events 2>/dev/null
	check_same 'and the events are those of the plain stream' plain events
}

serve "$FIX/text.sse"
check_exit 'the plain stream' 0 'llm hi </dev/null >out 2>err'
jq -c 'del(.messageId)' out >plain
check 'gives five events' 'jq_lines out && test "$(grep -c . plain)" -eq 5'

# One byte per HTTP chunk cuts every UTF-8 character and line end.
as_plain 'one byte at a time' "$FIX/text.sse" '"split": 1'
sed 's/$/\r/' "$FIX/text.sse" >crlf.sse
as_plain 'CRLF line ends' "$TMP/crlf.sse"
as_plain 'CRLF line ends, one byte at a time' "$TMP/crlf.sse" '"split": 1'
tr '\n' '\r' <"$FIX/text.sse" >cr.sse
as_plain 'lone CR line ends' "$TMP/cr.sse"
as_plain 'lone CR line ends, one byte at a time' "$TMP/cr.sse" '"split": 1'
sed 's/^data: /: keep-alive\ndata: /; s/^$/\n: OPENROUTER PROCESSING\n/' \
	"$FIX/text.sse" >comments.sse
as_plain 'comment lines' "$TMP/comments.sse"
awk '/^data: / { print "event: message"; print "id: " NR; print "retry: 3000" }
	{ print }' "$FIX/text.sse" >fields.sse
as_plain 'event, id and retry fields' "$TMP/fields.sse"
sed 's/^data: /data:/' "$FIX/text.sse" >nospace.sse
as_plain 'data: without a space' "$TMP/nospace.sse"
# JSON may have a line break between tokens; data lines join with \n.
sed 's/^data: \({"id":"chatcmpl-1",\)/data: \1\ndata: /' "$FIX/text.sse" \
	>multiline.sse
check 'a JSON chunk over two data: lines (the fixture has them)' \
	'test "$(grep -c "^data: \"object\"" multiline.sse)" -eq 6'
as_plain 'a JSON chunk over two data: lines' "$TMP/multiline.sse"
as_plain 'over two data: lines, one byte at a time' "$TMP/multiline.sse" \
	'"split": 1'
# A CRLF is one line end even when cut in two: read as two, it would
# end the event between its data: lines.
sed 's/$/\r/' multiline.sse >multiline-crlf.sse
as_plain 'two data: lines with CRLF, one byte at a time' \
	"$TMP/multiline-crlf.sse" '"split": 1'
tr '\n' '\r' <multiline.sse >multiline-cr.sse
as_plain 'two data: lines with lone CR, one byte at a time' \
	"$TMP/multiline-cr.sse" '"split": 1'
{ printf '\357\273\277'; cat "$FIX/text.sse"; } >bom.sse
as_plain 'a leading byte order mark' "$TMP/bom.sse"

# A single delta of more than 1 MiB, on one data: line.
awk 'BEGIN { for (i = 0; i < 80000; i++)
	printf "abc w\303\266rld \360\237\230\200 " }' >big.txt
{
	printf 'data: {"choices":[{"index":0,"delta":{"role":"assistant",'
	printf '"content":"'; cat big.txt; printf '"},"finish_reason":null}]}\n\n'
	printf 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
	printf '\n\ndata: [DONE]\n\n'
} >big.sse
check 'the long line is longer than 1 MiB' \
	'test "$(head -n 1 big.sse | wc -c)" -gt 1048576'
serve "$TMP/big.sse"
check_exit 'a data: line longer than 1 MiB' 0 'llm hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'its text arrives whole, in one delta' 'jq -s -e "
	map(select(.type == \"text_delta\")) | length == 1 and .[0].index == 0" \
	out && jq -j "select(.type == \"text_delta\").delta" out >delta &&
	cmp big.txt delta'
check 'and in the message' 'tail -n 1 out |
	jq -j ".message.content[0].text" >text && cmp big.txt text'

done_testing
