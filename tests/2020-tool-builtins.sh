#!/bin/sh
# The built-in tools through pi-tool: their results as events, their
# failures as exit 6 with a code, and the sandbox around them.  (Their
# finer behaviour is in tests/unit/tools_fs.c and tools_search.c.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 28

seq 1 3000 >"$WS/lines.txt"
printf 'alpha\nbeta\ngamma\n' >"$WS/abc.txt"
# A 1x1 PNG.
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\000\001\000\000\000\001\010\006\000\000\000\037\025\304\211\000\000\000\rIDATx\234c\370\017\000\001\001\001\000\030\335\215\260\000\000\000\000IEND\256B`\202' >"$WS/dot.png"
printf 'a\000b' >"$WS/blob.bin"

check_exit 'read: exit 0' 0 "tool read '{\"file_path\":\"lines.txt\"}'"
check 'read: 2000 lines and pi'"'"'s notice' '
	out | sed -n 2000p | grep -qx 2000 &&
	out | tail -1 | grep -qx "\[Showing lines 1-2000 of 3001. Use offset=2001 to continue.\]" &&
	ended ".truncated == true and .details.truncation.truncatedBy == \"lines\""'
check 'read with offset and limit, pi'"'"'s alias path' '
	tool read "{\"path\":\"lines.txt\",\"offset\":2999,\"limit\":1}" &&
	[ "$(out | head -1)" = 2999 ] && out | grep -q "more lines in file. Use offset=3000"'
check_exit 'read an image: exit 0' 0 "tool read '{\"file_path\":\"dot.png\"}'"
check 'it comes as a text block and an image block, the bytes intact' '
	ended ".content[0] == {\"type\":\"text\",\"text\":\"Read image file [image/png]\"} and
	    .content[1].type == \"image\" and .content[1].mimeType == \"image/png\"" &&
	jq -r "select(.type==\"tool_execution_end\").content[1].data" "$TMP/ev" |
	base64 -d | cmp - "$WS/dot.png"'
check 'the closure rule makes it a toolResult message with the image' '
	jq -c "select(.type==\"tool_execution_end\")" "$TMP/ev" >end.ndjson &&
	echo "{\"role\":\"user\",\"content\":\"what is it?\"}" >>end.ndjson &&
	pi-llm -m faux/demo --faux-script "$ROOT/examples/hello.faux" <end.ndjson >/dev/null'
check_exit 'read a binary file: exit 6' 6 "tool read '{\"file_path\":\"blob.bin\"}'"
check 'refused, with a code' 'ended ".error.code == \"binary_file\""'
check_exit 'read a missing file: exit 6' 6 "tool read '{\"file_path\":\"none.txt\"}'"
check 'not_found, pi'"'"'s words' '
	ended ".error.code == \"not_found\" and .output == \"File not found: none.txt\""'

check_exit 'write: exit 0' 0 \
	"tool write '{\"file_path\":\"new/dir/f.txt\",\"content\":\"written\\n\"}'"
check 'the file is on the host, parents made' '
	[ "$(cat "$WS/new/dir/f.txt")" = written ] &&
	[ "$(out)" = "Successfully wrote 8 bytes to new/dir/f.txt" ]'
check_exit 'write outside the workspace: exit 6' 6 \
	"tool write '{\"file_path\":\"/etc/pi-tool-test\",\"content\":\"x\"}'"
check 'read_only, and nothing written' '
	ended ".error.code == \"read_only\"" && [ ! -e /etc/pi-tool-test ]'

check_exit 'edit: exit 0' 0 \
	"tool edit '{\"file_path\":\"abc.txt\",\"edits\":[{\"old_text\":\"beta\",\"new_text\":\"BETA\"}]}'"
check 'the host file changed, the diff in the output and the details' '
	[ "$(cat "$WS/abc.txt")" = "$(printf "alpha\nBETA\ngamma")" ] &&
	out | grep -qx -- "-beta" && out | grep -qx "+BETA" &&
	ended ".details.diff | contains(\"@@ -1,3 +1,3 @@\")"'
check_exit 'edit with pi'"'"'s oldText/newText: exit 0' 0 \
	"tool edit '{\"path\":\"abc.txt\",\"oldText\":\"gamma\",\"newText\":\"GAMMA\"}'"
check_exit 'edit whose text is not there: exit 6' 6 \
	"tool edit '{\"file_path\":\"abc.txt\",\"edits\":[{\"old_text\":\"delta\",\"new_text\":\"x\"}]}'"
check 'no_match, the file untouched' '
	ended ".error.code == \"no_match\"" &&
	[ "$(cat "$WS/abc.txt")" = "$(printf "alpha\nBETA\nGAMMA")" ]'

check_exit 'ls: exit 0' 0 "tool ls '{}'"
check 'entries, directories marked' '
	out | grep -qx "new/" && out | grep -qx "abc.txt" && out | grep -qx "lines.txt"'
check_exit 'grep: exit 0' 0 "tool grep '{\"pattern\":\"^29[0-9]{2}\$\",\"path\":\"lines.txt\",\"limit\":3}'"
check 'pi'"'"'s format and limit notice' '
	[ "$(out | head -1)" = "lines.txt:2900: 2900" ] &&
	out | tail -1 | grep -q "3 matches limit reached. Use limit=6 for more"'
check_exit 'find: exit 0' 0 "tool find '{\"pattern\":\"*.txt\"}'"
check 'the files, relative, sorted' '
	[ "$(out | tr "\n" " ")" = "abc.txt lines.txt new/dir/f.txt " ]'

# A built-in tool's process is confined like a command, and a degraded
# layer is said with its result too.
check 'the process a built-in tool runs in holds nothing' '
	tool read "{\"file_path\":\"/proc/self/status\"}" &&
	out | grep -Eq "^CapEff:.0+\$" && out | grep -Eq "^CapBnd:.0+\$" &&
	out | grep -q "^NoNewPrivs:.1" && out | grep -q "^Seccomp:.2" &&
	! out | grep -q "^PPid:.0"'
check 'degraded: the notice goes before the image, as a text block' "
	echo '{\"toolCallId\":\"i\",\"toolName\":\"read\",\"input\":{\"file_path\":\"dot.png\"}}' |
	'$ROOT/tests/helper/nosys' landlock_create_ruleset -- pi-tool -w '$WS' --allow-degraded >'$TMP/ev' &&
	ended '.content[0].text | startswith(\"[sandbox degraded: landlock\")' &&
	ended '.content[2].type == \"image\"'"
check 'every line a JSON object' 'jq_lines "$TMP/ev"'
done_testing
