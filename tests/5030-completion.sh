#!/bin/sh
# bash completion (share/completions/pi.bash): the functions called as
# bash calls them, with COMP_WORDS and COMP_CWORD set, for the flags of
# every program (against its -h), pi-sess verbs, session and entry ids,
# models and option values; once in a real interactive bash in tmux; and
# make install/uninstall of the programs, manuals and completion files.
. "$(dirname "$0")/lib.sh"
plan 38
unset PI_LLM PI_TOOL PI_SESS TMUX

COMP=$ROOT/share/completions/pi.bash
PI_SESSIONS_DB=$TMP/comp.db
export PI_SESSIONS_DB

# The driver: complete WORD... the way bash does when the cursor ends
# the last word, through the function `complete -p` names for the
# command; COMPREPLY, one per line.
cat >comp.bash <<'EOF'
. "$1" || exit 99
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
spec=$(complete -p "$1") || exit 98
f=${spec#*-F }
f=${f%% *}
"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
EOF
# c WORD...: the completions, sorted.
c() { bash "$TMP/comp.bash" "$COMP" "$@" >"$TMP/.c" && LC_ALL=C sort "$TMP/.c"; }
# want WORD...: the words given, one per line, sorted.
want() { printf '%s\n' "$@" | LC_ALL=C sort; }
# flags PROG: the flags in PROG's usage, read another way than the
# completion reads them: each --long word, and the letters of each -xyz
# that follows [ or |.
flags() {
	"$1" -h 2>&1 | grep -oE -- '--[a-z][a-z-]*' >flags.long
	"$1" -h 2>&1 | grep -oE -- '(\[|\| )-[A-Za-z]+' | sed 's/^[[| ]*-//' |
	    fold -w 1 | sed 's/^/-/' >flags.short
	cat flags.long flags.short | LC_ALL=C sort -u
}
# same GOT-CMD WANT-CMD: the two commands print the same lines, and at
# least one.
same() {
	eval "$1" >got 2>got.err && eval "$2" >wanted &&
	[ -s wanted ] && diff -u wanted got
}

# --- Flags.
check 'pi-view -<TAB>: its four flags' 'c pi-view - >got && want -V -h -q -v | diff -u - got'
for p in pi-llm pi-loop pi-sess pi-tool; do
	check "$p -<TAB>: the flags of its -h" "same 'c $p -' 'flags $p'"
done
check 'pi-loop --max-<TAB>: the two that begin so' \
	'c pi-loop --max- >got && want --max-cost --max-turns | diff -u - got'
check 'pi -<TAB>: -n and pi-loop'"'"'s flags' \
	'same "c pi -" "{ printf \"%s\\n\" -n; flags pi-loop; } | LC_ALL=C sort -u"'
check 'pi loop -<TAB>: pi-loop'"'"'s flags' "same 'c pi loop -' 'flags pi-loop'"

# --- pi-sess verbs; pi's subcommands.
VERBS='new ls show log export tree context append branch name label rm compact
lock unlock import check'
check 'pi-sess <TAB>: its verbs' 'c pi-sess "" >got && want $VERBS | diff -u - got'
check '... which are those of its -h' '
	pi-sess -h >h 2>&1 && for v in $VERBS; do
		grep -q -E "^ *(usage: )?pi-sess ([a-z]+ \| )*$v( |\$)" h ||
		    { echo "no $v in pi-sess -h"; return 1; }
	done'
check 'pi-sess sh<TAB>: show' 'is "$(c pi-sess sh)" show'
check 'pi-sess -d DB sh<TAB>: show (an option and its value passed over)' \
	'is "$(c pi-sess -d x.db sh)" show'
check 'pi sess sh<TAB>: show' 'is "$(c pi sess sh)" show'
check 'pi <TAB>: the five subcommands' \
	'c pi "" >got && want llm loop sess tool view | diff -u - got'
check 'pi l<TAB>: llm, loop' 'c pi l >got && want llm loop | diff -u - got'

# --- Session and entry ids.
S1=$(pi-sess new --name one) && S2=$(pi-sess new --name two) &&
S3=$(pi-sess new --name three) || exit 1
printf '%s\n' '{"role":"user","content":"hi"}' \
	'{"role":"assistant","content":[{"type":"text","text":"hello"}]}' \
	'{"role":"user","content":"again"}' | pi-sess append "$S2" >/dev/null || exit 1
check 'pi-sess show <TAB>: every session' \
	'c pi-sess show "" >got && want "$S1" "$S2" "$S3" | diff -u - got'
# The shortest prefix of S2 that no other session id begins with.
P=$(printf '%s\n' "$S1" "$S3" | awk -v s="$S2" '
	{ for (n = 1; n <= length(s) && substr($0, 1, n) == substr(s, 1, n); n++); if (n > m) m = n }
	END { print substr(s, 1, m) }')
check 'pi-sess show PREFIX<TAB>: the one session it begins' \
	'[ ${#P} -lt 36 ] && is "$(c pi-sess show "$P")" "$S2"'
check 'pi sess log PREFIX<TAB>: the same, through pi' 'is "$(c pi sess log "$P")" "$S2"'
check 'pi-loop -s <TAB>: sessions' \
	'c pi-loop -s "" >got && want "$S1" "$S2" "$S3" | diff -u - got'
check 'pi-sess branch S <TAB>: the entries of S' '
	c pi-sess branch "$S2" "" >got && pi-sess log "$S2" | jq -r .id | LC_ALL=C sort >wanted &&
	[ -s wanted ] && diff -u wanted got'
E=$(pi-sess log "$S2" | jq -r .id | tail -n 1)
check 'pi-sess branch S ENTRY-PREFIX<TAB>: the entry' \
	'is "$(c pi-sess branch "$S2" "$(printf %s "$E" | cut -c 1-35)")" "$E"'
check 'pi-sess branch S E <TAB>: nothing more' 'c pi-sess branch "$S2" "$E" "" >got && [ ! -s got ]'

# --- Models, and option values.
check 'pi-loop -m <TAB>: the models of pi-llm --list-models' '
	c pi-loop -m "" >got &&
	pi-llm --list-models | jq -r ".provider + \"/\" + .id" | LC_ALL=C sort -u >wanted &&
	[ "$(wc -l <wanted)" -gt 10 ] && diff -u wanted got'
check 'pi -m anthropic/<TAB>: those of anthropic' '
	c pi -m anthropic/ >got &&
	pi-llm --list-models | jq -r "select(.provider == \"anthropic\") | .provider + \"/\" + .id" |
	LC_ALL=C sort -u | diff -u - got && [ -s got ]'
check 'pi-llm -t <TAB>: the thinking levels' \
	'c pi-llm -t "" >got && want off none low medium high | diff -u - got'
check 'pi-llm --api <TAB>: the wire APIs' '
	c pi-llm --api "" >got &&
	want openai-completions openai-responses anthropic-messages google-generative-ai faux |
	diff -u - got'
check 'pi-llm --provider <TAB>: the providers of --list-providers' '
	c pi-llm --provider "" >got &&
	pi-llm --list-providers | jq -r .name | LC_ALL=C sort -u | diff -u - got'
check 'pi-llm -s <TAB>: no session ids' 'c pi-llm -s "" >got && [ ! -s got ]'
mkdir cwd cwd/dir1 cwd/dir2 && touch cwd/file1 cwd/file2 || exit 1
check 'pi-loop -w <TAB>: directories only' \
	'(cd cwd && c pi-loop -w "") >got && want dir1 dir2 | diff -u - got'
check 'pi-view <TAB> and pi-llm --faux-script f<TAB>: files' '
	(cd cwd && c pi-view "") >got && want dir1 dir2 file1 file2 | diff -u - got &&
	(cd cwd && c pi-llm --faux-script f) >got && want file1 file2 | diff -u - got'

# --- In a real interactive bash, in tmux.
if command -v tmux >/dev/null 2>&1; then
	SOCK=pi-comp-test
	TMUX_TMPDIR=$TMP
	export TMUX_TMPDIR
	trap 'tmux -L "$SOCK" kill-server 2>/dev/null; fake_stop; rm -rf "$TMP"' EXIT
	printf '. "%s"\nPS1="ready> "\n' "$COMP" >rc
	tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 20 \
	    "env -u PROMPT_COMMAND bash --rcfile $TMP/rc --noprofile -i"
	screen() { tmux -L "$SOCK" capture-pane -p -t 0 >screen.txt; }
	check 'interactive bash: pi-sess sho<Tab> completes to "show "' '
		wait_until "screen; grep -q \"^ready>\" screen.txt" &&
		tmux -L "$SOCK" send-keys -t 0 "pi-sess sho" Tab "X" &&
		wait_until "screen; grep -q \"^ready> pi-sess show X\" screen.txt"'
	check 'interactive bash: pi-view -<Tab><Tab> lists its flags' '
		tmux -L "$SOCK" send-keys -t 0 C-u "pi-view -" Tab Tab &&
		wait_until "screen; grep -q -- \"-V  *-h  *-q  *-v\" screen.txt"'
else
	skip 'interactive bash: pi-sess sho<Tab> completes to show' 'no tmux'
	skip 'interactive bash: pi-view -<Tab><Tab> lists its flags' 'no tmux'
fi

# --- make install and uninstall, into DESTDIR.  Only when the programs
# are up to date: install depends on all, and nothing may be rebuilt in
# the checkout here.
unset MAKEFLAGS MFLAGS MAKELEVEL
INST=$TMP/inst
PROGS="pi pi-llm pi-loop pi-sess pi-tool pi-view"
if ! command -v make >/dev/null || ! make -s -C "$ROOT" -q all >/dev/null 2>&1; then
	for t in 1 2 3 4 5 6; do skip 'make install/uninstall' 'bin/ not up to date'; done
	done_testing
fi
check_exit 'make install DESTDIR=... PREFIX=/usr: exit 0' 0 \
	'make -s -C "$ROOT" install DESTDIR="$INST" PREFIX=/usr >inst.out 2>&1'
check 'the programs, as built' '
	for p in $PROGS; do
		[ -x "$INST/usr/bin/$p" ] && cmp "$ROOT/bin/$p" "$INST/usr/bin/$p" || return 1
	done'
check 'the manuals, in sections 1, 5 and 7' '
	for m in "$ROOT"/man/*.[157]; do
		s=${m##*.}
		cmp "$m" "$INST/usr/share/man/man$s/${m##*/}" || return 1
	done &&
	is "$(find "$INST/usr/share/man" -type f | wc -l | tr -d " ")" \
	    "$(ls "$ROOT"/man/*.[157] | wc -l | tr -d " ")"'
check 'the completion file under the name of each program' '
	for p in $PROGS; do
		cmp "$COMP" "$INST/usr/share/bash-completion/completions/$p" || return 1
	done &&
	is "$(ls "$INST/usr/share/bash-completion/completions" | tr "\n" " ")" "$(echo $PROGS) "'
check 'an installed completion file completes' '
	is "$(bash "$TMP/comp.bash" "$INST/usr/share/bash-completion/completions/pi-sess" pi-sess sh)" show'
check_exit 'make uninstall: exit 0, and nothing of it is left' 0 '
	make -s -C "$ROOT" uninstall DESTDIR="$INST" PREFIX=/usr >uninst.out 2>&1 &&
	is "$(find "$INST" -type f | wc -l | tr -d " ")" 0'
done_testing
