#!/bin/sh
# pi-tool fails closed: a layer the kernel will not give is exit 7 and
# an error event naming it; --allow-degraded runs anyway and says what
# is missing, in both events and at the top of what the model sees.
# tests/helper/nosys makes the calls fail as on a kernel without them.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 15

NOSYS=${PI_NOSYS:-$ROOT/tests/helper/nosys}
PT=${PI_TOOL:-pi-tool}
call='{"toolCallId":"d1","toolName":"bash","input":{"command":"echo AL\"\"IVE; echo x > /etc/pi-degraded-test"}}'
run() { echo "$call" | ${PI_TEST_AS:-} "$NOSYS" "$@" >"$TMP/ev" 2>"$TMP/ev.err"; }
refused() {
	jqs "$TMP/ev" "length == 1 and .[0].type == \"error\" and
	    .[0].code == \"$1\" and .[0].toolCallId == \"d1\" and
	    (.[0].message | test(\"$1\"))" &&
	grep -q "sandbox layer '$1' cannot be applied" "$TMP/ev.err"
}
# degraded LAYER...: it ran, every layer named is missing from the
# enforced list and named in both events and in the notice.
degraded() {
	for l; do
		jqs "$TMP/ev" "(.[0].sandbox.enforced | index(\"$l\") | not) and
		    (.[0].sandbox.degraded | map(.layer) | index(\"$l\")) and
		    (.[-1].degraded | map(.layer) | index(\"$l\")) and
		    (.[-1].output | startswith(\"[sandbox degraded: \")) and
		    (.[-1].output | contains(\"$l (\"))" || return 1
	done
	jq -r 'select(.type=="tool_execution_end").output' "$TMP/ev" |
		grep -qx ALIVE && [ ! -e /etc/pi-degraded-test ]
}

check_exit 'no Landlock: exit 7' 7 run landlock_create_ruleset -- "$PT" -w "$WS"
check 'no Landlock: one error event naming the layer' 'refused landlock'
check_exit 'no Landlock, --allow-degraded: it runs' 6 \
	run landlock_create_ruleset -- "$PT" -w "$WS" --allow-degraded
check 'no Landlock: the read-only view still holds, and it says so' \
	'degraded landlock'
check_exit 'no namespaces: exit 7' 7 run clone-ns -- "$PT" -w "$WS"
check 'no namespaces: the mount layer is named' 'refused mount'
check_exit 'no namespaces, --allow-degraded: it runs' 6 \
	run clone-ns -- "$PT" -w "$WS" --allow-degraded
check 'no namespaces: Landlock still holds writes, five layers named' \
	'degraded mount pid ipc uts net'
check_exit 'no seccomp: exit 7' 7 run -e 22 seccomp -- "$PT" -w "$WS"
check 'no seccomp: named' 'refused seccomp'
check_exit 'no mount_setattr: exit 7' 7 run mount_setattr -- "$PT" -w "$WS"
check 'no mount_setattr: the mount layer is named' 'refused mount'
check_exit 'no seccomp, --allow-degraded: it runs' 6 \
	run -e 22 seccomp -- "$PT" -w "$WS" --allow-degraded
check 'no seccomp: named in both events and the notice' 'degraded seccomp'
# Without namespaces the tree is still killed: by its process group and
# its cgroup.
M=pi-degraded-left-$$
check 'no namespaces: children are still killed at the end' "
	echo '{\"toolCallId\":\"d2\",\"toolName\":\"bash\",\"input\":{\"command\":\"(exec -a $M sleep 300 &); echo ok\"}}' |
	 ${PI_TEST_AS:-} '$NOSYS' clone-ns -- '$PT' -w '$WS' --allow-degraded >'$TMP/ev' &&
	! pgrep -f $M"
done_testing
