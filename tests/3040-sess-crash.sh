#!/bin/sh
# pi-sess survives kill -9: an append killed at any moment leaves a sound
# database holding every entry it answered, and at most one more, each
# whole; an import killed half-way leaves all of its file or none of it.
. "$(dirname "$0")/lib.sh"
plan 10
unset PI_SESSIONS_DB

# Many messages of the three kinds, with escapes and UTF-8, one a line.
N=1300
awk -v n=$N 'BEGIN {
	for (i = 1; i <= n; i++) {
		pad = substr("abcdefghijklmnopqrstuvwxyz0123456789", 1, i % 37)
		if (i % 3 == 1)
			printf "{\"role\":\"user\",\"content\":\"m%d \\\"q\\\" é\\n%s\"}\n", i, pad
		else if (i % 3 == 2)
			printf "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"m%d %s\"},{\"type\":\"toolCall\",\"id\":\"c%d\",\"name\":\"bash\",\"arguments\":{\"command\":\"echo %d\"}}],\"stopReason\":\"toolUse\"}\n", i, pad, i, i
		else
			printf "{\"role\":\"toolResult\",\"toolCallId\":\"c%d\",\"toolName\":\"bash\",\"content\":[{\"type\":\"text\",\"text\":\"m%d\\t%s\"}],\"isError\":false}\n", i - 1, i, pad
	}
}' >gen
jq -c . gen | cmp -s - gen && [ "$(wc -l <gen)" -eq $N ] ||
	{ echo "Bail out! the generator"; exit 1; }
mkfifo out sig cont

diag=$TMP/diag
: >"$diag"
# fail ITER WHAT: note a failure of iteration ITER.
fail() { echo "iteration $1: $2" >>"$diag"; }

# verify ITER SESSION ACKED: what the killed append left.  Notes failures
# in $diag by kind: check, answer, acked, count, content.  Sets stored.
verify() {
	v_i=$1 v_s=$2 v_a=$3
	pi-sess --json check >check.out 2>&1 ||
		fail "$v_i" "check: $(cat check.out)"
	# Each answer line whole (a torn one would be a torn write): the
	# ids of those answered.
	if ! jq -jR 'fromjson | if .type == "entry" and .entryType == "message"
	    then .id + "\n" else error("not an entry line") end' "$v_a" \
	    >acked.ids 2>jq.err ||
	    { [ -s "$v_a" ] && [ "$(tail -c 1 "$v_a" | wc -l)" -ne 1 ]; }; then
		fail "$v_i" "answer: not whole entry lines: $(cat jq.err; tail -c 300 "$v_a")"
		: >acked.ids
	fi
	{ pi-sess log "$v_s" >log.json 2>log.err &&
	    jq -r .id log.json >log.ids 2>&1; } ||
		fail "$v_i" "check: log failed: $(cat log.err log.ids)"
	stored=$(wc -l <log.ids | tr -d ' ')
	acked=$(wc -l <acked.ids | tr -d ' ')
	head -n "$acked" log.ids | cmp -s acked.ids - ||
		fail "$v_i" "acked: answered entries missing from the log ($acked answered, $stored stored)"
	[ "$stored" -ge "$acked" ] && [ "$stored" -le $((acked + 1)) ] ||
		fail "$v_i" "count: $stored stored, $acked answered"
	# The stored bytes are printed as they were; gen is in their form.
	pi-sess context "$v_s" 2>ctx.err | tail -n +2 >ctx.msgs
	head -n "$stored" gen | cmp -s - ctx.msgs ||
		fail "$v_i" "content: stored messages differ from those sent: $(head -n "$stored" gen | diff - ctx.msgs | head -c 600)"
}

# Killed after its k-th answer (k varies).  The reader stops there,
# so the writer can get at most a pipe's worth ahead before the kill;
# afterwards the reader takes the rest the writer had answered.
I=30 i=0 mid=0 short=0 ahead=0
while [ $i -lt $I ]; do
	i=$((i + 1))
	k=$(( (i * 7919) % (N - 500) + 1 ))
	S=$(pi-sess new) || { fail $i "new failed"; continue; }
	pi-sess append --follow "$S" <gen >out 2>append.err &
	pid=$!
	awk -v k=$k '{ print > "acked"; fflush("acked") }
		NR == k { print "go" > "sig"; close("sig"); getline x < "cont" }
		END { if (NR < k) { print "short" > "sig"; close("sig") } }' <out &
	apid=$!
	read -r x <sig
	kill -9 $pid
	wait $pid 2>/dev/null
	rc=$?
	[ "$x" = go ] && echo >cont
	wait $apid
	if [ "$x" != go ]; then
		short=$((short + 1))
		fail $i "the append stopped before answer $k (status $rc): $(cat append.err)"
	fi
	[ $rc -eq 137 ] || [ $rc -eq 0 ] || fail $i "append exited $rc: $(cat append.err)"
	verify $i "$S" acked
	[ "$stored" -lt $N ] && mid=$((mid + 1))
	[ "$stored" -gt "$acked" ] && ahead=$((ahead + 1))
done

