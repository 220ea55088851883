#!/bin/sh
# The bash tool: streams, exit statuses, timeouts, the environment, the
# head and tail of long output with the whole kept in a file, and what
# pi-tool does when its reader goes away.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 32

TMPDIR=$TMP/tmpdir
export TMPDIR
mkdir -p "$TMPDIR"
updates() { jq -r "select(.type==\"tool_execution_update\" and .updateType==\"$1\").content" "$TMP/ev"; }

check_exit 'stdout and stderr: exit 0' 0 "sbash 'echo out; echo err >&2'"
check 'each stream as its own update' \
	'[ "$(updates stdout)" = out ] && [ "$(updates stderr)" = err ]'
check 'the output holds both' '[ "$(out | grep . | sort | tr "\n" " ")" = "err out " ]'
check_exit 'a non-zero exit: exit 6' 6 "sbash 'echo partial; exit 3'"
check 'the output ends saying so, as pi does' '
	[ "$(out)" = "$(printf "partial\n\nCommand exited with code 3")" ] &&
	ended ".success == false and .exitCode == 3 and .error.code == \"exit_status\" and
	    .error.message == \"Command exited with code 3\""'
check_exit 'killed by a signal: exit 6' 6 "sbash 'kill -SEGV \$\$'"
check 'no exit code, the signal named' '
	ended ".exitCode == null and .signal == 11 and .error.code == \"signal\"" &&
	out | grep -q "^Command was killed by signal 11"'
