#!/bin/sh
# pi-view's plain form (not a terminal): fixed event streams of pi-loop,
# pi-llm and pi-tool, a session export and context, bare messages, lines
# it does not know and lines that are not JSON, -q and -v, files named as
# arguments, the exit status each stream reports, and a live pi-loop run
# piped in.
#
# The inputs are NDJSON files in tests/fixtures/view/, each rendered
# against its golden .txt beside it.  After a deliberate change to what
# pi-view writes, regenerate the goldens and review the diff:
#
#	PI_UPDATE_GOLDEN=1 prove tests/5000-view.sh && git diff tests/fixtures/view
. "$(dirname "$0")/lib.sh"
plan 79

FIX=$ROOT/tests/fixtures/view
ESC=$(printf '\033')

# view OUT ARG...: pi-view ARG..., stdout in OUT, stderr in OUT.err.
view() { v_out=$1; shift; pi-view "$@" >"$v_out" 2>"$v_out.err"; }
# golden TITLE NAME FILE: FILE is the golden NAME (with PI_UPDATE_GOLDEN
# set, it becomes it).
golden() {
	[ -z "$PI_UPDATE_GOLDEN" ] || cp "$3" "$FIX/$2" || exit 1
	check_same "$1" "$FIX/$2" "$3"
}
# No SGR or other escape sequence in the files.
plain() { ! grep -l "$ESC" "$@"; }

# --- A pi-loop run: thinking, text, a failing bash with streamed output
# cut to five lines, two tools at once (one output cut), a compaction, a
# retry and the error that ended it (exit 75 in agent_end).
check_exit 'a pi-loop run: the exit status is agent_end.exitCode (75)' 75 \
	'view loop <"$FIX/loop-run.ndjson"'
golden 'a pi-loop run: the plain rendering' loop-run.txt loop
check 'nothing on stderr' '[ ! -s loop.err ]'
check 'the session and the model first, the prompt after >' '
	is "$(sed -n 1p loop)" "● session 01990000-0000-7000-8000-00000000a001 · model anthropic/claude-sonnet-4-5 · 9 tools" &&
	is "$(sed -n 2p loop)" "> Why does make test fail?"'
check 'thinking: each of its lines after ┆, apart from the text' '
	is "$(grep -c "^┆ " loop)" 2 && grep -qx "┆ Then read the log." loop &&
	grep -qx "Let me run the tests." loop'
check 'a call: → the tool and its command' 'grep -qx "→ bash make test" loop'
check 'streamed output: five lines, then a count of the rest' '
	grep -A6 -x "→ bash make test" loop | sed -n "2,7p" >cut &&
	is "$(grep -c "^  │ " cut)" 6 &&
	is "$(sed -n 5p cut)" "  │ not ok 3 - three rows" &&
	is "$(sed -n 6p cut)" "  │ … 3 more lines (-v shows all)"'
check 'the failing bash: ✗ exit 3 and how long it took' \
	'grep -qx "  ✗ bash: exit 3 · 290 ms" loop'
check 'two tools at once: both calls, both ends, named' '
	grep -qx "→ read src/export.c" loop && grep -qx "→ grep TODO in src" loop &&
	grep -qx "  ✓ grep · 9 ms" loop && grep -qx "  ✓ read · 20 ms" loop'
check '... output after another call'"'"'s is said again whose it is' '
	grep -A1 -x "  ✓ grep · 9 ms" loop | tail -n 1 | grep -qx "  ↳ read src/export.c"'
check 'a result without streamed output is cut as well' \
	'grep -qx "  │ … 9 more lines (-v shows all)" loop'
check 'compaction: a notice when it starts and when it ends' '
	grep -qx "⋯ compacting the context (threshold, 183730 tokens)" loop &&
	grep -qx "⋯ compacted: 55 characters of summary, the context kept from 01990000-0000" loop'
check 'a retry: a notice' 'grep -qx "⟳ retry 1 in 2000 ms: HTTP 529: Overloaded" loop'
check 'the error: the partial text, then ✗ and the message, once' '
	grep -qx "The loop stops at *" loop &&
	is "$(grep -c "connection reset by peer" loop)" 1'
