#!/bin/sh
# Keys and providers: the key comes from the preset's variable or
# PI_API_KEY, goes only into the request, and is never printed; a local
# server needs none; -m PROVIDER/MODEL picks the preset.
. "$(dirname "$0")/lib.sh"
plan 25
unset PI_API_KEY GROQ_API_KEY DEEPSEEK_API_KEY MISTRAL_API_KEY XAI_API_KEY
text=$ROOT/tests/fixtures/openai/text.sse
common=$ROOT/tests/fixtures/common
# The 401 fixtures quote okey, masked and whole.
okey=sk-openai-SECRET-4242abcd
pkey=pi-SECRET-7777wxyz
rkey=sk-or-SECRET-9191mnop

# run NAME CMD...: NAME.out, NAME.err (also printed, for check to show
# if it fails).
run() {
	n=$1
	shift
	"$@" >"$n.out" 2>"$n.err"
	set -- $? && cat "$n.err" && return "$1"
}
# hdr N NAME: header NAME of request N, or "none".
hdr() { jq -r --arg h "$2" '.headers[$h] // "none"' "$(fake_req "$1")"; }

echo "[{\"file\": \"$text\"}]" >plan.json
fake_start plan.json

check_exit 'OPENAI_API_KEY' 0 'run a env OPENAI_API_KEY=$okey pi-llm \
	--base-url "$FAKE_URL/v1" -m openai/gpt-x hi </dev/null'
check 'is sent as a Bearer token' 'jq_lines a.out &&
	is "$(hdr 1 authorization)" "Bearer $okey"'

check_exit 'PI_API_KEY' 0 'run b env OPENAI_API_KEY=$okey PI_API_KEY=$pkey \
	pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x hi </dev/null'
check 'overrides OPENAI_API_KEY' 'jq_lines b.out &&
	is "$(hdr 2 authorization)" "Bearer $pkey"'
check_exit 'an empty PI_API_KEY' 0 'run b2 \
	env OPENAI_API_KEY=$okey PI_API_KEY= pi-llm --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x hi </dev/null'
check 'is ignored' 'jq_lines b2.out &&
	is "$(hdr 3 authorization)" "Bearer $okey"'

# Were the key check missing, the request would go to the fake as a
# proxy (and be counted there), never to the network.
check_exit 'no key for openai and no --base-url: exit 4' 4 \
	'run c env -u no_proxy -u NO_PROXY https_proxy="$FAKE_URL" \
	HTTPS_PROXY="$FAKE_URL" pi-llm -m openai/gpt-x hi </dev/null'
check 'code no_api_key, naming the variable, and no request' '
	jqs c.out "length == 1 and .[0].code == \"no_api_key\" and
	(.[0].message | contains(\"OPENAI_API_KEY\"))" &&
	is "$(fake_requests)" 3'

check_exit 'ollama/qwen3 with --base-url and no key' 0 \
	'run d pi-llm -m ollama/qwen3 --base-url "$FAKE_URL/v1" hi </dev/null'
check 'sends no Authorization header' 'is "$(fake_requests)" 4 &&
	is "$(hdr 4 authorization)" none'
check 'to the base URL, for model qwen3' 'jq -e ".path ==
	\"/v1/chat/completions\" and .body.model == \"qwen3\"" "$(fake_req 4)" &&
	jqs d.out ".[0].provider == \"ollama\" and .[0].model == \"qwen3\""'

check_exit '--provider nope: exit 4' 4 'run e env OPENAI_API_KEY=$okey pi-llm \
	--provider nope --base-url "$FAKE_URL/v1" -m gpt-x hi </dev/null'
check 'names it, and sends nothing' 'grep -q nope e.err && jq_lines e.out &&
	is "$(fake_requests)" 4'

check_exit 'openrouter/meta-llama/llama-3' 0 'run f \
	env OPENROUTER_API_KEY=$rkey pi-llm -m openrouter/meta-llama/llama-3 \
	--base-url "$FAKE_URL/v1" hi </dev/null'
check 'asks openrouter for meta-llama/llama-3' 'jq -e \
	".body.model == \"meta-llama/llama-3\"" "$(fake_req 5)" &&
	jqs f.out ".[0].provider == \"openrouter\" and
	.[0].model == \"meta-llama/llama-3\" and
	.[-1].message.model == \"meta-llama/llama-3\""'
check 'with OPENROUTER_API_KEY' is "$(hdr 5 authorization)" "Bearer $rkey"

# OpenAI's answer to a bad key shows a masked part of it.
echo "[{\"status\": 401, \"file\": \"$common/401-masked-key.json\"}]" \
	>plan.json
fake_start plan.json
check_exit 'a 401 that echoes part of the key: exit 4' 4 \
	'run g env OPENAI_API_KEY=$okey pi-llm --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x hi </dev/null'
check 'is reported as auth, with the server words' 'jqs g.out "length == 1
	and .[0].code == \"auth\"
	and (.[0].message | contains(\"Incorrect API key provided\"))" &&
	grep -q "Incorrect API key provided" g.err'

# A proxy or a home-made server may echo the whole key back.
echo "[{\"status\": 401, \"file\": \"$common/401-whole-key.json\"}]" \
	>plan.json
fake_start plan.json
check_exit 'a 401 that echoes the whole key: exit 4' 4 \
	'run h env OPENAI_API_KEY=$okey pi-llm --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x hi </dev/null'
check 'does not print it' 'grep -qF "$okey" "$common/401-whole-key.json" &&
	jq_lines h.out && ! grep -F "$okey" h.out h.err'

for k in "$okey" "$pkey" "$rkey"; do
	check "the key ${k%%-SECRET*}-... is in no output" \
		'! grep -F "$k" ./*.out ./*.err'
done

check_exit '--list-providers' 0 run l pi-llm --list-providers
check 'prints NDJSON provider lines with their base URLs' jqs l.out '
	all(.type == "provider") and
	any(.name == "openai" and .baseUrl == "https://api.openai.com/v1") and
	any(.name == "anthropic" and .baseUrl == "https://api.anthropic.com") and
	any(.name == "ollama" and .baseUrl == "http://localhost:11434/v1")'

done_testing
