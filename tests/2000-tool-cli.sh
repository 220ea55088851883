#!/bin/sh
# pi-tool's interface: the shapes of a call it takes, bad input, bad
# options, --list, and the events a call writes.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 34

run() { printf '%s\n' "$1" | pi-tool -w "$WS" >"$TMP/ev" 2>"$TMP/ev.err"; }

check_exit 'a bash call: exit 0' 0 \
	"run '{\"toolCallId\":\"c1\",\"toolName\":\"bash\",\"input\":{\"command\":\"echo hi\"}}'"
check 'start, updates, end; every line an event with v and ts' '
	jqs "$TMP/ev" "length == 3 and all(.v == 1 and (.ts | type) == \"number\") and
	    map(.type) == [\"tool_execution_start\",\"tool_execution_update\",\"tool_execution_end\"] and
	    all(.toolCallId == \"c1\" and .toolName == \"bash\")"'
check 'start: the input and the sandbox in force' '
	jqs "$TMP/ev" ".[0].input == {\"command\":\"echo hi\"} and
	    (.[0].sandbox.enforced | index(\"landlock\") and index(\"seccomp\") and
	     index(\"mount\") and index(\"pid\") and index(\"net\")) and
	    .[0].sandbox.degraded == [] and .[0].sandbox.network == false"'
check 'update: stdout, as it came' '
	jqs "$TMP/ev" ".[1].updateType == \"stdout\" and .[1].content == \"hi\n\""'
check 'end: success, output, exit code, duration, no degraded layer' '
	jqs "$TMP/ev" ".[2] | .success and .output == \"hi\n\" and
	    .exitCode == 0 and (.durationMs | type) == \"number\" and
	    .truncated == false and .degraded == [] and has(\"error\") == false"'
check_exit 'pi-llm'"'"'s toolcall_end event is a call' 0 \
	"run '{\"type\":\"toolcall_end\",\"v\":1,\"ts\":1,\"messageId\":\"m9\",\"toolCallId\":\"c2\",\"toolName\":\"bash\",\"input\":{\"command\":\"true\"}}'"
check 'its messageId is carried into every event' \
	'jqs "$TMP/ev" "all(.messageId == \"m9\" and .toolCallId == \"c2\")"'
check_exit 'pi'"'"'s toolCall block is a call' 0 \
	"run '{\"type\":\"toolCall\",\"id\":\"c3\",\"name\":\"bash\",\"arguments\":{\"command\":\"true\"}}'"
check 'its id and name are used' \
	'jqs "$TMP/ev" "all(.toolCallId == \"c3\" and .toolName == \"bash\")"'
check_exit 'arguments given as a JSON string are parsed' 0 \
	"run '{\"toolCallId\":\"c4\",\"toolName\":\"bash\",\"input\":\"{\\\"command\\\":\\\"echo s\\\"}\"}'"
check 'a whole pi-llm stream with one call: the call is found' '
	{ echo "{\"type\":\"message_start\",\"messageId\":\"m\",\"role\":\"assistant\"}";
	  echo "{\"type\":\"toolcall_end\",\"messageId\":\"m\",\"toolCallId\":\"c5\",\"toolName\":\"bash\",\"input\":{\"command\":\"echo five\"}}";
	  echo "{\"type\":\"message_end\",\"messageId\":\"m\",\"stopReason\":\"tool_use\",\"usage\":{},\"message\":{}}"; } |
	pi-tool -w "$WS" >"$TMP/ev" && [ "$(out)" = five ]'

# Bad input: an error event, exit 3, and the line it is on.
check_exit 'not JSON: exit 3' 3 "run 'not json'"
check 'not JSON: an error event naming stdin:1' '
	jqs "$TMP/ev" "length == 1 and .[0].type == \"error\" and .[0].code == \"bad_input\" and
	    (.[0].message | startswith(\"stdin:1: \"))" &&
	grep -q "^pi-tool: stdin:1: " "$TMP/ev.err"'
check_exit 'no call at all: exit 3' 3 "run ''"
check 'no call: said so' 'grep -q "no tool call" "$TMP/ev.err"'
check_exit 'two calls: exit 3' 3 'printf "%s\n%s\n" \
	"{\"toolCallId\":\"a\",\"toolName\":\"bash\",\"input\":{\"command\":\"touch ran-a\"}}" \
	"{\"toolCallId\":\"b\",\"toolName\":\"bash\",\"input\":{\"command\":\"touch ran-b\"}}" |
	pi-tool -w "$WS" >"$TMP/ev" 2>"$TMP/ev.err"'
check 'two calls: stdin:2 named, and neither ran' '
	grep -q "stdin:2: a second tool call" "$TMP/ev.err" &&
	[ ! -e "$WS/ran-a" ] && [ ! -e "$WS/ran-b" ]'
check_exit 'a call without an id: exit 3' 3 \
	"run '{\"toolName\":\"bash\",\"input\":{\"command\":\"true\"}}'"
check_exit 'an unknown tool: exit 3' 3 \
	"run '{\"toolCallId\":\"u\",\"toolName\":\"frobnicate\",\"input\":{}}'"
check 'an unknown tool: a result the model can read' '
	jqs "$TMP/ev" "length == 2 and .[1].type == \"tool_execution_end\" and
	    .[1].success == false and .[1].output == \"Tool frobnicate not found\" and
	    .[1].error.code == \"unknown_tool\""'
check_exit 'arguments that do not fit the schema: exit 3' 3 \
	"run '{\"toolCallId\":\"v\",\"toolName\":\"read\",\"input\":{\"offset\":\"x\"}}'"
check 'the schema error is pi'"'"'s, for the model to correct' '
	jqs "$TMP/ev" ".[1].error.code == \"invalid_arguments\" and
	    (.[1].output | startswith(\"Validation failed for tool \\\"read\\\":\n\")) and
	    (.[1].output | contains(\"Received arguments:\"))"'
check_exit 'a string where a number belongs is coerced, as pi does' 0 \
	"echo hello >'$WS/f.txt' && run '{\"toolCallId\":\"w\",\"toolName\":\"read\",\"input\":{\"file_path\":\"f.txt\",\"limit\":\"1\"}}'"

# Options.
check_exit 'an unknown option: exit 2' 2 'pi-tool --frob </dev/null 2>err'
check 'the usage message goes with it' 'grep -q "^usage: pi-tool " err'
check_exit '-h: exit 0, usage on stdout' 0 'pi-tool -h >out && grep -q "^usage: pi-tool" out'
check_exit 'a workspace that does not exist: exit 2' 2 \
	"pi-tool -w '$TMP/nowhere' </dev/null 2>err"
check 'named' 'grep -q "nowhere" err'
check_exit 'the workspace may not be /' 2 'pi-tool -w / </dev/null 2>err'
check_exit 'a timeout that is not a number of seconds: exit 2' 2 \
	'pi-tool --timeout soon </dev/null 2>err'
check_exit 'an --allow-write path that does not exist: exit 2' 2 \
	"pi-tool --allow-write '$TMP/nowhere' </dev/null 2>err"

# The usage message is the SYNOPSIS, modulo line breaks.
norm() { tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//'; echo; }
if command -v mandoc >/dev/null; then
	{ printf 'usage: '; mandoc -T ascii -O width=1000 "$ROOT/man/pi-tool.1" |
		col -bx | awk '/^SYNOPSIS/ { f = 1; next } /^[A-Z]/ { f = 0 } f' |
		sed '2s/^ *pi-tool/       pi-tool/'; } | norm >synopsis
	pi-tool -h | norm >usage
	check_same 'the usage message is the SYNOPSIS' synopsis usage
else
	skip 'the usage message is the SYNOPSIS' 'no mandoc'
fi

# --list: the tools as tool lines, in pi-llm's input format.
check '--list: seven built-in tools, each with a schema' '
	pi-tool --list >list && jqs list "length == 7 and all(.type == \"tool\") and
	    map(.name) == [\"read\",\"write\",\"edit\",\"bash\",\"ls\",\"grep\",\"find\"] and
	    all(.description | length > 20) and all(.inputSchema.type == \"object\")"'
check 'the list is a context pi-llm takes' '
	{ cat list; echo "{\"role\":\"user\",\"content\":\"hi\"}"; } |
	pi-llm -m faux/demo --faux-script "$ROOT/examples/hello.faux" >/dev/null'
done_testing