check 'the summary is the last line: turns, tokens, cost, time, reason, exit' '
	is "$(tail -n 1 loop)" "── 3 turns · 7485 tokens · \$0.0108 · 12.7 s · error · exit 75"'

# -q and -v.
check_exit '-q: the same exit status' 75 'view loopq -q "$FIX/loop-run.ndjson"'
golden '-q: the plain rendering' loop-run.q.txt loopq
check '-q: no thinking, everything else the same' '
	is "$(grep -c "┆" loopq)" 0 && grep -v "^┆ " loop | diff -u - loopq'
check_exit '-v: the same exit status' 75 'view loopv -v "$FIX/loop-run.ndjson"'
golden '-v: the plain rendering' loop-run.v.txt loopv
check '-v: tools'"'"' output whole, no count of lines left out' '
	is "$(grep -c "more lines" loopv)" 0 &&
	grep -A9 -x "→ bash make test" loopv | tail -n 1 | grep -qx "  ✗ bash: exit 3 · 290 ms" &&
	grep -qx "  │ make: \*\*\* \[Makefile:12: test\] Error 3" loopv &&
	grep -qx "  │ 	return 0;" loopv'

# --- pi-llm alone: calls shown from toolcall_end, and a summary line.
check_exit 'a pi-llm stream: exit 0' 0 'view llm "$FIX/llm-stream.ndjson"'
golden 'a pi-llm stream: the plain rendering' llm-stream.txt llm
check 'each call once, with its arguments, as toolcall_end has them' '
	is "$(grep -c "^→ " llm)" 2 && grep -qx "→ ls src" llm &&
	grep -qx "→ bash git status --short …" llm'
check 'the summary: tokens, cost, time from the first ts to the last, stop reason' '
	is "$(tail -n 1 llm)" "── 1580 tokens · \$0.0032 · 2.3 s · tool_use"'
# The same message, interrupted.
sed '$s/"stopReason":"tool_use"/"stopReason":"aborted","errorMessage":"interrupted"/' \
	"$FIX/llm-stream.ndjson" >aborted.ndjson
check_exit 'a pi-llm call interrupted (stop reason aborted): exit 130' 130 \
	'view abort aborted.ndjson'
check 'said: ✗ aborted, and the summary' '
	grep -qx "✗ aborted" abort && tail -n 1 abort | grep -q " · aborted · exit 130$"'

# --- pi-tool alone: 0 when the tool succeeded, 6 when it failed.
check_exit 'a pi-tool stream of a tool that succeeded: exit 0' 0 \
	'view tool "$FIX/tool-ok.ndjson"'
golden 'a pi-tool stream that succeeded: the plain rendering' tool-ok.txt tool
check_exit 'a pi-tool stream of a tool that failed: exit 6' 6 \
	'view toolf "$FIX/tool-fail.ndjson"'
golden 'a pi-tool stream that failed: the plain rendering' tool-fail.txt toolf

# --- pi-sess: the export of a session with branches and a compaction
# (pi's own file, imported; a fresh database keeps its ids), and context.
PI_SESSIONS_DB=$TMP/sess.db
export PI_SESSIONS_DB
S=$(pi-sess import "$ROOT/tests/fixtures/pi/v3-branches.jsonl" | head -n 1)
pi-sess export "$S" >export.jsonl
check 'the export is the pi file it was imported from' \
	'cmp export.jsonl "$ROOT/tests/fixtures/pi/v3-branches.jsonl"'
check_exit 'pi-sess export | pi-view: exit 0 (no live events)' 0 \
	'pi-sess export "$S" | pi-view >export 2>export.err && [ ! -s export.err ]'
golden 'a session export: the plain rendering' sess-export.txt export
check 'the export: entries other than messages as notices' '
	grep -qx "· model anthropic/claude-sonnet-4-5" export &&
	grep -qx "· thinking medium" export &&
	grep -qx "· named CSV export off-by-one" export &&
	grep -q "^⋯ compaction: [0-9]* characters of summary" export &&
	grep -q "^⋯ branch summary: The user explored" export'
check_exit 'pi-sess context | pi-view: exit 0' 0 \
	'pi-sess context "$S" | pi-view >context 2>context.err && [ ! -s context.err ]'
