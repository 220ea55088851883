#!/bin/sh
# pi-tool escape suite, processes: signals and ptrace to host
# processes, floods of forks, memory and output, and children that try
# to outlive the call.  Judged by looking at the host's processes.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 15

tool_helper
E=.bin/escape
# A host process the sandbox must not touch, under a name of its own.
mkdir -p "$TMP/victim"
cp /bin/sleep "$TMP/victim/pi-victim-$$"
"$TMP/victim/pi-victim-$$" 300 &
VICTIM=$!
trap 'kill $VICTIM 2>/dev/null; fake_stop; rm -rf "$TMP"' EXIT
alive() { [ "$(ps -o stat= -p "$VICTIM" | cut -c1)" = S ]; }
# Nothing of a call may be left: no process whose command line holds M.
M=pi-leftover-$$
gone() { ! pgrep -f "$M" >/dev/null; }

escape 'kill a host process by its pid' "kill -9 $VICTIM; kill -STOP $VICTIM" \
	alive
escape 'kill everything it can see' 'kill -9 -1; echo survived' alive
escape 'ptrace a host process' "$E ptrace $VICTIM" \
	"alive && out | grep -q blocked"
escape 'ptrace its own child' "sleep 5 & $E ptrace \$!; kill \$!" \
	"out | grep -q '^blocked: ptrace'"
escape 'host processes are not even visible' 'ps -e -o comm= | sort -u' \
	"alive && [ \"\$(out | sed '/^\$/d' | tr '\n' ' ')\" = 'ALIVE bash pi-sandbox ps sort ' ]"

# Past the timeout: background, setsid and double-forked children all go.
escape 'children that outlive the command are killed with it' \
	"exec -a $M-a sleep 300 & setsid bash -c 'exec -a $M-b sleep 300' & (bash -c 'exec -a $M-c sleep 300' &); echo started" \
	gone
escape 'setsid and double-forked children die at the timeout' \
	"setsid bash -c 'exec -a $M-d sleep 300' & (bash -c 'exec -a $M-e sleep 300' &); exec -a $M-f sleep 300" \
	"gone && ended '.error.code == \"timeout\"'" --timeout 1
check_exit 'the timeout is exit 124' 124 \
	"sbash 'sleep 30' --timeout 0.3"

escape 'a fork flood stops at the process limit' "$E forks 400" \
	"out | grep -q 'forked [0-9]* of 400: Resource temporarily' && gone" \
	--processes 64
escape 'a fork bomb is contained and cleaned up' \
	"bomb() { bomb | bomb & }; bomb; sleep 2; echo after" \
	"gone && ! pgrep -f 'bomb' >/dev/null" --timeout 4 --processes 64
escape 'a memory flood is stopped by the memory limit' "$E alloc 1024" \
	"out | grep -qx 'allocated 0 MiB' && ! out | grep -q 'allocated [1-9a]'" \
	--memory 64M

# An output flood keeps pi-tool's own memory small and stops at 100 MiB.
check 'an output flood stops at the ceiling, pi-tool stays small' '
	printf "%s\n" "{\"toolCallId\":\"f\",\"toolName\":\"bash\",\"input\":{\"command\":\"echo AL\\\"\\\"IVE; yes pi-flood\"}}" |
	/usr/bin/time -f %M -o rss pi-tool -w "$WS" >"$TMP/ev"
	[ $? -eq 6 ] && ended ".error.code == \"output_limit\" and .truncated" &&
	out | head -1 | grep -qx ALIVE && [ "$(tail -1 rss)" -lt 65536 ] &&
	rm -f "$(jq -r "select(.fullOutputPath).fullOutputPath" "$TMP/ev")"'

# Signals to pi-tool itself stop the call and everything in it.
run_bg() {
	printf '%s\n' "{\"toolCallId\":\"s\",\"toolName\":\"bash\",\"input\":{\"command\":\"setsid bash -c 'exec -a $M-g sleep 300' & echo AL\\\"\\\"IVE; exec -a $M-h sleep 300\"}}" |
		pi-tool -w "$WS" --grace 0.5 >"$TMP/ev" 2>"$TMP/ev.err" &
	BG=$!
	wait_until grep -q ALIVE "$TMP/ev"
}
check 'SIGTERM: exit 143, an aborted end event, nothing left' '
	run_bg && kill -TERM $BG; wait $BG; [ $? -eq 143 ] &&
	ended ".error.code == \"aborted\"" && gone'
check 'SIGINT: exit 130, nothing left' '
	run_bg && kill -INT $BG; wait $BG; [ $? -eq 130 ] && gone'
check 'SIGKILL of pi-tool: the sandbox dies with it' '
	run_bg && kill -KILL $BG; wait $BG; wait_until gone'
done_testing
