#!/bin/sh
# pi-sess context: the model's context computed from the tree.  Messages
# as stored, the system prompt, model and thinking level, --at,
# compactions, pi's own message roles, and branches at depth.
. "$(dirname "$0")/lib.sh"
plan 61
unset PI_SESSIONS_DB

# fails WANT ARG...: pi-sess ARG... exits WANT (out, err kept).
fails() {
	want=$1; shift
	pi-sess "$@" >out 2>err
	rc=$?
	[ "$rc" -eq "$want" ] && return
	echo "exit status $rc, expected $want"; cat err; return 1
}
user() { printf '{"role":"user","content":"%s"}\n' "$@"; }
asst() {
	for t; do
		printf '{"role":"assistant","content":[{"type":"text","text":"%s"}]}\n' "$t"
	done
}
# ctx S [OPTION...]: S's context in ctx, its messages in msgs.
ctx() { s=$1; shift; pi-sess context "$@" "$s" >ctx && sed 1d ctx >msgs; }
ids() { pi-sess log "$1" | jq -r .id; }
nlog() { pi-sess log "$1" | wc -l | tr -d ' '; }
faux() { pi-llm -m faux/demo --faux-script "$ROOT/examples/hello.faux"; }
# The faux provider answers call N from line N: one for each assistant
# message a context holds, and one more.
for i in 1 2 3 4 5 6 7 8; do echo '"fine"'; done >many.faux
faux_many() { pi-llm -m faux/demo --faux-script many.faux; }

# A fresh session.
F=$(pi-sess new) || exit 1
check 'a fresh session: the context line only' '
	ctx "$F" && jqs ctx "length == 1 and (.[0] | .type == \"context\" and .v == 1 and
	    .sessionId == \"$F\" and .headId == null and .entries == 0 and
	    .messages == 0 and .estimatedTokens == 0 and .model == null and
	    .thinkingLevel == \"off\" and .compactionId == null)"'
check 'a sub-agent'"'"'s session (new --parent) starts empty too' '
	user hi | pi-sess append "$F" >/dev/null && K=$(pi-sess new --parent "$F") &&
	ctx "$K" && jqs ctx "length == 1 and .[0].sessionId == \"$K\""'
check_exit 'context of an unknown session: exit 3' 3 'pi-sess context ffffffff 2>err >out'
check 'said so, nothing on stdout' 'grep -q "no session .ffffffff." err && [ ! -s out ]'