golden 'a context: the plain rendering' sess-context.txt context

# --- Bare message lines, as pi-llm reads them.
check_exit 'bare messages: exit 0' 0 'view msgs "$FIX/messages.ndjson"'
golden 'bare messages: the plain rendering' messages.txt msgs

# --- Lines it does not know, and lines that are not JSON.
check_exit 'lines of unknown types: exit 0, nothing said' 0 \
	'view unk "$FIX/unknown.ndjson" && [ ! -s unk.err ]'
check 'lines of unknown types are passed over: the same rendering' \
	'diff -u llm unk'
check_exit 'lines that are not events: passed over, exit 0' 0 \
	'view bad <"$FIX/bad-lines.ndjson"'
check 'each named on stderr with its line number, as skipped' '
	printf "%s\n" \
	    "pi-view: stdin:4: invalid JSON: unexpected end of data (skipped)" \
	    "pi-view: stdin:7: not a JSON object (skipped)" \
	    "pi-view: stdin:9: object has no string \"type\" or \"role\" (skipped)" |
	diff -u - bad.err'
check 'the rendering goes on around them' 'diff -u llm bad'
check 'in a file, the file'"'"'s name instead of stdin' '
	pi-view "$FIX/bad-lines.ndjson" 2>&1 >/dev/null |
	grep -qx "pi-view: $FIX/bad-lines.ndjson:7: not a JSON object (skipped)"'

# --- Exit statuses.
# st N: keep a status in rc while more is checked; ret: return it.
st() { rc=$1; }; ret() { return "$rc"; }
# ev TYPE JSON-FIELDS: one event line.
ev() { printf '{"type":"%s","v":1,"ts":1%s}\n' "$1" "${2:+,$2}"; }
end() { ev agent_end "\"sessionId\":\"s\",\"totalTurns\":$1,\"totalTokens\":10,\"durationMs\":1500,\"terminationReason\":\"$2\",\"cost\":0,\"exitCode\":$3${4:+,$4}"; }
check_exit 'agent_end with exitCode 8 (max_turns): exit 8' 8 '
	{ ev agent_start "\"sessionId\":\"s\",\"model\":\"faux/demo\",\"tools\":[]";
	  end 1 max_turns 8 "\"error\":{\"code\":\"max_turns\",\"message\":\"pi-loop: the run reached --max-turns 1\"}"; } |
	pi-view >mt 2>mt.err'
check '... said: the error, and the summary with the reason and the exit status' '
	is "$(sed -n 2p mt)" "✗ pi-loop: the run reached --max-turns 1" &&
	is "$(sed -n 3p mt)" "── 1 turn · 10 tokens · 1.5 s · max_turns · exit 8"'
check_exit 'agent_end with exitCode 130 (abort_signal): exit 130' 130 '
	{ ev agent_start "\"sessionId\":\"s\",\"tools\":[]"; end 2 abort_signal 130; } |
	pi-view >ab 2>ab.err'
check_exit 'agent_end with exitCode 0: exit 0' 0 '
	{ ev agent_start "\"sessionId\":\"s\",\"tools\":[]"; end 2 no_tool_calls 0; } |
	pi-view >ok 2>ok.err && [ ! -s ok.err ]'
