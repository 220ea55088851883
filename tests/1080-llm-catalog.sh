#!/bin/sh
# The model catalogue: --list-models prints it as NDJSON, a known model's
# price becomes the cost in every usage, and its output limit caps a
# default max_tokens that it would refuse.
. "$(dirname "$0")/lib.sh"
plan 12

check_exit 'list-models exits 0' 0 'pi-llm --list-models >all.out'
check 'every line is a model event' 'jq_lines all.out &&
	jq -se "length > 20 and all(.type == \"model\" and .v == 1)" all.out'
check 'each has limits, prices and its API' 'jq -se "all(
	(.contextWindow | numbers) and (.maxTokens | numbers) and
	(.cost.input | numbers) and (.cost.output | numbers) and
	(.api | strings) and (.input | arrays))" all.out'
check_exit 'a pattern filters, any case' 0 \
	'pi-llm --list-models SONNET >some.out && jq_lines some.out'
check 'only the matching models' 'jq -se "length >= 2 and all(
	(.provider + \"/\" + .id + .name) | test(\"sonnet\"; \"i\"))" some.out'
check_exit 'two patterns are a usage error' 2 'pi-llm --list-models a b'

# gpt-4.1: $2 in, $8 out, $0.50 cached per Mtok; text.sse reports 57
# prompt tokens of which 7 cached, and 40 completion tokens.
printf '[{"file": "%s"}]\n' "$ROOT/tests/fixtures/openai/text.sse" >plan.json
fake_start plan.json
check_exit 'a call to a catalogued model' 0 'OPENAI_API_KEY=k pi-llm \
	--base-url "$FAKE_URL/v1" -m openai/gpt-4.1 hi </dev/null >cost.out'
check 'the message carries each cost and their total' 'jq_lines cost.out &&
	tail -n 1 cost.out | jq -e ".message.usage.cost |
	.input == 0.0001 and .output == 0.00032 and .cacheRead == 0.0000035
	and .cacheWrite == 0 and (.total - 0.0004235 | fabs) < 1e-12"'
check 'the event usage carries the total' 'tail -n 1 cost.out |
	jq -e "(.usage.cost - 0.0004235 | fabs) < 1e-12"'
check_exit 'a model pi does not know' 0 'OPENAI_API_KEY=k pi-llm \
	--base-url "$FAKE_URL/v1" -m openai/no-such-model hi </dev/null >free.out'
check 'has no cost rather than a made-up one' 'jq_lines free.out &&
	tail -n 1 free.out | jq -e "(.usage | has(\"cost\") | not) and
	(.message.usage | has(\"cost\") | not)"'

# claude-3-5-haiku-latest writes at most 8192 tokens: -t high would ask
# for 32768 + 8192 without the catalogue.
printf '[{"file": "%s"}]\n' "$ROOT/tests/fixtures/anthropic/text.sse" >plan.json
fake_start plan.json
ANTHROPIC_API_KEY=k pi-llm --base-url "$FAKE_URL" \
	-m anthropic/claude-3-5-haiku-latest -t high hi </dev/null >/dev/null
check 'the model limit caps the default max_tokens' 'jq -e ".body |
	.max_tokens == 8192 and .thinking.budget_tokens < 8192 and
	.thinking.budget_tokens >= 1024" "$(fake_req 1)"'
done_testing
