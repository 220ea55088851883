#!/bin/sh
# One check for every way into the store: import refuses what append
# refuses (an assistant "content":true, then every context of the
# session failed in pi-llm), and a line past the cap before it is all
# in memory; an entry an older pi-sess let in is left out of the context
# with a warning naming it, printed as stored by log and export, and
# named when it cannot be (never an exit 141 or a garbled message).
. "$(dirname "$0")/lib.sh"
plan 23
unset PI_SESSIONS_DB

db=s.db
sdb() { "$ROOT/tests/helper/sessdb" "$db" "$@"; }
user() { printf '{"role":"user","content":"%s"}\n' "$@"; }
ps() { pi-sess -d $db "$@"; }
header='{"type":"session","version":3,"id":"f1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}'
line() {	# line ID PARENT MESSAGE: a message entry of a pi file
	printf '{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:0%s.000Z","message":%s}\n' \
		"$1" "$2" "${1#e}" "$3"
}

# What append refuses, import refuses: the same check, in the store.
S=$(ps new) || exit 1
check_exit 'append refuses an assistant message whose content is true: exit 3' 3 '
	echo "{\"role\":\"assistant\",\"content\":true}" | ps append "$S" >out 2>err'
check 'naming the line and why' 'grep -q "stdin:1: assistant message has no \"content\"" err'
{ echo "$header"; line e1 null '{"role":"user","content":"hi"}'
  line e2 '"e1"' '{"role":"assistant","content":true}'
  line e3 '"e2"' '{"role":"user","content":"after"}'; } >bad.jsonl
check_exit 'import refuses it too: exit 3' 3 'ps import bad.jsonl >out 2>err'
check 'naming the file, the line and why' '
	cat err; grep -q "bad.jsonl:3: assistant message has no \"content\"" err'
check 'and nothing of that file is stored' '
	! ps show f1 >/dev/null 2>&1 && is "$(ps ls --all | wc -l)" 1'
{ echo "$header"; line e1 null '{"role":"user","content":"hi"}'
  line e2 '"e1"' '{"role":"custom","customType":"x","content":{"a":1}}'; } >bad2.jsonl
check 'import refuses a custom message whose content is no text or blocks' '
	ps import bad2.jsonl 2>err; rc=$?; cat err
	is "$rc" 3 && grep -q "bad2.jsonl:3: custom message" err'
check 'append refuses a custom_message entry whose content is true' '
	echo "{\"type\":\"custom_message\",\"customType\":\"x\",\"content\":true}" |
	ps append "$S" 2>err; rc=$?; cat err
	is "$rc" 3 && grep -q "stdin:1: custom_message entry" err'
check 'and a model_change whose provider is no string' '
	echo "{\"type\":\"model_change\",\"provider\":1,\"modelId\":\"m\"}" |
	ps append "$S" 2>err; rc=$?; cat err
	is "$rc" 3 && grep -q "stdin:1: model_change entry has no string \"provider\"" err'
check 'the session is as it was: empty' 'is "$(ps log "$S" | wc -l)" 0'
{ echo "$header"; line e1 null '{"role":"user","content":"hi"}'; } >good.jsonl
check 'a good file imports' 'ps import good.jsonl >out && is "$(cat out)" f1'

# A line past the cap (64 MiB) is refused as it is read: the memory
# stays near the cap whatever the line (200 MB took 825 MB).
{ echo "$header"
  printf '{"type":"message","id":"big","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"'
  head -c 100000000 /dev/zero | tr '\0' x
  printf '"}}\n'; } >huge.jsonl
check_exit 'import of a 100 MB line: exit 3' 3 '
	/usr/bin/time -f %M -o rss pi-sess -d huge.db import huge.jsonl 2>err'
check 'naming the line' '
	cat err; grep -q "huge.jsonl:2: line longer than 67108864 bytes" err'
check 'having used less than 250 MB' 'cat rss; [ "$(tail -1 rss)" -lt 256000 ]'
rm -f huge.jsonl

# Entries an older pi-sess let in (schema 1): a bad message between two
# good ones, and a message too large to be a line of any output.
db=old.db
A=$(ps new) || exit 1
user before placeholder after | ps append "$A" >app || exit 1
BAD=$(jq -r .id app | sed -n 2p)
C=$(ps new) || exit 1
user small | ps append "$C" >app || exit 1
BIG=$(jq -r .id app)
sdb downgrade
sdb sql "UPDATE entries SET role = 'assistant', data = ? WHERE id = ?" \
	'{"role":"assistant","content":true}' "$BAD"
# 70 MiB of data, more than a line can hold: too much for an argument.
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE entries SET data = ? WHERE id = ?",
    ("{\"role\":\"user\",\"content\":\"%s\"}" % ("x" * (70 << 20)), sys.argv[2]))
c.commit()' $db "$BIG"

check_exit 'context leaves the bad entry out: exit 0' 0 \
	'ps context "$A" >ctx 2>err'
check 'with a warning naming it and why' '
	cat err; grep -q "entry $BAD: assistant message has no \"content\" string or array (stored by an older pi-sess: left out of the context)" err'
check 'the messages around it are there' '
	jq -r "select(.role).content" ctx >got && printf "before\nafter\n" >want && diff -u want got'
check 'so a run on the session goes on' '
	PI_FAUX_SCRIPT=$ROOT/examples/hello.faux pi-loop -d $db -s "$A" -m faux/demo \
	    -w "$(mkdir -p ws && cd ws && pwd)" "hi" </dev/null >loop.out 2>loop.err; rc=$?; cat loop.err; is "$rc" 0'
check 'log prints it as it was stored' '
	ps log "$A" >log && jqs log ".[1].id == \"$BAD\" and .[1].message.content == true"'
check 'check names it' '
	ps check >chk; is $? 1 && jqs chk "any(.[0].problems[]; startswith(\"entry $BAD: refused by this pi-sess\"))"'
check 'context leaves the too large one out, naming it' '
	ps context "$C" >ctx 2>err; rc=$?; cat err
	is "$rc" 0 && grep -q "entry $BIG: message entry of [0-9]* bytes: larger than" err &&
	jqs ctx "length == 1 and .[0].messages == 0"'
check 'log cannot print it: exit 3, naming it (not 141, silent)' '
	ps log "$C" >/dev/null 2>err; rc=$?; cat err
	is "$rc" 3 && grep -q "^pi-sess: entry $BIG: its line would be longer than 67108864 bytes" err'
check 'export the same (not an uninitialised message)' '
	ps export "$C" >/dev/null 2>err; rc=$?; cat err
	is "$rc" 3 && is "$(cat err)" "pi-sess: entry $BIG: its line would be longer than 67108864 bytes (stored by an older pi-sess)"'
check 'a session without such entries exports whole' '
	S2=$(ps new) && user fine | ps append "$S2" >/dev/null &&
	ps export "$S2" >exp && jqs exp "length == 2"'

done_testing
