#!/bin/sh
# fan-out.sh: one agent per task, four at a time, each with its own
# session in one shared database; a line per task says how it ended.
#
# usage: examples/fan-out.sh < tasks.txt      (one task a line)
set -eu
mkdir -p runs
nl -ba -w3 -s' ' | xargs -P 4 -L 1 sh -c '
	n=$1; shift
	pi-loop --new -w . --max-turns 20 "$*" >"runs/$n.ndjson"
	echo "$n exit $? $*"
' sh
# Total cost of all the runs:
cat runs/*.ndjson | jq -s 'map(select(.type == "agent_end").cost) | add'
