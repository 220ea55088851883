#!/bin/sh
# How the bytes of a stream are cut and how its lines end must not show in
# the events: the same Anthropic streams served whole, a byte at a time,
# three bytes at a time, with CRLF or lone CR line ends, and with comments
# and split data lines give the golden events; a very long line is whole.
. "$(dirname "$0")/lib.sh"
plan 27

FIX=$ROOT/tests/fixtures/anthropic
PI_CLOCK_FIXED=1700000000000 ANTHROPIC_API_KEY=KEY
export PI_CLOCK_FIXED ANTHROPIC_API_KEY

sed 's/$/\r/' "$FIX/thinking-tool.sse" >crlf.sse
tr '\n' '\r' <"$FIX/thinking-tool.sse" >cr.sse
sed 's/$/\r/' "$FIX/text.sse" >text-crlf.sse
# A comment before each data line, whose JSON then goes on two data lines
# (joined by a newline) and with no space after the first colon; with
# CRLF, a CR taken for a whole line end would cut the event in two.
sed 's/^data: \({"type":"[a-z_]*",\)\(.*\)$/: keep-alive\ndata:\1\ndata: \2/' \
	"$FIX/thinking-tool.sse" >odd.sse
sed 's/$/\r/' odd.sse >odd-crlf.sse

# A text delta of 1.5 MiB on one data line, in a stream otherwise like
# text.sse, served in pieces.
head -c 1572864 /dev/zero | tr '\0' x >big.txt
{
	sed -n '/message_start/,/^$/p' "$FIX/text.sse"
	printf 'event: content_block_start\ndata: %s\n\n' \
	    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'
	printf 'event: content_block_delta\ndata: '
	jq -cj --rawfile t big.txt -n '{type: "content_block_delta", index: 0,
	    delta: {type: "text_delta", text: $t}}'
	printf '\n\n'
	sed -n '/content_block_stop/,$p' "$FIX/text.sse"
} >long.sse

check 'the variants differ from the fixture as meant' \
	'test "$(grep -c "$(printf "\r")\$" crlf.sse)" -eq \
	    "$(wc -l <"$FIX/thinking-tool.sse")" &&
	test "$(wc -l <cr.sse)" -eq 0 &&
	test "$(grep -c "^: keep-alive\$" odd.sse)" -eq 17 &&
	test "$(grep -c "^data:{" odd.sse)" -eq 17'

cat >plan.json <<EOF
[{"file": "$FIX/thinking-tool.sse"},
 {"file": "$FIX/thinking-tool.sse", "split": 1},
 {"file": "$FIX/thinking-tool.sse", "split": 3},
 {"file": "$TMP/crlf.sse"},
 {"file": "$TMP/crlf.sse", "split": 1},
 {"file": "$TMP/crlf.sse", "split": 3},
 {"file": "$TMP/cr.sse", "split": 1},
 {"file": "$TMP/odd.sse", "split": 2},
 {"file": "$TMP/odd-crlf.sse", "split": 1},
 {"file": "$FIX/text.sse"},
 {"file": "$FIX/text.sse", "split": 1},
 {"file": "$FIX/text.sse", "split": 3},
 {"file": "$TMP/text-crlf.sse", "split": 1},
 {"file": "$FIX/text.sse", "chunks": [1, 1, 1, 1, 1, 1, 1, 1], "delay_ms": 1},
 {"file": "$TMP/long.sse", "split": 65536}]
EOF
fake_start plan.json

# run NAME EXPECT: one call, its events without the random messageId.
run() {
	pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x -t low hi \
	    </dev/null >"$1.out" && jq_lines "$1.out" &&
	jq -c 'del(.messageId)' "$1.out" >"$1.ev" && diff -u "$2" "$1.ev"
}

for v in whole split-1 split-3 crlf crlf-split-1 crlf-split-3 cr-split-1 \
    comments-split-2 comments-crlf-split-1; do
	check_exit "thinking-tool, $v: exit 0" 0 "run $v '$FIX/thinking-tool.expect'"
	check "thinking-tool, $v: one messageId" \
		"test \$(jq -r .messageId $v.out | sort -u | wc -l) -eq 1"
done
for v in whole split-1 split-3 crlf-split-1 chunks-of-1; do
	check_exit "text, $v: the golden events" 0 "run text-$v '$FIX/text.expect'"
done
check_exit 'a data line of 1.5 MiB: exit 0' 0 \
	'pi-llm --base-url "$FAKE_URL" -m anthropic/claude-x hi </dev/null \
	    >long.out && jq_lines long.out'
check 'its text arrives whole' \
	'jq -j "select(.type == \"text_delta\").delta" long.out >actual &&
	cmp big.txt actual && jq -e "select(.type == \"message_end\") |
	    .message.content[0].text | length == 1572864" long.out'
check 'each variant was one request' 'test "$(fake_requests)" -eq 15'

done_testing