# pi-llm's error codes, as pi-view(1) maps them.
codes() {
	for c in "$@"; do
		want=${c#*=} c=${c%=*}
		rec=false
		[ "$want" -eq 75 ] && rec=true
		ev error "\"code\":\"$c\",\"message\":\"m\",\"recoverable\":$rec" |
		    pi-view >/dev/null 2>&1
		got=$?
		[ "$got" -eq "$want" ] || { echo "$c: exit $got, expected $want"; return 1; }
	done
}
check 'a pi-llm error: 3 for bad input, 4 for configuration, 5 for a refusal' \
	'codes bad_input=3 truncated_input=3 replay_mismatch=3 auth=4 not_found=4 \
	    faux_script=4 context_overflow=5 invalid_request=5 provider_error=5 \
	    quota_exceeded=5'
check 'a pi-llm error: no_api_key, bad_config, unknown_provider, content_filter' \
	'codes no_api_key=4 bad_config=4 unknown_provider=4 content_filter=5'
check 'a pi-llm error: 75 for a temporary one, 124 for a timeout' \
	'codes rate_limited=75 overloaded=75 network=75 idle_timeout=124'
check_exit 'a live stream cut before its closing event: exit 1' 1 '
	sed "\$d" "$FIX/llm-stream.ndjson" | pi-view >cut 2>cut.err'
check '... said on stderr; what came is rendered' '
	is "$(cat cut.err)" "pi-view: the stream ended before its closing event" &&
	grep -qx "→ bash git status --short …" cut'
check_exit 'a pi-loop run cut before agent_end: exit 1' 1 '
	sed "\$d" "$FIX/loop-run.ndjson" | pi-view >cut2 2>cut2.err'
check_exit 'a pi-tool run cut before tool_execution_end: exit 1' 1 '
	head -n 2 "$FIX/tool-ok.ndjson" | pi-view >cut3 2>cut3.err'
check '... each said on stderr' '
	grep -qx "pi-view: the stream ended before its closing event" cut2.err &&
	grep -qx "pi-view: the stream ended before its closing event" cut3.err'
check_exit 'a last line without its newline (here the closing event): exit 1' 1 '
	head -c -1 "$FIX/llm-stream.ndjson" | pi-view >trunc 2>trunc.err'
check '... the line named and skipped, and the stream said to be cut' '
	printf "%s\n" \
	    "pi-view: stdin:13: truncated stream: last line has no newline (skipped)" \
	    "pi-view: the stream ended before its closing event" | diff -u - trunc.err'

# A live stream whose rendering is larger than a pipe holds.
awk 'BEGIN { print "{\"type\":\"agent_start\",\"v\":1,\"ts\":1,\"sessionId\":\"s\",\"tools\":[]}"
	for (i = 0; i < 40000; i++) print "{\"type\":\"text_delta\",\"v\":1,\"ts\":1,\"delta\":\"word\\n\"}" }' \
	>big.ndjson || exit 1
check 'the reader of stdout gone: exit 141' '
	{ pi-view big.ndjson 2>epipe.err; echo $? >epipe.rc; } | head -n 1 >/dev/null &&
	is "$(cat epipe.rc)" 141'
check '... and says nothing of the stream' '[ ! -s epipe.err ]'

# --- No colour off a terminal; NO_COLOR.
check 'not a terminal: no escape sequence in any rendering' \
	'plain loop loopq loopv llm abort tool toolf export context msgs unk bad mt'
check 'NO_COLOR=1: the same bytes' '
	NO_COLOR=1 pi-view "$FIX/loop-run.ndjson" >nc; diff -u loop nc'
check 'control characters in the content are not written raw' '
	printf "%s\n" "{\"role\":\"assistant\",\"content\":\"a \\u001b[2J \\u001b]52;c;eA==\\u0007 \\r b\"}" |
	NO_COLOR=1 pi-view >ctl && is "$(cat ctl)" "a ^[[2J ^[]52;c;eA==^G ^M b"'
check 'the same error in two messages: said twice; in one call'"'"'s events: once' '
	printf "%s\n" "{\"role\":\"assistant\",\"content\":[],\"stopReason\":\"error\",\"errorMessage\":\"boom\"}" \
	    "{\"role\":\"assistant\",\"content\":[],\"stopReason\":\"error\",\"errorMessage\":\"boom\"}" |
	NO_COLOR=1 pi-view >twice && is "$(grep -c "✗ error: boom" twice)" 2 &&
	printf "%s\n" "{\"type\":\"message_start\",\"messageId\":\"m\",\"role\":\"assistant\"}" \
	    "{\"type\":\"message_end\",\"messageId\":\"m\",\"stopReason\":\"error\",\"errorMessage\":\"boom\",\"message\":{\"role\":\"assistant\",\"content\":[],\"stopReason\":\"error\",\"errorMessage\":\"boom\"}}" \
	    "{\"type\":\"error\",\"code\":\"provider_error\",\"message\":\"boom\",\"exitCode\":5}" |
	NO_COLOR=1 pi-view >once; is "$(grep -c "boom" once)" 1'
