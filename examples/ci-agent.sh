#!/bin/sh
# ci-agent.sh: a CI step that runs an agent on the checkout and fails the
# build when the agent fails.  The events are kept as an artifact and
# shown in the log as text.  pi-loop's exit status says how the run
# ended: 0 done, 8 out of turns, 9 over budget, 124 timed out, others a
# failure (pi-loop(1) EXIT STATUS).
#
# The event log is written outside the checkout (to $RUNNER_TEMP, else
# $TMPDIR, else /tmp): inside it, the agent could read and rewrite its
# own log, and a later 'git add -A' would commit it.
#
# usage: examples/ci-agent.sh 'make the tests pass'
#   PI_MODEL, the provider's key (OPENAI_API_KEY, ...) from the CI secrets;
#   PI_EVENTS, where to keep the events; PI_MAX_TURNS, PI_TIMEOUT and
#   PI_MAX_COST (in dollars, for a model with a price) bound the run.
set -eu
task=${1:?usage: ci-agent.sh task}
out=${PI_EVENTS:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agent-events.$$.ndjson}
case $(cd "$(dirname "$out")" && pwd -P)/ in
"$(pwd -P)"/*)
	echo "ci-agent.sh: $out: the event log must be outside the workspace" >&2
	exit 2
	;;
esac

status=0
pi-loop --no-session -w . --max-turns "${PI_MAX_TURNS:-40}" \
    ${PI_MAX_COST:+--max-cost "$PI_MAX_COST"} \
    --timeout "${PI_TIMEOUT:-30m}" "$task" >"$out" || status=$?
pi-view <"$out" || true
jq -r 'select(.type == "agent_end") |
    "agent: \(.terminationReason), \(.totalTurns) turns, $\(.cost)"' "$out"
echo "ci-agent.sh: events in $out"
# The agent's changes are in the work tree; the build goes on or stops.
exit "$status"
