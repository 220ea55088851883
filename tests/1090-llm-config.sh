#!/bin/sh
# models.json and auth.json in the config dir ($PI_HOME): custom
# providers and models, overrides of presets, compat switches, headers,
# keys from variables and commands, their order, and errors that name
# the file, the line and the field.
. "$(dirname "$0")/lib.sh"
plan 25
mkdir -p "$PI_HOME"
text=$ROOT/tests/fixtures/openai/text.sse
printf '[{"file": "%s"}]\n' "$text" >plan.json
fake_start plan.json
req() { jq -c "$1" "$(fake_req "${2:-1}")"; }

cat >"$PI_HOME/models.json" <<JSON
{
  "providers": {
    "box": {
      "baseUrl": "$FAKE_URL/v1",
      "api": "openai-completions",
      "apiKey": "BOX_KEY",
      "headers": {"X-Plain": "one", "X-Var": "BOX_TEAM", "X-Cmd": "!echo three"},
      "compat": {"supportsDeveloperRole": true, "maxTokensField": "max_tokens",
                 "supportsUsageInStreaming": false, "thinkingFormat": "qwen"},
      "models": [
        {"id": "coder", "maxTokens": 4096,
         "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
         "headers": {"X-Model": "coder"}}
      ]
    },
    "openai": {
      "baseUrl": "$FAKE_URL/v1",
      "modelOverrides": {"gpt-4.1": {"cost": {"input": 10, "output": 0,
                                              "cacheRead": 0, "cacheWrite": 0}}}
    }
  }
}
JSON
check_exit 'a models.json provider' 0 'BOX_KEY=box-secret BOX_TEAM=two \
	pi-llm -m box/coder -s sys --max-tokens 100 -t low hi </dev/null >box.out'
check 'its answer is priced from its model' 'jq_lines box.out &&
	tail -n 1 box.out | jq -e ".message.provider == \"box\" and
	.message.usage.cost.input == 0.00005"'
check 'its key: the variable named by apiKey' \
	'test "$(req .headers.authorization)" = "\"Bearer box-secret\""'
check 'its headers: literal, variable, command, model' 'req ".headers |
	[.\"x-plain\", .\"x-var\", .\"x-cmd\", .\"x-model\"]" |
	grep -qx "\[\"one\",\"two\",\"three\",\"coder\"\]"'
check 'its compat: developer role, max_tokens, no stream_options' 'req ".body |
	.messages[0].role == \"developer\" and .max_tokens == 100 and
	(has(\"stream_options\") | not) and (has(\"max_completion_tokens\") |
	not)" | grep -qx true'
check 'thinkingFormat qwen sends enable_thinking, not reasoning_effort' \
	'req ".body | .enable_thinking == true and
	(has(\"reasoning_effort\") | not)" | grep -qx true'
check_exit 'it is listed with the catalogue' 0 \
	'pi-llm --list-models box/ >list.out && jq_lines list.out'
check 'with defaults filled in' 'jq -se "length == 1 and .[0].name ==
	\"coder\" and .[0].contextWindow == 128000 and .[0].api ==
	\"openai-completions\"" list.out'

check_exit 'a preset pointed elsewhere by models.json' 0 'OPENAI_API_KEY=k \
	pi-llm -m openai/gpt-4.1 hi </dev/null >over.out'
check 'goes there, priced by modelOverrides' 'test "$(fake_requests)" = 2 &&
	tail -n 1 over.out | jq -e ".message.usage.cost.input == 0.0005"'

# Keys: PI_API_KEY, auth.json, the provider's variable, models.json.
printf '{"box": {"type": "api_key", "key": "from-auth"}}\n' >"$PI_HOME/auth.json"
chmod 600 "$PI_HOME/auth.json"
BOX_KEY=from-models pi-llm -m box/coder hi </dev/null >/dev/null
check 'auth.json beats models.json' \
	'test "$(req .headers.authorization 3)" = "\"Bearer from-auth\""'
PI_API_KEY=from-pi BOX_KEY=x pi-llm -m box/coder hi </dev/null >/dev/null
check 'PI_API_KEY beats auth.json' \
	'test "$(req .headers.authorization 4)" = "\"Bearer from-pi\""'
printf '{"openai": {"type": "api_key", "key": "auth-openai"}}\n' \
	>"$PI_HOME/auth.json"
OPENAI_API_KEY=from-env pi-llm -m openai/gpt-4.1 hi </dev/null >/dev/null
check 'auth.json beats the provider variable' \
	'test "$(req .headers.authorization 5)" = "\"Bearer auth-openai\""'
chmod 644 "$PI_HOME/auth.json"
check_exit 'an auth.json others may read is refused' 4 \
	'OPENAI_API_KEY=k pi-llm -m openai/gpt-4.1 hi </dev/null >open.out 2>open.err'
check 'saying why, in band too' 'grep -q "chmod 600" open.err && jq_lines open.out &&
	jq -e "select(.type == \"error\") | .code == \"bad_config\"" open.out'
check 'and nothing was sent' 'test "$(fake_requests)" = 5'
rm "$PI_HOME/auth.json"

# A key command that fails says so without its output.
sed 's/"BOX_KEY"/"!echo half-a-secret; exit 3"/' "$PI_HOME/models.json" >m.json &&
	mv m.json "$PI_HOME/models.json"
check_exit 'a failing key command' 4 'pi-llm -m box/coder hi </dev/null >cmd.out 2>cmd.err'
check 'is named, its output never shown' 'grep -q "the key of provider .box." cmd.err &&
	! grep -q half-a-secret cmd.err cmd.out'

# Errors name the file, the line and the field.
bad() { printf '%s\n' "$@" >"$PI_HOME/models.json"; }
bad '{' ' "providers": {' '  "x": {' '   "api": "openai-completions",' \
	'   "baseUrl": "http://h",' '   "models": [' '    {"id": "a"},' \
	'    {"id": "b", "maxTokens": -1}' '   ]' '  }' ' }' '}'
check_exit 'a bad model limit' 4 'pi-llm -m x/a hi </dev/null >/dev/null 2>e1'
check 'is found at its line and field' \
	'grep -q "models.json:8: providers.x.models\[1\].maxTokens: must be a positive number" e1'
bad '{' ' "providers": {' '  "y": {' '   "baseUrl": "http://h",' \
	'   "api": "carrier-pigeon"' '  }' ' }' '}'
check_exit 'an unknown API' 4 'pi-llm -m y/a hi </dev/null >/dev/null 2>e2'
check 'is named with its line' 'grep -q "models.json:5: providers.y.api: unknown API" e2'
bad '{' ' "providers": {' '  "z": ' ' }' '}'
check_exit 'broken JSON' 4 'pi-llm -m z/a hi </dev/null >/dev/null 2>e3'
check 'is reported at its line' 'grep -q "models.json:4: invalid JSON" e3'
bad '{"providers": {"n": {"api": "openai-completions"}}}'
check_exit 'a new provider without baseUrl' 4 \
	'pi-llm -m n/a hi </dev/null >/dev/null 2>e4 && cat e4'
done_testing
