#!/bin/sh
# The escape suite again, with pi-tool run by an ordinary user (nobody):
# then the sandbox is made in a user namespace, and the process limit
# is RLIMIT_NPROC rather than a cgroup.  Needs root to switch users, and
# a kernel that lets an ordinary user make namespaces.
. "$(dirname "$0")/lib.sh"
plan 9

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	for f in probe 2100 2110 2120 2130 2140 2141 2142 2200; do
		skip "escape suite $f as nobody" 'not root, or no setpriv'
	done
	done_testing
fi
AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
# pi-tool from a directory nobody can reach, wherever the checkout is.
BIN=$(mktemp -d /tmp/pi-nonroot.XXXXXX)
trap 'rm -rf "$BIN" "$TMP"' EXIT
cp "$ROOT/bin/pi-tool" "$ROOT/tests/helper/nosys" "$BIN/" &&
	chmod 755 "$BIN" "$BIN/pi-tool" "$BIN/nosys"
# Run as nobody from a directory nobody may enter.
cd /
# Possible where an ordinary user may make a user namespace; then
# pi-tool must work, and its failure is a failure, not a skip.
if ! $AS unshare --user --pid --mount --fork true 2>/dev/null; then
	for f in probe 2100 2110 2120 2130 2140 2141 2142 2200; do
		skip "escape suite $f as nobody" \
		    'ordinary users may not make namespaces here'
	done
	done_testing
fi
check 'a call as nobody works, in a user namespace' "
	echo '{\"toolCallId\":\"p\",\"toolName\":\"bash\",\"input\":{\"command\":\"id -u\"}}' |
	$AS '$BIN/pi-tool' -w /tmp >'$TMP/ev' &&
	jqs '$TMP/ev' '.[-1].output == \"65534\\n\" and .[0].sandbox.userNamespace'"
for f in "$ROOT"/tests/2100-*.sh "$ROOT"/tests/2110-*.sh \
    "$ROOT"/tests/2120-*.sh "$ROOT"/tests/2130-*.sh \
    "$ROOT"/tests/2140-*.sh "$ROOT"/tests/2141-*.sh \
    "$ROOT"/tests/2142-*.sh "$ROOT"/tests/2200-*.sh; do
	check "escape suite $(basename "$f") as nobody" \
		"PI_TEST_AS='$AS' PI_TOOL='$BIN/pi-tool' PI_NOSYS='$BIN/nosys' '$f' >'$TMP/sub.out' 2>&1 ||
		{ grep -v '^ok' '$TMP/sub.out'; false; }"
done
done_testing
