#!/bin/sh
# pi-sess's verbs through the command line: usage errors, what each verb
# prints and does, tables on a terminal, ids by prefix, the run lock,
# and databases that are not ours.
. "$(dirname "$0")/lib.sh"
plan 100
unset PI_SESSIONS_DB

# fails WANT ARG...: pi-sess ARG... exits WANT (out, err kept).
fails() {
	want=$1; shift
	pi-sess "$@" >out 2>err
	rc=$?
	[ "$rc" -eq "$want" ] && return
	echo "exit status $rc, expected $want"; cat err; return 1
}
# starts STRING PREFIX: STRING begins with PREFIX, taken literally.
starts() {
	case $1 in "$2"*) return 0 ;; esac
	echo "'$1' does not start with '$2'"; return 1
}
# p13 ID: the 13 characters every table shows at least.
p13() { printf '%.13s' "$1"; }
# lcp A B: the longest common prefix of two ids.
lcp() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = 0
		while (n < length(a) && substr(a, n + 1, 1) == substr(b, n + 1, 1)) n++
		print substr(a, 1, n) }'
}
# onterm CMD: CMD with stdout on a terminal (script(1)), \r dropped.
if command -v script >/dev/null; then
	onterm() {
		SHELL=/bin/sh script -qc "$1" /dev/null </dev/null | tr -d '\r'
	}
	have_script=1
else
	have_script=
fi
# tcheck TITLE SNIPPET: a check that needs a terminal.
tcheck() {
	if [ -n "$have_script" ]; then check "$@"; else skip "$1" 'no script(1)'; fi
}
# rows DB TABLE: how many rows the table has (needs sqlite3).
rows() { sqlite3 "$1" "SELECT count(*) FROM $2"; }
# ids S: the entry ids of S's path, one per line.
ids() { pi-sess log "$1" | jq -r .id; }
user() { printf '{"role":"user","content":"%s"}\n' "$@"; }
asst() {
	for t; do
		printf '{"role":"assistant","content":[{"type":"text","text":"%s"}]}\n' "$t"
	done
}
here=$(pwd -P)
db=$PI_HOME/sessions.db

# Usage: exit 2, and nothing made.
check 'no verb: exit 2, said, with the usage' '
	fails 2 && grep -q "^pi-sess: no verb" err && grep -q "^usage: pi-sess" err'
check 'an unknown verb: exit 2, named' \
	'fails 2 frob && grep -q "unknown verb .frob." err'
check 'an unknown option: exit 2' \
	'fails 2 --frob ls && grep -q "^usage: pi-sess" err'
check 'show with no session, or two: exit 2' '
	fails 2 show && grep -q "show takes one operand" err &&
	fails 2 show a b && grep -q "show takes one operand" err'
check 'branch with three operands, name with one: exit 2' '
	fails 2 branch a b c && grep -q "branch takes one or two operands" err &&
	fails 2 name a && grep -q "name takes two operands" err'
check 'new, ls and check take no operand; import one or more' '
	fails 2 new x && grep -q "new takes no operand" err &&
	fails 2 ls x && grep -q "ls takes no operand" err &&
	fails 2 check x && grep -q "check takes no operand" err &&
	fails 2 import && grep -q "import takes one or more operands" err'
check 'an option the verb does not take: exit 2, named' '
	fails 2 show --all x && grep -q "show takes no --all" err &&
	fails 2 context --name n x && grep -q "context takes no --name" err &&
	fails 2 branch --at e x && grep -q "branch takes no --at" err &&
	fails 2 ls -r && grep -q "ls takes no -r" err'
check 'new --at without --parent: exit 2' \
	'fails 2 new --at x && grep -q "new: --at needs --parent" err'
check 'ls --all with --cwd: exit 2' \
	'fails 2 ls --all --cwd . && grep -q "do not go together" err'
check '--pid and --tokens-before want numbers: exit 2' '
	fails 2 lock --pid 0 x && grep -q "not a process id" err &&
	fails 2 compact --tokens-before many x && grep -q "not a count" err'
check 'no usage error made a database' '[ ! -e "$db" ]'
check_exit '-h: exit 0, the usage on stdout' 0 \
	'pi-sess -h >out 2>err && [ ! -s err ] && grep -q "^usage: pi-sess" out'
