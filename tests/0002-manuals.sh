#!/bin/sh
# The manuals pass mandoc -Tlint at its strictest, their references to
# each other included (scripts/manlint); a flaw put in one is caught.
. "$(dirname "$0")/lib.sh"
plan 3

if ! command -v mandoc >/dev/null || ! command -v makewhatis >/dev/null; then
	skip 'the manuals lint clean' 'no mandoc or makewhatis'
	skip 'a reference to a missing page is caught' 'no mandoc'
	skip 'an unescaped trailing delimiter is caught' 'no mandoc'
	done_testing
	exit 0
fi
check 'the manuals lint clean' '"$ROOT/scripts/manlint" "$ROOT"/man/*.[157]'
mkdir m
cp "$ROOT"/man/*.[157] m/
printf '.Xr pi-sesion 1\n' >>m/pi.7
check 'a reference to a missing page is caught' '
	! "$ROOT/scripts/manlint" m/*.[157] 2>err && grep -q "Xr pi-sesion 1" err'
cp "$ROOT"/man/pi.7 m/pi.7
printf '.Li stdin: Ns Ar line\n' >>m/pi-sess.1
check 'an unescaped trailing delimiter is caught' '
	! "$ROOT/scripts/manlint" m/*.[157] 2>err && grep -q "trailing delimiter" err'

done_testing