# Killed at a moment the clock picks: any moment must do.
T=8 j=0 clock=
while [ $j -lt $T ]; do
	j=$((j + 1))
	t=$(awk -v j=$j 'BEGIN { printf "%.3f", 0.005 + j * 0.012 }')
	S=$(pi-sess new) || { fail "t$j" "new failed"; continue; }
	timeout -s KILL "$t" pi-sess append --follow "$S" <gen >acked 2>append.err
	rc=$?
	[ $rc -eq 137 ] || [ $rc -eq 0 ] || fail "t$j" "append exited $rc: $(cat append.err)"
	verify "t$j" "$S" acked
	clock="$clock $stored"
done
echo "# $mid of $I appends killed after answer k were killed before the end;"
echo "# in $ahead of them one more entry was stored than answered"
echo "# killed by the clock, they had stored:$clock (of $N)"

kinds() { grep -h "$1" "$diag" >/dev/null && { grep -h "$1" "$diag" | head -n 20; return 1; }; return 0; }
check "$((I + T)) appends killed: pi-sess check passes after each" \
	'kinds "^[^:]*: check"'
check 'every answer line was whole' 'kinds "^[^:]*: answer"'
check 'every entry answered before the kill is in the log, in order' \
	'kinds "^[^:]*: acked"'
check 'at most one entry stored but not answered' 'kinds "^[^:]*: count"'
check 'every stored message whole and equal to the one sent, by index' \
	'kinds "^[^:]*: content"'
check 'the kills after answer k came before the end, and nothing else failed' '
	is "$mid" "$I" && is "$short" 0 &&
	! grep -v "^[^:]*: \(check\|answer\|acked\|count\|content\)" "$diag"'

# import: one transaction.  A big file, a database with a session in it.
awk 'BEGIN { p = sprintf("%600s", ""); gsub(/ /, "x", p)
	for (i = 1; i <= 6000; i++)
		printf "{\"role\":\"user\",\"content\":\"i%d %s\"}\n", i, p }' >big.in
B=$(pi-sess -d base.db new --name base) && pi-sess -d base.db append "$B" <big.in >/dev/null &&
	pi-sess -d base.db export "$B" >big.jsonl && pi-sess -d base.db rm "$B" &&
	pi-sess -d base.db new --name kept >/dev/null &&
	pi-sess -d base.db check >/dev/null || { echo "Bail out! no base database"; exit 1; }

# fresh: imp.db, a copy of base.db with its log (which holds the newest
# commits until a checkpoint).
fresh() {
	rm -f imp.db imp.db-wal imp.db-shm && cp base.db imp.db &&
	if [ -e base.db-wal ]; then cp base.db-wal imp.db-wal; fi
}

# imported DB: "none" or "all" (the one new session holds the whole file).
imported() {
	pi-sess -d "$1" ls --all >ls.out &&
	if [ "$(wc -l <ls.out)" -eq 1 ] &&
	    jq -se '.[0].name == "kept"' ls.out >/dev/null; then
		echo none
	elif jq -se 'length == 2 and (map(.entries) | sort) == [1, 6001]' \
	    ls.out >/dev/null; then
		s=$(jq -r 'select(.entries == 6001).id' ls.out) &&
		pi-sess -d "$1" export "$s" | cmp -s - big.jsonl && echo all
	fi
}
idiag=$TMP/idiag
: >"$idiag"
inside=0
# Inside the transaction: once the write-ahead log has grown (while the
# file was being read it had not), well before all of it is written.
for at in 300000 600000 1500000 3000000; do
	fresh
	pi-sess -d imp.db import big.jsonl >imp.out 2>imp.err &
	ipid=$!
	wait_until "[ \$(stat -c %s imp.db-wal 2>/dev/null || echo 0) -gt $at ] || [ -s imp.out ]"
	kill -9 $ipid
	wait $ipid 2>/dev/null
	rc=$?
	r=$(imported imp.db)
	echo "wal > $at: $r" >>"$idiag"
	[ $rc -eq 0 ] || [ $rc -eq 137 ] ||
		echo "wal > $at: import exited $rc: $(cat imp.err)" >>"$idiag"
	[ $rc -eq 137 ] && [ "$r" = none ] && inside=$((inside + 1))
	pi-sess -d imp.db --json check >c.out 2>&1 && jq -e .ok c.out >/dev/null ||
		echo "wal > $at: check failed: $(cat c.out)" >>"$idiag"
done
# And at moments the clock picks.
for t in 0.02 0.06 0.1 0.15; do
	fresh
	timeout -s KILL $t pi-sess -d imp.db import big.jsonl >imp.out 2>imp.err
	rc=$?
	r=$(imported imp.db)
	echo "after $t s: $r" >>"$idiag"
	[ $rc -eq 0 ] || [ $rc -eq 137 ] ||
		echo "after $t s: import exited $rc: $(cat imp.err)" >>"$idiag"
	pi-sess -d imp.db --json check >c.out 2>&1 && jq -e .ok c.out >/dev/null ||
		echo "after $t s: check failed: $(cat c.out)" >>"$idiag"
done
sed 's/^/# import killed, /' "$idiag"
check 'an import killed at any moment left all of its file or none; check passes' \
	'cat "$idiag"; ! grep -v ": \(none\|all\)$" "$idiag"'
check 'killed inside its transaction (its log growing), it left none' \
	'[ "$inside" -ge 1 ]'
check_exit 'not killed: exit 0' 0 'fresh && pi-sess -d imp.db import big.jsonl >imp.out'
check 'all of it, as it was exported' 'is "$(imported imp.db)" all'

done_testing
