#!/bin/sh
# --record keeps the provider's answers; --replay plays them through the
# same parser with no network: the same events (and with --replay-clock
# the same bytes), the same retries and exit status, and a request that
# is not the recorded one refused.
. "$(dirname "$0")/lib.sh"
plan 17
text=$ROOT/tests/fixtures/openai/text.sse
cat >plan.json <<JSON
[{"status": 503, "headers": {"retry-after-ms": "5"},
  "body": "{\"error\":{\"message\":\"busy\",\"type\":\"server_error\"}}"},
 {"file": "$text", "split": 1}]
JSON
fake_start plan.json
url=$FAKE_URL/v1

check_exit 'a call recorded' 0 'OPENAI_API_KEY=sk-secret-0123456789 pi-llm \
	--base-url "$url" -m openai/gpt-4.1 --record rec.ndjson hi \
	</dev/null >live.out'
check 'the recording is NDJSON, one line a slice' 'jq_lines rec.ndjson &&
	jq -se ".[0].type == \"recording\" and
	([.[] | select(.type == \"chunk\")] | length) > 100 and
	([.[] | select(.type == \"end\")] | length) == 2 and
	([.[] | select(.type == \"retry\")] | length) == 1" rec.ndjson'
check 'a character cut by the network is kept as base64' \
	'jq -se "any(.[]; has(\"b64\"))" rec.ndjson'
check 'and the key is nowhere in it' '! grep -q sk-secret rec.ndjson'
fake_stop

check_exit 'a replay, with no server and no key' 0 'pi-llm --base-url "$url" \
	-m openai/gpt-4.1 --replay rec.ndjson --replay-clock hi </dev/null >replay.out'
check 'gives the same bytes with --replay-clock' 'cmp live.out replay.out'
check 'including the retry and the cost' 'jq_lines replay.out &&
	head -n 1 replay.out | jq -e ".type == \"retry\" and .delayMs == 5" &&
	tail -n 1 replay.out | jq -e ".usage.cost > 0"'
check_exit 'a replay on the clock of now' 0 'pi-llm --base-url "$url" \
	-m openai/gpt-4.1 --replay rec.ndjson hi </dev/null >now.out'
check 'differs only in ts' 'jq -c "del(.ts)" live.out >a &&
	jq -c "del(.ts)" now.out >b && cmp a b'

check_exit 'another prompt is not the recorded request' 3 'pi-llm \
	--base-url "$url" -m openai/gpt-4.1 --replay rec.ndjson bye \
	</dev/null >other.out 2>other.err'
check 'and says so in band' 'jq_lines other.out &&
	jq -e "select(.type == \"error\") | .code == \"replay_mismatch\"" other.out'
check_exit '--replay-loose plays it anyway' 0 'pi-llm --base-url "$url" \
	-m openai/gpt-4.1 --replay rec.ndjson --replay-loose bye </dev/null >loose.out'

# A failure replays as a failure, with its exit status.
printf '[{"status": 401, "body": "{\\"error\\":{\\"message\\":\\"bad key\\"}}"}]\n' >p401.json
fake_start p401.json
check_exit 'a refused call recorded' 4 'OPENAI_API_KEY=k pi-llm --base-url \
	"$FAKE_URL/v1" -m openai/x --record r401.ndjson hi </dev/null >l401.out'
url=$FAKE_URL/v1
fake_stop
check_exit 'replays as the same failure' 4 'pi-llm --base-url "$url" \
	-m openai/x --replay r401.ndjson hi </dev/null >p401.out'
check 'with the same error' 'jq -c "del(.ts)" l401.out >a &&
	jq -c "del(.ts)" p401.out >b && cmp a b'

check_exit 'the faux provider has nothing to record' 2 'pi-llm -m faux/x \
	--faux-script "$ROOT/examples/hello.faux" --record x.ndjson hi </dev/null'
check_exit '--replay-clock needs --replay' 2 'pi-llm -m openai/x \
	--replay-clock hi </dev/null'
done_testing