check '-V: the version' 'pi-sess -V >out && grep -Eq "^pi-sess [0-9]+\.[0-9]+" out'

# The usage message is the SYNOPSIS, modulo line breaks.
norm() { tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//'; echo; }
if [ -f "$ROOT/man/pi-sess.1" ] && command -v mandoc >/dev/null; then
	{ printf 'usage: '; mandoc -T ascii -O width=1000 "$ROOT/man/pi-sess.1" |
		col -bx | awk '/^SYNOPSIS/ { f = 1; next } /^[A-Z]/ { f = 0 } f' |
		sed '2s/^ *pi-sess/       pi-sess/'; } | norm >synopsis
	pi-sess -h | norm >usage
	check_same 'the usage message is the SYNOPSIS' synopsis usage
else
	skip 'the usage message is the SYNOPSIS' 'no man/pi-sess.1 or no mandoc'
fi

# No database yet: nothing to list.
check 'ls with no database: no output, exit 0, none made' '
	pi-sess ls >out 2>err && [ ! -s out ] && [ ! -s err ] && [ ! -e "$db" ]'
check 'show with no database: exit 3, no such session' \
	'fails 3 show 0123 && grep -q "no session .0123." err && [ ! -e "$db" ]'

# new
check 'new: a bare id, a UUIDv7, one line' '
	pi-sess new >out && [ "$(wc -l <out)" -eq 1 ] &&
	grep -Eq "^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$" out'
A=$(cat out)
check 'the database is made at $PI_HOME/sessions.db' '[ -s "$db" ]'
check 'ls with an empty session: one session line, of this directory' '
	pi-sess ls >ls && jqs ls "length == 1 and .[0].type == \"session\" and
	    .[0].id == \"$A\" and .[0].cwd == \"$here\" and .[0].name == null and
	    .[0].headId == null and .[0].entries == 0 and .[0].lock == null"'
mkdir d1
check 'new --name --cwd: a session_info entry; cwd made absolute' '
	N=$(pi-sess new --name "  the name " --cwd d1) && pi-sess show "$N" >show &&
	jqs show ".[0].name == \"the name\" and .[0].cwd == \"$here/d1\" and
	    .[0].entries == 1" &&
	pi-sess log "$N" >log && jqs log "length == 1 and .[0].type == \"session_info\" and
	    .[0].name == \"the name\" and .[0].id == \"$(jq -r .headId show)\""'
check 'new --cwd that does not exist: exit 2' \
	'fails 2 new --cwd nowhere && grep -q "nowhere" err'
check 'new --json: a session line' '
	pi-sess --json new >out && jqs out "length == 1 and .[0].type == \"session\" and
	    (.[0].id | test(\"^[0-9a-f-]{36}$\"))"'
J=$(jq -r .id out)
user hi >in1 && asst hello >>in1 && user again >>in1
pi-sess append "$A" <in1 >/dev/null || exit 1
ids "$A" >a.ids
A1=$(sed -n 1p a.ids) A2=$(sed -n 2p a.ids) A3=$(sed -n 3p a.ids)
check 'new --parent: an empty child session' '
	K=$(pi-sess new --parent "$A") && pi-sess show "$K" >show &&
	jqs show ".[0].parentId == \"$A\" and .[0].branchPoint == null and
	    .[0].headId == null and .[0].entries == 0" &&
	pi-sess context "$K" >ctx && jqs ctx "length == 1 and .[0].messages == 0"'
check 'new --parent --at: a branch at that entry' '
	K=$(pi-sess new --parent "$A" --at "$A2") && pi-sess show "$K" >show &&
	jqs show ".[0].parentId == \"$A\" and .[0].branchPoint == \"$A2\" and
	    .[0].headId == \"$A2\" and .[0].entries == 2"'
user j | pi-sess append "$J" >/dev/null || exit 1
JE=$(ids "$J")
check 'new --parent --at an entry not in the parent: exit 3, nothing made' '
	n=$(pi-sess ls --all | wc -l) && fails 3 new --parent "$A" --at "$JE" &&
	grep -q "entry .$JE. is not in session .$A." err &&
	[ "$(pi-sess ls --all | wc -l)" -eq "$n" ]'
check 'new --parent of an unknown session: exit 3' \
	'fails 3 new --parent ffffffff && grep -q "no session .ffffffff." err'

# ls: NDJSON off a terminal, newest first, by directory.
pi-sess -d ls.db new >/dev/null && L1=$(pi-sess -d ls.db new) &&
	L2=$(pi-sess -d ls.db new) && L3=$(pi-sess -d ls.db new --cwd d1) || exit 1
check 'ls: this directory'"'"'s sessions, newest first' '
	pi-sess -d ls.db ls >ls && jqs ls "length == 3 and
	    .[0].id == \"$L2\" and .[1].id == \"$L1\" and
	    all(.cwd == \"$here\") and (map(.lastActiveAt) | . == (sort | reverse))"'
check 'ls --cwd: that directory'"'"'s' \
	'pi-sess -d ls.db ls --cwd d1 >ls && jqs ls "length == 1 and .[0].id == \"$L3\""'
check 'ls --all: every session' '
	pi-sess -d ls.db ls --all >ls && jqs ls "length == 4 and .[0].id == \"$L3\" and
	    (map(.id) | unique | length) == 4"'
check 'ls --cwd of a directory that does not exist: exit 2' \
	'fails 2 -d ls.db ls --cwd nowhere && grep -q "nowhere" err'
# Appending makes a session the most recently active (once the clock moved).
t=$(jq -r .lastActiveAt ls | sort -n | tail -1)
check 'appending to the oldest session puts it first' '
	wait_until "[ \$(date +%s%3N) -gt $t ]" &&
	user later | pi-sess -d ls.db append "$L1" >/dev/null &&
	pi-sess -d ls.db ls >ls && jqs ls ".[0].id == \"$L1\" and .[1].id == \"$L2\""'

# show
check 'show: every field' '
	pi-sess show "$A" >show && jqs show "length == 1 and (.[0] |
	    .type == \"session\" and .id == \"$A\" and .name == null and
	    .cwd == \"$here\" and .parentId == null and .branchPoint == null and
	    .headId == \"$A3\" and .entries == 3 and .model == null and
	    .thinkingLevel == \"off\" and .lock == null and
	    (.branches | length) == 2 and .contextMessages == 3 and
	    (.createdAt | type) == \"number\" and .lastActiveAt >= .createdAt)"'
check 'show: the model and thinking level of its path' '
	printf "%s\n" "{\"type\":\"model_change\",\"provider\":\"p\",\"modelId\":\"m\"}" \
	    "{\"type\":\"thinking_level_change\",\"thinkingLevel\":\"low\"}" |
	    pi-sess append "$J" >/dev/null && pi-sess show "$J" >show &&
	jqs show ".[0].model == {\"provider\":\"p\",\"modelId\":\"m\"} and
	    .[0].thinkingLevel == \"low\" and .[0].entries == 3"'
check_exit 'show of an unknown session: exit 3' 3 'pi-sess show ffffffff 2>err >out'
check 'said so, nothing on stdout' \
	'grep -q "^pi-sess: no session .ffffffff." err && [ ! -s out ]'

# log
check 'log: pi entry lines root to head, each the child of the last' '
	pi-sess log "$A" >log && jqs log "length == 3 and all(.type == \"message\") and
	    .[0].parentId == null and .[1].parentId == .[0].id and
	    .[2].parentId == .[1].id and map(.id) == [\"$A1\",\"$A2\",\"$A3\"] and
	    all(.timestamp | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T.*Z$\"))"'
check 'log: the messages as appended' \
	'jq -c .message log >m && diff -u in1 m'

# Tables on a terminal.
tcheck 'ls on a terminal: a table with a header, no JSON' '
	onterm "pi-sess ls" >t && sed -n 1p t | grep -Eq "^SESSION +ENTRIES +ACTIVE +NAME$" &&
	! grep -q "[{}]" t && [ "$(wc -l <t)" -eq 5 ] &&
	grep -Eq "^$(p13 "$A")[0-9a-f-]* +3 +[0-9]+s ago +-$" t'
tcheck 'ls --json on a terminal: NDJSON' '
	onterm "pi-sess --json ls" >t && jqs t "length == 4 and all(.type == \"session\")"'
tcheck 'log on a terminal: short id, role, first line of text' '
	onterm "pi-sess log $A" >t && [ "$(wc -l <t)" -eq 3 ] && ! grep -q "[{}]" t &&
	sed -n 1p t | grep -Eq "^$(p13 "$A1")[0-9a-f-]* +[0-9]+s ago +user +hi$" &&
	sed -n 2p t | grep -Eq " assistant +hello$"'
tcheck 'log --json on a terminal: the pi lines' '
	onterm "pi-sess --json log $A" >t && jqs t "map(.id) == [\"$A1\",\"$A2\",\"$A3\"]"'
tcheck 'show on a terminal: one field a line' '
	onterm "pi-sess show $J" >t && ! grep -q "[{}]" t &&
	grep -qx "session   $J" t && grep -qx "name      -" t &&
	grep -qx "entries   3 (3 its own)" t && grep -qx "model     p/m, thinking low" t'
tcheck 'check on a terminal: ok' 'onterm "pi-sess check" >t && [ "$(cat t)" = ok ]'

# branch
user more | pi-sess append "$J" >/dev/null || exit 1
S=$(pi-sess new --name root) || exit 1
{ user u1; asst a1; user u2; asst a2; } | pi-sess append "$S" >/dev/null || exit 1
ids "$S" >s.ids
S2=$(sed -n 2p s.ids) S3=$(sed -n 3p s.ids) S5=$(sed -n 5p s.ids)
pi-sess log "$S" >s.log
check 'branch: at the head by default, a bare id' '
	B=$(pi-sess branch "$S") && pi-sess show "$B" >show &&
	jqs show ".[0].parentId == \"$S\" and .[0].branchPoint == \"$S5\" and
	    .[0].headId == \"$S5\" and .[0].entries == 5 and .[0].name == null" &&
	pi-sess log "$B" | diff -u s.log -'
head -3 s.log >s3.log
check 'branch at an older entry: its path up to there' '
	C=$(pi-sess branch "$S" "$S3") && pi-sess show "$C" >show &&
	jqs show ".[0].branchPoint == \"$S3\" and .[0].headId == \"$S3\" and
	    .[0].entries == 3" && pi-sess log "$C" | diff -u s3.log -'
B=$(pi-sess show "$S" | jq -r '.branches[0]')
C=$(pi-sess show "$S" | jq -r '.branches[1]')
check 'appending to the branch: its entry follows the branch point' '
	user "on C" | pi-sess append "$C" >app && CE=$(jq -r .id app) &&
	pi-sess log "$C" >log && jqs log "length == 4 and .[3].id == \"$CE\" and
	    .[3].parentId == \"$S3\" and .[3].message.content == \"on C\""'
check 'the session branched from is unchanged' 'pi-sess log "$S" | diff -u s.log -'
check 'branch at an entry of another session: exit 3, said' '
	n=$(pi-sess ls | wc -l) && fails 3 branch "$S" "$A2" &&
	grep -q "^pi-sess: entry .$A2. is not in session .$S." err &&
	[ "$(pi-sess ls | wc -l)" -eq "$n" ]'
check 'branch of a branch at an entry past its branch point: exit 3' '
	fails 3 branch "$C" "$S5" && grep -q "entry .$S5. is not in session .$C." err'
check 'branch of a branch, at its own entry' '
	CC=$(pi-sess branch "$C" "$CE") && pi-sess show "$CC" >show &&
	jqs show ".[0].parentId == \"$C\" and .[0].branchPoint == \"$CE\" and
	    .[0].entries == 4" && pi-sess log "$C" >c.log &&
	pi-sess log "$CC" | diff -u c.log -'
CC=$(pi-sess show "$C" | jq -r '.branches[0]')
check 'branch of a branch, at an entry before its branch point' '
	D=$(pi-sess branch "$C" "$S2") && pi-sess show "$D" >show &&
	jqs show ".[0].parentId == \"$C\" and .[0].headId == \"$S2\" and .[0].entries == 2"'
D=$(pi-sess show "$C" | jq -r '.branches[1]')
check 'branch of an unknown session: exit 3' \
	'fails 3 branch ffffffff && grep -q "no session .ffffffff." err'
if command -v sqlite3 >/dev/null; then
	check 'branching copies no entry: one session row more, no entry row' '
		e=$(rows "$db" entries) && s=$(rows "$db" sessions) &&
		X=$(pi-sess branch "$S" "$S2") && pi-sess rm "$X" &&
		X=$(pi-sess branch "$S") &&
		is "$(rows "$db" entries)" "$e" && is "$(rows "$db" sessions)" $((s + 1)) &&
		pi-sess rm "$X" && is "$(rows "$db" sessions)" "$s"'
else
	skip 'branching copies no entry: one session row more, no entry row' 'no sqlite3'
fi

# tree
check 'tree S --json: the tree S is in, depth first, with levels' '
	pi-sess tree --json "$CC" >tree && jqs tree "length == 5 and
	    map(.id) == [\"$S\",\"$B\",\"$C\",\"$CC\",\"$D\"] and
	    map(.level) == [0,1,1,2,2] and
	    map(.branchPoint) == [null,\"$S5\",\"$S3\",\"$CE\",\"$S2\"]"'
check 'tree with no session: every tree, every session once' '
	pi-sess tree >tree && pi-sess ls --all >all &&
	jqs all "map(select(.parentId == null).id) | sort" >/dev/null &&
	roots=$(jq -sc "map(select(.parentId == null).id) | sort" all) &&
	jqs tree "all(.type == \"session\") and length == $(wc -l <all) and
	    (map(select(.level == 0).id) | sort) == $roots and
	    (map(.id) | index(\"$S\") + 1) == (map(.id) | index(\"$B\"))"'
tcheck 'tree on a terminal: connectors, indentation, the session marked' '
	onterm "pi-sess tree $CC" >t && [ "$(wc -l <t)" -eq 5 ] &&
	starts "$(sed -n 1p t)" "$(p13 "$S")" && sed -n 1p t | grep -q "  root  5 entries, " &&
	starts "$(sed -n 2p t)" "|-- $(p13 "$B")" && sed -n 2p t | grep -q ", at $(p13 "$S5")" &&
	starts "$(sed -n 3p t)" "\`-- $(p13 "$C")" && sed -n 3p t | grep -q ", at $(p13 "$S3")" &&
	starts "$(sed -n 4p t)" "    |-- * $(p13 "$CC")" &&
	starts "$(sed -n 5p t)" "    \`-- $(p13 "$D")" &&
	[ "$(grep -c "\* " t)" -eq 1 ] && ! grep -q "[{}]" t'
tcheck 'tree on a terminal marks the session asked about' '
	onterm "pi-sess tree $S" >t && starts "$(sed -n 1p t)" "* $(p13 "$S")" &&
	[ "$(grep -c "\* " t)" -eq 1 ]'
check 'tree of an unknown session: exit 3' 'fails 3 tree ffffffff'

# name
check 'name: a session_info entry, its id printed' '
	pi-sess name "$C" "  a  name " >out && pi-sess log "$C" >log &&
	jqs log ".[-1].type == \"session_info\" and .[-1].name == \"a  name\" and
	    .[-1].id == \"$(cat out)\""'
check 'the name in show and ls' '
	pi-sess show "$C" >show && jqs show ".[0].name == \"a  name\"" &&
	pi-sess ls >ls && jqs ls "map(select(.id == \"$C\"))[0].name == \"a  name\""'
check 'an empty name clears it' '
	pi-sess name "$C" "" >out && pi-sess show "$C" >show && jqs show ".[0].name == null" &&
	pi-sess log "$C" >log && jqs log ".[-1].type == \"session_info\" and .[-1].name == \"\""'
check 'name of an unknown session: exit 3' 'fails 3 name ffffffff x'

# label
check 'label: goes to the session that made the entry' '
	pi-sess label "$S2" important >out && pi-sess log "$S" >log &&
	jqs log ".[-1] | .type == \"label\" and .targetId == \"$S2\" and
	    .label == \"important\" and .id == \"$(cat out)\" and .parentId == \"$S5\""'
check 'and to no other' 'pi-sess log "$C" >log && jqs log "all(.type != \"label\")"'
check 'label --session: to that session, whose path holds the entry' '
	pi-sess label --session "$C" "$S2" "in C" >out && pi-sess log "$C" >log &&
	jqs log ".[-1] | .type == \"label\" and .targetId == \"$S2\" and .label == \"in C\" and
	    .id == \"$(cat out)\""'
check 'label --session whose path does not hold the entry: exit 3' '
	n=$(pi-sess log "$C" | wc -l) && fails 3 label --session "$C" "$S5" x &&
	grep -q "is not in session .$C." err && [ "$(pi-sess log "$C" | wc -l)" -eq "$n" ]'
check 'empty text clears the label: an entry without "label"' '
	pi-sess label "$S2" "" >out && pi-sess log "$S" >log &&
	jqs log ".[-1] | .type == \"label\" and .targetId == \"$S2\" and (has(\"label\") | not)"'
check 'label of an unknown entry: exit 3' 'fails 3 label ffffffff x && grep -q "no entry" err'

# rm
pi-sess context "$S" >s.ctx
pi-sess log "$S" >s.log
check 'rm of a session with branches: exit 1, naming them' '
	fails 1 rm "$S" && grep -q "has branches" err && grep -q "$C" err &&
	grep -q "$CC" err && grep -q "$B" err && pi-sess show "$S" >/dev/null'
check 'rm of a leaf branch: gone' \
	'pi-sess rm "$B" && fails 3 show "$B" && grep -q "no session" err'
check 'the parent keeps its entries and its context' '
	pi-sess log "$S" | diff -u s.log - &&
	pi-sess context "$S" | sed 1d | diff -u "$(sed 1d s.ctx >s.msgs; echo s.msgs)" -'
pi-sess log "$C" >c.log
check 'rm -r: the subtree goes, its root'"'"'s parent stays' '
	pi-sess rm -r "$C" && fails 3 show "$C" && fails 3 show "$CC" &&
	fails 3 show "$D" && pi-sess log "$S" | diff -u s.log - &&
	pi-sess show "$S" >show && jqs show ".[0].branches == []"'
check 'the entries the subtree made are gone' \
	'fails 3 label "$CE" x && grep -q "no entry" err'
if command -v sqlite3 >/dev/null; then
	check 'rm -r removes exactly the entries the subtree made' '
		e=$(rows "$db" entries) && X=$(pi-sess branch "$S" "$S2") &&
		{ user x1; user x2; } | pi-sess append "$X" >/dev/null &&
		Y=$(pi-sess branch "$X") && user y1 | pi-sess append "$Y" >/dev/null &&
		is "$(rows "$db" entries)" $((e + 3)) && pi-sess rm -r "$X" &&
		is "$(rows "$db" entries)" "$e"'
else
	skip 'rm -r removes exactly the entries the subtree made' 'no sqlite3'
fi
check 'rm of an unknown session: exit 3' 'fails 3 rm ffffffff'
check 'check: the database is whole' \
	'pi-sess check >out && jqs out "length == 1 and .[0] == {\"type\":\"check\",\"ok\":true,\"problems\":[]}"'

# Ids by prefix.
P1=$(pi-sess -d pre.db new) && P2=$(pi-sess -d pre.db new) || exit 1
{ user p1; user p2; } | pi-sess -d pre.db append "$P1" >app || exit 1
PE1=$(jq -r .id app | sed -n 1p) PE2=$(jq -r .id app | sed -n 2p)
check 'a unique prefix names a session' \
	'pi-sess -d pre.db show "${P1%??????}" >show && jqs show ".[0].id == \"$P1\""'
check 'an ambiguous prefix: exit 3, listing the candidates' '
	p=$(lcp "$P1" "$P2") && fails 3 -d pre.db show "$p" &&
	grep -q "ambiguous" err && grep -q "$P1" err && grep -q "$P2" err'
check 'a prefix of no session: exit 3' \
	'fails 3 -d pre.db show 0fff && grep -q "no session .0fff." err'
check 'an empty id: exit 3' 'fails 3 -d pre.db show ""'
check 'a unique prefix names an entry' '
	X=$(pi-sess -d pre.db branch "$P1" "${PE1%??????}") &&
	pi-sess -d pre.db show "$X" >show && jqs show ".[0].headId == \"$PE1\""'
check 'an ambiguous entry prefix: exit 3, listing the candidates' '
	fails 3 -d pre.db branch "$P1" "$(lcp "$PE1" "$PE2")" &&
	grep -q "ambiguous" err && grep -q "$PE1" err && grep -q "$PE2" err'

# lock and unlock: live holders are sleeps of ours, a dead one was one.
sleep 100 & live1=$!
sleep 100 & live2=$!
sleep 100 & dead=$!
# SIGKILL: the caller may have left SIGTERM blocked.
kill -9 "$dead"; wait "$dead" 2>/dev/null
Lk=$(pi-sess new) || exit 1
check 'lock --pid: held, the holder in show' '
	pi-sess lock --pid "$live1" "$Lk" && pi-sess show "$Lk" >show &&
	jqs show ".[0].lock.pid == $live1 and (.[0].lock.host | length) > 0 and
	    (.[0].lock.since | type) == \"number\""'
check_exit 'lock again by the same pid: exit 0' 0 'pi-sess lock --pid "$live1" "$Lk"'
check_exit 'lock by another live pid: exit 75' 75 'pi-sess lock --pid "$live2" "$Lk" 2>err'
check 'the holder named, pid and host' \
	'host=$(jq -r .lock.host show) && [ -n "$host" ] &&
	grep -q "is locked by pid $live1 on $host" err'
check_exit 'unlock by another live pid: exit 75' 75 'pi-sess unlock --pid "$live2" "$Lk" 2>err'
check 'still held by the first' '
	grep -q "locked by pid $live1" err && pi-sess show "$Lk" >show &&
	jqs show ".[0].lock.pid == $live1"'
check_exit 'rm of a session a live process holds: exit 75' 75 'pi-sess rm "$Lk" 2>err'
check 'lock --force: taken, said on stderr' '
	pi-sess lock --force --pid "$live2" "$Lk" 2>err && grep -q "(--force)" err &&
	grep -q "from pid $live1" err && pi-sess show "$Lk" >show &&
	jqs show ".[0].lock.pid == $live2"'
check 'lock --json: a lock line' '
	pi-sess --json lock --pid "$live2" "$Lk" >out &&
	jqs out ".[0].type == \"lock\" and .[0].sessionId == \"$Lk\" and .[0].pid == $live2"'
check 'unlock by the holder: free' '
	pi-sess unlock --pid "$live2" "$Lk" && pi-sess show "$Lk" >show &&
	jqs show ".[0].lock == null"'
check_exit 'unlock when not locked: exit 0' 0 'pi-sess unlock --pid "$live1" "$Lk"'
check 'a dead holder'"'"'s lock is taken over, with a message' '
	pi-sess lock --pid "$dead" "$Lk" && pi-sess lock --pid "$live1" "$Lk" 2>err &&
	grep -q "taking over the lock" err && grep -q "pid $dead, which is gone" err &&
	pi-sess show "$Lk" >show && jqs show ".[0].lock.pid == $live1"'
check 'unlock --force by another: free' '
	pi-sess unlock --force --pid "$live2" "$Lk" && pi-sess show "$Lk" >show &&
	jqs show ".[0].lock == null"'
check 'lock with no --pid: the caller'"'"'s (this shell)' '
	pi-sess lock "$Lk" && pi-sess show "$Lk" >show && jqs show ".[0].lock.pid == $$" &&
	pi-sess unlock "$Lk" && pi-sess show "$Lk" >show && jqs show ".[0].lock == null"'
check_exit 'lock of an unknown session: exit 3' 3 'pi-sess lock --pid "$live1" ffffffff 2>err'
kill -9 "$live1" "$live2"; wait "$live1" "$live2" 2>/dev/null

# Databases that are not ours.
printf 'This is not a database, only some text.\n%.0s' 1 2 3 4 5 6 7 8 9 10 >notdb
cp notdb notdb.orig
check 'a file that is not SQLite: exit 4, said, left alone' '
	fails 4 -d notdb ls && grep -q "not an SQLite database" err &&
	fails 4 -d notdb new && cmp notdb notdb.orig'
if command -v sqlite3 >/dev/null; then
	sqlite3 other.db 'CREATE TABLE t (a); INSERT INTO t VALUES (1);'
	check 'an SQLite database of something else: exit 4, left alone' '
		fails 4 -d other.db ls && grep -q "not a pi session database" err &&
		fails 4 -d other.db new && is "$(sqlite3 other.db "SELECT count(*) FROM sqlite_master")" 1'
	pi-sess -d newer.db new >/dev/null && sqlite3 newer.db 'PRAGMA user_version = 99'
	check 'a database of a newer pi-sess: exit 4, said newer' '
		fails 4 -d newer.db ls && grep -q "newer" err && grep -q "99" err &&
		fails 4 -d newer.db new && is "$(sqlite3 newer.db "PRAGMA user_version")" 99'
else
	skip 'an SQLite database of something else: exit 4, left alone' 'no sqlite3'
	skip 'a database of a newer pi-sess: exit 4, said newer' 'no sqlite3'
fi
done_testing
