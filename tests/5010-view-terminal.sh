#!/bin/sh
# pi-view on a terminal: in a tmux pane of a fixed size, the colours
# (SGR) that mark the tool's name, ✓ and ✗, and dim thinking; none with
# NO_COLOR=1 in the same terminal; and text that shows as it streams,
# before its message ends.  tmux runs on a socket of its own, in $TMP,
# and only that server is killed.
. "$(dirname "$0")/lib.sh"
plan 13

FIX=$ROOT/tests/fixtures/view
if ! command -v tmux >/dev/null 2>&1; then
	echo "# tmux is not installed (scripts/deps installs it)"
	while [ "$tap_n" -lt 13 ]; do skip 'pi-view on a terminal' 'no tmux'; done
	done_testing
fi

ESC=$(printf '\033')
SOCK=pi-view-test
TMUX_TMPDIR=$TMP SHELL=/bin/sh
export TMUX_TMPDIR SHELL
unset TMUX
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; fake_stop; rm -rf "$TMP"' EXIT
t() { tmux -u -L "$SOCK" -f /dev/null "$@"; }

# pane NAME COMMAND: COMMAND in a new 160x50 session NAME; when it has
# ended, its status is shown and channel NAME is signalled, and the pane
# stays.
pane() {
	t new-session -d -s "$1" -x 160 -y 50 \
	    "$2; echo \"[rc=\$?]\"; tmux -L $SOCK wait-for -S $1; exec cat"
}
# ended NAME: wait for NAME's command to end (at most 10 s).
ended() { timeout 10 tmux -u -L "$SOCK" wait-for "$1"; }
# cap NAME FILE: what the pane shows, with its SGR attributes.
cap() { t capture-pane -p -e -J -t "$1" >"$2"; }
# txt FILE: FILE's text without SGR sequences or trailing blanks.
txt() { sed "s/$ESC\\[[0-9;]*m//g; s/ *\$//" "$1"; }
# line FILE TEXT: the first line of FILE holding TEXT.
line() { grep -F -m 1 -- "$2" "$1"; }
# sgr FILE TEXT PARAM: the line with TEXT sets PARAM (e.g. 36, or 2;3)
# in an SGR sequence just before TEXT, with nothing printable between.
sgr() {
	line "$1" "$2" | grep -q -E \
	    "$ESC\\[([0-9]+;)*$3(;[0-9]+)*m($ESC\\[[0-9;]*m)*$(printf '%s' "$2" | sed 's/[][\\.*^$]/\\&/g')"
}

check 'a pane with pi-view in it: its run ends with the stream'"'"'s status' '
	pane colour "env -u NO_COLOR pi-view $FIX/loop-run.ndjson" && ended colour &&
	cap colour colour.cap && txt colour.cap >colour.txt &&
	grep -qx "\[rc=75\]" colour.txt'
check 'the tool'"'"'s name in colour (SGR 36)' '
	sgr colour.cap "bash" 36 && line colour.txt "→ bash make test" >/dev/null'
check '✓ in green (SGR 32), ✗ in red (SGR 31)' '
	sgr colour.cap "✓ grep" 32 && sgr colour.cap "✗ bash: exit 3" 31'
check 'thinking dim and italic (SGR 2;3)' 'sgr colour.cap "┆ Run the tests first." "2;3"'
check 'the summary line dim (SGR 2)' 'sgr colour.cap "── 3 turns" 2'
check 'the text the same words as off a terminal' '
	sed "/^\[rc=/,\$d" colour.txt >colour.words &&
	sed "s/ *\$//" "$FIX/loop-run.txt" | diff -u - colour.words'

check 'NO_COLOR=1 in the same terminal: no escape sequence at all' '
	pane plain "NO_COLOR=1 pi-view $FIX/loop-run.ndjson" && ended plain &&
	cap plain plain.cap && txt plain.cap | grep -qx "\[rc=75\]" &&
	! grep -q "$ESC" plain.cap && grep -qx "→ bash make test" plain.cap'
check 'NO_COLOR set but empty: colours' '
	pane empty "NO_COLOR= pi-view $FIX/loop-run.ndjson" && ended empty &&
	cap empty empty.cap && sgr empty.cap "bash" 36 && sgr empty.cap "✓ grep" 32'

# A live stream, slowly: pi-view reads a fifo the test writes a line at
# a time; the pane is looked at after the first deltas, before the rest.
mkfifo fifo || exit 1
exec 3<>fifo
ev() { printf '{"type":"%s","v":1,"ts":%s,"messageId":"m1"%s}\n' "$1" "$2" "${3:+,$3}" >&3; }
check 'a slow stream: the pane shows pi-view running' '
	pane live "env -u NO_COLOR pi-view <$TMP/fifo" &&
	ev message_start 1000 "\"role\":\"assistant\"" &&
	ev thinking_delta 1100 "\"delta\":\"Counting \"" &&
	ev text_delta 1200 "\"delta\":\"One, two, \"" &&
	ev text_delta 1300 "\"delta\":\"thr\"" &&
	wait_until "cap live live1.cap; grep -q \"thr\" live1.cap"'
check 'the deltas so far are on the screen before the message ends' '
	txt live1.cap >live1.txt &&
	grep -qx "┆ Counting" live1.txt && grep -qx "One, two, thr" live1.txt'
check '... and nothing of what has not come yet: no summary, no exit' '
	! grep -q "──\|\[rc=" live1.txt'
check 'the rest arrives: the text completed on the same line, then the summary' '
	ev text_delta 1400 "\"delta\":\"ee.\"" &&
	ev message_end 3400 "\"stopReason\":\"end_turn\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"One, two, three.\"}],\"usage\":{\"input\":5,\"output\":3,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":8}}" &&
	exec 3>&- && ended live && cap live live2.cap &&
	txt live2.cap >live2.txt &&
	grep -qx "One, two, three." live2.txt &&
	grep -qx "── 8 tokens · 2.4 s · end_turn" live2.txt &&
	grep -qx "\[rc=0\]" live2.txt'
check 'the text itself in no colour (at most resets), the thinking dim' '
	line live2.cap "One, two, three." >text.cap &&
	! sed "s/$ESC\\[\\(0\\|39\\|49\\)m//g" text.cap | grep -q "$ESC" &&
	sgr live2.cap "┆ Counting" "2;3"'
done_testing