# The messages, byte for byte as stored.
cat >msgs.in <<'EOF'
{"role":"user","content":"héllo \"quoted\" \\ back\tslash / ünï 😀","timestamp":1700000000001}
{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls -l","n":1.5,"x":null,"y":[true,false],"e":1e-3}}],"provider":"faux","model":"demo","usage":{"input":1,"output":2},"stopReason":"toolUse","timestamp":1700000000002}
{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"a\nb\u0001"}],"isError":false,"timestamp":1700000000003}
{"role":"user","content":[{"type":"text","text":"next"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":1700000000004}
EOF
M=$(pi-sess new) || exit 1
pi-sess append "$M" <msgs.in >app || exit 1
check 'messages root to head, byte for byte as appended' \
	'ctx "$M" && diff -u msgs.in msgs'
check 'the context line: head, counts, the model of the assistant message' '
	jqs ctx "(.[0] | .sessionId == \"$M\" and .headId == \"$(jq -r .id app | tail -1)\" and
	    .entries == 4 and .messages == 4 and .estimatedTokens > 0 and
	    .model == {\"provider\":\"faux\",\"modelId\":\"demo\"} and .compactionId == null)"'
check 'the estimate is pi'"'"'s: the characters of the messages / 4' '
	c=$(tr -d "\n" <msgs | LC_ALL=C wc -c) &&
	jqs ctx ".[0].estimatedTokens == ((($c + 3) / 4) | floor)"'

# The stream feeds pi-llm, and what it says goes back in.
P=$(pi-sess new) || exit 1
user 'Hello there' | pi-sess append "$P" >/dev/null || exit 1
check_exit 'pi-sess context | pi-llm: exit 0' 0 'pi-sess context "$P" | faux >llm.out'
check 'its answer appended: the context ends with it, its model set' '
	pi-sess append "$P" <llm.out >/dev/null && ctx "$P" &&
	jqs ctx "length == 3 and .[0].model == {\"provider\":\"faux\",\"modelId\":\"demo\"} and
	    .[2].role == \"assistant\" and (.[2].content | map(select(.type == \"text\").text) |
	    join(\"\") | startswith(\"Hello!\"))"'

# The system prompt.
Y=$(pi-sess new) || exit 1
check 'a system line is stored as an entry' '
	printf "%s\n" "{\"type\":\"system\",\"text\":\"be brief\"}" | pi-sess append "$Y" >app &&
	jqs app "length == 1 and .[0].entryType == \"custom\""'
user hi | pi-sess append "$Y" >app && YU=$(jq -r .id app) || exit 1
check 'it is the system line of the context, before the messages' '
	ctx "$Y" && jqs ctx "length == 3 and .[1].type == \"system\" and
	    .[1].text == \"be brief\" and .[0].messages == 1 and .[2].content == \"hi\""'
check 'the same prompt again stores nothing' '
	printf "%s\n" "{\"type\":\"system\",\"text\":\"be brief\"}" \
	    "{\"role\":\"system\",\"content\":\"be brief\"}" | pi-sess append "$Y" >app &&
	[ ! -s app ] && is "$(nlog "$Y")" 2'
check 'a changed prompt: stored once, and it replaces the old one' '
	printf "%s\n" "{\"type\":\"system\",\"text\":\"be terse\"}" \
	    "{\"type\":\"system\",\"text\":\"be terse\"}" | pi-sess append "$Y" >app &&
	jqs app "length == 1" && ctx "$Y" &&
	jqs ctx "length == 3 and (map(select(.type == \"system\")) | length) == 1 and
	    .[1].text == \"be terse\""'
check 'a system message (role system) sets it too' '
	printf "%s\n" "{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"be kind\"}]}" |
	    pi-sess append "$Y" >app && jqs app "length == 1" && ctx "$Y" &&
	jqs ctx ".[1].text == \"be kind\" and .[0].messages == 1"'
check 'a branch from before the change keeps the old prompt' '
	YB=$(pi-sess branch "$Y" "$YU") && ctx "$YB" &&
	jqs ctx ".[1].type == \"system\" and .[1].text == \"be brief\""'

# The model and the thinking level, the newest on the path.
T=$(pi-sess new) || exit 1
tset() { printf '%s\n' "$@" | pi-sess append "$T" >app; }
check 'a model_change sets the model' '
	tset "{\"type\":\"model_change\",\"provider\":\"p1\",\"modelId\":\"m1\"}" && ctx "$T" &&
	jqs ctx ".[0].model == {\"provider\":\"p1\",\"modelId\":\"m1\"} and .[0].messages == 0"'
T1=$(jq -r .id app)
check 'a newer assistant message sets it' '
	user q >in && printf "%s\n" "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}],\"provider\":\"p2\",\"model\":\"m2\"}" >>in &&
	pi-sess append "$T" <in >/dev/null && ctx "$T" &&
	jqs ctx ".[0].model == {\"provider\":\"p2\",\"modelId\":\"m2\"}"'
check 'an assistant message that names none leaves it' '
	asst b | pi-sess append "$T" >/dev/null && ctx "$T" &&
	jqs ctx ".[0].model == {\"provider\":\"p2\",\"modelId\":\"m2\"} and .[0].messages == 3"'
check 'a newer model_change sets it again' '
	tset "{\"type\":\"model_change\",\"provider\":\"p3\",\"modelId\":\"m3\"}" && ctx "$T" &&
	jqs ctx ".[0].model == {\"provider\":\"p3\",\"modelId\":\"m3\"}"'
check 'thinkingLevel: off until a thinking_level_change' '
	jqs ctx ".[0].thinkingLevel == \"off\"" &&
	tset "{\"type\":\"thinking_level_change\",\"thinkingLevel\":\"high\"}" && ctx "$T" &&
	jqs ctx ".[0].thinkingLevel == \"high\"" &&
	tset "{\"type\":\"thinking_level_change\",\"thinkingLevel\":\"minimal\"}" && ctx "$T" &&
	jqs ctx ".[0].thinkingLevel == \"minimal\" and .[0].messages == 3"'

# --at: the context as of an entry.
check 'context --at: as of that entry' '
	ctx "$T" --at "$T1" && jqs ctx "length == 1 and .[0].headId == \"$T1\" and
	    .[0].entries == 1 and .[0].model == {\"provider\":\"p1\",\"modelId\":\"m1\"} and
	    .[0].thinkingLevel == \"off\""'
check 'context --at a message: the messages up to it, byte for byte' '
	a=$(pi-sess log "$M" | sed -n 2p | jq -r .id) &&
	ctx "$M" --at "$a" && head -2 msgs.in | diff -u - msgs &&
	jqs ctx ".[0].headId == \"$a\" and .[0].entries == 2 and .[0].messages == 2"'
check 'context --at an entry of another session: exit 3, said' '
	fails 3 context --at "$T1" "$M" && grep -q "entry .$T1. is not in session .$M." err &&
	[ ! -s out ]'
check 'context --at an unknown entry: exit 3' \
	'fails 3 context --at ffffffff "$M" && grep -q "no entry" err'

# Compaction.
K=$(pi-sess new) || exit 1
{ user u1; asst a1; user u2; asst a2; user u3; asst a3; user u4; asst a4; } >k.in
pi-sess append "$K" <k.in | jq -r .id >k.ids || exit 1
K5=$(sed -n 5p k.ids) K6=$(sed -n 6p k.ids) K7=$(sed -n 7p k.ids) K8=$(sed -n 8p k.ids)
pi-sess context "$K" >pre.ctx
printf 'sum one\nline "two"' >sum1
{ printf 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n'
  cat sum1; printf '\n</summary>'; } >want1
check 'compact: the compaction entry'"'"'s id, bare' '
	pi-sess compact "$K" --summary-file sum1 --first-kept "$K5" >out &&
	pi-sess show "$K" >show && jqs show ".[0].headId == \"$(cat out)\"" &&
	grep -Eqx "[0-9a-f-]{36}" out'
C1=$(cat out)
check 'context: the summary, in pi'"'"'s words, first' '
	ctx "$K" && jqs ctx "length == 6 and (.[0] | .compactionId == \"$C1\" and
	    .messages == 5 and .entries == 9 and .headId == \"$C1\") and
	    (.[1] | .role == \"user\" and (.content | length) == 1 and
	     .content[0].type == \"text\" and (.timestamp | type) == \"number\")" &&
	sed -n 1p msgs | jq -j ".content[0].text" >got1 && cmp want1 got1'
check 'then the entries from the first kept one, byte for byte' \
	'sed 1d msgs >kept && sed -n 5,8p k.in | diff -u - kept'
check 'the compaction entry: summary, first kept, pi'"'"'s estimate of tokens' '
	pi-sess log "$K" >log && jqs log ".[-1] | .type == \"compaction\" and
	    .summary == \"sum one\nline \\\"two\\\"\" and .firstKeptEntryId == \"$K5\" and
	    .tokensBefore > 0 and .tokensBefore == $(sed -n 1p pre.ctx | jq .estimatedTokens)"'
{ user after; asst after-a; } >after.in
pi-sess append "$K" <after.in >/dev/null || exit 1
check 'entries after the compaction follow' '
	ctx "$K" && jqs ctx ".[0].messages == 7 and .[0].compactionId == \"$C1\"" &&
	sed 1d msgs >rest && { sed -n 5,8p k.in; cat after.in; } | diff -u - rest'
check_exit 'the context of a compaction goes to pi-llm: exit 0' 0 \
	'pi-sess context "$K" | faux_many >/dev/null'
check 'context --at an entry before the compaction: none applied' '
	ctx "$K" --at "$K8" && jqs ctx ".[0].compactionId == null and .[0].messages == 8" &&
	diff -u k.in msgs'
check 'a branch from before the compaction: none applied' '
	KB=$(pi-sess branch "$K" "$K6") && ctx "$KB" &&
	jqs ctx ".[0].compactionId == null and .[0].messages == 6" && head -6 k.in | diff -u - msgs'
check 'a second compaction (summary on stdin, --tokens-before) replaces the first' '
	printf "sum two" | pi-sess compact --summary-file - --first-kept "$K7" \
	    --tokens-before 42 "$K" >out && C2=$(cat out) && ctx "$K" &&
	jqs ctx ".[0].compactionId == \"$C2\" and .[0].messages == 5" &&
	! grep -q "sum one" msgs && sed -n 1p msgs | jq -e ".content[0].text | endswith(\"<summary>\nsum two\n</summary>\")" &&
	sed 1d msgs >rest && { sed -n 7,8p k.in; cat after.in; } | diff -u - rest'
check 'its entry has the tokensBefore given' '
	pi-sess log "$K" >log && jqs log ".[-1].type == \"compaction\" and .[-1].tokensBefore == 42 and
	    .[-1].firstKeptEntryId == \"$K7\" and .[-1].summary == \"sum two\""'
check 'compact --first-kept not on the path: exit 3, nothing stored' '
	n=$(nlog "$K") && fails 3 compact --summary-file sum1 --first-kept "$T1" "$K" &&
	grep -q "is not in session .$K." err && is "$(nlog "$K")" "$n"'
check 'compact with a summary file that is not there: exit 3' '
	n=$(nlog "$K") && fails 3 compact --summary-file nofile --first-kept "$K5" "$K" &&
	grep -q "nofile" err && is "$(nlog "$K")" "$n"'
check 'compact without --first-kept: exit 2' \
	'fails 2 compact --summary-file sum1 "$K" && grep -q "first-kept" err'

# pi's own message roles and entries.
R=$(pi-sess new) || exit 1
cat >r.in <<'EOF'
{"role":"bashExecution","command":"ls -a","output":"a\nb","exitCode":0,"cancelled":false,"truncated":false,"timestamp":111}
{"role":"bashExecution","command":"true","output":"","exitCode":0,"cancelled":false,"truncated":false,"timestamp":112}
{"role":"bashExecution","command":"false","output":"err","exitCode":2,"cancelled":false,"truncated":false,"timestamp":113}
{"role":"bashExecution","command":"cat secret","output":"x","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":114}
{"role":"bashExecution","command":"sleep 9","output":"part","cancelled":true,"truncated":false,"timestamp":115}
{"role":"bashExecution","command":"yes","output":"y","exitCode":0,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/out.txt","timestamp":116}
{"role":"custom","customType":"note","content":"custom text","display":true,"timestamp":117}
{"role":"custom","customType":"note","content":[{"type":"text","text":"block"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"display":true,"timestamp":118}
{"type":"custom_message","customType":"ext","content":"cm text","display":false}
{"type":"branch_summary","fromId":"abc","summary":"we tried X"}
EOF
cat >r.want <<'EOF'
{"role":"user","content":[{"type":"text","text":"Ran `ls -a`\n```\na\nb\n```"}],"timestamp":111}
{"role":"user","content":[{"type":"text","text":"Ran `true`\n(no output)"}],"timestamp":112}
{"role":"user","content":[{"type":"text","text":"Ran `false`\n```\nerr\n```\n\nCommand exited with code 2"}],"timestamp":113}
{"role":"user","content":[{"type":"text","text":"Ran `sleep 9`\n```\npart\n```\n\n(command cancelled)"}],"timestamp":115}
{"role":"user","content":[{"type":"text","text":"Ran `yes`\n```\ny\n```\n\n[Output truncated. Full output: /tmp/out.txt]"}],"timestamp":116}
EOF
check_exit 'pi'"'"'s roles and entries appended: exit 0' 0 'pi-sess append "$R" <r.in >app'
check 'stored as they came: ten entries, bashExecution and custom as messages' '
	jqs app "length == 10 and (map(.role) | .[0:8] | all(. == \"bashExecution\" or . == \"custom\")) and
	    map(.entryType)[8:] == [\"custom_message\", \"branch_summary\"]" &&
	pi-sess log "$R" >log && jqs log ".[0].message.role == \"bashExecution\" and
	    .[0].message.output == \"a\nb\""'
ctx "$R"
check 'nine messages: excludeFromContext is skipped' \
	'jqs ctx ".[0].messages == 9 and length == 10" && ! grep -q secret msgs'
check 'bashExecution: pi'"'"'s text, the output fenced, the message'"'"'s timestamp' \
	'sed -n 1p r.want >w && sed -n 1p msgs | diff -u w -'
check 'bashExecution without output: (no output)' \
	'sed -n 2p r.want >w && sed -n 2p msgs | diff -u w -'
check 'a non-zero exit code: Command exited with code N' \
	'sed -n 3p r.want >w && sed -n 3p msgs | diff -u w -'
check 'cancelled, and truncated with the full output'"'"'s path' \
	'sed -n 4,5p r.want >w && sed -n 4,5p msgs | diff -u w -'
# pi's convertToLlm gives a custom message the message's own timestamp.
check 'a custom message: a user message of its text, at its own time' '
	sed -n 6p msgs | jq -e "keys == [\"content\",\"role\",\"timestamp\"] and .role == \"user\" and
	    .content == [{\"type\":\"text\",\"text\":\"custom text\"}] and .timestamp == 117"'
check 'a custom message of blocks: its blocks as they are' '
	sed -n 7p msgs | jq -e ".role == \"user\" and .content == [{\"type\":\"text\",\"text\":\"block\"},
	    {\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}]"'
check 'a custom_message entry: a user message' '
	sed -n 8p msgs | jq -e ".role == \"user\" and .content == [{\"type\":\"text\",\"text\":\"cm text\"}] and
	    .timestamp > 1000000000000"'
check 'a branch_summary entry: pi'"'"'s words around the summary' '
	sed -n 9p msgs | jq -e ".role == \"user\" and .content == [{\"type\":\"text\",\"text\":
	    \"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nwe tried X</summary>\"}]"'
check_exit 'that context goes to pi-llm: exit 0' 0 'pi-sess context "$R" | faux >/dev/null'

# Branches at depth: a chain of 2000 entries, appended in one go.
awk 'BEGIN { for (i = 1; i <= 2000; i++)
	if (i % 2) printf "{\"role\":\"user\",\"content\":\"m%d\"}\n", i
	else printf "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"m%d\"}]}\n", i }' >chain.in
D=$(pi-sess new) || exit 1
check 'a chain of 2000: each entry answered' '
	pi-sess append "$D" <chain.in >app && [ "$(wc -l <app)" -eq 2000 ] &&
	jq -r .id app >d.ids && pi-sess show "$D" >show && jqs show ".[0].entries == 2000"'
E=$(sed -n 1000p d.ids)
B=$(pi-sess branch "$D" "$E") || exit 1
{ user m2001; asst m2002; user m2003; } >d.more
{ user b1; asst b2; } >b.more
pi-sess append "$D" <d.more >/dev/null && pi-sess append "$B" <b.more >/dev/null || exit 1
check 'the trunk: 2003 messages, its own last' '
	ctx "$D" && jqs ctx ".[0].messages == 2003 and length == 2004" &&
	cat chain.in d.more | diff -u - msgs'
cp msgs d.msgs
check 'the branch at entry 1000: 1002 messages, its own last' '
	ctx "$B" && jqs ctx ".[0].messages == 1002 and .[0].entries == 1002 and length == 1003" &&
	tail -2 msgs | diff -u b.more -'
check 'the shared prefix is the same, byte for byte' \
	'head -1000 msgs >b.pre && head -1000 d.msgs | diff -u - b.pre && head -1000 chain.in | diff -u - b.pre'
cp msgs b.msgs
# Three levels, each at another depth.
B1=$(pi-sess branch "$D" "$(sed -n 1500p d.ids)") || exit 1
awk 'BEGIN { for (i = 1; i <= 10; i++) printf "{\"role\":\"user\",\"content\":\"c%d\"}\n", i }' >c.in
pi-sess append "$B1" <c.in | jq -r .id >c.ids || exit 1
B2=$(pi-sess branch "$B1" "$(sed -n 5p c.ids)") || exit 1
awk 'BEGIN { for (i = 1; i <= 5; i++) printf "{\"role\":\"user\",\"content\":\"d%d\"}\n", i }' >dd.in
pi-sess append "$B2" <dd.in >/dev/null || exit 1
B3=$(pi-sess branch "$B2" "$(sed -n 700p d.ids)") || exit 1
user e1 | pi-sess append "$B3" >/dev/null || exit 1
check 'a branch of a branch: its path crosses three sessions' '
	ctx "$B2" && jqs ctx ".[0].messages == 1510" &&
	{ head -1500 chain.in; head -5 c.in; cat dd.in; } | diff -u - msgs'
check 'a branch of that, back at entry 700 of the trunk' '
	ctx "$B3" && jqs ctx ".[0].messages == 701 and .[0].entries == 701" &&
	{ head -700 chain.in; user e1; } | diff -u - msgs'
check 'the tree: three levels down' '
	pi-sess tree --json "$B3" >tree &&
	jqs tree "map(select(.id == \"$B3\"))[0].level == 3 and
	    map(select(.id == \"$B2\"))[0].level == 2 and map(select(.id == \"$B1\"))[0].level == 1 and
	    map(select(.id == \"$B3\"))[0].branchPoint == \"$(sed -n 700p d.ids)\""'
check 'context --at an entry of the trunk, from the third level' '
	ctx "$B2" --at "$(sed -n 1200p d.ids)" && jqs ctx ".[0].messages == 1200" &&
	head -1200 chain.in | diff -u - msgs'
check 'context --at an entry of the branch past the branch point: exit 3' \
	'fails 3 context --at "$(sed -n 7p c.ids)" "$B2"'
ctx "$B1" && cp msgs b1.msgs
check 'rm of a sibling branch: the others'"'"' contexts stay the same' '
	pi-sess rm "$B" && ctx "$D" && diff -u d.msgs msgs && ctx "$B1" && diff -u b1.msgs msgs'
check 'rm -r of a branch below: its parent'"'"'s context stays the same' '
	pi-sess rm -r "$B2" && fails 3 context "$B3" && ctx "$B1" && diff -u b1.msgs msgs &&
	ctx "$D" && diff -u d.msgs msgs'
check 'the database is whole' \
	'pi-sess check >out && jqs out ".[0].ok == true and .[0].problems == []"'
done_testing
