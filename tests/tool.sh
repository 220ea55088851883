# tool.sh: helpers for the pi-tool tests (2xxx); source it after lib.sh.
#
# WS is the workspace.  Each call leaves its events in $TMP/ev and its
# stderr in $TMP/ev.err.  PI_TEST_AS, when set, is a command prefix that
# runs pi-tool as another user (tests/2900 sets it to run the escape
# suite as nobody); the files the tests make are then open to that user.

WS=$TMP/ws
mkdir -p "$WS" "$TMP/outside"
if [ -n "${PI_TEST_AS:-}" ]; then
	chmod 755 "$TMP" "$TMP/outside"
	chown "${PI_TEST_UID:-65534}" "$WS"
fi

# A copy of the escape helper the sandbox can always run, wherever the
# checkout is (a checkout under /tmp is hidden from it).
tool_helper() {
	mkdir -p "$WS/.bin" && cp "$ROOT/tests/helper/escape" "$WS/.bin/" &&
	chmod 755 "$WS/.bin" "$WS/.bin/escape"
}

# tool NAME INPUT [option...]: run one call; pi-tool's status is ours.
tool() {
	tool_n=$1 tool_i=$2
	shift 2
	printf '{"toolCallId":"t1","toolName":"%s","input":%s}\n' \
		"$tool_n" "$tool_i" |
		${PI_TEST_AS:-} "${PI_TOOL:-pi-tool}" -w "$WS" "$@" >"$TMP/ev" 2>"$TMP/ev.err"
}

# sbash COMMAND [option...]: the bash tool.
sbash() {
	sbash_c=$1
	shift
	tool bash "{\"command\":$(printf '%s' "$sbash_c" | jq -Rs .)}" "$@"
}

# out: what the model saw; ended FILTER: the end event satisfies it.
out() { jq -r 'select(.type=="tool_execution_end").output' "$TMP/ev"; }
ended() {
	jq -e "select(.type==\"tool_execution_end\") | $1" "$TMP/ev" \
		>/dev/null || { echo "--- events:"; head -c 3000 "$TMP/ev";
		cat "$TMP/ev.err"; return 1; }
}

# escape TITLE COMMAND HOST [option...]: COMMAND ran in the sandbox (its
# output shows the ALIVE marker, which the command text only holds
# split) and then HOST, a snippet run on the host, holds: nothing got
# out.  Whatever the command printed is shown when either fails.
escape() {
	esc_t=$1 esc_c=$2 esc_h=$3
	shift 3
	{
		sbash "echo AL\"\"IVE; $esc_c" "$@"
		if ! out | grep -q '^ALIVE$'; then
			echo "the command did not run:"
			cat "$TMP/ev" "$TMP/ev.err"
			false
		elif ! eval "$esc_h"; then
			echo "escaped; the sandbox said:"
			out
			false
		fi
	} >"$TMP/.out" 2>&1
	tap_result $? "$esc_t" "$TMP/.out"
}

# digest FILE...: contents, modes, owners and times, to compare before
# and after.
digest() { for f; do stat -c '%n %a %u %g %s %Y' "$f"; sha1sum <"$f"; done; }
