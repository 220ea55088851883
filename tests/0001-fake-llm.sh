#!/bin/sh
# The fake provider serves its plan byte for byte and saves what it got,
# so the pi-llm tests can rely on it.
. "$(dirname "$0")/lib.sh"
plan 28

printf 'event: a\ndata: {"x":1}\n\ndata: caf\303\251\n\ndata: [DONE]\n\n' \
	>a.sse
cat >plan.json <<'PLAN'
[{"file": "a.sse"},
 {"status": 429, "body": "{\"error\":\"slow down\"}",
  "headers": {"Retry-After": "2"}},
 {"file": "a.sse", "split": 1},
 {"body": "abcdefghij", "chunks": [3, 5], "delay_ms": 5},
 {"file": "a.sse", "close_after": 5},
 {"file": "a.sse", "reset_after": 7},
 {"file": "a.sse", "stall_after": 4, "stall_ms": 50},
 {"file": "a.sse", "stall_after": 4},
 {"body": "second", "chunked": false},
 {"body_b64": "//5vaw=="},
 {"body": "last"}]
PLAN

check 'fake_start prints the port' 'fake_start plan.json &&
	test "$FAKE_PORT" -gt 0 && test "$(cat req/port)" = "$FAKE_PORT"'
check_exit 'a POST is answered' 0 curl -sS -o out \
	-H 'Authorization: Bearer k-test' -H 'Content-Type: application/json' \
	-d '{"model":"m","stream":true}' "$FAKE_URL/v1/chat/completions"
check_same 'with the plan body' a.sse out
check 'the request is saved before the response' 'jq -e ".method == \"POST\"
	and .path == \"/v1/chat/completions\"
	and .headers.authorization == \"Bearer k-test\"
	and .body == {model: \"m\", stream: true}" "$(fake_req 1)"'
check 'and counted' 'test "$(fake_requests)" -eq 1'

check 'an error entry' 'curl -sS -D hdr -o out -w "%{http_code}" \
	"$FAKE_URL/" >code && test "$(cat code)" = 429 &&
	test "$(cat out)" = "{\"error\":\"slow down\"}"'
check 'has its headers and a Content-Length' \
	'grep -q "^Retry-After: 2" hdr && grep -q "^Content-Length: 21" hdr &&
	grep -q "^Content-Type: application/json" hdr &&
	! grep -qi "^Transfer-Encoding" hdr'

check_exit 'split 1' 0 curl -sS -o out "$FAKE_URL/"
check_same 'delivers the same bytes' a.sse out
check_exit 'chunks' 0 curl -sS --raw -o raw "$FAKE_URL/"
printf '3\r\nabc\r\n5\r\ndefgh\r\n2\r\nij\r\n0\r\n\r\n' >expect
check_same 'puts each piece in its own HTTP chunk' expect raw

check_exit 'close_after is a partial transfer' 18 curl -sS -o out "$FAKE_URL/"
head -c 5 a.sse >expect
check_same 'after that many bytes' expect out
check_exit 'reset_after is a connection reset' 56 curl -sS -o out "$FAKE_URL/"
head -c 7 a.sse >expect
check_same 'after that many bytes' expect out
check_exit 'stall_ms then goes on' 0 curl -sS -o out "$FAKE_URL/"
check_same 'to the end' a.sse out

curl -sS -N -o stalled "$FAKE_URL/" 2>/dev/null &
curl_pid=$!
check 'a stall without stall_ms holds the connection' \
	'wait_until "test \$(wc -c <stalled) -eq 4" && test "$(fake_requests)" -eq 8'
check 'without blocking another' 'curl -sS -D hdr -o out "$FAKE_URL/" &&
	test "$(cat out)" = second && grep -q "^Content-Length: 6" hdr'
kill "$curl_pid" && wait "$curl_pid" 2>/dev/null
check 'and a client leaving mid-stall does no harm' \
	'printf "\377\376ok" >expect && curl -sS -o out "$FAKE_URL/" &&
	cmp expect out'

check 'the last entry repeats' 'curl -sS -o out "$FAKE_URL/a" &&
	test "$(cat out)" = last && curl -sS -o out "$FAKE_URL/b" &&
	test "$(cat out)" = last && test "$(fake_requests)" -eq 12'
head -c 100000 /dev/zero | tr '\0' x >big
check 'Expect: 100-continue is answered' 'curl -sS -v -o out \
	-H "Expect: 100-continue" --data-binary @big "$FAKE_URL/" 2>err &&
	grep -q "^< HTTP/1.1 100 Continue" err && test "$(cat out)" = last'
check 'and the body saved' \
	'jq -j .body "$(fake_req 13)" >body && cmp big body'
check 'a chunked request body is saved' 'curl -sS -o out \
	-H "Transfer-Encoding: chunked" --data-binary @a.sse "$FAKE_URL/" &&
	jq -j .body "$(fake_req 14)" >body && cmp a.sse body'
check 'a body that is not JSON is saved as a string' \
	'curl -sS -o out -d "a=1&b" "$FAKE_URL/" &&
	jq -e ".body == \"a=1&b\"" "$(fake_req 15)"'

check 'fake_stop ends the server' 'port=$FAKE_PORT && fake_stop &&
	! curl -sS -o out "http://127.0.0.1:$port/" 2>/dev/null'
echo '[{"body": "x", "bogus": 1}]' >bad.json
check_exit 'a plan with an unknown key is refused' 2 \
	"$ROOT/tests/helper/fake-llm" bad.json
check 'and fake_start fails' '! fake_start bad.json'

done_testing
