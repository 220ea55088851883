# lib.sh: TAP helpers for tests/NNNN-*.sh, after mblaze's t/lib.sh.
# Source it as  . "$(dirname "$0")/lib.sh" ; the test then runs in $TMP.

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pi-test.XXXXXX") || exit 1
# Keep the developer's keys, config and proxies out of every test.
PATH=$ROOT/bin:$PATH HOME=$TMP PI_HOME=$TMP/pi LC_ALL=C
XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data no_proxy='*'
export PATH HOME PI_HOME LC_ALL XDG_CONFIG_HOME XDG_DATA_HOME no_proxy
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY \
	PI_API_KEY PI_MODEL PI_FAUX_SCRIPT PI_CLOCK_FIXED OPENAI_API_KEY \
	ANTHROPIC_API_KEY GEMINI_API_KEY OPENROUTER_API_KEY GROQ_API_KEY \
	DEEPSEEK_API_KEY MISTRAL_API_KEY XAI_API_KEY CURL_CA_BUNDLE SSL_CERT_FILE \
	SSL_CERT_DIR
trap 'fake_stop; rm -rf "$TMP"' EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM
cd "$TMP" || exit 1
tap_n=0 tap_failed=0 tap_plan= FAKE_PID=

plan() { tap_plan=$1; echo "1..$1"; }

# One argument is a snippet for eval (steps joined with &&), more an argv.
tap_run() { if [ $# -eq 1 ]; then eval "$1"; else "$@"; fi; }

# tap_result STATUS TITLE DIAGFILE: Test::More puts diagnostics on stderr.
tap_result() {
	tap_n=$((tap_n + 1))
	[ "$1" -eq 0 ] && echo "ok $tap_n - $2" && return
	echo "not ok $tap_n - $2"
	tap_failed=$((tap_failed + 1))
	sed 's/^/# /' "$3" >&2
}

check() {
	tap_t=$1; shift
	tap_run "$@" >"$TMP/.out" 2>&1
	tap_result $? "$tap_t" "$TMP/.out"
}

check_exit() {
	tap_t=$1 tap_want=$2; shift 2
	tap_run "$@" >"$TMP/.out" 2>&1
	tap_rc=$?
	echo "exit status $tap_rc, expected $tap_want" >>"$TMP/.out"
	[ "$tap_rc" -eq "$tap_want" ]
	tap_result $? "$tap_t" "$TMP/.out"
}

check_same() {	# TITLE EXPECTED ACTUAL; PI_UPDATE_GOLDEN=1 rewrites EXPECTED
	[ -z "${PI_UPDATE_GOLDEN:-}" ] || cp "$3" "$2"
	diff -u "$2" "$3" >"$TMP/.out" 2>&1
	tap_result $? "$1" "$TMP/.out"
}

skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
done_testing() {
	[ -n "$tap_plan" ] || echo "1..$tap_n"
	[ "${tap_plan:-$tap_n}" -eq "$tap_n" ] ||
		{ echo "# planned $tap_plan tests but ran $tap_n" >&2; exit 1; }
	[ "$tap_failed" -eq 0 ]
	exit
}

# Every line a JSON object, and the last one ended by a newline.
jq_lines() {
	jq -R 'fromjson | objects // error("not an object")' "$1" >/dev/null &&
	{ [ ! -s "$1" ] || [ "$(tail -c 1 "$1" | wc -l)" -eq 1 ]; }
}

# Poll for a condition (at most ~10 s), where no event can be waited on.
wait_until() {
	tap_i=0
	until tap_run "$@"; do
		[ $((tap_i += 1)) -le 1000 ] || return 1
		sleep 0.01
	done
}

# jq -e as jq 1.7 has it: no result at all is a failure (exit 4).  jq
# 1.6 exits 0 then, so that "prog | jq -e FILTER" passed when prog wrote
# nothing.
jq() {
	tap_e=
	for tap_a in "$@"; do
		case $tap_a in
		--exit-status) tap_e=1 ;;
		--*) ;;
		-*e*) tap_e=1 ;;
		esac
	done
	[ -n "$tap_e" ] || { command jq "$@"; return; }
	# In memory, with the status after the last slash: no file to share
	# with a jq running in the background.
	tap_out=$(command jq "$@"; echo "/$?")
	tap_st=${tap_out##*/}
	tap_out=${tap_out%/*}
	printf '%s' "$tap_out"
	[ "$tap_st" -eq 0 ] && [ -z "$tap_out" ] && return 4
	return "$tap_st"
}

# sid FILE: the session of the first run in an event stream.
sid() { jq -r 'select(.type == "agent_start").sessionId' "$1" | head -n 1; }

# alive TEXT: some process has TEXT in its command line, its words
# joined by spaces.  The lines are gathered first, so that the grep does
# not find itself.
alive() {
	for tap_f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' <"$tap_f" 2>/dev/null && echo
	done >"$TMP/.procs"
	grep -qF -- "$1" "$TMP/.procs"
}

. "$ROOT/tests/fake.sh"
. "$ROOT/tests/assert.sh"
