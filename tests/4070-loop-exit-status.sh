#!/bin/sh
# pi-loop passes a stage's exit status on unchanged, 128 and above
# included (130, 141 and 143 say how the stage ended), and gives 128 + n
# only for a stage killed by signal n.  It used to make every status of
# 128 or more 128, a status DESIGN.md does not have.
. "$(dirname "$0")/lib.sh"
plan 14

mkdir ws && WS=$(cd ws && pwd -P) || exit 1
# A model stage that reads its input, then exits $LLM_EXIT or kills
# itself with $LLM_SIG; sh execs it, so that a signal ends pi-loop's
# child itself.
cat >llm <<'EOF'
#!/bin/sh
cat >/dev/null
[ -n "$LLM_SIG" ] && kill -s "$LLM_SIG" $$
exit "$LLM_EXIT"
EOF
# A session stage that is pi-sess, except that context exits $SESS_EXIT
# (set on the wrapper's own command line: a session stage gets only an
# allowlisted environment).
cat >sess <<'EOF'
#!/bin/sh
for a; do [ "$a" = context ] && exit "$SESS_EXIT"; done
exec pi-sess "$@"
EOF
chmod +x llm sess

# run NAME [VAR=VALUE...]: one run with the model stage; NAME.out.
run() {
	r_n=$1
	shift
	env PI_LLM="exec $TMP/llm" "$@" pi-loop -m openai/gpt-4.1 -w "$WS" \
		--no-session hi </dev/null >"$r_n.out" 2>"$r_n.err"
}
# ended FILE CODE: agent_end is the last line, says error, and CODE.
ended() {
	jqs "$1" ".[-1] | .type == \"agent_end\" and
	    .terminationReason == \"error\" and .exitCode == $2"
}

for code in 130 141 143 200 5; do
	check_exit "pi-llm exits $code: pi-loop exits $code" "$code" \
		"run x$code LLM_EXIT=$code"
	check "... and agent_end says $code" "ended x$code.out $code"
done
check_exit 'pi-llm killed by SIGKILL: 137' 137 'run k LLM_SIG=KILL'
check_exit 'pi-llm killed by SIGSEGV: 139' 139 'run s LLM_SIG=SEGV'
check "... and agent_end says 139" "ended s.out 139"
check_exit 'pi-sess context exits 141: pi-loop exits 141' 141 \
	"run c PI_SESS='SESS_EXIT=141 exec $TMP/sess'"
done_testing