check 'a cut call line is still UTF-8' '
	printf "{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"c\",\"name\":\"bash\",\"arguments\":{\"command\":\"echo %s\"}}]}\n" \
	    "$(printf "é%.0s" $(seq 80))" | pi-view >cut &&
	grep -q "^→ bash echo é" cut && grep -q "é …$" cut && iconv -f UTF-8 -t UTF-8 cut >/dev/null'

# --- Files as arguments, and -.
check_exit 'files and - in order, one rendering; the status of the stream (6)' 6 '
	pi-view "$FIX/tool-ok.ndjson" - "$FIX/tool-fail.ndjson" \
	    <"$FIX/messages.ndjson" >three 2>three.err'
check '... each file rendered in turn' 'cat tool msgs toolf | diff -u - three'
check_exit 'a file that cannot be read: exit 3' 3 \
	'view nofile "$FIX/tool-ok.ndjson" "$TMP/nowhere.ndjson"'
check '... named on stderr; the files before it rendered' '
	is "$(cat nofile.err)" "pi-view: $TMP/nowhere.ndjson: No such file or directory" &&
	diff -u tool nofile'

# --- Options.
check_exit '-h: exit 0, the usage on stdout' 0 \
	'pi-view -h >h && is "$(cat h)" "usage: pi-view [-hqvV] [file ...]"'
check_exit 'an unknown option: exit 2, the usage on stderr' 2 \
	'pi-view -x </dev/null 2>x.err; st $? && grep -q "^usage: pi-view " x.err && ret'

# --- A live run of pi-loop piped in: examples/agent.faux in a workspace.
mkdir ws && WS=$(cd ws && pwd -P) || exit 1
printf 'hello wrold\n' >ws/greeting.txt
printf 'grep -q world greeting.txt\n' >ws/check.sh
DEG=
printf '{"toolCallId":"p","toolName":"bash","input":{"command":"true"}}\n' |
	pi-tool -w "$WS" >/dev/null 2>&1
[ $? -eq 7 ] && DEG=--allow-degraded
# live SCRIPT OUT ARG...: pi-loop ... | pi-view >OUT; pi-loop's status in
# OUT.rc; the status is pi-view's alone (no pipefail).
live() {
	l_s=$1 l_out=$2; shift 2
	{ PI_FAUX_SCRIPT=$l_s pi-loop -m faux/demo -w "$WS" $DEG "$@" \
	    </dev/null 2>"$l_out.loop.err"; echo $? >"$l_out.rc"; } |
	    pi-view >"$l_out" 2>"$l_out.err"
}
# What changes from run to run: the session id, durations, token counts.
norm() {
	sed -e 's/^● session [0-9a-f-]* /● session ID /' \
	    -e 's/ · [0-9.]* m\{0,1\}s\( \|$\)/ · T\1/g' \
	    -e 's/ [0-9][0-9]* tokens / N tokens /' "$1"
}
check_exit 'a live run: pi-view exits 0, as pi-loop did' 0 \
	'live "$ROOT/examples/agent.faux" agent "fix the typo in greeting.txt"'
check 'pi-loop exited 0 and fixed the file' \
	'is "$(cat agent.rc)" 0 && is "$(cat ws/greeting.txt)" "hello world"'
norm agent >agent.norm
golden 'a live run: the plain rendering' live-agent.txt agent.norm
cat >short.faux <<'EOF'
{"content":[{"type":"text","text":"Listing."},{"type":"toolCall","id":"call_ls","name":"ls","arguments":{}}]}
EOF
check_exit 'a live run that fails (the faux script runs out): pi-view exits 4' 4 \
	'live short.faux short "list"'
check '... as pi-loop did; the error and the exit status in the summary' '
	is "$(cat short.rc)" 4 && grep -q "^✗ faux_script: " short &&
	tail -n 1 short | grep -q " · error · exit 4$"'
check_exit 'a live run stopped by --max-turns 1: pi-view exits 8' 8 \
	'live short.faux mt1 --max-turns 1 "list"'
check '... as pi-loop did' 'is "$(cat mt1.rc)" 8 && tail -n 1 mt1 | grep -q " · max_turns · exit 8$"'
done_testing
