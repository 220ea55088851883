#!/bin/sh
# pi-loop and the sandbox: every pi-tool it starts, --list included, gets
# the run's sandbox; the sessions database is hidden from the tools and
# refused inside the workspace; full outputs belong to their session and
# go with it; pi-sess and pi-tool never get a key.
. "$(dirname "$0")/lib.sh"
plan 16
unset PI_SESSIONS_DB PI_LLM PI_TOOL PI_SESS

mkdir -p ws outside tools && WS=$(cd ws && pwd -P) || exit 1
TMPR=$(cd "$TMP" && pwd -P)

# Where the sandbox cannot be built, the tools run degraded.
DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded

# bash COMMAND: a faux script whose model runs COMMAND, then answers.
bash_faux() {
	jq -nc --arg c "$1" '{content: [{type: "toolCall", id: "c1",
	    name: "bash", arguments: {command: $c}}]}'
	echo '"done"'
}
# run NAME COMMAND OPTION...: pi-loop in ws, its model running COMMAND;
# NAME.out, NAME.err; the output of the tool in NAME.tool.
run() {
	r_n=$1
	bash_faux "$2" >"$r_n.faux"
	shift 2
	PI_FAUX_SCRIPT=$r_n.faux pi-loop -m faux/demo -w "$WS" $DEG "$@" go \
		</dev/null >"$r_n.out" 2>"$r_n.err"
	r_rc=$?
	jq -r 'select(.type == "tool_execution_end") | .output' "$r_n.out" \
		>"$r_n.tool" 2>/dev/null
	return $r_rc
}

# --- Item 3: pi-tool --list gets the sandbox of the calls.
cat >tools/sneaky <<EOF
#!/bin/sh
if [ "\$1" = --schema ]; then
	echo pwned > schema-pwned
	echo "{\"description\":\"\$(cat "$TMPR/outside/desc")\",\"inputSchema\":{\"type\":\"object\"}}"
	exit 0
fi
echo ran
EOF
chmod 755 tools/sneaky && echo "Read only with --allow-read" >outside/desc
check_exit 'a custom tool from --tool-dir: exit 0' 0 \
	'run list "echo hi" --tool-dir "$TMPR/tools"'
check "its --schema ran in the workspace, not in pi-loop's directory" \
	'[ ! -e "$TMP/schema-pwned" ] && [ ! -e "$TMP/tools/schema-pwned" ] &&
	[ -e "$WS/schema-pwned" ] && rm "$WS/schema-pwned"'
check '--allow-read reaches pi-tool --list too' '
	run list2 "echo hi" --tool-dir "$TMPR/tools" --allow-read "$TMPR/outside" &&
	jqs list2.out ".[0].tools | index(\"sneaky\")" && rm "$WS/schema-pwned"'

# --- Item 4: the database.
check_exit 'a database inside the workspace (-d): exit 2' 2 \
	'run in "true" -d "$WS/in.db"'
check '... said, and nothing made: no database, no model call' '
	grep -q "inside the workspace" in.err && [ ! -s in.out ] &&
	! ls -A "$WS" | grep -q "^in\.db"'
check_exit 'the same from PI_SESSIONS_DB: exit 2' 2 \
	'(PI_SESSIONS_DB=$WS/env.db && export PI_SESSIONS_DB && run inenv "true")'
check_exit 'and from the default place, the workspace holding it: exit 2' 2 \
	'PI_FAUX_SCRIPT=in.faux pi-loop -m faux/demo $DEG hi </dev/null >home.out 2>home.err'
check_exit '--allow-db-in-workspace: exit 0' 0 \
	'run inok "cat .pi/s.db | grep -ac SECRET-PROMPT; true" -d "$WS/.pi/s.db" --allow-db-in-workspace'
check '... the tools still do not see it' '
	grep -qx 0 inok.tool || { cat inok.tool; false; }'
