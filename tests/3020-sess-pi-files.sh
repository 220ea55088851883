#!/bin/sh
# pi-sess import and export: pi's session files (versions 1 to 3) made
# into sessions, one per branch; the file written back; round trips into
# a fresh and into the same database; malformed lines and bad files; a
# large generated file.  The fixtures are in tests/fixtures/pi.
. "$(dirname "$0")/lib.sh"
plan 66

FX=$ROOT/tests/fixtures/pi
V3=$FX/v3-branches.jsonl
MAIN=4bf3b22d-d2ff-48a7-9db9-10571b7585da

# jq over a whole file (jq -s): the path from the root to an entry, by
# parentId; the entries no other entry names as its parent, in file
# order; the entries with two children or more.
JQDEF='def parents: .[1:] | map({key: .id, value: .parentId}) | from_entries;
def path_to($l): parents as $p | [$l | recurse($p[.] // empty)] | reverse;
def leaves: .[1:] | (map(.parentId // empty | {key: ., value: true}) | from_entries) as $ps |
	map(.id | select($ps[.] | not));
def forks: [.[1:][] | .parentId | select(. != null)] | group_by(.) | map(select(length > 1) | .[0]);'
fx() { jq -rs "$JQDEF $2" "$1"; }

# Each line with its id references turned into line numbers in the file,
# and its ids gone: equal for two files that are the same but for ids.
SHAPE='(to_entries | map({key: (.value.id // "-"), value: .key}) | from_entries) as $ix |
def ref($k): if has($k) then (if .[$k] == null then null else ($ix[.[$k]] // "dangling") end) else "absent" end;
map({p: ref("parentId"), t: ref("targetId"), f: ref("firstKeptEntryId"), r: ref("fromId"),
     rest: del(.id, .parentId, .targetId, .firstKeptEntryId, .fromId, .parentSession)})'

# A file as a sorted set of canonical lines.
canon() { jq -cS . "$1" | sort; }
ids_of() { pi-sess log "$1" | jq -r .id; }
ids_of_db() { pi-sess -d "$1" log "$2" | jq -r .id; }
sess() { pi-sess show "$1" | jq -r "$2"; }

# --- a version 3 file with four branches --------------------------------
check_exit 'import a v3 file with branches: exit 0' 0 \
	'pi-sess import "$V3" >imp.out 2>imp.err'
check 'it prints one session id per branch, the file'"'"'s own (its id kept) first' '
	is "$(wc -l <imp.out | tr -d " ")" "$(fx "$V3" "leaves | length")" &&
	is "$(sed -n 1p imp.out)" "$MAIN" && [ ! -s imp.err ]'
B=$(sed -n 2p imp.out) D=$(sed -n 3p imp.out) C=$(sed -n 4p imp.out)
check 'the main session'"'"'s head is the last entry of the file' \
	'is "$(sess "$MAIN" .headId)" "$(tail -n 1 "$V3" | jq -r .id)"'
check 'it was last active when its head was made, not at the import' '
	when=$(tail -n 1 "$V3" | jq -r ".timestamp | sub(\"\\\\.[0-9]+Z$\"; \"Z\") | fromdate") &&
	ms=$(tail -n 1 "$V3" | jq -r ".timestamp | capture(\"\\\\.(?<ms>[0-9]+)Z$\").ms") &&
	is "$(sess "$MAIN" .lastActiveAt)" "$when$ms"'
check 'the others follow the leaves in file order' '
	want=$(fx "$V3" "leaves | map(select(. != \"23ac4da3\")) | .[]" | tr "\n" " ") &&
	is "$(sess "$B" .headId) $(sess "$D" .headId) $(sess "$C" .headId) " "$want" &&
	is "$want" "f6101d6d 6ad86520 b66f9017 "'
check 'ls --all: the four sessions, in the file'"'"'s directory' '
	pi-sess ls --all >ls.out &&
	jqs ls.out "length == 4 and all(.cwd == \"/home/ana/src/widget\") and
	    (map(.id) | sort) == ([\"$MAIN\", \"$B\", \"$C\", \"$D\"] | sort)"'
check 'ls --all: parents and branch points as the tree forks' '
	jqs ls.out "map({(.id): [.parentId, .branchPoint]}) | add ==
	    {\"$MAIN\": [null, null], \"$B\": [\"$MAIN\", \"1d2f8761\"],
	     \"$D\": [\"$B\", \"e176f512\"], \"$C\": [\"$MAIN\", \"a256b4c9\"]}"'
check 'the branch points are the fork points of the file' '
	is "$(jq -r .branchPoint ls.out | grep -v null | sort | tr "\n" " ")" \
	    "$(fx "$V3" "forks | sort | .[]" | tr "\n" " ")"'
check 'tree: main, then its branches, a branch of a branch one level down' '
	pi-sess tree "$MAIN" >tree.out &&
	jqs tree.out "map([.id, .level, .branchPoint]) ==
	    [[\"$MAIN\", 0, null], [\"$B\", 1, \"1d2f8761\"], [\"$D\", 2, \"e176f512\"],
	     [\"$C\", 1, \"a256b4c9\"]]"'
for s in MAIN B D C; do
	eval "id=\$$s"
	check "log of $s: the file's path from the root to its leaf, ids and order" '
		want=$(fx "$V3" "path_to(\"$(sess "$id" .headId)\")[]") &&
		[ -n "$want" ] && is "$(ids_of "$id")" "$want"'
done
check 'log of main: its lines are the file'"'"'s, as pi wrote them' '
	ids_of "$MAIN" | tr "\n" " " >main.ids &&
	jq -c "select(.id as \$i | \"$(cat main.ids)\" | split(\" \") | index([\$i]))" "$V3" |
	    jq -cS . >want.log &&
	pi-sess log "$MAIN" | jq -cS . >got.log && [ -s got.log ] &&
	diff want.log got.log'
check 'every entry id of the file is kept' '
	for s in "$MAIN" "$B" "$C" "$D"; do ids_of "$s"; done | sort -u >got.ids &&
	jq -r "select(.type != \"session\") | .id" "$V3" | sort >want.ids &&
	diff want.ids got.ids'
check 'the main session is named by its session_info entry' \
	'is "$(sess "$MAIN" .name)" "CSV export off-by-one"'
check 'context of main: the compaction applied, from firstKeptEntryId on' '
	pi-sess context "$MAIN" >ctx.out &&
	jqs ctx.out ".[0] | .compactionId == \"af77c6b6\" and .messages == 12 and .entries == 26 and
	    .model == {provider: \"anthropic\", modelId: \"claude-sonnet-4-5\"} and
	    .thinkingLevel == \"medium\"" &&
	jqs ctx.out "length == 13 and (.[1].content[0].text | contains(\"<summary>\n## Goal\nFix the CSV export\")) and
	    (.[2].content[0].text == \"Now mention the fix in the README'"'"'s changelog.\") and
	    (.[6].content[0].text == \"CI run #4812 passed on main.\") and
	    (.[12].content[0].text == \"Committed as 3f9c2ab ✓\") and
	    (map(.content[0].text? // \"\") | index(\"Fix it and add a test.\") | not)"'
check 'context of main: the kept messages are the stored ones' '
	sed -n 3p ctx.out | jq -cS . >a && jq -cS "select(.id == \"efd35e44\") | .message" "$V3" >b &&
	diff a b'
check 'context of a branch after a branch_summary: the summary as a user message' '
	pi-sess context "$C" >ctxc.out &&
	jqs ctxc.out ".[0].messages == 7 and .[0].compactionId == null and
	    (.[5].content[0].text | contains(\"The user explored a different conversation branch\")) and
	    .[6].content[0].text == \"Before fixing anything, explain where write_rows is called from.\""'
check 'context of the branch with a model_change: that model' '
	pi-sess context "$D" | head -n 1 | jq -e ".model == {provider: \"openai\", modelId: \"gpt-5\"}"'
check 'check: the database is sound after the import' 'pi-sess check >/dev/null'

# --- export -------------------------------------------------------------
check_exit 'export of the main session: exit 0' 0 'pi-sess export "$MAIN" >e1.jsonl'
check 'it is a v3 file: a header with the session'"'"'s id, then entries' '
	jqs e1.jsonl ".[0] | .type == \"session\" and .version == 3 and .id == \"$MAIN\" and
	    .cwd == \"/home/ana/src/widget\" and .timestamp == \"2026-03-02T09:14:05.118Z\"" &&
	jqs e1.jsonl ".[1:] | all(has(\"id\") and has(\"parentId\") and
	    (.timestamp | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$\")))"'
check 'its lines are the fixture'"'"'s, as a set' 'canon "$V3" >a && canon e1.jsonl >b && diff a b'
check 'parents come before children, and the head is last' '
	jqs e1.jsonl "reduce .[1:][] as \$e ({}; if \$e.parentId == null or .[\$e.parentId] then .[\$e.id] = true else error(\"parent after child: \" + \$e.id) end) | length == 41" &&
	is "$(tail -n 1 e1.jsonl | jq -r .id)" "$(sess "$MAIN" .headId)"'
check 'pi'"'"'s key order: type, id, parentId, timestamp; custom and custom_message fields first' '
	jq -c "keys_unsorted" e1.jsonl | sort -u >keys &&
	grep -qx "\[\"type\",\"id\",\"parentId\",\"timestamp\",\"message\"\]" keys &&
	grep -qx "\[\"type\",\"customType\",\"data\",\"id\",\"parentId\",\"timestamp\"\]" keys &&
	grep -qx "\[\"type\",\"customType\",\"content\",\"display\",\"details\",\"id\",\"parentId\",\"timestamp\"\]" keys &&
	grep -qx "\[\"type\",\"id\",\"parentId\",\"timestamp\",\"summary\",\"firstKeptEntryId\",\"tokensBefore\",\"details\"\]" keys'
check 'this fixture is in an order export keeps: byte for byte the same' 'cmp "$V3" e1.jsonl'
check 'export of a branch: its path, then its own and its branches'"'"' entries, its head last' '
	pi-sess export "$B" >eb.jsonl &&
	jqs eb.jsonl ".[0].id == \"$B\" and .[0].parentSession == \"$MAIN\" and length == 25" &&
	is "$(tail -n 1 eb.jsonl | jq -r .id)" f6101d6d &&
	{ ids_of "$B"; ids_of "$D"; } | sort -u >want.ids &&
	sed 1d eb.jsonl | jq -r .id | sort >got.ids && diff want.ids got.ids'

# --- round trips --------------------------------------------------------
check_exit 'the export imported into a fresh database: exit 0' 0 \
	'pi-sess -d other.db import e1.jsonl >imp2.out'
check 'the main session keeps its id; four sessions again' '
	is "$(sed -n 1p imp2.out)" "$MAIN" && is "$(wc -l <imp2.out | tr -d " ")" 4'
check 'export again: byte for byte the first export' \
	'pi-sess -d other.db export "$MAIN" >e2.jsonl && cmp e1.jsonl e2.jsonl'
check_exit 'the export imported into the same database: exit 0' 0 \
	'pi-sess import e1.jsonl >imp3.out 2>imp3.err'
M3=$(sed -n 1p imp3.out)
check 'a new main session, since the file'"'"'s id is taken, and four sessions' '
	[ -n "$M3" ] && [ "$M3" != "$MAIN" ] && is "$(wc -l <imp3.out | tr -d " ")" 4 &&
	is "$(pi-sess ls --all | wc -l | tr -d " ")" 8'
check 'its export: new ids throughout' '
	pi-sess export "$M3" >e3.jsonl && jq -r .id e1.jsonl | sort >a &&
	jq -r .id e3.jsonl | sort >b && is "$(comm -12 a b | wc -l | tr -d " ")" 0 &&
	is "$(sort -u b | wc -l | tr -d " ")" 42'
check 'equal to the first export with ids and references deleted' '
	jq -c "del(.id, .parentId, .targetId, .firstKeptEntryId, .fromId)" e1.jsonl >a &&
	jq -c "del(.id, .parentId, .targetId, .firstKeptEntryId, .fromId)" e3.jsonl >b &&
	diff a b'
check 'parentId, firstKeptEntryId, targetId, fromId name the same entries as before' '
	jq -cs "$SHAPE" e1.jsonl >a && jq -cs "$SHAPE" e3.jsonl >b &&
	! grep -q dangling b && diff a b'
check 'the compaction keeps an entry of the file, the labels target entries of it' '
	jqs e3.jsonl "map(.id) as \$ids | [.[] | (.firstKeptEntryId, .targetId, .fromId) // empty] |
	    length == 4 and all(. as \$r | \$ids | index([\$r]))"'

# --- versions 1 and 2 ---------------------------------------------------
V1=$FX/v1-linear.jsonl V1ID=0c5e9a47-3d1b-4f28-9e6a-b7d2c41f8a90
check 'import a v1 file: its id printed' \
	'pi-sess -d v1.db import "$V1" >v1.out && is "$(cat v1.out)" "$V1ID"'
pi-sess -d v1.db log "$V1ID" >v1.log
check 'v1: every entry gets an id of 8 hex digits, all different' '
	jqs v1.log "length == $(($(wc -l <"$V1") - 1)) and all(.id | test(\"^[0-9a-f]{8}$\")) and
	    (map(.id) | unique | length) == length"'
check 'v1: a linear chain, each entry the child of the one before' '
	jqs v1.log ".[0].parentId == null and
	    ([range(1; length) as \$i | .[\$i].parentId == .[\$i - 1].id] | all)"'
check 'v1: the entries are those of the file, in its order' '
	jq -c "del(.id, .parentId, .firstKeptEntryId)" v1.log >a &&
	sed 1d "$V1" | jq -c "del(.firstKeptEntryIndex) | if .message.role == \"hookMessage\" then .message.role = \"custom\" else . end" >b &&
	jq -cS . a >a2 && jq -cS . b >b2 && diff a2 b2'
check 'v1: firstKeptEntryIndex becomes the firstKeptEntryId of the entry at that index' '
	idx=$(jq -r "select(.type == \"compaction\") | .firstKeptEntryIndex" "$V1") &&
	want=$(jq -rs ".[$idx].message.content[0].text" "$V1") && [ "$want" != null ] &&
	kept=$(jq -r "select(.type == \"compaction\") | .firstKeptEntryId" v1.log) &&
	is "$kept" "$(jq -rs ".[$idx - 1].id" v1.log)" &&
	is "$(jq -r "select(.id == \"$kept\") | .message.content[0].text" v1.log)" "$want" &&
	! grep -q firstKeptEntryIndex v1.log'
check 'v1: hookMessage is renamed custom, its fields kept' '
	jqs v1.log "map(select(.message.customType == \"release-check\")) | length == 1 and
	    .[0].message.role == \"custom\" and .[0].message.display == true" &&
	! grep -q hookMessage v1.log'
check 'v1: the context applies the compaction at the kept entry' '
	pi-sess -d v1.db context "$V1ID" >v1ctx &&
	jqs v1ctx ".[0].messages == 8 and .[0].thinkingLevel == \"low\" and
	    (.[1].content[0].text | contains(\"Ship the man pages\")) and
	    .[2].content[0].text == \"Add the man pages to it.\" and
	    .[6].content[0].text == \"Version 1.4.0 is not tagged yet.\""'
check 'v1: exported as a v3 file' '
	pi-sess -d v1.db export "$V1ID" >v1x.jsonl &&
	jqs v1x.jsonl ".[0].version == 3 and (.[0] | has(\"provider\") | not) and .[1:] == $(jq -cs . v1.log)"'
V2=$FX/v2-hook.jsonl V2ID=7f3a1c0e-58b2-4d6e-a9c4-2e81d05b6f37
check 'import a v2 file: its ids kept' '
	pi-sess -d v2.db import "$V2" >v2.out && is "$(cat v2.out)" "$V2ID" &&
	is "$(ids_of_db v2.db "$V2ID")" "$(sed 1d "$V2" | jq -r .id)"'
check 'v2: hookMessage renamed custom; the rest as it was' '
	pi-sess -d v2.db log "$V2ID" | jq -cS . >a &&
	sed 1d "$V2" | jq -cS "if .message.role == \"hookMessage\" then .message.role = \"custom\" else . end" >b &&
	diff b a && grep -q "\"role\":\"custom\"" a'
# pi's convertToLlm gives a custom message the message's own timestamp.
check 'v2: the custom message is in the context as a user message' '
	pi-sess -d v2.db context "$V2ID" |
	    jq -se "length == 4 and .[2].role == \"user\" and
		.[2].content[0].text == \"slowest: t/net.t 41s, t/db.t 12s\" and
		.[2].timestamp == 1764577807700"'

# --- malformed lines and bad files ---------------------------------------
BAD=$FX/bad-lines.jsonl BADID=e2b7c950-6a14-4f0d-b38e-91d5a7c2f046
check_exit 'malformed lines: exit 0' 0 'pi-sess -d bad.db import "$BAD" >bad.out 2>bad.err'
check 'a warning naming FILE:LINE for each skipped line, and no other' '
	is "$(sed -n "s|^pi-sess: $BAD:\([0-9]*\): skipped: .*|\1|p" bad.err | tr "\n" " ")" "4 6 8 10 " &&
	is "$(wc -l <bad.err | tr -d " ")" 4'
check 'the good entries are imported, the first of two with one id kept' '
	is "$(cat bad.out)" "$BADID" &&
	pi-sess -d bad.db log "$BADID" >bad.log &&
	jqs bad.log "map(.id) == [\"a0c4e817\", \"5b2f9d36\", \"e81d07ac\", \"9d3a61f4\", \"72ce8b05\"] and
	    .[1].message.content[0].text == \"How many lines is src/main.c?\""'
{ sed -n 2p "$V3"; sed -n 1p "$V3"; sed 1,2d "$V3"; } >nohdr.jsonl
check_exit 'the first line not a session header: exit 3' 3 \
	'pi-sess -d bad.db import nohdr.jsonl 2>err'
check 'it names FILE:1, and nothing is stored' '
	grep -q "^pi-sess: nohdr.jsonl:1: " err &&
	is "$(pi-sess -d bad.db ls --all | wc -l | tr -d " ")" 1'
sed '1s/"version":3/"version":4/' "$V3" >v4.jsonl
check_exit 'a header with version 4: exit 3' 3 'pi-sess -d bad.db import v4.jsonl 2>err'
check 'it names FILE:1 and the version; nothing is stored' '
	grep -q "^pi-sess: v4.jsonl:1: .*version 4" err &&
	is "$(pi-sess -d bad.db ls --all | wc -l | tr -d " ")" 1'
# Import FILE, failing with 99 unless stderr names it.
import_named() {
	pi-sess -d bad.db import "$1" 2>err
	rc=$?
	grep -q "^pi-sess: $1" err || { cat err; return 99; }
	return $rc
}
: >empty.jsonl
check_exit 'an empty file: exit 3, naming it' 3 'import_named empty.jsonl'
check_exit 'a missing file: exit 3, naming it' 3 'import_named missing.jsonl'

# --- several files, standard input -------------------------------------
check 'several files in one call: each one'"'"'s sessions, in order' '
	pi-sess -d multi.db import "$V2" "$V3" "$V1" >multi.out &&
	is "$(sed -n 1p multi.out) $(sed -n 2p multi.out) $(sed -n 6p multi.out)" "$V2ID $MAIN $V1ID" &&
	is "$(wc -l <multi.out | tr -d " ")" 6 &&
	is "$(pi-sess -d multi.db ls --all | wc -l | tr -d " ")" 6'
check 'a bad file among good ones: exit 3, the good ones imported' '
	pi-sess -d multi2.db import "$V2" missing.jsonl "$V1" >m2.out 2>/dev/null; rc=$? &&
	is "$rc" 3 && is "$(cat m2.out | tr "\n" " ")" "$V2ID $V1ID "'
check 'import - reads standard input' '
	pi-sess -d stdin.db import - <"$V2" >in.out && is "$(cat in.out)" "$V2ID" &&
	pi-sess -d stdin.db export "$V2ID" >in.jsonl &&
	pi-sess -d v2.db export "$V2ID" | cmp - in.jsonl'
check 'standard input'"'"'s warnings name stdin:LINE' '
	pi-sess -d stdin2.db import - <"$BAD" >/dev/null 2>err &&
	is "$(sed -n "s/^pi-sess: stdin:\([0-9]*\): skipped: .*/\1/p" err | tr "\n" " ")" "4 6 8 10 "'

# --- a large generated file ----------------------------------------------
# 5000 entries: a branch now and then from a random earlier entry,
# labels and compactions naming earlier entries; parents first, so the
# file is in the order export writes.
cat >gen.py <<'EOF'
import json, random, sys, time
n = int(sys.argv[1]); rnd = random.Random(7)
base = 1767225600000
def iso(ms):
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(ms // 1000)) + '.%03dZ' % (ms % 1000)
def dump(o):
    return json.dumps(o, separators=(',', ':'), ensure_ascii=False)
ids, parent, seen = [], {}, set()
def newid():
    while True:
        i = '%08x' % rnd.getrandbits(32)
        if i not in seen:
            seen.add(i)
            return i
print(dump({"type": "session", "version": 3, "id": "9a1f0c3e-7b42-4d85-8e6f-1c2d3b4a5f60",
            "timestamp": iso(base), "cwd": "/srv/big"}))
leaf = None; ms = base
for k in range(n):
    if k > 10 and rnd.random() < 0.02:
        leaf = rnd.choice(ids)
    i = newid(); ms += rnd.randint(1, 4000)
    head = {"type": None, "id": i, "parentId": leaf, "timestamp": iso(ms)}
    r = rnd.random()
    if k == 0:
        o = dict(head, type="model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    elif r < 0.01:
        a = leaf
        for _ in range(rnd.randint(0, 5)):
            a = parent[a] or a
        o = dict(head, type="compaction", summary="summary %d" % k, firstKeptEntryId=a,
                 tokensBefore=rnd.randint(1000, 90000))
    elif r < 0.03:
        o = dict(head, type="label", targetId=rnd.choice(ids), label="l%d" % k)
    elif r < 0.5:
        o = dict(head, type="message", message={"role": "user", "content": [
            {"type": "text", "text": "question %d \u00e9 \"q\"\n" % k}], "timestamp": ms - 3})
    else:
        o = dict(head, type="message", message={"role": "assistant", "content": [
            {"type": "text", "text": "answer %d" % k}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": {"input": k,
            "output": 7, "cacheRead": 0, "cacheWrite": 0, "totalTokens": k + 7, "cost": {
            "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": ms - 9})
    print(dump(o))
    ids.append(i); parent[i] = leaf; leaf = i
EOF
BIGID=9a1f0c3e-7b42-4d85-8e6f-1c2d3b4a5f60
if ! command -v python3 >/dev/null; then
	for t in generate import log export 'round trip'; do skip "large file: $t" 'no python3'; done
	done_testing
fi
check 'a generated file of 5000 entries with branches' '
	python3 gen.py 5000 >big.jsonl && is "$(wc -l <big.jsonl | tr -d " ")" 5001 &&
	[ "$(fx big.jsonl "leaves | length")" -gt 20 ]'
check 'it imports: a session per leaf, the main one first' '
	pi-sess -d big.db import big.jsonl >big.out &&
	is "$(wc -l <big.out | tr -d " ")" "$(fx big.jsonl "leaves | length")" &&
	is "$(sed -n 1p big.out)" "$BIGID" &&
	is "$(pi-sess -d big.db show "$BIGID" | jq -r .headId)" "$(tail -n 1 big.jsonl | jq -r .id)"'
check 'the main session'"'"'s log is the path to the last entry' '
	pi-sess -d big.db log "$BIGID" | jq -r .id >a &&
	fx big.jsonl "path_to(\"$(tail -n 1 big.jsonl | jq -r .id)\")[]" >b && diff a b'
check 'its export is the file, as a set and byte for byte' '
	pi-sess -d big.db export "$BIGID" >bx.jsonl &&
	canon big.jsonl >a && canon bx.jsonl >b && diff a b && cmp big.jsonl bx.jsonl'
check 'round trip through a fresh database: byte for byte' '
	pi-sess -d big2.db import bx.jsonl >/dev/null &&
	pi-sess -d big2.db export "$BIGID" | cmp - bx.jsonl &&
	pi-sess -d big2.db check >/dev/null'

done_testing
