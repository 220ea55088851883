# bash completion for pi, pi-llm, pi-loop, pi-sess, pi-tool and pi-view.
#
# Flags come from each program's own usage message, so they never drift
# from it; session ids from `pi-sess ls --all`, entry ids from `pi-sess
# log`, models from `pi-llm --list-models`.  Installed by `make install`
# under every program's name; zsh can use it through bashcompinit.

# The flags in a program's usage: [-hqV] gives -h -q -V, --name gives
# itself.
_pi_flags()
{
	"$1" -h 2>&1 | tr ' []|' '\n\n\n\n' | awk '
	    /^--[A-Za-z][A-Za-z-]*$/ { print; next }
	    /^-[A-Za-z]+$/ { for (i = 2; i <= length($0); i++)
		print "-" substr($0, i, 1) }' | sort -u
}

_pi_sessions()
{
	pi-sess --json ls --all 2>/dev/null |
	    sed -n 's/^{"type":"session","id":"\([^"]*\)".*/\1/p'
}

# The entries of session $1.
_pi_entries()
{
	pi-sess log "$1" 2>/dev/null |
	    sed -n 's/.*"id":"\([^"]*\)","parentId".*/\1/p'
}

_pi_models()
{
	pi-llm --list-models 2>/dev/null |
	    sed -n 's/.*"provider":"\([^"]*\)","id":"\([^"]*\)".*/\1\/\2/p'
}

_pi_providers()
{
	pi-llm --list-providers 2>/dev/null |
	    sed -n 's/.*"name":"\([^"]*\)".*/\1/p'
}

# Complete $cur from words, one per line.
_pi_words()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

_pi_files()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$cur"))
}

_pi_dirs()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -d -- "$cur"))
}

# The argument of an option of program $1, when prev takes one; 1 if
# handled.
_pi_option_arg()
{
	case $1:$prev in
	pi-llm:-s)
		COMPREPLY=()	# pi-llm's -s is a system prompt, not a session
		return 0 ;;
	esac
	case $prev in
	-m|--model)
		_pi_words "$(_pi_models)" ;;
	--provider)
		_pi_words "$(_pi_providers)" ;;
	-t)
		_pi_words "off
none
low
medium
high" ;;
	--api)
		_pi_words "openai-completions
openai-responses
anthropic-messages
google-generative-ai
faux" ;;
	-s|--parent|--session)
		_pi_words "$(_pi_sessions)" ;;
	-w|--tool-dir|--output-dir|--cwd)
		_pi_dirs ;;
	--allow-read|--allow-write|--deny-read)
		_pi_files ;;
	-d|--policy|--faux-script|--record|--replay|--summary-file|\
	--system|--append-system)
		_pi_files ;;
	--color)
		_pi_words "auto
always
never" ;;
	--base-url|--timeout|--idle-timeout|--grace|--max-turns|--max-cost|\
	--parallel|--max-output|--memory|--processes|--max-retries|\
	--max-tokens|--context-window|--reserve|--keep-recent|\
	--tokens-before|--pid|--at|--first-kept|--name|--tools|--deny-tools)
		COMPREPLY=() ;;
	*)
		return 1 ;;
	esac
	return 0
}

_pi_program()
{
	local prog=$1 cur=${COMP_WORDS[COMP_CWORD]} prev
	prev=${COMP_WORDS[COMP_CWORD-1]}
	_pi_option_arg "$prog" && return
	if [[ $cur == -* ]]; then
		_pi_words "$(_pi_flags "$prog")"
		return
	fi
	case $prog in
	pi-view)
		_pi_files ;;
	pi-llm|pi-loop|pi-tool)
		COMPREPLY=() ;;
	esac
}

_pi_sess()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev verb= i n=0 session= in=
	prev=${COMP_WORDS[COMP_CWORD-1]}
	_pi_option_arg pi-sess && return
	if [[ $cur == -* ]]; then
		_pi_words "$(_pi_flags pi-sess)"
		return
	fi
	# The verb is the first word that is no option or option value.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--session)
			in=${COMP_WORDS[i+1]}
			((i++)) ;;
		-d|--name|--cwd|--parent|--at|--summary-file|\
		--first-kept|--tokens-before|--pid)
			((i++)) ;;
		-*) ;;
		*)
			if [[ -z $verb ]]; then
				verb=${COMP_WORDS[i]}
			else
				((n++))
				[[ -z $session ]] && session=${COMP_WORDS[i]}
			fi ;;
		esac
	done
	if [[ -z $verb ]]; then
		_pi_words "new
ls
show
log
tree
context
append
branch
name
label
rm
compact
lock
unlock
export
import
check"
		return
	fi
	case $verb in
	import)
		_pi_files ;;
	branch)
		if ((n == 0)); then
			_pi_words "$(_pi_sessions)"
		elif ((n == 1)); then
			_pi_words "$(_pi_entries "$session")"
		fi ;;
	label)
		# The entries of --session's session, else every head.
		if ((n == 0)) && [[ -n $in ]]; then
			_pi_words "$(_pi_entries "$in")"
		elif ((n == 0)); then
			_pi_words "$(pi-sess --json ls --all 2>/dev/null |
			    sed -n 's/.*"headId":"\([^"]*\)".*/\1/p')"
		fi ;;
	show|log|tree|context|append|name|rm|compact|lock|unlock|export)
		((n == 0)) && _pi_words "$(_pi_sessions)" ;;
	esac
}

_pi()
{
	local cur=${COMP_WORDS[COMP_CWORD]} sub
	if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
		_pi_words "llm
loop
sess
tool
view"
		return
	fi
	sub=${COMP_WORDS[1]}
	case $sub in
	llm|loop|sess|tool|view)
		# As if pi-SUB had been typed.
		COMP_WORDS=("pi-$sub" "${COMP_WORDS[@]:2}")
		((COMP_CWORD--))
		if [[ $sub == sess ]]; then
			_pi_sess
		else
			_pi_program "pi-$sub"
		fi ;;
	*)
		local prev=${COMP_WORDS[COMP_CWORD-1]}
		_pi_option_arg pi-loop && return
		[[ $cur == -* ]] && _pi_words "-n
$(_pi_flags pi-loop)" ;;
	esac
}

_pi_llm() { _pi_program pi-llm; }
_pi_loop() { _pi_program pi-loop; }
_pi_tool() { _pi_program pi-tool; }
_pi_view() { _pi_program pi-view; }

complete -F _pi pi
complete -F _pi_llm pi-llm
complete -F _pi_loop pi-loop
complete -F _pi_sess pi-sess
complete -F _pi_tool pi-tool
complete -F _pi_view pi-view
