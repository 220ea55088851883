#!/bin/sh
# What pi-llm sends to an OpenAI-compatible server: path, key, stream
# options, system prompt, tools, token limit, reasoning effort, images.
. "$(dirname "$0")/lib.sh"
plan 32

FIX=$ROOT/tests/fixtures/openai
printf '[{"file": "%s"}]\n' "$FIX/text.sse" >plan.json
fake_start plan.json
# req N JQ-ARGS...: jq over the saved request N.
req() { req_n=$1; shift; jq "$@" "$(fake_req "$req_n")"; }

check_exit 'a prompt with -s, --max-tokens and -t low' 0 \
	'OPENAI_API_KEY=k-test pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x \
	-s "Be terse." --max-tokens 100 -t low Say hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'goes to /v1/chat/completions as a JSON POST' 'req 1 -e "
	.method == \"POST\" and .path == \"/v1/chat/completions\" and
	(.headers[\"content-type\"] | startswith(\"application/json\"))"'
check 'with the key as a bearer token' \
	'req 1 -e ".headers.authorization == \"Bearer k-test\""'
check 'and never puts the key on stdout or stderr' \
	'! grep -q k-test out err'
check 'names the model and asks for a stream with usage' 'req 1 -e ".body |
	.model == \"gpt-x\" and .stream == true and
	.stream_options.include_usage == true"'
check 'sends -s as the first message, then the prompt words' \
	'req 1 -e ".body.messages == [{role: \"system\", content: \"Be terse.\"},
	{role: \"user\", content: \"Say hi\"}]"'
check 'max_completion_tokens from --max-tokens for openai' 'req 1 -e ".body |
	.max_completion_tokens == 100 and (has(\"max_tokens\") | not)"'
check 'reasoning_effort low from -t low' \
	'req 1 -e ".body.reasoning_effort == \"low\""'
check 'no tools when none were given' 'req 1 -e ".body | has(\"tools\") | not"'

# A context on stdin: system line, tool lines, a user message with an image.
cat >ctx <<'CTX'
{"type":"system","text":"You read files."}
{"type":"tool","name":"read","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}
{"type":"tool","name":"ls","description":"List a directory","inputSchema":{"type":"object","properties":{}}}
{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"timestamp":1}
CTX
check_exit 'a context on stdin with -t medium' 0 \
	'OPENAI_API_KEY=k-test pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x \
	-t medium <ctx >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'the system line is the first message' \
	'req 2 -e ".body.messages[0] ==
	{role: \"system\", content: \"You read files.\"}"'
check 'the image goes as an image_url with a data URL' \
	'req 2 -e ".body.messages[1] == {role: \"user\", content: [
	{type: \"text\", text: \"What is this?\"},
	{type: \"image_url\",
	 image_url: {url: \"data:image/png;base64,iVBORw0KGgo=\"}}]}"'
check 'and nothing else is sent' 'req 2 -e ".body.messages | length == 2"'
check 'tool lines become function tools, in order' 'req 2 -e ".body.tools == [
	{type: \"function\", function: {name: \"read\",
	description: \"Read a file\", parameters: {type: \"object\",
	properties: {path: {type: \"string\"}}, required: [\"path\"]}}},
	{type: \"function\", function: {name: \"ls\",
	description: \"List a directory\",
	parameters: {type: \"object\", properties: {}}}}]"'
check 'reasoning_effort medium from -t medium' \
	'req 2 -e ".body.reasoning_effort == \"medium\""'
check 'no token limit unless asked' 'req 2 -e ".body |
	(has(\"max_tokens\") or has(\"max_completion_tokens\")) | not"'

echo 'Answer in French.' >sys.txt
check_exit '-s @FILE and -t high' 0 \
	'OPENAI_API_KEY=k-test pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x \
	-s @sys.txt -t high hi </dev/null >out 2>err'
check 'take the system prompt from the file' 'req 3 -e \
	".body.messages[0].role == \"system\" and
	(.body.messages[0].content | rtrimstr(\"\n\")) == \"Answer in French.\""'
check 'reasoning_effort high from -t high' \
	'req 3 -e ".body.reasoning_effort == \"high\""'
check 'without -t there is no reasoning_effort' \
	'req 1 -e ".body.reasoning_effort == \"low\"" &&
	OPENAI_API_KEY=k-test pi-llm --base-url "$FAKE_URL/v1" -m openai/gpt-x \
	hi </dev/null >out 2>err && req 4 -e ".body | has(\"reasoning_effort\") | not"'

# Local servers and most compatible providers only know max_tokens.
check_exit 'the ollama preset with no key' 0 \
	'pi-llm -m ollama/qwen3 --base-url "$FAKE_URL/v1" --max-tokens 50 \
	hi </dev/null >out 2>err'
check 'every line is a JSON object' 'jq_lines out'
check 'sends max_tokens, not max_completion_tokens' 'req 5 -e ".body |
	.max_tokens == 50 and (has(\"max_completion_tokens\") | not)"'
check 'the model without its provider, and no Authorization' 'req 5 -e "
	.path == \"/v1/chat/completions\" and .body.model == \"qwen3\" and
	(.headers | has(\"authorization\") | not)"'
check_exit 'the groq preset' 0 \
	'GROQ_API_KEY=k-groq pi-llm -m groq/llama-3.3-70b \
	--base-url "$FAKE_URL/v1" --max-tokens 70 hi </dev/null >out 2>err'
check 'sends max_tokens with its own key' 'req 6 -e "
	.headers.authorization == \"Bearer k-groq\" and
	.body.model == \"llama-3.3-70b\" and .body.max_tokens == 70 and
	(.body | has(\"max_completion_tokens\") | not)"'
check_exit 'PI_API_KEY beside OPENAI_API_KEY' 0 \
	'PI_API_KEY=k-pi OPENAI_API_KEY=k-test pi-llm --base-url "$FAKE_URL/v1" \
	-m openai/gpt-x hi </dev/null >out 2>err'
check 'wins' 'req 7 -e ".headers.authorization == \"Bearer k-pi\""'
check 'and is not printed' 'jq_lines out && ! grep -q k-pi out err'
check 'seven requests in all' 'test "$(fake_requests)" -eq 7'

done_testing
