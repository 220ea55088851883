#!/bin/sh
# The manuals pass mandoc -Tlint at its strictest, their references to
# each other included, and render under groff (Debian's man) with no
# warning, no macro name left in the text and every JSON example still
# JSON (scripts/manlint); a flaw put in one is caught.
. "$(dirname "$0")/lib.sh"
plan 6

if ! command -v mandoc >/dev/null || ! command -v makewhatis >/dev/null; then
	skip 'the manuals lint clean' 'no mandoc or makewhatis'
	skip 'a reference to a missing page is caught' 'no mandoc'
	skip 'an unescaped trailing delimiter is caught' 'no mandoc'
	skip 'a column that groff misreads is caught' 'no mandoc'
	skip 'a JSON example whose quotes are eaten is caught' 'no mandoc'
	skip 'a marked JSON block that does not parse is caught' 'no mandoc'
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
cp "$ROOT"/man/pi-sess.1 m/pi-sess.1
# groff's Lk takes the rest of the line, Ta included; mandoc does not.
printf '.Bl -column "a" "b"\n.It Cm a Ta Lk http://x Ta Ev B\n.El\n' >>m/pi-sess.1
check 'a column that groff misreads is caught' '
	! "$ROOT/scripts/manlint" m/*.[157] 2>err &&
	grep -q "groff leaves a macro name in the text" err'
cp "$ROOT"/man/pi-sess.1 m/pi-sess.1
printf '.Dl {"a": "b c"}\n' >>m/pi-sess.1
check 'a JSON example whose quotes are eaten is caught' '
	! "$ROOT/scripts/manlint" m/*.[157] 2>err && grep -q "double quote in .Dl" err'
cp "$ROOT"/man/pi-sess.1 m/pi-sess.1
printf '.\\" json\n.Bd -literal\n{"a": \\(dqb\\(dq,}\n.Ed\n' >>m/pi-sess.1
check 'a marked JSON block that does not parse is caught' '
	! "$ROOT/scripts/manlint" m/*.[157] 2>err && grep -q "marked json is not json" err'

done_testing
