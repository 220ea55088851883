#!/bin/sh
# The write-ahead log stays small when pi-sess runs one process at a
# time.  A process that opens the database alone rebuilds the log's
# index by reading all of it and cannot know what was checkpointed, so
# without care the log grows with every write, and every start with it.
. "$(dirname "$0")/lib.sh"
plan 4
unset PI_SESSIONS_DB

S=$(pi-sess -d s.db new) || { echo "Bail out! new"; exit 1; }
# 400 writers, one after another, each a message of ~3 KB: about 400
# log pages at least, far past what a closing writer leaves (128).
p=$(awk 'BEGIN { s = sprintf("%3000s", ""); gsub(/ /, "y", s); print s }')
i=0 max=0 bad=0
while [ $i -lt 400 ]; do
	i=$((i + 1))
	printf '{"role":"user","content":"m%d %s"}\n' $i "$p" |
		pi-sess -d s.db append "$S" >/dev/null || bad=$((bad + 1))
	w=$(stat -c %s s.db-wal 2>/dev/null || echo 0)
	[ "$w" -gt "$max" ] && max=$w
done
echo "# largest log: $max bytes"
check 'every append succeeded' 'is "$bad" 0'
check 'the log never held much more than 128 pages' '[ "$max" -lt $((160 * 4120)) ]'
check 'every message is there, in order' '
	pi-sess -d s.db context "$S" | jq -r "select(.role == \"user\") | if (.content | type) == \"string\" then .content else .content[0].text end" |
	cut -d" " -f1 >got && seq 400 | sed "s/^/m/" >want && cmp want got'
check 'the database is sound' 'pi-sess -d s.db check >c.out && jq -e .ok c.out >/dev/null'

done_testing
