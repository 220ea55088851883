#!/bin/sh
# pi-tool: a path no file can have ("", "@" alone, a NUL inside, too
# long) is an argument error for every tool that takes one: exit 3, an
# end event with invalid_arguments saying what is wrong, and nothing
# touched.  write with "" used to read past the end of the string.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 33

echo keep >"$WS/keep"
before=$(ls -la "$WS" | sort)
# refused TOOL KEY VALUE [REST]: exit 3, invalid_arguments, nothing new.
refused() {
	tool "$1" "{\"$2\":$3${4:+,$4}}"
	r_rc=$?
	[ "$r_rc" -eq 3 ] || { echo "exit $r_rc, expected 3"; cat "$TMP/ev" "$TMP/ev.err"; return 1; }
	ended '.success == false and .error.code == "invalid_arguments" and
	    (.output | test("'"$2"' (is|has)"))' &&
	[ "$(ls -la "$WS" | sort)" = "$before" ]
}
long=$(printf '%04200d' 0)
name=$(printf '%0300d' 0)
for t in read write edit; do
	case $t in
	read) rest= ;;
	write) rest='"content":"x"' ;;
	edit) rest='"edits":[{"old_text":"a","new_text":"b"}]' ;;
	esac
	for v in '""' '"@"' '"\u0000"' '"keep\u0000x"' '"@\u0000"' \
	    "\"$long\"" "\"d/$name\""; do
		check "$t: file_path $(printf '%.20s' "$v") is refused" \
			"refused $t file_path '$v' '$rest'"
	done
done
for t in ls grep find; do
	case $t in
	ls) rest= ;;
	*) rest='"pattern":"x"' ;;
	esac
	for v in '"@"' '"\u0000"' '"keep\u0000x"'; do
		check "$t: path $v is refused" "refused $t path '$v' '$rest'"
	done
done
# Where the path is optional, "" is the workspace, as pi takes it.
check_exit 'ls: path "" lists the workspace' 0 \
	"tool ls '{\"path\":\"\"}' && out | grep -qx keep"
check_exit 'find: path "" searches the workspace' 0 \
	"tool find '{\"path\":\"\",\"pattern\":\"kee*\"}' && out | grep -qx keep"
check 'the message says what is wrong, and where' '
	tool write "{\"file_path\":\"a\\u0000b\",\"content\":\"x\"}"
	out | grep -qx "file_path has a NUL character (\\\\u0000) at byte 1; a path cannot hold one."'
done_testing
