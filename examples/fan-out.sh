#!/bin/sh
# fan-out.sh: one agent per task, four at a time, each with its own
# session in one shared database; a line per task says how it ended.
# A task is passed to its agent as one argument, whatever it holds:
# quotes, backslashes and spaces reach the model as written.
#
# usage: examples/fan-out.sh < tasks.txt      (one task a line)
#        examples/fan-out.sh -0 < tasks       (tasks ended by NUL bytes,
#                                              so a task may hold newlines)
#   PI_MODEL names the model; runs/N.ndjson keeps task N's events.
set -eu
sep='\n'
[ "${1:-}" = -0 ] && sep='\0'
mkdir -p runs
# Number the tasks and hand each (number, task) pair to xargs NUL-ended:
# xargs -0 reads no quotes, unlike its default, which dies on "don't".
awk -v RS="$([ "$sep" = '\0' ] && printf '\\0' || printf '\\n')" \
    'length($0) { printf "%d%c%s%c", ++n, 0, $0, 0 }' |
    xargs -0 -n 2 -P 4 sh -c '
	status=0
	pi-loop --new -w . --max-turns 20 "$2" >"runs/$1.ndjson" || status=$?
	printf "%s exit %s %s\n" "$1" "$status" "$2"
' sh
# Total cost of all the runs:
cat runs/*.ndjson | jq -s 'map(select(.type == "agent_end").cost) | add'
