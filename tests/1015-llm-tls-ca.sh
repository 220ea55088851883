#!/bin/sh
# Which CA certificates pi-llm trusts: SSL_CERT_FILE, SSL_CERT_DIR and
# CURL_CA_BUNDLE, as OpenSSL and curl read them; and a certificate that
# fails is a configuration error (exit 4), said at once with the host
# and the reason, never retried.  The fake provider speaks TLS on
# loopback with a certificate of a test CA made by tests/helper/mkcert.
. "$(dirname "$0")/lib.sh"
plan 16
if ! command -v openssl >/dev/null; then
	while [ "$tap_n" -lt 16 ]; do skip 'TLS' 'no openssl to make a CA'; done
	done_testing
fi
"$ROOT/tests/helper/mkcert" certs || exit 1
mkdir hashed
ln -s ../certs/ca.pem "hashed/$(openssl x509 -hash -noout -in certs/ca.pem).0"
printf '[{"file": "%s"}]\n' "$ROOT/tests/fixtures/openai/text.sse" >plan.json
fake_start --tls certs/cert.pem certs/key.pem plan.json || exit 1
url=https://127.0.0.1:$FAKE_PORT/v1

# llm NAME [VAR=VALUE ...]: one call over TLS; NAME.out, NAME.err.
llm() {
	n=$1
	shift
	env "$@" OPENAI_API_KEY=sk-test pi-llm --base-url "$url" \
		-m openai/gpt-4.1 hi </dev/null >"$n.out" 2>"$n.err"
	set -- $? && cat "$n.err" && return "$1"
}
answered() { jqs "$1.out" '.[-1].type == "message_end" and
	.[-1].message.content[0].text == "Hello, wörld 😀!"'; }

check_exit 'SSL_CERT_FILE names the CA that signed the server' 0 \
	llm file SSL_CERT_FILE=certs/ca.pem
check 'and the answer comes through' answered file
check_exit 'CURL_CA_BUNDLE too' 0 llm bundle CURL_CA_BUNDLE=certs/ca.pem
check_exit 'and it wins over SSL_CERT_FILE' 0 llm both \
	CURL_CA_BUNDLE=certs/ca.pem SSL_CERT_FILE=certs/other-ca.pem
check_exit 'SSL_CERT_DIR, a hashed directory' 0 llm dir \
	SSL_CERT_DIR=hashed
check 'the host name is checked too (localhost is in the certificate)' \
	'(url=https://localhost:$FAKE_PORT/v1 &&
	llm host SSL_CERT_FILE=certs/ca.pem) && answered host'

before=$(fake_count connections)
check_exit 'a CA that signed nothing of it: exit 4' 4 \
	llm wrong SSL_CERT_FILE=certs/other-ca.pem
check 'at once: one connection, no retry' \
	'is "$(fake_count connections)" $((before + 1)) &&
	! grep -q "\"type\":\"retry\"" wrong.out'
check 'said in band: tls_certificate, not recoverable' 'jqs wrong.out "
	length == 1 and .[0].type == \"error\" and
	.[0].code == \"tls_certificate\" and .[0].recoverable == false and
	.[0].exitCode == 4"'
check 'naming the host and the reason' \
	'grep -q "^pi-llm: cannot verify the TLS certificate of .127.0.0.1:$FAKE_PORT.: .*issuer" wrong.err'
check_exit 'CURL_CA_BUNDLE wins the other way round: exit 4' 4 \
	llm wrong2 CURL_CA_BUNDLE=certs/other-ca.pem SSL_CERT_FILE=certs/ca.pem
check_exit 'a CA file that is not there: exit 4' 4 \
	llm missing SSL_CERT_FILE=no-such.pem
check_exit 'the system store does not know the test CA: exit 4' 4 \
	llm system
check 'and tries no more than the directory and the bundle' \
	'jqs system.out "length == 1 and .[0].code == \"tls_certificate\""'
check 'no handshake was completed by any refused call' \
	'is "$(fake_count handshakes)" 5 && is "$(fake_requests)" 5'

# A replay of a refused call is refused the same way, with no network.
check_exit 'a refused call recorded, and replayed: exit 4 both' 4 \
	'SSL_CERT_FILE=certs/other-ca.pem OPENAI_API_KEY=k pi-llm \
	--base-url "$url" -m openai/gpt-4.1 --record rec.ndjson hi \
	</dev/null >rec.out 2>&1; test $? -eq 4 && fake_stop &&
	pi-llm --base-url "$url" -m openai/gpt-4.1 --replay rec.ndjson hi \
	</dev/null >play.out 2>/dev/null'
done_testing
