#!/bin/sh
# run.sh: run the unit test binaries and the shell tests, or those named,
# under prove(1) when there is one; exit non-zero if any test fails.
# The last line of output is "Result: PASS" or "Result: FAIL".

cd "$(dirname "$0")/.." || exit 1

if [ $# -eq 0 ]; then
	missing=
	for c in tests/unit/*.c; do
		[ -e "$c" ] || continue
		# A unit test that was never built would otherwise pass unseen.
		[ -x "${c%.c}.t" ] || missing="$missing ${c%.c}.t"
	done
	if [ -n "$missing" ]; then
		echo "run.sh: not built (run make test):$missing" >&2
		echo "Result: FAIL"
		exit 1
	fi
	for t in tests/[0-9]*.sh; do
		# prove passes over a test it cannot run and still says PASS.
		[ -x "$t" ] || missing="$missing $t (not executable)"
	done
	if [ -n "$missing" ]; then
		echo "run.sh: cannot run:$missing" >&2
		echo "Result: FAIL"
		exit 1
	fi
	set -- tests/unit/*.t tests/[0-9]*.sh
	for t; do
		[ -e "$t" ] && set -- "$@" "$t"
		shift
	done
fi

# This is prove(1) with its stdout unbuffered: the tests' diagnostics go
# to stderr, and in a CI log they must stay beside the results.
if perl -MApp::Prove -e 1 2>/dev/null; then
	exec perl -MApp::Prove -e '$| = 1; my $app = App::Prove->new;
		$app->process_args(@ARGV); exit($app->run ? 0 : 1)' \
		-- -e '' "$@" </dev/null
fi

# Without prove: run each test, failing on a bad status or a "not ok".
failed=0
for t; do
	out=$("$t" </dev/null)
	rc=$?
	printf '%s\n' "$out" | grep '^not ok' >&2
	if [ "$rc" -ne 0 ] || printf '%s\n' "$out" | grep -q '^not ok' ||
	    ! printf '%s\n' "$out" | grep -q '^1\.\.'; then
		echo "$t .. FAIL (exit $rc)"
		failed=$((failed + 1))
	else
		echo "$t .. ok"
	fi
done
[ "$failed" -eq 0 ] && echo "Result: PASS" && exit 0
echo "Result: FAIL"
exit 1
