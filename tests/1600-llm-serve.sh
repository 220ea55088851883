#!/bin/sh
# pi-llm --serve: three calls in one process over one connection (and,
# over TLS, one handshake), each call's events and request those of a
# one-shot run with the same context and options, each call ended by a
# call_end line that carries its number, id and exit status.
. "$(dirname "$0")/lib.sh"
plan 16

FIX=$ROOT/tests/fixtures/openai
OPENAI_API_KEY=k-test PI_CLOCK_FIXED=1700000000000
export OPENAI_API_KEY PI_CLOCK_FIXED
printf '[{"file": "%s"}, {"file": "%s"}, {"file": "%s"}]\n' \
	"$FIX/text.sse" "$FIX/tool-calls.sse" "$FIX/text.sse" >plan.json

printf '{"role":"user","content":"hi"}\n' >ctx1
cat >ctx2 <<'EOF'
{"type":"tool","name":"read","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
{"role":"user","content":"read dir/a\"b.txt"}
EOF
printf '%s\n' '{"type":"system","text":"be brief"}' \
	'{"role":"user","content":"hello"}' >ctx3
{ cat ctx1; echo '{"type":"call","id":"one"}'
  cat ctx2; echo '{"type":"call","id":2,"model":"openai/gpt-4.1","thinking":"high"}'
  cat ctx3; echo '{"type":"call","prompt":"and more","maxTokens":100}'
} >in

# calls OUT PREFIX: the events of each call of a serving run's output,
# without its serve and call_end lines, into PREFIX1, PREFIX2, ...
calls() {
	rm -f "$2"*
	awk -v p="$2" 'NR == 1 { next }
		/"type":"call_end"/ { n++; next }
		{ print > (p (n + 1)) }' "$1"
}
# same A B: the same events but for the message id.
same() { jq -c 'del(.messageId)' "$1" >"$1.n" &&
	jq -c 'del(.messageId)' "$2" >"$2.n" && diff -u "$1.n" "$2.n"; }

fake_start --keep-alive plan.json || exit 1
check_exit 'three calls through one serving process: exit 0' 0 \
	'pi-llm --serve --base-url "$FAKE_URL/v1" -m openai/gpt-x \
	<in >serve.out 2>serve.err'
check 'nothing on stderr, NDJSON on stdout' 'test ! -s serve.err &&
	jq_lines serve.out'
check 'the first line says it serves, and who' 'head -n 1 serve.out |
	jq -e ".type == \"serve\" and .program == \"pi-llm\" and
	.protocol == 1 and (.pid | type) == \"number\" and .v == 1"'
printf '%s\n' '[1,"one",0]' '[2,2,0]' '[3,null,0]' >ends.want
check 'each call ends with call_end: its number, its id, exit 0' 'jq -c \
	"select(.type == \"call_end\") | [.call, .id, .exitCode]" serve.out \
	>ends && diff -u ends.want ends'
check 'and call_end is the last line of each call' \
	'tail -n 1 serve.out | jq -e ".type == \"call_end\"" &&
	test "$(grep -c "\"type\":\"message_end\"" serve.out)" -eq 3 &&
	jq -r .type serve.out | grep -A1 "^message_end$" | grep -c call_end |
	grep -qx 3'
check 'one connection carried the three requests' \
	'is "$(fake_count connections)" 1 && is "$(fake_requests)" 3'
for k in 1 2 3; do jq -S .body "$(fake_req $k)" >sreq$k; done
fake_stop

# The same three calls, one process each.
fake_start --keep-alive plan.json || exit 1
llm() { pi-llm --base-url "$FAKE_URL/v1" "$@"; }
check_exit 'the same calls one-shot: exit 0 each' 0 \
	'llm -m openai/gpt-x <ctx1 >one1 &&
	llm -m openai/gpt-4.1 -t high <ctx2 >one2 &&
	llm -m openai/gpt-x --max-tokens 100 "and more" <ctx3 >one3'
check 'took three connections' 'is "$(fake_count connections)" 3'
calls serve.out call
for k in 1 2 3; do
	check "call $k: the events of the one-shot run" same "one$k" "call$k"
done
check 'and the same requests, options of the call line included' \
	'for k in 1 2 3; do jq -S .body "$(fake_req $k)" >oreq$k &&
	diff -u oreq$k sreq$k || exit 1; done &&
	jq -e ".model == \"gpt-4.1\" and .reasoning_effort == \"high\"" sreq2 &&
	jq -e ".max_completion_tokens == 100 and
	.messages[-1].content == \"and more\"" sreq3'
fake_stop

if command -v openssl >/dev/null && "$ROOT/tests/helper/mkcert" certs; then
	fake_start --keep-alive --tls certs/cert.pem certs/key.pem \
		plan.json || exit 1
	check_exit 'the three calls over TLS: exit 0' 0 \
		'SSL_CERT_FILE=certs/ca.pem pi-llm --serve \
		--base-url "https://localhost:$FAKE_PORT/v1" -m openai/gpt-x \
		<in >tls.out 2>tls.err'
	check 'one connection, one TLS handshake' \
		'is "$(fake_count connections)" 1 &&
		is "$(fake_count handshakes)" 1 && is "$(fake_requests)" 3 &&
		calls tls.out tcall && same call2 tcall2'
	fake_stop
	# The first answer is cut: the next call needs a new connection.
	printf '[{"file": "%s", "reset_after": 300}, {"file": "%s"}]\n' \
		"$FIX/text.sse" "$FIX/text.sse" >cut.json
	fake_start --keep-alive --tls certs/cert.pem certs/key.pem \
		cut.json || exit 1
	check 'a connection lost in a call: the next call makes another' \
		'{ head -n 2 in; head -n 2 in; } | SSL_CERT_FILE=certs/ca.pem pi-llm \
		--serve --base-url "https://localhost:$FAKE_PORT/v1" \
		-m openai/gpt-x >cut.out 2>/dev/null &&
		jq -c "select(.type == \"call_end\") | .exitCode" cut.out |
		tr "\n" " " | grep -qx "75 0 " &&
		is "$(fake_count connections)" 2'
	check 'and resumes the TLS session of the first' \
		'is "$(fake_count resumed)" 1'
else
	for t in 'the three calls over TLS: exit 0' \
	    'one connection, one TLS handshake' \
	    'a connection lost in a call: the next call makes another' \
	    'and resumes the TLS session of the first'; do
		skip "$t" 'no openssl'
	done
fi
done_testing