check 'no output at all' "sbash true && [ \"\$(out)\" = '(no output)' ]"
check 'it runs in the workspace, with an allowlisted environment' "
	sbash 'pwd; echo \"\$TMPDIR \$TERM \$SHELL\"; env | cut -d= -f1 | sort | tr \"\\n\" \" \"' &&
	[ \"\$(out | sed -n 1p)\" = '$WS' ] &&
	[ \"\$(out | sed -n 2p)\" = '/tmp dumb /bin/bash' ] &&
	! out | sed -n 3p | grep -qv -e 'HOME' -e 'PATH' -e 'PWD' -e 'SHLVL' -e 'TERM' -e 'TMPDIR' -e 'SHELL' -e 'LC_ALL' -e '_ ' -e 'OLDPWD'"
check 'writes in the workspace stay; writes in /tmp go with the call' '
	sbash "echo kept > kept; echo lost > /tmp/lost; ls /tmp" &&
	[ "$(cat "$WS/kept")" = kept ] && out | grep -qx lost &&
	sbash "ls /tmp" && ! out | grep -qx lost'
check 'the private temp directory and the cgroup are removed' '
	sbash "basename \$(grep -o \"pi-tool\.[A-Za-z0-9]*\" /proc/self/mountinfo | head -1)" &&
	name=$(out) && [ -n "$name" ] && [ ! -e "$TMPDIR/$name" ] &&
	! ls -d /sys/fs/cgroup/*/$name /sys/fs/cgroup/*/*/*/$name 2>/dev/null | grep -q .'
check_exit 'the call'"'"'s own timeout shortens the limit: exit 124' 124 \
	"tool bash '{\"command\":\"sleep 20\",\"timeout\":0.3}' --timeout 30"
check 'said as pi says it' '
	ended ".error.code == \"timeout\"" &&
	out | tail -1 | grep -qx "Command timed out after 0.3 seconds"'
check 'but never lengthens it' "
	tool bash '{\"command\":\"sleep 20\",\"timeout\":60}' --timeout 0.3;
	ended '.error.code == \"timeout\" and .durationMs < 5000'"

# Long output: the head and the tail, the whole in a file.
check_exit '5000 lines: exit 0' 0 "sbash 'seq 1 5000'"
check 'the first and the last 1000 lines, and what was left out' '
	out | sed -n 1000p | grep -qx 1000 && out | sed -n 1001p |
	grep -qx "\[\.\.\. 3000 lines (.*) left out \.\.\.\]" &&
	out | sed -n 1002p | grep -qx 4001 && out | grep -qx 5000 &&
	ended ".truncated == true"'
check 'the notice names the file, which holds it all' '
	f=$(jq -r "select(.fullOutputPath).fullOutputPath" "$TMP/ev") &&
	out | tail -1 | grep -qF "[Showing lines 1-1000 and 4001-5000 of 5000 (50.0KB limit). Full output: $f]" &&
	seq 1 5000 | cmp - "$f" && [ "$(stat -c %a "$f")" = 600 ]'
check 'a later call can read the file' '
	tool read "{\"file_path\":\"$f\",\"offset\":4999}" && [ "$(out)" = "$(printf "4999\n5000\n")" ]'
check 'long lines are cut by bytes, a piece of the last one kept' '
	sbash "head -c 200000 /dev/zero | tr \"\\0\" x; echo; echo end" &&
	out | grep -qx end && [ "$(out | wc -c)" -lt 52000 ] && ended ".truncated"'
check '--max-output sets the size the model sees' '
	sbash "seq 1 3000" --max-output 2000 &&
	[ "$(out | wc -c)" -lt 2300 ] && out | tail -1 | grep -q "(2.0KB limit)"'

# Output as events: whole characters, escaped, never raw.
check 'a character split between two writes arrives whole' '
	sbash "printf \"\\342\"; sleep 0.2; printf \"\\202\\254\"" &&
	[ "$(updates stdout | tr -d "\n")" = "€" ] && [ "$(out)" = "€" ]'
check 'invalid UTF-8 becomes U+FFFD' '
	sbash "printf \"a\\377b\"" && [ "$(out)" = "a�b" ]'
check 'control characters are escaped inside the string' '
	sbash "printf \"\\033[31mred\\001\"" && jq_lines "$TMP/ev" &&
	[ "$(out | od -An -c | tr -d " \n")" = "033[31mred001\\n" ]'
check 'a command cannot forge an event' '
	sbash "echo \"{\\\"type\\\":\\\"tool_execution_end\\\",\\\"success\\\":true}\"" &&
	jqs "$TMP/ev" "map(select(.type == \"tool_execution_end\")) | length == 1" &&
	[ "$(wc -l <"$TMP/ev")" -eq 3 ]'
check 'past 1 MiB of updates, a progress update each second instead' '
	sbash "head -c 3000000 /dev/zero | tr \"\\0\" y | fold -w 100; sleep 1.2" &&
	jqs "$TMP/ev" "(map(select(.updateType == \"stdout\").content | length) | add) < 1200000 and
	    (map(select(.updateType == \"progress\")) | length >= 1 and
	     (.[-1].bytes >= 3000000))"'

# The reader goes away: stop, exit 141, leave nothing.
M=pi-reader-gone-$$
check 'stdout closed by its reader: exit 141, the command stopped' "
	printf '%s\n' '{\"toolCallId\":\"r\",\"toolName\":\"bash\",\"input\":{\"command\":\"(exec -a $M sleep 300 &); yes\"}}' |
	{ pi-tool -w '$WS'; echo \$? >rc; } | head -c 1 >/dev/null; [ \"\$(cat rc)\" = 141 ] && ! pgrep -f $M"

# An interrupt gives the command its grace: SIGTERM first.
check 'an interrupt sends SIGTERM first, and the command may clean up' '
	printf "%s\n" "{\"toolCallId\":\"g\",\"toolName\":\"bash\",\"input\":{\"command\":\"trap \\\"echo cleaned > cleaned; exit 1\\\" TERM; echo AL\\\"\\\"IVE; sleep 30 & wait\"}}" |
	pi-tool -w "$WS" --grace 5 >"$TMP/ev" & bg=$!
	wait_until grep -q ALIVE "$TMP/ev" && kill -TERM $bg; wait $bg; rc=$?
	[ $rc -eq 143 ] && [ "$(cat "$WS/cleaned")" = cleaned ] &&
	ended ".error.code == \"aborted\"" && out | tail -1 | grep -qx "Command aborted"'
check 'a command that ignores SIGTERM is killed when the grace ends' '
	printf "%s\n" "{\"toolCallId\":\"h\",\"toolName\":\"bash\",\"input\":{\"command\":\"trap \\\"\\\" TERM; echo AL\\\"\\\"IVE; while :; do sleep 0.1; done\"}}" |
	pi-tool -w "$WS" --grace 0.3 >"$TMP/ev" & bg=$!
	wait_until grep -q ALIVE "$TMP/ev" && kill -TERM $bg; wait $bg; [ $? -eq 143 ] &&
	ended ".durationMs < 5000"'

# --network keeps the host's network; the default is none.
check 'the default: no socket at all' '
	sbash "exec 3<>/dev/tcp/127.0.0.1/9 && echo opened"; ! out | grep -qx opened &&
	out | grep -q "socket: Operation not permitted"'
check 'with --network: a socket can be made' '
	sbash "python3 -c \"import socket; socket.socket(); print(\\\"made\\\")\" || /bin/bash -c \"exec 3<>/dev/udp/127.0.0.1/9 && echo made\"" --network &&
	out | grep -qx made'

# Timing is a figure for make bench, not a test; this is only order.
check 'update events come before the end, in the order written' '
	sbash "for i in 1 2 3; do echo \$i; sleep 0.05; done" &&
	[ "$(updates stdout | tr -d "\n")" = 123 ]'
check 'every line of every call above was a JSON object' 'jq_lines "$TMP/ev"'
done_testing
