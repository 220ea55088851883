#!/bin/sh
# pi-tool escape suite, set-id files: a command must not leave in the
# workspace a file that the host would run with its owner's privileges
# (root's, when pi-tool runs as root): no setuid or setgid bit, no file
# capability, no device node, by whatever call or system-call ABI.
# Judged on the host: no such file in the workspace after the call; the
# call is told EPERM.  Run as root, then again as nobody (in a user
# namespace), as 2900 runs the rest of the suite.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 24

mkdir -p "$WS/.bin" && cp "$ROOT/tests/helper/setid" "$WS/.bin/" &&
	chmod 755 "$WS/.bin" "$WS/.bin/setid"
S=.bin/setid
OUT=$TMP/outside
# A set-id file outside, shown read-only, for cp -p, tar and ln.
cp /bin/true "$OUT/suid" && chmod 6755 "$OUT/suid"
tar -C "$OUT" -cf "$WS/suid.tar" suid && chmod 644 "$WS/suid.tar"
RO="--allow-read $OUT"

# clean: no set-id file, device node or file capability in the
# workspace.  What it finds it removes, so that the next check starts
# from a clean workspace.
clean() {
	c_found=$(find "$WS" \( -perm /6000 -o -type b -o -type c \) -print)
	[ -z "$c_found" ] || { echo "set-id or device:"; ls -l $c_found;
		rm -f $c_found; return 1; }
	python3 -c '
import os, sys
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        try:
            os.getxattr(os.path.join(d, f), "security.capability",
                follow_symlinks=False)
        except OSError:
            continue
        os.unlink(os.path.join(d, f))
        sys.exit("file capability on " + os.path.join(d, f))
' "$WS"
}
eperm() { out | grep -q 'Operation not permitted'; }
blocked() { out | grep -qx "blocked: $1: Operation not permitted"; }
# killed: the seccomp filter ended the helper (SIGSYS, 128 + 31).
killed() { out | grep -qx 'status 159'; }

escape 'chmod 4755 (the review: cp /bin/bash x && chmod 4755 x)' \
	'cp /bin/true x && chmod 4755 x' 'clean && eperm'
escape 'chmod g+s, u+s and 6755' \
	'cp /bin/true y; chmod g+s y; chmod u+s y; chmod 6755 y' 'clean && eperm'
escape 'install -m 4755' 'install -m 4755 /bin/true i' 'clean && eperm'
escape 'install -m 2755' 'install -m 2755 /bin/true j' 'clean && eperm'
escape 'cp -p of a set-id file' "cp -p $OUT/suid cp-p; ls -l cp-p" \
	'clean && eperm' $RO
escape 'cp -a of a set-id file' "cp -a $OUT/suid cp-a; ls -l cp-a" \
	'clean' $RO
escape 'tar extraction keeps no set-id bit' \
	'mkdir -p x1 && tar -C x1 -xpf suid.tar; ls -l x1' 'clean && eperm'
escape 'a set-id file outside cannot be linked in' \
	"ln $OUT/suid hard; ls -l hard" 'clean' $RO

# Each call by itself, as a program that does not use chmod(1) would.
for how in chmod fchmod fchmodat fchmodat2; do
	escape "$how(2) to 06755" \
		"cp /bin/true f-$how && $S $how f-$how" "clean && blocked $how"
done
for how in creat open openat tmpfile mknod; do
	escape "$how(2) making a file of mode 06755" \
		"$S $how n-$how" "clean && blocked $how"
done
escape 'mknod(2) of a character device' "$S mknod-chr dev" \
	'clean && blocked mknod-chr'
escape 'setxattr(2) of security.capability (cap_setuid)' \
	"cp /bin/true cap && $S xattr cap" 'clean && blocked xattr'
# Other ABIs are not in the filter: the call is killed, not run.
if [ "$(uname -m)" = x86_64 ]; then
	escape 'chmod(2) by the x32 ABI' \
		"cp /bin/true f-x32 && $S x32 f-x32; echo status \$?" \
		'clean && killed'
	escape 'chmod(2) by int 0x80 (i386)' \
		"cp /bin/true f-i386 && $S i386 f-i386; echo status \$?" \
		'clean && killed'
else
	skip 'chmod(2) by the x32 ABI' 'not x86_64'
	skip 'chmod(2) by int 0x80 (i386)' 'not x86_64'
fi

# What is not set-id still works.
escape 'modes without set-id bits still work' \
	'cp /bin/true m && chmod 700 m && chmod +x m && mkdir -p t &&
	chmod 1777 t && stat -c "%a %n" m t' \
	"out | grep -qx '711 m' && out | grep -qx '1777 t'"
escape 'a file created 0755 is 0755' \
	'umask 022; (set -C; : > e) && chmod 755 e && stat -c "%a" e' \
	"out | grep -qx 755"

# The same as nobody, where the sandbox is made in a user namespace.
AS="setpriv --reuid=65534 --regid=65534 --clear-groups --"
if [ -n "${PI_TEST_AS:-}" ]; then
	skip 'the same as nobody' 'this is that run'
elif [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null ||
    ! $AS unshare --user --pid --mount --fork true 2>/dev/null; then
	skip 'the same as nobody' 'not root, no setpriv, or no user namespaces'
else
	BIN=$(mktemp -d /tmp/pi-setid.XXXXXX)
	trap 'rm -rf "$BIN" "$TMP"' EXIT
	cp "$ROOT/bin/pi-tool" "$BIN/" && chmod 755 "$BIN" "$BIN/pi-tool"
	check 'the same as nobody' \
		"cd / && PI_TEST_AS='$AS' PI_TOOL='$BIN/pi-tool' '$ROOT/tests/2150-tool-escape-setid.sh' >'$TMP/sub.out' 2>&1 ||
		{ grep -v '^ok' '$TMP/sub.out'; false; }"
fi
done_testing
