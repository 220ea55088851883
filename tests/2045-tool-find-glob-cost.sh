#!/bin/sh
# pi-tool find: the glob matcher's cost grows with the pattern times
# the path, not with 2 to the number of "**" segments (7 of them took
# 9.5 s, 40 would take years): a hostile glob ends in well under the
# call's timeout, and the answers are still right.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 4

# A path 60 directories deep, and a file at its bottom.
d=$WS
for i in $(seq 60); do d=$d/a; done
mkdir -p "$d" && touch "$d/y"
# many UNIT N TAIL: N copies of UNIT, then TAIL.
many() {
	i=0 r=
	while [ $i -lt "$2" ]; do r=$r$1; i=$((i + 1)); done
	printf '%s' "$r$3"
}
miss=$(many '**/' 40 x)
hit=$(many '**/a/' 40 y)
check_exit '40 "**" that match nothing: done, exit 0' 0 \
	"tool find '{\"pattern\":\"$miss\"}' --timeout 30"
check 'and nothing is found' \
	"out | grep -qx 'No files found matching pattern'"
check_exit '40 "**/a/" then y: done, exit 0' 0 \
	"tool find '{\"pattern\":\"$hit\"}' --timeout 30"
check 'and the file at the bottom is found' \
	"out | grep -qx '$(printf 'a/%.0s' $(seq 60))y'"
done_testing
