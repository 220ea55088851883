#!/bin/sh
# ci-agent.sh: a CI step that runs an agent on the checkout and fails the
# build when the agent fails.  The events are kept as an artifact and
# shown in the log as text.  pi-loop's exit status says how the run
# ended: 0 done, 8 out of turns, 9 over budget, 124 timed out, others a
# failure (pi-loop(1) EXIT STATUS).
#
# usage: examples/ci-agent.sh 'make the tests pass'
#   PI_MODEL, the provider's key (OPENAI_API_KEY, ...) from the CI secrets.
set -eu
task=${1:?usage: ci-agent.sh task}
out=${PI_EVENTS:-agent-events.ndjson}

status=0
pi-loop --no-session -w . --max-turns "${PI_MAX_TURNS:-40}" \
    --max-cost "${PI_MAX_COST:-2}" --timeout "${PI_TIMEOUT:-30m}" \
    "$task" >"$out" || status=$?
pi-view <"$out" || true
jq -r 'select(.type == "agent_end") |
    "agent: \(.terminationReason), \(.totalTurns) turns, $\(.cost)"' "$out"
# The agent's changes are in the work tree; the build goes on or stops.
exit "$status"