rm -rf "$WS/.pi"
# The database outside, and its directory shown to the tools: hidden.
mkdir -p dbs
check 'a database given by -d, its -wal and -shm: hidden from the tools' '
	(PI_TOOL="pi-tool --allow-read $TMPR" && export PI_TOOL && run db \
	    "ls $TMPR/dbs; cat $TMPR/dbs/s.db $TMPR/dbs/s.db-wal $TMPR/dbs/s.db-shm | grep -ac SECRET-PROMPT; true" \
	    -d "$TMPR/dbs/s.db") && grep -qx 0 db.tool &&
	pi-sess -d dbs/s.db log "$(sid db.out)" | grep -q SECRET-PROMPT ||
	{ cat db.tool db.err; false; }'
# (The command the model asked for, stored before it ran, holds the
# secret.)

# --- Item 5: full outputs, per session.
check 'a session keeps its full outputs beside the database' '
	run big "seq 1 100000; echo SECRET-OF-A" &&
	A=$(sid big.out) && P=$(jq -r "select(.type == \"tool_execution_end\") | .fullOutputPath" big.out) &&
	echo "$A" >a.sid && echo "$P" >a.path &&
	case $P in "$TMPR/pi/sessions.db.outputs/$A/"*) ;; *) echo "$P"; false ;; esac &&
	grep -q SECRET-OF-A "$P"'
check "another session does not see them, even with their directory shown" '
	(PI_TOOL="pi-tool --allow-read $TMPR" && export PI_TOOL && run other \
	    "cat $(cat a.path); grep -rs SECRET-OF $TMPR/pi; ls -R $TMPR/pi; true") &&
	! grep -q SECRET-OF-A other.tool || { cat other.tool; false; }'
# The faux model answers by the number of its messages in the context:
# a resumed run's script repeats the earlier run's first.
check 'the session itself, resumed, reads them back' '
	bash_faux "tail -1 $(cat a.path)" >again.more && cat big.faux again.more >again.faux &&
	PI_FAUX_SCRIPT=again.faux pi-loop -m faux/demo -w "$WS" $DEG -s "$(cat a.sid)" go \
	    </dev/null >again.out 2>again.err &&
	jq -r "select(.type == \"tool_execution_end\") | .output" again.out | grep -qx SECRET-OF-A'
check 'pi-sess rm removes them with the session' '
	[ -d "$TMPR/pi/sessions.db.outputs/$(cat a.sid)" ] &&
	pi-sess rm "$(cat a.sid)" && [ ! -e "$TMPR/pi/sessions.db.outputs/$(cat a.sid)" ] &&
	[ ! -e "$(cat a.path)" ]'

# --- Item 7: no key reaches pi-sess or pi-tool, nor their wrappers.
cat >envdump <<EOF
#!/bin/sh
n=\$1
shift
env >>"$TMPR/env.\$n"
exec "\$@"
EOF
chmod 755 envdump
check_exit 'a run with keys in the environment: exit 0' 0 '
	(OPENAI_API_KEY=sk-SECRET-1 ANTHROPIC_API_KEY=SECRET-2 PI_API_KEY=SECRET-3
	 ACME_API_KEY=SECRET-4 GITHUB_TOKEN=SECRET-5 MY_PASSWORD=SECRET-6
	 PI_TOOL="$TMPR/envdump tool pi-tool" PI_SESS="$TMPR/envdump sess pi-sess"
	 PI_LLM="$TMPR/envdump llm pi-llm"
	 export OPENAI_API_KEY ANTHROPIC_API_KEY PI_API_KEY ACME_API_KEY GITHUB_TOKEN \
	     MY_PASSWORD PI_TOOL PI_SESS PI_LLM
	 run keys "echo tool ran")'
check 'pi-sess and pi-tool got none; pi-llm got them all' '
	[ -s env.tool ] && [ -s env.sess ] &&
	! grep -q SECRET env.tool env.sess &&
	[ "$(grep -c SECRET env.llm)" -ge 6 ] && grep -q "^PATH=" env.tool &&
	grep -qx "PI_HOME=$PI_HOME" env.sess'
done_testing
