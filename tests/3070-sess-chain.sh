#!/bin/sh
# pi-sess check finds an entry changed behind pi-sess's back: every entry
# is sealed to its parent by a hash (man/pi-session.5), so a message
# rewritten with sqlite3, a forged hash, a moved timestamp or a rewritten
# history is named, entry by entry, like git fsck; and a database of
# schema 1 is sealed once, as it is opened.
. "$(dirname "$0")/lib.sh"
plan 20
unset PI_SESSIONS_DB

db=s.db
sdb() { "$ROOT/tests/helper/sessdb" "$db" "$@"; }
user() { printf '{"role":"user","content":"%s"}\n' "$@"; }
asst() { printf '{"role":"assistant","content":[{"type":"text","text":"%s"}]}\n' "$@"; }
# fsck: pi-sess check, its line in check.out, its status in rc.
fsck() { pi-sess -d "$db" check >check.out 2>check.err; rc=$?; }
# named ID...: check failed (exit 1), naming each ID and nothing else.
named() {
	fsck; is "$rc" 1 || return 1
	jqs check.out ".[0].ok == false and (.[0].problems | length) == $#" &&
	for id; do
		jqs check.out "any(.[0].problems[]; startswith(\"entry $id: hash mismatch\"))" || return 1
	done && grep -q "problem.* found" check.err
}
sound() { fsck; cat check.out; is "$rc" 0 && jqs check.out '.[0].ok and .[0].problems == []'; }

# A session of five entries, a branch at its third with two of its own.
S=$(pi-sess -d $db new --name chained) || exit 1
{ user one; asst two; user three; asst four; } |
	pi-sess -d $db append "$S" >/dev/null || exit 1
ids() { pi-sess -d $db log "$1" | jq -r .id; }
E1=$(ids "$S" | sed -n 2p) E2=$(ids "$S" | sed -n 3p) E3=$(ids "$S" | sed -n 4p)
E4=$(ids "$S" | sed -n 5p)
B=$(pi-sess -d $db branch "$S" "$E2") || exit 1
{ user b-one; asst b-two; } | pi-sess -d $db append "$B" >/dev/null || exit 1
B1=$(ids "$B" | sed -n 4p) B2=$(ids "$B" | sed -n 5p)

check 'a database pi-sess wrote is sound' sound
check 'every entry has a hash, and it is the one man/pi-session.5 defines' '
	sdb sql "SELECT id, hash FROM entries ORDER BY sess, n" | tr "\t" " " >stored &&
	sdb hash >made && [ "$(wc -l <made)" -eq 7 ] && diff -u made stored'
check 'show gives the head'"'"'s hash' '
	pi-sess -d $db show "$S" >show &&
	jqs show ".[0].headHash == \"$(grep "^$E4 " stored | cut -d" " -f2)\""'

# A message rewritten in place, as a tool with write access could.
orig=$(sdb sql "SELECT data FROM entries WHERE id = ?" "$E1")
sdb sql "UPDATE entries SET data = ? WHERE id = ?" \
	'{"role":"user","content":"forged"}' "$E1"
check 'a message rewritten with SQL: check fails, naming that entry' 'named "$E1"'
check 'the message says what is wrong' '
	jqs check.out ".[0].problems[0] | test(\"changed after it was stored\")"'
sdb sql "UPDATE entries SET data = ? WHERE id = ?" "$orig" "$E1"
check 'put back byte for byte: sound again' sound

# The forger also makes the entry's hash again, knowing the layout:
# then its children were made on another hash.
sdb sql "UPDATE entries SET data = ? WHERE id = ?" \
	'{"role":"user","content":"forged"}' "$E2"
sdb reseal "$E2"
check 'a rewritten entry resealed: its children are named, in both sessions' \
	'named "$E3" "$B1"'
sdb reseal "$E3" && sdb reseal "$E4" && sdb reseal "$B1" && sdb reseal "$B2"
check 'a whole history forged to its heads: no mismatch left to find' sound
check 'but the head'"'"'s hash is not the one show gave before' '
	pi-sess -d $db show "$S" >show2 &&
	! jqs show2 ".[0].headHash == $(jq .headHash show)" >/dev/null'

# Each field is covered, not only the message.
for col in ts role type message_id parent_id; do
	id=$(ids "$S" | sed -n 2p)
	old=$(sdb sql "SELECT quote($col) FROM entries WHERE id = ?" "$id")
	case $col in
	ts) sdb sql "UPDATE entries SET ts = ts + 1 WHERE id = ?" "$id" ;;
	*) sdb sql "UPDATE entries SET $col = 'x' WHERE id = ?" "$id" ;;
	esac
	check "a changed $col is found" '
		fsck; is "$rc" 1 && jqs check.out "any(.[0].problems[]; startswith(\"entry $id: \"))"'
	sdb sql "UPDATE entries SET $col = $old WHERE id = ?" "$id"
done
check 'a hash taken away is found' '
	sdb sql "UPDATE entries SET hash = NULL WHERE id = ?" "$B2" &&
	fsck; is "$rc" 1 && jqs check.out "any(.[0].problems[]; . == \"entry $B2: no hash\")"'
sdb reseal "$B2"

# A database of schema 1, as pi-sess 1 left it: sealed once when opened,
# with the same hashes append makes, in one transaction.
db=old.db
O=$(pi-sess -d $db new) || exit 1
{ user one; asst two; user three; } | pi-sess -d $db append "$O" >/dev/null || exit 1
OB=$(pi-sess -d $db branch "$O" "$(ids "$O" | sed -n 2p)") || exit 1
{ user b; asst c; } | pi-sess -d $db append "$OB" >/dev/null || exit 1
sdb sql "SELECT id, hash FROM entries ORDER BY sess, n" >sealed
sdb downgrade
check 'downgraded to schema 1: no hash column' '
	is "$(sdb sql "PRAGMA user_version")" 1 &&
	! sdb sql "SELECT hash FROM entries" 2>/dev/null'
check 'a pi-sess that opens it brings it to schema 2' '
	pi-sess -d $db ls --all >/dev/null && is "$(sdb sql "PRAGMA user_version")" 2'
check 'sealed as append seals: the same hashes' '
	sdb sql "SELECT id, hash FROM entries ORDER BY sess, n" >resealed &&
	diff -u sealed resealed'
check 'and sound' sound
db=new.db
pi-sess -d $db new >/dev/null || exit 1
sdb sql "PRAGMA user_version = 3"
check 'a database of a newer schema is refused: exit 4' '
	pi-sess -d $db ls --all 2>err; rc=$?; cat err
	is "$rc" 4 && grep -q "newer pi-sess" err'

done_testing
